"""Independent checks of a finished scene, computed from its meshes and poses (never from the solver's boxes).

``check_scene(scene, plan)`` measures what the scene benchmarks report (SceneEval / PhyScene / LayoutVLM):

- **collisions**: every pair of parts of two different objects is intersected exactly (manifold3d booleans on
  the welded part meshes); a pair collides when the intersection is thicker than ``tolerance`` (5 mm: the
  smallest extent of the intersection's bounding box, the depth for box-like overlaps);
- **in bounds**: every vertex lies inside the room (walls, floor, ceiling) within ``tolerance``;
- **support**: every object rests within 1 cm on the floor or on the top of another object under its centre; what
  is screwed to a wall (asset metadata ``mount == "wall"``: a clock, a switch, a window) is held by its wall when
  its back is within ``wall_tolerance`` of one and it faces the room (reported as ``"wall"``); what hangs from the
  ceiling (``mount == "ceiling"``: a pendant lamp) is held by it when its top is within 1 cm of it (``"ceiling"``);
- **relations**: each relation of the plan, tested on the meshes with the thresholds of ``seed3d.scene.plan``
  (``over``: what hangs from the ceiling has its bounds' centre within ``OVER_OFFSET`` of the target's in plan
  and its bottom above the target's top; what hangs on a wall is on the wall the target's back is against,
  centred on it along the wall within ``OVER_OFFSET``, its bottom above the target's top, or for one measured by
  its top (a curtain rod) its top);
- **navigability**: the floor is rasterised (``nav_cell``), every part's footprint (2-D convex hull) is an
  obstacle (but for objects whose bottom is above ``robot_height``: a wall clock, a window), the robot (radius
  ``robot_radius``) may stand where the distance to obstacles and walls exceeds its radius; the free cells must
  form one connected region (slivers, where the robot's centre has less than ``min_region`` of room or never
  ``min_slack`` beyond its radius, are not regions); an object is reachable when a free cell of the main region
  lies within ``reach`` of its footprint (in front of it when it opens);
- **articulated clearance**: every opening joint (doors, drawers, lids, screens) is posed at ``sweep_samples``
  values across its range (``seed3d.synth.kinematics.posed_meshes``); its moving parts must not cut into other
  objects (beyond ``tolerance``) nor leave the room (a door frame's own leaf may swing past its wall).
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from seed3d.asset import Mesh, Scene, SceneObject
from seed3d.scene.plan import CEILING_MOUNTED, DEFAULT_MOUNT, MOUNT_HEIGHTS, WALL_MOUNTED
from seed3d.scene.solve import (
    CENTRE_RADIUS,
    FACING_ANGLE,
    FRONT_DISTANCE,
    NEXT_TO_GAP,
    OPENING_LABELS,
    OVER_OFFSET,
    ROW_GAP,
    ROW_OFFSET,
    ROW_YAW,
    SIDE_DISTANCE,
    WALL_SWEEP_EXEMPT,
)
from seed3d.typed import FloatArray

logger = logging.getLogger(__name__)


@dataclass
class CheckConfig:
    """Thresholds of ``check_scene``."""

    tolerance: float = 0.005
    """Largest interpenetration (m) that does not count as a collision; also the in-bounds slack."""
    support_tolerance: float = 0.01
    """Largest gap (m) between an object's bottom and the surface it rests on."""
    wall_tolerance: float = 0.02
    """Largest gap (m) between a wall object's back and its wall."""
    robot_radius: float = 0.1
    """Radius (m) of the robot (0.2 m robot)."""
    robot_height: float = 0.5
    """Height (m) of the robot: objects whose bottom is higher (hung on a wall) do not block the floor."""
    nav_cell: float = 0.02
    """Cell size (m) of the navigation raster."""
    reach: float = 1.0
    """How far (m) from an object's footprint (its front, for objects that open) the robot may stand."""
    min_region: float = 0.01
    """Free regions where the robot's centre has less room than this (m²) are slivers, not places; ignored."""
    min_slack: float = 0.03
    """Free regions where the robot never has this much room (m) beyond its radius are slivers too (a 2 cm wide
    strip along a wall behind furniture); ignored."""
    sweep_samples: int = 7
    """Joint values checked across each opening joint's range."""


