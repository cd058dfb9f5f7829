"""Place a plan's objects in its room: collision-free, inside, supported, against walls, relations, navigable.

What the solver knows of an object is an ``ObjectGeometry`` in its asset frame (front +X, origin at the centre
of the bottom): one box per part (the part mesh's bounds), the boxes its openable parts (doors, drawers, lids,
screens) sweep through their whole joint range (``seed3d.synth.kinematics.posed_meshes`` at sampled joint
values: their clearance footprint), and its support surface (the highest large up-facing face cluster, as a
convex polygon). A pose is (x, y, z, yaw) in the room frame (floor centred on the origin, see
``seed3d.scene.plan``).

Hard constraints (every candidate pose is tested against them, vectorised over candidates):

- no two objects collide: oriented boxes (2-D separating axes + z intervals) with ``clearance`` between them;
  first the objects' overall boxes, then, for pairs whose overall boxes meet, their part boxes (a chair's
  seat may go under a table's top); a supported object only touches its support;
- everything is inside the room: part boxes and swept boxes within the walls (a door frame's own leaf is
  allowed to swing past its wall), under the ceiling;
- supported objects rest on the support surface of their supporter, their footprint inside it and over no hole
  in it (a sink let into a worktop: ``SupportHoles``);
- wall objects stand with their back ``wall_gap`` from a wall, facing into the room; what is screwed to a wall
  (``seed3d.scene.plan.WALL_MOUNTED``: a clock, a light switch, a window) hangs so, at its mount height
  (``seed3d.scene.plan.mount_height``), above whatever stands there (the z intervals keep them apart); what hangs
  from the ceiling (``seed3d.scene.plan.CEILING_MOUNTED``: a pendant lamp) is placed as a floor object is, its top
  at the ceiling; what hangs ``over`` an object gets the pose right above the target's centre among its
  candidates (on a wall: on the target's wall, centred on it), and a wall-mounted one hangs higher where the
  target's top calls for it (``mount_height``'s ``over``);
- openable parts sweep clear of every other object (sweeps of two objects may overlap: doors are not all
  opened at once);
- relations hold (``on``, ``under``, ``against_wall`` by construction; the rest by predicate);
- the free floor is one connected region for a robot of radius ``robot_radius`` (occupancy grid of
  ``nav_cell``; what hangs above ``robot_height`` is no obstacle) and the front of every object with openable
  parts is reachable from it.

Search: objects are ordered (wall and big objects first, then what hangs on walls; supporters before what they
carry, relation targets before subjects); each gets candidate poses on a discretised floor plan (wall slots, a
grid, its supporter's surface, slots beside its row neighbour) pruned by every hard constraint against what is
placed, scored by soft preferences and tried best first with chronological backtracking (at most ``tries`` per
object); after each placement the next wall objects must still have a free slot (forward checking), else the
placement is undone at once. Then a continuous refinement nudges objects by a few centimetres while that
improves the soft score. If nothing satisfies every relation, a second pass makes the relations other than
on/under/against_wall soft (reported in ``Layout.unmet``), and a third drops navigability (reported too).
Everything is deterministic for a seed; ``time_budget`` bounds the run. Requests that cannot fit (floor area,
wall length, object larger than the room) fail before the search with a ``LayoutError`` saying what did not fit.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.errors import InvalidInputError
from seed3d.typed import FloatArray, ProgressCallback

logger = logging.getLogger(__name__)

#: Part labels whose joints count as "opening" (their sweep must stay clear).
OPENING_LABELS: tuple[str, ...] = ("door", "drawer", "lid", "screen")
#: Categories whose own sweep may pass their wall (a door in a frame stands in the wall it opens from).
WALL_SWEEP_EXEMPT: tuple[str, ...] = ("door",)

#: Relation thresholds shared with ``seed3d.scene.checks`` (meters, radians).
NEXT_TO_GAP = 0.5
FACING_ANGLE = math.radians(30.0)
FRONT_DISTANCE = 1.5
SIDE_DISTANCE = 1.5
CENTRE_RADIUS = 0.3
ROW_OFFSET = 0.1
ROW_GAP = 0.5
ROW_YAW = math.radians(5.0)
#: ``over``: the hung object's footprint centre lies within this (m) of the target's in plan (on a wall: along
#: the wall; its back within ``OVER_BACK`` of the target's and turned as the target within ``OVER_YAW``).
OVER_OFFSET = 0.1
OVER_BACK = 0.05
OVER_YAW = math.radians(5.0)


class LayoutError(InvalidInputError):
    """The objects cannot be laid out in the room; the message says what did not fit and why.

    ``objects`` names the instances the failure is down to (instance → why), when it is down to some: an object
    taller or larger than the room, one that does not fit on its support, the one the search found no place
    for. Empty when the request as a whole cannot fit (floor area, wall length)."""

    def __init__(self, message: str, objects: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.objects: dict[str, str] = dict(objects or {})


# --------------------------------------------------------------------------------------------- geometry


@dataclass
class ObjectGeometry:
    """An object as the solver sees it, in its asset frame (see the module doc)."""

    boxes: FloatArray
    """(B, 2, 3) min/max corners of each part's box."""
    sweeps: FloatArray = field(default_factory=lambda: np.zeros((0, 2, 3)))
    """(S, 2, 3) boxes the openable parts pass through over their joint ranges."""
    support: FloatArray | None = None
    """(P, 2) convex polygon (counter-clockwise) of the top surface things can stand on, or None."""
    support_z: float = 0.0
    """Height of that surface above the object's origin."""
    openable: int = 0
    """Number of openable joints."""
    sweep_walls: bool = True
    """Whether the sweep must stay inside the walls (False for door frames)."""
    footprints: list[FloatArray] = field(default_factory=list)
    """Per part, the counter-clockwise 2-D convex hull of its mesh (asset xy): what the navigation grid blocks.
    Empty: the part boxes' footprints are used."""
    support_holes: SupportHoles | None = None
    """Where the support polygon has no surface (a sink let into a worktop), or None when it is solid."""

    def __post_init__(self) -> None:
        self.boxes = np.asarray(self.boxes, np.float64).reshape(-1, 2, 3)
        self.sweeps = np.asarray(self.sweeps, np.float64).reshape(-1, 2, 3)
        if not len(self.boxes):
            raise InvalidInputError("an object geometry needs at least one box")
        if not self.footprints:
            b = self.boxes
            self.footprints = [np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
                               for lo, hi in zip(b[:, 0], b[:, 1], strict=True)]

    @property
    def bounds(self) -> FloatArray:
        """(2, 3) bounds of the part boxes."""
        return np.stack([self.boxes[:, 0].min(axis=0), self.boxes[:, 1].max(axis=0)])

    @property
    def extent(self) -> FloatArray:
        """(3,) size of the bounds."""
        b = self.bounds
        return b[1] - b[0]

    @property
    def footprint_area(self) -> float:
        """Area (m²) of the bounds' footprint."""
        e = self.extent
        return float(e[0] * e[1])

    @property
    def sweep_bounds(self) -> FloatArray:
        """(2, 3) bounds of boxes and sweeps together."""
        allb = np.concatenate([self.boxes, self.sweeps]) if len(self.sweeps) else self.boxes
        return np.stack([allb[:, 0].min(axis=0), allb[:, 1].max(axis=0)])

    @classmethod
    def box(cls, size: tuple[float, float, float], support: bool = True,
            sweeps: list[tuple[tuple[float, float, float], tuple[float, float, float]]] | None = None
            ) -> ObjectGeometry:
        """A solid box of ``size`` (depth X, width Y, height Z) standing on its origin (tests, quick plans)."""
        dx, dy, dz = (float(v) for v in size)
        boxes = np.array([[[-dx / 2, -dy / 2, 0.0], [dx / 2, dy / 2, dz]]])
        poly = np.array([[-dx / 2, -dy / 2], [dx / 2, -dy / 2], [dx / 2, dy / 2], [-dx / 2, dy / 2]])
        sw = np.array(sweeps, np.float64).reshape(-1, 2, 3) if sweeps else np.zeros((0, 2, 3))
        return cls(boxes, sw, poly if support else None, dz, len(sw))

    @classmethod
    def from_asset(cls, asset: Any, samples: int = 7, opening_labels: tuple[str, ...] = OPENING_LABELS
                   ) -> ObjectGeometry:
        """Boxes of every part, swept boxes of openable joints, and the support surface of an ``Asset``."""
        from scipy.spatial import ConvexHull, QhullError

        from seed3d.synth.kinematics import posed_meshes

        boxes, footprints = [], []
        for p in asset.parts:
            if not len(p.mesh.faces):
                continue
            b = p.mesh.bounds.copy()
            thin = b[1] - b[0] < 0.002
            b[0, thin] -= 0.001
            b[1, thin] += 0.001
            boxes.append(b)
            xy = np.unique(np.round(p.mesh.vertices[:, :2], 6), axis=0)
            try:
                footprints.append(xy[ConvexHull(xy).vertices])
            except (QhullError, ValueError):  # flat in xy: its box stands in
                footprints.append(np.array([[b[0, 0], b[0, 1]], [b[1, 0], b[0, 1]], [b[1, 0], b[1, 1]],
                                            [b[0, 0], b[1, 1]]]))
        sweeps = []
        openable = 0
        for j in asset.joints:
            if j.type not in ("revolute", "prismatic") or not j.upper > j.lower:
                continue
            if asset.part(j.child).label not in opening_labels:
                continue
            openable += 1
            moving = asset.subtree(j.child)
            values = np.linspace(j.lower, j.upper, 2 if j.type == "prismatic" else max(3, samples))
            for v in values:
                meshes = posed_meshes(asset, {j.name: float(v)})
                pts = np.concatenate([meshes[n].vertices for n in moving if len(meshes[n].vertices)])
                sweeps.append(np.stack([pts.min(axis=0), pts.max(axis=0)]))
            if j.type == "prismatic":  # a straight slide: one box from rest to full travel
                sweeps[-2:] = [np.stack([np.minimum(sweeps[-2][0], sweeps[-1][0]),
                                         np.maximum(sweeps[-2][1], sweeps[-1][1])])]
        support, support_z, tris = _support_cluster(asset)
        holes = SupportHoles.find(support, tris) if support is not None else None
        category = str(asset.metadata.get("category", ""))
        return cls(np.array(boxes), np.array(sweeps).reshape(-1, 2, 3), support, support_z, openable,
                   sweep_walls=category not in WALL_SWEEP_EXEMPT, footprints=footprints, support_holes=holes)


