"""Closed primitives, booleans, UV projection and watertightness checks."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.asset import Mesh
from seed3d.synth.primitives import (
    box,
    box_uv,
    cylinder,
    cylinder_between,
    demo_cabinet,
    difference,
    hull,
    intersection,
    is_watertight,
    lathe,
    prism,
    rotation,
    rotation_about,
    rounded_box,
    signed_volume,
    sphere,
    torus,
    union,
)


@pytest.mark.parametrize(("mesh", "expected", "rtol"), [
    (cylinder(0.1, 0.3, 64), np.pi * 0.01 * 0.3, 0.01),
    (sphere(0.2, segments=64), 4 / 3 * np.pi * 0.008, 0.01),
    (torus(0.2, 0.05, 96, 32), 2 * np.pi**2 * 0.2 * 0.05**2, 0.02),
    (cylinder(0.1, 0.2, 64, radius_top=0.05), np.pi * 0.2 / 3 * (0.01 + 0.005 + 0.0025), 0.01),
    # Steiner's formula for a box (0.9, 0.4, 0.2) grown by a ball of radius 0.05
    (rounded_box([0, 0, 0], [1, 0.5, 0.3], 0.05, 8), 0.9 * 0.4 * 0.2 + 2 * (0.36 + 0.08 + 0.18) * 0.05
     + np.pi * 1.5 * 0.05**2 + 4 / 3 * np.pi * 0.05**3, 0.01),
    (prism([[0, 0], [1, 0], [0, 1]], 0.0, 2.0), 1.0, 1e-9),
])
def test_primitives_are_closed_outward_and_have_the_right_volume(mesh: Mesh, expected: float, rtol: float) -> None:
    assert is_watertight(mesh)
    assert signed_volume(mesh) == pytest.approx(expected, rel=rtol)


def test_lathe_hollow_vessel_and_orientation() -> None:
    # outside up, over the rim, inside down: a cup with 1 cm walls and floor
    cup = lathe([(0, 0), (0.1, 0), (0.1, 0.2), (0.09, 0.2), (0.09, 0.01), (0, 0.01)], 64)
    assert is_watertight(cup)
    outer = np.pi * 0.1**2 * 0.2
    inner = np.pi * 0.09**2 * 0.19
    assert signed_volume(cup) == pytest.approx(outer - inner, rel=0.01)
    # the reversed profile gives the same outward surface
    rev = lathe([(0, 0.01), (0.09, 0.01), (0.09, 0.2), (0.1, 0.2), (0.1, 0), (0, 0)], 64)
    assert signed_volume(rev) == pytest.approx(signed_volume(cup))


def test_lathe_rejects_bad_profiles() -> None:
    with pytest.raises(ValueError):
        lathe([(0, 0), (0.1, 0)])
    with pytest.raises(ValueError):
        lathe([(0, 0), (0.1, 0), (0.0, 0.1), (0.1, 0.2), (0, 0.3)])
    with pytest.raises(ValueError):
        lathe([(0, 0), (0.1, 0), (0.1, 0.1)])


def test_cylinder_between_points_and_rotations() -> None:
    m = cylinder_between([0, 0, 0], [0.3, 0.4, 0], 0.02)
    lo, hi = m.bounds
    assert hi[0] == pytest.approx(0.3 + 0.02 * 0.8, abs=2e-3) and lo[2] == pytest.approx(-0.02, abs=1e-3)
    r = rotation([0, 0, 1], np.pi / 2)
    assert np.allclose(r[:3, :3] @ [1, 0, 0], [0, 1, 0])
    ra = rotation_about([0, 0, 1], np.pi, [1, 0, 0])
    assert np.allclose((ra @ [0, 0, 0, 1])[:3], [2, 0, 0])


def test_booleans_and_hull() -> None:
    a = box([0, 0, 0], [1, 1, 1])
    b = box([0.5, 0.5, 0.5], [1.5, 1.5, 1.5])
    assert signed_volume(union(a, b)) == pytest.approx(2 - 0.125)
    assert signed_volume(difference(a, b)) == pytest.approx(1 - 0.125)
    assert signed_volume(intersection(a, b)) == pytest.approx(0.125)
    h = hull(np.random.default_rng(0).random((50, 3)))
    assert is_watertight(h) and signed_volume(h) > 0


def test_box_uv_splits_seams_but_stays_closed() -> None:
    m = difference(box([0, 0, 0], [1, 0.5, 0.3]), cylinder(0.1, 1.0, 32, (0, 0, 1), (0.5, 0.25, -0.2)))
    u = box_uv(m)
    assert u.uv is not None and u.uv.shape == (len(u.vertices), 2)
    assert u.uv.min() >= 0 and u.uv.max() <= 1
    assert len(u.vertices) > len(m.vertices)  # split at projection seams
    assert not is_watertight(Mesh(u.vertices, u.faces[:-1]))
    assert is_watertight(u)
    assert signed_volume(u) == pytest.approx(signed_volume(m))
    # booleans accept seam-split meshes (they weld first)
    assert signed_volume(difference(u, box([0.9, 0, 0], [1.1, 1, 1]))) == pytest.approx(
        signed_volume(m) - 0.1 * 0.5 * 0.3, rel=1e-6)


def test_weld_merges_coincident_vertices() -> None:
    b = box([0, 0, 0], [1, 1, 1], uv=True)
    assert len(b.vertices) == 24
    assert len(b.welded().vertices) == 8


def test_boolean_on_open_mesh_is_a_clear_error() -> None:
    b = box([0, 0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match="closed"):
        difference(Mesh(b.vertices, b.faces[:-2]), box([0.5, 0.5, 0.5], [2, 2, 2]))


def test_demo_cabinet_still_builds() -> None:
    cab = demo_cabinet()
    assert [p.name for p in cab.parts] == ["body", "door", "door_handle", "drawer", "drawer_knob"]
    assert all(is_watertight(p.mesh) for p in cab.parts)
