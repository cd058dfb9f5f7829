"""seed3d.physics.validate: every export of the demo cabinet passes; each kind of broken asset fails the right check."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset, Inertial
from seed3d.export import export_asset
from seed3d.physics import prepare
from seed3d.physics.validate import ValidationConfig, ValidationReport, validate_path
from seed3d.synth.primitives import box, demo_cabinet

#: Checks every fully exported asset folder must report.
FOLDER_CHECKS = (
    "asset.load", "asset.meshes", "asset.inertials", "asset.joints", "glb.load",
    "urdf.parse", "urdf.files", "urdf.meshes", "urdf.inertials", "urdf.joints", "urdf.load_pybullet",
    "urdf.load_mujoco", "urdf.rest_pybullet", "urdf.rest_mujoco", "urdf.interpenetration", "urdf.sweep",
    "urdf.drive", "kinematics.urdf",
    "mjcf.parse", "mjcf.files", "mjcf.meshes", "mjcf.inertials", "mjcf.joints", "mjcf.load_mujoco",
    "mjcf.load_pybullet", "mjcf.rest_mujoco", "mjcf.interpenetration", "mjcf.sweep", "mjcf.drive", "kinematics.mjcf",
    "usd.parse", "usd.files", "usd.meshes", "usd.inertials", "usd.joints", "kinematics.usd",
    "usdz.parse", "usdz.files", "usdz.meshes", "usdz.inertials", "usdz.joints", "kinematics.usdz",
)


def exact_cabinet() -> Asset:
    """The demo cabinet with exact box hulls (its walls) and mesh inertials: no decomposition needed."""
    import trimesh

    asset = demo_cabinet()
    width, depth, height, wall, gap = 0.6, 0.45, 0.8, 0.018, 0.003  # demo_cabinet's defaults
    d2, w2, split = depth / 2, width / 2, height * 0.4
    body = [([-d2, -w2, 0], [-d2 + wall, w2, height]), ([-d2, -w2, 0], [d2, -w2 + wall, height]),
            ([-d2, w2 - wall, 0], [d2, w2, height]), ([-d2, -w2, 0], [d2, w2, wall]),
            ([-d2, -w2, height - wall], [d2, w2, height]),
            ([-d2, -w2, split - wall / 2], [d2, w2, split + wall / 2])]
    lo = np.array([-d2 + wall + gap, -w2 + wall + gap, wall + gap])
    hi = np.array([d2 - gap, w2 - wall - gap, split - wall / 2 - gap])
    drawer = [(lo, [hi[0], hi[1], lo[2] + wall]), (lo, [lo[0] + wall, hi[1], hi[2]]),
              ([hi[0] - wall, lo[1], lo[2]], hi), (lo, [hi[0], lo[1] + wall, hi[2]]),
              ([lo[0], hi[1] - wall, lo[2]], hi),
              ([d2 + gap, -w2 + gap, gap], [d2 + gap + wall, w2 - gap, split - gap])]
    for part in asset.parts:
        walls = {"body": body, "drawer": drawer}.get(part.name, [tuple(part.mesh.bounds)])
        part.collision = [box(a, b) for a, b in walls]
        tm = trimesh.Trimesh(part.mesh.vertices, part.mesh.faces, process=True)
        tm.density = part.physical.density
        props = tm.mass_properties
        part.inertial = Inertial(props["mass"], props["center_mass"], props["inertia"], "mesh")
    return asset


def write_folder(asset: Asset, root: Path, formats: tuple[str, ...] = ("glb", "urdf", "mjcf", "usd")) -> Path:
    asset.save(root)
    export_asset(asset, root, formats=formats)
    return root


def failed(report: ValidationReport) -> set[str]:
    return {c.name for c in report.failures}


@pytest.fixture(scope="module")
def exact_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(exact_cabinet(), tmp_path_factory.mktemp("exact") / "demo_cabinet")


@pytest.fixture
def urdf_copy(exact_folder: Path, tmp_path: Path) -> Path:
    """A private copy of the exact cabinet's URDF package to break."""
    shutil.copytree(exact_folder / "urdf", tmp_path / "urdf")
    return tmp_path / "urdf" / "demo_cabinet.urdf"


@pytest.fixture
def mjcf_copy(exact_folder: Path, tmp_path: Path) -> Path:
    shutil.copytree(exact_folder / "mjcf", tmp_path / "mjcf")
    return tmp_path / "mjcf" / "demo_cabinet.xml"


# --------------------------------------------------------------------------------------------- good assets


