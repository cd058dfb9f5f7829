"""Every buffer against the mesh it came from, on each CPU backend: geometry, normals, materials, shading."""

from __future__ import annotations

import math

import numpy as np
import pytest

from seed3d.asset import Mesh, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.render import (
    BUFFERS,
    Camera,
    DirectionalLight,
    Lighting,
    Renderer,
    RenderMesh,
    bounding_sphere,
    fixed_views,
    look_at,
    orbit_camera,
    random_views,
    srgb_to_linear,
)
from seed3d.synth.primitives import box, demo_cabinet
from tests.render.conftest import CPU_BACKENDS, make_renderer

SIZE = 96


def test_positions_lie_on_their_triangles_and_depth_matches_the_camera(renderer: Renderer, cabinet: RenderMesh
                                                                      ) -> None:
    for cam in (fixed_views(cabinet, SIZE)[5], random_views(cabinet, 1, seed=2, width=SIZE)[0]):
        buf = renderer.render(cabinet, cam, buffers=("position", "depth"))
        m = buf.mask
        assert m.sum() > 0.2 * m.size
        tri = buf.tri_id[m]
        pos = buf.position[m].astype(np.float64)
        v = cabinet.vertices[cabinet.faces[tri]]
        off_plane = np.abs(np.einsum("nc,nc->n", pos - v[:, 0], cabinet.face_normals[tri]))
        assert off_plane.max() < 1e-5  # meters
        assert buf.bary[m].min() > -1e-3 and np.allclose(buf.bary[m].sum(-1), 1, atol=1e-5)
        # every point projects back onto its own pixel centre, at the depth the depth buffer holds
        uv, z = cam.project(pos)
        rows, cols = np.nonzero(m)
        np.testing.assert_allclose(uv, np.stack([cols + 0.5, rows + 0.5], 1), atol=2e-3)
        np.testing.assert_allclose(buf.depth[m], z, rtol=1e-5)
        assert np.all(buf.depth[~m] == 0) and np.all(buf.position[~m] == 0)
        assert np.all(z > 0)


def test_normals_are_the_face_normals(renderer: Renderer, cabinet: RenderMesh) -> None:
    cam = fixed_views(cabinet, SIZE)[5]
    buf = renderer.render(cabinet, cam, buffers=("normal_camera",))
    m = buf.mask
    np.testing.assert_allclose(buf.normal[m], cabinet.face_normals[buf.tri_id[m]], atol=1e-6)
    np.testing.assert_allclose(buf.normal_camera[m], buf.normal[m] @ cam.rotation.T, atol=1e-5)
    # this view sees front (+X), side (+Y) and top (+Z) faces, all outward, so facing the camera (z < 0)
    counts = {tuple(n): c for n, c in zip(*np.unique(np.round(buf.normal[m], 3), axis=0, return_counts=True),
                                          strict=True)}
    for axis in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)):
        assert counts.get(axis, 0) > 100
    assert np.mean(buf.normal_camera[m][:, 2] < 0) > 0.99


def test_vertex_normals_follow_a_sphere(sphere: RenderMesh) -> None:
    for name in CPU_BACKENDS:
        smooth, flat = make_renderer(name), make_renderer(name)
        smooth.normals = "vertex"
        cam = orbit_camera(sphere, 20.0, 30.0, SIZE)
        a, b = (r.render(sphere, cam, buffers=("normal", "position")) for r in (smooth, flat))
        centre, _ = bounding_sphere(sphere)
        radial = a.position[a.mask] - centre
        radial /= np.linalg.norm(radial, axis=1, keepdims=True)
        cos_smooth = np.sum(a.normal[a.mask] * radial, axis=1)
        cos_flat = np.sum(b.normal[b.mask] * radial, axis=1)
        np.testing.assert_allclose(np.linalg.norm(a.normal[a.mask], axis=1), 1, atol=1e-5)
        assert cos_smooth.min() > 0.995 and cos_smooth.mean() > cos_flat.mean()
        smooth.close()
        flat.close()


def test_mask_matches_the_sphere_silhouette(renderer: Renderer, sphere: RenderMesh) -> None:
    cam = orbit_camera(sphere, 0.0, 10.0, SIZE)
    buf = renderer.render(sphere, cam, buffers=("mask",))
    centre, _ = bounding_sphere(sphere)
    v = sphere.vertices[sphere.faces]
    r_in = float(np.min(np.abs(np.einsum("nc,nc->n", v[:, 0] - centre, sphere.face_normals))))
    origin, dirs = cam.pixel_rays()
    d = dirs / np.linalg.norm(dirs, axis=-1, keepdims=True)
    to_c = centre - origin
    miss = np.linalg.norm(to_c - (d @ to_c)[..., None] * d, axis=-1)  # distance of each ray to the centre
    assert np.all(buf.mask[miss < r_in - 1e-6])
    assert not np.any(buf.mask[miss > 0.5 + 1e-6])
    assert buf.mask.sum() > 0.15 * buf.mask.size
    np.testing.assert_array_equal(buf.mask, buf.tri_id >= 0)