@dataclass
class SupportHoles:
    """The holes of a support surface (a sink let into a worktop) on a raster in asset xy: ``hole[i, j]`` is cell
    (i, j) from ``origin`` at ``cell`` meters. Only holes of at least ``MIN_HOLE`` m² count (gaps between the
    boards of a top are closed first), so that what stands on the top does not stand over one."""

    origin: FloatArray
    cell: float
    hole: FloatArray

    #: Smallest hole (m²) that counts; gaps narrower than ``CLOSE`` (m) between surface pieces are not holes.
    MIN_HOLE = 0.0025
    CLOSE = 0.04

    @classmethod
    def find(cls, poly: FloatArray, tris: FloatArray, cell: float = 0.01) -> SupportHoles | None:
        """The holes of the surface made of triangles ``tris`` (T, 3, ≥2) inside its convex hull ``poly``, or
        None when it has none."""
        from PIL import Image, ImageDraw
        from scipy import ndimage

        pad = 3
        origin = poly.min(axis=0) - pad * cell
        n = np.ceil((poly.max(axis=0) - origin) / cell).astype(int) + pad + 1

        def raster(polys: Any) -> FloatArray:
            img = Image.new("1", (int(n[0]), int(n[1])), 0)
            draw = ImageDraw.Draw(img)
            for q in polys:
                draw.polygon([(float(u), float(v)) for u, v in (np.asarray(q)[:, :2] - origin) / cell - 0.5],
                             fill=1)
            return np.asarray(img, bool).T

        k = max(1, round(cls.CLOSE / cell / 2))
        solid = ndimage.binary_closing(raster(tris), np.ones((2 * k + 1, 2 * k + 1), bool))
        inside = ndimage.binary_erosion(raster([poly]), np.ones((3, 3), bool))
        labels, count = ndimage.label(inside & ~solid)
        if not count:
            return None
        sizes = np.bincount(labels.ravel())[1:] * cell * cell
        big = np.nonzero(sizes >= cls.MIN_HOLE)[0] + 1
        if not len(big):
            return None
        return cls(origin, cell, np.isin(labels, big))

    def over(self, pts: FloatArray) -> FloatArray:
        """Whether each asset-xy point (…, 2) lies over a hole."""
        idx = np.floor((np.asarray(pts) - self.origin) / self.cell).astype(np.int64)
        nx, ny = self.hole.shape
        ok = (idx[..., 0] >= 0) & (idx[..., 0] < nx) & (idx[..., 1] >= 0) & (idx[..., 1] < ny)
        out = np.zeros(idx.shape[:-1], bool)
        out[ok] = self.hole[idx[..., 0][ok], idx[..., 1][ok]]
        return out


def support_surface(asset: Any, min_area: float = 0.01) -> tuple[FloatArray | None, float]:
    """The highest up-facing face cluster with at least half the area of the largest one (its 2-D convex hull
    in asset xy, counter-clockwise, and its height), or (None, 0) when nothing flat is big enough."""
    poly, z, _ = _support_cluster(asset, min_area)
    return poly, z


def _support_cluster(asset: Any, min_area: float = 0.01) -> tuple[FloatArray | None, float, FloatArray]:
    """``support_surface`` and the cluster's triangles (T, 3, 3)."""
    from scipy.spatial import ConvexHull, QhullError

    none = np.zeros((0, 3, 3))
    zs, areas, pts = [], [], []
    for p in asset.parts:
        m = p.mesh
        if not len(m.faces):
            continue
        tri = m.vertices[m.faces]
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        area = 0.5 * np.linalg.norm(n, axis=1)
        up = (n[:, 2] > 0.98 * 2 * area) & (area > 0)
        if not up.any():
            continue
        zs.append(tri[up, :, 2].mean(axis=1))
        areas.append(area[up])
        pts.append(tri[up])
    if not zs:
        return None, 0.0, none
    z = np.concatenate(zs)
    a = np.concatenate(areas)
    tris = np.concatenate(pts)
    level = np.round(z / 0.01).astype(np.int64)
    levels, inv = np.unique(level, return_inverse=True)
    per = np.bincount(inv, weights=a)
    if per.max() < min_area:
        return None, 0.0, none
    ok = np.nonzero(per >= max(0.5 * per.max(), min_area))[0]
    best = ok[np.argmax(levels[ok])]
    sel = tris[inv == best]
    xy = sel[:, :, :2].reshape(-1, 2)
    try:
        hull = ConvexHull(xy)
    except QhullError:
        return None, 0.0, none
    poly = xy[hull.vertices]
    return poly, float(sel[:, :, 2].max()), sel


# --------------------------------------------------------------------------------------------- box maths


def _rot(yaw: FloatArray | float) -> tuple[FloatArray, FloatArray]:
    return np.cos(yaw), np.sin(yaw)


def world_boxes(boxes: FloatArray, x: FloatArray, y: FloatArray, z: FloatArray, yaw: FloatArray
                ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Oriented boxes of asset-frame ``boxes`` (B, 2, 3) at poses (C,): centres (C, B, 2), half sizes (B, 2),
    z intervals (C, B, 2)."""
    x, y, z, yaw = (np.atleast_1d(np.asarray(v, np.float64)) for v in (x, y, z, yaw))
    mid = (boxes[:, 0] + boxes[:, 1]) / 2
    half = (boxes[:, 1, :2] - boxes[:, 0, :2]) / 2
    c, s = _rot(yaw)
    cx = x[:, None] + c[:, None] * mid[None, :, 0] - s[:, None] * mid[None, :, 1]
    cy = y[:, None] + s[:, None] * mid[None, :, 0] + c[:, None] * mid[None, :, 1]
    zz = np.stack([z[:, None] + boxes[None, :, 0, 2], z[:, None] + boxes[None, :, 1, 2]], axis=-1)
    return np.stack([cx, cy], axis=-1), half, zz


def obb_overlap(c1: FloatArray, h1: FloatArray, a1: FloatArray, z1: FloatArray,
                c2: FloatArray, h2: FloatArray, a2: FloatArray, z2: FloatArray, margin: float = 0.0) -> FloatArray:
    """Whether oriented boxes overlap (broadcast over leading axes): xy closer than ``margin`` by the separating
    axis test and z intervals overlapping by more than 0.1 mm (boxes that only touch do not overlap)."""
    u1 = np.stack([np.cos(a1), np.sin(a1)], axis=-1)
    v1 = np.stack([-np.sin(a1), np.cos(a1)], axis=-1)
    u2 = np.stack([np.cos(a2), np.sin(a2)], axis=-1)
    v2 = np.stack([-np.sin(a2), np.cos(a2)], axis=-1)
    d = c2 - c1
    separated = np.zeros(np.broadcast_shapes(d.shape[:-1], h1.shape[:-1], h2.shape[:-1]), bool)
    for axis in (u1, v1, u2, v2):
        r1 = h1[..., 0] * np.abs(np.sum(u1 * axis, -1)) + h1[..., 1] * np.abs(np.sum(v1 * axis, -1))
        r2 = h2[..., 0] * np.abs(np.sum(u2 * axis, -1)) + h2[..., 1] * np.abs(np.sum(v2 * axis, -1))
        separated |= np.abs(np.sum(d * axis, -1)) >= r1 + r2 + margin
    zover = np.minimum(z1[..., 1], z2[..., 1]) - np.maximum(z1[..., 0], z2[..., 0]) > 1e-4
    return ~separated & zover


def obb_gap(c1: FloatArray, h1: FloatArray, a1: FloatArray, c2: FloatArray, h2: FloatArray, a2: FloatArray
            ) -> FloatArray:
    """A lower bound of the xy distance between oriented rectangles (the largest separating-axis gap; ≤ 0
    when they overlap). Exact when the closest features are face to face."""
    u1 = np.stack([np.cos(a1), np.sin(a1)], axis=-1)
    v1 = np.stack([-np.sin(a1), np.cos(a1)], axis=-1)
    u2 = np.stack([np.cos(a2), np.sin(a2)], axis=-1)
    v2 = np.stack([-np.sin(a2), np.cos(a2)], axis=-1)
    d = c2 - c1
    gaps = []
    for axis in (u1, v1, u2, v2):
        r1 = h1[..., 0] * np.abs(np.sum(u1 * axis, -1)) + h1[..., 1] * np.abs(np.sum(v1 * axis, -1))
        r2 = h2[..., 0] * np.abs(np.sum(u2 * axis, -1)) + h2[..., 1] * np.abs(np.sum(v2 * axis, -1))
        gaps.append(np.abs(np.sum(d * axis, -1)) - r1 - r2)
    return np.max(np.stack(gaps), axis=0)


def _corners(c: FloatArray, h: FloatArray, a: FloatArray) -> FloatArray:
    """(…, 4, 2) corners of oriented rectangles."""
    cs, sn = np.cos(a)[..., None], np.sin(a)[..., None]
    signs = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]], np.float64)
    lx = signs[:, 0] * h[..., 0:1]
    ly = signs[:, 1] * h[..., 1:2]
    return np.stack([c[..., 0:1] + cs * lx - sn * ly, c[..., 1:2] + sn * lx + cs * ly], axis=-1)


def _in_convex(points: FloatArray, poly: FloatArray, margin: float = 0.0) -> FloatArray:
    """Whether points (…, 2) lie inside a counter-clockwise convex polygon (P, 2), ``margin`` inside its edges."""
    a = poly
    b = np.roll(poly, -1, axis=0)
    e = b - a
    length = np.maximum(np.linalg.norm(e, axis=1), 1e-12)
    rel = points[..., None, :] - a
    cross = (e[:, 0] * rel[..., 1] - e[:, 1] * rel[..., 0]) / length
    return np.all(cross >= margin, axis=-1)


def _wrap(a: FloatArray | float) -> FloatArray:
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


# --------------------------------------------------------------------------------------------- layout types


@dataclass
class Placement:
    """Where one object stands: room-frame position of its origin and yaw about +Z."""

    name: str
    x: float
    y: float
    z: float
    yaw: float
    support: str | None = None
    wall: str | None = None

    @property
    def position(self) -> FloatArray:
        """(3,) position."""
        return np.array([self.x, self.y, self.z])

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "position": [round(self.x, 5), round(self.y, 5), round(self.z, 5)],
                "yaw": round(self.yaw, 6), "support": self.support, "wall": self.wall}


@dataclass
class Layout:
    """The solver's answer: a placement per object and what it could not satisfy."""

    room_size: tuple[float, float, float]
    placements: dict[str, Placement]
    unmet: list[str] = field(default_factory=list)
    """Soft constraints (and relaxed relations) the layout does not meet, one readable line each."""
    relaxed: list[str] = field(default_factory=list)
    """Hard constraints that had to be made soft to find a layout."""
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"room_size": list(self.room_size), "placements": [p.to_dict() for p in self.placements.values()],
                "unmet": list(self.unmet), "relaxed": list(self.relaxed), "seconds": round(self.seconds, 3),
                "stats": dict(self.stats)}


