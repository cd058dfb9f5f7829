"""seed3d.physics.validate on files no one here made: pybullet_data's objects and robots, odd XML, a zero axis."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pybullet_data
import pytest

from seed3d.cli import main
from seed3d.physics.validate import ValidationConfig, ValidationReport, validate_path

DATA = Path(pybullet_data.getDataPath())
ROBOT = ValidationConfig(robot=True)
DYNAMIC = ("urdf.rest_pybullet", "urdf.interpenetration", "urdf.sweep", "urdf.drive", "urdf.rest_mujoco")


def nan_numbers(report: ValidationReport) -> list[str]:
    """Checks whose message prints a NaN as a measurement ('moved nan mm', 'cannot convert float NaN')."""
    return [c.name for c in report.checks if re.search(r"\bnan\b|float NaN", c.message)]


# --------------------------------------------------------------------------------------------- objects


@pytest.mark.parametrize("name", ["table/table.urdf", "plane.urdf", "duck_vhacd.urdf", "teddy_vhacd.urdf"])
def test_pybullet_data_objects_with_xml_version_0_0_pass_every_check(name: str) -> None:
    report = validate_path(DATA / name)
    assert report.passed, report.summary()
    assert [c.name for c in report.checks if c.status != "pass"] == []  # every check ran, none was skipped
    parse = report.check("urdf.parse")
    assert "version '0.0'" in parse.message and "as PyBullet and MuJoCo read it" in parse.message
    assert not report.robot


@pytest.mark.parametrize("name", ["table/table.urdf", "plane.urdf"])
def test_a_massless_root_is_static_and_says_so(name: str) -> None:
    report = validate_path(DATA / name)
    inertials = report.check("urdf.inertials")
    assert inertials.status == "pass" and inertials.numbers["static_root"] is True
    assert "has mass 0: static" in inertials.message
    assert "static in PyBullet" in report.check("urdf.rest_pybullet").message
    assert "static in MuJoCo" in report.check("urdf.rest_mujoco").message


# --------------------------------------------------------------------------------------------- robots


@pytest.mark.parametrize("name", ["r2d2.urdf", "kuka_iiwa/model.urdf", "cartpole.urdf"])
def test_pybullet_data_robots_pass_as_robots(name: str) -> None:
    report = validate_path(DATA / name, ROBOT)
    assert report.robot and report.passed, report.summary()
    assert any("validated as a robot as asked" in n for n in report.notes)
    assert report.check("urdf.inertials").status == "pass"  # kuka's and cartpole's bases have mass 0
    inter = report.check("urdf.interpenetration")
    assert inter.status == "pass" and inter.numbers["parent_child_skipped"] > 0
    for name_ in ("urdf.rest_pybullet", "urdf.rest_mujoco"):
        rest = report.check(name_)
        assert rest.status == "pass" and "held" in rest.message  # powered: the arm does not fold
        assert rest.numbers["max_joint_drift_rad"] < 0.01
    assert report.check("urdf.sweep").status in ("pass", "warn")


def test_kuka_as_an_object_folds_and_the_report_points_at_robot_mode() -> None:
    report = validate_path(DATA / "kuka_iiwa/model.urdf")
    assert not report.robot and not report.passed
    assert report.check("urdf.inertials").status == "pass"  # a static base either way
    rest = report.check("urdf.rest_pybullet")
    assert rest.status == "fail" and "drifted" in rest.message
    assert any("--robot" in n for n in report.notes)
    inter = report.check("urdf.interpenetration")  # an object's child must not sit inside its parent
    assert inter.status == "fail" and "the part it hangs on" in inter.message


def test_franka_fails_only_where_the_engines_collide_its_links() -> None:
    report = validate_path(DATA / "franka_panda/panda.urdf", ROBOT)
    inertials = report.check("urdf.inertials")  # massless panda_link8 / panda_grasptarget ride on fixed joints
    assert inertials.status == "pass" and inertials.numbers["massless_fixed"] == 2
    assert report.check("urdf.rest_pybullet").numbers["max_joint_drift_rad"] < 0.01  # held, not folding
    inter = report.check("urdf.interpenetration")  # its zero pose: link5 and the hand are not parent and child
    assert inter.status == "fail" and set(inter.numbers["worst_pair"]) == {"panda_link5", "panda_hand"}
    assert inter.numbers["parent_child_skipped"] > 0
    mujoco = report.check("urdf.rest_mujoco")  # MuJoCo collides that pair and pushes the arm
    assert mujoco.status == "fail" and "overlapping" in mujoco.message and "panda_link5" in mujoco.message
    sweep = report.check("urdf.sweep")
    assert sweep.status == "warn" and "planner" in sweep.message and sweep.numbers["self_collisions"] >= 1
    failed = {c.name for c in report.failures}  # its free base rocks ~19 mm in PyBullet: not asserted either way
    assert {"urdf.interpenetration", "urdf.rest_mujoco"} <= failed
    assert not failed & {"urdf.parse", "urdf.inertials", "urdf.joints", "urdf.load_pybullet", "urdf.load_mujoco",
                         "urdf.sweep", "urdf.drive"}


def test_r2d2_continuous_joint_with_limits_is_driven_as_pybullet_limits_it() -> None:
    drive = validate_path(DATA / "r2d2.urdf", ROBOT).check("urdf.drive")
    assert drive.status == "pass" and "'head_swivel' is continuous, but PyBullet enforces" in drive.message


TRANSMISSION = """<transmission name="slider_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="slider_to_cart"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="slider_motor"><mechanicalReduction>1</mechanicalReduction></actuator>
  </transmission>
