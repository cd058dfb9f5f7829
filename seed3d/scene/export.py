"""Scene export: one URDF, one MJCF and one USD file for a whole room, built on the per-object exporters.

Each format's folder holds the objects' own exports under ``objects/{name}/`` (written by
``seed3d.export``; each loads on its own) and one scene file that places them in the room::

    urdf/scene.urdf    link "world"; link "room" (floor and walls: static boxes) fixed to it; every object's
                       links and joints (names prefixed "{object}__", mesh paths "objects/{object}/…"), its root
                       joined to "world" by a ``floating`` joint at its pose (``fixed`` for fixed objects)
    urdf/room.urdf     the room alone (PyBullet: load it with useFixedBase, then each objects/*/*.urdf at its
                       pose from scene.json — PyBullet turns URDF floating joints into fixed ones, MuJoCo and
                       Isaac Sim make them free)
    mjcf/scene.xml     floor and walls as world geoms; each object's body tree (names prefixed) with a
                       ``freejoint`` (none for fixed objects) at its pose; its contact excludes kept
    usd/scene.usda     /World with a PhysicsScene, /World/Room (static colliders) and /World/Objects/{name}
                       referencing ``objects/{name}/{name}.usda`` under a translate + rotateZ; fixed objects get
                       a PhysicsFixedJoint to the world

The room spans x in [-W/2, W/2], y in [-D/2, D/2] with the floor's top at z = 0; walls are ``WALL_THICKNESS``
thick, outside that box, and as high as the room.
"""

from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Scene, atomic_file
from seed3d.errors import ExportError
from seed3d.typed import FloatArray

logger = logging.getLogger(__name__)

WALL_THICKNESS = 0.1
SCENE_FORMATS: tuple[str, ...] = ("urdf", "mjcf", "usd")
_PREFIX_SEP = "__"


def _f(x: float) -> str:
    s = f"{float(x):.9g}"
    return "0" if s in ("-0", "0") else s


def _v(values: Any) -> str:
    return " ".join(_f(v) for v in np.asarray(values, np.float64).ravel())


def room_boxes(size: FloatArray) -> list[tuple[str, FloatArray, FloatArray]]:
    """(name, centre, half extents) of the floor slab and the four walls of a room of ``size``."""
    W, D, H = (float(v) for v in size)
    t = WALL_THICKNESS
    return [
        ("floor", np.array([0.0, 0.0, -t / 2]), np.array([W / 2 + t, D / 2 + t, t / 2])),
        ("wall_north", np.array([0.0, D / 2 + t / 2, H / 2]), np.array([W / 2 + t, t / 2, H / 2])),
        ("wall_south", np.array([0.0, -D / 2 - t / 2, H / 2]), np.array([W / 2 + t, t / 2, H / 2])),
        ("wall_east", np.array([W / 2 + t / 2, 0.0, H / 2]), np.array([t / 2, D / 2, H / 2])),
        ("wall_west", np.array([-W / 2 - t / 2, 0.0, H / 2]), np.array([t / 2, D / 2, H / 2])),
    ]


def yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    """(w, x, y, z) quaternion of a rotation by ``yaw`` about +Z."""
    return (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))


# --------------------------------------------------------------------------------------------- URDF


def _room_link(robot: ET.Element, size: FloatArray, name: str = "room") -> None:
    link = ET.SubElement(robot, "link", name=name)
    for box_name, centre, half in room_boxes(size):
        for kind in ("visual", "collision"):
            el = ET.SubElement(link, kind, name=f"{box_name}_{kind}")
            ET.SubElement(el, "origin", xyz=_v(centre), rpy="0 0 0")
            ET.SubElement(ET.SubElement(el, "geometry"), "box", size=_v(2 * half))
            if kind == "visual":
                mat = ET.SubElement(el, "material", name=f"{box_name}_grey")
                ET.SubElement(mat, "color", rgba="0.82 0.8 0.77 1" if box_name == "floor" else "0.92 0.92 0.9 1")
    contact = ET.SubElement(link, "contact")
    ET.SubElement(contact, "lateral_friction", value="0.8")
    ET.SubElement(contact, "restitution", value="0.1")


