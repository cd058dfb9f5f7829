"""Parts and joints of a Seed3D ``asset.json`` in Blender's axes, for building the articulated hierarchy.

Seed3D assets are +Z up with their front facing +X; GLB files are glTF (+Y up), with glTF (X, Y, Z) = asset
(y, z, x); Blender's glTF importer turns glTF (x, y, z) into Blender (x, -z, y). So a vector in Blender axes is
asset (y, -x, z): the asset's front faces Blender's -Y, the direction Blender's front view looks from.
Plain Python (no bpy, no numpy) so it is tested without Blender.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import pi, sqrt
from typing import Any

#: Joint types a person can move.
MOVABLE = ("revolute", "prismatic", "continuous")

Vec3 = tuple[float, float, float]


def blender_from_asset(v: Sequence[float]) -> Vec3:
    """A Seed3D asset-frame vector in Blender axes (through the GLB and Blender's glTF importer)."""
    x, y, z = (float(c) for c in v)
    return (y, -x, z)


@dataclass(frozen=True)
class JointInfo:
    """One joint of ``asset.json``; ``origin`` and ``axis`` in asset axes at rest."""

    name: str
    type: str
    parent: str
    child: str
    origin: Vec3
    axis: Vec3
    lower: float
    upper: float

    @property
    def movable(self) -> bool:
        """True for revolute, prismatic and continuous joints."""
        return self.type in MOVABLE

    @property
    def limits(self) -> tuple[float, float]:
        """(lower, upper) in radians or meters; a full turn either way for continuous joints."""
        return (-pi, pi) if self.type == "continuous" else (self.lower, self.upper)

    @property
    def blender_axis(self) -> Vec3:
        """Unit axis in Blender axes."""
        ax = blender_from_asset(self.axis)
        n = sqrt(sum(c * c for c in ax))
        if n < 1e-12:
            raise ValueError(f"joint {self.name!r} has a zero axis")
        return (ax[0] / n, ax[1] / n, ax[2] / n)

    @property
    def blender_origin(self) -> Vec3:
        """Joint origin (the child's pivot) in Blender axes, in the asset's frame."""
        return blender_from_asset(self.origin)


@dataclass(frozen=True)
class AssetInfo:
    """Part names and joints of an asset, checked to form one tree."""

    name: str
    parts: tuple[str, ...]
    joints: tuple[JointInfo, ...]

    @property
    def root(self) -> str:
        """The part that is nobody's child."""
        children = {j.child for j in self.joints}
        return next(p for p in self.parts if p not in children)

    def joint_to(self, part: str) -> JointInfo | None:
        """The joint whose child is ``part`` (None for the root)."""
        return next((j for j in self.joints if j.child == part), None)

    def tree_order(self) -> list[str]:
        """Part names, parents before children."""
        order, stack = [], [self.root]
        while stack:
            name = stack.pop()
            order.append(name)
            stack.extend(j.child for j in reversed(self.joints) if j.parent == name)
        return order

    def pivot(self, part: str) -> Vec3:
        """The part's pivot (its joint origin; the asset origin for the root) in Blender axes."""
        joint = self.joint_to(part)
        return joint.blender_origin if joint else (0.0, 0.0, 0.0)

    def local_offset(self, part: str) -> Vec3:
        """The part's pivot relative to its parent's pivot, in Blender axes (its location under its parent)."""
        joint = self.joint_to(part)
        if joint is None:
            return (0.0, 0.0, 0.0)
        here, there = self.pivot(part), self.pivot(joint.parent)
        return (here[0] - there[0], here[1] - there[1], here[2] - there[2])

    @property
    def movable_joints(self) -> list[JointInfo]:
        """Joints a person can move, in asset order."""
        return [j for j in self.joints if j.movable]


def parse_asset(doc: dict[str, Any]) -> AssetInfo:
    """Read parts and joints from a parsed ``asset.json``; ``ValueError`` when they do not form one tree."""
    try:
        name = str(doc.get("name") or "asset")
        parts = tuple(str(p["name"]) for p in doc.get("parts", []))
        joints = tuple(JointInfo(
            name=str(j["name"]), type=str(j["type"]), parent=str(j["parent"]), child=str(j["child"]),
            origin=_vec3(j.get("origin", (0, 0, 0))), axis=_vec3(j.get("axis", (0, 0, 1))),
            lower=float(j.get("lower", 0.0)), upper=float(j.get("upper", 0.0)),
        ) for j in doc.get("joints", []))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"asset.json is not a Seed3D asset ({type(exc).__name__}: {exc})") from None
    if not parts:
        raise ValueError("asset.json lists no parts")
    known = set(parts)
    if len(known) != len(parts):
        raise ValueError("asset.json repeats a part name")
    children = [j.child for j in joints]
    if len(set(children)) != len(children):
        raise ValueError("asset.json gives a part two parent joints")
    for j in joints:
        if j.parent not in known or j.child not in known:
            raise ValueError(f"joint {j.name!r} links unknown parts {j.parent!r} -> {j.child!r}")
    info = AssetInfo(name, parts, joints)
    roots = [p for p in parts if p not in set(children)]
    if len(roots) != 1 or len(info.tree_order()) != len(parts):
        raise ValueError("asset.json parts and joints do not form one tree")
    return info


_SUFFIX = re.compile(r"^(.*)\.\d{3,}$")


def match_objects(names: Iterable[str], parts: Iterable[str]) -> dict[str, str]:
    """Map part names to object names, allowing Blender's ``.001`` suffixes on name clashes.

    An exact name wins over a suffixed one; a part no object matches is left out.
    """
    parts = set(parts)
    found: dict[str, str] = {}
    for obj in sorted(names):
        if obj in parts:
            found[obj] = obj
    for obj in sorted(names):
        m = _SUFFIX.match(obj)
        if m and m.group(1) in parts and m.group(1) not in found:
            found[m.group(1)] = obj
    return found


def _vec3(v: Any) -> Vec3:
    x, y, z = (float(c) for c in v)
    return (x, y, z)
