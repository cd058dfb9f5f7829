"""MJCF (MuJoCo) export: ``folder/{name}.xml`` plus ``folder/meshes/`` (OBJ, MTL, PNG), relative paths.

The kinematic tree becomes nested bodies (body ``pos`` = link origin relative to the parent, identity
orientation); the root body has a ``<freejoint/>`` (the object can be dropped). Per body: an explicit
``<inertial pos mass fullinertia>``, one collision geom per convex hull (group 3, ``contype``/``conaffinity``
1, friction from the physical material) and one visual geom (group 2, no collision) with a material built
from the PBR factors and maps (sRGB-encoded ``rgba``, ``metallic``, ``roughness``, base-colour and ORM
texture layers). Joints carry damping, ``frictionloss`` (held stiff by ``solimpfriction``), a small
``armature``, the effort limit as ``actuatorfrcrange`` (what drives may apply, as URDF's ``effort``) and, when
limited, ``range``.
Each child/parent body pair gets a ``<contact><exclude>``. ``compiler angle="radian" inertiafromgeom="false"``
and no ``meshdir`` (file paths already start with ``meshes/``).
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ET
from pathlib import Path

from seed3d.asset import Asset, Part
from seed3d.errors import ExportError
from seed3d.export._common import (
    LinkFiles,
    display_rgba,
    export_folder,
    fnum,
    fvec,
    require_physics,
    write_link_meshes,
)
from seed3d.typed import PathType

logger = logging.getLogger(__name__)

#: Rotor inertia added to every movable joint (kg·m² or kg): steadies light parts, too small to matter.
ARMATURE = 1e-3
#: ``solimpfriction`` of every movable joint. MuJoCo's dry friction is a soft constraint: at its default impedance
#: (0.9-0.95) a light arm that gravity pulls with well under the friction torque still creeps (a desk lamp's arm
#: without its counterweight: 0.39 rad in 1.5 s); at 0.999-0.9999 it holds (0.003 rad) and drives still reach.
FRICTION_IMPEDANCE = "0.999 0.9999 0.001 0.5 2"
#: MuJoCo's torsional and rolling friction coefficients (the sliding one comes from the material).
TORSIONAL_FRICTION, ROLLING_FRICTION = 0.005, 0.0001
_MJ_TYPE = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slide"}


def build_mjcf(asset: Asset, files: dict[str, LinkFiles]) -> str:
    """The MJCF text of ``asset`` given the mesh files written by ``write_link_meshes``."""
    root = ET.Element("mujoco", model=asset.name)
    root.append(ET.Comment(" Exported by Seed3D. Meters, +Z up, front +X; body frames sit at joint origins. "))
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false", autolimits="true")
    assets = ET.SubElement(root, "asset")
    for name in asset.tree_order():
        _assets(assets, asset.part(name), files[name])
    world = ET.SubElement(root, "worldbody")
    bodies: dict[str, ET.Element] = {}
    for name in asset.tree_order():
        joint = asset.joint_to(name)
        parent = world if joint is None else bodies[joint.parent]
        pos = asset.link_origin(name) - (0.0 if joint is None else asset.link_origin(joint.parent))
        body = ET.SubElement(parent, "body", name=name, pos=fvec(pos))
        bodies[name] = body
        if joint is None:
            ET.SubElement(body, "freejoint")
        elif joint.movable:
            attrs = {"name": joint.name, "type": _MJ_TYPE[joint.type], "pos": "0 0 0",
                     "axis": fvec(joint.unit_axis), "damping": fnum(joint.damping),
                     "frictionloss": fnum(joint.friction), "solimpfriction": FRICTION_IMPEDANCE,
                     "armature": fnum(ARMATURE),
                     "actuatorfrclimited": "true", "actuatorfrcrange": f"{fnum(-joint.effort)} {fnum(joint.effort)}"}
            if joint.type == "continuous":
                attrs["limited"] = "false"
            else:
                attrs.update(limited="true", range=f"{fnum(joint.lower)} {fnum(joint.upper)}")
            ET.SubElement(body, "joint", attrs)
        _body_contents(body, asset, asset.part(name), files[name])
    if asset.joints:
        contact = ET.SubElement(root, "contact")
        for name in asset.tree_order():
            joint = asset.joint_to(name)
            if joint is not None:
                ET.SubElement(contact, "exclude", name=f"{joint.parent}__{joint.child}", body1=joint.parent,
                              body2=joint.child)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode") + "\n"


def _assets(assets: ET.Element, part: Part, files: LinkFiles) -> None:
    mat = part.material
    if files.visual:
        # "shell": a visual mesh never adds mass, and an open or flat one has no volume MuJoCo could use.
        ET.SubElement(assets, "mesh", name=f"{part.name}_visual", file=files.visual, inertia="shell")
        attrs = {"name": f"{part.name}_material", "rgba": fvec(display_rgba(mat)),
                 "metallic": fnum(mat.metallic), "roughness": fnum(mat.roughness), "specular": "0.5"}
        layers = []
        if files.base_color_png:
            ET.SubElement(assets, "texture", name=f"{part.name}_base_color", type="2d", file=files.base_color_png,
                          colorspace="sRGB")
            layers.append((f"{part.name}_base_color", "rgb"))
        if files.orm_png:
            ET.SubElement(assets, "texture", name=f"{part.name}_orm", type="2d", file=files.orm_png,
                          colorspace="linear")
            layers.append((f"{part.name}_orm", "orm"))
        material = ET.SubElement(assets, "material", attrs)
        for texture, role in layers:
            ET.SubElement(material, "layer", texture=texture, role=role)
    for k, rel in enumerate(files.collision):
        ET.SubElement(assets, "mesh", name=f"{part.name}_collision_{k:03d}", file=rel)


def _body_contents(body: ET.Element, asset: Asset, part: Part, files: LinkFiles) -> None:
    inertial = part.inertial
    if inertial is None:  # require_physics ran first; this guards direct callers of build_mjcf
        raise ExportError(f"MJCF export: part {part.name!r} has no inertial")
    i = inertial.inertia
    ET.SubElement(body, "inertial", pos=fvec(inertial.com - asset.link_origin(part.name)), mass=fnum(inertial.mass),
                  fullinertia=fvec([i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2]]))
    if files.visual:
        ET.SubElement(body, "geom", name=f"{part.name}_visual", type="mesh", mesh=f"{part.name}_visual",
                      material=f"{part.name}_material", contype="0", conaffinity="0", group="2")
    friction = f"{fnum(part.physical.friction)} {fnum(TORSIONAL_FRICTION)} {fnum(ROLLING_FRICTION)}"
    for k in range(len(files.collision)):
        ET.SubElement(body, "geom", name=f"{part.name}_collision_{k:03d}", type="mesh",
                      mesh=f"{part.name}_collision_{k:03d}", group="3", contype="1", conaffinity="1", condim="3",
                      friction=friction, rgba="0.5 0.5 0.5 0.5")


def export_mjcf(asset: Asset, folder: PathType) -> Path:
    """Write ``folder/{name}.xml`` and ``folder/meshes/`` atomically; returns the XML path.

    Every part needs collision hulls and an inertial (``seed3d.physics.prepare``). An existing ``folder``
    is replaced only when it holds nothing but an earlier MJCF export of this asset.
    """
    folder = Path(folder)
    asset.check_tree()
    require_physics(asset, "MJCF")
    with export_folder(folder, {f"{asset.name}.xml", "meshes"}, f"MJCF export of {asset.name!r}") as tmp:
        files = write_link_meshes(asset, tmp, mjcf=True)
        (tmp / f"{asset.name}.xml").write_text(build_mjcf(asset, files))
    logger.info("wrote %s", folder / f"{asset.name}.xml")
    return folder / f"{asset.name}.xml"