def build_room_urdf(size: FloatArray, name: str = "room") -> str:
    """A URDF of the room's static floor and walls (load it with a fixed base)."""
    robot = ET.Element("robot", name=name)
    robot.append(ET.Comment(" Seed3D room: floor top at z = 0, walls outside x in [-W/2, W/2], y in [-D/2, D/2]. "
                            "Static: load with a fixed base. "))
    _room_link(robot, size)
    ET.indent(robot, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(robot, encoding="unicode") + "\n"


def build_scene_urdf(scene: Scene, object_urdfs: dict[str, Path], fixed: set[str], folder: Path) -> str:
    """The one-file URDF of the scene from the objects' own URDFs (paths under ``folder``)."""
    robot = ET.Element("robot", name=scene.name)
    robot.append(ET.Comment(
        " Seed3D scene. Link 'world' is the ground; objects are joined to it by floating joints (free bodies in "
        "MuJoCo and Isaac Sim; PyBullet makes them fixed: load room.urdf and objects/*/*.urdf there). "
        f"Object links are named '<object>{_PREFIX_SEP}<part>'. "))
    discard = "false"
    merged_links: list[ET.Element] = []
    merged_joints: list[ET.Element] = []
    for obj in scene.objects:
        path = object_urdfs[obj.name]
        root = ET.parse(path).getroot()
        rel_dir = path.parent.relative_to(folder).as_posix()
        mj = root.find("mujoco/compiler")
        if mj is not None and mj.get("discardvisual") == "true":
            discard = "true"
        prefix = f"{obj.name}{_PREFIX_SEP}"
        children = {j.find("child").get("link") for j in root.findall("joint")}  # type: ignore[union-attr]
        base = next(lk.get("name") for lk in root.findall("link") if lk.get("name") not in children)
        for link in root.findall("link"):
            link.set("name", prefix + link.get("name", ""))
            for mesh in link.iter("mesh"):
                mesh.set("filename", f"{rel_dir}/{mesh.get('filename')}")
            for mat in link.iter("material"):
                if mat.get("name"):
                    mat.set("name", prefix + mat.get("name", ""))
            for tag in ("visual", "collision"):
                for el in link.findall(tag):
                    if el.get("name"):
                        el.set("name", prefix + el.get("name", ""))
            merged_links.append(link)
        for joint in root.findall("joint"):
            joint.set("name", prefix + joint.get("name", ""))
            for end in ("parent", "child"):
                el = joint.find(end)
                assert el is not None
                el.set("link", prefix + el.get("link", ""))
            merged_joints.append(joint)
        anchor = ET.Element("joint", name=f"{obj.name}{_PREFIX_SEP}anchor",
                            type="fixed" if obj.name in fixed else "floating")
        ET.SubElement(anchor, "parent", link="world")
        ET.SubElement(anchor, "child", link=prefix + str(base))
        ET.SubElement(anchor, "origin", xyz=_v(obj.position), rpy=f"0 0 {_f(obj.yaw)}")
        merged_joints.append(anchor)
    mj = ET.SubElement(robot, "mujoco")
    ET.SubElement(mj, "compiler", strippath="false", discardvisual=discard, fusestatic="false")
    ET.SubElement(robot, "link", name="world")
    _room_link(robot, scene.size)
    fix = ET.SubElement(robot, "joint", name="room_fixed", type="fixed")
    ET.SubElement(fix, "parent", link="world")
    ET.SubElement(fix, "child", link="room")
    ET.SubElement(fix, "origin", xyz="0 0 0", rpy="0 0 0")
    for el in merged_links + merged_joints:
        robot.append(el)
    ET.indent(robot, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(robot, encoding="unicode") + "\n"


# --------------------------------------------------------------------------------------------- MJCF

_MJ_NAME_ATTRS = ("name", "mesh", "material", "texture", "body1", "body2", "joint", "joint1", "joint2", "geom1",
                  "geom2", "childclass", "class")


def build_scene_mjcf(scene: Scene, object_xmls: dict[str, Path], fixed: set[str], folder: Path) -> str:
    """The MJCF of the scene from the objects' own MJCF files (paths under ``folder``)."""
    root = ET.Element("mujoco", model=scene.name)
    root.append(ET.Comment(f" Seed3D scene. Object bodies, geoms, joints and assets are named "
                           f"'<object>{_PREFIX_SEP}<name>'; the room's floor top is at z = 0. "))
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false", autolimits="true")
    ET.SubElement(root, "option", timestep="0.002", gravity="0 0 -9.81")
    assets = ET.SubElement(root, "asset")
    world = ET.SubElement(root, "worldbody")
    ET.SubElement(world, "light", name="sun", directional="true", pos="0 0 5", dir="-0.3 -0.2 -1",
                  diffuse="0.8 0.8 0.8")
    for box_name, centre, half in room_boxes(scene.size):
        ET.SubElement(world, "geom", name=f"room{_PREFIX_SEP}{box_name}", type="box", pos=_v(centre), size=_v(half),
                      rgba="0.82 0.8 0.77 1" if box_name == "floor" else "0.92 0.92 0.9 1", friction="0.8 0.005 0.0001",
                      contype="1", conaffinity="1", group="1")
    contact = ET.SubElement(root, "contact")
    for obj in scene.objects:
        path = object_xmls[obj.name]
        doc = ET.parse(path).getroot()
        rel_dir = path.parent.relative_to(folder).as_posix()
        prefix = f"{obj.name}{_PREFIX_SEP}"
        for el in doc.iter():
            for attr in _MJ_NAME_ATTRS:
                if el.get(attr) is not None:
                    el.set(attr, prefix + el.get(attr, ""))
            if el.get("file") is not None:
                el.set("file", f"{rel_dir}/{el.get('file')}")
        for a in doc.findall("asset/*"):
            assets.append(a)
        for ex in doc.findall("contact/*"):
            contact.append(ex)
        bodies = doc.findall("worldbody/body")
        if len(bodies) != 1:
            raise ExportError(f"{path}: expected one root body, found {len(bodies)}")
        body = bodies[0]
        body.set("pos", _v(np.asarray(obj.position) + np.array([float(v) for v in body.get("pos", "0 0 0").split()])))
        body.set("quat", _v(yaw_quat(obj.yaw)))
        free = body.find("freejoint")
        if free is not None:
            if obj.name in fixed:
                body.remove(free)
            else:
                free.set("name", f"{prefix}free")
        world.append(body)
    if not len(contact):
        root.remove(contact)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


# --------------------------------------------------------------------------------------------- USD


def build_scene_usd(scene: Scene, object_usds: dict[str, Path], fixed: set[str], folder: Path, path: Path) -> None:
    """Write ``path`` (.usda): physics scene, static room colliders and a reference per object."""
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().documentation = f"Seed3D scene {scene.name} (UsdPhysics)"
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    phys = UsdPhysics.Scene.Define(stage, "/World/physicsScene")
    phys.CreateGravityDirectionAttr(Gf.Vec3f(0.0, 0.0, -1.0))
    phys.CreateGravityMagnitudeAttr(9.81)
    UsdGeom.Xform.Define(stage, "/World/Room")
    for box_name, centre, half in room_boxes(scene.size):
        cube = UsdGeom.Cube.Define(stage, f"/World/Room/{box_name}")
        cube.CreateSizeAttr(1.0)
        cube.AddTranslateOp().Set(Gf.Vec3d(*centre.tolist()))
        cube.AddScaleOp().Set(Gf.Vec3f(*(2 * half).tolist()))
        cube.CreateDisplayColorAttr([Gf.Vec3f(0.8, 0.78, 0.75) if box_name == "floor" else Gf.Vec3f(0.9, 0.9, 0.88)])
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    UsdGeom.Xform.Define(stage, "/World/Objects")
    for obj in scene.objects:
        usd_path = object_usds[obj.name]
        rel = "./" + usd_path.relative_to(folder).as_posix()
        prim_path = f"/World/Objects/{_identifier(obj.name)}"
        xf = UsdGeom.Xform.Define(stage, prim_path)
        xf.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*np.asarray(obj.position).tolist()))
        xf.AddRotateZOp().Set(float(math.degrees(obj.yaw)))
        xf.GetPrim().GetReferences().AddReference(rel)
        if obj.name in fixed:
            root_link = _articulation_root(usd_path)
            joint = UsdPhysics.FixedJoint.Define(stage, f"/World/Objects/{_identifier(obj.name)}_anchor")
            joint.CreateBody1Rel().SetTargets([Sdf.Path(f"{prim_path}/{root_link}")])
            joint.CreateLocalPos0Attr(Gf.Vec3f(*np.asarray(obj.position, np.float32).tolist()))
            w, x, y, z = yaw_quat(obj.yaw)
            joint.CreateLocalRot0Attr(Gf.Quatf(w, x, y, z))
            joint.CreateLocalPos1Attr(Gf.Vec3f(0.0, 0.0, 0.0))
            joint.CreateLocalRot1Attr(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
    stage.GetRootLayer().Save()


def _identifier(name: str) -> str:
    import re

    valid = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
    return f"_{valid}" if valid[0].isdigit() else valid


def _articulation_root(usd_path: Path) -> str:
    """Name of the link prim with ``ArticulationRootAPI`` under the default prim of an object's USD file."""
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(str(usd_path))
    default = stage.GetDefaultPrim()
    for prim in default.GetChildren():
        if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
            return prim.GetName()
    raise ExportError(f"{usd_path}: no link with ArticulationRootAPI")


# --------------------------------------------------------------------------------------------- entry point


def export_scene(scene: Scene, root: Path, fixed: set[str] | None = None,
                 formats: tuple[str, ...] = SCENE_FORMATS) -> dict[str, Path]:
    """Write the objects' exports and the scene files under ``root`` (``urdf/``, ``mjcf/``, ``usd/``).

    Every object's asset needs collision hulls and inertials (``seed3d.physics.prepare``). Returns the scene
    file of each format (keys ``urdf``, ``urdf_room``, ``mjcf``, ``usd``).
    """
    from seed3d.export import export_mjcf, export_urdf

    fixed = set(fixed or ())
    root = Path(root)
    out: dict[str, Path] = {}
    if "urdf" in formats:
        folder = root / "urdf"
        urdfs = {o.name: export_urdf(o.asset, folder / "objects" / o.name) for o in scene.objects}
        with atomic_file(folder / "room.urdf") as tmp:
            tmp.write_text(build_room_urdf(scene.size))
        with atomic_file(folder / "scene.urdf") as tmp:
            tmp.write_text(build_scene_urdf(scene, urdfs, fixed, folder))
        out["urdf"], out["urdf_room"] = folder / "scene.urdf", folder / "room.urdf"
    if "mjcf" in formats:
        folder = root / "mjcf"
        xmls = {o.name: export_mjcf(o.asset, folder / "objects" / o.name) for o in scene.objects}
        with atomic_file(folder / "scene.xml") as tmp:
            tmp.write_text(build_scene_mjcf(scene, xmls, fixed, folder))
        out["mjcf"] = folder / "scene.xml"
    if "usd" in formats:
        from seed3d.export.usd import export_usd

        folder = root / "usd"
        usds = {o.name: export_usd(o.asset, folder / "objects" / o.name, usdz=False) for o in scene.objects}
        with atomic_file(folder / "scene.usda") as tmp:
            tmp.unlink()
            build_scene_usd(scene, usds, fixed, folder, tmp.with_suffix(".usda"))
            tmp.with_suffix(".usda").replace(tmp)
        out["usd"] = folder / "scene.usda"
    return out


__all__ = ["SCENE_FORMATS", "WALL_THICKNESS", "build_room_urdf", "build_scene_mjcf", "build_scene_urdf",
           "build_scene_usd", "export_scene", "room_boxes", "yaw_quat"]
