"""The articulation stage emits only joints that pass the functional checks and names what it did not find."""

from __future__ import annotations

import dataclasses
import json

from seed3d.articulation import VLMReasoner, articulate
from seed3d.asset import Asset
from seed3d.physics.functional import check_asset
from tests.articulation._helpers import FAST, small_cabinet


def _with_meta(asset: Asset, **metadata: object) -> Asset:
    asset.metadata = dict(metadata)
    return asset


def test_working_joints_are_kept_and_pass_the_checks() -> None:
    out = articulate(_with_meta(small_cabinet(), category="cabinet"), config=FAST)
    door = out.joint_to("door")
    assert door is not None and door.type == "revolute"
    assert "fused" not in out.metadata["articulation"] and "missing" not in out.metadata["articulation"]
    assert check_asset(out).passed


def test_a_door_that_cannot_open_far_enough_is_fused_into_its_parent() -> None:
    out = articulate(small_cabinet(wall=True), config=FAST)  # a wall in its swing stops it under 60°
    door = out.joint_to("door")
    assert door is not None and door.type == "fixed" and door.name == "door_mount"
    row = out.metadata["articulation"]["parts"]["door"]
    assert row["functional_failed"] == ["travel"] and row["fused_from"] == "revolute"
    assert "fails the functional checks (travel): fused into body" in row["note"]
    assert out.metadata["articulation"]["fused"] == ["door (travel)"]
    unchecked = articulate(small_cabinet(wall=True), config=dataclasses.replace(FAST, functional=False))
    assert unchecked.joint_to("door").type == "revolute"


def test_a_kind_the_category_does_not_have_is_fused() -> None:
    out = articulate(_with_meta(small_cabinet(), category="mug"), config=FAST)  # a mug has no door
    assert out.joint_to("door").type == "fixed"
    assert out.metadata["articulation"]["parts"]["door"]["functional_failed"] == ["kinds"]


def test_expected_moving_parts_not_found_are_named_not_invented() -> None:
    shut = json.dumps({"door": {"type": "fixed", "reason": "glued"}})
    asset = _with_meta(small_cabinet(), category="cabinet", attributes={"parts": {"door": 2}})
    out = articulate(asset, reasoner=VLMReasoner(shut), config=FAST)
    assert not any(j.movable for j in out.joints)
    missing = ["a cabinet has a door, found none", "asked for two doors, found none"]
    assert out.metadata["articulation"]["missing"] == missing
    assert out.metadata["notes"] == [f"articulation: {m}" for m in missing]


def test_asked_for_more_than_were_found() -> None:
    asset = _with_meta(small_cabinet(), category="cabinet", attributes={"parts": {"door": 2}})
    out = articulate(asset, config=FAST)
    assert out.joint_to("door").type == "revolute"
    assert out.metadata["articulation"]["missing"] == ["asked for two doors, found one door"]
