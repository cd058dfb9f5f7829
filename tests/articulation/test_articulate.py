"""Articulation of synthetic assets with their joints stripped: types, axes, pivots, limits, validation."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from seed3d.articulation import ArticulationConfig, articulate, strip_joints
from seed3d.articulation._geometry import axis_angle, line_distance
from seed3d.articulation.limits import JOINT_PRESETS, CollisionScene
from seed3d.asset import Asset, Joint, Part, joint_motion
from seed3d.errors import InvalidInputError
from seed3d.export import export_asset
from seed3d.physics import get_material
from seed3d.physics.validate import ValidationReport, validate_path
from seed3d.synth import generate
from seed3d.synth.kinematics import intersection_volume
from seed3d.synth.primitives import box, cylinder, difference, union
from tests.articulation._helpers import DOOR, FAST, cut_door_cabinet, small_cabinet, spinner


@pytest.fixture(scope="module")
def cabinet() -> tuple[Asset, Asset]:
    """(truth, articulated) for a cabinet with two handled doors over two handled drawers."""
    truth = generate("cabinet", 0)
    assert sorted(j.type for j in truth.joints if j.movable) == ["prismatic", "prismatic", "revolute", "revolute"]
    return truth, articulate(strip_joints(truth), config=FAST)


def _joint(asset: Asset, child: str) -> Joint:
    j = asset.joint_to(child)
    assert j is not None, f"{child} got no joint"
    return j


def test_strip_joints_keeps_parts_and_hides_joints() -> None:
    truth = generate("cabinet", 0)
    stripped = strip_joints(truth)
    assert [p.name for p in stripped.parts] == [p.name for p in truth.parts]
    assert not stripped.joints and not stripped.joints_known
    assert all(p.inertial is None for p in stripped.parts)
    assert "articulation" not in stripped.metadata and "attributes" not in stripped.metadata


def test_drawers_slide_out_along_front_with_depth_range(cabinet: tuple[Asset, Asset]) -> None:
    truth, pred = cabinet
    for gt in (j for j in truth.joints if truth.part(j.child).label == "drawer"):
        j = _joint(pred, gt.child)
        assert j.type == "prismatic" and j.parent == "body"
        assert float(j.unit_axis @ [1.0, 0.0, 0.0]) > 0.999  # outward, +X
        assert j.lower == 0.0
        assert abs(j.upper - gt.upper) <= 0.1 * gt.upper, (j.upper, gt.upper)


def test_doors_hinge_on_the_edge_away_from_the_handle_and_open_outward(cabinet: tuple[Asset, Asset]) -> None:
    truth, pred = cabinet
    diag = float(np.linalg.norm(np.subtract(*truth.bounds()[::-1])))
    for gt in (j for j in truth.joints if truth.part(j.child).label == "door"):
        j = _joint(pred, gt.child)
        assert j.type == "revolute" and j.parent == "body"
        assert axis_angle(j.axis, gt.axis) < math.radians(1)
        assert float(j.unit_axis @ gt.unit_axis) > 0  # same sign: a positive angle opens
        assert line_distance(j.origin, j.axis, gt.origin, gt.axis) / diag < 0.01
        # opening by 30° moves the door's centre forward (+X), away from the carcass
        centre = pred.part(gt.child).mesh.vertices.mean(axis=0)
        moved = joint_motion("revolute", j.unit_axis, j.origin, math.radians(30)) @ np.append(centre, 1.0)
        assert moved[0] > centre[0] + 0.02
        assert math.radians(85) <= j.upper <= math.radians(125)


def test_handles_are_fixed_to_their_door_or_drawer(cabinet: tuple[Asset, Asset]) -> None:
    truth, pred = cabinet
    handles = [j for j in truth.joints if truth.part(j.child).label == "handle"]
    assert len(handles) == 4
    for gt in handles:
        j = _joint(pred, gt.child)
        assert j.type == "fixed" and j.parent == gt.parent


def test_physical_properties_and_damping(cabinet: tuple[Asset, Asset]) -> None:
    _, pred = cabinet
    for p in pred.parts:
        assert p.inertial is not None and p.inertial.mass > 0 and p.collision
        rho = p.physical.density
        assert p.inertial.mass == pytest.approx(rho * abs(_volume(p.mesh.vertices, p.mesh.faces)), rel=0.02)
    for j in pred.joints:
        if j.movable:
            assert j.damping > 0 and j.friction > 0 and j.effort > 0
    assert pred.metadata["articulation"]["root"] == "body"


def _volume(v: np.ndarray, f: np.ndarray) -> float:
    t = v[f]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


def test_articulated_cabinet_validates_in_urdf_and_mjcf(cabinet: tuple[Asset, Asset], tmp_path: Path) -> None:
    _, pred = cabinet
    root = pred.save(tmp_path / pred.name)
    export_asset(pred, root, ("urdf", "mjcf"))
    report = validate_path(root)
    names = {c.name for c in report.checks}
    assert {"urdf.load_pybullet", "urdf.load_mujoco", "urdf.sweep", "urdf.interpenetration", "mjcf.sweep",
            "kinematics.urdf", "kinematics.mjcf"} <= names
    assert report.passed, [f"{c.name}: {c.message}" for c in report.failures]


def test_knob_and_turntable_spin_on_their_symmetry_axes() -> None:
    truth = generate("microwave", 0)
    pred = articulate(strip_joints(truth), config=FAST)
    spinning = [j for j in truth.joints if j.type == "continuous"]
    assert {truth.part(j.child).label for j in spinning} == {"knob", "tray"}
    for gt in spinning:
        j = _joint(pred, gt.child)
        assert j.type == "continuous" and j.parent == gt.parent
        assert axis_angle(j.axis, gt.axis) < math.radians(0.5)
        assert line_distance(j.origin, j.axis, gt.origin, gt.axis) < 0.002


def test_wheel_and_dial_of_a_hand_built_asset() -> None:
    pred = articulate(spinner(), config=FAST)
    wheel, dial = _joint(pred, "wheel"), _joint(pred, "dial")
    assert wheel.type == "continuous" and dial.type == "continuous"
    assert axis_angle(wheel.axis, [0, 1, 0]) < 1e-6
    assert line_distance(wheel.origin, wheel.axis, [0.0, 0.0, 0.1], [0, 1, 0]) < 1e-3
    assert axis_angle(dial.axis, [1, 0, 0]) < 1e-6
    assert line_distance(dial.origin, dial.axis, [0.0, 0.05, 0.2], [1, 0, 0]) < 1e-3


def test_suitcase_wheels_spin_and_its_handle_telescopes() -> None:
    truth = generate("suitcase", 0)
    pred = articulate(strip_joints(truth))  # CoACD hulls: a single hull would fill the handle's channels
    wheels = [j for j in truth.joints if truth.part(j.child).label == "wheel"]
    assert wheels
    for gt in wheels:
        j = _joint(pred, gt.child)
        assert j.type == "continuous"
        assert axis_angle(j.axis, gt.axis) < math.radians(0.5)
        assert line_distance(j.origin, j.axis, gt.origin, gt.axis) < 0.002
    telescope = _joint(pred, "telescoping_handle")
    assert telescope.type == "prismatic" and float(telescope.unit_axis @ [0, 0, 1]) > 0.999


def test_hand_built_door_hinges_opposite_its_handle() -> None:
    pred = articulate(small_cabinet(), config=FAST)
    door = _joint(pred, "door")
    assert door.type == "revolute"
    assert axis_angle(door.axis, [0, 0, 1]) < 1e-6 and door.unit_axis[2] < 0  # hinge on -Y, opening to +X
    assert line_distance(door.origin, door.axis, [0.221, -0.245, 0.0], [0, 0, 1]) < 1e-3
    assert door.upper == pytest.approx(math.radians(110))  # free swing: the door prior
    assert _joint(pred, "door_handle").type == "fixed"


def test_a_handle_labelled_strip_beside_the_door_does_not_move_its_hinge() -> None:
    # the segmenter can cut a strip of the frame along a door's outer edge and label it handle; glued to the door's
    # side, it lies outside the door's outline and must not pull the hinge to the handle's edge
    asset = small_cabinet()
    strip = box([DOOR[0], -0.249, 0.05], [DOOR[1], -0.245, 0.55])
    asset = Asset(asset.name, [*asset.parts, Part("edge_strip", strip, "handle", collision=[strip])],
                  joints_known=False)
    pred = articulate(asset, config=FAST)
    door = _joint(pred, "door")
    assert pred.joint_to("edge_strip").parent == "door"
    assert door.type == "revolute" and door.unit_axis[2] < 0  # still hinged on -Y, opening to +X
    assert line_distance(door.origin, door.axis, [0.221, -0.245, 0.0], [0, 0, 1]) < 1e-2


def test_swept_limit_stops_before_a_wall_in_the_swing() -> None:
    sweep_only = dataclasses.replace(FAST, functional=False)  # the swept limit itself (under 60°: a door fails)
    free = _joint(articulate(small_cabinet(), config=sweep_only), "door")
    asset = articulate(small_cabinet(wall=True), config=sweep_only)
    door = _joint(asset, "door")
    assert door.upper < free.upper - 0.3
    assert door.upper > math.radians(30)
    wall = small_cabinet(wall=True).part("body").collision[1]
    moving = [asset.part("door").mesh, asset.part("door_handle").mesh]

    def overlap(angle: float) -> float:
        m = joint_motion("revolute", door.unit_axis, door.origin, angle)
        return sum(intersection_volume(mesh.transformed(m), wall) for mesh in moving)

    assert overlap(door.upper) == 0.0  # stops before penetrating
    assert overlap(door.upper + math.radians(4)) > 0.0  # and not long before
    with CollisionScene(asset) as scene:  # the hull sweep agrees
        scene.place(["door", "door_handle"], joint_motion("revolute", door.unit_axis, door.origin, door.upper))
        assert max(scene.depths(["door", "door_handle"]).values(), default=0.0) < 5e-4


def test_keep_tree_uses_given_parents() -> None:
    truth = generate("cabinet", 0)
    pred = articulate(truth, config=ArticulationConfig(physics=FAST.physics, keep_tree=True))
    assert {j.child: j.parent for j in pred.joints} == {j.child: j.parent for j in truth.joints}


def test_progress_reaches_one() -> None:
    seen: list[float] = []
    articulate(small_cabinet(), config=FAST, progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)


def test_a_button_in_a_pocket_the_coarse_hull_fills_still_presses_in() -> None:
    """A body's single convex hull fills the pocket behind its button, so pressing the button in ran into it and
    the joint came out fixed. The hulls are cleared around the decided joints before the limits are swept."""
    body = difference(box([0, 0, 0], [0.3, 0.3, 0.3]), box([0.28, 0.14, 0.14], [0.31, 0.16, 0.16]))
    button = box([0.285, 0.142, 0.142], [0.305, 0.158, 0.158])  # 5 mm proud of the front, 15 mm deep pocket
    parts = [Part("body", body, label="body"), Part("button", button, label="button")]
    coarse = articulate(Asset("panel", parts, joints_known=False),
                        config=ArticulationConfig(physics=FAST.physics, clearance=None))
    assert _joint(coarse, "button").type == "fixed"  # what the coarse hull alone allows
    asset = articulate(Asset("panel", parts, joints_known=False), config=FAST)
    joint = _joint(asset, "button")
    assert joint.type == "prismatic" and joint.unit_axis @ np.array([-1.0, 0.0, 0.0]) > 0.99
    assert joint.upper == pytest.approx(0.003, abs=5e-4)
    assert "body" in asset.metadata["physics"]["clearance"]["parts"]


def test_a_solid_cap_on_a_bottle_neck_screws_on() -> None:
    """A cap cut off a merged shell and completed is solid (no skirt round the neck to slide in), so the sleeve
    test finds no single free direction; by its shape (revolved, deep for its width, narrower than the bottle,
    on its centre line) it is a cap and turns about its axis, where a thin full-width lid hinges."""
    bottle = union(cylinder(0.04, 0.15, 32, (0, 0, 1), (0, 0, 0)), cylinder(0.015, 0.03, 32, (0, 0, 1), (0, 0, 0.149)))
    cap = cylinder(0.018, 0.014, 32, (0, 0, 1), (0, 0, 0.179))
    parts = [Part("body", bottle, label="body"), Part("cap", cap, label="lid")]
    joint = _joint(articulate(Asset("bottle", parts, joints_known=False), config=FAST), "cap")
    assert joint.type == "continuous" and axis_angle(joint.axis, [0, 0, 1]) < 1e-3
    assert line_distance(joint.origin, joint.axis, [0, 0, 0], [0, 0, 1]) < 1e-3
    plate = cylinder(0.04, 0.004, 32, (0, 0, 1), (0, 0, 0.15))
    parts = [Part("body", cylinder(0.04, 0.15, 32, (0, 0, 1), (0, 0, 0)), label="body"),
             Part("lid", plate, label="lid")]
    assert _joint(articulate(Asset("bin", parts, joints_known=False), config=FAST), "lid").type == "revolute"


def test_joints_that_hold_their_pose_carry_their_subtree_weight_by_friction() -> None:
    """A lamp's arms stay where they are put by joint friction alone: each one's friction is at least
    ``hold_margin`` times the gravity torque of everything it carries (the lower arm carries the most)."""
    asset = articulate(strip_joints(generate("lamp", 0)), config=FAST)
    held = [j for j in asset.joints if j.type == "revolute" and asset.part(j.child).label in ("arm", "shade")]
    assert len(held) == 3
    for j in held:
        carried = asset.subtree(j.child)
        mass = sum(asset.part(n).inertial.mass for n in carried)  # type: ignore[union-attr]
        com = sum(asset.part(n).inertial.mass * asset.part(n).inertial.com for n in carried) / mass  # type: ignore
        rel = com - np.asarray(j.origin)
        arm = float(np.linalg.norm(rel - (rel @ j.unit_axis) * j.unit_axis))
        assert j.friction >= FAST.hold_margin * mass * 9.81 * arm - 1e-9
    assert max(j.friction for j in held) > 3.0  # above the preset's flat 3 N·m for the heaviest load


def test_a_drawer_whose_cavity_the_coarse_hull_fills_slides_out_of_the_front() -> None:
    """The body's single convex hull fills the drawer's cavity, so every way out is blocked for the hulls and the
    drawer used to slide the way its centre lies from the body's (up, into the top panel). Its true surface is
    free only out of the front, and the hulls are cleared along that path before the limits are swept."""
    body = difference(box([-0.2, -0.3, 0.0], [0.2, 0.3, 1.0]), box([-0.17, -0.27, 0.75], [0.21, 0.27, 0.95]))
    drawer = difference(box([-0.165, -0.265, 0.755], [0.2, 0.265, 0.945]),
                        box([-0.15, -0.25, 0.77], [0.185, 0.25, 0.96]))
    parts = [Part("body", body, label="body"), Part("drawer", drawer, label="drawer")]
    asset = articulate(Asset("dresser", parts, joints_known=False), config=FAST)
    joint = _joint(asset, "drawer")
    assert joint.type == "prismatic" and joint.unit_axis @ np.array([1.0, 0.0, 0.0]) > 0.99
    assert joint.upper > 0.2  # most of its 0.365 m depth


def test_a_dial_sized_round_button_turns_and_a_bar_labelled_button_is_a_handle() -> None:
    """The segmenter labels a washing machine's 58 mm dial and a drawer's bar handle as buttons: a round button
    as wide as a dial turns about its axis, and a long bar glued to a drawer front is fixed like a handle; a
    small round button still presses in."""
    body = box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.8])
    dial = cylinder(0.029, 0.03, 48, (1, 0, 0), (0.302, -0.1, 0.7))
    button = cylinder(0.008, 0.01, 32, (1, 0, 0), (0.302, 0.1, 0.7))
    drawer = box([0.0, -0.25, 0.1], [0.3, 0.25, 0.3])
    bar = box([0.3, -0.048, 0.19], [0.312, 0.048, 0.218])
    body = difference(body, box([0.0, -0.253, 0.097], [0.31, 0.253, 0.303]))
    parts = [Part("body", body, label="body"), Part("dial", dial, label="button"),
             Part("button", button, label="button"), Part("drawer", drawer, label="drawer"),
             Part("bar", bar, label="button")]
    asset = articulate(Asset("washer", parts, joints_known=False), config=FAST)
    dial_joint = _joint(asset, "dial")
    assert dial_joint.type == "continuous" and abs(dial_joint.unit_axis @ np.array([1.0, 0.0, 0.0])) > 0.99
    press = _joint(asset, "button")
    assert press.type == "prismatic" and press.unit_axis @ np.array([-1.0, 0.0, 0.0]) > 0.99
    bar_joint = _joint(asset, "bar")
    assert bar_joint.type == "fixed" and bar_joint.parent == "drawer"


def test_a_drawer_overlapping_its_parents_hulls_at_rest_is_fixed() -> None:
    """Without the hull clearing, the body's single convex hull fills the drawer's cavity: the drawer would move
    out of the overlap freely, but a moving part that overlaps its parent at rest fails validation, so it is
    fixed, with the overlap in the note; with the clearing (the default) it slides."""
    body = difference(box([-0.2, -0.3, 0.0], [0.2, 0.3, 0.4]), box([-0.17, -0.27, 0.05], [0.21, 0.27, 0.35]))
    drawer = difference(box([-0.165, -0.265, 0.055], [0.2, 0.265, 0.345]),
                        box([-0.15, -0.25, 0.07], [0.185, 0.25, 0.36]))
    parts = [Part("body", body, label="body"), Part("drawer", drawer, label="drawer")]
    stuck = articulate(Asset("filled", parts, joints_known=False),
                       config=ArticulationConfig(physics=FAST.physics, clearance=None))
    assert _joint(stuck, "drawer").type == "fixed"
    assert "mm at rest: fixed instead" in stuck.metadata["articulation"]["parts"]["drawer"]["note"]
    assert _joint(articulate(Asset("filled", parts, joints_known=False), config=FAST), "drawer").type == "prismatic"


def test_a_thick_part_labelled_door_is_a_drum_or_a_drawer() -> None:
    """The segmenter labels a washing machine's drum and a nightstand's drawer as doors. A door is a panel; a
    thick solid of revolution labelled door spins about its axis, and a thick box labelled door slides out."""
    body = difference(box([-0.3, -0.3, 0.0], [0.3, 0.3, 1.0]),
                      box([-0.25, -0.21, 0.065], [0.31, 0.21, 0.485]), box([-0.17, -0.27, 0.6], [0.31, 0.27, 0.95]))
    walls = [box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.065]), box([-0.3, -0.3, 0.485], [0.3, 0.3, 0.6]),
             box([-0.3, -0.3, 0.95], [0.3, 0.3, 1.0]), box([-0.3, -0.3, 0.065], [-0.25, 0.3, 0.485]),
             box([-0.25, -0.3, 0.065], [0.3, -0.21, 0.485]), box([-0.25, 0.21, 0.065], [0.3, 0.3, 0.485]),
             box([-0.3, -0.3, 0.6], [-0.17, 0.3, 0.95]), box([-0.17, -0.3, 0.6], [0.3, -0.27, 0.95]),
             box([-0.17, 0.27, 0.6], [0.3, 0.3, 0.95])]
    drum = cylinder(0.2, 0.45, 48, (1, 0, 0), (-0.22, 0.0, 0.275))
    drawer = difference(box([-0.165, -0.265, 0.605], [0.3, 0.265, 0.945]),
                        box([-0.15, -0.25, 0.62], [0.285, 0.25, 0.96]))
    parts = [Part("body", body, label="body", collision=walls), Part("drum", drum, label="door"),
             Part("drawer", drawer, label="door")]
    asset = articulate(Asset("washer", parts, joints_known=False), config=FAST)
    spin, slide = _joint(asset, "drum"), _joint(asset, "drawer")
    assert spin.type == "continuous" and abs(spin.unit_axis @ np.array([1.0, 0.0, 0.0])) > 0.99
    assert slide.type == "prismatic" and slide.unit_axis @ np.array([1.0, 0.0, 0.0]) > 0.99 and slide.upper > 0.2


def test_a_round_tray_apart_from_its_body_turns() -> None:
    """A microwave's turntable stands on a spindle the cut leaves out, so it floats apart from the body: a round
    tray that is not glued turns about its axis (a flat tray glued to the floor stays fixed)."""
    walls = [box([-0.25, -0.25, 0.0], [0.25, 0.25, 0.03]), box([-0.25, -0.25, 0.32], [0.25, 0.25, 0.35]),
             box([-0.25, -0.25, 0.03], [-0.22, 0.25, 0.32]), box([-0.22, -0.25, 0.03], [0.25, -0.22, 0.32]),
             box([-0.22, 0.22, 0.03], [0.25, 0.25, 0.32])]
    body = union(*walls)
    tray = cylinder(0.15, 0.01, 48, (0, 0, 1), (0.0, 0.0, 0.06))
    glued = cylinder(0.15, 0.01, 48, (0, 0, 1), (0.0, 0.0, 0.03))
    for disc, kind in ((tray, "continuous"), (glued, "fixed")):
        parts = [Part("body", body, label="body", collision=walls), Part("tray", disc, label="tray")]
        joint = _joint(articulate(Asset("microwave", parts, joints_known=False), config=FAST), "tray")
        assert joint.type == kind
        if kind == "continuous":
            assert abs(joint.unit_axis @ np.array([0.0, 0.0, 1.0])) > 0.99


def test_an_oblong_knob_is_pressed_in_along_its_depth() -> None:
    """The segmenter labels a washing machine's 35 by 18 mm push button a knob: a knob's face is round, so an
    oblong one is pressed in like a button, along its depth (its thinnest side), not turned."""
    body = difference(box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.8]), box([0.29, 0.0, 0.7], [0.31, 0.039, 0.722]))
    button = box([0.295, 0.002, 0.702], [0.307, 0.037, 0.72])
    parts = [Part("body", body, label="body"), Part("button", button, label="knob")]
    joint = _joint(articulate(Asset("washer", parts, joints_known=False), config=FAST), "button")
    assert joint.type == "prismatic" and joint.unit_axis @ np.array([-1.0, 0.0, 0.0]) > 0.99


def test_a_block_labelled_knob_slides_over_its_parent_or_is_pressed_in() -> None:
    """The segmenter labels a freeform's sliding block a knob. A knob's grip is round: a plain block with a running
    clearance to its parent and a level way free both ways slides back and forth (it used to turn about its
    contact normal); a square block in a pocket (not oblong) is a push button."""
    body = box([-0.2, -0.15, 0.0], [0.2, 0.15, 0.3])
    block = box([-0.05, -0.06, 0.303], [0.05, 0.06, 0.333])
    parts = [Part("body", body, label="body"), Part("block", block, label="knob")]
    joint = _joint(articulate(Asset("slider", parts, joints_known=False), config=FAST), "block")
    assert joint.type == "prismatic" and abs(joint.unit_axis[0]) > 0.99
    assert joint.lower < -0.01 and joint.upper > 0.01
    body = difference(box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.8]), box([0.29, 0.0, 0.7], [0.31, 0.02, 0.72]))
    button = box([0.295, 0.002, 0.702], [0.307, 0.018, 0.718])
    parts = [Part("body", body, label="body"), Part("button", button, label="knob")]
    joint = _joint(articulate(Asset("washer", parts, joints_known=False), config=FAST), "button")
    assert joint.type == "prismatic" and joint.unit_axis @ np.array([-1.0, 0.0, 0.0]) > 0.99


def test_door_posts_labelled_door_stand_in_the_frame() -> None:
    """The segmenter labels a door frame's posts door. Each post touches the door along its whole height and the
    lintel only at a corner, so it used to hang from the door (a panel on a panel) and block its swing. A panel
    hangs from another only when it touches nothing else, and a thick bar labelled door is a post: fixed."""
    lintel = box([-0.09, -0.3, 2.0], [0.03, 0.3, 2.07])
    posts = [box([-0.09, -0.47, 0.0], [0.03, -0.28, 1.998]), box([-0.09, 0.28, 0.0], [0.03, 0.47, 1.998])]
    door = box([-0.02, -0.277, 0.008], [0.03, 0.277, 1.997])
    handle = box([0.03, 0.17, 0.99], [0.08, 0.25, 1.01])
    parts = [Part("lintel", lintel, label="frame"), Part("post_a", posts[0], label="door"),
             Part("post_b", posts[1], label="door"), Part("door", door, label="door"),
             Part("handle", handle, label="handle")]
    asset = articulate(Asset("doorway", parts, joints_known=False), config=FAST)
    for post in ("post_a", "post_b"):
        assert _joint(asset, post).type == "fixed" and _joint(asset, post).parent == "lintel"
    hinge = _joint(asset, "door")
    assert hinge.type == "revolute" and hinge.parent == "lintel" and abs(hinge.unit_axis[2]) > 0.99
    assert hinge.upper > math.radians(60)


def test_a_drawer_whose_handle_grazes_the_door_above_runs_in_the_body() -> None:
    """An oven's drawer front meets the body only round its opening, while its long handle runs 3 mm under the
    door above; the handle's contact carried the drawer onto the door, whose swing it then blocked. A handle glued
    to a panel counts for little against another panel: the drawer runs in the body and the door swings."""
    body = difference(box([-0.3, -0.3, 0.0], [0.3, 0.3, 0.9]), box([-0.25, -0.27, 0.05], [0.31, 0.27, 0.3]))
    drawer = union(box([0.303, -0.275, 0.047], [0.323, 0.275, 0.28]),
                   difference(box([-0.2, -0.24, 0.08], [0.303, 0.24, 0.27]), box([-0.19, -0.23, 0.09],
                                                                                  [0.29, 0.23, 0.28])))
    pull = box([0.303, -0.26, 0.28], [0.343, 0.26, 0.307])
    door = box([0.303, -0.28, 0.31], [0.343, 0.28, 0.88])
    knob = box([0.343, 0.2, 0.55], [0.363, 0.22, 0.75])
    parts = [Part("body", body, label="body"), Part("drawer", drawer, label="drawer"),
             Part("pull", pull, label="handle"), Part("door", door, label="door"),
             Part("door_handle", knob, label="handle")]
    asset = articulate(Asset("oven", parts, joints_known=False), config=FAST)
    slide, hinge = _joint(asset, "drawer"), _joint(asset, "door")
    assert slide.parent == "body" and slide.type == "prismatic" and slide.unit_axis @ np.array([1.0, 0, 0]) > 0.99
    assert hinge.parent == "body" and hinge.type == "revolute"


def test_a_door_cut_in_two_pieces_is_glued_into_one_and_hinged() -> None:
    """The segmenter can cut one door into two door pieces. Hinged apart, the piece without the handle swings on
    its outer edge into the strip that carries the handle and is blocked at rest; the two are glued into one
    door hinged on the edge away from the handle, the strip fixed on it."""
    cut = cut_door_cabinet()
    front = DOOR[0] + 0.05
    apart = articulate(cut, config=dataclasses.replace(FAST, glue_split_panels=False))
    assert _joint(apart, "door").type == "fixed"  # blocked by the strip: what the gluing mends
    pred = articulate(cut, config=FAST)
    assert pred.metadata["articulation"]["glued"] == [["door", "door_strip"]]
    hinge = _joint(pred, "door")
    assert hinge.type == "revolute" and hinge.parent == "body" and hinge.unit_axis[2] < 0  # -Y edge, opens to +X
    assert line_distance(hinge.origin, hinge.axis, [front, -0.245, 0.0], [0, 0, 1]) < 1e-3
    assert hinge.upper == pytest.approx(math.radians(110))
    assert _joint(pred, "door_strip").type == "fixed" and _joint(pred, "door_strip").parent == "door"
    assert _joint(pred, "door_handle").type == "fixed"
    moved = joint_motion(hinge.type, hinge.axis, hinge.origin, math.radians(90))
    assert moved[:3, :3] @ np.array([0.0, 1.0, 0.0]) @ np.array([1.0, 0.0, 0.0]) > 0.99  # the handle side comes out


def test_a_door_is_hinged_away_from_the_handle_standing_proud_of_it_not_from_slices_of_it() -> None:
    """The segmenter can label a slice of a door "handle". Fixed on the door within its thickness, such a slice is
    no handle to pull on: the hinge goes by the bar standing proud of the face (near the +Y edge, at mid-height),
    so on the -Y edge; counted with the slice (low in the door) the handle centre sat nearest the bottom edge."""
    body = small_cabinet().part("body")
    lo, hi = DOOR
    notch = (-0.1, 0.1, 0.05, 0.1)  # y from, y to, z from, z to: the slice fills this notch in the door's bottom
    door = union(box([lo, -0.245, notch[3]], [hi, 0.245, 0.55]), box([lo, -0.245, 0.05], [hi, notch[0], notch[3]]),
                 box([lo, notch[1], 0.05], [hi, 0.245, notch[3]]))
    piece = box([lo, notch[0], notch[2]], [hi, notch[1], notch[3]])
    bar = box([hi, 0.17, 0.25], [hi + 0.02, 0.19, 0.35])
    asset = articulate(Asset("sliced", [body, Part("door", door, "door"), Part("door_slice", piece, "handle"),
                                        Part("door_handle", bar, "handle")], joints_known=False), config=FAST)
    assert _joint(asset, "door_slice").type == "fixed" and _joint(asset, "door_slice").parent == "door"
    hinge = _joint(asset, "door")
    assert hinge.type == "revolute" and hinge.parent == "body" and hinge.unit_axis[2] < -0.99  # opens to +X
    assert line_distance(hinge.origin, hinge.axis, [hi, -0.245, 0.0], [0, 0, 1]) < 1e-3


def test_a_knob_whose_grip_was_cut_off_as_a_button_is_glued_to_it_and_turns() -> None:
    """The segmenter can cut a dial's grip off as a "button". A knob carries no other part, so the grip hangs from
    the body, and its ends, standing out of the dial's tapered front, stop the dial after a few degrees: a revolute
    joint instead of a continuous one. The grip lies within the dial's bounds and touches it flush: the two are
    glued and the dial turns freely, the grip fixed on it."""
    base = spinner()
    grip = box([0.1665, 0.047, 0.182], [0.1715, 0.053, 0.218])  # across the dial's front (radius 16 mm there)
    asset = Asset("grip", [*base.parts, Part("grip", grip, "button")], joints_known=False)
    # without the gluing, and without the functional checks that fuse a knob turning only a few degrees
    apart = articulate(asset, config=dataclasses.replace(FAST, glue_split_panels=False, functional=False))
    assert _joint(apart, "dial").type == "revolute"  # what the gluing mends
    pred = articulate(asset, config=FAST)
    assert pred.metadata["articulation"]["glued"] == [["dial", "grip"]]
    assert _joint(pred, "dial").type == "continuous" and abs(_joint(pred, "dial").unit_axis[0]) > 0.99
    assert _joint(pred, "grip").type == "fixed" and _joint(pred, "grip").parent == "dial"
    assert _joint(pred, "wheel").type == "continuous"


def test_a_cap_as_wide_as_its_jar_fitted_over_a_neck_screws_on() -> None:
    """A cap nearly as wide as its jar is no cap by shape alone; what makes it screw on is the neck inside its
    skirt: sideways, the rays from the skirt's inner face meet the neck (2 mm away) before the skirt's far side,
    so only lifting is clear. Counting only rays that meet nothing of the lid at all left out every inner-face
    ray and found every way but down clear: a lid hinged on its back edge."""
    body = union(cylinder(0.05, 0.1, 48, (0, 0, 1), (0, 0, 0)), cylinder(0.04, 0.02, 48, (0, 0, 1), (0, 0, 0.099)))
    lid = difference(cylinder(0.049, 0.028, 48, (0, 0, 1), (0, 0, 0.101)),
                     cylinder(0.042, 0.023, 48, (0, 0, 1), (0, 0, 0.1)))
    asset = articulate(Asset("jar", [Part("body", body, "body"), Part("lid", lid, "lid")], joints_known=False),
                       config=FAST)
    cap = _joint(asset, "lid")
    assert cap.type == "continuous" and abs(cap.unit_axis[2]) > 0.99
    assert line_distance(cap.origin, cap.axis, [0.0, 0.0, 0.0], [0, 0, 1]) < 1e-3


def _validated(asset: Asset, tmp_path: Path) -> ValidationReport:
    """The validation report of ``asset`` saved and exported to URDF and MJCF; every check must pass."""
    root = asset.save(tmp_path / asset.name)
    export_asset(asset, root, ("urdf", "mjcf"))
    report = validate_path(root)
    assert report.passed, [f"{c.name}: {c.message}" for c in report.failures]
    return report


def test_a_door_hinged_along_its_top_edge_stays_shut_at_rest(tmp_path: Path) -> None:
    """A thick door whose handle is at its bottom edge hinges along its top edge, on its outer face, so its centre
    of mass hangs behind the hinge line and gravity swings it open by ~0.1 rad unless its joint friction holds it:
    the friction is at least ``hold_margin`` times the gravity torque at rest, and it rests in both engines."""
    body = small_cabinet().part("body")
    front = DOOR[0] + 0.05
    door = box([DOOR[0], -0.245, 0.05], [front, 0.245, 0.55])
    handle = box([front, -0.05, 0.07], [front + 0.02, 0.05, 0.09])
    asset = articulate(Asset("flap", [body, Part("door", door, "door", collision=[door]),
                                      Part("door_handle", handle, "handle", collision=[handle])],
                             joints_known=False), config=FAST)
    hinge = _joint(asset, "door")
    assert hinge.type == "revolute" and abs(hinge.unit_axis[1]) > 0.99 and hinge.origin[2] == pytest.approx(0.55)
    mass = sum(asset.part(n).inertial.mass for n in ("door", "door_handle"))  # type: ignore[union-attr]
    com = sum(asset.part(n).inertial.mass * asset.part(n).inertial.com  # type: ignore[union-attr]
              for n in ("door", "door_handle")) / mass
    torque = abs(float(hinge.unit_axis @ np.cross(com - hinge.origin, [0.0, 0.0, -9.81 * mass])))
    assert torque > 0.5 and hinge.friction >= FAST.hold_margin * torque - 1e-9
    _validated(asset, tmp_path)


def test_a_heavy_panel_held_shut_by_friction_can_still_be_driven_open(tmp_path: Path) -> None:
    """A 14 kg slab labelled door lying on a box (a cabinet's top the segmenter calls a door) hinges along an edge
    of its outer (top) face, its centre of mass under the hinge line: at rest it weighs on the hinge with its full
    gravity torque, so its friction is twice that torque. The effort limit covers the lift and the friction: with
    three times the torque alone, MuJoCo's drive could not open it."""
    body = box([-0.25, -0.25, 0.0], [0.25, 0.25, 0.4])
    slab = box([-0.25, -0.25, 0.4], [0.25, 0.25, 0.45])
    asset = articulate(Asset("chest", [Part("body", body, "body", collision=[body]),
                                       Part("top", slab, "door", collision=[slab])], joints_known=False), config=FAST)
    hinge = _joint(asset, "top")
    assert hinge.type == "revolute" and abs(hinge.unit_axis[1]) > 0.99 and hinge.origin[2] == pytest.approx(0.45)
    inertial = asset.part("top").inertial
    assert inertial is not None and inertial.mass > 10
    rel = inertial.com - hinge.origin
    load = inertial.mass * 9.81 * float(np.linalg.norm(rel - (rel @ hinge.unit_axis) * hinge.unit_axis))
    assert hinge.friction >= FAST.hold_margin * load * 0.99
    assert hinge.effort >= FAST.effort_margin * load + hinge.friction - 1e-9
    report = _validated(asset, tmp_path)
    assert {"urdf.drive", "mjcf.drive"} <= {c.name for c in report.checks}


def test_a_heavy_drum_gets_the_effort_to_turn_a_full_turn(tmp_path: Path) -> None:
    """A solid steel drum (half a tonne, 17 kg·m² about its axle; a completed part is solid where a real drum is a
    shell) spins on its axle. At its preset effort (200 N·m) MuJoCo's drive stopped 2.4 rad short of a full turn
    after 2 s; the effort limit now also covers turning it a full turn in ``drive_time``."""
    body = box([-0.5, -0.5, 0.0], [0.3, 0.5, 0.7])  # heavy enough not to tip over with the drum on its front
    drum = cylinder(0.25, 0.35, 48, (1, 0, 0), (0.303, 0.0, 0.35))
    asset = articulate(Asset("washer", [Part("body", body, "body", collision=[body]), Part("drum", drum, "other")],
                             joints_known=False), config=dataclasses.replace(FAST, materials={"drum": "steel"}))
    spin = _joint(asset, "drum")
    assert spin.type == "continuous" and abs(spin.unit_axis[0]) > 0.99
    inertial = asset.part("drum").inertial
    assert inertial is not None and inertial.mass > 500
    inertia = float(spin.unit_axis @ inertial.inertia @ spin.unit_axis)
    assert spin.effort >= inertia * 4 * 2 * math.pi / FAST.drive_time**2 > 200
    report = _validated(asset, tmp_path)
    assert {"urdf.drive", "mjcf.drive"} <= {c.name for c in report.checks}


def test_moving_parts_that_overlap_a_neighbour_at_rest_are_fixed(tmp_path: Path) -> None:
    """A door and the drawer under it, both hung from the body, overlap by 3 mm at rest (a mis-cut; the hull
    clearing, which would cut them apart, is off here). Only overlaps with a part's own parent used to fix its
    joint, so both moved and the validator rejected the overlap; now a moving part that overlaps any part outside
    what it carries is fixed, and the asset validates."""
    body = small_cabinet().part("body")
    door = box([DOOR[0], -0.245, 0.3], [DOOR[1], 0.245, 0.55])
    handle = box([DOOR[1], 0.17, 0.4], [DOOR[1] + 0.02, 0.19, 0.45])
    drawer = box([DOOR[0], -0.245, 0.05], [DOOR[1], 0.245, 0.303])
    pull = box([DOOR[1], -0.05, 0.16], [DOOR[1] + 0.02, 0.05, 0.18])
    parts = [body, Part("door", door, "door", collision=[door]),
             Part("door_handle", handle, "handle", collision=[handle]),
             Part("drawer", drawer, "drawer", collision=[drawer]),
             Part("drawer_handle", pull, "handle", collision=[pull])]
    asset = articulate(Asset("overlap", parts, joints_known=False), config=dataclasses.replace(FAST, clearance=None))
    for name, other in (("door", "drawer"), ("drawer", "door")):
        assert _joint(asset, name).type == "fixed" and _joint(asset, name).parent == "body"
        assert f"overlaps {other} by 3.0 mm at rest" in asset.metadata["articulation"]["parts"][name]["reason"]
    _validated(asset, tmp_path)


def test_glue_naming_a_part_the_asset_lacks_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="glue names parts the asset does not have: lid"):
        articulate(small_cabinet(), config=dataclasses.replace(FAST, glue=[("door", "lid")]))


