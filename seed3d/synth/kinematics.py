"""Forward kinematics for assets at rest: pose parts at joint values and measure interference.

Everything in an ``Asset`` is in the asset frame at rest, so moving one joint moves the child's whole
subtree rigidly about the joint's origin and axis.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, joint_motion
from seed3d.synth.primitives import _to_manifold
from seed3d.typed import FloatArray


def posed_meshes(asset: Asset, values: dict[str, float]) -> dict[str, Mesh]:
    """Every part mesh with the named joints set to the given values (others at rest)."""
    world: dict[str, FloatArray] = {}
    for name in asset.tree_order():
        j = asset.joint_to(name)
        if j is None:
            world[name] = np.eye(4)
            continue
        local = joint_motion(j.type, j.axis, j.origin, values.get(j.name, 0.0))
        # the joint's origin is given at rest, so compose: parent motion after this joint's own motion
        world[name] = world[j.parent] @ local
    return {p.name: p.mesh.transformed(world[p.name]) for p in asset.parts}


def joint_test_values(joint: Joint, samples: int = 3) -> list[float]:
    """Joint values worth checking: the limits and points between (quarter turns for continuous joints)."""
    if joint.type == "continuous":
        return [float(v) for v in np.linspace(0.0, 2 * np.pi, 4 * samples, endpoint=False)]
    if joint.type in ("revolute", "prismatic"):
        return [float(v) for v in np.linspace(joint.lower, joint.upper, samples + 2)]
    return [0.0]


def intersection_volume(a: Mesh, b: Mesh) -> float:
    """Volume shared by two closed meshes (0 when they are apart or only touch)."""
    lo = np.maximum(a.bounds[0], b.bounds[0])
    hi = np.minimum(a.bounds[1], b.bounds[1])
    if np.any(hi <= lo):
        return 0.0
    return float((_to_manifold(a) ^ _to_manifold(b)).volume())


def interference(asset: Asset, joint_name: str, value: float, tol: float = 1e-9) -> list[tuple[str, str, float]]:
    """Pairs (moving part, other part, shared volume m³) that overlap when ``joint_name`` is at ``value``.

    The moving side is the joint child's subtree; the other side is every other part of the asset.
    """
    joint = next(j for j in asset.joints if j.name == joint_name)
    meshes = posed_meshes(asset, {joint_name: value})
    moving = set(asset.subtree(joint.child))
    hits = []
    for m in sorted(moving):
        for o in asset.parts:
            if o.name in moving:
                continue
            v = intersection_volume(meshes[m], meshes[o.name])
            if v > tol:
                hits.append((m, o.name, v))
    return hits