@dataclass
class SolverConfig:
    """Settings of ``solve``."""

    time_budget: float = 10.0
    """Seconds the whole search may take (checked between candidates)."""
    grid: float = 0.1
    """Step (m) of the floor grid of candidate positions."""
    fine_grid: float = 0.05
    """Step (m) near relation targets, along walls and on support surfaces."""
    clearance: float = 0.01
    """Smallest gap (m) between two objects (supported objects touch only their support)."""
    wall_gap: float = 0.003
    """Gap (m) between a wall object's back and its wall."""
    rest_gap: float = 0.001
    """Gap (m) under every object (the physics engine lets it settle onto floor or support)."""
    robot_radius: float = 0.1
    """Radius (m) of the robot that must reach every object (0.2 m robot)."""
    robot_height: float = 0.5
    """Height (m) of the robot: what hangs higher (a wall clock, a window) does not block the floor."""
    nav_cell: float = 0.05
    """Cell size (m) of the navigation occupancy grid."""
    reach: float = 1.0
    """How far (m) in front of an openable object the robot may stand to open it."""
    max_fill: float = 0.8
    """Largest fraction of the floor the footprints (with clearance) may cover before the request is refused."""
    tries: int = 10
    """Candidate poses tried per object before backtracking."""
    max_nodes: int = 4000
    """Search nodes (placements tried) per pass."""
    refine_steps: tuple[float, ...] = (0.08, 0.04, 0.02, 0.01)
    """Step sizes (m) of the continuous refinement."""
    refine_sweeps: int = 3
    """Sweeps over all objects per refinement step size."""
    navigation: bool = True
    """Require a connected free floor and reachable fronts."""


# --------------------------------------------------------------------------------------------- the problem


@dataclass
class _Obj:
    name: str
    category: str
    geom: ObjectGeometry
    support: str | None = None
    under: str | None = None
    wall: str | None = None
    rels: list[Any] = field(default_factory=list)
    row_prev: str | None = None
    row_next: str | None = None
    hub: int = 0
    """How many objects relate to this one (next to, facing, …): a hub keeps space around itself."""
    mount_z: float | None = None
    """Height (m) of the origin of an object screwed to a wall or hung from the ceiling
    (``seed3d.scene.plan.mount_height``), else None."""

    @property
    def floor(self) -> bool:
        return self.support is None

    @property
    def mounted(self) -> bool:
        """Hung on a wall or from the ceiling: takes no floor and no wall length at floor level."""
        return self.mount_z is not None and self.support is None and self.under is None

    @property
    def on_wall(self) -> bool:
        """Hung on a wall (not from the ceiling)."""
        return self.mounted and self.wall is not None


@dataclass
class _Placed:
    pose: Placement
    bc: FloatArray  # (B, 2) box centres
    bh: FloatArray  # (B, 2) half sizes
    bz: FloatArray  # (B, 2) z intervals
    sc: FloatArray  # sweeps
    sh: FloatArray
    sz: FloatArray
    oc: FloatArray  # (2,) overall footprint centre
    oh: FloatArray  # (2,) overall half size
    oz: FloatArray  # (2,) overall z interval
    swc: FloatArray  # overall sweep box
    swh: FloatArray
    swz: FloatArray


class _Fail(Exception):
    pass


