"""Hierarchical SDF extraction against analytic fields: closed, outward, accurate, and sparse."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable

import numpy as np
import pytest
from scipy.spatial import cKDTree

from seed3d.errors import InvalidInputError, Seed3DError
from seed3d.geometry.extract import EmptySurfaceError, ExtractionStats, extract_surface

SDF = Callable[[np.ndarray], np.ndarray]


def sphere(p: np.ndarray, r: float = 0.7) -> np.ndarray:
    return np.linalg.norm(p, axis=1) - r


def box(p: np.ndarray, c: tuple[float, ...] = (0, 0, 0), h: tuple[float, ...] = (0.5, 0.5, 0.5)) -> np.ndarray:
    q = np.abs(p - np.asarray(c, np.float32)) - np.asarray(h, np.float32)
    return np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0)


def torus(p: np.ndarray) -> np.ndarray:
    q = np.stack([np.hypot(p[:, 0], p[:, 1]) - 0.55, p[:, 2]], 1)
    return np.linalg.norm(q, axis=1) - 0.2


def two_boxes(p: np.ndarray) -> np.ndarray:
    return np.minimum(box(p, (-0.3, 0, 0), (0.3, 0.2, 0.4)), box(p, (0.3, 0.1, 0.1), (0.35, 0.3, 0.2)))


def truncated(f: SDF, tau: float) -> SDF:
    return lambda p: np.clip(f(p), -tau, tau)


ANALYTIC = {
    "sphere": (sphere, 4 / 3 * np.pi * 0.7**3),
    "box": (lambda p: box(p, (0.013, 0.021, -0.017), (0.41, 0.33, 0.27)), 8 * 0.41 * 0.33 * 0.27),
    "torus": (torus, 2 * np.pi**2 * 0.55 * 0.2**2),
    "two_boxes": (two_boxes, 0.192 + 0.168 - 0.008),
    "sphere_tsdf": (truncated(sphere, 0.12), 4 / 3 * np.pi * 0.7**3),
    "two_boxes_tsdf": (truncated(two_boxes, 0.11), 0.192 + 0.168 - 0.008),
}


def _closed_outward(mesh) -> float:  # type: ignore[no-untyped-def]
    tm = mesh.to_trimesh()
    assert tm.is_watertight
    assert tm.is_winding_consistent
    assert tm.volume > 0  # outward normals for a negative-inside field
    return float(tm.volume)


@pytest.mark.parametrize("name", list(ANALYTIC))
def test_analytic_fields_give_closed_outward_meshes_of_the_right_volume(name: str) -> None:
    f, volume = ANALYTIC[name]
    mesh = extract_surface(f, resolution=64, coarse=16)
    assert mesh.vertices.dtype == np.float64 and mesh.faces.dtype == np.int64
    assert abs(_closed_outward(mesh) - volume) / volume < 0.03
    assert np.abs(f(mesh.vertices.astype(np.float32))).max() < 2 / 64  # on the surface, within a cell


def test_truncation_does_not_change_the_mesh() -> None:
    exact = extract_surface(two_boxes, resolution=64, coarse=16)
    trunc = extract_surface(truncated(two_boxes, 0.25), resolution=64, coarse=16)
    assert len(exact.faces) == len(trunc.faces)
    np.testing.assert_allclose(np.sort(exact.vertices, axis=0), np.sort(trunc.vertices, axis=0), atol=1e-6)


def test_truncation_below_the_coarse_diagonal_does_not_change_the_mesh() -> None:
    # coarse 32: cell diagonal 0.108 (x 1.2 safety: 0.13) is above the truncation 0.08, half of it (0.065) below
    exact = extract_surface(two_boxes, resolution=128, coarse=32)
    trunc, st_trunc = extract_surface(truncated(two_boxes, 0.08), resolution=128, coarse=32, return_stats=True)
    assert len(exact.faces) == len(trunc.faces)
    np.testing.assert_allclose(np.sort(exact.vertices, axis=0), np.sort(trunc.vertices, axis=0), atol=1e-6)
    assert st_trunc.active_cells[0] < 0.3 * 32**3  # empty coarse cells are still pruned


def test_children_far_from_the_level_are_never_sampled() -> None:
    calls: list[np.ndarray] = []

    def recorded(p: np.ndarray) -> np.ndarray:
        calls.append(p.copy())
        return sphere(p)

    mesh, stats = extract_surface(recorded, resolution=128, coarse=16, return_stats=True)
    pts = np.concatenate(calls)
    d = np.abs(sphere(pts))
    # past the coarse lattice every sample is a corner of a child whose shared corner lies within 1.2 child
    # diagonals of the surface: within 1.2 + 1 child diagonals (level 1: 2·√3/32 = 0.108) of it
    fine = d[(16 + 1) ** 3:]
    assert fine.max() <= 2.2 * 2 * np.sqrt(3) / 32
    assert stats.evaluations < 0.085 * stats.dense_evaluations  # 7.7 % measured; 9.2 % sampling every child
    _closed_outward(mesh)


def test_matches_dense_marching_cubes() -> None:
    from skimage.measure import marching_cubes

    res, h = 64, 2 / 64
    g = np.arange(res + 1) * h - 1
    pts = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3).astype(np.float32)
    verts, faces, _, _ = marching_cubes(torus(pts).reshape((res + 1,) * 3), 0.0)
    verts = verts * h - 1
    mesh = extract_surface(torus, resolution=res, coarse=16)
    assert abs(len(mesh.vertices) - len(verts)) <= 0.01 * len(verts)
    assert abs(len(mesh.faces) - len(faces)) <= 0.01 * len(faces)
    d_ab = cKDTree(verts).query(mesh.vertices)[0].max()
    d_ba = cKDTree(mesh.vertices).query(verts)[0].max()
    assert max(d_ab, d_ba) < 1e-3 * h  # Hausdorff distance between the vertex sets


def test_sparse_at_256() -> None:
    mesh, stats = extract_surface(torus, resolution=256, coarse=32, return_stats=True)
    assert isinstance(stats, ExtractionStats)
    assert stats.evaluations < 0.05 * stats.dense_evaluations  # 2.8 % measured (3.4 % sampling every child)
    assert len(stats.active_cells) == 4  # 32, 64, 128, 256
    growth = np.array(stats.active_cells[1:3]) / np.array(stats.active_cells[0:2])
    assert np.all((growth > 3) & (growth < 5))  # kept cells grow like a surface (×4 per level), not a volume (×8)
    assert stats.vertices == len(mesh.vertices) and stats.blocks > 0
    vol = _closed_outward(mesh)
    assert abs(vol - 2 * np.pi**2 * 0.55 * 0.2**2) / vol < 0.005


def test_lattice_aligned_surface_is_welded() -> None:
    # faces at ±0.5 lie exactly on lattice planes: sdf == 0 at lattice points
    mesh = extract_surface(box, resolution=64, coarse=16)
    assert abs(_closed_outward(mesh) - 1.0) < 0.01
    assert mesh.to_trimesh().euler_number == 2


def test_level_bound_and_thin_plate() -> None:
    mesh = extract_surface(lambda p: sphere(p, 1.4), resolution=64, coarse=16, bound=2.0, level=0.1)
    assert abs(_closed_outward(mesh) - 4 / 3 * np.pi * 1.5**3) / (4 / 3 * np.pi * 1.5**3) < 0.02
    assert np.abs(mesh.bounds).max() < 1.55
    plate = extract_surface(lambda p: box(p, h=(0.6, 0.6, 0.004)), resolution=64, coarse=16)
    assert _closed_outward(plate) == pytest.approx(1.2 * 1.2 * 0.008, rel=0.05)


def test_non_distance_field_still_closed() -> None:
    rng = np.random.default_rng(0)
    k, phase, amp = rng.normal(size=(12, 3)) * 15, rng.uniform(0, 6.3, 12), rng.normal(size=12)

    def wild(p: np.ndarray) -> np.ndarray:  # steep (slope ~10) and wavy: pruning can be wrong, closure must hold
        return 10 * (np.linalg.norm(p, axis=1) - 0.6 + 0.08 * (np.sin(p @ k.T + phase) @ amp) / np.sqrt(12))

    _closed_outward(extract_surface(wild, resolution=64, coarse=16))


def test_surface_leaving_the_cube_is_capped(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seed3d.geometry.extract"):
        mesh = extract_surface(lambda p: sphere(p, 1.2), resolution=32, coarse=16)
    assert "leaves the cube" in caplog.text
    _closed_outward(mesh)
    assert np.abs(mesh.bounds).max() <= 1.0 + 1e-9


def test_progress_and_batching() -> None:
    seen: list[float] = []
    calls: list[int] = []

    def counted(p: np.ndarray) -> np.ndarray:
        calls.append(len(p))
        assert p.dtype == np.float32 and p.shape[1] == 3
        return sphere(p)

    _, stats = extract_surface(counted, resolution=32, coarse=8, batch=1000, progress=seen.append, return_stats=True)
    assert max(calls) <= 1000 and sum(calls) == stats.evaluations
    assert seen[-1] == 1.0 and all(b >= a for a, b in itertools.pairwise(seen))


@pytest.mark.parametrize("kwargs", [
    {"resolution": 100, "coarse": 32}, {"resolution": 96, "coarse": 32}, {"resolution": 2048, "coarse": 32},
    {"resolution": 16, "coarse": 32}, {"resolution": 64, "coarse": 1}, {"resolution": 64.0, "coarse": 16},
    {"resolution": 64, "coarse": 16, "bound": 0.0}, {"resolution": 64, "coarse": 16, "batch": 0},
    {"resolution": 64, "coarse": 16, "safety": 0.5},
])
def test_bad_arguments_rejected(kwargs: dict) -> None:
    with pytest.raises(InvalidInputError):
        extract_surface(sphere, **kwargs)


def test_bad_resolution_message_says_what_works() -> None:
    with pytest.raises(InvalidInputError, match=r"coarse × 2\^k.*128"):
        extract_surface(sphere, resolution=100, coarse=32)


@pytest.mark.parametrize("field", [lambda p: sphere(p) + 5.0, lambda p: sphere(p) - 5.0])
def test_empty_field_rejected(field: SDF) -> None:
    with pytest.raises(EmptySurfaceError):
        extract_surface(field, resolution=32, coarse=16)
    assert issubclass(EmptySurfaceError, Seed3DError)


def test_bad_sdf_outputs_rejected() -> None:
    with pytest.raises(InvalidInputError, match="non-finite"):
        extract_surface(lambda p: np.full(len(p), np.nan), resolution=32, coarse=16)
    with pytest.raises(InvalidInputError, match="one distance per point"):
        extract_surface(lambda p: np.zeros((len(p), 2)), resolution=32, coarse=16)


def test_max_active_cells_enforced() -> None:
    with pytest.raises(InvalidInputError, match="max_active_cells"):
        extract_surface(sphere, resolution=128, coarse=16, max_active_cells=500)
