"""MJCF export, re-read by MuJoCo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pytest
from PIL import Image

from seed3d.asset import Asset
from seed3d.errors import ExportError
from seed3d.export import mjcf as mjcf_module
from seed3d.export.mjcf import ARMATURE, export_mjcf
from seed3d.synth.primitives import demo_cabinet
from tests.export._helpers import (
    QUADRANTS,
    dominant,
    folder_bytes,
    gadget,
    make_ready,
    quadrant_cube,
    ready_cabinet,
    rotation,
)

_MJ_TYPE = {"revolute": mujoco.mjtJoint.mjJNT_HINGE, "continuous": mujoco.mjtJoint.mjJNT_HINGE,
            "prismatic": mujoco.mjtJoint.mjJNT_SLIDE}


@pytest.fixture(scope="module")
def cabinet() -> Asset:
    return ready_cabinet()


@pytest.fixture(scope="module")
def cabinet_xml(cabinet: Asset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_mjcf(cabinet, tmp_path_factory.mktemp("mjcf") / "cabinet")


@pytest.fixture(scope="module")
def gadget_asset() -> Asset:
    return make_ready(gadget())


def _rest(path: Path) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.mark.parametrize("which", ["cabinet", "gadget"])
def test_joints_in_the_world_at_rest(which: str, cabinet: Asset, cabinet_xml: Path, gadget_asset: Asset,
                                     tmp_path: Path) -> None:
    asset = cabinet if which == "cabinet" else gadget_asset
    path = cabinet_xml if which == "cabinet" else export_mjcf(asset, tmp_path / "g")
    model, data = _rest(path)
    movable = [j for j in asset.joints if j.movable]
    assert model.njnt == len(movable) + 1
    free = [i for i in range(model.njnt) if model.jnt_type[i] == mujoco.mjtJoint.mjJNT_FREE]
    assert len(free) == 1 and model.body(model.jnt_bodyid[free[0]]).name == asset.root  # root not welded
    for joint in movable:
        mj = model.joint(joint.name)
        jid = mj.id
        assert model.jnt_type[jid] == _MJ_TYPE[joint.type]
        assert model.body(model.jnt_bodyid[jid]).name == joint.child
        assert np.allclose(data.xaxis[jid], joint.unit_axis, atol=1e-9)
        assert np.allclose(data.xanchor[jid], joint.origin, atol=1e-9)
        assert mj.damping[0] == pytest.approx(joint.damping)
        assert mj.frictionloss[0] == pytest.approx(joint.friction)
        assert 0 < mj.armature[0] <= 0.01 and mj.armature[0] == pytest.approx(ARMATURE)
        assert model.jnt_actfrclimited[jid] and np.allclose(model.jnt_actfrcrange[jid], [-joint.effort, joint.effort])
        if joint.type == "continuous":
            assert not model.jnt_limited[jid]
        else:
            assert model.jnt_limited[jid] and np.allclose(model.jnt_range[jid], [joint.lower, joint.upper])


def test_masses_and_inertia(cabinet: Asset, cabinet_xml: Path) -> None:
    model, data = _rest(cabinet_xml)
    for part in cabinet.parts:
        body = model.body(part.name)
        assert body.mass[0] == pytest.approx(part.inertial.mass, rel=1e-9)
        # MuJoCo stores principal moments; ours must match them, and the world COM must be ours
        assert np.allclose(sorted(body.inertia), np.linalg.eigvalsh(part.inertial.inertia), rtol=1e-6, atol=1e-12)
        assert np.allclose(data.xipos[body.id], part.inertial.com, atol=1e-9)
        assert np.allclose(data.xpos[body.id], cabinet.link_origin(part.name), atol=1e-12)
        assert np.allclose(data.xmat[body.id].reshape(3, 3), np.eye(3))


def test_door_hinge_opens_outward_about_its_axis(cabinet: Asset, cabinet_xml: Path) -> None:
    model, data = _rest(cabinet_xml)
    hinge = cabinet.joint_to("door")
    door, handle = model.body("door").id, model.body("door_handle").id
    handle_rest = data.xpos[handle].copy()
    visual = model.geom("door_visual").id
    centre_rest = data.geom_xpos[visual].copy()
    angle = 1.0
    data.qpos[model.jnt_qposadr[model.joint("door_hinge").id]] = angle
    mujoco.mj_forward(model, data)
    turn = rotation(hinge.unit_axis, angle)
    assert np.allclose(data.xmat[door].reshape(3, 3), turn, atol=1e-9)
    assert np.allclose(data.geom_xpos[visual], turn @ (centre_rest - hinge.origin) + hinge.origin, atol=1e-9)
    assert data.geom_xpos[visual][0] > centre_rest[0] + 0.1  # positive angle swings the door out to +X
    assert np.allclose(data.xpos[handle], turn @ (handle_rest - hinge.origin) + hinge.origin, atol=1e-9)
    # the drawer slides out to +X by the joint value
    data.qpos[model.jnt_qposadr[model.joint("drawer_slide").id]] = 0.2
    mujoco.mj_forward(model, data)
    assert np.allclose(data.xpos[model.body("drawer").id], cabinet.link_origin("drawer") + [0.2, 0, 0])


def test_geoms_visual_and_collision(cabinet: Asset, cabinet_xml: Path) -> None:
    model, _ = _rest(cabinet_xml)
    for part in cabinet.parts:
        body = model.body(part.name).id
        geoms = [i for i in range(model.ngeom) if model.geom_bodyid[i] == body]
        visual = [i for i in geoms if model.geom(i).name == f"{part.name}_visual"]
        collision = [i for i in geoms if model.geom(i).name.startswith(f"{part.name}_collision_")]
        assert len(visual) == 1 and len(collision) == len(part.collision) == len(geoms) - 1
        v = visual[0]
        assert (model.geom_contype[v], model.geom_conaffinity[v], model.geom_group[v]) == (0, 0, 2)
        mat = model.geom_matid[v]
        assert mat >= 0 and model.mat_rgba[mat][3] == pytest.approx(part.material.base_color[3])
        assert model.mat_roughness[mat] == pytest.approx(part.material.roughness)
        assert model.mat_metallic[mat] == pytest.approx(part.material.metallic)
        for c in collision:
            assert model.geom_contype[c] == 1 and model.geom_conaffinity[c] == 1
            assert model.geom_type[c] == mujoco.mjtGeom.mjGEOM_MESH
            assert model.geom_friction[c][0] == pytest.approx(part.physical.friction)
    body_rgb = model.mat_rgba[model.geom_matid[model.geom("body_visual").id]][:3]
    assert np.allclose(body_rgb, [0.8808, 0.7674, 0.6262])  # sRGB encoding of the linear oak colour


def test_door_textures(cabinet: Asset, cabinet_xml: Path) -> None:
    model, _ = _rest(cabinet_xml)
    mat = model.geom_matid[model.geom("door_visual").id]
    rgb = model.mat_texid[mat][mujoco.mjtTextureRole.mjTEXROLE_RGB]
    orm = model.mat_texid[mat][mujoco.mjtTextureRole.mjTEXROLE_ORM]
    assert rgb >= 0 and orm >= 0
    assert (model.tex_width[rgb], model.tex_height[rgb]) == (64, 64)
    src = cabinet.part("door").material.metallic_roughness_map
    packed = np.asarray(Image.open(cabinet_xml.parent / "meshes" / "door_orm.png"))
    assert np.all(packed[..., 0] == 255)  # no occlusion
    assert np.array_equal(packed[..., 1], src[..., 1]) and np.array_equal(packed[..., 2], src[..., 2])


_RENDER = """
import json, sys
import mujoco
model = mujoco.MjModel.from_xml_path(sys.argv[1])
data = mujoco.MjData(model)
mujoco.mj_forward(model, data)
renderer = mujoco.Renderer(model, 64, 64)
camera = mujoco.MjvCamera()
camera.lookat[:] = (0, 0, 0.5)
camera.distance, camera.elevation = 2.0, 0.0
seen = []
for azimuth in (0.0, 90.0, 180.0, 270.0):
    camera.azimuth = azimuth
    renderer.update_scene(data, camera=camera)
    image = renderer.render()
    seen.append([image[r, c].tolist() for r, c in ((24, 24), (24, 40), (40, 24), (40, 40))])
