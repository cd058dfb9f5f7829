"""Small hand-built assets and shared settings for the articulation tests."""

from __future__ import annotations

import numpy as np

from seed3d.articulation import ArticulationConfig
from seed3d.asset import Asset, Mesh, Part
from seed3d.physics import PhysicsConfig
from seed3d.physics.collision import CollisionConfig
from seed3d.synth.primitives import box, cylinder, lathe, union

#: Single convex hulls for parts without given collision pieces: keeps the tests fast (no CoACD).
FAST = ArticulationConfig(physics=PhysicsConfig(collision=CollisionConfig(use_coacd=False, cache=False)))

FRONT = 0.2
"""The small cabinet's front face (x)."""
DOOR = (FRONT + 0.003, FRONT + 0.021)
"""The door slab's back and front faces (x): a 3 mm gap in front of the body."""


def _star(name: str, parts: list[Part]) -> Asset:
    """An asset whose joints are unknown, as ``strip_joints`` and the segmenter leave them."""
    return Asset(name, parts, joints_known=False)


def small_cabinet(wall: bool = False) -> Asset:
    """A solid body with a door on its front (handle near its +Y edge, so the hinge is on the -Y edge).

    ``wall``: a wall-like slab stands in front of the hinge side (it is part of the body), in the door's swing.
    """
    body = box([-FRONT, -0.25, 0.0], [FRONT, 0.25, 0.6])
    pieces = [body]
    if wall:
        slab = box([DOOR[1] + 0.15, -0.6, 0.05], [DOOR[1] + 0.17, -0.245 + 0.1, 0.55])
        pieces.append(slab)
        body = union(body, slab)
    door = box([DOOR[0], -0.245, 0.05], [DOOR[1], 0.245, 0.55])
    handle = box([DOOR[1], 0.17, 0.25], [DOOR[1] + 0.02, 0.19, 0.35])
    return _star("small_cabinet", [
        Part("body", body, "body", collision=pieces),
        Part("door", door, "door", collision=[door]),
        Part("door_handle", handle, "handle", collision=[handle]),
    ])


def cut_door_cabinet() -> Asset:
    """The small cabinet's body with a thick door (50 mm) cut in two door pieces, as the segmenter can cut one:
    ``door`` (-Y side) and ``door_strip`` (+Y side) carrying the handle. Its back edge swings 4 mm past its outer
    edge's line at first, so ``door`` hinged on its outer (-Y) edge runs into the strip."""
    body = small_cabinet().part("body")
    front = DOOR[0] + 0.05
    big = box([DOOR[0], -0.245, 0.05], [front, 0.12, 0.55])
    strip = box([DOOR[0], 0.12, 0.05], [front, 0.245, 0.55])
    handle = box([front, 0.17, 0.25], [front + 0.02, 0.19, 0.35])
    return _star("cut_door", [body, Part("door", big, "door", collision=[big]),
                              Part("door_strip", strip, "door", collision=[strip]),
                              Part("door_handle", handle, "handle", collision=[handle])])


def spinner() -> Asset:
    """A block with a wheel on its +Y side (axle along Y at z = 0.1) and a round dial on its front (axis X)."""
    body = box([-0.15, -0.2, 0.0], [0.15, 0.2, 0.3])
    wheel = cylinder(0.05, 0.02, 32, (0, 1, 0), (0.0, 0.203, 0.1))
    dial = lathe(np.array([[0, 0], [0.02, 0], [0.02, 0.015], [0.016, 0.02], [0, 0.02]]), 32)
    m = np.eye(4)
    m[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # lathe +Z onto +X
    m[:3, 3] = [0.1515, 0.05, 0.2]
    dial = dial.transformed(m)
    return _star("spinner", [Part("body", body, "body"), Part("wheel", wheel, "wheel"),
                             Part("dial", Mesh(dial.vertices, dial.faces), "knob")])