# --------------------------------------------------------------------------------------------- geometry


def _manifold(mesh: Mesh) -> Any:
    """An exact manifold3d solid of a closed mesh (its convex hull when the mesh is not closed)."""
    import manifold3d

    welded = mesh.welded()
    man = welded.to_manifold()
    if man.status() != manifold3d.Error.NoError or man.is_empty():
        man = manifold3d.Manifold.hull_points(welded.vertices)
    return man


def intersection_depth(a: Any, b: Any) -> float:
    """Thickness (m) of the intersection of two manifolds: the smallest side of its bounding box (0 if apart)."""
    inter = a ^ b
    if inter.is_empty() or inter.volume() < 1e-10:
        return 0.0
    lo, hi = np.asarray(inter.bounding_box()[:3]), np.asarray(inter.bounding_box()[3:])
    return float(np.min(hi - lo))


def world_meshes(obj: SceneObject, values: dict[str, float] | None = None) -> dict[str, Mesh]:
    """Every part mesh of a scene object in the room frame (joints at ``values``, others at rest)."""
    from seed3d.synth.kinematics import posed_meshes

    pose = obj.pose()
    if values:
        meshes = posed_meshes(obj.asset, values)
        return {n: m.transformed(pose) for n, m in meshes.items()}
    return {p.name: p.mesh.transformed(pose) for p in obj.asset.parts if len(p.mesh.faces)}


def _hull2d(points: FloatArray) -> FloatArray:
    """Counter-clockwise 2-D convex hull (monotone chain)."""
    pts = np.unique(np.round(points, 9), axis=0)
    if len(pts) < 3:
        return pts
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]

    def half(seq: FloatArray) -> list[FloatArray]:
        out: list[FloatArray] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _inside(point: FloatArray, poly: FloatArray) -> bool:
    if len(poly) < 3:
        return False
    e = np.roll(poly, -1, axis=0) - poly
    rel = point - poly
    return bool(np.all(e[:, 0] * rel[:, 1] - e[:, 1] * rel[:, 0] >= -1e-9))


def _seg_dist(p: FloatArray, a: FloatArray, b: FloatArray) -> FloatArray:
    """(N, M) distances from points ``p`` (N, 2) to segments ``a[j]``–``b[j]`` (M, 2)."""
    ab = b - a
    t = ((p[:, None, :] - a[None]) * ab[None]).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-18)[None]
    proj = a[None] + np.clip(t, 0.0, 1.0)[..., None] * ab[None]
    return np.linalg.norm(p[:, None, :] - proj, axis=-1)


def polygon_gap(p: FloatArray, q: FloatArray) -> float:
    """Distance between two convex polygons (0 when they overlap)."""
    if _inside(p.mean(0), q) or _inside(q.mean(0), p) or any(_inside(v, q) for v in p) or \
            any(_inside(v, p) for v in q):
        return 0.0
    d1 = _seg_dist(p, q, np.roll(q, -1, axis=0)).min()
    d2 = _seg_dist(q, p, np.roll(p, -1, axis=0)).min()
    return float(min(d1, d2))


@dataclass
class _ObjInfo:
    name: str
    obj: SceneObject
    meshes: dict[str, Mesh]
    verts: FloatArray
    poly: FloatArray
    centre: FloatArray
    zmin: float
    zmax: float
    front: FloatArray
    tris: FloatArray

    @property
    def bottom(self) -> FloatArray:
        """xy of the vertices within 5 mm of the object's lowest point (where it touches what carries it)."""
        return self.verts[self.verts[:, 2] <= self.zmin + 0.005, :2]

    def local(self, pts: FloatArray) -> FloatArray:
        """Room xy points in this object's frame (x forward, y left)."""
        c, s = math.cos(self.obj.yaw), math.sin(self.obj.yaw)
        rel = np.atleast_2d(pts) - self.obj.position[:2]
        return np.stack([c * rel[:, 0] + s * rel[:, 1], -s * rel[:, 0] + c * rel[:, 1]], -1)


