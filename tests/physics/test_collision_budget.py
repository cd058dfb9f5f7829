"""Per-part time budget of the convex decomposition (box fallback) and no flat hulls."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import trimesh

from seed3d.asset import Mesh
from seed3d.physics import collision
from seed3d.physics.collision import CollisionConfig, box_decomposition, cache_key, decompose, hull_problems, is_flat
from seed3d.physics.validate import ValidationConfig, _mesh_findings

# found, not imported: open3d cannot be imported after coacd in one process (later tests need it)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("coacd") is None, reason="CoACD is not installed")


def _ring() -> Mesh:
    """A thick ring (not convex): CoACD's work, which a tiny budget cuts short."""
    m = trimesh.creation.annulus(0.05, 0.1, 0.05, sections=64)
    return Mesh(np.asarray(m.vertices), np.asarray(m.faces))


def _validator_rejects(hull: Mesh) -> list[str]:
    """The validator's own findings for a collision hull."""
    return _mesh_findings(hull.vertices, hull.faces, ValidationConfig(), False, hull=True)[0]


def test_tiny_budget_falls_back_to_boxes_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CoACD stopped at the part's budget: a box decomposition stands in, with a warning, and is not cached."""
    monkeypatch.setattr(collision, "ISOLATE_COACD", True)  # the budget is enforced on the child process
    ring = _ring()
    cfg = CollisionConfig(time_budget=1e-3, cache_dir=str(tmp_path / "cache"))
    result = decompose(ring, cfg)
    assert result.method == "boxes"
    assert any("time budget" in w and "boxes" in w for w in result.warnings)
    assert result.transient and not (tmp_path / "cache" / f"{cache_key(ring, cfg)}.npz").exists()
    assert 2 <= len(result.hulls) <= cfg.max_hulls
    for h in result.hulls:
        assert not hull_problems(h, cfg.max_hull_vertices, cfg.max_hull_polygons)
        assert not _validator_rejects(h)
    # the boxes cover the ring and leave its hole open
    inside = np.zeros(1, bool)
    for h in result.hulls:
        inside |= trimesh.Trimesh(h.vertices, h.faces).contains([[0.0, 0.0, 0.0]])
    assert not inside.any()


def test_budget_is_not_part_of_the_cache_key() -> None:
    """A budget changes the output only when it stops CoACD, and such results are never cached."""
    ring = _ring()
    assert cache_key(ring, CollisionConfig(time_budget=1.0)) == cache_key(ring, CollisionConfig(time_budget=99.0))


def test_box_decomposition_respects_the_cap_and_covers_the_mesh() -> None:
    """Coarser grids until the boxes fit; every surface point lies in some box."""
    ring = _ring()
    for cap in (64, 4, 1):
        boxes = box_decomposition(ring.vertices, ring.faces, cap)
        assert 1 <= len(boxes) <= cap
        points = ring.sample_surface(500, seed=0)[0]
        covered = np.zeros(len(points), bool)
        for v, f in boxes:
            covered |= trimesh.Trimesh(v, f).contains(points) | (
                trimesh.proximity.signed_distance(trimesh.Trimesh(v, f), points) > -1e-9)
        assert covered.all()


def test_boxes_of_a_nearly_cubic_cabinet_stand_square_on_its_feet() -> None:
    """A carcass about as tall as it is wide with a handle on one side has tilted principal axes; its boxes are cut
    in its own axes, so none pokes below its feet or out of its box (75 mm did here; on a welded cabinet 35 mm did,
    and it stood tilted and its doors swung open)."""
    pieces = [trimesh.creation.box([0.41, 0.97, 0.8], trimesh.transformations.translation_matrix([0, 0, 0.48]))]
    for x in (-0.18, 0.18):
        for y in (-0.45, 0.45):
            pieces.append(trimesh.creation.box([0.04, 0.04, 0.08],
                                               trimesh.transformations.translation_matrix([x, y, 0.04])))
    pieces.append(trimesh.creation.box([0.03, 0.02, 0.2],  # a handle high on one side tilts the principal axes
                                       trimesh.transformations.translation_matrix([0.22, 0.4, 0.68])))
    cab = trimesh.util.concatenate(pieces)
    lo, hi = cab.bounds
    boxes = box_decomposition(cab.vertices, cab.faces, 64)
    corners = np.concatenate([v for v, _ in boxes])
    assert (corners.min(axis=0) >= lo - 1e-3).all() and (corners.max(axis=0) <= hi + 1e-3).all()
    feet = [v for v, _ in boxes if v[:, 2].min() < lo[2] + 0.01]
    assert feet and all(abs(v[:, 2].min() - lo[2]) < 1e-3 for v in feet)