def test_a_lamp_head_whose_knuckle_was_cut_off_as_a_bulb_tilts_on_it() -> None:
    """The segmenter can cut a desk lamp's knuckle (the ball at the arm's tip and the neck below it) off the head
    and label it bulb. The knuckle alone meets the arm, so the head's joint is the knuckle's, and a bulb is fixed:
    the head could not tilt. A fitting that carries a larger part glued to it, with a running clearance to its
    own parent, is that part's cut-off end: the two are glued and tilt together about the knuckle."""
    truth = generate("lamp", 0)  # a desk lamp
    tip = truth.joint_to("head").origin
    head = truth.part("head").mesh
    lo, hi = head.vertices.min(axis=0) - 0.01, head.vertices.max(axis=0) + 0.01
    cut = tip[2] - 0.045  # across the neck, 10 mm above the shade
    knuckle = difference(head, box(lo, [hi[0], hi[1], cut]))
    shade = difference(head, box([lo[0], lo[1], cut], hi))
    parts = [p for p in strip_joints(truth).parts if p.name != "head"]
    pred = articulate(Asset("lamp", [*parts, Part("knuckle", knuckle, "bulb"), Part("head", shade, "shade")],
                            joints_known=False), config=FAST)
    tilt = _joint(pred, "knuckle")
    assert tilt.type == "revolute" and tilt.parent == "upper_arm"
    assert axis_angle(tilt.unit_axis, truth.joint_to("head").unit_axis) < 0.05
    assert line_distance(tilt.origin, tilt.axis, tip, truth.joint_to("head").axis) < 0.005
    assert _joint(pred, "head").type == "fixed" and _joint(pred, "head").parent == "knuckle"
    assert pred.metadata["articulation"]["glued"] == [["knuckle", "head"]]
    assert pred.metadata["articulation"]["parts"]["knuckle"]["piece_of"] == "head"