def _infos(scene: Scene) -> dict[str, _ObjInfo]:
    out = {}
    for o in scene.objects:
        meshes = world_meshes(o)
        verts = np.concatenate([m.vertices for m in meshes.values()])
        poly = _hull2d(verts[:, :2])
        lo, hi = verts[:, :2].min(0), verts[:, :2].max(0)
        tris = np.concatenate([m.vertices[m.faces] for m in meshes.values()])
        out[o.name] = _ObjInfo(o.name, o, meshes, verts, poly, (lo + hi) / 2, float(verts[:, 2].min()),
                               float(verts[:, 2].max()), np.array([math.cos(o.yaw), math.sin(o.yaw)]), tris)
    return out


# --------------------------------------------------------------------------------------------- the checks


def _collisions(infos: dict[str, _ObjInfo], tol: float) -> list[dict[str, Any]]:
    names = list(infos)
    solids: dict[tuple[str, str], Any] = {}
    hits = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            A, B = infos[a], infos[b]
            if np.any(A.verts.min(0) > B.verts.max(0) + tol) or np.any(B.verts.min(0) > A.verts.max(0) + tol):
                continue
            worst, pair = 0.0, None
            for pa, ma in A.meshes.items():
                for pb, mb in B.meshes.items():
                    if np.any(ma.bounds[0] > mb.bounds[1]) or np.any(mb.bounds[0] > ma.bounds[1]):
                        continue
                    sa = solids.setdefault((a, pa), _manifold(ma))
                    sb = solids.setdefault((b, pb), _manifold(mb))
                    d = intersection_depth(sa, sb)
                    if d > worst:
                        worst, pair = d, (pa, pb)
            if worst > tol:
                hits.append({"objects": [a, b], "parts": list(pair or ()), "depth": round(worst, 4)})
    return hits


def _out_of_bounds(infos: dict[str, _ObjInfo], size: FloatArray, tol: float) -> list[dict[str, Any]]:
    W, D, H = (float(v) for v in size)
    out = []
    for n, info in infos.items():
        v = info.verts
        over = max(float(np.max(np.abs(v[:, 0]))) - W / 2, float(np.max(np.abs(v[:, 1]))) - D / 2,
                   -info.zmin, info.zmax - H)
        if over > tol:
            out.append({"object": n, "outside_by": round(over, 4)})
    return out


def surface_below(tris: FloatArray, points: FloatArray, zmax: float) -> float | None:
    """Highest z ≤ ``zmax`` of the triangles (F, 3, 3) straight below any of the xy ``points`` (P, 2), or None."""
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    v0, v1 = (b - a)[:, :2], (c - a)[:, :2]
    det = v0[:, 0] * v1[:, 1] - v0[:, 1] * v1[:, 0]
    ok = np.abs(det) > 1e-14
    a, b, c, v0, v1, det = a[ok], b[ok], c[ok], v0[ok], v1[ok], det[ok]
    rel = points[:, None, :] - a[None, :, :2]
    u = (rel[..., 0] * v1[:, 1] - rel[..., 1] * v1[:, 0]) / det
    v = (v0[:, 0] * rel[..., 1] - v0[:, 1] * rel[..., 0]) / det
    inside = (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9)
    z = a[None, :, 2] + u * (b[None, :, 2] - a[None, :, 2]) + v * (c[None, :, 2] - a[None, :, 2])
    z = np.where(inside & (z <= zmax), z, -np.inf)
    best = float(z.max()) if z.size else -math.inf
    return best if math.isfinite(best) else None


def _rests_on(info: _ObjInfo, other: _ObjInfo, tol: float) -> tuple[bool, float | None]:
    """Whether ``info`` rests on ``other``: its centre over ``other``'s footprint and a surface of ``other``
    within ``tol`` under its lowest points."""
    if other.zmax < info.zmin - tol or other.zmin >= info.zmin:
        return False, None
    top = surface_below(other.tris, info.bottom[:64], info.zmin + tol)
    if top is None:
        return False, None
    return _inside(info.centre, other.poly) and abs(top - info.zmin) <= tol, top


def mount_of(obj: SceneObject) -> str:
    """How a scene object is held: its asset's ``mount``, else its category's (``WALL_MOUNTED``:
    ``"wall"``, ``CEILING_MOUNTED``: ``"ceiling"``), else ``"floor"``."""
    mount = obj.asset.metadata.get("mount")
    if mount is None:
        category = str(obj.asset.metadata.get("category", ""))
        return "wall" if category in WALL_MOUNTED else "ceiling" if category in CEILING_MOUNTED else "floor"
    return str(mount)


