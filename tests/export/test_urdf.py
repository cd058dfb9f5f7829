"""URDF package export, re-read by PyBullet, MuJoCo, trimesh and an XML parser."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pybullet as pb
import pytest
import trimesh

from seed3d.asset import Asset
from seed3d.errors import ExportError
from seed3d.export import urdf as urdf_module
from seed3d.export.urdf import export_urdf, ros_package_name
from seed3d.synth.primitives import demo_cabinet
from tests.export._helpers import QUADRANTS, dominant, folder_bytes, gadget, make_ready, quadrant_cube, ready_cabinet

_PB_TYPES = {"revolute": pb.JOINT_REVOLUTE, "continuous": pb.JOINT_REVOLUTE, "prismatic": pb.JOINT_PRISMATIC,
             "fixed": pb.JOINT_FIXED}


@pytest.fixture(scope="module")
def cabinet() -> Asset:
    return ready_cabinet()


@pytest.fixture(scope="module")
def cabinet_urdf(cabinet: Asset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_urdf(cabinet, tmp_path_factory.mktemp("urdf") / "cabinet", package_xml=True)


@pytest.fixture(scope="module")
def gadget_asset() -> Asset:
    return make_ready(gadget())


@pytest.fixture
def bullet():
    client = pb.connect(pb.DIRECT)
    yield client
    pb.disconnect(client)


def _load(client: int, path: Path) -> int:
    return pb.loadURDF(str(path), flags=pb.URDF_USE_INERTIA_FROM_FILE, physicsClientId=client)


def _world_axis(client: int, body: int, index: int) -> np.ndarray:
    """A joint's axis in the world: PyBullet gives it in the child's inertial frame."""
    axis = pb.getJointInfo(body, index, physicsClientId=client)[13]
    orn = pb.getLinkState(body, index, physicsClientId=client)[1]
    return np.array(pb.getMatrixFromQuaternion(orn)).reshape(3, 3) @ np.array(axis)


@pytest.mark.parametrize("which", ["cabinet", "gadget"])
def test_pybullet_reads_joints(which: str, cabinet: Asset, cabinet_urdf: Path, gadget_asset: Asset,
                               tmp_path: Path, bullet: int) -> None:
    asset = cabinet if which == "cabinet" else gadget_asset
    path = cabinet_urdf if which == "cabinet" else export_urdf(asset, tmp_path / "g")
    body = _load(bullet, path)
    assert pb.getBodyInfo(body, physicsClientId=bullet)[0].decode() == asset.root
    assert pb.getNumJoints(body, physicsClientId=bullet) == len(asset.joints)
    for index in range(len(asset.joints)):
        info = pb.getJointInfo(body, index, physicsClientId=bullet)
        joint = next(j for j in asset.joints if j.name == info[1].decode())
        assert info[12].decode() == joint.child
        assert info[2] == _PB_TYPES[joint.type]
        if not joint.movable:
            continue
        assert info[6] == pytest.approx(joint.damping) and info[7] == pytest.approx(joint.friction)
        assert info[10] == pytest.approx(joint.effort) and info[11] == pytest.approx(joint.velocity)
        if joint.type == "continuous":
            assert info[8] > info[9]  # PyBullet's "no limit": lower > upper
        else:
            assert (info[8], info[9]) == pytest.approx((joint.lower, joint.upper))
        assert np.allclose(_world_axis(bullet, body, index), joint.unit_axis, atol=1e-6)


def test_pybullet_masses_inertia_and_frames(cabinet: Asset, cabinet_urdf: Path, bullet: int) -> None:
    body = _load(bullet, cabinet_urdf)
    links = {-1: cabinet.root} | {i: pb.getJointInfo(body, i, physicsClientId=bullet)[12].decode()
                                  for i in range(pb.getNumJoints(body, physicsClientId=bullet))}
    total = 0.0
    for index, name in links.items():
        part = cabinet.part(name)
        mass, _, diag, local_pos = pb.getDynamicsInfo(body, index, physicsClientId=bullet)[:4]
        assert mass == pytest.approx(part.inertial.mass, rel=1e-9)
        # PyBullet diagonalises the tensor: its principal moments must be ours
        assert np.allclose(sorted(diag), np.linalg.eigvalsh(part.inertial.inertia), rtol=1e-6, atol=1e-12)
        assert np.allclose(local_pos, part.inertial.com - cabinet.link_origin(name), atol=1e-9)
        if index >= 0:  # link frames sit at the joint origins (world, rest pose)
            state = pb.getLinkState(body, index, physicsClientId=bullet)
            assert np.allclose(state[4], cabinet.link_origin(name), atol=1e-9)
            assert np.allclose(state[0], part.inertial.com, atol=1e-9)
        total += mass
    assert total == pytest.approx(sum(p.inertial.mass for p in cabinet.parts))


def test_passive_values_reach_pybullet_and_limits_hold(cabinet: Asset, cabinet_urdf: Path, bullet: int) -> None:
    body = _load(bullet, cabinet_urdf)
    pb.setGravity(0, 0, -9.81, physicsClientId=bullet)
    n = pb.getNumJoints(body, physicsClientId=bullet)
    for i in range(n):
        pb.setJointMotorControl2(body, i, pb.VELOCITY_CONTROL, force=0, physicsClientId=bullet)
    names = {pb.getJointInfo(body, i, physicsClientId=bullet)[1].decode(): i for i in range(n)}
    hinge = cabinet.joint_to("door")
    info = pb.getJointInfo(body, names["door_hinge"], physicsClientId=bullet)
    assert (info[6], info[7]) == pytest.approx((hinge.damping, hinge.friction))
    for link in range(-1, n):
        friction, restitution = (pb.getDynamicsInfo(body, link, physicsClientId=bullet)[i] for i in (1, 5))
        part = cabinet.part(cabinet.root if link < 0 else pb.getJointInfo(body, link, physicsClientId=bullet)[12]
                            .decode())
        assert friction == pytest.approx(part.physical.friction)
        assert restitution == pytest.approx(part.physical.restitution)


def test_mujoco_loads_the_urdf(cabinet: Asset, cabinet_urdf: Path) -> None:
    model = mujoco.MjModel.from_xml_path(str(cabinet_urdf))
    assert {model.body(i).name for i in range(1, model.nbody)} == {p.name for p in cabinet.parts}
    movable = [j for j in cabinet.joints if j.movable]
    assert model.njnt == len(movable)  # MuJoCo welds the URDF root; fixed joints become plain nesting
    for joint in movable:
        mj = model.joint(joint.name)
        assert mj.type[0] == (mujoco.mjtJoint.mjJNT_HINGE if joint.type == "revolute" else mujoco.mjtJoint.mjJNT_SLIDE)
        assert np.allclose(mj.range, [joint.lower, joint.upper])
        assert mj.damping[0] == pytest.approx(joint.damping)
        assert mj.frictionloss[0] == pytest.approx(joint.friction)
    for part in cabinet.parts:
        assert model.body(part.name).mass[0] == pytest.approx(part.inertial.mass)
    visual = [i for i in range(model.ngeom) if model.geom(i).name.endswith("_visual")]
    assert len(visual) == len(cabinet.parts)  # visuals kept (strippath off, meshes found)
    assert model.ngeom == len(cabinet.parts) + sum(len(p.collision) for p in cabinet.parts)


def test_xml_layout(gadget_asset: Asset, tmp_path: Path) -> None:
    asset = gadget_asset
    path = export_urdf(asset, tmp_path / "out")
    assert path == tmp_path / "out" / "gadget.urdf"
    robot = ET.parse(path).getroot()
    assert robot.get("name") == "gadget"
    links = {link.get("name"): link for link in robot.findall("link")}
    assert list(links) == asset.tree_order()
    for part in asset.parts:
        link = links[part.name]
        inertial = link.find("inertial")
        com = np.array(inertial.find("origin").get("xyz").split(), float)
        assert np.allclose(com, part.inertial.com - asset.link_origin(part.name))
        tensor = inertial.find("inertia").attrib
        i = part.inertial.inertia
        assert float(tensor["ixy"]) == pytest.approx(i[0, 1], abs=1e-15)
        assert float(tensor["izz"]) == pytest.approx(i[2, 2])
        collisions = link.findall("collision")
        assert len(collisions) == len(part.collision)
        for k, col in enumerate(collisions):  # hull OBJs are in the link frame, paths relative
            rel = col.find("geometry/mesh").get("filename")
            assert not Path(rel).is_absolute()
            hull = trimesh.load(path.parent / rel, process=False)
            assert np.allclose(hull.vertices + asset.link_origin(part.name), part.collision[k].vertices, atol=1e-8)
        mesh = link.find("visual/geometry/mesh").get("filename")
        assert (path.parent / mesh).is_file()
    joints = {j.get("name"): j for j in robot.findall("joint")}
    spin = joints["wheel_spin"]
    assert spin.get("type") == "continuous"
    assert spin.find("limit").get("lower") is None and spin.find("limit").get("upper") is None
    assert np.allclose(np.array(spin.find("axis").get("xyz").split(), float), [0, 1, 0])
    rail = joints["slider_rail"]
    assert np.allclose(np.array(rail.find("axis").get("xyz").split(), float), np.array([1, 0, 1]) / np.sqrt(2))
    assert float(rail.find("limit").get("lower")) == -0.02
    assert float(rail.find("dynamics").get("damping")) == 2.0
    assert np.allclose(np.array(rail.find("origin").get("xyz").split(), float), [0.15, 0, 0.1])
    # XML escaping: the material name with & and < survives a round trip
    assert links["base"].find("visual/material").get("name") == "base_paint & <gloss>"
    assert "&amp;" in path.read_text()


def test_fixed_joints_have_no_axis_or_limit(cabinet_urdf: Path) -> None:
    joints = {j.get("name"): j for j in ET.parse(cabinet_urdf).getroot().findall("joint")}
    mount = joints["door_handle_mount"]
    assert mount.get("type") == "fixed"
    assert mount.find("axis") is None and mount.find("limit") is None and mount.find("dynamics") is None


def test_textures_sit_beside_the_mtl(cabinet_urdf: Path) -> None:
    meshes = cabinet_urdf.parent / "meshes"
    mtl = (meshes / "door.mtl").read_text()
    assert "map_Kd door_base_color.png" in mtl and (meshes / "door_base_color.png").is_file()
    door = trimesh.load(meshes / "door.obj")
    assert isinstance(door.visual, trimesh.visual.TextureVisuals)
    assert door.visual.material.image is not None and door.visual.material.image.size == (64, 64)
    body = trimesh.load(meshes / "body.obj")
    assert np.allclose(body.visual.material.main_color[:3] / 255, [0.8808, 0.7674, 0.6262], atol=0.01)


def test_pybullet_finds_the_texture(cabinet_urdf: Path, bullet: int) -> None:
    body = _load(bullet, cabinet_urdf)
    shapes = pb.getVisualShapeData(body, flags=pb.VISUAL_SHAPE_DATA_TEXTURE_UNIQUE_IDS, physicsClientId=bullet)
    texture = {s[1]: s[8] for s in shapes}
    names = {-1: "body"} | {i: pb.getJointInfo(body, i, physicsClientId=bullet)[12].decode()
                            for i in range(pb.getNumJoints(body, physicsClientId=bullet))}
    by_name = {names[k]: v for k, v in texture.items()}
    assert by_name["door"] >= 0 and by_name["body"] == -1


def test_pybullet_renders_the_texture_upright(tmp_path: Path, bullet: int) -> None:
    body = _load(bullet, export_urdf(quadrant_cube(), tmp_path / "q"))
    assert body >= 0
    view = pb.computeViewMatrix([2.5, 0, 0.5], [0, 0, 0.5], [0, 0, 1], physicsClientId=bullet)
    proj = pb.computeProjectionMatrixFOV(40, 1, 0.1, 10, physicsClientId=bullet)
    rgb = np.reshape(pb.getCameraImage(64, 64, view, proj, renderer=pb.ER_TINY_RENDERER, lightDirection=[1, 0, 0],
                                       physicsClientId=bullet)[2], (64, 64, 4))
    seen = [dominant(rgb[r, c]) for r, c in ((24, 24), (24, 40), (40, 24), (40, 40))]
    assert seen == list(QUADRANTS)


def test_package_xml(cabinet_urdf: Path) -> None:
    package = ET.parse(cabinet_urdf.parent / "package.xml").getroot()
    assert package.find("name").text == "demo_cabinet"
    assert "package://demo_cabinet/" in cabinet_urdf.read_text()
    assert ros_package_name("Chair-2") == "chair_2" and ros_package_name("3d") == "seed3d_3d"


def test_deterministic(cabinet: Asset, tmp_path: Path) -> None:
    a = folder_bytes(export_urdf(cabinet, tmp_path / "a").parent)
    b = folder_bytes(export_urdf(cabinet, tmp_path / "b").parent)
    assert a == b and "demo_cabinet.urdf" in a and "package.xml" not in a


def test_missing_physics_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"seed3d\.physics\.prepare"):
        export_urdf(demo_cabinet(), tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_crash_mid_export_leaves_nothing(cabinet: Asset, tmp_path: Path, monkeypatch) -> None:
    good = export_urdf(cabinet, tmp_path / "out")
    before = folder_bytes(good.parent)

    def boom(*_args, **_kwargs):
        raise RuntimeError("crash while writing")

    monkeypatch.setattr(urdf_module, "build_urdf", boom)  # meshes are written by then; the URDF is not
    with pytest.raises(RuntimeError):
        export_urdf(cabinet, tmp_path / "new")
    with pytest.raises(RuntimeError):
        export_urdf(cabinet, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert folder_bytes(good.parent) == before


def test_refuses_a_folder_with_foreign_files(cabinet: Asset, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match=r"notes\.txt"):
        export_urdf(cabinet, tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
