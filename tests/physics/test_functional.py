"""Functional checks: synthetic assets pass them all; each check fails a broken asset made from one."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from seed3d import synth
from seed3d.asset import Asset, Inertial, Joint, Part
from seed3d.export import export_asset
from seed3d.physics import PhysicsConfig, prepare
from seed3d.physics.collision import CollisionConfig
from seed3d.physics.functional import (
    CATEGORY_KINDS,
    KIND_RULES,
    FunctionalReport,
    asked_for,
    category_of,
    check_asset,
    check_joints,
    joint_kind,
)
from seed3d.physics.validate import ValidationReport, validate_path
from seed3d.synth.dataset import SPLIT_SEEDS
from seed3d.synth.primitives import box

CATEGORIES = synth.list_categories()
#: Single convex hulls for parts without given collision pieces (no CoACD): keeps the folder test fast.
FAST = PhysicsConfig(collision=CollisionConfig(use_coacd=False, cache=False))


def split_asset(category: str) -> Asset:
    """The first sample of ``category`` in the synthetic test split."""
    return synth.generate(category, SPLIT_SEEDS["test"] + CATEGORIES.index(category))


def status(report: FunctionalReport, check: str) -> str:
    return next(r.status for r in report.results if r.name == f"functional.{check}")


def message(report: FunctionalReport, check: str) -> str:
    return next(r.message for r in report.results if r.name == f"functional.{check}")


def joint(asset: Asset, name: str) -> Joint:
    return next(j for j in asset.joints if j.name == name)


@pytest.mark.parametrize("category", ["cabinet", "dresser", "microwave", "washing_machine", "box", "trash_can",
                                      "jar", "mug", "chair", "lamp", "laptop", "faucet", "door", "suitcase"])
def test_synthetic_assets_pass_every_check(category: str) -> None:
    report = check_asset(split_asset(category))
    assert report.passed and report.category == category and report.category_source == "metadata.category"
    assert {r.status for r in report.results} <= {"pass", "skip"}, [(r.name, r.message) for r in report.results]
    assert not report.missing
    assert all(not row["failed"] for row in report.joints.values())


def test_a_drawer_that_cannot_open_fails_travel() -> None:
    asset = split_asset("dresser")
    joint(asset, "drawer_0_slide").upper = 0.0015  # 1.5 mm of a drawer hundreds of mm deep
    report = check_asset(asset)
    assert status(report, "travel") == "fail"
    assert "drawer_0_slide (drawer) moves 1.5 mm, needs" in message(report, "travel")
    row = report.joints["drawer_0_slide"]
    assert row["failed"] == ["travel"] and row["travel_needed"] == pytest.approx(0.4 * row["extent_along_axis"])
    assert [name for name, r in report.joints.items() if r["failed"]] == ["drawer_0_slide"]


def test_a_drawer_sliding_into_the_back_fails_free_space() -> None:
    asset = split_asset("dresser")
    j = joint(asset, "drawer_0_slide")
    j.axis = -j.axis  # slides into the carcass's back instead of out of its front
    report = check_asset(asset)
    assert status(report, "free_space") == "fail" and status(report, "travel") == "pass"
    assert "drawer_0_slide (drawer)" in message(report, "free_space") and "'body'" in message(report, "free_space")
    assert report.joints["drawer_0_slide"]["swept_overlap_share"] > 0.02


def test_a_door_opening_into_the_body_fails_free_space() -> None:
    asset = split_asset("microwave")
    j = joint(asset, "door_0_hinge")
    j.axis = -j.axis
    report = check_asset(asset)
    assert status(report, "free_space") == "fail" and report.joints["door_0_hinge"]["failed"] == ["free_space"]


def test_a_hinge_across_the_door_fails_axis() -> None:
    asset = split_asset("cabinet")
    j = joint(asset, "door_0_hinge")
    extents = np.ptp(asset.part(j.child).mesh.vertices, axis=0)
    j.axis = np.eye(3)[int(np.argmin(extents))]  # along the door's thickness: it would turn in its own plane
    report = check_asset(asset)
    assert status(report, "axis") == "fail"
    assert "the hinge runs across 'door_0', along its" in message(report, "axis")
    assert report.joints["door_0_hinge"]["failed"] == ["axis"]


def test_a_hinge_through_the_middle_of_the_door_fails_axis() -> None:
    asset = split_asset("cabinet")
    j = joint(asset, "door_0_hinge")
    lo, hi = asset.part(j.child).mesh.bounds
    j.origin = (lo + hi) / 2
    report = check_asset(asset)
    assert status(report, "axis") == "fail" and "from 'door_0''s nearest edge (50%" in message(report, "axis")


def test_a_tilted_axis_fails_axis() -> None:
    asset = split_asset("refrigerator")
    j = joint(asset, "door_0_hinge")
    tilt = math.radians(25)
    j.axis = np.array([math.sin(tilt), 0.0, math.copysign(math.cos(tilt), j.axis[2])])
    report = check_asset(asset)
    assert status(report, "axis") == "fail" and "25° from every edge and face normal" in message(report, "axis")
    assert report.joints["door_0_hinge"]["axis_off_deg"] == pytest.approx(25.0, abs=0.01)


def test_a_drawer_sliding_upward_fails_axis() -> None:
    asset = split_asset("dresser")
    joint(asset, "drawer_1_slide").axis = np.array([0.0, 0.0, 1.0])
    report = check_asset(asset)
    assert status(report, "axis") == "fail" and "slides 90° off level" in message(report, "axis")


def test_a_wheel_turning_about_its_diameter_fails_axis() -> None:
    asset = split_asset("suitcase")
    j = next(j for j in asset.joints if asset.part(j.child).label == "wheel")
    j.axis = np.array([1.0, 0.0, 0.0])  # its axle is along y
    report = check_asset(asset)
    assert status(report, "axis") == "fail" and f"{j.name} (wheel): turns about an axis" in message(report, "axis")


def test_a_one_gram_door_fails_share() -> None:
    asset = split_asset("microwave")
    for name in asset.subtree("door_0"):  # the door with its glass and handle: 1 g in all
        part = asset.part(name)
        part.inertial = Inertial(0.001 / 3, part.mesh.vertices.mean(axis=0), np.eye(3) * 1e-9)
    report = check_asset(asset)
    assert status(report, "share") == "fail"
    assert "door_0_hinge (door) moves 1 g" in message(report, "share")
    assert report.joints["door_0_hinge"]["mass_share"] < KIND_RULES["door"].min_share


def test_a_button_that_barely_moves_fails_travel() -> None:
    asset = split_asset("microwave")
    joint(asset, "button_0_press").upper = 0.0005
    report = check_asset(asset)
    assert status(report, "travel") == "fail" and "button_0_press (button) moves 0.5 mm, needs 2.0 mm" in message(
        report, "travel")


def test_continuous_joints_pass_travel() -> None:
    report = check_asset(split_asset("jar"))
    assert report.joints["lid_spin"]["travel"] == "full turn" and status(report, "travel") == "pass"


def _with_drawer(asset: Asset) -> Asset:
    """``asset`` with a drawer under its root, sliding out of its front."""
    lo, hi = asset.bounds()
    drawer = box([hi[0], lo[1], lo[2]], [hi[0] + 0.04, hi[1], lo[2] + 0.01])
    root = asset.root
    parts = [*asset.parts, Part("drawer", drawer, "drawer")]
    joints = [*asset.joints, Joint("drawer_slide", "prismatic", root, "drawer", origin=drawer.bounds.mean(axis=0),
                                   axis=[1, 0, 0], upper=0.03)]
    return Asset(asset.name, parts, joints, asset.metadata)


def test_a_mug_with_a_drawer_fails_kinds() -> None:
    report = check_asset(_with_drawer(split_asset("mug")))
    assert status(report, "kinds") == "fail" and "a mug has no drawer (drawer_slide)" in message(report, "kinds")
    assert report.joints["drawer_slide"]["failed"] == ["kinds"]
    assert {r.name for r in report.results if r.status == "fail"} == {"functional.kinds"}


def test_a_microwave_without_its_door_names_what_is_missing() -> None:
    asset = split_asset("microwave")
    j = joint(asset, "door_0_hinge")
    j.type = "fixed"
    report = check_asset(asset)
    assert status(report, "kinds") == "fail"
    assert report.missing == ["a microwave has a door, found none", "asked for one door, found none"]


def test_kinds_need_a_category() -> None:
    asset = split_asset("cabinet")
    asset.metadata = {}
    report = check_asset(asset)
    assert status(report, "kinds") == "skip" and report.category is None and report.passed


def test_category_sources_and_asked_for() -> None:
    assert category_of({"category": "mug"}) == ("mug", "metadata.category")
    assert category_of({"program": {"category": "oven"}}) == ("oven", "metadata.program.category")
    assert category_of({"attributes": {"category": "box"}}) == ("box", "metadata.attributes.category")
    assert category_of({"prompt": "a cat"}) == (None, "")
    assert asked_for({"attributes": {"parts": {"door": 2, "handle": 2, "drawer": 0}}}) == {"door": 2}


def test_kind_table_covers_every_synth_category_and_kind() -> None:
    assert set(CATEGORY_KINDS) == set(CATEGORIES)
    kinds = {k for t in CATEGORY_KINDS.values() for k in t.allowed}
    assert kinds <= set(KIND_RULES)
    assert joint_kind("prismatic", "drawer") == "drawer" and joint_kind("revolute", "door") == "door"
    assert joint_kind("continuous", "knob") == "dial" and joint_kind("revolute", "other") == "hinge"
    assert CATEGORY_KINDS["mug"].allowed == frozenset() and ("door",) in CATEGORY_KINDS["microwave"].expected


def test_files_without_asset_json_get_the_lower_bar() -> None:
    report = check_joints([("slide", "prismatic", "top_drawer", 0.0, 0.0015),
                           ("elbow", "revolute", "link_2", -2.0, 2.0), ("spin", "continuous", "wheel_l", None, None)],
                          masses={"base": 10.0, "top_drawer": 1.0, "link_2": 2.0, "wheel_l": 0.5},
                          subtrees={"top_drawer": ["top_drawer"], "link_2": ["link_2"], "wheel_l": ["wheel_l"]})
    assert status(report, "travel") == "fail" and "slide (drawer) moves 1.5 mm, needs 20.0 mm" in message(
        report, "travel")
    assert report.joints["elbow"]["kind"] == "hinge" and not report.joints["elbow"]["failed"]
    assert status(report, "share") == "pass"
    assert {status(report, c) for c in ("axis", "free_space", "kinds")} == {"skip"}


def test_validate_reports_the_functional_section(tmp_path: Path) -> None:
    asset = prepare(_with_drawer(split_asset("mug")), FAST)
    asset.save(tmp_path / "mug")
    export_asset(asset, tmp_path / "mug", formats=("urdf",))
    report = validate_path(tmp_path / "mug")
    assert report.sound and not report.functional_passed and not report.passed and report.exit_code == 1
    first = report.summary().splitlines()[0]
    assert first.startswith("FAILED") and "physically sound: yes" in first and "functional: NO" in first
    assert any(line.lstrip().startswith("FAIL  functional.kinds") for line in report.summary().splitlines())
    doc = json.loads(report.to_json())
    assert doc["sound"] is True and doc["functional"]["passed"] is False
    assert doc["functional"]["category"] == "mug"
    assert {c["name"] for c in doc["functional"]["checks"]} == {
        "functional.travel", "functional.axis", "functional.share", "functional.free_space", "functional.kinds"}
    again = ValidationReport.from_dict(doc)
    assert again.to_dict() == doc and again.functional_passed is False
    assert report.check("functional.kinds").status == "fail"