def wall_mounted(obj: SceneObject) -> bool:
    """Whether a scene object is screwed to a wall (``mount_of``)."""
    return mount_of(obj) == "wall"


_INWARD = {"north": (0.0, -1.0), "south": (0.0, 1.0), "east": (-1.0, 0.0), "west": (1.0, 0.0)}


def _wall_gaps(s: _ObjInfo, size: FloatArray) -> dict[str, float]:
    """Gap (m) between the object and each wall (negative: through it)."""
    W, D = float(size[0]), float(size[1])
    return {"north": D / 2 - s.verts[:, 1].max(), "south": s.verts[:, 1].min() + D / 2,
            "east": W / 2 - s.verts[:, 0].max(), "west": s.verts[:, 0].min() + W / 2}


def _against(s: _ObjInfo, size: FloatArray, walls: list[str], tol: float) -> str | None:
    """The first of ``walls`` the object's back is within ``tol`` of, facing the room (±10°), or None."""
    gaps = _wall_gaps(s, size)
    for w in walls:
        # the back is what touches: measure at the object's back, not a door swung past it
        if gaps[w] <= tol and float(np.dot(s.front, _INWARD[w])) >= math.cos(math.radians(10)):
            return w
    return None


def _support(infos: dict[str, _ObjInfo], tol: float, size: FloatArray | None = None, wall_tol: float = 0.02
             ) -> dict[str, str | None]:
    """Each object → 'floor', the object it rests on, 'wall' (screwed to a wall it touches), 'ceiling' (hung from
    the ceiling its top touches), or None (floating or sunk)."""
    out: dict[str, str | None] = {}
    for n, info in infos.items():
        if abs(info.zmin) <= tol:
            out[n] = "floor"
            continue
        if size is not None and wall_mounted(info.obj) and _against(info, size, list(_INWARD), wall_tol):
            out[n] = "wall"
            continue
        if size is not None and mount_of(info.obj) == "ceiling" and abs(float(size[2]) - info.zmax) <= tol:
            out[n] = "ceiling"
            continue
        out[n] = None
        for m, other in infos.items():
            if m != n and _rests_on(info, other, tol)[0]:
                out[n] = m
                break
    return out