</robot>"""


def test_declared_transmissions_make_a_robot(tmp_path: Path) -> None:
    plain = validate_path(DATA / "cartpole.urdf")
    assert not plain.robot and plain.check("urdf.interpenetration").status == "fail"  # cart and pole overlap
    path = tmp_path / "cartpole.urdf"
    path.write_text((DATA / "cartpole.urdf").read_text().replace("</robot>", TRANSMISSION))
    report = validate_path(path)
    assert report.robot and report.passed, report.summary()
    assert "1 declared actuated by <transmission>" in report.check("urdf.parse").message
    assert any("declared actuated" in n and "slider_to_cart" in n for n in report.notes)
    assert not validate_path(path, ValidationConfig(robot=False)).robot  # asked for an object: an object


ACTUATED_MJCF = """<mujoco model="arm">
  <worldbody>
    <body name="base" pos="0 0 0.05">
      <geom type="box" size="0.1 0.1 0.05" mass="5"/>
      <body name="upper" pos="0 0 0.05">
        <joint name="shoulder" type="hinge" axis="0 1 0" range="-90 90"/>
        <geom type="capsule" fromto="0 0 0.04 0 0 0.3" size="0.03" mass="1"/>
        <body name="fore" pos="0 0 0.3">
          <joint name="elbow" type="hinge" axis="0 1 0" range="-120 120"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025" mass="0.5"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="shoulder" ctrlrange="-40 40"/>
    <motor joint="elbow" ctrlrange="-20 20"/>
  </actuator>