def test_part_ids_and_canonical_coordinates(renderer: Renderer, cabinet: RenderMesh) -> None:
    front = renderer.render(cabinet, fixed_views(cabinet, SIZE)[5], buffers=("part_id", "canonical"))
    m = front.mask
    np.testing.assert_array_equal(front.part_id[m], cabinet.face_part[front.tri_id[m]])
    assert np.all(front.part_id[~m] == -1)
    assert set(np.unique(front.part_id[m])) == {0, 1, 2, 3, 4}  # body, door, handle, drawer, knob
    offset, scale = cabinet.canonical_transform
    np.testing.assert_allclose(front.canonical[m], (front.position[m] - offset) * scale, atol=1e-6)
    assert front.canonical[m].min() >= -1e-6 and front.canonical[m].max() <= 1 + 1e-6
    top = renderer.render(cabinet, fixed_views(cabinet, SIZE)[4], buffers=("canonical", "part_id"))
    body_top = top.mask & (top.part_id == 0)
    # the cabinet is tallest along Z, so its top surface is the canonical cube's top face
    np.testing.assert_allclose(top.canonical[body_top][:, 2], 1.0, atol=1e-5)


def _quadrants(colours: list[tuple[int, int, int]], size: int = 8) -> np.ndarray:
    """A size x size RGB image: top-left, top-right, bottom-left, bottom-right quadrants of the given colours."""
    img = np.zeros((size, size, 3), np.uint8)
    h = size // 2
    img[:h, :h], img[:h, h:], img[h:, :h], img[h:, h:] = (np.array(c, np.uint8) for c in colours)
    return img