def _relation(rel: Any, infos: dict[str, _ObjInfo], size: FloatArray, cfg: CheckConfig) -> tuple[bool, str]:
    s = infos.get(rel.subject)
    if s is None:
        return False, "subject missing"
    if rel.type == "against_wall":
        gaps = _wall_gaps(s, size)
        walls = list(_INWARD) if rel.target in (None, "wall") else [rel.target]
        w = _against(s, size, walls, cfg.wall_tolerance)
        if w is not None:
            return True, f"{w} wall, gap {gaps[w]:.3f} m"
        best = min(walls, key=lambda w: gaps[w])
        return False, f"nearest wall {best} gap {gaps[best]:.3f} m, facing {float(np.dot(s.front, _INWARD[best])):.2f}"
    if rel.type == "centred":
        d = float(np.linalg.norm(s.centre))
        return d <= CENTRE_RADIUS, f"{d:.2f} m from the centre"
    if rel.type == "in_row":
        names = (rel.target or "").split(",")
        items = [infos[n] for n in names if n in infos]
        if len(items) < 2:
            return False, "fewer than two instances"
        for a, b in itertools.pairwise(items):
            dyaw = abs((b.obj.yaw - a.obj.yaw + math.pi) % (2 * math.pi) - math.pi)
            along = float(np.dot(b.centre - a.centre, a.front))
            la, lb = a.local(a.poly), b.local(b.poly)
            backs = float(np.dot(b.centre - a.centre, a.front) - (lb[:, 0].max() - lb[:, 0].min()) / 2
                          + (la[:, 0].max() - la[:, 0].min()) / 2)
            gap = polygon_gap(a.poly, b.poly)
            if dyaw > ROW_YAW / 2 + 1e-6 or min(abs(along), abs(backs)) > ROW_OFFSET or gap > ROW_GAP:
                return False, f"{a.name}→{b.name}: yaw {math.degrees(dyaw):.1f}°, offset {min(abs(along), abs(backs)):.2f} m, gap {gap:.2f} m"  # noqa: E501
        return True, f"{len(items)} in a row"
    t = infos.get(rel.target or "")
    if t is None:
        return False, f"target {rel.target!r} missing"
    if rel.type == "on":
        ok, top = _rests_on(s, t, cfg.support_tolerance)
        return ok, f"bottom {s.zmin:.3f} m, surface of {t.name} below: " + ("none" if top is None else f"{top:.3f} m")
    if rel.type == "under":
        ok = _inside(s.centre, t.poly) and s.zmax < t.zmax and s.zmin <= cfg.support_tolerance
        return ok, f"top {s.zmax:.2f} m under {t.zmax:.2f} m"
    if rel.type == "next_to":  # side by side at the same level (what hangs on a wall: beside it along the wall)
        gap = polygon_gap(s.poly, t.poly)
        level = abs(s.zmin - t.zmin) < 0.5 or wall_mounted(s.obj) or wall_mounted(t.obj)
        return gap <= NEXT_TO_GAP and level, f"gap {gap:.2f} m"
    if rel.type == "over":
        return _over(s, t, size, cfg)
    if rel.type == "facing":
        d = t.centre - s.centre
        ang = abs(math.atan2(d[1], d[0]) - s.obj.yaw)
        ang = abs((ang + math.pi) % (2 * math.pi) - math.pi)
        if _inside(s.centre, t.poly):
            return False, f"its centre is under {t.name}"
        return ang <= FACING_ANGLE, f"off by {math.degrees(ang):.0f}°"
    lt = t.local(t.poly)
    lo, hi = lt.min(0), lt.max(0)
    c = t.local(s.centre)[0]
    if rel.type == "in_front_of":
        ok = c[0] > hi[0] and c[0] - hi[0] <= FRONT_DISTANCE and lo[1] <= c[1] <= hi[1]
        return ok, f"{c[0] - hi[0]:.2f} m in front, lateral {c[1]:.2f} m"
    if rel.type in ("left_of", "right_of"):
        side = lo[1] - c[1] if rel.type == "left_of" else c[1] - hi[1]
        ok = side > 0 and side <= SIDE_DISTANCE and lo[0] - 0.3 <= c[0] <= hi[0] + 0.3
        return ok, f"{side:.2f} m beyond the {'left' if rel.type == 'left_of' else 'right'} side"
    return False, f"unknown relation {rel.type}"


def _over(s: _ObjInfo, t: _ObjInfo, size: FloatArray, cfg: CheckConfig) -> tuple[bool, str]:
    """Whether ``s`` hangs over ``t`` (see the module doc), and how far off it is."""
    lt = t.local(t.poly)
    off = t.local(s.centre)[0] - (lt.min(0) + lt.max(0)) / 2  # from the target's centre, in its frame
    category = str(s.obj.asset.metadata.get("category", ""))
    if wall_mounted(s.obj) and MOUNT_HEIGHTS.get(category, DEFAULT_MOUNT)[0] == "top":
        above, height = s.zmax > t.zmax, f"top {s.zmax:.2f} m"  # a curtain rod: its curtains hang lower
    else:
        above, height = s.zmin >= t.zmax - cfg.tolerance, f"bottom {s.zmin:.2f} m"
    height += f" over a {t.zmax:.2f} m top"
    if not wall_mounted(s.obj):
        d = float(np.hypot(*off))
        return d <= OVER_OFFSET and above, f"{d:.3f} m off its centre, {height}"
    w = _against(s, size, list(_INWARD), cfg.wall_tolerance)
    if w is None or _against(t, size, [w], cfg.wall_tolerance) is None:
        return False, f"not on the wall {t.name} is against" if w is not None else "not on a wall"
    d = abs(float(off[1]))
    return d <= OVER_OFFSET and above, f"{w} wall, {d:.3f} m off its centre along it, {height}"