@pytest.mark.parametrize("thickness", [1e-6, 2e-7])
def test_thin_plate_part_gets_no_flat_hull(tmp_path: Path, thickness: float) -> None:
    """A plate thinner than the validator accepts as a hull gets a thickened box, not its own flat hull."""
    plate = trimesh.creation.box([0.1, 0.08, thickness])
    result = decompose(Mesh(np.asarray(plate.vertices), np.asarray(plate.faces)),
                       CollisionConfig(cache_dir=str(tmp_path / "cache")))
    assert result.hulls
    for h in result.hulls:
        assert not is_flat(h.vertices)
        assert not _validator_rejects(h)


def test_thin_bent_sheet_gets_no_flat_hull(tmp_path: Path) -> None:
    """A thin L-shaped sheet (two plates, not convex): no hull the validator would call flat."""
    a = trimesh.creation.box([0.1, 0.08, 1e-6])
    b = trimesh.creation.box([1e-6, 0.08, 0.1])
    b.apply_translation([0.05, 0.0, 0.05])
    sheet = trimesh.util.concatenate([a, b])
    for use_coacd in (False, True):
        cfg = CollisionConfig(use_coacd=use_coacd, time_budget=5.0, cache_dir=str(tmp_path / "cache"))
        result = decompose(Mesh(np.asarray(sheet.vertices), np.asarray(sheet.faces)), cfg)
        assert result.hulls
        for h in result.hulls:
            assert not _validator_rejects(h)


def test_hull_of_sliver_points_is_none() -> None:
    """Points within a micrometre of a plane make no hull, though qhull closes one around them."""
    rng = np.random.default_rng(0)
    points = np.concatenate([rng.random((50, 2)) * 0.1, rng.random((50, 1)) * 1e-7], axis=1)
    assert collision.geo.convex_hull(points) is not None
    assert collision._hull(points, 60, 64) is None
    assert is_flat(points)


def test_asset_budget_caps_every_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once an asset's collision budget is spent the parts left get only the minimum share, and say so."""
    import seed3d.physics as physics
    from seed3d.asset import Asset, Part

    monkeypatch.setattr(collision, "ISOLATE_COACD", True)
    monkeypatch.setattr(physics, "MIN_PART_BUDGET", 1e-3)
    ring = _ring()
    asset = Asset("rings", [Part("body", ring), Part("ring_0", Mesh(ring.vertices + [0.0, 0.0, 0.06], ring.faces))],
                  joints_known=False)
    cfg = physics.PhysicsConfig(collision=CollisionConfig(cache_dir=str(tmp_path / "cache")), collision_budget=1e-3)
    out = physics.prepare(asset, cfg)
    assert out.metadata["physics"]["methods"] == {"body": "boxes", "ring_0": "boxes"}
    assert sum("time budget" in w for w in out.metadata["physics"]["warnings"]) == 2


def test_parts_side_by_side_match_one_after_another(tmp_path: Path) -> None:
    """Decomposing parts two at a time gives each part the hulls it gets alone, with progress that only rises."""
    import seed3d.physics as physics
    from seed3d.asset import Asset, Part

    ring = _ring()
    shifted = [Mesh(ring.vertices * (1.0 + 0.1 * i) + [0.0, 0.0, 0.3 * i], ring.faces) for i in range(3)]
    asset = Asset("rings", [Part(f"ring_{i}", m) for i, m in enumerate(shifted)], joints_known=False)
    outs, seen = [], []
    for workers in (1, 2):
        cfg = physics.PhysicsConfig(collision=CollisionConfig(cache=False), collision_budget=0.0, workers=workers)
        fractions: list[float] = []
        outs.append(physics.prepare(asset, cfg, progress=lambda f, m, out=fractions: out.append(f)))
        seen.append(fractions)
    one, two = outs
    assert one.metadata["physics"]["methods"] == two.metadata["physics"]["methods"] == dict.fromkeys(
        ["ring_0", "ring_1", "ring_2"], "coacd")
    for a, b in zip(one.parts, two.parts, strict=True):
        assert len(a.collision) == len(b.collision) >= 2
        for ha, hb in zip(a.collision, b.collision, strict=True):
            np.testing.assert_array_equal(ha.vertices, hb.vertices)
    for fractions in seen:
        assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_workers_must_not_be_negative() -> None:
    import seed3d.physics as physics
    from seed3d.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="workers"):
        physics.PhysicsConfig(workers=-1)
    assert physics.PhysicsConfig(workers=3).resolved_workers() == 3
    assert 1 <= physics.PhysicsConfig().resolved_workers() <= physics.MAX_WORKERS