class _Solver:
    def __init__(self, room: tuple[float, float, float], objs: list[_Obj], cfg: SolverConfig, seed: int,
                 deadline: float, relaxed: set[str], navigation: bool) -> None:
        self.W, self.D, self.H = room
        self.objs = {o.name: o for o in objs}
        self.order = [o.name for o in objs]
        self.cfg = cfg
        self.seed = seed
        self.deadline = deadline
        self.relaxed = relaxed
        self.navigation = navigation
        self.placed: dict[str, _Placed] = {}
        self.nodes = 0
        self.backtracks = 0
        self.failures: dict[str, dict[str, int]] = {}
        self.deepest = -1
        self.deepest_fail: tuple[str, dict[str, int]] | None = None
        self.deepest_placed: list[str] = []
        self.children: dict[str, list[str]] = {}
        for o in objs:
            if o.support:
                self.children.setdefault(o.support, []).append(o.name)
        self._nav_cache: tuple[FloatArray, FloatArray] | None = None

    # ---- placed-object arrays
    def _make_placed(self, o: _Obj, pose: Placement) -> _Placed:
        g = o.geom
        c, h, z = world_boxes(g.boxes, pose.x, pose.y, pose.z, pose.yaw)
        if len(g.sweeps):
            sc, sh, sz = world_boxes(g.sweeps, pose.x, pose.y, pose.z, pose.yaw)
            sc, sz = sc[0], sz[0]
            sb = np.stack([g.sweeps[:, 0].min(0), g.sweeps[:, 1].max(0)])[None]
            swc, swh, swz = world_boxes(sb, pose.x, pose.y, pose.z, pose.yaw)
            swc, swh, swz = swc[0, 0], swh[0], swz[0, 0]
        else:
            sc, sh, sz = np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2))
            swc, swh, swz = np.zeros(2), np.zeros(2), np.array([0.0, -1.0])
        oc, oh, oz = world_boxes(g.bounds[None], pose.x, pose.y, pose.z, pose.yaw)
        return _Placed(pose, c[0], h, z[0], sc, sh, sz, oc[0, 0], oh[0], oz[0, 0], swc, swh, swz)

    # ---- candidate generation
    def _walls_for(self, o: _Obj) -> list[str]:
        if o.wall in (None, "wall"):
            return ["north", "south", "east", "west"]
        return [o.wall]

    def _wall_candidates(self, o: _Obj) -> tuple[FloatArray, ...]:
        g = o.geom
        b = g.bounds
        back = -b[0, 0]  # distance from origin to the back face
        half_w = max(-b[0, 1], b[1, 1])
        step = self.cfg.fine_grid
        xs, ys, yaws, walls = [], [], [], []
        for wi, wall in enumerate(["north", "south", "east", "west"]):
            if wall not in self._walls_for(o):
                continue
            length = self.W if wall in ("north", "south") else self.D
            lim = length / 2 - half_w - 1e-6
            if lim < 0:
                continue
            n = math.floor(2 * lim / step) + 1
            along = -lim + step * np.arange(n)
            along = np.concatenate([along, [lim]]) if along[-1] < lim - 1e-9 else along
            over = self._over_along(o, wall)
            along = np.concatenate([along, over[np.abs(over) <= lim]])
            off = back + self.cfg.wall_gap
            if wall == "north":
                x, y, yaw = along, np.full_like(along, self.D / 2 - off), -math.pi / 2
            elif wall == "south":
                x, y, yaw = along, np.full_like(along, -self.D / 2 + off), math.pi / 2
            elif wall == "east":
                x, y, yaw = np.full_like(along, self.W / 2 - off), along, math.pi
            else:
                x, y, yaw = np.full_like(along, -self.W / 2 + off), along, 0.0
            xs.append(x)
            ys.append(y)
            yaws.append(np.full_like(along, yaw))
            walls.append(np.full(len(along), wi))
        if not xs:
            return (np.zeros(0),) * 4
        return np.concatenate(xs), np.concatenate(ys), np.concatenate(yaws), np.concatenate(walls)

    def _over_along(self, o: _Obj, wall: str) -> FloatArray:
        """Positions along ``wall`` (of the slots of ``_wall_candidates``) that put ``o``'s footprint centre right
        over the placed targets of its ``over`` relations."""
        mid = o.geom.bounds.mean(axis=0)
        lateral = {"north": mid[1], "south": -mid[1], "east": -mid[1], "west": mid[1]}[wall]  # its centre's shift
        out = [self.placed[r.target].oc[0 if wall in ("north", "south") else 1] - lateral for r in o.rels
               if r.type == "over" and r.target in self.placed]
        return np.array(out, np.float64)

    def _over_poses(self, o: _Obj) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Poses (x, y, yaw) that put ``o``'s footprint centre right over the placed targets of its ``over``
        relations, turned as each target (and by quarter turns)."""
        mid = o.geom.bounds.mean(axis=0)
        xs, ys, yaws = [], [], []
        for r in o.rels:
            if r.type != "over" or r.target not in self.placed:
                continue
            t = self.placed[r.target]
            yaw = t.pose.yaw + np.array([0.0, math.pi / 2, math.pi, -math.pi / 2])
            xs.append(t.oc[0] - (np.cos(yaw) * mid[0] - np.sin(yaw) * mid[1]))
            ys.append(t.oc[1] - (np.sin(yaw) * mid[0] + np.cos(yaw) * mid[1]))
            yaws.append(yaw)
        if not xs:
            return np.zeros(0), np.zeros(0), np.zeros(0)
        return np.concatenate(xs), np.concatenate(ys), np.concatenate(yaws)

    def _grid(self, lo: FloatArray, hi: FloatArray, step: float) -> tuple[FloatArray, FloatArray]:
        nx = max(1, math.floor((hi[0] - lo[0]) / step) + 1)
        ny = max(1, math.floor((hi[1] - lo[1]) / step) + 1)
        gx = lo[0] + step * np.arange(nx)
        gy = lo[1] + step * np.arange(ny)
        X, Y = np.meshgrid(gx, gy, indexing="ij")
        return X.ravel(), Y.ravel()

    def candidates(self, o: _Obj) -> tuple[dict[str, FloatArray], dict[str, int]]:
        """Candidate poses of ``o`` that satisfy every hard constraint against the placed objects."""
        cfg = self.cfg
        g = o.geom
        reasons: dict[str, int] = {}
        base_yaws = np.array([0.0, math.pi / 2, math.pi, -math.pi / 2])
        wall_idx = None
        if o.support is not None:
            sp = self.placed[o.support]
            sg = self.objs[o.support].geom
            if sg.support is None:
                reasons[f"{o.support} has no top surface to stand on"] = 1
                return self._empty(), reasons
            poly = sg.support
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            # fine enough to find the slot when the object barely fits: a third of the slack, at least 5 mm
            span, ext = hi - lo, o.geom.extent[:2]
            slack = max(float(np.min(span - ext)), float(np.min(span - ext[::-1])), 0.0)
            u, v = self._grid(lo, hi, float(np.clip(slack / 3, 0.005, cfg.fine_grid)))
            cen = poly.mean(axis=0)
            u, v = np.concatenate([[cen[0]], u]), np.concatenate([[cen[1]], v])
            inside = _in_convex(np.stack([u, v], -1), poly)
            u, v = u[inside], v[inside]
            c, s = math.cos(sp.pose.yaw), math.sin(sp.pose.yaw)
            wx = sp.pose.x + c * u - s * v
            wy = sp.pose.y + s * u + c * v
            yaws = sp.pose.yaw + base_yaws
            n = len(wx)
            x = np.repeat(wx, 4)
            y = np.repeat(wy, 4)
            yaw = np.tile(yaws, n)
            z = np.full_like(x, sp.pose.z + sg.support_z + cfg.rest_gap)
        elif o.wall is not None:
            x, y, yaw, wall_idx = self._wall_candidates(o)
            z = np.full_like(x, o.mount_z if o.mounted else cfg.rest_gap)
        elif o.under is not None:
            tp = self.placed[o.under]
            lo, hi = tp.oc - np.abs(tp.oh).max(), tp.oc + np.abs(tp.oh).max()
            x, y = self._grid(lo, hi, cfg.fine_grid)
            n = len(x)
            x, y = np.repeat(x, 4), np.repeat(y, 4)
            yaw = np.tile(tp.pose.yaw + base_yaws, n)
            z = np.full_like(x, cfg.rest_gap)
        else:
            near = [r.target for r in o.rels if r.target in self.placed and r.type in
                    ("next_to", "facing", "in_front_of", "left_of", "right_of", "over")]
            if o.row_prev is not None and o.row_prev in self.placed:
                near.append(o.row_prev)
            r_obj = float(np.linalg.norm(g.extent[:2])) / 2
            if near:
                pts = np.stack([self.placed[t].oc for t in near])
                reachr = max(float(np.linalg.norm(self.placed[t].oh)) for t in near) + r_obj + 0.6
                lo = np.maximum(pts.min(0) - reachr, [-self.W / 2, -self.D / 2])
                hi = np.minimum(pts.max(0) + reachr, [self.W / 2, self.D / 2])
                x, y = self._grid(lo, hi, cfg.fine_grid)
            else:
                lo = np.array([-self.W / 2, -self.D / 2]) + min(g.extent[:2]) / 2
                hi = np.array([self.W / 2, self.D / 2]) - min(g.extent[:2]) / 2
                if np.any(hi < lo):
                    reasons["larger than the room"] = 1
                    return self._empty(), reasons
                x, y = self._grid(lo, hi, cfg.grid)
            yaw_sets = [base_yaws]
            facing = [r.target for r in o.rels if r.type == "facing" and r.target in self.placed]
            n = len(x)
            xs = [np.repeat(x, 4)]
            ys = [np.repeat(y, 4)]
            yws = [np.tile(base_yaws, n)]
            for t in facing:
                tp = self.placed[t]
                fy = np.arctan2(tp.oc[1] - y, tp.oc[0] - x)
                snap = np.round(fy / (math.pi / 2)) * (math.pi / 2)
                fy = np.where(np.abs(_wrap(fy - snap)) < math.radians(12), snap, fy)
                xs.append(x)
                ys.append(y)
                yws.append(fy)
            del yaw_sets
            ox, oy, oyaw = self._over_poses(o)
            xs.append(ox)
            ys.append(oy)
            yws.append(oyaw)
            x, y, yaw = np.concatenate(xs), np.concatenate(ys), np.concatenate(yws)
            z = np.full_like(x, o.mount_z if o.mounted else cfg.rest_gap)  # a pendant hangs from the ceiling
            if o.row_prev is not None and o.row_prev in self.placed:
                rx, ry, ryaw = self._row_slots(o)
                x, y, yaw = np.concatenate([x, rx]), np.concatenate([y, ry]), np.concatenate([yaw, ryaw])
                z = np.full_like(x, cfg.rest_gap)
        cand = {"x": x, "y": y, "z": z, "yaw": _wrap(yaw),
                "wall": wall_idx if wall_idx is not None else np.full(len(x), -1)}
        keep = self._filter(o, cand, reasons)
        cand = {k: v[keep] for k, v in cand.items()}
        return cand, reasons

    def _row_slots(self, o: _Obj) -> tuple[FloatArray, FloatArray, FloatArray]:
        prev = self.placed[o.row_prev]  # type: ignore[index]
        pg = self.objs[o.row_prev].geom  # type: ignore[index]
        yaw = prev.pose.yaw
        c, s = math.cos(yaw), math.sin(yaw)
        lat = np.array([-s, c])
        w_prev = pg.extent[1] / 2
        w_self = o.geom.extent[1] / 2
        xs, ys = [], []
        for gap in (0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.4):
            for sign in (1.0, -1.0):
                d = sign * (w_prev + w_self + gap + self.cfg.clearance)
                xs.append(prev.pose.x + d * lat[0])
                ys.append(prev.pose.y + d * lat[1])
        return np.array(xs), np.array(ys), np.full(len(xs), yaw)

    @staticmethod
    def _empty() -> dict[str, FloatArray]:
        return {k: np.zeros(0) for k in ("x", "y", "z", "yaw", "wall")}

    def _count(self, reasons: dict[str, int], key: str, mask: FloatArray) -> None:
        n = int(np.count_nonzero(mask))
        if n:
            reasons[key] = reasons.get(key, 0) + n

    def _filter(self, o: _Obj, cand: dict[str, FloatArray], reasons: dict[str, int]) -> FloatArray:
        cfg = self.cfg
        g = o.geom
        x, y, z, yaw = cand["x"], cand["y"], cand["z"], cand["yaw"]
        keep = np.ones(len(x), bool)
        if not len(x):
            return keep
        # ---- inside the room (boxes and sweeps)
        c, h, zz = world_boxes(g.boxes, x, y, z, yaw)
        corners = _corners(c, np.broadcast_to(h, c.shape), np.broadcast_to(yaw[:, None], c.shape[:2]))
        lo = corners.min(axis=(1, 2))
        hi = corners.max(axis=(1, 2))
        tol = 1e-6
        out = (lo[:, 0] < -self.W / 2 - tol) | (hi[:, 0] > self.W / 2 + tol) | (lo[:, 1] < -self.D / 2 - tol) | \
              (hi[:, 1] > self.D / 2 + tol) | (zz[:, :, 1].max(axis=1) > self.H)
        self._count(reasons, "outside the room", keep & out)
        keep &= ~out
        sc = sh = sz = None
        if len(g.sweeps):
            sc, sh, sz = world_boxes(g.sweeps, x, y, z, yaw)
            if g.sweep_walls:
                sco = _corners(sc, np.broadcast_to(sh, sc.shape), np.broadcast_to(yaw[:, None], sc.shape[:2]))
                slo, shi = sco.min(axis=(1, 2)), sco.max(axis=(1, 2))
                sout = (slo[:, 0] < -self.W / 2 - tol) | (shi[:, 0] > self.W / 2 + tol) | \
                       (slo[:, 1] < -self.D / 2 - tol) | (shi[:, 1] > self.D / 2 + tol)
                self._count(reasons, "an opening door or drawer would hit a wall", keep & sout)
                keep &= ~sout
        # ---- collisions with placed objects
        ob = g.bounds
        oc, oh, oz = world_boxes(ob[None], x, y, z, yaw)
        oc, oz = oc[:, 0], oz[:, 0]
        oh = oh[0]
        for name, p in self.placed.items():
            if not keep.any():
                break
            idx = np.nonzero(keep)[0]
            margin = 0.0 if name == o.support else cfg.clearance
            broad = obb_overlap(oc[idx], oh, yaw[idx], oz[idx], p.oc, p.oh, p.pose.yaw, p.oz, margin)
            hit = np.zeros(len(x), bool)
            if broad.any():
                j = idx[broad]
                fine = obb_overlap(c[j][:, :, None], h[:, None], yaw[j][:, None, None], zz[j][:, :, None],
                                   p.bc[None, None], p.bh[None, None], p.pose.yaw, p.bz[None, None], margin)
                hit[j] = fine.any(axis=(1, 2))
            self._count(reasons, f"collides with {name}", hit)
            keep &= ~hit
            # this object's opening parts must clear the placed object, and the placed object's must clear this
            if sc is not None and keep.any() and name != o.support and o.name != self.objs[name].support:
                idx = np.nonzero(keep)[0]
                fine = obb_overlap(sc[idx][:, :, None], sh[:, None], yaw[idx][:, None, None], sz[idx][:, :, None],
                                   p.bc[None, None], p.bh[None, None], p.pose.yaw, p.bz[None, None], cfg.clearance)
                hit = np.zeros(len(x), bool)
                hit[idx] = fine.any(axis=(1, 2))
                self._count(reasons, f"its doors or drawers would hit {name}", hit)
                keep &= ~hit
            if len(p.sc) and keep.any() and name != o.support and o.name != self.objs[name].support:
                idx = np.nonzero(keep)[0]
                broad = obb_overlap(oc[idx], oh, yaw[idx], oz[idx], p.swc, p.swh, p.pose.yaw, p.swz, cfg.clearance)
                hit = np.zeros(len(x), bool)
                if broad.any():
                    j = idx[broad]
                    fine = obb_overlap(c[j][:, :, None], h[:, None], yaw[j][:, None, None], zz[j][:, :, None],
                                       p.sc[None, None], p.sh[None, None], p.pose.yaw, p.sz[None, None],
                                       cfg.clearance)
                    hit[j] = fine.any(axis=(1, 2))
                self._count(reasons, f"blocks the doors or drawers of {name}", hit)
                keep &= ~hit
        # ---- supported: footprint inside the support polygon
        if o.support is not None and keep.any():
            sp = self.placed[o.support]
            poly = self.objs[o.support].geom.support
            cs, sn = math.cos(sp.pose.yaw), math.sin(sp.pose.yaw)
            rel = corners - np.array([sp.pose.x, sp.pose.y])
            local = np.stack([cs * rel[..., 0] + sn * rel[..., 1], -sn * rel[..., 0] + cs * rel[..., 1]], -1)
            inside = _in_convex(local.reshape(len(x), -1, 2), poly, margin=0.005).all(axis=1)  # type: ignore[arg-type]
            self._count(reasons, f"overhangs the top of {o.support}", keep & ~inside)
            keep &= inside
            holes = self.objs[o.support].geom.support_holes
            if holes is not None and keep.any():
                over = self._over_hole(o, x, y, yaw, sp.pose, holes)
                self._count(reasons, f"stands over a hole in the top of {o.support}", keep & over)
                keep &= ~over
        if o.under is not None and keep.any():
            tp = self.placed[o.under]
            tg = self.objs[o.under].geom
            cs, sn = math.cos(tp.pose.yaw), math.sin(tp.pose.yaw)
            rel = np.stack([x - tp.pose.x, y - tp.pose.y], -1)
            lu = cs * rel[:, 0] + sn * rel[:, 1]
            lv = -sn * rel[:, 0] + cs * rel[:, 1]
            tb = tg.bounds
            inside = (lu > tb[0, 0]) & (lu < tb[1, 0]) & (lv > tb[0, 1]) & (lv < tb[1, 1]) & \
                     (zz[:, :, 1].max(axis=1) < tp.pose.z + tb[1, 2])
            self._count(reasons, f"not under {o.under}", keep & ~inside)
            keep &= inside
        # ---- relations as hard constraints
        for r in o.rels:
            if not keep.any():
                break
            if str(r) in self.relaxed or r.type in ("on", "under", "against_wall"):
                continue
            ok = self.relation_ok(o, r, x, y, yaw, oc, oh)
            if ok is None:
                continue
            self._count(reasons, f"{r.type.replace('_', ' ')} {r.target or ''}".strip() + " does not hold", keep & ~ok)
            keep &= ok
        if o.row_prev is not None and o.row_prev in self.placed and f"in_row({o.name})" not in self.relaxed:
            ok = self.row_ok(o, x, y, yaw, oc, oh)
            self._count(reasons, "not in a row with " + o.row_prev, keep & ~ok)
            keep &= ok
        for subject, r in self._reverse(o.name):
            if not keep.any():
                break
            ok = self.reverse_ok(o, subject, r, x, y, yaw, oc, oh)
            self._count(reasons, f"{r} would not hold", keep & ~ok)
            keep &= ok
        return keep

    @staticmethod
    def _over_hole(o: _Obj, x: FloatArray, y: FloatArray, yaw: FloatArray, support: Placement,
                   holes: SupportHoles) -> FloatArray:
        """Whether any point of the object's footprint (its bounds, sampled every 2 cm) lies over a hole of its
        supporter's top, per candidate."""
        b = o.geom.bounds
        nu = max(2, math.ceil((b[1, 0] - b[0, 0]) / 0.02) + 1)
        nv = max(2, math.ceil((b[1, 1] - b[0, 1]) / 0.02) + 1)
        U, V = np.meshgrid(np.linspace(b[0, 0], b[1, 0], nu), np.linspace(b[0, 1], b[1, 1], nv), indexing="ij")
        u, v = U.ravel(), V.ravel()
        c, sn = np.cos(yaw)[:, None], np.sin(yaw)[:, None]
        wx = x[:, None] + c * u - sn * v
        wy = y[:, None] + sn * u + c * v
        cs, ss = math.cos(support.yaw), math.sin(support.yaw)
        rx, ry = wx - support.x, wy - support.y
        local = np.stack([cs * rx + ss * ry, -ss * rx + cs * ry], -1)
        return holes.over(local).any(axis=1)

    def _reverse(self, name: str, relaxed: bool = False) -> list[tuple[str, Any]]:
        """(placed subject, relation) pairs whose target is ``name`` (hard ones, or the relaxed ones)."""
        out = []
        for subject in self.placed:
            for r in self.objs[subject].rels:
                if r.target != name or r.type in ("on", "under", "against_wall", "centred"):
                    continue
                if (str(r) in self.relaxed) == relaxed:
                    out.append((subject, r))
        return out

    # ---- relation predicates (vectorised over candidates)
    def relation_ok(self, o: _Obj, r: Any, x: FloatArray, y: FloatArray, yaw: FloatArray, oc: FloatArray,
                    oh: FloatArray, strict: bool = True) -> FloatArray | None:
        """Whether relation ``r`` of ``o`` holds for each candidate; None when its target is not placed yet.

        ``strict`` keeps a margin inside each threshold (the search uses it, so that the independent checks on
        the final meshes, with the plain thresholds, agree)."""
        m = 1.0 if strict else 0.0
        if r.type == "centred":
            return np.hypot(oc[:, 0], oc[:, 1]) <= CENTRE_RADIUS - 0.05 * m
        if r.target not in self.placed:
            return None
        t = self.placed[r.target]
        return relation_holds(r.type, oc, oh, yaw, t.pose.x, t.pose.y, t.pose.yaw, t.oc, t.oh,
                              self.objs[r.target].geom.bounds, m, wall=o.on_wall)

    def reverse_ok(self, o: _Obj, subject: str, r: Any, x: FloatArray, y: FloatArray, yaw: FloatArray,
                   oc: FloatArray, oh: FloatArray) -> FloatArray:
        """Whether the placed ``subject``'s relation ``r`` to ``o`` holds for each candidate pose of ``o``."""
        p = self.placed[subject]
        return relation_holds(r.type, p.oc, p.oh, p.pose.yaw, x, y, yaw, oc, oh, o.geom.bounds, 1.0,
                              wall=self.objs[subject].on_wall)

    def row_ok(self, o: _Obj, x: FloatArray, y: FloatArray, yaw: FloatArray, oc: FloatArray, oh: FloatArray,
               strict: bool = True) -> FloatArray:
        """In a row with the previous instance: same yaw, centres or backs aligned, side by side within
        ``ROW_GAP``."""
        m = 1.0 if strict else 0.0
        p = self.placed[o.row_prev]  # type: ignore[index]
        same = np.abs(_wrap(yaw - p.pose.yaw)) <= ROW_YAW / 2
        cs, sn = math.cos(p.pose.yaw), math.sin(p.pose.yaw)
        rel = oc - p.oc
        along = cs * rel[:, 0] + sn * rel[:, 1]  # offset along the facing direction
        depth_self = np.abs(oh[0]) if np.ndim(oh) == 1 else np.abs(oh[:, 0])
        backs = along - depth_self + abs(float(p.oh[0]))
        offset = np.minimum(np.abs(along), np.abs(backs))
        gap = obb_gap(oc, oh, yaw, p.oc, p.oh, p.pose.yaw)
        return same & (offset <= ROW_OFFSET - 0.03 * m) & (gap <= ROW_GAP - 0.1 * m)

    # ---- soft score (lower is better)
    def score(self, o: _Obj, cand: dict[str, FloatArray], rng: np.random.Generator | None) -> FloatArray:
        x, y, yaw = cand["x"], cand["y"], cand["yaw"]
        n = len(x)
        s = np.zeros(n)
        if not n:
            return s
        snap = np.round(yaw / (math.pi / 2)) * (math.pi / 2)
        s += 0.2 * (np.abs(_wrap(yaw - snap)) > 1e-6)
        ob = o.geom.bounds
        oc, oh, _ = world_boxes(ob[None], x, y, cand["z"], yaw)
        oc, oh = oc[:, 0], oh[0]
        for r in o.rels:
            if r.type in ("on", "under", "against_wall"):
                continue
            penalty = 5.0 if str(r) in self.relaxed else 1.0
            if r.type == "centred":
                d = np.hypot(oc[:, 0], oc[:, 1])
                s += penalty * (d / max(self.W, self.D) + 2.0 * (d > CENTRE_RADIUS))
                continue
            if r.target not in self.placed:
                continue
            t = self.placed[r.target]
            if r.type == "next_to":
                gap = obb_gap(oc, oh, yaw, t.oc, t.oh, t.pose.yaw)
                s += penalty * (np.maximum(gap - 0.1, 0.0) + 2.0 * (gap > NEXT_TO_GAP))
                # what gathers round one target spreads round it instead of bunching on one side
                for other, p in self.placed.items():
                    if other != r.target and any(q.target == r.target and q.type == "next_to"
                                                 for q in self.objs[other].rels):
                        s += 0.4 * (np.hypot(*(oc - p.oc).T) < 0.5 * (np.abs(oh).sum() + np.abs(p.oh).sum()) + 0.3)
            elif r.type == "over":  # right over the target's centre, not just near enough
                off, same = over_offset(oc, oh, yaw, t.pose.yaw, t.oc, t.oh, o.on_wall)
                s += penalty * (off / OVER_OFFSET + 2.0 * ~(same & (off <= OVER_OFFSET - 0.05)))
            elif r.type == "facing":
                ang = np.abs(_wrap(np.arctan2(t.oc[1] - oc[:, 1], t.oc[0] - oc[:, 0]) - yaw))
                d = np.hypot(*(oc - t.oc).T)
                s += penalty * (ang / math.pi + 2.0 * (ang > FACING_ANGLE) + 0.1 * d)
                # square to the target's sides rather than at its corners
                rel = _wrap(yaw - t.pose.yaw)
                s += 0.6 * (np.abs(_wrap(rel - np.round(rel / (math.pi / 2)) * (math.pi / 2))) > 1e-3)
            else:
                ok = self.relation_ok(o, r, x, y, yaw, oc, oh)
                d = np.hypot(*(oc - t.oc).T)
                s += penalty * (0.2 * d / max(self.W, self.D) + (2.0 * ~ok if ok is not None else 0.0))
        if o.row_prev is not None and o.row_prev in self.placed:
            ok = self.row_ok(o, x, y, yaw, oc, oh)
            gap = obb_gap(oc, oh, yaw, self.placed[o.row_prev].oc, self.placed[o.row_prev].oh,
                          self.placed[o.row_prev].pose.yaw)
            s += (5.0 if f"in_row({o.name})" in self.relaxed else 1.0) * (2.0 * ~ok + np.abs(gap - 0.08))
        for subject, r in self._reverse(o.name, relaxed=True):
            s += 5.0 * ~self.reverse_ok(o, subject, r, x, y, yaw, oc, oh)
        if o.row_next is not None and o.row_prev is None:
            # the first of a row: prefer poses with room for the rest of the row beside it
            need, nxt = 0.0, o.row_next
            while nxt is not None:
                need += float(self.objs[nxt].geom.extent[1]) + 0.1
                nxt = self.objs[nxt].row_next
            lat = np.stack([-np.sin(yaw), np.cos(yaw)], -1)
            room = np.zeros(n)
            for sign in (1.0, -1.0):
                d = sign * lat
                with np.errstate(divide="ignore", invalid="ignore"):
                    tx = np.where(np.abs(d[:, 0]) > 1e-9, (np.sign(d[:, 0]) * self.W / 2 - oc[:, 0]) / d[:, 0], np.inf)
                    ty = np.where(np.abs(d[:, 1]) > 1e-9, (np.sign(d[:, 1]) * self.D / 2 - oc[:, 1]) / d[:, 1], np.inf)
                room = np.maximum(room, np.minimum(tx, ty) - o.geom.extent[1] / 2)
            s += 3.0 * (room < need) + 0.5 * np.maximum(need - room, 0.0)
        if o.support is not None:
            sp = self.placed[o.support]
            cen = self.objs[o.support].geom.support.mean(axis=0)  # type: ignore[union-attr]
            c, sn = math.cos(sp.pose.yaw), math.sin(sp.pose.yaw)
            wc = np.array([sp.pose.x + c * cen[0] - sn * cen[1], sp.pose.y + sn * cen[0] + c * cen[1]])
            s += 0.5 * np.hypot(oc[:, 0] - wc[0], oc[:, 1] - wc[1])
            s += 0.3 * (np.abs(_wrap(yaw - sp.pose.yaw)) > 1e-6)
        elif o.hub and o.wall is None and o.under is None and not o.rels:
            # what others gather round (a table with chairs) stands out in the room, with space around it
            s += 0.5 * np.hypot(oc[:, 0], oc[:, 1]) / max(self.W, self.D)
        elif not o.rels and o.wall is None and o.under is None:
            # loose floor objects keep the middle of the room free
            wall_d = np.minimum(self.W / 2 - np.abs(oc[:, 0]) - np.abs(oh[0]),
                                self.D / 2 - np.abs(oc[:, 1]) - np.abs(oh[1]))
            s += 0.3 * np.maximum(wall_d, 0.0) / max(self.W, self.D)
        if o.wall is not None and self.placed and not o.mounted:
            # wall objects group along the walls: prefer touching a neighbour or a corner
            along_edge = np.full(n, 1.0)
            for p in self.placed.values():
                along_edge = np.minimum(along_edge, np.maximum(obb_gap(oc, oh, yaw, p.oc, p.oh, p.pose.yaw), 0))
            s += 0.2 * along_edge
        if rng is not None:  # seeded jitter: the search explores different equally good poses per seed
            s += 0.05 * rng.random(n)
        return s

    # ---- navigation
    def nav_grid(self) -> tuple[FloatArray, FloatArray]:
        if self._nav_cache is None:
            c = self.cfg.nav_cell
            nx, ny = max(1, round(self.W / c)), max(1, round(self.D / c))
            gx = (np.arange(nx) + 0.5) * (self.W / nx) - self.W / 2
            gy = (np.arange(ny) + 0.5) * (self.D / ny) - self.D / 2
            X, Y = np.meshgrid(gx, gy, indexing="ij")
            self._nav_cache = (np.stack([X, Y], -1), np.ones_like(X, bool))
        return self._nav_cache

    def navigation_state(self) -> tuple[FloatArray, FloatArray, int]:
        """(free robot-centre mask, component labels, number of components) for the placed floor objects.

        Objects standing on others and those whose bottom is above ``robot_height`` (what hangs on a wall) do
        not block the floor. Every part's footprint (its 2-D convex hull) is rasterised at ``nav_cell``, a cell
        counting as occupied when it comes within half a cell of a footprint; the robot's centre may stand where
        the distance to the occupied cells and walls exceeds its radius plus 0.71 cell (so the raster errs on the
        blocked side); every free region counts, however small."""
        from scipy import ndimage

        pts, _ = self.nav_grid()
        c = self.cfg.nav_cell
        occupied = np.zeros(pts.shape[:2], bool)
        for name, p in self.placed.items():
            o = self.objs[name]
            if o.support is not None or p.pose.z + float(o.geom.bounds[0, 2]) > self.cfg.robot_height:
                continue  # carried, or hung above the robot (a clock, a window)
            cs, sn = math.cos(p.pose.yaw), math.sin(p.pose.yaw)
            rot = np.array([[cs, -sn], [sn, cs]])
            for poly in self.objs[name].geom.footprints:
                world = poly @ rot.T + np.array([p.pose.x, p.pose.y])
                lo, hi = world.min(axis=0) - c, world.max(axis=0) + c
                win = (pts[..., 0] >= lo[0]) & (pts[..., 0] <= hi[0]) & (pts[..., 1] >= lo[1]) & \
                      (pts[..., 1] <= hi[1])
                if win.any():
                    occupied[win] |= _in_convex(pts[win], world, margin=-c / 2)
        padded = np.pad(occupied, 1, constant_values=True)
        dist = ndimage.distance_transform_edt(~padded)[1:-1, 1:-1] * c
        free = dist > self.cfg.robot_radius + 0.71 * c
        labels, count = ndimage.label(free)
        return free, labels, int(count)

    def reachable(self, name: str, free: FloatArray, labels: FloatArray, main: int) -> bool:
        """Whether a free cell of the main region lies in front of ``name`` (within ``reach``)."""
        pts, _ = self.nav_grid()
        p = self.placed[name]
        g = self.objs[name].geom
        b = g.bounds
        cs, sn = math.cos(p.pose.yaw), math.sin(p.pose.yaw)
        rel = pts - np.array([p.pose.x, p.pose.y])
        lu = cs * rel[..., 0] + sn * rel[..., 1]
        lv = -sn * rel[..., 0] + cs * rel[..., 1]
        region = (lu >= b[1, 0]) & (lu <= b[1, 0] + self.cfg.reach) & (lv >= b[0, 1] - 0.3) & (lv <= b[1, 1] + 0.3)
        return bool(np.any(region & (labels == main)))

    def nav_ok(self) -> tuple[bool, str]:
        free, labels, count = self.navigation_state()
        if count == 0:
            return False, "no free floor left for a 0.2 m robot"
        sizes = np.bincount(labels.ravel())[1:]
        main = int(np.argmax(sizes)) + 1
        if count > 1:
            return False, f"the free floor splits into {count} regions"
        for name in self.placed:
            if self.objs[name].geom.openable and not self.reachable(name, free, labels, main):
                return False, f"the front of {name} cannot be reached"
        return True, ""

    # ---- search
    def _time_left(self) -> None:
        if time.perf_counter() > self.deadline:
            raise _Fail("time budget spent")

    def place(self, name: str, pose: Placement) -> None:
        self.placed[name] = self._make_placed(self.objs[name], pose)

    def search(self, i: int, rng: np.random.Generator) -> bool:
        if i == len(self.order):
            return True
        self._time_left()
        if self.nodes > self.cfg.max_nodes:
            raise _Fail("search node budget spent")
        name = self.order[i]
        o = self.objs[name]
        cand, reasons = self.candidates(o)
        n = len(cand["x"])
        if n == 0:
            self.failures[name] = reasons
            if i > self.deepest:
                self.deepest, self.deepest_fail, self.deepest_placed = i, (name, reasons), list(self.placed)
            return False
        sc = self.score(o, cand, rng)
        order = np.argsort(sc, kind="stable")
        tried = 0
        attempts = 0
        walls = ["north", "south", "east", "west"]
        for k in order:
            if tried >= self.cfg.tries or attempts >= 4 * self.cfg.tries:
                break
            attempts += 1
            self.nodes += 1
            wall = walls[int(cand["wall"][k])] if cand["wall"][k] >= 0 else None
            pose = Placement(name, float(cand["x"][k]), float(cand["y"][k]), float(cand["z"][k]),
                             float(cand["yaw"][k]), o.support, wall)
            self.place(name, pose)
            if self.navigation and (o.support is None or o.geom.openable):
                ok, why = self.nav_ok()
                if not ok:
                    reasons[why] = reasons.get(why, 0) + 1
                    del self.placed[name]
                    continue
            blocked = self._forward_check(i + 1)
            if blocked is not None:
                key = f"leaves no place for {blocked}"
                reasons[key] = reasons.get(key, 0) + 1
                del self.placed[name]
                tried += 1
                continue
            tried += 1
            if self.search(i + 1, rng):
                return True
            self.backtracks += 1
            del self.placed[name]
        if i > self.deepest:
            self.deepest, self.deepest_fail, self.deepest_placed = i, (name, reasons), list(self.placed)
        self.failures[name] = reasons
        return False

    def _forward_check(self, start: int, most: int = 3) -> str | None:
        """Constraint propagation: the next few wall objects (whose slots do not depend on unplaced objects) must
        still have a candidate; returns the first that has none."""
        checked = 0
        for name in self.order[start:]:
            if checked >= most:
                break
            o = self.objs[name]
            if o.wall is None or o.support is not None or o.under is not None:
                continue
            checked += 1
            cand, _ = self.candidates(o)
            if not len(cand["x"]):
                return name
        return None

    # ---- refinement
    def refine(self, rng: np.random.Generator, until: float) -> int:
        """Nudge objects while the soft score improves: at most ``refine_sweeps`` sweeps per step size (a fixed
        amount of work, so the result does not depend on the machine's speed; ``until`` is only a safety net)."""
        moves = 0
        for step in self.cfg.refine_steps:
            improved, sweeps = True, 0
            while improved and sweeps < self.cfg.refine_sweeps and time.perf_counter() < until:
                improved = False
                sweeps += 1
                for name in self.order:
                    if time.perf_counter() >= until:
                        break
                    if self.children.get(name):
                        continue  # supporters carry others: keep them
                    if self._nudge(name, step, rng):
                        moves += 1
                        improved = True
        return moves

    def _dependents(self, name: str) -> list[str]:
        """Objects whose relations (or row) refer to ``name``."""
        return [d for d, o in self.objs.items() if d != name and d in self.placed and
                (o.row_prev == name or any(r.target == name for r in o.rels))]

    def _total(self, names: list[str]) -> float:
        """Soft score of the named objects at their current poses, or inf when one breaks a hard constraint."""
        total = 0.0
        for n in names:
            o = self.objs[n]
            cur = self.placed.pop(n)
            p = cur.pose
            cand = {"x": np.array([p.x]), "y": np.array([p.y]), "z": np.array([p.z]), "yaw": np.array([p.yaw]),
                    "wall": np.array([-1])}
            ok = bool(self._filter(o, cand, {})[0])
            total += float(self.score(o, cand, None)[0]) if ok else math.inf
            self.placed[n] = cur
        return total

    def _nudge(self, name: str, step: float, rng: np.random.Generator) -> bool:
        o = self.objs[name]
        cur = self.placed[name]
        p = cur.pose
        if p.wall is not None:
            deltas = [(step, 0.0), (-step, 0.0)] if p.wall in ("north", "south") else [(0.0, step), (0.0, -step)]
        else:
            deltas = [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)]
        group = [name, *self._dependents(name)]
        base = self._total(group)
        best, best_pose = base - 1e-4, None
        for dx, dy in deltas:
            pose = Placement(name, p.x + dx, p.y + dy, p.z, p.yaw, p.support, p.wall)
            self.place(name, pose)
            total = self._total(group)
            if total < best and self.navigation and o.support is None:
                total = total if self.nav_ok()[0] else math.inf
            if total < best:
                best, best_pose = total, pose
        if best_pose is None:
            self.placed[name] = cur
            return False
        self.place(name, best_pose)
        return True


