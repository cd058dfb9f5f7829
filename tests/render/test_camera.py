"""Cameras (OpenCV convention), look_at, GL clip matrices and the camera rigs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from seed3d.errors import InvalidInputError
from seed3d.render import (
    TEXTURE_RIG,
    Camera,
    RandomViewConfig,
    RenderMesh,
    bounding_sphere,
    fixed_views,
    look_at,
    orbit_camera,
    random_views,
)


def test_look_at_uses_opencv_axes() -> None:
    # camera on +X looking at the origin: forward -X, image right +Y, image down -Z
    m = look_at([3, 0, 0], [0, 0, 0])
    np.testing.assert_allclose(m[:3, :3], [[0, 1, 0], [0, 0, -1], [-1, 0, 0]], atol=1e-12)
    cam = Camera.from_fov(60, 64, 48, m)
    np.testing.assert_allclose(cam.position, [3, 0, 0], atol=1e-12)
    np.testing.assert_allclose(cam.forward, [-1, 0, 0], atol=1e-12)
    uv, z = cam.project(np.array([[0, 0, 0], [0, 0, 0.5], [0, 0.5, 0]]))
    np.testing.assert_allclose(uv[0], [32, 24])  # the target lands on the principal point
    assert z[0] == pytest.approx(3.0)
    assert uv[1, 1] < 24  # +Z is up in the image (smaller row)
    assert uv[2, 0] > 32  # +Y is to the right when looking at the front (-X direction)


def test_look_at_straight_down_puts_the_front_at_the_bottom() -> None:
    cam = Camera.from_fov(40, 32, 32, look_at([0, 0, 5], [0, 0, 0]))
    np.testing.assert_allclose(cam.forward, [0, 0, -1], atol=1e-12)
    uv, _ = cam.project(np.array([[0.5, 0, 0]]))
    assert uv[0, 1] > 16  # a point toward the front (+X) is below the image centre
    with pytest.raises(InvalidInputError):
        look_at([1, 1, 1], [1, 1, 1])


def test_intrinsics_from_fov_and_focal_length() -> None:
    cam = Camera.from_fov(90, 100, 50)
    assert cam.fy == pytest.approx(25.0)
    assert cam.fov_deg[1] == pytest.approx(90.0)
    assert (cam.cx, cam.cy) == (50.0, 25.0)
    cam = Camera.from_focal_mm(50, 360)
    assert cam.fx == pytest.approx(500.0)  # 50 mm on a 36 mm sensor, 360 px wide
    np.testing.assert_allclose(cam.K, [[500, 0, 180], [0, 500, 180], [0, 0, 1]])
    small = cam.resized(180)
    assert (small.width, small.height, small.fx, small.cx) == (180, 180, 250.0, 90.0)


def test_pixel_rays_go_through_pixel_centres() -> None:
    cam = Camera.from_fov(50, 8, 6, look_at([1, 2, 3], [0, 0.2, 0.4]))
    origin, dirs = cam.pixel_rays()
    pts = origin + 2.5 * dirs.reshape(-1, 3)
    uv, z = cam.project(pts)
    jj, ii = np.meshgrid(np.arange(8) + 0.5, np.arange(6) + 0.5)
    np.testing.assert_allclose(uv, np.stack([jj.ravel(), ii.ravel()], 1), atol=1e-9)
    np.testing.assert_allclose(z, 2.5)


def test_clip_matrix_maps_image_corners_and_depth_range() -> None:
    cam = Camera(40, 20, 30.0, 25.0, 21.0, 9.0, look_at([0, -4, 1], [0, 0, 1]))
    near, far = 0.5, 10.0
    clip = cam.clip_matrix(near, far)
    # the camera-frame point at depth z that lands on pixel coordinates (u, v)
    def world(u: float, v: float, z: float) -> np.ndarray:
        p_cam = np.array([(u - cam.cx) / cam.fx * z, (v - cam.cy) / cam.fy * z, z, 1.0])
        return cam.camera_to_world @ p_cam

    for (u, v, z), ndc in [((0, 0, near), (-1, -1, -1)), ((40, 20, far), (1, 1, 1)), ((20, 10, 2.0), (0, 0, None))]:
        c = clip @ world(u, v, z)
        got = c[:3] / c[3]
        np.testing.assert_allclose(got[:2], ndc[:2], atol=1e-9)
        if ndc[2] is not None:
            assert got[2] == pytest.approx(ndc[2])
    np.testing.assert_allclose(cam.opengl_view()[1:3], -cam.world_to_camera[1:3])
    with pytest.raises(InvalidInputError):
        cam.clip_matrix(1.0, 0.5)


def test_camera_rejects_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        Camera(64, 64, 50, 50, 32, 32, np.diag([1.0, 1.0, 2.0, 1.0]))  # not rigid
    with pytest.raises(InvalidInputError):
        Camera(64, 64, 50, 50, 32, 32, np.diag([1.0, 1.0, -1.0, 1.0]))  # a reflection
    with pytest.raises(InvalidInputError):
        Camera(0, 64, 50, 50, 32, 32)
    with pytest.raises(InvalidInputError):
        Camera.from_fov(180, 64)


def test_fixed_rig_frames_the_whole_target(cabinet: RenderMesh) -> None:
    cams = fixed_views(cabinet, 64)
    assert len(cams) == len(TEXTURE_RIG) == 6
    centre, _ = bounding_sphere(cabinet)
    lo, hi = cabinet.bounds
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    dists = set()
    for cam in cams:
        to_centre = centre - cam.position
        dists.add(round(float(np.linalg.norm(to_centre)), 9))
        np.testing.assert_allclose(cam.forward, to_centre / np.linalg.norm(to_centre), atol=1e-9)
        uv, z = cam.project(corners)
        assert np.all(z > 0) and np.all((uv >= 0) & (uv <= 64))
    assert len(dists) == 1  # one distance for the whole rig
    # azimuth 0 is the front (+X), 90 the +Y side; view 4 looks straight down
    np.testing.assert_allclose(cams[0].forward, [-1, 0, 0], atol=1e-9)
    np.testing.assert_allclose(cams[1].forward, [0, -1, 0], atol=1e-9)
    np.testing.assert_allclose(cams[4].forward, [0, 0, -1], atol=1e-9)
    el = math.degrees(math.asin(-cams[5].forward[2]))
    assert el == pytest.approx(45.0)


def test_random_views_are_seeded_and_in_range(cabinet: RenderMesh) -> None:
    cfg = RandomViewConfig(elevation_deg=(0.0, 40.0), focal_mm=(35.0, 50.0))
    a = random_views(cabinet, 8, seed=3, width=32, config=cfg)
    b = random_views(cabinet, 8, seed=3, width=32, config=cfg)
    c = random_views(cabinet, 8, seed=4, width=32, config=cfg)
    assert all(np.array_equal(x.world_to_camera, y.world_to_camera) and x.fx == y.fx for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x.world_to_camera, y.world_to_camera) for x, y in zip(a, c, strict=True))
    centre, _ = bounding_sphere(cabinet)
    for cam in a:
        assert 35.0 / 36 * 32 - 1e-9 <= cam.fx <= 50.0 / 36 * 32 + 1e-9
        offset = cam.position - centre
        elevation = math.degrees(math.asin(offset[2] / np.linalg.norm(offset)))
        assert -3.0 <= elevation <= 43.0  # target jitter moves the apparent elevation a little
    with pytest.raises(InvalidInputError):
        RandomViewConfig(elevation_deg=(30.0, 10.0))


def test_orbit_camera_distance_override(sphere: RenderMesh) -> None:
    cam = orbit_camera(sphere, 30.0, 20.0, 48, distance=4.0)
    centre, _ = bounding_sphere(sphere)
    assert np.linalg.norm(cam.position - centre) == pytest.approx(4.0)