def test_a_lid_held_in_runners_slides_out_and_a_plain_one_is_hinged() -> None:
    """A sliding lid runs in runners along the box's side walls (a lip over each edge, a stop at the back): every
    way but out of the front meets the box, if only for the sliver under the lips, so it slides out forwards. A
    lid lying on a box is clear upwards all over: hinged. Before the runners both lids lay on plain boxes and
    the sliding one was read as hinged."""
    sliding, hinged = generate("box", 0), generate("box", 2)
    assert sliding.joint_to("lid").type == "prismatic" and hinged.joint_to("lid").type == "revolute"
    lids = {}
    for name, truth in (("sliding", sliding), ("hinged", hinged)):
        lid, true = _joint(articulate(strip_joints(truth), config=FAST), "lid"), truth.joint_to("lid")
        assert lid.type == true.type and axis_angle(lid.unit_axis, true.unit_axis) < 0.05
        lids[name] = lid
    assert lids["sliding"].unit_axis[0] > 0.99 and lids["sliding"].upper > 0.5 * sliding.joint_to("lid").upper


def test_a_drum_carrying_an_off_centre_crank_holds_its_pose(tmp_path: Path) -> None:
    """A part that turns a full turn gets joint friction against the largest gravity torque of what it carries, as
    a tilting arm does: a cut can leave an off-centre piece fixed on a drum (washing machine 1004's, once its
    capped mass no longer drowned the piece's torque), and with the spin preset's 0.02 N·m the drum turned by
    itself at rest. A balanced drum needs none and keeps its preset."""
    body = box([-0.15, -0.2, 0.0], [0.15, 0.2, 0.3])
    drum = cylinder(0.05, 0.02, 32, (0, 1, 0), (0.0, 0.203, 0.1))  # beside the body, axle along Y
    crank = box([-0.005, 0.223, 0.09], [0.075, 0.233, 0.11])  # 8 cm of steel across the drum's face
    steel = get_material("steel")
    parts = [Part("body", body, "body"), Part("drum", drum, "other")]
    pred = articulate(Asset("crank", [*parts, Part("crank", crank, "handle", physical=steel)], joints_known=False),
                      config=FAST)
    turn = _joint(pred, "drum")
    assert turn.type == "continuous" and _joint(pred, "crank").parent == "drum"
    torque = 0.08 * 0.01 * 0.02 * steel.density * 9.81 * 0.035  # the crank's centre is 35 mm off the axis
    assert turn.friction >= 0.9 * FAST.hold_margin * torque > JOINT_PRESETS["spin"]["friction"]
    plain = articulate(Asset("plain", parts, joints_known=False), config=FAST)
    assert _joint(plain, "drum").friction == pytest.approx(JOINT_PRESETS["spin"]["friction"], abs=1e-3)
    _validated(pred, tmp_path)
    # about a vertical axis gravity has no torque however far off the axis the load is (a chair's swivel seat
    # with its back): the preset stays (twice the torque about a horizontal axis left a chair jittering)
    top = cylinder(0.05, 0.02, 32, (0, 0, 1), (0.0, 0.0, 0.303))
    crank = box([-0.005, -0.01, 0.323], [0.075, 0.01, 0.333])
    flat = articulate(Asset("flat", [Part("body", body, "body"), Part("drum", top, "other"),
                                     Part("crank", crank, "handle", physical=steel)], joints_known=False), config=FAST)
    assert _joint(flat, "drum").type == "continuous" and abs(_joint(flat, "drum").unit_axis[2]) > 0.99
    assert _joint(flat, "drum").friction == pytest.approx(JOINT_PRESETS["spin"]["friction"], abs=1e-3)