# --------------------------------------------------------------------------------------------- entry point


def _objects_from_plan(plan: Any, geometries: dict[str, ObjectGeometry]) -> list[_Obj]:
    from seed3d.scene.plan import WALL_MOUNTED, mount_height

    objs: dict[str, _Obj] = {}
    room_h = float(plan.room.size[2])
    for inst in plan.instances():
        if inst.name not in geometries:
            raise InvalidInputError(f"no geometry for object {inst.name!r}")
        g = geometries[inst.name]
        bottom = mount_height(inst.category, float(g.extent[2]), room_h)
        objs[inst.name] = _Obj(inst.name, inst.category, g,
                               mount_z=None if bottom is None else bottom - float(g.bounds[0, 2]))
    for r in plan.instance_relations():
        o = objs[r.subject]
        if r.type == "on":
            o.support = r.target
        elif r.type == "under":
            o.under = r.target
        elif r.type == "against_wall":
            o.wall = r.target or "wall"
        elif r.type == "in_row":
            names = (r.target or "").split(",")
            for a, b in itertools.pairwise(names):
                objs[b].row_prev = a
                objs[a].row_next = b
            continue
        o.rels.append(r)
        if r.type in ("next_to", "facing", "in_front_of", "left_of", "right_of", "over") and r.target in objs:
            objs[r.target].hub += 1
    for o in objs.values():  # what is screwed to a wall hangs on one, whatever the plan says
        if o.mounted and o.wall is None and o.category in WALL_MOUNTED:
            o.wall = "wall"
    for o in objs.values():  # what hangs on a wall over something hangs higher where its top calls for it
        for r in o.rels:
            t = objs.get(r.target or "")
            if r.type != "over" or not o.on_wall or t is None or t.support is not None or t.under is not None:
                continue
            top = (t.mount_z if t.mount_z is not None and t.mounted else 0.0) + float(t.geom.bounds[1, 2])
            bottom = mount_height(o.category, float(o.geom.extent[2]), room_h, over=top)
            if bottom is not None and o.mount_z is not None:
                o.mount_z = max(o.mount_z, bottom - float(o.geom.bounds[0, 2]))
    return list(objs.values())


