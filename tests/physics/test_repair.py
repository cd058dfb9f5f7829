"""A part that drifts at rest is repaired before the asset is given up: its joints get the friction that holds it,
the asset is validated again and the report says what changed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from seed3d import synth
from seed3d.physics import PhysicsConfig
from seed3d.physics.collision import CollisionConfig
from seed3d.physics.repair import drifts, hold_joints
from seed3d.pipeline import finish_asset
from seed3d.synth.materials import physical_material

FAST = PhysicsConfig(collision=CollisionConfig(use_coacd=False, cache=False))


def _heavy_chair():  # type: ignore[no-untyped-def]
    """An office chair whose seat and back are solid wood and whose base and arms are solid steel: its seat turns at
    rest in PyBullet as built."""
    chair = synth.generate("chair", 0, {"kind": "office", "body_finish": "painted_wood:black", "wheels": 5})
    for part in chair.parts:
        if part.name in ("seat", "back"):
            part.physical = physical_material("wood")
        if part.name in ("base", "arm_left", "arm_right"):
            part.physical = physical_material("steel")
    return chair


def test_a_drifting_asset_is_repaired_and_passes(tmp_path: Path) -> None:
    summary = finish_asset(_heavy_chair(), tmp_path / "chair", formats=("urdf",), physics=FAST, preview=False)
    assert summary["valid"] is True, summary["failures"]
    notes = json.loads((tmp_path / "chair" / "report.json").read_text())["notes"]
    repaired = [n for n in notes if n.startswith("repaired (round 1) after")]
    assert repaired and "rest_pybullet" in repaired[0] and "now passes" in repaired[0]
    assert "seat_swivel: friction" in repaired[0]


def test_hold_joints_holds_each_joint_against_its_gravity_load() -> None:
    flap = synth.generate("microwave", 0)
    from seed3d.physics import prepare

    ready = prepare(flap, FAST)
    held, changed = hold_joints(ready, factor=3.0)
    assert changed and [j.name for j in held.joints] == [j.name for j in ready.joints]
    for before, after in zip(ready.joints, held.joints, strict=True):
        if not before.movable:
            assert after == before
            continue
        assert after.friction >= 3.0 * before.friction - 1e-12 and after.damping >= before.damping
        assert after.effort - after.friction >= before.effort - before.friction - 1e-9  # a drive still moves it
        if before.type == "revolute" and abs(float(np.asarray(before.axis)[2])) < 0.1:
            assert after.friction > 0.0
    assert drifts(["urdf.rest_pybullet"]) and drifts(["mjcf.rest_mujoco"]) and not drifts(["urdf.sweep"])
