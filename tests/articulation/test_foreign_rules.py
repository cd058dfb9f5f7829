"""Rules that objects from outside our engine need (issue 58 §5): a sash that cannot swing slides in its plane, a
part given part-way open gets its way back too, a lever's throw ends at its slot, a cross handle on a hub turns
without end, and a handle resting on an edge pivots about the barrel beside it."""

from __future__ import annotations

import math

import numpy as np

from seed3d.articulation import articulate
from seed3d.asset import Asset, Joint, Part
from seed3d.synth.primitives import box, cylinder, difference, rotation_about, union
from tests.articulation._helpers import FAST

Y = np.array([0.0, 1.0, 0.0])


def _joint(asset: Asset, child: str) -> Joint:
    return next(j for j in asset.joints if j.child == child)


def sliding_sash() -> Asset:
    """A window frame (its four bars as collision pieces) with a sash in the right half of its opening, 1 mm clear
    of the frame all round, and nothing in the left half: the sash cannot swing (its hinge side meets the frame)
    but slides left."""
    bars = [box([-0.03, -0.4, 0.0], [0.03, 0.4, 0.04]), box([-0.03, -0.4, 0.56], [0.03, 0.4, 0.6]),
            box([-0.03, -0.4, 0.04], [0.03, -0.36, 0.56]), box([-0.03, 0.36, 0.04], [0.03, 0.4, 0.56])]
    sash = box([0.006, 0.001, 0.041], [0.018, 0.359, 0.559])
    return Asset("window", [Part("body", union(*bars), label="body", collision=bars),
                            Part("door_0", sash, label="door", collision=[sash])], joints_known=False)


def open_laptop() -> Asset:
    """A base slab and a screen on a hinge barrel at its back edge, given opened 110° (not closed)."""
    base = box([-0.16, -0.11, 0.0], [0.16, 0.11, 0.016])
    z = 0.016 + 0.006 + 0.001
    barrel = cylinder(0.006, 0.2, 48, Y, (-0.16, -0.1, z))
    closed = union(barrel, box([-0.158, -0.11, z + 0.0005], [0.16, 0.11, z + 0.0075]))
    screen = closed.transformed(rotation_about(Y, -math.radians(110), (-0.16, 0.0, z)))
    return Asset("laptop", [Part("body", base, label="body"), Part("door_0", screen, label="door")],
                 joints_known=False)


def lever_in_a_slot() -> Asset:
    """A hollow housing (its walls as collision pieces) whose top has a slot along X; a stick on a pin (Y) stands
    upright in it and tilts both ways until it meets the slot's ends (about 50° each way)."""
    walls = [box([-0.06, -0.03, 0.0], [0.06, 0.03, 0.005]), box([-0.06, -0.03, 0.005], [-0.055, 0.03, 0.045]),
             box([0.055, -0.03, 0.005], [0.06, 0.03, 0.045]), box([-0.055, -0.03, 0.005], [0.055, -0.025, 0.045]),
             box([-0.055, 0.025, 0.005], [0.055, 0.03, 0.045]), box([-0.06, -0.03, 0.045], [-0.04, 0.03, 0.05]),
             box([0.04, -0.03, 0.045], [0.06, 0.03, 0.05]), box([-0.04, -0.03, 0.045], [0.04, -0.007, 0.05]),
             box([-0.04, 0.007, 0.045], [0.04, 0.03, 0.05])]
    z = 0.022
    pin = cylinder(0.004, 0.05, 32, Y, (0.0, -0.025, z))
    hub = difference(cylinder(0.009, 0.01, 32, Y, (0.0, -0.005, z)), cylinder(0.005, 0.02, 32, Y, (0.0, -0.01, z)))
    stick = box([-0.005, -0.004, z + 0.008], [0.005, 0.004, z + 0.17])
    return Asset("lever", [Part("body", union(*walls, pin), label="body", collision=[*walls, pin]),
                           Part("knob_0", union(hub, stick), label="knob")], joints_known=False)


def cross_tap() -> Asset:
    """A column with a cross handle on a short hub at its side (1 mm clear of it), labelled spout as the segmenter
    may: it meets the column end-on, turns about the hub (Y) and nothing stops it."""
    column = cylinder(0.016, 0.16, 48, (0, 0, 1), (0.0, 0.0, 0.0))
    hub = cylinder(0.011, 0.024, 48, Y, (0.0, -0.041, 0.08))
    bars = union(box([-0.004, -0.049, 0.045], [0.004, -0.041, 0.115]),
                 box([-0.035, -0.049, 0.076], [0.035, -0.041, 0.084]))
    return Asset("tap", [Part("body", column, label="body"), Part("spout_0", union(hub, bars), label="spout")],
                 joints_known=False)


def press() -> Asset:
    """A base with a post; a handle bar with a hinge barrel (Y) at its back, opened 25°, resting on the post top
    with its back edge only: it presses down onto the base about the barrel."""
    base = union(box([-0.11, -0.025, 0.0], [0.11, 0.025, 0.02]), box([-0.11, -0.025, 0.02], [-0.08, 0.025, 0.07]))
    pivot = (-0.095, 0.0, 0.082)
    closed = union(box([-0.109, -0.018, 0.075], [0.1, 0.018, 0.089]),
                   cylinder(0.008, 0.07, 48, Y, (-0.095, -0.035, 0.082)))
    handle = closed.transformed(rotation_about(Y, -math.radians(25), pivot))
    return Asset("press", [Part("body", base, label="body"), Part("lever_0", handle, label="lever")],
                 joints_known=False)


def test_a_door_that_cannot_swing_slides_in_its_plane() -> None:
    out = articulate(sliding_sash(), config=FAST)
    j = _joint(out, "door_0")
    assert j.type == "prismatic", out.metadata["articulation"]["parts"]["door_0"]
    assert float(j.axis @ Y) < -0.999  # to the empty half
    assert 0.3 < j.upper - j.lower < 0.37


def test_a_screen_given_open_gets_its_way_back_to_closed() -> None:
    out = articulate(open_laptop(), config=FAST)
    j = _joint(out, "door_0")
    assert j.type == "revolute" and abs(float(j.axis @ Y)) > 0.999
    assert j.lower < -math.radians(80)  # it closes about 100° (the barrel keeps it a little open)
    assert j.upper > 0.5


def test_a_lever_tilts_both_ways_to_its_slot_ends() -> None:
    out = articulate(lever_in_a_slot(), config=FAST)
    j = _joint(out, "knob_0")
    assert j.type == "revolute" and abs(float(j.axis @ Y)) > 0.999
    assert j.lower < -math.radians(35) and j.upper > math.radians(35)  # past the lever prior's 30°
    assert j.upper - j.lower < math.radians(130)


def test_a_cross_handle_on_a_hub_turns_without_end() -> None:
    out = articulate(cross_tap(), config=FAST)
    j = _joint(out, "spout_0")
    assert j.type == "continuous", out.metadata["articulation"]["parts"]["spout_0"]
    assert abs(float(j.axis @ Y)) > 0.999


def test_a_handle_resting_on_an_edge_pivots_about_its_barrel() -> None:
    out = articulate(press(), config=FAST)
    j = _joint(out, "lever_0")
    assert j.type == "revolute", out.metadata["articulation"]["parts"]["lever_0"]
    assert abs(float(j.axis @ Y)) > 0.999
    assert np.hypot(j.origin[0] + 0.095, j.origin[2] - 0.082) < 0.003
    assert j.upper - j.lower > math.radians(25)  # it presses down onto the base