def test_a_time_budget_holds_the_collision_decomposition_to_what_the_later_steps_leave() -> None:
    """The convex decomposition gets the stage's time budget less the later steps' share per part, within
    [MIN_COLLISION_BUDGET, the physics config's own budget]; no budget leaves the physics settings alone."""
    from seed3d.articulation import LATER_SECONDS_PER_PART, MIN_COLLISION_BUDGET, physics_within
    from seed3d.errors import InvalidInputError
    from seed3d.physics import PhysicsConfig

    own = PhysicsConfig(collision_budget=45.0)
    assert physics_within(ArticulationConfig(physics=own), 50) is own
    assert physics_within(ArticulationConfig(time_budget=500.0, physics=own), 10).collision_budget == 45.0
    tight = physics_within(ArticulationConfig(time_budget=80.0), 20).collision_budget
    assert tight == pytest.approx(80.0 - 20 * LATER_SECONDS_PER_PART, abs=0.05) and tight < 60.0
    assert physics_within(ArticulationConfig(time_budget=5.0), 20).collision_budget == MIN_COLLISION_BUDGET
    unlimited = PhysicsConfig(collision_budget=0.0)  # no asset budget of its own: the time budget gives one
    assert physics_within(ArticulationConfig(time_budget=80.0, physics=unlimited), 20).collision_budget == tight
    for bad in (0.0, -3.0, float("nan")):
        with pytest.raises(InvalidInputError, match="time_budget"):
            ArticulationConfig(time_budget=bad)