def _order(objs: list[_Obj]) -> list[_Obj]:
    """Wall and big objects first; supporters before what they carry; relation targets before subjects."""
    by = {o.name: o for o in objs}
    deps: dict[str, set[str]] = {o.name: set() for o in objs}
    for o in objs:
        if o.support:
            deps[o.name].add(o.support)
        if o.under:
            deps[o.name].add(o.under)
        if o.row_prev:
            deps[o.name].add(o.row_prev)
    for o in objs:  # soft dependencies: relation targets first unless that makes a cycle
        for r in o.rels:
            t = r.target
            if t in by and t != o.name and not _reaches(deps, t, o.name):
                deps[o.name].add(t)

    def key(o: _Obj) -> tuple[float, ...]:
        # what stands against a wall, then what hangs on one (above what stands there), then the rest
        return (0 if o.wall is not None and not o.mounted else 1 if o.mounted else 2, -o.geom.footprint_area,
                o.name.count("_"), len(o.name))

    order: list[_Obj] = []
    done: set[str] = set()
    pending = sorted(objs, key=key)
    while pending:
        ready = [o for o in pending if deps[o.name] <= done]
        if not ready:  # a cycle of soft dependencies: take the best remaining
            ready = pending[:1]
        # objects carried by what was just placed go right after it
        carried = [o for o in ready if o.support is not None and order and o.support == order[-1].name]
        pick = carried[0] if carried else ready[0]
        order.append(pick)
        done.add(pick.name)
        pending.remove(pick)
    return order


