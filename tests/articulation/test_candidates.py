"""Geometric operators: contacts, symmetry axes, cylindrical contacts, candidate axes, grouping, inserted length."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.articulation import Analysis
from seed3d.articulation._geometry import axis_angle, line_distance
from seed3d.articulation.candidates import CLEARANCE, FLUSH
from seed3d.articulation.infer import build_tree, choose_root, rigid_groups
from seed3d.articulation.limits import inserted_length, supported_range
from seed3d.asset import Asset, Joint, Part
from seed3d.synth.primitives import box, cylinder, difference, lathe
from tests.articulation._helpers import DOOR, small_cabinet, spinner


def test_contact_classes_and_normals() -> None:
    an = Analysis(small_cabinet())
    door = an.contact("door", "body")
    assert door is not None and door.kind == CLEARANCE
    assert door.distance == pytest.approx(0.003, abs=2e-4)
    assert np.allclose(door.normal, [1, 0, 0], atol=1e-3)  # from the body towards the door
    assert door.area == pytest.approx(0.49 * 0.5, rel=0.1)  # the door's back face
    handle = an.contact("door_handle", "door")
    assert handle is not None and handle.kind == FLUSH
    assert an.contact("door_handle", "body").kind == CLEARANCE or an.distance("door_handle", "body") > 0.016


def test_symmetry_axis_of_revolved_parts_only() -> None:
    an = Analysis(spinner())
    wheel, dial, body = an.shape("wheel"), an.shape("dial"), an.shape("body")
    assert wheel.symmetric and axis_angle(wheel.symmetry_axis, [0, 1, 0]) < 1e-6
    assert line_distance(wheel.symmetry_centre, wheel.symmetry_axis, [0, 0, 0.1], [0, 1, 0]) < 1e-6
    assert dial.symmetric and axis_angle(dial.symmetry_axis, [1, 0, 0]) < 1e-6
    assert not body.symmetric


def test_collar_round_a_post_gives_a_cylindrical_contact() -> None:
    post = cylinder(0.02, 0.3, 32)
    collar = lathe(np.array([[0.023, 0.1], [0.035, 0.1], [0.035, 0.14], [0.023, 0.14]]), 32)
    arm = box([0.03, -0.008, 0.112], [0.2, 0.008, 0.128])
    from seed3d.synth.primitives import union

    spout = union(collar, arm)
    asset = Asset("tap", [Part("body", post, "body"), Part("spout", spout, "spout")],
                  [Joint("spout_unknown", "fixed", "body", "spout")])
    an = Analysis(asset)
    c = an.contact("spout", "body")
    assert c is not None and c.kind == CLEARANCE and c.cylindrical
    assert axis_angle(c.cylinder_axis, [0, 0, 1]) < 1e-6
    cands = {k.source: k for k in an.candidates("spout", "body")}
    cyl = cands["contact_cylinder"]
    assert line_distance(cyl.pivot, cyl.direction, [0, 0, 0], [0, 0, 1]) < 1e-3


def test_candidates_include_the_hinge_edge() -> None:
    an = Analysis(small_cabinet())
    cands = an.candidates("door", "body")
    assert [c.index for c in cands] == list(range(len(cands)))
    hinge = [c for c in cands if c.source.startswith("box_edge")
             and axis_angle(c.direction, [0, 0, 1]) < 1e-9
             and line_distance(c.pivot, c.direction, [DOOR[1], -0.245, 0], [0, 0, 1]) < 1e-6]
    assert len(hinge) == 1
    assert any(c.source == "contact_normal" for c in cands)
    assert all(abs(np.linalg.norm(c.direction) - 1) < 1e-9 for c in cands)
    doc = cands[0].to_dict()
    assert set(doc) == {"index", "direction", "pivot", "source", "score"}


def test_grouping_glues_handles_to_doors_but_not_doors_to_bodies() -> None:
    asset = small_cabinet()
    an = Analysis(asset)
    groups = rigid_groups(asset, an)
    assert groups["door"] == groups["door_handle"] != groups["body"]
    root = choose_root(asset, an)
    assert root == "body"
    assert build_tree(asset, an, root) == {"door": "body", "door_handle": "door"}


def test_inserted_length_and_supported_range() -> None:
    carcass = difference(box([-0.3, -0.3, 0], [0.3, 0.3, 0.4]), box([-0.28, -0.25, 0.05], [0.31, 0.25, 0.35]))
    drawer = box([-0.27, -0.24, 0.06], [0.32, 0.24, 0.34])
    assert inserted_length(drawer, carcass, np.array([1.0, 0, 0])) == pytest.approx(0.3 + 0.27, abs=1e-9)
    block = box([-0.05, -0.05, 0.4], [0.05, 0.05, 0.45])
    lo, hi = supported_range(block, carcass, np.array([1.0, 0, 0]))
    assert lo == pytest.approx(-0.25) and hi == pytest.approx(0.25)
