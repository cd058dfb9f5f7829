"""prepare(): every part gets valid hulls and inertials; copies, force, progress, warnings, round trip."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import seed3d.physics as physics
from seed3d.asset import Asset, Inertial, Mesh, Part, PhysicalMaterial
from seed3d.physics import CollisionConfig, PhysicsConfig, hull_problems, inertia_problems, prepare
from seed3d.physics import _geometry as geo
from seed3d.synth.primitives import box, demo_cabinet

# found, not imported: open3d cannot be imported after coacd in one process (later tests need it)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("coacd") is None, reason="CoACD is not installed")


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> PhysicsConfig:
    """One cache for the module, so the cabinet is decomposed once."""
    return PhysicsConfig(CollisionConfig(cache_dir=str(tmp_path_factory.mktemp("collision_cache"))))


@pytest.fixture(scope="module")
def prepared(config: PhysicsConfig) -> Asset:
    return prepare(demo_cabinet(), config)


def test_demo_cabinet_gets_hulls_and_valid_inertials(prepared: Asset) -> None:
    original = demo_cabinet()
    assert [p.name for p in prepared.parts] == [p.name for p in original.parts]
    meta = prepared.metadata["physics"]
    for part in prepared.parts:
        assert part.collision, part.name
        assert len(part.collision) <= 64
        for hull in part.collision:
            assert hull_problems(hull, 60, 64) == [], part.name
        inertial = part.inertial
        assert inertial is not None and inertial.source == "mesh"
        assert inertia_problems(inertial.mass, inertial.com, inertial.inertia) == []
        v, f = geo.weld(part.mesh.vertices, part.mesh.faces)
        f, _ = geo.orient_outward(v, f)
        assert inertial.mass == pytest.approx(part.physical.density * geo.signed_volume(v, f))
        lo, hi = part.mesh.bounds
        assert np.all(inertial.com > lo) and np.all(inertial.com < hi)
        assert meta["hulls"][part.name] == len(part.collision)
    assert meta["methods"]["body"] == "coacd" and meta["methods"]["drawer"] == "coacd"
    assert meta["methods"]["door"] == "convex" and meta["methods"]["drawer_knob"] == "convex"
    assert meta["hulls"]["body"] > 1 and meta["hulls"]["door"] == 1
    assert meta["warnings"] == []
    # Steel handle 0.025 × 0.02 × 0.12 m.
    assert prepared.part("door_handle").inertial.mass == pytest.approx(7850 * 0.025 * 0.02 * 0.12)  # type: ignore[union-attr]
    json.dumps(prepared.metadata, allow_nan=False)


def test_prepare_returns_a_copy(config: PhysicsConfig) -> None:
    asset = demo_cabinet()
    out = prepare(asset, config)
    assert out is not asset
    assert all(not p.collision and p.inertial is None for p in asset.parts)
    assert "physics" not in asset.metadata


def test_body_hulls_leave_the_drawer_slot_free(prepared: Asset) -> None:
    """The body's hulls must not reach into the drawer (3 mm clearance) or the door."""
    body = prepared.part("body")
    for other in ("drawer", "door"):
        pts = prepared.part(other).mesh.vertices
        for hull in body.collision:
            p = hull.vertices[hull.faces]
            n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
            n /= np.linalg.norm(n, axis=1, keepdims=True)
            depth = -(pts @ n.T - np.einsum("ij,ij->i", n, p[:, 0])).max(axis=1)
            assert depth.max() < 1e-3, other


def test_existing_data_is_kept_unless_forced(prepared: Asset, config: PhysicsConfig,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = physics.decompose
    monkeypatch.setattr(physics, "decompose", lambda mesh, cfg: (calls.append(1), real(mesh, cfg))[1])
    again = prepare(prepared, config)
    assert calls == []
    for a, b in zip(prepared.parts, again.parts, strict=True):
        assert a.inertial == b.inertial and len(a.collision) == len(b.collision)
    assert again.metadata["physics"]["methods"] == prepared.metadata["physics"]["methods"]
    forced = prepare(prepared, config, force=True)
    assert len(calls) == len(prepared.parts)
    assert forced.part("body").inertial == prepared.part("body").inertial


def test_only_missing_pieces_are_filled(prepared: Asset, config: PhysicsConfig,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    asset = prepared.copy()
    asset.part("door").collision = []
    given = Inertial(2.0, [0, 0, 0], np.eye(3) * 0.01, source="given")
    asset.part("drawer").inertial = given
    asset.part("body").inertial = None
    calls: list[int] = []
    real = physics.decompose
    monkeypatch.setattr(physics, "decompose", lambda mesh, cfg: (calls.append(1), real(mesh, cfg))[1])
    out = prepare(asset, config)
    assert len(calls) == 1
    assert len(out.part("door").collision) == 1
    assert out.part("drawer").inertial == given
    assert out.part("body").inertial == prepared.part("body").inertial


def test_progress_is_reported(config: PhysicsConfig) -> None:
    events: list[tuple[float, str]] = []
    prepare(demo_cabinet(), config, progress=lambda f, m: events.append((f, m)))
    fractions = [f for f, _ in events]
    assert fractions == sorted(fractions)
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert any("body" in m for _, m in events) and any("drawer_knob" in m for _, m in events)


def _open_box_asset() -> Asset:
    closed = box([0, 0, 0], [0.2, 0.2, 0.2])
    open_box = Mesh(closed.vertices, closed.faces[2:])
    parts = [Part("crate", open_box, "body", physical=PhysicalMaterial("wood", 700.0))]
    return Asset("open_crate", parts)


def test_open_mesh_gets_hull_inertial_and_warnings(config: PhysicsConfig) -> None:
    out = prepare(_open_box_asset(), PhysicsConfig(CollisionConfig(cache_dir=config.collision.cache_dir,
                                                                   use_coacd=False)))
    part = out.part("crate")
    assert part.inertial is not None and part.inertial.source == "hull"
    assert part.inertial.mass == pytest.approx(700.0 * 0.2 ** 3)
    warnings = out.metadata["physics"]["warnings"]
    assert any(w.startswith("part 'crate' inertial: ") and "watertight" in w for w in warnings)
    assert any(w.startswith("part 'crate' collision: ") for w in warnings)
    assert out.metadata["physics"]["methods"]["crate"] == "hull"
    # Warnings about what is not recomputed survive a second prepare; nothing is duplicated.
    again = prepare(out, config)
    assert again.metadata["physics"]["warnings"] == warnings


def test_bad_given_inertial_is_reported(prepared: Asset, config: PhysicsConfig) -> None:
    asset = prepared.copy()
    asset.part("door").inertial = Inertial(1.0, [0, 0, 0], np.diag([1.0, 1.0, 5.0]), source="given")
    out = prepare(asset, config)
    assert any(w.startswith("part 'door' inertial: ") and "triangle" in w
               for w in out.metadata["physics"]["warnings"])


def test_prepared_asset_round_trips(prepared: Asset, tmp_path: Path) -> None:
    loaded = Asset.load(prepared.save(tmp_path / "cabinet"))
    for a, b in zip(prepared.parts, loaded.parts, strict=True):
        assert a.inertial == b.inertial
        assert len(a.collision) == len(b.collision)
        assert all(x == y for x, y in zip(a.collision, b.collision, strict=True))
    assert loaded.metadata["physics"] == prepared.metadata["physics"]