print(json.dumps(seen))
"""


def test_mujoco_renders_the_texture_upright(tmp_path: Path) -> None:
    path = export_mjcf(quadrant_cube(), tmp_path / "q")
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    run = subprocess.run([sys.executable, "-c", _RENDER, str(path)], capture_output=True, text=True, env=env,
                         timeout=120)
    if run.returncode != 0:
        pytest.skip(f"no offscreen OpenGL for MuJoCo here: {run.stderr.strip().splitlines()[-1:]}")
    for side in json.loads(run.stdout):  # every side face shows the image upright, not mirrored
        assert [dominant(np.array(p)) for p in side] == list(QUADRANTS)


def test_parent_child_contacts_excluded(cabinet: Asset, cabinet_xml: Path) -> None:
    model, _ = _rest(cabinet_xml)
    pairs = {(int(s) >> 16, int(s) & 0xFFFF) for s in model.exclude_signature}
    expected = {tuple(sorted((model.body(j.parent).id, model.body(j.child).id))) for j in cabinet.joints}
    assert pairs == expected


def test_xml_header(cabinet_xml: Path) -> None:
    root = ET.parse(cabinet_xml).getroot()
    compiler = root.find("compiler")
    assert compiler.get("angle") == "radian" and compiler.get("inertiafromgeom") == "false"
    assert compiler.get("meshdir") is None
    for mesh in root.iter("mesh"):
        assert mesh.get("file").startswith("meshes/") and (cabinet_xml.parent / mesh.get("file")).is_file()
    top = root.find("worldbody/body")
    assert top.get("name") == "body" and top.find("freejoint") is not None
    for body in root.iter("body"):
        assert body.find("inertial").get("fullinertia") is not None


def test_open_and_flat_visual_meshes_load(tmp_path: Path) -> None:
    from seed3d.asset import Inertial, Joint, Mesh, Part
    from seed3d.synth.primitives import box

    cube = box([0, 0, 0], [1, 1, 1])
    sheet = Mesh([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 3]])
    inertial = Inertial(1.0, [0.5, 0.5, 0.5], np.eye(3) * 0.2)
    parts = [Part("base", cube, collision=[cube], inertial=inertial),
             Part("sheet", sheet, watertight=False, collision=[cube], inertial=inertial)]
    asset = Asset("flat", parts, [Joint("hold", "fixed", "base", "sheet", origin=[0, 0, 1])])
    model, _ = _rest(export_mjcf(asset, tmp_path / "m"))
    assert model.nbody == 3


def test_deterministic(cabinet: Asset, tmp_path: Path) -> None:
    assert folder_bytes(export_mjcf(cabinet, tmp_path / "a").parent) == folder_bytes(
        export_mjcf(cabinet, tmp_path / "b").parent)


def test_errors_and_atomicity(cabinet: Asset, tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ExportError, match=r"prepare"):
        export_mjcf(demo_cabinet(), tmp_path / "raw")
    good = export_mjcf(cabinet, tmp_path / "out")
    before = folder_bytes(good.parent)

    def boom(*_args, **_kwargs):
        raise RuntimeError("crash while writing")

    monkeypatch.setattr(mjcf_module, "build_mjcf", boom)
    with pytest.raises(RuntimeError):
        export_mjcf(cabinet, tmp_path / "out")
    with pytest.raises(RuntimeError):
        export_mjcf(cabinet, tmp_path / "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert folder_bytes(good.parent) == before


def test_unbalanced_arm_holds_where_it_is_put(tmp_path: Path) -> None:
    """A desk lamp without its counterweight: gravity pulls the arm with a fraction of its joint friction, so it
    must stay put. MuJoCo's soft dry friction let it creep 0.39 rad in 1.5 s at the default impedance."""
    from seed3d.physics import prepare
    from seed3d.physics.validate import validate_path
    from seed3d.synth import generate

    lamp = generate("lamp", 1001)
    asset = prepare(Asset(lamp.name, [p for p in lamp.parts if p.name != "counterweight"],
                          [j for j in lamp.joints if j.child != "counterweight"]))
    xml = export_mjcf(asset, tmp_path / "lamp")
    joint = ET.parse(xml).getroot().find(".//joint[@name='lower_arm_hinge']")
    assert joint is not None and joint.get("solimpfriction") == mjcf_module.FRICTION_IMPEDANCE
    report = validate_path(xml)
    rest, drive = report.check("mjcf.rest_mujoco"), report.check("mjcf.drive")
    assert rest.status == "pass", rest.message
    assert drive.status == "pass", drive.message
