"""Household categories move as the real objects do (the shared checks in test_synth_categories run on them too)."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.physics.functional import check_asset
from seed3d.synth import CATEGORIES, generate
from seed3d.synth.household import CATEGORIES as HOUSEHOLD
from seed3d.synth.kinematics import interference, posed_meshes


def _joint(asset: Asset, child: str):  # type: ignore[no-untyped-def]
    return next(j for j in asset.joints if j.child == child)


def _centre(asset: Asset, part: str, values: dict[str, float] | None = None) -> np.ndarray:
    mesh = posed_meshes(asset, values or {})[part]
    return mesh.bounds.mean(axis=0)


def test_household_categories_are_registered_after_the_base_ones() -> None:
    names = [c.name for c in HOUSEHOLD]
    assert names and all(n in CATEGORIES for n in names)
    order = list(CATEGORIES)
    assert order.index(names[0]) >= 27


@pytest.mark.parametrize("category", [c.name for c in HOUSEHOLD])
def test_functional_checks_pass(category: str) -> None:
    report = check_asset(generate(category, 3))
    assert report.passed, [(r.name, r.message) for r in report.results if r.status == "fail"]


def test_toilet_lid_lifts_up_and_back_and_the_seat_carries_it() -> None:
    a = generate("toilet", 0)
    lid, seat = _joint(a, "lid"), _joint(a, "seat")
    assert lid.parent == "seat" and lid.type == seat.type == "revolute"
    rest = _centre(a, "lid")
    up = _centre(a, "lid", {lid.name: np.pi / 2})
    assert up[2] > rest[2] + 0.15 and up[0] < rest[0] - 0.15  # up and towards the cistern at the back
    carried = _centre(a, "lid", {seat.name: np.pi / 2})
    assert carried[2] > rest[2] + 0.15
    # fully open, the raised stack (or the lid alone) leans back past upright without touching the cistern
    assert seat.upper > np.pi / 2 and lid.upper > np.pi / 2
    for j in (seat, lid):
        assert not interference(a, j.name, j.upper)


def test_globe_spins_about_its_tilted_axis() -> None:
    a = generate("globe", 1)
    j = _joint(a, "globe")
    assert j.type == "continuous"
    assert np.degrees(np.arccos(j.axis @ [0, 0, 1])) == pytest.approx(23.4, abs=0.1)
    # a quarter turn moves the ball's vertices but keeps them on the same sphere about the joint origin
    rest = a.part("globe").mesh.vertices
    turned = posed_meshes(a, {j.name: np.pi / 2})["globe"].vertices
    assert not np.allclose(rest, turned, atol=1e-3)
    along = (rest - j.origin) @ j.axis
    assert np.allclose(along, (turned - j.origin) @ j.axis, atol=1e-9)  # points turn about the axis
    assert np.allclose(np.linalg.norm(rest - j.origin, axis=1), np.linalg.norm(turned - j.origin, axis=1))


def test_toaster_lever_slides_the_length_of_its_groove() -> None:
    a = generate("toaster", 2)
    j = _joint(a, "lever")
    assert j.type == "prismatic" and np.allclose(j.axis, [0, 0, 1])
    top = _centre(a, "lever", {j.name: j.upper})
    rest = _centre(a, "lever")  # down, on its lower stop (where gravity keeps it)
    assert top[2] - rest[2] == pytest.approx(j.upper) and j.upper > 0.05
    assert not interference(a, j.name, j.upper) and not interference(a, j.name, 0.0)
    assert {"dial", "cancel_button"} <= {p.name for p in a.parts}


def test_bucket_bail_swings_over_the_rim_to_either_side() -> None:
    a = generate("bucket", 0)
    j = _joint(a, "handle")
    assert j.lower < -1.3 and j.upper > 1.3 and np.allclose(np.abs(j.axis), [0, 1, 0])
    rest = posed_meshes(a, {})["handle"].bounds
    for v in (j.lower, j.upper):
        down = posed_meshes(a, {j.name: v})["handle"].bounds
        assert down[1][2] < rest[1][2] - 0.1  # lies down beside the rim


def test_kettle_lid_opens_at_the_back_and_clock_hands_share_one_arbor() -> None:
    k = generate("kettle", 1)
    lid = _joint(k, "lid")
    opened = _centre(k, "lid", {lid.name: lid.upper})
    assert opened[2] > _centre(k, "lid")[2] + 0.04 and lid.origin[0] < 0  # hinged at the back (handle side)
    c = generate("clock", 0)
    hands = [j for j in c.joints if j.child.endswith("_hand")]
    assert len(hands) == 3 and all(j.type == "continuous" for j in hands)
    assert all(np.allclose(j.axis, hands[0].axis) and np.allclose(j.origin[1:], hands[0].origin[1:]) for j in hands)


def test_safe_door_opens_outward_and_fan_head_oscillates() -> None:
    s = generate("safe", 0)
    door = _joint(s, "door")
    assert door.upper > np.radians(95)
    opened = posed_meshes(s, {door.name: np.pi / 2})["door"].bounds
    assert opened[1][0] > s.part("door").mesh.bounds[1][0] + 0.2
    f = generate("fan", 0)
    head = _joint(f, "head")
    assert head.type == "revolute" and np.allclose(head.axis, [0, 0, 1]) and head.lower < 0 < head.upper
    assert _joint(f, "blades").type == "continuous" and _joint(f, "blades").parent == "head"