def _reaches(deps: dict[str, set[str]], start: str, goal: str) -> bool:
    stack, seen = [start], set()
    while stack:
        n = stack.pop()
        if n == goal:
            return True
        if n in seen:
            continue
        seen.add(n)
        stack.extend(deps.get(n, ()))
    return False


def feasibility(objs: list[_Obj], room: tuple[float, float, float], cfg: SolverConfig) -> None:
    """Refuse requests that cannot fit before searching: object sizes, floor area, wall length, tops."""
    W, D, H = room
    problems = []
    culprits: dict[str, str] = {}
    for o in objs:
        e = o.geom.extent
        if e[2] > H:
            problems.append(f"{o.name} is {e[2]:.2f} m tall but the room is {H:.2f} m high")
            culprits.setdefault(o.name, f"{e[2]:.2f} m tall, taller than the {H:.2f} m room")
        if min(e[0], e[1]) > min(W, D) or max(e[0], e[1]) > max(W, D):
            problems.append(f"{o.name} ({e[0]:.2f} × {e[1]:.2f} m) is larger than the {W:.2f} × {D:.2f} m room")
            culprits.setdefault(o.name, f"{e[0]:.2f} × {e[1]:.2f} m, larger than the {W:.2f} × {D:.2f} m room")
    if problems:
        raise LayoutError("cannot lay out the scene: " + "; ".join(problems[:6]), culprits)
    floor = [o for o in objs if o.support is None and o.under is None and not o.mounted]
    need = sum((o.geom.extent[0] + cfg.clearance) * (o.geom.extent[1] + cfg.clearance) for o in floor)
    have = W * D * cfg.max_fill
    if need > have:
        groups: dict[str, list[_Obj]] = {}
        for o in floor:
            groups.setdefault(o.category, []).append(o)
        worst = sorted(groups.items(), key=lambda kv: -sum(o.geom.footprint_area for o in kv[1]))
        parts = [f"{len(v)} × {k} ({sum(o.geom.footprint_area for o in v):.1f} m²)" for k, v in worst[:4]]
        raise LayoutError(
            f"the objects need {need:.1f} m² of floor but the {W:.2f} × {D:.2f} m room offers {have:.1f} m² "
            f"({cfg.max_fill:.0%} of {W * D:.1f} m², the rest stays free to walk): {', '.join(parts)} do not fit; "
            "ask for fewer or smaller objects or a larger room")
    wall_objs = [o for o in floor if o.wall is not None]
    for wall in ("north", "south", "east", "west"):
        mine = [o for o in wall_objs if o.wall == wall]
        length = W if wall in ("north", "south") else D
        used = sum(o.geom.extent[1] + cfg.clearance for o in mine)
        if used > length:
            raise LayoutError(f"{len(mine)} objects against the {wall} wall need {used:.2f} m of it but it is "
                              f"{length:.2f} m long: " + ", ".join(o.name for o in mine))
    used = sum(o.geom.extent[1] + cfg.clearance for o in wall_objs)
    perimeter = 2 * (W + D)
    if used > perimeter:
        raise LayoutError(f"the objects that stand against walls need {used:.1f} m of wall but the room has "
                          f"{perimeter:.1f} m: " + ", ".join(sorted({o.category for o in wall_objs})))
    carried: dict[str, list[_Obj]] = {}
    for o in objs:
        if o.support:
            carried.setdefault(o.support, []).append(o)
    by = {o.name: o for o in objs}
    for sup, items in carried.items():
        poly = by[sup].geom.support
        if poly is None:
            raise LayoutError(f"{', '.join(o.name for o in items)} cannot stand on {sup}: it has no flat top",
                              {o.name: f"cannot stand on {sup}: it has no flat top" for o in items})
        x, y = poly[:, 0], poly[:, 1]
        area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
        need = sum(o.geom.footprint_area for o in items)
        if need > area:
            biggest = max(items, key=lambda o: o.geom.footprint_area)  # leaving it out frees the most room
            raise LayoutError(f"{', '.join(o.name for o in items)} need {need:.2f} m² but the top of {sup} is "
                              f"{area:.2f} m²", {biggest.name: f"no room left on the top of {sup} ({need:.2f} m² "
                                                               f"asked of its {area:.2f} m²)"})
        for o in items:
            if not fits_on(o.geom, poly):
                e = o.geom.extent
                span = poly.max(axis=0) - poly.min(axis=0)
                how = "facing the front" if o.geom.openable else "in any orientation"
                top = f"the top of {sup} ({span[0]:.2f} × {span[1]:.2f} m) {how}"
                raise LayoutError(f"{o.name} ({e[0]:.2f} × {e[1]:.2f} m) does not fit on {top}",
                                  {o.name: f"{e[0]:.2f} × {e[1]:.2f} m, does not fit on {top}"})