def _navigation(infos: dict[str, _ObjInfo], size: FloatArray, cfg: CheckConfig, openable: dict[str, int]
                ) -> dict[str, Any]:
    from PIL import Image, ImageDraw
    from scipy import ndimage

    W, D = float(size[0]), float(size[1])
    c = cfg.nav_cell
    nx, ny = max(1, round(W / c)), max(1, round(D / c))
    img = Image.new("1", (nx, ny), 0)
    draw = ImageDraw.Draw(img)

    def px(p: FloatArray) -> list[tuple[float, float]]:
        return [((x + W / 2) / c - 0.5, (y + D / 2) / c - 0.5) for x, y in p]

    masks = {}
    for n, info in infos.items():
        one = Image.new("1", (nx, ny), 0)
        d1 = ImageDraw.Draw(one)
        above = info.zmin > cfg.robot_height  # hung on a wall above the robot: no obstacle
        for m in info.meshes.values():
            hull = _hull2d(m.vertices[:, :2])
            if len(hull) >= 3:
                if not above:
                    draw.polygon(px(hull), fill=1)
                d1.polygon(px(hull), fill=1)
        masks[n] = np.asarray(one, bool).T
    occupied = np.asarray(img, bool).T  # (nx, ny), x first
    padded = np.pad(occupied, 1, constant_values=True)  # the walls
    dist = ndimage.distance_transform_edt(~padded)[1:-1, 1:-1] * c
    free = dist > cfg.robot_radius
    labels, count = ndimage.label(free)
    if count:
        sizes = np.bincount(labels.ravel())[1:] * c * c
        peak = ndimage.maximum(dist, labels, index=np.arange(1, count + 1))
        small = np.nonzero((sizes < cfg.min_region) | (np.asarray(peak) < cfg.robot_radius + cfg.min_slack))[0] + 1
        if len(small):
            free &= ~np.isin(labels, small)
            labels, count = ndimage.label(free)
    main = int(np.argmax(np.bincount(labels.ravel())[1:])) + 1 if count else 0
    gx = (np.arange(nx) + 0.5) * c - W / 2
    gy = (np.arange(ny) + 0.5) * c - D / 2
    X, Y = np.meshgrid(gx, gy, indexing="ij")
    reach, fronts = {}, {}
    for n, info in infos.items():
        near = ndimage.distance_transform_edt(~masks[n]) * c <= cfg.reach
        ok_cells = near & (labels == main) if main else np.zeros_like(near)
        reach[n] = bool(ok_cells.any())
        if openable.get(n):
            loc = info.local(np.stack([X.ravel(), Y.ravel()], -1)).reshape(nx, ny, 2)
            lb = info.local(info.verts[:, :2])
            body = _body_front(info)
            region = (loc[..., 0] >= body) & (loc[..., 0] <= body + cfg.reach) & \
                     (loc[..., 1] >= lb[:, 1].min() - 0.3) & (loc[..., 1] <= lb[:, 1].max() + 0.3)
            fronts[n] = bool((region & (labels == main)).any()) if main else False
    return {"navigable": count == 1, "components": int(count),
            "free_area_m2": round(float(free.sum()) * c * c, 3), "reachable": reach, "fronts_reachable": fronts}


def _body_front(info: _ObjInfo) -> float:
    """Local x of the object's front face at rest (its parts' bounds, doors closed)."""
    rest = np.concatenate([p.mesh.vertices for p in info.obj.asset.parts if len(p.mesh.faces)])
    return float(rest[:, 0].max())