def test_demo_cabinet_pipeline_passes_every_check(tmp_path: Path) -> None:
    """demo_cabinet() made sim-ready by seed3d.physics.prepare and exported in every format validates."""
    asset = prepare(demo_cabinet())
    root = write_folder(asset, tmp_path / "demo_cabinet")
    report = validate_path(root)
    assert report.passed, report.summary()
    assert {c.name for c in report.checks} >= set(FOLDER_CHECKS)
    assert report.absent == [] and report.present == ["glb", "urdf", "mjcf", "usd", "usdz"]
    assert report.seconds < 20


def test_exact_cabinet_folder_passes_with_numbers(exact_folder: Path) -> None:
    report = validate_path(exact_folder)
    assert report.passed, report.summary()
    names = [c.name for c in report.checks]
    assert set(names) >= set(FOLDER_CHECKS) and len(names) == len(set(names))
    assert report.exit_code == 0
    rest = report.check("urdf.rest_pybullet").numbers
    assert rest["max_displacement_mm"] < 10 and rest["max_joint_drift_rad"] < 0.05 and rest["max_sink_mm"] < 10
    assert report.check("urdf.load_mujoco").numbers["as_is"] is True
    assert report.check("urdf.sweep").numbers["joints"] == 2 and report.check("mjcf.sweep").numbers["joints"] == 2
    assert report.check("urdf.drive").numbers["worst_error_rad"] < 0.03
    assert report.check("urdf.interpenetration").numbers["rigid_pairs_skipped"] == 2
    assert report.check("urdf.meshes").numbers["watertight_required"] == 5  # visual meshes of the 5 parts
    assert report.check("usd.parse").numbers["up_axis"] == "Z"
    assert report.check("kinematics.usd").numbers["joints"] == 4
    assert report.seconds < 15


def test_each_exported_file_validates_alone(exact_folder: Path) -> None:
    for rel, prefix in (("urdf/demo_cabinet.urdf", "urdf"), ("mjcf/demo_cabinet.xml", "mjcf"),
                        ("usd/demo_cabinet.usda", "usd"), ("usd/demo_cabinet.usdz", "usd"),
                        ("demo_cabinet.glb", "glb")):
        report = validate_path(exact_folder / rel)
        assert report.passed, report.summary()
        assert all(c.name.startswith(prefix) for c in report.checks)
        assert not any(c.name.startswith("kinematics") for c in report.checks)


FOREIGN_URDF = """<?xml version="1.0"?>
<robot name="toolbox">
  <material name="red"><color rgba="0.8 0.1 0.1 1"/></material>
  <link name="base_link">
    <inertial><origin xyz="0 0 0.05"/><mass value="2.0"/>
      <inertia ixx="0.01667" ixy="0" ixz="0" iyy="0.02833" iyz="0" izz="0.04167"/></inertial>
    <visual><origin xyz="0 0 0.05"/><geometry><box size="0.4 0.3 0.1"/></geometry><material name="red"/></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.4 0.3 0.1"/></geometry></collision>
  </link>
  <link name="lid">
    <inertial><origin xyz="0.2 0 0.01"/><mass value="0.5"/>
      <inertia ixx="0.00377" ixy="0" ixz="0" iyy="0.00668" iyz="0" izz="0.01042"/></inertial>
    <visual><origin xyz="0.2 0 0.01"/><geometry><box size="0.4 0.3 0.02"/></geometry></visual>
    <collision><origin xyz="0.2 0 0.01"/><geometry><box size="0.4 0.3 0.02"/></geometry></collision>
  </link>
  <link name="wheel">
    <inertial><mass value="0.2"/>
      <inertia ixx="0.000132" ixy="0" ixz="0" iyy="0.00025" iyz="0" izz="0.000132"/></inertial>
    <collision><origin rpy="1.5708 0 0"/><geometry><cylinder radius="0.05" length="0.02"/></geometry></collision>
  </link>
  <link name="antenna">
    <inertial><mass value="0.05"/><inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-6"/></inertial>
    <collision><geometry><sphere radius="0.01"/></geometry></collision>
  </link>
  <joint name="lid_hinge" type="revolute">
    <parent link="base_link"/><child link="lid"/><origin xyz="-0.2 0 0.1"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="1.5" effort="10" velocity="2"/><dynamics damping="0.1" friction="0.05"/>
  </joint>
  <joint name="wheel_axle" type="continuous">
    <parent link="base_link"/><child link="wheel"/><origin xyz="0 0.165 0.08"/><axis xyz="0 1 0"/>
    <limit effort="5" velocity="10"/><dynamics damping="0.01" friction="0.01"/>
  </joint>
  <joint name="antenna_mount" type="fixed">
    <parent link="base_link"/><child link="antenna"/><origin xyz="0.15 -0.16 0.05"/>
  </joint>
</robot>
"""