def fits_on(geom: ObjectGeometry, poly: FloatArray, step: float = 0.01, yaws: tuple[float, ...] | None = None,
            margin: float = 0.005) -> bool:
    """Whether an object's part boxes fit inside a support polygon (asset xy) at some grid position and yaw.

    ``yaws`` default: facing the supporter's front only (0) for objects that open (a microwave's door must face
    the room, not the wall), else 0 and a quarter turn."""
    if yaws is None:
        yaws = (0.0,) if geom.openable else (0.0, math.pi / 2)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    gx = np.arange(lo[0], hi[0] + 1e-9, step)
    gy = np.arange(lo[1], hi[1] + 1e-9, step)
    X, Y = np.meshgrid(gx, gy, indexing="ij")
    x, y = X.ravel(), Y.ravel()
    for yaw in yaws:
        c, h, _ = world_boxes(geom.boxes, x, y, np.zeros_like(x), np.full_like(x, yaw))
        corners = _corners(c, np.broadcast_to(h, c.shape), np.full(c.shape[:2], yaw))
        if _in_convex(corners.reshape(len(x), -1, 2), poly, margin=margin).all(axis=1).any():
            return True
    return False


def over_offset(s_oc: FloatArray, s_oh: FloatArray, s_yaw: FloatArray | float, t_yaw: FloatArray | float,
                t_oc: FloatArray, t_oh: FloatArray, wall: bool = False) -> tuple[FloatArray, FloatArray]:
    """How far (m) a hung subject's footprint centre is from right over the target's (in plan; for one on a wall,
    along the wall only), and whether it hangs on the target's wall (its back within ``OVER_BACK`` of the
    target's, turned as the target within ``OVER_YAW``; always true off walls), broadcast over either side."""
    s_oc, t_oc = np.asarray(s_oc, np.float64), np.asarray(t_oc, np.float64)
    cs, sn = np.cos(t_yaw), np.sin(t_yaw)
    rx, ry = s_oc[..., 0] - t_oc[..., 0], s_oc[..., 1] - t_oc[..., 1]
    du = cs * rx + sn * ry  # in the target's frame, from its footprint centre
    dv = -sn * rx + cs * ry
    if not wall:
        return np.hypot(du, dv), np.ones(np.shape(du), bool)
    backs = np.abs(du - np.abs(np.asarray(s_oh)[..., 0]) + np.abs(np.asarray(t_oh)[..., 0]))
    same = (np.abs(_wrap(np.asarray(s_yaw) - t_yaw)) <= OVER_YAW) & (backs <= OVER_BACK)
    return np.abs(dv), same


def relation_holds(rtype: str, s_oc: FloatArray, s_oh: FloatArray, s_yaw: FloatArray | float,
                   t_x: FloatArray | float, t_y: FloatArray | float, t_yaw: FloatArray | float, t_oc: FloatArray,
                   t_oh: FloatArray, t_bounds: FloatArray, m: float = 0.0, wall: bool = False) -> FloatArray:
    """Whether a subject (footprint centre ``s_oc``, half size ``s_oh``, yaw) stands in relation ``rtype`` to a
    target (pose, footprint centre and half size, asset bounds), broadcast over either side; ``m`` = 1 keeps a
    margin inside each threshold; ``wall``: the subject hangs on a wall (for ``over``)."""
    s_oc, t_oc = np.asarray(s_oc, np.float64), np.asarray(t_oc, np.float64)
    if rtype == "next_to":
        return obb_gap(s_oc, s_oh, s_yaw, t_oc, t_oh, t_yaw) <= NEXT_TO_GAP - 0.1 * m
    if rtype == "over":  # above it by construction: the z intervals of what overlaps in plan never meet
        off, same = over_offset(s_oc, s_oh, s_yaw, t_yaw, t_oc, t_oh, wall)
        return same & (off <= OVER_OFFSET - 0.05 * m)
    tb = t_bounds
    cs, sn = np.cos(t_yaw), np.sin(t_yaw)
    rx, ry = s_oc[..., 0] - t_x, s_oc[..., 1] - t_y
    lu = cs * rx + sn * ry
    lv = -sn * rx + cs * ry
    if rtype == "facing":  # from outside the target's footprint (a chair tucked right under is not facing it)
        ang = np.arctan2(t_oc[..., 1] - s_oc[..., 1], t_oc[..., 0] - s_oc[..., 0])
        e = 0.05 * m
        outside = (lu < tb[0, 0] - e) | (lu > tb[1, 0] + e) | (lv < tb[0, 1] - e) | (lv > tb[1, 1] + e)
        return (np.abs(_wrap(ang - s_yaw)) <= FACING_ANGLE - math.radians(5) * m) & outside
    if rtype == "in_front_of":
        return (lu > tb[1, 0] + 0.02 * m) & (lu - tb[1, 0] <= FRONT_DISTANCE - 0.2 * m) & \
            (lv >= tb[0, 1] + 0.02 * m) & (lv <= tb[1, 1] - 0.02 * m)
    if rtype == "left_of":  # seen by someone facing the target: the target's -Y side
        return (lv < tb[0, 1] - 0.02 * m) & (tb[0, 1] - lv <= SIDE_DISTANCE - 0.2 * m) & \
            (lu >= tb[0, 0] - 0.3 + 0.05 * m) & (lu <= tb[1, 0] + 0.3 - 0.05 * m)
    if rtype == "right_of":
        return (lv > tb[1, 1] + 0.02 * m) & (lv - tb[1, 1] <= SIDE_DISTANCE - 0.2 * m) & \
            (lu >= tb[0, 0] - 0.3 + 0.05 * m) & (lu <= tb[1, 0] + 0.3 - 0.05 * m)
    raise InvalidInputError(f"relation {rtype!r} is not a pairwise relation")


def solve(plan: Any, geometries: dict[str, ObjectGeometry], seed: int = 0, config: SolverConfig | None = None,
          progress: ProgressCallback | None = None) -> Layout:
    """Lay out ``plan``'s instances (their ``geometries`` by instance name) in its room; see the module doc.

    Raises ``LayoutError`` when the request cannot fit or no layout was found within the budget.
    """
    cfg = config or SolverConfig()
    report = progress or (lambda f, m: None)
    start = time.perf_counter()
    room = tuple(float(v) for v in plan.room.size)
    objs = _order(_objects_from_plan(plan, geometries))
    feasibility(objs, room, cfg)  # type: ignore[arg-type]
    rel_names = [str(r) for o in objs for r in o.rels if r.type not in ("on", "under", "against_wall")]
    rel_names += [f"in_row({o.name})" for o in objs if o.row_prev]
    passes: list[tuple[set[str], bool, float]] = [(set(), cfg.navigation, 0.5)]
    if rel_names:
        passes.append((set(rel_names), cfg.navigation, 0.3))
    if cfg.navigation:
        passes.append((set(rel_names), False, 0.2))
    budget_end = start + cfg.time_budget
    last: _Solver | None = None
    why = ""
    for k, (relaxed, nav, share) in enumerate(passes):
        now = time.perf_counter()
        remaining = budget_end - now
        if remaining <= 0:
            break
        deadline = now + (remaining if k == len(passes) - 1 else remaining * share / sum(p[2] for p in passes[k:]))
        solver = _Solver(room, objs, cfg, seed, deadline, relaxed, nav)  # type: ignore[arg-type]
        rng = np.random.default_rng(seed)
        report(0.1 + 0.25 * k, f"searching a layout (pass {k + 1})")
        try:
            found = solver.search(0, rng)
        except _Fail as exc:
            found, why = False, str(exc)
        last = solver
        if not found:
            logger.info("layout pass %d failed after %d nodes (%s)", k + 1, solver.nodes, why or "exhausted")
            continue
        report(0.85, "refining the layout")
        moves = solver.refine(rng, budget_end)
        layout = Layout(room, {n: solver.placed[n].pose for n in solver.order},  # type: ignore[arg-type]
                        seconds=time.perf_counter() - start,
                        stats={"pass": k + 1, "nodes": solver.nodes, "backtracks": solver.backtracks,
                               "refine_moves": moves})
        layout.relaxed = sorted(relaxed) + ([] if nav or not cfg.navigation else ["navigation"])
        layout.unmet = unmet_constraints(solver)
        report(1.0, "layout found")
        return layout
    assert last is not None or not passes
    detail = ""
    culprits: dict[str, str] = {}
    if last is not None and last.deepest_fail is not None:
        name, reasons = last.deepest_fail
        top = sorted(reasons.items(), key=lambda kv: -kv[1])[:4]
        culprits[name] = "the layout search found no place for it" + (
            ": " + ", ".join(f"{k} ({v} poses)" for k, v in top) if top else "")
        detail = f"; {name} found no place: " + ", ".join(f"{k} ({v} poses)" for k, v in top) if top else \
            f"; {name} found no place"
        unplaced = [n for n in last.order if n not in last.deepest_placed]
        if len(unplaced) > 1:
            detail += f" (unplaced: {', '.join(unplaced[:8])}{' …' if len(unplaced) > 8 else ''})"
    spent = time.perf_counter() - start
    raise LayoutError(f"no layout found for {len(objs)} objects in the {room[0]:.2f} × {room[1]:.2f} m room "
                      f"after {spent:.1f} s{(' (' + why + ')') if why else ''}{detail}", culprits)


def unmet_constraints(solver: _Solver) -> list[str]:
    """Soft constraints the solver's final placement does not meet (readable lines)."""
    out = []
    for o in solver.objs.values():
        p = solver.placed[o.name]
        one = lambda a: np.array([a])  # noqa: E731
        for r in o.rels:
            if r.type in ("on", "under", "against_wall"):
                continue
            ok = solver.relation_ok(o, r, one(p.pose.x), one(p.pose.y), one(p.pose.yaw), p.oc[None], p.oh,
                                    strict=False)
            if ok is not None and not bool(ok[0]):
                out.append(f"{r} does not hold")
        if o.row_prev is not None:
            ok = solver.row_ok(o, one(p.pose.x), one(p.pose.y), one(p.pose.yaw), p.oc[None], p.oh, strict=False)
            if not bool(ok[0]):
                out.append(f"in_row: {o.name} is not in a row with {o.row_prev}")
    if solver.cfg.navigation and not solver.navigation:
        ok, why = solver.nav_ok()
        if not ok:
            out.append(f"navigation: {why}")
    return out


__all__ = ["OPENING_LABELS", "Layout", "LayoutError", "ObjectGeometry", "Placement", "SolverConfig", "SupportHoles",
           "feasibility", "obb_gap", "obb_overlap", "solve", "support_surface", "world_boxes"]