def _articulation(infos: dict[str, _ObjInfo], size: FloatArray, cfg: CheckConfig
                  ) -> dict[str, dict[str, Any]]:
    W, D, H = (float(v) for v in size)
    solids: dict[tuple[str, str], Any] = {}
    out: dict[str, dict[str, Any]] = {}
    for n, info in infos.items():
        asset = info.obj.asset
        joints = [j for j in asset.joints if j.type in ("revolute", "prismatic") and j.upper > j.lower
                  and asset.part(j.child).label in OPENING_LABELS]
        if not joints:
            continue
        hits: list[str] = []
        walls = str(asset.metadata.get("category", "")) not in WALL_SWEEP_EXEMPT
        for j in joints:
            moving = set(asset.subtree(j.child))
            worst = 0.0
            for v in np.linspace(j.lower, j.upper, cfg.sweep_samples)[1:]:
                posed = world_meshes(info.obj, {j.name: float(v)})
                mv = [posed[p] for p in moving if len(posed[p].faces)]
                pts = np.concatenate([m.vertices for m in mv])
                if walls:
                    over = max(float(np.max(np.abs(pts[:, 0]))) - W / 2, float(np.max(np.abs(pts[:, 1]))) - D / 2)
                    if over > cfg.tolerance:
                        hits.append(f"{j.name} at {v:.2f}: {over:.3f} m into a wall")
                        break
                if pts[:, 2].min() < -cfg.tolerance or pts[:, 2].max() > H + cfg.tolerance:
                    hits.append(f"{j.name} at {v:.2f}: through the floor or ceiling")
                    break
                lo, hi = pts.min(0), pts.max(0)
                for m, other in infos.items():
                    if m == n or np.any(other.verts.min(0) > hi + cfg.tolerance) or \
                            np.any(other.verts.max(0) < lo - cfg.tolerance):
                        continue
                    for pb, mb in other.meshes.items():
                        if np.any(mb.bounds[0] > hi) or np.any(mb.bounds[1] < lo):
                            continue
                        sb = solids.setdefault((m, pb), _manifold(mb))
                        for mesh in mv:
                            if np.any(mesh.bounds[0] > mb.bounds[1]) or np.any(mesh.bounds[1] < mb.bounds[0]):
                                continue
                            worst = max(worst, intersection_depth(_manifold(mesh), sb))
                            if worst > cfg.tolerance:
                                hits.append(f"{j.name} at {v:.2f} hits {m}/{pb} ({worst:.3f} m)")
                                break
                        if worst > cfg.tolerance:
                            break
                    if worst > cfg.tolerance:
                        break
                if worst > cfg.tolerance:
                    break
        out[n] = {"ok": not hits, "joints": len(joints), "hits": hits}
    return out


def check_scene(scene: Scene, plan: Any = None, config: CheckConfig | None = None) -> dict[str, Any]:
    """Measure a scene (see the module doc); ``plan`` (a ``LayoutPlan``) adds the relation checks."""
    cfg = config or CheckConfig()
    infos = _infos(scene)
    collisions = _collisions(infos, cfg.tolerance)
    oob = _out_of_bounds(infos, scene.size, cfg.tolerance)
    support = _support(infos, cfg.support_tolerance, np.asarray(scene.size, np.float64), cfg.wall_tolerance)
    relations = []
    if plan is not None:
        for r in plan.instance_relations():
            ok, detail = _relation(r, infos, scene.size, cfg)
            relations.append({"relation": str(r), "source": r.source, "ok": bool(ok), "detail": detail})
    openable = {n: sum(1 for j in i.obj.asset.joints if j.type in ("revolute", "prismatic") and j.upper > j.lower
                       and i.obj.asset.part(j.child).label in OPENING_LABELS) for n, i in infos.items()}
    nav = _navigation(infos, scene.size, cfg, openable)
    art = _articulation(infos, scene.size, cfg)
    n = max(1, len(infos))
    rel_ok = [r["ok"] for r in relations]
    text_ok = [r["ok"] for r in relations if r["source"] == "text"]
    return {
        "objects": len(infos),
        "collision_free": not collisions, "collisions": collisions,
        "in_bounds": not oob, "out_of_bounds": oob,
        "support": support, "support_rate": sum(v is not None for v in support.values()) / n,
        "relations": relations,
        "relation_rate": float(np.mean(rel_ok)) if rel_ok else None,
        "text_relation_rate": float(np.mean(text_ok)) if text_ok else None,
        "navigable": nav["navigable"], "nav_components": nav["components"], "free_area_m2": nav["free_area_m2"],
        "reachable": nav["reachable"], "fronts_reachable": nav["fronts_reachable"],
        "reachable_rate": sum(nav["reachable"].values()) / n,
        "articulated": art,
        "articulated_rate": (sum(v["ok"] for v in art.values()) / len(art)) if art else None,
    }


__all__ = ["CheckConfig", "check_scene", "intersection_depth", "polygon_gap", "wall_mounted", "world_meshes"]