def test_foreign_urdf_with_primitives_validates(tmp_path: Path) -> None:
    path = tmp_path / "toolbox.urdf"
    path.write_text(FOREIGN_URDF)
    report = validate_path(path)
    assert report.passed, report.summary()
    assert report.kind == "urdf"
    assert report.check("urdf.meshes").numbers["primitives"] == 6
    assert report.check("urdf.files").numbers["referenced"] == 0
    assert report.check("urdf.sweep").numbers["joints"] == 2  # the wheel turns a full circle
    assert report.check("urdf.drive").numbers["joints"] == 2


FOREIGN_MJCF = """<mujoco model="flap">
  <option timestep="0.004"/>
  <worldbody>
    <geom name="ground" type="plane" size="2 2 0.1"/>
    <body name="crate" pos="0 0 0.1">
      <freejoint/>
      <geom type="box" size="0.2 0.15 0.1" mass="2"/>
      <body name="flap" pos="0.2 0 0.1">
        <joint name="flap_hinge" type="hinge" axis="0 -1 0" range="0 80" damping="0.1" frictionloss="0.05"/>
        <geom type="box" pos="0.005 0 -0.05" size="0.004 0.14 0.05" mass="0.2"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_foreign_mjcf_in_degrees_validates(tmp_path: Path) -> None:
    path = tmp_path / "flap.xml"
    path.write_text(FOREIGN_MJCF)
    report = validate_path(path)
    assert report.passed, report.summary()
    assert report.kind == "mjcf"
    drive = report.check("mjcf.drive").numbers
    assert drive["joints"] == 1 and drive["worst_error_rad"] < 0.03  # the 80° range compiled to radians
    assert report.check("mjcf.load_mujoco").numbers["free_bodies"] == 1


def test_missing_formats_are_listed_not_failed(tmp_path: Path) -> None:
    root = write_folder(exact_cabinet(), tmp_path / "cab", formats=("urdf",))
    report = validate_path(root)
    assert report.passed, report.summary()
    assert report.present == ["urdf"] and report.absent == ["glb", "mjcf", "usd", "usdz"]
    assert "formats absent" in report.notes[0] and "mjcf/demo_cabinet.xml" in report.notes[0]
    assert "absent: glb, mjcf, usd, usdz" in report.summary()


# --------------------------------------------------------------------------------------------- broken assets


def test_missing_mesh_file(urdf_copy: Path) -> None:
    (urdf_copy.parent / "meshes" / "door.obj").unlink()
    report = validate_path(urdf_copy)
    assert not report.passed and report.exit_code == 1
    files = report.check("urdf.files")
    assert files.status == "fail" and "meshes/door.obj" in files.message and "'door'" in files.message
    assert files.numbers["missing"] == 1


def test_nan_vertices_in_an_obj(urdf_copy: Path) -> None:
    obj = urdf_copy.parent / "meshes" / "door_collision_000.obj"
    text = obj.read_text()
    obj.write_text(re.sub(r"^v [^\n]*", "v nan 0.1 0.2", text, count=1, flags=re.MULTILINE))
    report = validate_path(urdf_copy)
    meshes = report.check("urdf.meshes")
    assert meshes.status == "fail"
    assert "door_collision_000.obj" in meshes.message and "non-finite" in meshes.message
    assert "'door'" in meshes.message


def test_zero_mass_in_urdf(urdf_copy: Path) -> None:
    text = urdf_copy.read_text()
    door = text.index('<link name="door">')
    start = text.index('<mass value="', door)
    end = text.index('"', start + len('<mass value="'))
    urdf_copy.write_text(text[:start] + '<mass value="0' + text[end:])
    report = validate_path(urdf_copy)
    inertials = report.check("urdf.inertials")
    assert inertials.status == "fail" and "'door'" in inertials.message
    assert re.search(r"mass[^;]*positive[^;]*0\.0", inertials.message)
    assert "urdf.inertials" in failed(report)


def test_broken_xml_is_a_failed_check_not_a_traceback(urdf_copy: Path, mjcf_copy: Path) -> None:
    text = urdf_copy.read_text()
    urdf_copy.write_text(text[: len(text) // 2])
    report = validate_path(urdf_copy)
    parse = report.check("urdf.parse")
    assert parse.status == "fail" and "broken XML" in parse.message and "demo_cabinet.urdf" in parse.message
    assert report.check("urdf.meshes").status == "skip"
    assert report.check("urdf.load_pybullet").status == "fail"
    assert report.check("urdf.rest_pybullet").status == "skip"
    mjcf = mjcf_copy.read_text()
    mjcf_copy.write_text(mjcf.replace("</worldbody>", "</wrldbody>"))
    report = validate_path(mjcf_copy)
    assert report.check("mjcf.parse").status == "fail" and "broken XML" in report.check("mjcf.parse").message
    assert not report.passed


def test_open_mesh_where_the_asset_promises_watertight(tmp_path: Path) -> None:
    asset = exact_cabinet()
    door = asset.part("door")  # split at UV seams: closed only after welding, and that passes elsewhere
    door.mesh = type(door.mesh)(door.mesh.vertices, door.mesh.faces[:-2], door.mesh.uv)  # a hole in one side
    report = validate_path(write_folder(asset, tmp_path / "cab", formats=("urdf", "usd")))
    for name in ("asset.meshes", "urdf.meshes", "usd.meshes"):
        check = report.check(name)
        assert check.status == "fail" and "not watertight" in check.message and "door" in check.message, name
    door.watertight = False  # no promise, no failure
    report = validate_path(write_folder(asset, tmp_path / "cab2", formats=("urdf",)))
    assert report.check("asset.meshes").passed and report.check("urdf.meshes").passed
    assert report.check("urdf.meshes").numbers["open_meshes"] == 1


def test_zero_area_faces_fail_visual_meshes_and_flat_hulls_fail(tmp_path: Path) -> None:
    asset = exact_cabinet()
    handle = asset.part("door_handle")
    hull = handle.collision[0]
    handle.collision = [type(hull)(hull.vertices, np.vstack([hull.faces, [[0, 0, 1]]]))]  # a sliver: allowed
    report = validate_path(write_folder(asset, tmp_path / "ok", formats=("urdf",)))
    assert report.passed, report.summary()
    knob = asset.part("drawer_knob")
    knob.mesh = type(knob.mesh)(knob.mesh.vertices, np.vstack([knob.mesh.faces, [[0, 0, 1]] * 4]))
    flat = knob.collision[0].vertices.copy()
    flat[:, 0] = flat[:, 0].min()  # squashed into a plane
    knob.collision = [type(hull)(flat, knob.collision[0].faces)]
    report = validate_path(write_folder(asset, tmp_path / "bad", formats=("urdf",)))
    meshes = report.check("urdf.meshes")
    assert meshes.status == "fail" and "drawer_knob" in meshes.message
    assert "4 zero-area faces of 16" in meshes.message and "flat" in meshes.message


def test_zero_axis(urdf_copy: Path) -> None:
    urdf_copy.write_text(urdf_copy.read_text().replace('<axis xyz="0 0 -1"', '<axis xyz="0 0 0"'))
    report = validate_path(urdf_copy)
    joints = report.check("urdf.joints")
    assert joints.status == "fail" and "door_hinge" in joints.message and "zero" in joints.message


def test_lower_above_upper(urdf_copy: Path, mjcf_copy: Path) -> None:
    text = urdf_copy.read_text()
    urdf_copy.write_text(re.sub(r'lower="0" upper="1\.9\d*"', 'lower="1" upper="0"', text))
    joints = validate_path(urdf_copy).check("urdf.joints")
    assert joints.status == "fail" and "door_hinge" in joints.message
    assert "lower limit 1 > upper limit 0" in joints.message
    mjcf = mjcf_copy.read_text()
    mjcf_copy.write_text(re.sub(r'range="0 1\.9\d*"', 'range="1 0"', mjcf))
    report = validate_path(mjcf_copy)
    assert report.check("mjcf.joints").status == "fail" and "door_hinge" in report.check("mjcf.joints").message


def test_child_placed_inside_its_parent(tmp_path: Path) -> None:
    asset = exact_cabinet()
    door = asset.part("door")
    shift = np.array([-0.02, 0.0, 0.0])  # 2 cm back: into the side walls' front edges
    door.mesh = door.mesh.translated(shift)
    door.collision = [h.translated(shift) for h in door.collision]
    door.inertial.com = door.inertial.com + shift
    report = validate_path(write_folder(asset, tmp_path / "cab", formats=("urdf", "mjcf")))
    for name in ("urdf.interpenetration", "mjcf.interpenetration"):
        check = report.check(name)
        assert check.status == "fail", report.summary()
        assert set(check.numbers["worst_pair"]) == {"body", "door"}
        assert 10 < check.numbers["worst_depth_mm"] < 25  # the 15 mm of side wall the door now overlaps
        assert "'door'" in check.message and "'body'" in check.message


def test_door_whose_range_drives_it_through_the_body(tmp_path: Path) -> None:
    asset = exact_cabinet()
    hinge = next(j for j in asset.joints if j.name == "door_hinge")
    hinge.axis = -hinge.axis  # opens inward
    report = validate_path(write_folder(asset, tmp_path / "cab", formats=("urdf", "mjcf")))
    # the engines' sweeps and the functional check on asset.json's meshes each find it
    assert failed(report) == {"urdf.sweep", "mjcf.sweep", "functional.free_space"}, report.summary()
    assert report.sound is False and report.functional_passed is False
    for name in ("urdf.sweep", "mjcf.sweep"):
        check = report.check(name)
        assert "door_hinge" in check.message and check.numbers["worst_depth_mm"] > 50
    assert report.check("urdf.interpenetration").passed and report.check("kinematics.urdf").passed


def test_axis_sign_mismatch_between_formats(exact_folder: Path, tmp_path: Path) -> None:
    root = tmp_path / "cab"
    shutil.copytree(exact_folder, root)
    urdf = root / "urdf" / "demo_cabinet.urdf"
    urdf.write_text(urdf.read_text().replace('<axis xyz="0 0 -1"', '<axis xyz="0 0 1"'))
    report = validate_path(root)
    kin = report.check("kinematics.urdf")
    assert kin.status == "fail" and "door_hinge" in kin.message and "180°" in kin.message
    assert report.check("kinematics.mjcf").passed and report.check("kinematics.usd").passed


def test_broken_usd_joint_limits_and_missing_texture(exact_folder: Path, tmp_path: Path) -> None:
    shutil.copytree(exact_folder / "usd", tmp_path / "usd")
    usda = tmp_path / "usd" / "demo_cabinet.usda"
    text = usda.read_text()
    text = re.sub(r"float physics:lowerLimit = 0\b", "float physics:lowerLimit = 200", text, count=1)
    usda.write_text(text)
    next((tmp_path / "usd").rglob("*.png")).unlink()
    report = validate_path(usda)
    joints = report.check("usd.joints")
    assert joints.status == "fail" and "door_hinge" in joints.message and "lower limit 200" in joints.message
    files = report.check("usd.files")
    assert files.status == "fail" and ".png" in files.message


def test_missing_path_and_unknown_extension(tmp_path: Path) -> None:
    report = validate_path(tmp_path / "nothere.urdf")
    assert not report.passed and report.checks[0].name == "input" and "no such file" in report.checks[0].message
    odd = tmp_path / "mesh.stl"
    odd.write_text("solid x\nendsolid x\n")
    report = validate_path(odd)
    assert not report.passed and "unknown extension '.stl'" in report.checks[0].message
    report = validate_path(tmp_path)
    assert not report.passed and "without asset.json" in report.checks[0].message


def test_report_json_round_trips_and_summary_has_a_line_per_check(exact_folder: Path, tmp_path: Path) -> None:
    shutil.copytree(exact_folder / "urdf", tmp_path / "urdf")
    urdf = tmp_path / "urdf" / "demo_cabinet.urdf"
    urdf.write_text(urdf.read_text().replace('<axis xyz="0 0 -1"', '<axis xyz="0 0 0"'))  # NaNs in the numbers
    report = validate_path(urdf)
    text = report.to_json()
    doc = json.loads(text)
    assert doc["passed"] is False and doc["exit_code"] == 1
    again = ValidationReport.from_dict(doc)
    assert again.to_dict() == doc and again.passed == report.passed
    lines = report.summary().splitlines()
    assert lines[0].startswith("FAILED")
    for c in report.checks:
        assert sum(c.name in line and c.message in line for line in lines) == 1
    assert any(line.lstrip().startswith("FAIL  urdf.joints") for line in lines)


def test_engine_output_is_silenced(exact_folder: Path, capfd: pytest.CaptureFixture[str]) -> None:
    validate_path(exact_folder / "urdf" / "demo_cabinet.urdf")
    validate_path(exact_folder / "mjcf" / "demo_cabinet.xml")
    validate_path(exact_folder / "usd" / "demo_cabinet.usda")
    validate_path(exact_folder / "urdf" / "missing.urdf")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_thresholds_come_from_the_config(exact_folder: Path) -> None:
    strict = ValidationConfig(max_rest_displacement=1e-6, rest_seconds=0.2)
    report = validate_path(exact_folder / "urdf" / "demo_cabinet.urdf", strict)
    rest = report.check("urdf.rest_pybullet")
    assert rest.status == "fail" and "moved" in rest.message and rest.numbers["seconds"] == 0.2
    assert math.isfinite(rest.numbers["max_displacement_mm"])