</mujoco>
"""


def test_mjcf_actuators_make_a_robot_that_holds_its_pose(tmp_path: Path) -> None:
    path = tmp_path / "arm.xml"
    path.write_text(ACTUATED_MJCF)
    report = validate_path(path)
    assert report.robot, report.summary()
    rest = report.check("mjcf.rest_mujoco")  # the forearm sticks out sideways: unpowered, it would drop
    assert rest.status == "pass" and "held" in rest.message and rest.numbers["max_joint_drift_rad"] < 0.01
    inter = report.check("mjcf.interpenetration")  # upper/fore; the base is welded to the world, which MuJoCo
    assert inter.status == "pass" and inter.numbers["parent_child_skipped"] == 1  # collides with its children
    unpowered = validate_path(path, ValidationConfig(robot=False)).check("mjcf.rest_mujoco")
    assert unpowered.status == "fail" and "drifted" in unpowered.message


# --------------------------------------------------------------------------------------------- what cannot be computed


ZERO_AXIS = """<?xml version="1.0"?>
<robot name="lidbox">
  <link name="base_link">
    <inertial><origin xyz="0 0 0.05"/><mass value="2.0"/>
      <inertia ixx="0.01667" ixy="0" ixz="0" iyy="0.02833" iyz="0" izz="0.04167"/></inertial>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.4 0.3 0.1"/></geometry></collision>
  </link>
  <link name="lid">
    <inertial><origin xyz="0.2 0 0.01"/><mass value="0.5"/>
      <inertia ixx="0.00377" ixy="0" ixz="0" iyy="0.00668" iyz="0" izz="0.01042"/></inertial>
    <collision><origin xyz="0.2 0 0.01"/><geometry><box size="0.4 0.3 0.02"/></geometry></collision>
  </link>
  <joint name="lid_hinge" type="revolute">
    <parent link="base_link"/><child link="lid"/><origin xyz="-0.2 0 0.1"/><axis xyz="0 0 0"/>
    <limit lower="0" upper="1.5" effort="10" velocity="2"/>
  </joint>
</robot>
"""


def test_zero_axis_is_reported_and_what_depends_on_it_is_skipped_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "lidbox.urdf"
    path.write_text(ZERO_AXIS)
    report = validate_path(path)
    joints = report.check("urdf.joints")
    assert joints.status == "fail" and "lid_hinge" in joints.message and "zero" in joints.message
    load = report.check("urdf.load_pybullet")  # PyBullet loads it, and puts the lid at NaN
    assert load.status == "pass" and "'lid'" in load.message and "NaN" in load.message
    assert report.check("urdf.load_mujoco").status == "fail"  # MuJoCo refuses it: a verdict it gave
    for name in DYNAMIC:
        check = report.check(name)
        assert check.status == "skip" and check.message.startswith("not run:"), name
    for name in DYNAMIC[:4]:
        assert "joint 'lid_hinge' has a zero axis" in report.check(name).message
    assert nan_numbers(report) == []
    json.loads(report.to_json())


# --------------------------------------------------------------------------------------------- engine verdicts


def test_checks_the_engines_can_run_are_run_when_our_parser_cannot_read_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cartpole.urdf"  # an undefined entity: lxml refuses it, tinyxml2 keeps it as text
    path.write_text((DATA / "cartpole.urdf").read_text().replace('name="physics"', 'name="cart&nbsp;pole"'))
    report = validate_path(path, ROBOT)
    assert report.check("urdf.parse").status == "fail" and "broken XML" in report.check("urdf.parse").message
    assert report.check("urdf.load_pybullet").status == "pass"
    for name in ("urdf.rest_pybullet", "urdf.interpenetration"):  # need only the engine: they ran
        assert report.check(name).status == "pass", report.summary()
    for name in ("urdf.sweep", "urdf.drive", "urdf.rest_mujoco"):  # need the joints as we read them: said so
        check = report.check(name)
        assert check.status == "skip" and "could not be read here" in check.message
    assert not any("does not load" in c.message for c in report.checks)


def test_what_follows_the_root_element_is_ignored_as_the_engines_ignore_it(tmp_path: Path) -> None:
    path = tmp_path / "cartpole.urdf"
    text = (DATA / "cartpole.urdf").read_text()
    path.write_text(text + "\n<robot name='second'/>\n")
    report = validate_path(path, ROBOT)
    assert report.passed, report.summary()
    assert "what follows the root element (from line" in report.check("urdf.parse").message
    broken = tmp_path / "broken.urdf"
    broken.write_text(text + "\n<robot><link></robot>\n")
    parse = validate_path(broken).check("urdf.parse")
    assert parse.status == "fail" and "broken XML" in parse.message


def test_cli_robot_flag(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "cartpole.urdf")
    assert main(["validate", path]) == 1
    capsys.readouterr()
    assert main(["validate", path, "--robot", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["robot"] is True and doc["passed"] is True
    assert ValidationReport.from_dict(doc).robot
