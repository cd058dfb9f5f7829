"""Repairs a validation failure calls for before giving up: a part that drifts at rest gets joints that hold it.

``hold_joints(asset, factor)`` raises every movable joint's friction to ``factor`` times the largest gravity load its
moving subtree puts on it (a drawer on a slope, a flap about a level hinge, a seat carrying a heavy back) and its
damping by the same factor, with the effort raised so that a drive still overcomes the new friction. Real mechanisms
hold by friction the same way; the validator's rest checks (``urdf.rest_pybullet``, ``mjcf.rest_mujoco``…) are then
run again by the caller, and the report says what was changed.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from seed3d.asset import Asset, Joint

#: The checks whose failure ``hold_joints`` answers: a link still moving, or a joint drifting, after settling.
DRIFT_CHECKS: tuple[str, ...] = ("rest_pybullet", "rest_mujoco")
#: Friction as a multiple of the gravity load it must hold (the articulation stage's own margin is smaller).
HOLD_FACTOR = 3.0
_G = 9.81


def drifts(failed: list[str]) -> bool:
    """Whether any of the failed checks' names is a rest check ``hold_joints`` answers."""
    return any(name.rsplit(".", 1)[-1] in DRIFT_CHECKS for name in failed)


def _load(asset: Asset, joint: Joint) -> float:
    """The largest gravity force (prismatic, N) or torque (revolute and continuous, N·m) on ``joint`` at rest."""
    inertials = [i for i in (asset.part(n).inertial for n in asset.subtree(joint.child)) if i is not None]
    mass = sum(i.mass for i in inertials)
    if mass <= 0:
        return 0.0
    com = sum(i.mass * np.asarray(i.com, float) for i in inertials) / mass
    axis = np.asarray(joint.axis, float)
    axis = axis / (np.linalg.norm(axis) or 1.0)
    if joint.type == "prismatic":
        return mass * _G * abs(float(axis[2]))
    rel = com - np.asarray(joint.origin, float)
    arm = float(np.linalg.norm(rel - (rel @ axis) * axis))
    return mass * _G * arm * math.sqrt(max(0.0, 1.0 - float(axis[2]) ** 2))


def hold_joints(asset: Asset, factor: float = HOLD_FACTOR) -> tuple[Asset, list[str]]:
    """A copy of ``asset`` whose movable joints hold their parts at rest, and one line per joint changed."""
    joints = []
    changed: list[str] = []
    for j in asset.joints:
        if not j.movable:
            joints.append(j)
            continue
        load = _load(asset, j)
        friction = max(j.friction * factor, factor * load)
        damping = max(j.damping * factor, j.damping)
        effort = max(j.effort, j.effort + friction - j.friction)
        if friction > j.friction * (1 + 1e-6) or damping > j.damping * (1 + 1e-6):
            changed.append(f"{j.name}: friction {j.friction:.3g} -> {friction:.3g}, damping {j.damping:.3g} -> "
                           f"{damping:.3g}")
        joints.append(dataclasses.replace(j, friction=friction, damping=damping, effort=effort))
    out = dataclasses.replace(asset, joints=joints)
    return out, changed


__all__ = ["DRIFT_CHECKS", "HOLD_FACTOR", "drifts", "hold_joints"]
