"""Mass properties: exact values for boxes, orientation fixes, hull fallback, clamping, the validator check."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import trimesh

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.physics.inertia import (
    MIN_MASS,
    compute_inertial,
    inertia_problems,
    mass_properties,
)
from seed3d.synth.primitives import box, difference, union


def _rotation(axis: list[float], angle: float) -> np.ndarray:
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def _valid(inertial) -> bool:  # type: ignore[no-untyped-def]
    return not inertia_problems(inertial.mass, inertial.com, inertial.inertia)


def test_unit_cube_density_1000() -> None:
    inertial = compute_inertial(box([0, 0, 0], [1, 1, 1]), 1000.0)
    assert inertial.source == "mesh"
    assert inertial.mass == pytest.approx(1000.0)
    np.testing.assert_allclose(inertial.com, [0.5, 0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(inertial.inertia, np.eye(3) * 1000.0 / 6.0, atol=1e-9)


def test_box_with_uv_seams_is_welded_and_exact() -> None:
    mesh = box([-0.1, -0.2, 0.0], [0.3, 0.2, 0.1], uv=True)  # 24 vertices, closed only after welding
    warnings: list[str] = []
    inertial = compute_inertial(mesh, 700.0, warnings)
    w, d, h = 0.4, 0.4, 0.1
    mass = 700.0 * w * d * h
    assert inertial.source == "mesh" and warnings == []
    assert inertial.mass == pytest.approx(mass)
    np.testing.assert_allclose(inertial.com, [0.1, 0.0, 0.05], atol=1e-12)
    expected = mass / 12 * np.diag([d * d + h * h, w * w + h * h, w * w + d * d])
    np.testing.assert_allclose(inertial.inertia, expected, rtol=1e-9, atol=1e-15)


def test_reversed_winding_still_gives_positive_mass() -> None:
    mesh = box([0, 0, 0], [1, 2, 3])
    flipped = Mesh(mesh.vertices, mesh.faces[:, ::-1])
    a, b = compute_inertial(mesh, 500.0), compute_inertial(flipped, 500.0)
    assert b.mass == pytest.approx(3000.0) and b.source == "mesh"
    np.testing.assert_allclose(b.inertia, a.inertia, rtol=1e-12)
    np.testing.assert_allclose(b.com, a.com)


def test_incoherent_winding_is_repaired() -> None:
    mesh = box([0, 0, 0], [1, 1, 1])
    faces = mesh.faces.copy()
    faces[::3] = faces[::3, ::-1]  # every third triangle points inward
    inertial = compute_inertial(Mesh(mesh.vertices, faces), 1000.0)
    assert inertial.source == "mesh"
    assert inertial.mass == pytest.approx(1000.0)
    np.testing.assert_allclose(inertial.inertia, np.eye(3) * 1000.0 / 6.0, atol=1e-9)


def test_separate_shells_do_not_cancel() -> None:
    a = box([0, 0, 0], [1, 1, 1])
    b = box([2, 0, 0], [3, 1, 1])
    b_inverted = Mesh(b.vertices, b.faces[:, ::-1])
    inertial = compute_inertial(Mesh.concatenate([a, b_inverted]), 1.0)
    assert inertial.mass == pytest.approx(2.0)
    np.testing.assert_allclose(inertial.com, [1.5, 0.5, 0.5], atol=1e-12)
    # Parallel axis theorem: each cube 1/6 about its centre + 1 × 1² along y and z.
    assert inertial.inertia[0, 0] == pytest.approx(2 / 6)
    assert inertial.inertia[1, 1] == pytest.approx(2 / 6 + 2 * 1.0)


def test_cavity_is_subtracted_even_if_its_winding_is_wrong() -> None:
    hollow = difference(box([0, 0, 0], [1, 1, 1]), box([0.25, 0.25, 0.25], [0.75, 0.75, 0.75]))
    expected = 1000.0 * (1.0 - 0.125)
    good = compute_inertial(hollow, 1000.0)
    assert good.mass == pytest.approx(expected)
    # Flip the inner shell so it claims to be a solid: orientation by nesting depth undoes that.
    tm = trimesh.Trimesh(hollow.vertices, hollow.faces, process=False)
    labels = trimesh.graph.connected_component_labels(tm.face_adjacency, node_count=len(tm.faces))
    inner = labels == labels[np.argmin(np.linalg.norm(tm.triangles_center - 0.5, axis=1))]
    faces = hollow.faces.copy()
    faces[inner] = faces[inner][:, ::-1]
    bad = compute_inertial(Mesh(hollow.vertices, faces), 1000.0)
    assert bad.mass == pytest.approx(expected)
    np.testing.assert_allclose(bad.inertia, good.inertia, rtol=1e-9)


def test_non_convex_mesh_matches_trimesh() -> None:
    mesh = difference(box([0, 0, 0], [1, 1, 1]), box([0.5, -0.1, 0.5], [1.1, 1.1, 1.1]))  # an L
    inertial = compute_inertial(mesh, 250.0)
    tm = trimesh.Trimesh(mesh.vertices, mesh.faces)
    tm.density = 250.0
    assert inertial.mass == pytest.approx(tm.mass) == pytest.approx(250.0 * 0.75)
    np.testing.assert_allclose(inertial.com, tm.center_mass, atol=1e-12)
    np.testing.assert_allclose(inertial.inertia, tm.moment_inertia, rtol=1e-9, atol=1e-12)
    assert inertial.inertia[0, 2] != 0  # an L is not symmetric about its centre of mass


def test_rotated_and_translated_mesh_rotates_the_tensor() -> None:
    mesh = union(box([0, 0, 0], [0.6, 0.2, 0.1]), box([0, 0, 0], [0.1, 0.2, 0.5]))
    base = compute_inertial(mesh, 1000.0)
    r = _rotation([1, 2, 3], 0.7)
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = r, [1.0, -2.0, 0.5]
    moved = compute_inertial(mesh.transformed(m), 1000.0)
    assert moved.mass == pytest.approx(base.mass)
    np.testing.assert_allclose(moved.com, r @ base.com + m[:3, 3], atol=1e-12)
    np.testing.assert_allclose(moved.inertia, r @ base.inertia @ r.T, atol=1e-12)


def test_open_mesh_uses_its_hull_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    mesh = box([0, 0, 0], [1, 1, 1])
    open_mesh = Mesh(mesh.vertices, mesh.faces[2:])  # one side missing
    warnings: list[str] = []
    with caplog.at_level(logging.WARNING, logger="seed3d.physics.inertia"):
        inertial = compute_inertial(open_mesh, 1000.0, warnings)
    assert inertial.source == "hull"
    assert inertial.mass == pytest.approx(1000.0)  # the hull of an open box is the box
    assert any("watertight" in w for w in warnings)
    assert any("watertight" in r.getMessage() for r in caplog.records)
    assert _valid(inertial)


def test_flat_mesh_is_thickened_not_singular() -> None:
    quad = Mesh([[0, 0, 0], [1, 0, 0], [1, 2, 0], [0, 2, 0]], [[0, 1, 2], [0, 2, 3]])
    warnings: list[str] = []
    inertial = compute_inertial(quad, 1000.0, warnings, min_thickness=0.002)
    assert inertial.source == "hull"
    assert inertial.mass == pytest.approx(1000.0 * 2 * 0.002)
    np.testing.assert_allclose(inertial.com, [0.5, 1.0, 0.0], atol=1e-12)
    assert _valid(inertial)
    assert np.linalg.eigvalsh(inertial.inertia).min() > 0
    assert any("flat" in w for w in warnings)


def test_large_flat_mesh_is_thickened() -> None:
    """A 200k-vertex open sheet: its principal-axes box comes from the 3×3 axes alone (a full SVD would need an
    N×N matrix, hundreds of GB, and fail)."""
    rng = np.random.default_rng(0)
    n = 200_000
    vertices = np.c_[rng.uniform(0, 1, n), rng.uniform(0, 2, n), np.zeros(n)]
    faces = np.stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)], axis=1)
    inertial = compute_inertial(Mesh(vertices, faces), 1000.0, min_thickness=0.002)
    assert inertial.source == "hull"
    assert inertial.mass == pytest.approx(1000.0 * 2 * 0.002, rel=1e-2)  # PCA axes of random points
    assert _valid(inertial)


def test_single_triangle_and_line_are_handled() -> None:
    for mesh in (Mesh([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]], [[0, 1, 2]]),
                 Mesh([[0, 0, 0], [0.5, 0, 0], [1.0, 0, 0]], [[0, 1, 2]])):
        warnings: list[str] = []
        inertial = compute_inertial(mesh, 1000.0, warnings)
        assert _valid(inertial), inertia_problems(inertial.mass, inertial.com, inertial.inertia)
        assert warnings


def test_tiny_and_needle_parts_are_clamped_with_warnings() -> None:
    warnings: list[str] = []
    tiny = compute_inertial(box([0, 0, 0], [1e-4, 1e-4, 1e-4]), 50.0, warnings)
    assert tiny.mass == pytest.approx(MIN_MASS)
    assert _valid(tiny)
    assert any("mass" in w for w in warnings)
    warnings.clear()
    needle = compute_inertial(box([0, 0, 0], [2.0, 1e-4, 1e-4]), 8000.0, warnings)
    moments = np.linalg.eigvalsh(needle.inertia)
    assert _valid(needle)
    assert moments[0] >= 1e-6 * moments[-1] * (1 - 1e-9)
    assert any("principal moment" in w for w in warnings)


def test_bad_inputs_raise() -> None:
    with pytest.raises(InvalidInputError):
        compute_inertial(box([0, 0, 0], [1, 1, 1]), 0.0)
    with pytest.raises(InvalidInputError):
        compute_inertial(box([0, 0, 0], [1, 1, 1]), float("nan"))
    with pytest.raises(InvalidInputError):
        compute_inertial(Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64)), 1000.0)


def test_mass_properties_of_inside_out_mesh_reports_no_mass() -> None:
    mesh = box([0, 0, 0], [1, 1, 1])
    mass, _, inertia = mass_properties(mesh.vertices, mesh.faces[:, ::-1], 1000.0)
    assert mass == 0.0 and not inertia.any()


def test_inertia_problems() -> None:
    good = np.diag([1.0, 2.0, 2.5])
    assert inertia_problems(1.0, [0, 0, 0], good) == []
    assert any("mass" in p for p in inertia_problems(0.0, [0, 0, 0], good))
    assert any("mass" in p for p in inertia_problems(float("inf"), [0, 0, 0], good))
    assert any("mass" in p for p in inertia_problems("heavy", [0, 0, 0], good))  # type: ignore[arg-type]
    assert any("centre of mass" in p for p in inertia_problems(1.0, [0, np.nan, 0], good))
    asym = good.copy()
    asym[0, 1] = 0.1
    assert any("symmetric" in p for p in inertia_problems(1.0, [0, 0, 0], asym))
    assert any("positive definite" in p for p in inertia_problems(1.0, [0, 0, 0], np.diag([1.0, 1.0, 0.0])))
    assert any("positive definite" in p for p in inertia_problems(1.0, [0, 0, 0], np.diag([1.0, 1.0, -1.0])))
    assert any("triangle" in p for p in inertia_problems(1.0, [0, 0, 0], np.diag([1.0, 1.0, 3.0])))
    assert any("3×3" in p for p in inertia_problems(1.0, [0, 0, 0], np.eye(2)))
    assert any("non-finite" in p for p in inertia_problems(1.0, [0, 0, 0], np.full((3, 3), np.nan)))
    # A rotated valid tensor stays valid; a flat plate (A + B = C exactly) is accepted.
    r = _rotation([1, 1, 0], 0.3)
    assert inertia_problems(2.0, [1, 2, 3], r @ good @ r.T) == []
    assert inertia_problems(1.0, [0, 0, 0], np.diag([1.0, 2.0, 3.0])) == []