def test_textured_albedo_metallic_and_roughness(renderer: Renderer) -> None:
    base_px = [(200, 40, 40), (40, 200, 40), (40, 40, 200), (250, 250, 250)]
    mr_px = [(255, 51, 204), (255, 204, 51), (0, 102, 0), (0, 0, 255)]  # R is junk, G = roughness, B = metallic
    material = PBRMaterial("quads", (0.5, 1.0, 1.0, 1.0), metallic=1.0, roughness=0.5,
                           base_color_map=_quadrants(base_px), metallic_roughness_map=_quadrants(mr_px))
    cube = box([-0.5, -0.5, 0.0], [0.5, 0.5, 1.0], uv=True)  # +X face: u along +Y, v along +Z
    cam = Camera.from_fov(30, SIZE, SIZE, look_at([4, 0, 0.5], [0, 0, 0.5]))
    buf = renderer.render(cube, cam, material=material)
    front = np.isin(buf.tri_id, [0, 1])  # the +X face: the first two faces of box(uv=True)
    rows, cols = np.nonzero(front)
    r0, r1, c0, c1 = rows.min(), rows.max(), cols.min(), cols.max()
    at = {  # pixel at the centre of each quadrant of the face as seen: the texture appears upright
        "top-left": (r0 + (r1 - r0) // 4, c0 + (c1 - c0) // 4), "top-right": (r0 + (r1 - r0) // 4, c1 - (c1 - c0) // 4),
        "bottom-left": (r1 - (r1 - r0) // 4, c0 + (c1 - c0) // 4),
        "bottom-right": (r1 - (r1 - r0) // 4, c1 - (c1 - c0) // 4),
    }
    for (name, (i, j)), base, mr in zip(at.items(), base_px, mr_px, strict=True):
        assert front[i, j]
        expected = np.array([0.5, 1.0, 1.0]) * srgb_to_linear(np.array(base) / 255.0)
        np.testing.assert_allclose(buf.albedo[i, j], expected, atol=1e-4, err_msg=name)
        assert buf.roughness[i, j] == pytest.approx(0.5 * mr[1] / 255.0, abs=1e-4), name
        assert buf.metallic[i, j] == pytest.approx(mr[2] / 255.0, abs=1e-4), name
    assert np.all(buf.albedo[~buf.mask] == 0) and np.all(buf.metallic[~buf.mask] == 0)


def test_untextured_parts_use_their_factors(renderer: Renderer) -> None:
    asset = demo_cabinet()
    buf = renderer.render(asset, fixed_views(asset, SIZE)[2])  # the back: only the body is visible
    body = asset.part("body").material
    m = buf.mask
    assert set(np.unique(buf.part_id[m])) == {0}
    np.testing.assert_allclose(buf.albedo[m], np.broadcast_to(body.base_color[:3], (m.sum(), 3)), atol=1e-6)
    np.testing.assert_allclose(buf.roughness[m], body.roughness)
    np.testing.assert_allclose(buf.metallic[m], body.metallic)


def test_lambert_plus_ggx_energy_on_a_plane(renderer: Renderer) -> None:
    plane = Mesh([[0, -1, -1], [0, 1, -1], [0, 1, 1], [0, -1, 1]], [[0, 1, 2], [0, 2, 3]])  # faces +X
    white = PBRMaterial("white", (1.0, 1.0, 1.0, 1.0), metallic=0.0, roughness=1.0)
    cam = Camera.from_fov(20, 33, 33, look_at([3, 0, 0], [0, 0, 0]))
    light = DirectionalLight((0.0, 0.0, -1.0), (1.0, 1.0, 1.0), math.pi / 2)  # from the camera
    lighting = Lighting(lights=(light,), sky=(0, 0, 0), ground=(0, 0, 0), background=(0.0, 0.0, 0.0))
    buf = renderer.render(plane, cam, lighting, material=white)
    # Lambert: 1/pi * pi/2 = 0.5; GGX at alpha = 1, normal incidence: D = 1/pi, V = 1/4, F = 0.04 -> 0.005
    np.testing.assert_allclose(srgb_to_linear(buf.rgb[16, 16]), 0.505, atol=2e-3)
    world = Lighting(lights=(DirectionalLight((1.0, 0.0, 0.0), intensity=math.pi / 2),), sky=(0, 0, 0),
                     ground=(0, 0, 0), frame="world")
    np.testing.assert_allclose(renderer.render(plane, cam, world, material=white).rgb[16, 16], buf.rgb[16, 16],
                               atol=1e-6)
    # the environment alone: a uniform sky/ground of radiance 0.2 lights a white Lambertian plane to 0.2
    env = Lighting(lights=(), sky=(0.2, 0.2, 0.2), ground=(0.2, 0.2, 0.2), background=(0.0, 0.0, 0.0))
    rgb = renderer.render(plane, cam, env, material=white).rgb
    assert 0.2 < float(srgb_to_linear(rgb[16, 16])[0]) < 0.2 * 1.1  # plus a little Fresnel from the environment


def test_shading_is_deterministic_per_seed(renderer: Renderer, cabinet: RenderMesh) -> None:
    cam_a = random_views(cabinet, 1, seed=5, width=64)[0]
    cam_b = random_views(cabinet, 1, seed=5, width=64)[0]
    assert Lighting.random(5) == Lighting.random(5) and Lighting.random(5) != Lighting.random(6)
    a = renderer.render(cabinet, cam_a, Lighting.random(5))
    b = renderer.render(cabinet, cam_b, Lighting.random(5))
    c = renderer.render(cabinet, cam_a, Lighting.random(6))
    for name in BUFFERS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert not np.array_equal(a.rgb, c.rgb)
    assert a.rgb.dtype == np.float32 and a.rgb.min() >= 0 and a.rgb.max() <= 1
    np.testing.assert_array_equal(a.rgb[~a.mask], np.ones((int((~a.mask).sum()), 3), np.float32))


def test_render_image_antialiases_edges(renderer: Renderer, sphere: RenderMesh) -> None:
    cam = orbit_camera(sphere, 0.0, 0.0, 48)
    rgba = renderer.render_image(sphere, cam, supersample=3)
    assert rgba.shape == (48, 48, 4)
    alpha = rgba[..., 3]
    assert alpha[24, 24] == 1.0 and alpha[0, 0] == 0.0
    assert np.any((alpha > 0.05) & (alpha < 0.95))  # partial coverage on the silhouette


def test_buffer_selection_and_input_errors(renderer: Renderer, cabinet: RenderMesh) -> None:
    cam = fixed_views(cabinet, 32)[0]
    buf = renderer.render(cabinet, cam, buffers=("depth",))
    assert buf.depth is not None and buf.position is not None  # depth is computed from positions
    assert buf.normal is None and buf.albedo is None and buf.rgb is None
    assert set(buf.as_dict()) == {"tri_id", "bary", "mask", "depth", "position"}
    with pytest.raises(InvalidInputError, match="unknown render buffers"):
        renderer.render(cabinet, cam, buffers=("gloss",))
    with pytest.raises(InvalidInputError):
        renderer.render("cabinet", cam)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        renderer.render(demo_cabinet(), cam, material=PBRMaterial())
    views = renderer.render_views(demo_cabinet(), fixed_views(cabinet, 32), buffers=("mask",))
    assert len(views) == 6 and all(v.backend == renderer.backend_name for v in views)
