"""A part that drifts at rest is repaired before the asset is given up: its joints get the friction that holds it,
the asset is validated again and the report says what changed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from seed3d import synth
from seed3d.asset import Asset
from seed3d.physics import PhysicsConfig
from seed3d.physics.collision import CollisionConfig
from seed3d.physics.repair import drifts, hold_joints
from seed3d.pipeline import finish_asset

FAST = PhysicsConfig(collision=CollisionConfig(use_coacd=False, cache=False))


def _loose_clock() -> Asset:
    """A wall clock whose minute hand lost its friction: the hand, heavier on its long side, swings at rest."""
    clock = synth.generate("clock", 0)
    clock.joints = [dataclasses.replace(j, friction=0.0, damping=0.0) if j.name == "minute_hand_spin" else j
                    for j in clock.joints]
    return clock


def test_a_drifting_asset_is_repaired_and_passes(tmp_path: Path) -> None:
    summary = finish_asset(_loose_clock(), tmp_path / "clock", formats=("urdf",), physics=FAST, preview=False)
    assert summary["valid"] is True, summary["failures"]
    notes = json.loads((tmp_path / "clock" / "report.json").read_text())["notes"]
    repaired = [n for n in notes if n.startswith("repaired (round 1) after")]
    assert repaired and "rest_pybullet" in repaired[0] and "now passes" in repaired[0]
    assert "minute_hand_spin: friction 0 ->" in repaired[0]


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
