"""URDF package export: ``folder/{name}.urdf`` plus ``folder/meshes/`` (OBJ + MTL + PNG), relative paths.

One link per part (root link = the asset's root part, not fixed to the world), link frames at the joint
origins with identity rotation (joint ``<origin rpy="0 0 0">``). Each link has a visual mesh (OBJ with an
MTL whose textures sit beside it, and a ``<material>`` colour), one ``<collision>`` per convex hull, an
``<inertial>`` (origin = centre of mass in the link frame, the full tensor) and PyBullet's ``<contact>``
friction/restitution. Joints carry ``<axis>``, ``<limit>`` (no lower/upper for continuous joints) and
``<dynamics damping friction>``. A ``<mujoco><compiler>`` block keeps MuJoCo's URDF import from stripping
mesh paths or fusing fixed links, and keeps visual meshes unless one is open or flat (MuJoCo rejects those).

Colours: URDF/MTL viewers do not colour-manage, so the linear base colour is written sRGB-encoded.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

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
    xml_text,
)
from seed3d.typed import PathType

logger = logging.getLogger(__name__)


def ros_package_name(name: str) -> str:
    """A valid ROS package name (lower case letters, digits, '_', starting with a letter) for ``name``."""
    pkg = re.sub(r"[^a-z0-9_]", "_", name.lower())
    return pkg if pkg[:1].isalpha() else f"seed3d_{pkg}"


def build_urdf(asset: Asset, files: dict[str, LinkFiles], package: str | None = None) -> str:
    """The URDF text of ``asset`` given the mesh files written by ``write_link_meshes``."""
    robot = ET.Element("robot", name=asset.name)
    robot.append(ET.Comment(
        f" Exported by Seed3D. Meters, +Z up, front +X; link frames sit at joint origins. Mesh paths are "
        f"relative to this file{_package_note(package)}. "))
    mj = ET.SubElement(robot, "mujoco")
    keep = _visuals_have_volume(asset)
    if not keep:
        logger.info("%s: an open or flat visual mesh; MuJoCo's URDF import will discard visuals", asset.name)
    ET.SubElement(mj, "compiler", strippath="false", discardvisual="false" if keep else "true", fusestatic="false")
    for name in asset.tree_order():
        _link(robot, asset, asset.part(name), files[name])
    for name in asset.tree_order():
        joint = asset.joint_to(name)
        if joint is None:
            continue
        el = ET.SubElement(robot, "joint", name=joint.name, type=joint.type)
        ET.SubElement(el, "parent", link=joint.parent)
        ET.SubElement(el, "child", link=joint.child)
        rel = asset.link_origin(joint.child) - asset.link_origin(joint.parent)
        ET.SubElement(el, "origin", xyz=fvec(rel), rpy="0 0 0")
        if joint.movable:
            ET.SubElement(el, "axis", xyz=fvec(joint.unit_axis))
            limit = {"effort": fnum(joint.effort), "velocity": fnum(joint.velocity)}
            if joint.type != "continuous":
                limit = {"lower": fnum(joint.lower), "upper": fnum(joint.upper), **limit}
            ET.SubElement(el, "limit", limit)
            ET.SubElement(el, "dynamics", damping=fnum(joint.damping), friction=fnum(joint.friction))
    ET.indent(robot, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(robot, encoding="unicode") + "\n"


def _visuals_have_volume(asset: Asset) -> bool:
    """Whether MuJoCo can load every visual mesh as a solid (it rejects open or flat ones)."""
    for part in asset.parts:
        if not len(part.mesh.faces):
            continue
        tri = part.mesh.vertices[part.mesh.faces]
        volume = float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum()) / 6.0
        if not part.watertight or abs(volume) < 1e-12:
            return False
    return True


def _package_note(package: str | None) -> str:
    if package is None:
        return ""
    return (f"; with ROS, this folder is package '{package}' (package.xml beside this file): prefix them with "
            f"package://{package}/ if your tool needs package URIs")


def _link(robot: ET.Element, asset: Asset, part: Part, files: LinkFiles) -> None:
    link = ET.SubElement(robot, "link", name=part.name)
    inertial = part.inertial
    if inertial is None:  # require_physics ran first; this guards direct callers of build_urdf
        raise ExportError(f"URDF export: part {part.name!r} has no inertial")
    el = ET.SubElement(link, "inertial")
    ET.SubElement(el, "origin", xyz=fvec(inertial.com - asset.link_origin(part.name)), rpy="0 0 0")
    ET.SubElement(el, "mass", value=fnum(inertial.mass))
    i = inertial.inertia
    ET.SubElement(el, "inertia", ixx=fnum(i[0, 0]), ixy=fnum(i[0, 1]), ixz=fnum(i[0, 2]), iyy=fnum(i[1, 1]),
                  iyz=fnum(i[1, 2]), izz=fnum(i[2, 2]))
    if files.visual:
        vis = ET.SubElement(link, "visual", name=f"{part.name}_visual")
        ET.SubElement(vis, "origin", xyz="0 0 0", rpy="0 0 0")
        ET.SubElement(ET.SubElement(vis, "geometry"), "mesh", filename=files.visual)
        mat = ET.SubElement(vis, "material", name=xml_text(f"{part.name}_{part.material.name}"))
        ET.SubElement(mat, "color", rgba=fvec(display_rgba(part.material)))
    for k, rel in enumerate(files.collision):
        col = ET.SubElement(link, "collision", name=f"{part.name}_collision_{k:03d}")
        ET.SubElement(col, "origin", xyz="0 0 0", rpy="0 0 0")
        ET.SubElement(ET.SubElement(col, "geometry"), "mesh", filename=rel)
    contact = ET.SubElement(link, "contact")
    ET.SubElement(contact, "lateral_friction", value=fnum(part.physical.friction))
    ET.SubElement(contact, "restitution", value=fnum(part.physical.restitution))


def build_package_xml(asset: Asset, package: str) -> str:
    """A minimal ROS ``package.xml`` (format 3) that makes the export folder a package."""
    root = ET.Element("package", format="3")
    ET.SubElement(root, "name").text = package
    ET.SubElement(root, "version").text = "0.1.0"
    ET.SubElement(root, "description").text = (
        f"Seed3D asset {asset.name}: {asset.name}.urdf with meshes/ (relative paths; use "
        f"package://{package}/meshes/... where package URIs are required).")
    ET.SubElement(root, "maintainer", email="seed3d@example.invalid").text = "Seed3D"
    ET.SubElement(root, "license").text = "Apache-2.0"
    ET.SubElement(root, "buildtool_depend").text = "ament_cmake"
    ET.SubElement(ET.SubElement(root, "export"), "build_type").text = "ament_cmake"
    ET.indent(root, space="  ")
    return '<?xml version="1.0"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def export_urdf(asset: Asset, folder: PathType, package_xml: bool = False) -> Path:
    """Write ``folder/{name}.urdf`` and ``folder/meshes/`` atomically; returns the URDF path.

    Every part needs collision hulls and an inertial (``seed3d.physics.prepare``). An existing ``folder``
    is replaced only when it holds nothing but an earlier URDF export of this asset.
    """
    folder = Path(folder)
    asset.check_tree()
    require_physics(asset, "URDF")
    package = ros_package_name(asset.name) if package_xml else None
    owned = {f"{asset.name}.urdf", "meshes", "package.xml"}
    with export_folder(folder, owned, f"URDF export of {asset.name!r}") as tmp:
        files = write_link_meshes(asset, tmp)
        if package is not None:
            (tmp / "package.xml").write_text(build_package_xml(asset, package))
        (tmp / f"{asset.name}.urdf").write_text(build_urdf(asset, files, package))
    logger.info("wrote %s", folder / f"{asset.name}.urdf")
    return folder / f"{asset.name}.urdf"
