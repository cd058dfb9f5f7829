"""Exact convex collision pieces by construction, so simulated clearances match the visual ones.

A general convex decomposition (CoACD) fits hulls to within a few millimetres to centimetres, which is more
than the clearance of a drawer in its carcass or a cap on a bottle neck. Synthetic parts are built from
primitives, so their pieces can be exact instead:

- ``rectilinear_boxes``: any closed mesh whose faces are all axis-aligned (carcasses, drawers, trays, door
  frames) split exactly into boxes on the grid of its own vertex coordinates, merged greedily.
- ``subtract_prism``: convex pieces minus a convex prism cutter (a round cavity, a channel, a pocket): each
  piece is split into the parts beyond each side of the cutter's cross-section, each one convex.
- ``annulus_sectors``: a thick ring (a collar, a cap's skirt) as angular sectors whose outer faces lie on the
  ring's polygon and whose inner chords stay inside its hole.
- ``reduced_hull``: the hull of a convex part with at most ``max_vertices`` of its own vertices and at most
  ``max_polygons`` face planes (inside it), within the GPU simulators' caps.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.primitives import _to_manifold, box, cylinder_between, hull
from seed3d.typed import FloatArray

MAX_HULL_VERTICES = 60
#: Most face planes per hull (PhysX GPU convexes allow 64 polygons; ``seed3d.physics.CollisionConfig``'s cap).
MAX_HULL_POLYGONS = 64


def is_rectilinear(mesh: Mesh, tol: float = 1e-9) -> bool:
    """True when every face normal is along ±X, ±Y or ±Z."""
    t = mesh.vertices[mesh.faces]
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    norm = np.linalg.norm(n, axis=1)
    keep = norm > 1e-18
    if not np.any(keep):
        return False
    a = np.abs(n[keep]) / norm[keep, None]
    return bool(np.all(np.sum(a > tol, axis=1) == 1))


def rectilinear_boxes(mesh: Mesh) -> list[Mesh]:
    """Exact box decomposition of a closed axis-aligned mesh (see ``is_rectilinear``).

    Grid lines are the distinct vertex coordinates; a cell is inside when a ray from a point inside it
    crosses the mesh's horizontal faces an odd number of times; inside cells are merged greedily along X,
    then Y, then Z into boxes.
    """
    v, f = mesh.vertices, mesh.faces
    grids = [np.unique(np.round(v[:, k], 10)) for k in range(3)]
    probe = [g[:-1] + (g[1:] - g[:-1]) * frac for g, frac in zip(grids, (0.4567, 0.5123, 0.3931), strict=True)]
    t = v[f]
    n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    horiz = np.abs(n[:, 2]) > 0.5 * np.linalg.norm(n, axis=1)
    tri = t[horiz]
    px, py = np.meshgrid(probe[0], probe[1], indexing="ij")
    pts = np.stack([px.ravel(), py.ravel()], 1)  # (C, 2) column probes
    a, b, c = tri[:, 0, :2], tri[:, 1, :2], tri[:, 2, :2]

    def cross2(o: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return (p[:, None, 0] - o[:, None, 0]) * (q[None, :, 1] - o[:, None, 1]) - (
            p[:, None, 1] - o[:, None, 1]) * (q[None, :, 0] - o[:, None, 0])

    d1, d2, d3 = cross2(a, b, pts), cross2(b, c, pts), cross2(c, a, pts)
    inside_tri = ((d1 > 0) & (d2 > 0) & (d3 > 0)) | ((d1 < 0) & (d2 < 0) & (d3 < 0))  # (F, C)
    tz = tri[:, 0, 2]
    above = tz[:, None] > probe[2][None, :]  # (F, Z)
    counts = np.einsum("fc,fz->cz", inside_tri.astype(np.int64), above.astype(np.int64))
    solid = (counts % 2 == 1).reshape(len(probe[0]), len(probe[1]), len(probe[2]))
    return [box(lo, hi) for lo, hi in _greedy_boxes(solid, grids)]


def _greedy_boxes(solid: np.ndarray, grids: list[np.ndarray]) -> list[tuple[FloatArray, FloatArray]]:
    """Merge the True cells of a 3-D grid into boxes: grow along X, then Y, then Z."""
    todo = solid.copy()
    nx, ny, nz = todo.shape
    out = []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                if not todo[i, j, k]:
                    continue
                i1 = i + 1
                while i1 < nx and todo[i1, j, k]:
                    i1 += 1
                j1 = j + 1
                while j1 < ny and todo[i:i1, j1, k].all():
                    j1 += 1
                k1 = k + 1
                while k1 < nz and todo[i:i1, j:j1, k1].all():
                    k1 += 1
                todo[i:i1, j:j1, k:k1] = False
                out.append((np.array([grids[0][i], grids[1][j], grids[2][k]]),
                            np.array([grids[0][i1], grids[1][j1], grids[2][k1]])))
    return out


def polygon_count(mesh: Mesh) -> int:
    """Distinct face planes of a convex mesh (coplanar triangles form one polygon), as the physics validator and
    the GPU caps count them."""
    p = mesh.vertices[mesh.faces]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    norm = np.linalg.norm(normal, axis=1)
    keep = norm > 0
    normal = normal[keep] / norm[keep, None]
    scale = max(float(np.ptp(mesh.vertices, axis=0).max()), 1e-12)
    offset = np.einsum("ij,ij->i", normal, p[keep, 0]) / scale
    planes = np.round(np.concatenate([normal, offset[:, None]], axis=1), 6) + 0.0
    return len(np.unique(planes, axis=0))


def reduced_hull(points: FloatArray | Mesh, max_vertices: int = MAX_HULL_VERTICES,
                 max_polygons: int = MAX_HULL_POLYGONS) -> Mesh:
    """Convex hull of at most ``max_vertices`` of the points with at most ``max_polygons`` face planes
    (farthest-point sampled: it never grows; fewer vertices are sampled until the planes fit the cap)."""
    pts = points.vertices if isinstance(points, Mesh) else np.asarray(points, np.float64).reshape(-1, 3)
    h = hull(pts)
    if len(h.vertices) <= max_vertices and polygon_count(h) <= max_polygons:
        return h
    hv = h.vertices
    first = int(np.argmin(hv[:, 0] + 1e-3 * hv[:, 1] + 1e-6 * hv[:, 2]))
    dist = np.linalg.norm(hv - hv[first], axis=1)
    order = [first]
    for _ in range(min(max_vertices, len(hv)) - 1):
        nxt = int(np.argmax(dist))
        order.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(hv - hv[nxt], axis=1))
    # a prefix of the farthest-point order is itself farthest-point sampled; a triangulated hull of n vertices has
    # at most 2n - 4 faces, so n = max_polygons / 2 + 2 always fits
    n = min(max_vertices, len(hv))
    while True:
        out = hull(hv[order[:n]])
        if polygon_count(out) <= max_polygons or n <= 4:
            return out
        n = max(4, n - 2)


def _trim(piece, normal: FloatArray, offset: float):  # type: ignore[no-untyped-def]
    """The part of a manifold where normal · x >= offset (manifold takes a unit normal's offset)."""
    n = np.asarray(normal, np.float64)
    length = float(np.linalg.norm(n))
    return piece.trim_by_plane(tuple(float(x) for x in n / length), float(offset) / length)


def subtract_prism(pieces: list[Mesh], cutter: Mesh, axis: FloatArray, min_volume: float = 1e-9) -> list[Mesh]:
    """Convex ``pieces`` minus a convex prism ``cutter`` whose sides are parallel to ``axis``: convex pieces.

    Each piece overlapping the cutter is cut at the cutter's two end planes; the middle slab is split into
    one convex part per side of the cutter's cross-section polygon (the region beyond that side, within the
    angular wedge of the side seen from the polygon's centre).
    """
    from scipy.spatial import ConvexHull

    ax = np.asarray(axis, np.float64)
    ax = ax / np.linalg.norm(ax)
    helper = np.array([1.0, 0, 0]) if abs(ax[0]) < 0.9 else np.array([0, 1.0, 0])
    e1 = np.cross(ax, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(ax, e1)
    cv = cutter.vertices
    t = cv @ ax
    t0, t1 = float(t.min()), float(t.max())
    uv = np.stack([cv @ e1, cv @ e2], 1)
    ring = uv[ConvexHull(uv).vertices]  # counter-clockwise in (e1, e2)
    centre2 = ring.mean(axis=0)
    clo, chi = cutter.bounds
    out: list[Mesh] = []
    for piece in pieces:
        plo, phi = piece.bounds
        if np.any(phi <= clo) or np.any(plo >= chi):
            out.append(piece)
            continue
        man = _to_manifold(piece)
        below, above = _trim(man, -ax, -t0), _trim(man, ax, t1)
        middle = _trim(_trim(man, ax, t0), -ax, -t1)
        kept = [below, above]
        m = len(ring)
        for i in range(m):
            p, q = ring[i], ring[(i + 1) % m]
            edge_out = np.array([q[1] - p[1], -(q[0] - p[0])])  # outward normal of a CCW edge (2-D)
            part = _trim(middle, edge_out[0] * e1 + edge_out[1] * e2, float(edge_out @ p))
            # wedge between the rays centre→p and centre→q
            rp, rq = p - centre2, q - centre2
            n_p = np.array([-rp[1], rp[0]])  # left of centre→p
            n_q = np.array([rq[1], -rq[0]])  # right of centre→q
            part = _trim(part, n_p[0] * e1 + n_p[1] * e2, float(n_p @ centre2))
            part = _trim(part, n_q[0] * e1 + n_q[1] * e2, float(n_q @ centre2))
            kept.append(part)
        for k in kept:
            if not k.is_empty() and k.volume() > min_volume:
                out.append(reduced_hull(Mesh.from_manifold(k)))
    return out


def annulus_sectors(r_in: float, r_out: float, z0: float, z1: float, segments: int = 48, sectors: int = 16,
                    phase: float = 0.0) -> list[Mesh]:
    """Convex pieces of a ring about +Z (radii ``r_in``..``r_out``, heights ``z0``..``z1``), matching a
    ``lathe`` ring of ``segments``: each sector is the hull of that ring's vertices within it."""
    per = max(segments // sectors, 1)
    pieces = []
    for s in range(0, segments, per):
        j = np.arange(s, min(s + per, segments) + 1)
        ang = phase + 2 * np.pi * j / segments
        c, sn = np.cos(ang), np.sin(ang)
        pts = [np.stack([r * c, r * sn, np.full_like(c, z)], 1) for r in (r_in, r_out) for z in (z0, z1)]
        pieces.append(hull(np.concatenate(pts)))
    return pieces


def ring_pieces(loop: list[tuple[float, float]], sectors: int = 32) -> list[Mesh]:
    """Convex collision pieces of a solid of revolution about +Z whose (r, z) outline ``loop`` is convex: one hull
    per angular sector (outer faces are chords inside the surface; inner chords reach less than a millimetre into
    the hole)."""
    rz = np.asarray(loop, np.float64)
    out = []
    for k in range(sectors):
        a = 2 * np.pi * np.array([k, k + 1]) / sectors
        pts = [[r * np.cos(t), r * np.sin(t), z] for t in a for r, z in rz]
        out.append(hull(np.array(pts)))
    return out


def arc_pieces(centre: FloatArray, radius: float, tube: float, a0: float, a1: float, normal: FloatArray,
                start: FloatArray, segments: int = 24) -> list[Mesh]:
    """Convex pieces of a tube bent along a circular arc: short straight cylinders between points on it (the arc
    lies in the plane through ``centre`` normal to ``normal``; angle 0 points along ``start``)."""
    c = np.asarray(centre, np.float64)
    u = np.asarray(start, np.float64) / np.linalg.norm(start)
    w = np.cross(np.asarray(normal, np.float64) / np.linalg.norm(normal), u)
    ts = np.linspace(a0, a1, segments + 1)
    pts = [c + radius * (np.cos(t) * u + np.sin(t) * w) for t in ts]
    return [reduced_hull(cylinder_between(pts[i], pts[i + 1], tube, 12)) for i in range(segments)]


def wheel_hull(centre: FloatArray, axis: FloatArray, radius: float, width: float, sides: int = 12) -> Mesh:
    """A wheel's collision prism: a polygon circumscribing the rim with flat faces at the top and bottom, so
    that it stands on a face (a polygonal wheel balanced on an edge rocks in a simulator)."""
    a = np.asarray(axis, np.float64)
    a = a / np.linalg.norm(a)
    down = np.array([0.0, 0.0, -1.0])
    down = down - a * (down @ a)
    down /= np.linalg.norm(down)
    side = np.cross(a, down)
    ang = np.pi / sides * (2 * np.arange(sides) + 1)
    r = radius / np.cos(np.pi / sides)
    ring = np.asarray(centre, np.float64) + r * (np.cos(ang)[:, None] * down + np.sin(ang)[:, None] * side)
    return hull(np.concatenate([ring - a * width / 2, ring + a * width / 2]))


def placed(pieces: list[Mesh], matrix: FloatArray) -> list[Mesh]:
    """Every piece transformed by a 4x4 matrix."""
    return [p.transformed(matrix) for p in pieces]
