"""Part completion: from the open face patches of a segmented shell to one closed solid per part.

A segmented shell (a generated or scanned mesh with a part id per face) leaves every part an open surface: the
cut where it meets another part is a hole, and what a part hides inside the object (a drawer's box, a door's
thickness, the cavity behind them) is missing. ``complete_parts`` rebuilds it geometrically:

1. every part's patch is closed, one connected piece at a time (a piece closed already is kept as it is): its
   boundary loops are capped (planar loops triangulated in their plane, others fanned from their centroid); a
   piece that still does not close, or whose caps cross it, becomes its convex hull, which a part other than a
   drawer or panel then trades for that hull cut to the shell's solid when the cut keeps a fifth of it or more (a
   curled part's hull bridges air);
2. the front of a door, lid, panel or screen that is only a sheet gets a thickness: its silhouette (its closed
   solid's outline, or the union of its triangles, projected along its front normal) is extruded inward; a
   drawer whose patch is only a front gets its box: the silhouette, inset and kept inside the body's outline,
   extruded back to most of the body's depth, hollowed to an open top;
3. the body is the closed patch, or, where that fails or took a hull (a generated body's rough cut caps cross it,
   and its hull would fill its hollows and swallow its spouts and legs), the shell's solid minus the other parts;
   it is carved: the completed moving parts and the parts lying inside it (a drum, a handle's posts in
   their sleeves), grown by a clearance, and the other parts are subtracted from it, and behind a door or lid
   that sits on solid body a cavity is cut; any other two parts that still overlap are separated (the
   synthesized or larger one yields; a thin sheet inside a synthesized part joins it), so nothing
   interpenetrates at rest;
4. every solid becomes a mesh that stays closed when exporters and checks weld coincident vertices: fragments
   are dropped, pieces that only touch are moved a hair apart, and a subtraction that would leave faces lying
   on faces is redone with the subtracted solid grown by a fraction of a millimetre.

The front normal of a part is the direction (the six axes of the asset frame, or the patch's mean normal) in
which the part sticks out of the body most. All solids are manifold3d ``Manifold``s, so every output is closed,
manifold and outward-oriented.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from seed3d.asset import ROOT_LABELS, Mesh
from seed3d.errors import DependencyError, InvalidInputError
from seed3d.physics._geometry import signed_volume
from seed3d.progress import heartbeat
from seed3d.typed import FloatArray, IntArray

logger = logging.getLogger(__name__)

#: Parts that slide out of the body and need a box behind their front.
DRAWER_LABELS: frozenset[str] = frozenset({"drawer"})
#: Plate-like parts that need a thickness when their patch is a single sheet.
PANEL_LABELS: frozenset[str] = frozenset({"door", "lid", "panel", "screen"})
#: Parts that open onto the body's inside: a solid body behind them gets a cavity.
CAVITY_LABELS: frozenset[str] = frozenset({"door", "lid"})
#: Parts that move against the body: their volume grown by the clearance is subtracted from the body.
MOVING_LABELS: frozenset[str] = frozenset(
    {"door", "drawer", "lid", "screen", "knob", "button", "lever", "wheel", "tray"})

_TINY_VOLUME = 1e-10
"""m³; a solid smaller than this counts as empty."""
#: Faces a second closing a patch gets through on a busy CPU (what its heartbeat expects; 24k in 7 s under a load
#: of 10 on 2 cores, eval/results/progress.json).
CLOSE_FACES_PER_S = 3_500


@dataclass
class CompletionConfig:
    """Settings of geometric part completion (lengths in meters)."""

    clearance: float = 0.004
    """Gap left between a moving part and the body around it (the body is carved by the part grown this much).

    4 mm rather than 2: convex decompositions (CoACD) of a carved body bulge a few mm into its cavities, and
    the validator allows 2 mm of overlap."""
    drawer_depth: float = 0.9
    """A synthesized drawer box (and a door's cavity) reaches back this fraction of the body behind the front."""
    min_drawer_depth: float = 0.5
    """A closed drawer patch at least this fraction of the body's depth deep is kept as it is."""
    drawer_inset: float = 0.01
    """A synthesized drawer box is inset this much from its front's outline on every side."""
    drawer_wall: float = 0.01
    """Wall and floor thickness of a synthesized (hollow) drawer box."""
    hollow_drawers: bool = True
    """Make synthesized drawer boxes open-top hollow boxes (else solid blocks)."""
    body_wall: float = 0.012
    """Wall of body kept around cavities and behind drawer boxes."""
    min_panel_thickness: float = 0.006
    """A closed door, lid, panel or screen thinner than this along its normal is treated as a sheet."""
    panel_thickness: float = 0.05
    """Thickness given to a sheet-like panel, as a fraction of the body's depth behind it ..."""
    panel_thickness_range: tuple[float, float] = (0.008, 0.03)
    """... clamped to this range."""
    sheet_thickness: float = 0.004
    """Thickness given to any other part whose patch cannot be closed (a flat decal-like patch)."""
    carve_cavities: bool = True
    """Cut a cavity into the body behind doors and lids where the body is solid."""
    solid_fraction: float = 0.5
    """The body counts as solid behind a door when it fills this fraction of the would-be cavity."""
    enclosed: float = 0.8
    """A part with at least this share of its volume inside the body's closed shape lies in a cavity of the body (a
    washing machine's drum, a telescoping handle's posts in their sleeves): the body is carved by it grown by the
    clearance, as for moving labels, so whether it moves is left to the articulation instead of it being held
    flush. Only parts whose own patch closes count: a slab synthesized behind a flat patch is a decal on the body."""
    embedded_sheet: float = 0.002
    """A part at most this thick that lies (nine tenths of it) inside the volume completion gave another part (a
    screen's thickness) joins that part instead of being cut out of it: a slab left in a slot would stop the
    part moving."""
    hull_clip_share: float = 0.2
    """A part other than a drawer or panel whose patch closed only as convex hulls is cut to the shell's solid
    (its hull bridges what the part curls round) unless that keeps less than this share of it (a hull over a dent,
    or a patch of an inner wall, whose hull lies in the air)."""


# --------------------------------------------------------------------------------------------- manifold glue


def _m3d() -> Any:
    try:
        import manifold3d
    except ImportError as exc:  # pragma: no cover - a pinned dependency
        raise DependencyError("part completion needs manifold3d (pip install manifold3d)") from exc
    return manifold3d


def _solid(vertices: FloatArray, faces: IntArray) -> Any | None:
    """A valid, positive-volume Manifold from an indexed triangle mesh, or None."""
    m3d = _m3d()
    if not len(faces):
        return None
    for f in (faces, faces[:, ::-1]):
        m = Mesh(vertices, f).to_manifold()
        if m.status() != m3d.Error.NoError or m.is_empty():
            return None
        if m.volume() > _TINY_VOLUME:
            return m
        if m.volume() > -_TINY_VOLUME:
            return None
    return None


def _hull(vertices: FloatArray) -> Any | None:
    """The convex hull of points as a Manifold, or None when it spans no volume."""
    if len(vertices) < 4:
        return None
    hull = _m3d().Manifold.hull_points(np.ascontiguousarray(vertices, np.float64))
    return None if hull.is_empty() or hull.volume() <= _TINY_VOLUME else hull


def _union(solids: list[Any]) -> Any:
    m3d = _m3d()
    solids = [s for s in solids if s is not None and not s.is_empty()]
    if not solids:
        return m3d.Manifold()
    if len(solids) == 1:
        return solids[0]
    return m3d.Manifold.batch_boolean(solids, m3d.OpType.Add)


def _minus(a: Any, b: Any, margins: tuple[float, ...] = (1e-4, 1e-3)) -> Any:
    """``a - b``, and where that leaves faces of ``a`` lying on ``b``'s (a zero-thickness sheet that would be
    open once welded), ``a`` minus ``b`` scaled up about its centre by a margin (m) on every side instead."""
    rest = a - b
    if rest.is_empty() or _closes(rest):
        return rest
    lo, hi = (np.asarray(x, np.float64) for x in np.asarray(b.bounding_box()).reshape(2, 3))
    centre, size = 0.5 * (lo + hi), np.maximum(hi - lo, 1e-9)
    for margin in margins:
        scale = 1.0 + 2.0 * margin / size
        other = a - b.translate(tuple(-centre)).scale(tuple(scale)).translate(tuple(centre))
        if not other.is_empty() and _closes(other):
            return other
    return rest


#: Faces of at most this area (m²) are slivers: a 1 cm needle under 0.2 µm high. Exporters re-express a part in
#: its joint's frame and store float32, which moves vertices by up to ~0.1 µm and can flatten such a face to
#: zero area (seen on predicted drawers and handles: 1e-11 m² faces came out of the USD export with none).
SLIVER_AREA = 1e-9


def _closes(solid: Any) -> bool:
    """True when the solid, fragments dropped, is a mesh that stays closed when welded."""
    return _welds_closed(*_extract(_largest_pieces(solid), SLIVER_AREA))


def _to_mesh(solid: Any, min_area: float = SLIVER_AREA) -> Mesh:
    """The solid as a Mesh that stays closed when coincident vertices are welded (as exporters and checks do).

    Fragments (pieces with no volume, or under a thousandth of the largest) are dropped and sliver faces (area
    below ``min_area`` m² once the vertices are stored as float32, as mesh files store them) are collapsed away
    when they can be. Manifold keeps pieces that touch at an edge or a point, and a surface that pinches itself
    or is bridged by zero-area faces, apart as distinct vertices at one position; welded, such edges would be
    shared by four faces or left open. So the touching copies are moved apart (``_pull_apart``), or else the
    mesh is welded here, faces that repeat or cancel dropped (``_weld``), whichever closes first."""
    v, f = _extract(_largest_pieces(solid), min_area)
    if _welds_closed(v, f):
        return Mesh(*_without_slivers(v, f, min_area))
    moved = _pull_apart(v, f)
    for out in ((moved, f), _weld(v, f), _weld(moved, f)):
        if _welds_closed(*out):
            return Mesh(*_without_slivers(*out, min_area))
    logger.warning("a completed part (%d faces) is open where coincident vertices are welded", len(f))
    return Mesh(v, f)


def _stored_areas(v: FloatArray, f: IntArray) -> FloatArray:
    """Face areas of the mesh with its vertices rounded to float32 (how OBJ, GLB and USD files keep them)."""
    return _face_geometry(v.astype(np.float32).astype(np.float64), f)[1]


def _sliver_mask(v: FloatArray, f: IntArray, min_area: float) -> np.ndarray:
    """Faces of area at most ``min_area``, as they are or once their vertices are stored as float32."""
    return np.asarray((_face_geometry(v, f)[1] <= min_area) | (_stored_areas(v, f) <= min_area))


def _slivers(v: FloatArray, f: IntArray, min_area: float) -> int:
    """How many faces ``_sliver_mask`` flags."""
    return int(_sliver_mask(v, f, min_area).sum())


def _flip_needles(v: FloatArray, f: IntArray, min_area: float) -> IntArray:
    """``f`` with needle faces (three collinear corners, from Manifold's T-junctions) flipped away: the needle and
    the face across its long edge become two faces joined at the needle's middle corner (one pass)."""
    sliver = _sliver_mask(v, f, min_area)
    needles = np.flatnonzero(sliver)
    if not len(needles):
        return f
    f = f.copy()
    owner = {(int(a), int(b)): i for i, row in enumerate(f) for a, b in ((row[0], row[1]), (row[1], row[2]),
                                                                       (row[2], row[0]))}
    done: set[int] = set()
    for i in needles:
        if i in done:
            continue
        row = f[i]
        lengths = [float(np.linalg.norm(v[row[(k + 1) % 3]] - v[row[k]])) for k in range(3)]
        k = int(np.argmax(lengths))
        start, end, middle = int(row[k]), int(row[(k + 1) % 3]), int(row[(k + 2) % 3])
        j = owner.get((end, start))
        if j is None or j in done or sliver[j]:
            continue
        far = int(next(x for x in f[j] if x not in (start, end)))
        if (middle, far) in owner or (far, middle) in owner:  # the new edge exists: flipping would pinch
            continue
        new = np.array([[end, middle, far], [middle, start, far]])
        if _sliver_mask(v, new, min_area).any():
            continue
        f[i], f[j] = new
        done.update((int(i), int(j)))
    return f


def _without_slivers(v: FloatArray, f: IntArray, min_area: float,
                     shorter: tuple[float, ...] = (1e-6, 1e-5)) -> tuple[FloatArray, IntArray]:
    """``(v, f)`` with fewer sliver faces (``_slivers``): short edges collapsed (float32 storage flattens edges of a
    few nanometres; under 1 µm, then under 10 µm) and needles flipped away (``_flip_needles``), each step kept
    when the welded mesh stays closed and fewer slivers are left; then the tips of flat folds, where a needle
    cannot be flipped, and tiny faces (``_collapse_sliver_corners``)."""
    count = _slivers(v, f, min_area)
    for length in shorter:
        if not count:
            break
        out = _collapse_short_edges(v, f, length)
        if out is not None and _welds_closed(*out) and (left := _slivers(*out, min_area)) < count:
            (v, f), count = out, left
    for _ in range(4):  # a pass flips each needle with a neighbour that is not one
        if not count:
            break
        flipped = _flip_needles(v, f, min_area)
        left = _slivers(v, flipped, min_area)
        if left >= count or not _welds_closed(v, flipped):
            break
        f, count = flipped, left
    if count:
        tipped = _collapse_sliver_corners(v, f, min_area)  # each collapse it keeps leaves the welded mesh closed
        if tipped is not None and _slivers(*tipped, min_area) < count:
            v, f = tipped
    return v, f


def _collapse_sliver_corners(v: FloatArray, f: IntArray, min_area: float,
                             max_volume: float = 1e-9) -> tuple[FloatArray, IntArray] | None:
    """``(v, f)`` with slivers that no flip removes collapsed: one corner of the sliver merged into another, each
    collapse kept when the welded mesh stays closed, fewer slivers are left and the enclosed volume moves by at most
    ``max_volume`` m³. A needle's corner nearest its middle corner (the tip of a flat fold, which moves no volume) is
    tried first, then every corner into every other, shortest edge first (a tiny compact face, where merging the
    wrong pair would pinch the surface). None when nothing was collapsed."""
    volume = signed_volume(v, f)
    count = _slivers(v, f, min_area)
    changed, tried = False, set()
    while count:
        todo = [i for i in np.flatnonzero(_sliver_mask(v, f, min_area)) if tuple(sorted(f[i].tolist())) not in tried]
        if not todo:
            break
        row = f[todo[0]]
        tried.add(tuple(sorted(row.tolist())))
        for tip, into in _corner_merges(v, row):
            trial = np.where(f == tip, into, f)
            trial = trial[(trial[:, 0] != trial[:, 1]) & (trial[:, 1] != trial[:, 2]) & (trial[:, 2] != trial[:, 0])]
            if (abs(signed_volume(v, trial) - volume) <= max_volume and (left := _slivers(v, trial, min_area)) < count
                    and _welds_closed(v, trial)):
                f, count, changed = trial, left, True
                break
    if not changed:
        return None
    used, local = np.unique(f, return_inverse=True)
    return v[used], local.reshape(-1, 3)


def _corner_merges(v: FloatArray, row: IntArray) -> list[tuple[int, int]]:
    """The (corner, into) merges ``_collapse_sliver_corners`` tries for one face, in order."""
    corners = [int(x) for x in row]
    lengths = [float(np.linalg.norm(v[corners[(k + 1) % 3]] - v[corners[k]])) for k in range(3)]
    k = int(np.argmax(lengths))
    start, end, middle = corners[k], corners[(k + 1) % 3], corners[(k + 2) % 3]
    tip = start if np.linalg.norm(v[start] - v[middle]) < np.linalg.norm(v[end] - v[middle]) else end
    merges = [(tip, middle)]
    for j in np.argsort(lengths, kind="stable"):
        a, b = corners[j], corners[(j + 1) % 3]
        merges += [m for m in ((a, b), (b, a)) if m not in merges]
    return merges


def _extract(solid: Any, min_area: float) -> tuple[FloatArray, IntArray]:
    """The solid's mesh; when it has sliver faces, the simplification (0.1 µm, then 1 µm) or short-edge collapse
    that leaves the fewest (the unsimplified mesh on ties)."""
    best: tuple[int, FloatArray, IntArray] | None = None
    for tolerance in (0.0, 1e-7, 1e-6):
        simple = solid.as_original().simplify(tolerance) if tolerance else solid
        mesh = Mesh.from_manifold(simple)
        v, f = mesh.vertices, mesh.faces
        count = _slivers(v, f, min_area)
        if not count:
            return v, f
        if best is None or count < best[0]:
            best = (count, v, f)
    assert best is not None
    count, v, f = best
    welded = _collapse_short_edges(v, f, 1e-7)
    if welded is not None and _slivers(*welded, min_area) < count:
        return welded
    return v, f


_WELD_DECIMALS = 8
"""Vertices equal to this many decimals (m) count as coincident: coarser than the validator's weld (1e-9 m)."""


def _coincident(v: FloatArray) -> tuple[IntArray, IntArray]:
    """For welding at ``_WELD_DECIMALS``: the first vertex of each position, and each vertex's position index."""
    _, first, inverse = np.unique(np.round(v, _WELD_DECIMALS) + 0.0, axis=0, return_index=True,
                                  return_inverse=True)
    return first, inverse.reshape(-1)


def _welded_faces(inverse: IntArray, f: IntArray) -> IntArray:
    """``f`` on welded vertex indices, faces whose corners merged dropped."""
    faces = inverse[f]
    return faces[(faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 2] != faces[:, 0])]


def _weld(v: FloatArray, f: IntArray) -> tuple[FloatArray, IntArray]:
    """Coincident vertices merged; collapsed faces and face pairs that cancel (same corners, opposite winding)
    dropped, and of faces repeated with the same winding one kept."""
    first, inverse = _coincident(v)
    faces = _welded_faces(inverse, f)
    # corners rotated so the smallest comes first (winding kept): equal rows are one face repeated, and the
    # row with its last two corners swapped is the same face turned over
    roll = np.argmin(faces, axis=1)
    canon = np.stack([faces[np.arange(len(faces)), (roll + k) % 3] for k in range(3)], axis=1)
    canon = canon[np.sort(np.unique(canon, axis=0, return_index=True)[1])]
    _, ids = np.unique(np.concatenate([canon, canon[:, [0, 2, 1]]]), axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    faces = canon[~np.isin(ids[len(canon):], ids[:len(canon)])]
    used, local = np.unique(faces, return_inverse=True)
    return v[first][used], local.reshape(-1, 3)


def _welds_closed(v: FloatArray, f: IntArray) -> bool:
    """True when the mesh welded at ``_WELD_DECIMALS`` has every edge shared by exactly two faces."""
    if not len(f):
        return False
    welded = _welded_faces(_coincident(v)[1], f)
    edges = np.sort(welded[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, uses = np.unique(edges[:, 0] * len(v) + edges[:, 1], return_counts=True)
    return bool(len(welded)) and bool(np.all(uses == 2))


def _pull_apart(v: FloatArray, f: IntArray, steps: tuple[float, ...] = (2e-5, 4e-6, 1e-6)) -> FloatArray:
    """``v`` with every vertex that shares its position with another moved a step against its own normal.

    Pieces that touch part by twice the step (0.04 mm at first; shorter steps when a longer one flips a face
    that is not a sliver or does not close the welded mesh). When no step works, ``v`` comes back unchanged."""
    inverse = _coincident(v)[1]
    shared = np.bincount(inverse)[inverse] > 1
    if not shared.any():
        return v
    cross, area = _face_geometry(v, f)
    normals = np.zeros_like(v)
    for k in range(3):
        np.add.at(normals, f[:, k], cross)
    n = normals[shared]
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    solid_faces = area > 1e-10
    for step in steps:
        moved = v.copy()
        moved[shared] -= step * n
        flipped = np.einsum("ij,ij->i", cross, _face_geometry(moved, f)[0]) <= 0
        if not flipped[solid_faces].any() and _welds_closed(moved, f):
            return moved
    return v


def _collapse_short_edges(v: FloatArray, f: IntArray, shorter: float) -> tuple[FloatArray, IntArray] | None:
    """Merge the ends of edges shorter than ``shorter`` (dropping the faces that collapse); None if not manifold."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    edges = f[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    short = edges[np.linalg.norm(v[edges[:, 0]] - v[edges[:, 1]], axis=1) < shorter]
    graph = coo_matrix((np.ones(len(short)), (short[:, 0], short[:, 1])), shape=(len(v), len(v)))
    _, group = connected_components(graph, directed=False)
    faces = group[f]
    faces = faces[(faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])]
    used, local = np.unique(faces, return_inverse=True)
    first = np.unique(group, return_index=True)[1]
    verts, faces = v[first][used], local.reshape(-1, 3)
    return (verts, faces) if _solid(verts, faces) is not None else None


def _verts(solid: Any) -> FloatArray:
    return Mesh.from_manifold(solid).vertices


# --------------------------------------------------------------------------------------------- closing patches


def _face_geometry(v: FloatArray, f: IntArray) -> tuple[FloatArray, FloatArray]:
    """Per-face area-weighted normals (length = 2·area) and areas."""
    cross = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    return cross, 0.5 * np.linalg.norm(cross, axis=1)


def _boundary_loops(f: IntArray) -> list[list[int]]:
    """Closed vertex loops along the edges used by one face only, in the patch's edge direction."""
    directed = f[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    key = np.sort(directed, axis=1)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    open_edges = directed[counts[inverse.reshape(-1)] == 1]
    outgoing: dict[int, list[int]] = {}
    for a, b in open_edges.tolist():
        outgoing.setdefault(a, []).append(b)
    loops: list[list[int]] = []
    for start in sorted(outgoing):
        while outgoing.get(start):
            loop = [start]
            cur = outgoing[start].pop(0)
            while cur != start and outgoing.get(cur):
                loop.append(cur)
                cur = outgoing[cur].pop(0)
            if cur == start and len(loop) >= 3:
                loops.append(loop)
    return loops


def _cap(v: FloatArray, loop: list[int]) -> tuple[FloatArray, IntArray]:
    """Triangles closing one boundary loop (new vertices, faces indexing ``v`` then the new vertices).

    The cap runs the loop backwards, so its edges pair with the patch's; a planar loop is triangulated in its
    plane, any other is fanned from its centroid."""
    m3d = _m3d()
    ring = np.asarray(loop[::-1], np.int64)
    pts = v[ring]
    centre = pts.mean(axis=0)
    nxt = np.roll(pts, -1, axis=0)
    normal = np.cross(pts - centre, nxt - centre).sum(axis=0)  # Newell normal of the reversed loop
    size = float(np.ptp(pts, axis=0).max())
    norm = float(np.linalg.norm(normal))
    if norm > 1e-12 and size > 0:
        normal /= norm
        flat = float(np.abs((pts - centre) @ normal).max()) <= 1e-3 * size
        if flat:
            a = np.cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 else [0.0, 1.0, 0.0])
            a /= np.linalg.norm(a)
            b = np.cross(normal, a)
            tris = np.asarray(m3d.triangulate([(pts - centre) @ np.stack([a, b], axis=1)]), np.int64)
            if len(tris) == len(ring) - 2:
                return np.zeros((0, 3)), ring[tris]
    k = len(ring)
    fan = np.stack([ring, np.roll(ring, -1), np.full(k, len(v))], axis=1)
    return centre[None], fan


def _close_piece(v: FloatArray, f: IntArray) -> tuple[Any | None, bool]:
    """One connected piece of a patch closed by capping its holes (a closed piece as it is), else its hull, else
    None; and whether it was its hull."""
    new_v, new_f = [v], [f]
    count = len(v)
    loops = _boundary_loops(f)
    for loop in loops:
        cv, cf = _cap(v, loop)
        cf = np.where(cf >= len(v), cf - len(v) + count, cf)
        new_v.append(cv)
        new_f.append(cf)
        count += len(cv)
    solid = _solid(np.concatenate(new_v), np.concatenate(new_f))
    # a cap that crosses the patch: booleans on it would leave zero-thickness sheets, so the hull instead; a piece
    # closed already keeps its own shape, crossings and all (its hull would swallow what it curls round, as a
    # spout's collar its post)
    if solid is not None and loops and _self_intersects(solid):
        solid = None
    return (solid, False) if solid is not None else (_hull(v[np.unique(f)]), True)


def _self_intersects(solid: Any) -> bool:
    """True when faces of the solid's mesh cross each other (Manifold checks topology, not this)."""
    try:
        import pymeshlab
    except ImportError as exc:  # pragma: no cover - a pinned dependency
        raise DependencyError("part completion needs pymeshlab (pip install pymeshlab==2025.7.post1)") from exc
    mesh = Mesh.from_manifold(solid)
    ms = pymeshlab.MeshSet()
    ms.add_mesh(pymeshlab.Mesh(mesh.vertices, mesh.faces.astype(np.int32)))
    ms.compute_selection_by_self_intersections_per_face()
    return bool(ms.current_mesh().selected_face_number())


def _close_patch(v: FloatArray, f: IntArray, speck: float = 0.01) -> tuple[Any | None, bool]:
    """A patch closed piece by piece (pieces: faces connected through shared edges), None when nothing closes; and
    whether some piece became its convex hull.

    Specks (pieces with less than ``speck`` times the area of the largest, as a noisy segmentation leaves) are
    dropped."""
    import trimesh

    if not len(f):
        return None, False
    adjacency = trimesh.graph.face_adjacency(faces=f)
    pieces = trimesh.graph.connected_component_labels(adjacency, node_count=len(f))
    area = np.bincount(pieces, weights=_face_geometry(v, f)[1])
    keep = np.flatnonzero(area >= speck * area.max())
    closed = [_close_piece(v, f[pieces == p]) for p in keep]
    solid = _union([c for c, _ in closed])
    hulled = any(h for _, h in closed)
    return (None, hulled) if solid.is_empty() or solid.volume() <= _TINY_VOLUME else (solid, hulled)


# --------------------------------------------------------------------------------------------- projections


def _frame(n: FloatArray) -> FloatArray:
    """Rows (side, up, n): a right-handed frame whose ``up`` is +Z (or +X for vertical normals) made normal to n."""
    n = n / np.linalg.norm(n)
    up = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    up = up - (up @ n) * n
    up /= np.linalg.norm(up)
    return np.stack([np.cross(up, n), up, n])


def _silhouette(v: FloatArray, f: IntArray, frame: FloatArray) -> Any:
    """The outline of the triangles projected onto the plane normal to ``frame[2]``, in (side, up) coordinates."""
    m3d = _m3d()
    tri = (v @ frame[:2].T)[f]  # (F, 3, 2)
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    area = 0.5 * (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    keep = np.abs(area) > 1e-12
    tri, area = tri[keep], area[keep]
    tri[area < 0] = tri[area < 0][:, ::-1]
    if not len(tri):
        return m3d.CrossSection()
    cs = m3d.CrossSection(list(tri), m3d.FillRule.Positive).offset(1e-5, m3d.JoinType.Miter)
    outer = [p for p in cs.to_polygons() if _signed_area(p) > 0]  # holes (e.g. where a handle sat) filled
    return m3d.CrossSection(outer, m3d.FillRule.Positive).offset(-1e-5, m3d.JoinType.Miter)


def _outline(solid: Any, frame: FloatArray) -> Any:
    """The outline of a solid projected along ``frame[2]``, holes filled, in (side, up) coordinates."""
    m3d = _m3d()
    flat = solid.transform(np.concatenate([frame, np.zeros((3, 1))], axis=1)).project()
    outer = [p for p in flat.to_polygons() if _signed_area(p) > 0]
    return m3d.CrossSection(outer, m3d.FillRule.Positive) if outer else m3d.CrossSection()


def _part_outline(patch: _Patch, frame: FloatArray) -> Any:
    """A part's silhouette along ``frame[2]``: its closed patch's outline, else the union of its triangles."""
    if patch.closed is not None:
        return _outline(patch.closed, frame)
    return _silhouette(patch.v, patch.f, frame)


def _signed_area(poly: FloatArray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())


def _prism(section: Any, frame: FloatArray, w0: float, w1: float) -> Any:
    """``section`` extruded between the planes w = w0 and w = w1 along ``frame[2]``, in the asset frame."""
    m3d = _m3d()
    if section.is_empty() or w1 - w0 <= 1e-6:
        return m3d.Manifold()
    local = section.extrude(float(w1 - w0))
    return local.transform(np.concatenate([frame.T, (w0 * frame[2])[:, None]], axis=1))


def _grow(solid: Any, by: float, frame: FloatArray, depth: int = 6) -> Any:
    """``solid`` swept by ±``by`` along each axis of ``frame``: a superset of it, ``by`` away along those axes.

    Nearly convex pieces (within 2 % of their hull's volume) sweep their hull; others are halved across their
    longest side, ``depth`` times at most (then the hull of what is left sweeps, filling its small concavities)."""
    if by <= 0 or solid.is_empty():
        return solid
    verts = _verts(solid)
    hull = _hull(verts)
    if hull is None:
        return solid
    if depth <= 0 or solid.volume() >= 0.98 * hull.volume():
        steps = np.concatenate([np.zeros((1, 3)), frame * by, -frame * by])
        return _hull((_verts(hull)[None] + steps[:, None]).reshape(-1, 3))
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    axis = int(np.argmax(hi - lo))
    normal = np.eye(3)[axis]
    halves = solid.split_by_plane(tuple(normal), float(0.5 * (lo[axis] + hi[axis])))
    return _union([_grow(h, by, frame, depth - 1) for h in halves if not h.is_empty()])


def _area(section: Any) -> float:
    return 0.0 if section.is_empty() else float(section.area())


# --------------------------------------------------------------------------------------------- per part


@dataclass
class _Patch:
    label: str
    v: FloatArray
    f: IntArray
    ids: IntArray
    """The patch's vertices' indices into the shell's welded vertices (to merge patches)."""
    closed: Any | None = None
    hulled: bool = False
    """Whether a piece of ``closed`` is its convex hull (its caps crossed it)."""
    solid: Any | None = None
    filled: Any | None = None
    """The volume the part sweeps out of the body when it differs from ``solid`` (a hollow drawer's block)."""
    grown: Any | None = None
    """``filled`` grown by the clearance, when built piece by piece (cheaper than growing the union)."""
    synthesized: bool = False
    frame: FloatArray | None = None


def _front_frame(patch: _Patch, body_v: FloatArray) -> FloatArray:
    """The frame of the direction in which the patch sticks out of the body most (ties: more front area)."""
    normals, areas = _face_geometry(patch.v, patch.f)
    total = max(float(areas.sum()), 1e-18)
    dirs = [np.eye(3)[0], -np.eye(3)[0], np.eye(3)[1], -np.eye(3)[1], np.eye(3)[2], -np.eye(3)[2]]
    mean = normals.sum(axis=0) / 2.0
    if np.linalg.norm(mean) > 0.3 * total:
        dirs.insert(0, mean / np.linalg.norm(mean))
    d = np.stack(dirs)
    unit = normals / np.maximum(2.0 * areas, 1e-18)[:, None]
    centres = patch.v[patch.f].mean(axis=1)
    reach = patch.v @ d.T  # (V, D)
    top = reach.max(axis=0)
    protrusion = top - (body_v @ d.T).max(axis=0)
    at_front = (unit @ d.T > 0.7) & (centres @ d.T >= top - 0.003)
    facing = (areas[:, None] * at_front).sum(axis=0) / total
    return _frame(d[int(np.argmax(protrusion + 0.005 * facing))])


def _depth_behind(patch: _Patch, frame: FloatArray, body_v: FloatArray) -> tuple[float, float, float]:
    """(front plane, back of the body, depth available between them) along the frame's normal."""
    front = float((patch.v @ frame[2]).max())
    back = float((body_v @ frame[2]).min())
    return front, back, max(front - back, 0.0)


def _panel(patch: _Patch, body_v: FloatArray, cfg: CompletionConfig) -> None:
    """A door, lid, panel or screen: keep a thick enough closed patch, else a slab behind its silhouette."""
    frame = patch.frame
    assert frame is not None
    if patch.closed is not None:
        w = _verts(patch.closed) @ frame[2]
        if np.ptp(w) >= cfg.min_panel_thickness:
            patch.solid = patch.closed
            return
    _, _, avail = _depth_behind(patch, frame, body_v)
    lo, hi = cfg.panel_thickness_range
    thick = float(np.clip(cfg.panel_thickness * avail, lo, hi))
    w = patch.v @ frame[2]
    slab = _prism(_part_outline(patch, frame), frame, float(w.min()) - thick, float(w.max()))
    patch.solid = _union([slab, patch.closed])
    patch.synthesized = True


def _drawer(patch: _Patch, body_v: FloatArray, body_cs: Any, cfg: CompletionConfig) -> None:
    """A drawer: keep a closed patch that is deep enough, else its front plus a (hollow) box behind it."""
    m3d = _m3d()
    frame = patch.frame
    assert frame is not None
    front, back_body, avail = _depth_behind(patch, frame, body_v)
    if patch.closed is not None:
        extent = front - float((_verts(patch.closed) @ frame[2]).min())
        if extent >= cfg.min_drawer_depth * avail:
            patch.solid = patch.closed
            return
        front_t, front_solid = max(extent, 1e-4), patch.closed
    else:
        lo, hi = cfg.panel_thickness_range
        front_t = float(np.clip(cfg.panel_thickness * avail, lo, hi))
        front_solid = _prism(_part_outline(patch, frame), frame, front - front_t, front)
    if front_solid.is_empty():  # edge-on along its front normal: no outline to build on
        return
    patch.synthesized = True
    sil = _part_outline(patch, frame)
    miter = m3d.JoinType.Miter
    section = sil.offset(-cfg.drawer_inset, miter) ^ body_cs.offset(-cfg.body_wall, miter)
    if _area(section) < (3 * cfg.drawer_wall) ** 2:
        section = sil.offset(-cfg.drawer_inset, miter)
    if _area(section) < (3 * cfg.drawer_wall) ** 2:
        section = sil
    back = max(front - cfg.drawer_depth * avail, back_body + cfg.body_wall + cfg.clearance)
    box_hi = front - 0.5 * front_t
    if box_hi - back <= 2 * cfg.drawer_wall:
        patch.solid = front_solid
        return
    box = _prism(section, frame, back, box_hi)
    patch.filled = _union([front_solid, box])
    c = cfg.clearance  # grown piece by piece: prisms around the front's and the box's outlines
    front_lo = float((_verts(front_solid) @ frame[2]).min())
    patch.grown = _union([_prism(_outline(front_solid, frame).offset(c, miter), frame, front_lo - c, front + c),
                          _prism(section.offset(c, miter), frame, back - c, box_hi + c)])
    inner = section.offset(-cfg.drawer_wall, miter)
    inner_hi = front - max(front_t, cfg.drawer_wall)
    if cfg.hollow_drawers and abs(frame[2][2]) < 0.7 and _area(inner) > 0 and inner_hi - back > 2 * cfg.drawer_wall:
        opening = m3d.CrossSection.batch_hull([inner, inner.translate((0.0, 10.0))])
        box = box - _prism(opening, frame, back + cfg.drawer_wall, inner_hi)
    patch.solid = _union([front_solid, box])


def _generic(patch: _Patch, cfg: CompletionConfig) -> None:
    """Any other part: its closed patch, else a thin slab behind its silhouette."""
    if patch.closed is not None:
        patch.solid = patch.closed
        return
    normals, _ = _face_geometry(patch.v, patch.f)
    mean = normals.sum(axis=0)
    if np.linalg.norm(mean) < 1e-15:
        mean = np.array([0.0, 0.0, 1.0])
    frame = _frame(mean)
    w = patch.v @ frame[2]
    patch.solid = _prism(_silhouette(patch.v, patch.f, frame), frame, float(w.min()) - cfg.sheet_thickness,
                         float(w.max()))
    patch.synthesized = True
    if patch.solid.is_empty():
        patch.solid = _hull(np.concatenate([patch.v, patch.v - cfg.sheet_thickness * frame[2]]))


# --------------------------------------------------------------------------------------------- public


def _check_input(shell: Mesh, face_part: np.ndarray, labels: list[str]) -> IntArray:
    if not isinstance(shell, Mesh):
        raise InvalidInputError(f"shell must be a seed3d.asset.Mesh, got {type(shell).__name__}")
    if not len(shell.faces):
        raise InvalidInputError("shell has no faces")
    if not len(labels):
        raise InvalidInputError("labels is empty: give one label per part")
    fp = np.asarray(face_part)
    if fp.ndim != 1 or len(fp) != len(shell.faces):
        raise InvalidInputError(f"face_part must be one part id per face: expected shape ({len(shell.faces)},), "
                                f"got {fp.shape}")
    if fp.size and not np.issubdtype(fp.dtype, np.integer):
        raise InvalidInputError(f"face_part must hold integer part ids, got {fp.dtype}")
    if fp.min() < 0 or fp.max() >= len(labels):
        raise InvalidInputError(f"face_part ids must lie in 0..{len(labels) - 1} (one per label), "
                                f"got {int(fp.min())}..{int(fp.max())}; is a label missing?")
    empty = np.flatnonzero(np.bincount(fp, minlength=len(labels)) == 0)
    if len(empty):
        raise InvalidInputError(f"parts {empty.tolist()} ({[labels[i] for i in empty]}) have no faces")
    if not np.isfinite(shell.vertices).all():
        raise InvalidInputError("shell vertices must be finite")
    return fp.astype(np.int64)


def _patches(shell: Mesh, fp: IntArray, labels: list[str]) -> list[_Patch]:
    """Each part's faces with compact, exactly welded vertices (collapsed faces dropped: a part with only
    collapsed faces gets an empty patch)."""
    uniq, inverse = np.unique(shell.vertices, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[shell.faces]
    ok = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
    out = []
    for i, label in enumerate(labels):
        f = faces[ok & (fp == i)]
        used, local = np.unique(f, return_inverse=True)
        out.append(_Patch(str(label), uniq[used], local.reshape(-1, 3), used))
    return out


def _merge_into(body: _Patch, parts: list[_Patch]) -> None:
    """Add the faces of ``parts`` to the ``body`` patch (re-compacted, closed again)."""
    faces = np.concatenate([body.ids[body.f], *[p.ids[p.f] for p in parts]])
    points = np.zeros((int(faces.max()) + 1, 3))
    for p in (body, *parts):
        points[p.ids] = p.v
    used, local = np.unique(faces, return_inverse=True)
    body.v, body.f, body.ids = points[used], local.reshape(-1, 3), used
    body.closed, body.hulled = _close_patch(body.v, body.f)


def _body_index(patches: list[_Patch]) -> int:
    """The body: the part with the first of ``ROOT_LABELS`` present (largest if several), else the largest; a part
    with no faces left is never the body."""
    area = [float(_face_geometry(p.v, p.f)[1].sum()) for p in patches]
    for label in ROOT_LABELS:
        named = [i for i, p in enumerate(patches) if p.label == label and len(p.f)]
        if named:
            return max(named, key=lambda i: area[i])
    return int(np.argmax(area))


def _cavity(patch: _Patch, body: Any, body_v: FloatArray, body_cs: Any, cfg: CompletionConfig) -> Any | None:
    """The room behind a door or lid when the body is solid there (None when the body is already hollow)."""
    frame = patch.frame
    assert frame is not None and patch.solid is not None
    front, back_body, avail = _depth_behind(patch, frame, body_v)
    miter = _m3d().JoinType.Miter
    section = _part_outline(patch, frame).offset(-cfg.body_wall, miter) ^ body_cs.offset(-cfg.body_wall, miter)
    top = float((_verts(patch.solid) @ frame[2]).min())
    back = max(front - cfg.drawer_depth * avail, back_body + cfg.body_wall)
    room = _prism(section, frame, back, top)
    if room.is_empty():
        return None
    filled = (room ^ body).volume()
    return room if filled >= cfg.solid_fraction * room.volume() else None


def complete_parts(shell: Mesh, face_part: np.ndarray, labels: list[str],
                   config: CompletionConfig | None = None,
                   progress: Callable[[float, str], None] | None = None) -> list[Mesh | None]:
    """One closed, outward-oriented manifold mesh per part of a segmented shell, hidden geometry filled in.

    A part that spans no area to build on (a sliver seen edge-on, a few collinear faces, only faces that collapse
    when the vertices are welded) cannot be completed: its entry is None and its faces join the body's. A sheet
    left inside the volume completion gave another part (``CompletionConfig.embedded_sheet``) joins that part: its
    entry is None too. A body whose patch spans no volume is shaped by the convex hull of the whole shell.
    ``progress(fraction, message)`` is called as the parts are completed."""
    report = progress or (lambda f, m: None)
    cfg = config or CompletionConfig()
    _m3d()  # fail early with an actionable message when manifold3d is missing
    fp = _check_input(shell, face_part, labels)
    patches = _patches(shell, fp, list(labels))
    if not any(len(p.f) for p in patches):
        raise InvalidInputError("every face of the shell is degenerate: nothing to complete")
    b = _body_index(patches)
    body_patch = patches[b]
    body_v = body_patch.v
    for i, p in enumerate(patches):
        report(0.3 * i / len(patches), f"closing the patch of {p.label}")
        with heartbeat(report, 0.3 * i / len(patches), 0.3 * (i + 1) / len(patches),
                       f"closing the patch of {p.label} ({len(p.f)} faces)",
                       expected_s=max(1.0, len(p.f) / CLOSE_FACES_PER_S)):  # one opaque repair and union
            p.closed, p.hulled = _close_patch(p.v, p.f)
    shape = body_patch.closed if body_patch.closed is not None else _hull(body_v)
    if shape is None:
        shape = _hull(shell.vertices)
        if shape is None:
            raise InvalidInputError("the shell spans no volume: nothing to complete")
        body_v = _verts(shape)
        logger.warning("the body's patch (part %d, %s) spans no volume; shaped by the shell's hull", b, labels[b])
    outlines: dict[tuple[float, ...], Any] = {}

    def body_outline(frame: FloatArray) -> Any:
        key = tuple(np.round(frame[2], 9).tolist())
        if key not in outlines:
            outlines[key] = _outline(shape, frame)
        return outlines[key]

    wholes: list[Any] = []

    def whole() -> Any | None:
        if not wholes:
            wholes.append(_solid(*_whole(shell)))
        return wholes[0]

    merged: list[int] = []
    for i, p in enumerate(patches):
        report(0.3 + 0.6 * i / len(patches), f"completing {p.label}")
        if i == b:
            continue
        if p.hulled and p.closed is not None and p.label not in DRAWER_LABELS | PANEL_LABELS:
            p.closed = _clipped(p.closed, whole(), cfg.hull_clip_share)
        if not len(p.f):
            logger.warning("part %d (%s) has only degenerate faces; it joins the body", i, p.label)
            merged.append(i)
            continue
        if p.label in DRAWER_LABELS or p.label in PANEL_LABELS:
            p.frame = _front_frame(p, body_v)
            if p.label in DRAWER_LABELS:
                _drawer(p, body_v, body_outline(p.frame), cfg)
            else:
                _panel(p, body_v, cfg)
        if p.solid is None or p.solid.is_empty():  # not a drawer or panel, or it had no outline to build on
            p.frame, p.filled, p.grown, p.synthesized = None, None, None, False
            _generic(p, cfg)
        if p.solid is None or p.solid.is_empty():
            logger.warning("part %d (%s) spans no area to complete; its faces join the body", i, p.label)
            merged.append(i)
    if merged:
        _merge_into(body_patch, [patches[i] for i in merged])
    keep = [i for i in range(len(patches)) if i not in merged]

    body = body_patch.closed
    if body is None or body_patch.hulled:  # the shell's solid keeps the body's shape (hollows and all)
        if whole() is not None:
            rest = _minus(whole(), _union([patches[i].solid for i in keep if i != b]))
            if not rest.is_empty() and rest.volume() > _TINY_VOLUME:
                body = rest
        if body is None:
            body = shape
        logger.info("the body's patch %s; using %s",
                    "does not close" if body_patch.closed is None else "closes only as convex hulls",
                    "its convex hull" if body is shape else "its hulls" if body is body_patch.closed else
                    "the shell's solid minus the other parts")

    report(0.9, "carving the body")
    cuts = []
    for i in keep:
        p = patches[i]
        if i == b:
            continue
        frame = p.frame if p.frame is not None else np.eye(3)
        volume = p.filled if p.filled is not None else p.solid
        if p.label not in MOVING_LABELS and (p.synthesized or not _enclosed(volume, body, cfg.enclosed)):
            cuts.append(volume)
        else:
            cuts.append(p.grown if p.grown is not None else _grow(volume, cfg.clearance, frame))
        if cfg.carve_cavities and p.label in CAVITY_LABELS and p.frame is not None:
            room = _cavity(p, body, body_v, body_outline(p.frame), cfg)
            if room is not None:
                cuts.append(room)
    carved = _minus(body, _union(cuts)) if cuts else body
    body_patch.solid = _largest_pieces(carved) if not carved.is_empty() else body
    _separate([patches[i] for i in keep], keep.index(b), cfg.embedded_sheet)
    return [None if i in merged or p.solid is None else _to_mesh(p.solid) for i, p in enumerate(patches)]


def _enclosed(solid: Any, body: Any, share: float) -> bool:
    """Whether at least ``share`` of ``solid``'s volume lies inside ``body``."""
    volume = solid.volume()
    return bool(volume > _TINY_VOLUME and (solid ^ body).volume() >= share * volume)


def _clipped(solid: Any, whole: Any | None, share: float) -> Any:
    """``solid`` cut to the shell's solid ``whole``, unless that keeps less than ``share`` of its volume."""
    if whole is None:
        return solid
    inside = _largest_pieces(solid ^ whole)
    return inside if not inside.is_empty() and inside.volume() >= share * solid.volume() else solid


def _whole(shell: Mesh) -> tuple[FloatArray, IntArray]:
    w = shell.welded()
    return w.vertices, w.faces


def _largest_pieces(solid: Any, keep: float = 1e-3) -> Any:
    """``solid`` without disconnected pieces that span no volume or less than ``keep`` times its largest."""
    pieces = solid.decompose()
    if len(pieces) <= 1:
        return solid
    vols = np.array([p.volume() for p in pieces])
    kept = [p for p, v in zip(pieces, vols, strict=True) if v > _TINY_VOLUME and v >= keep * vols.max()]
    if not kept:
        return solid
    return kept[0] if len(kept) == 1 else _union(kept)


def _thickness(solid: Any) -> float:
    """The smallest side of a solid's axis-aligned bounding box."""
    return float(np.ptp(np.asarray(solid.bounding_box()).reshape(2, 3), axis=0).min())


def _separate(patches: list[_Patch], body: int, sheet: float = 0.0) -> None:
    """Remove the overlap of every other pair of parts from the one that yields (synthesized, then larger).

    A part that would lose most of itself keeps its volume and the other one yields (a pane set into a door). A
    part at most ``sheet`` thick lying (nine tenths of it) inside a synthesized part joins it instead: its solid
    becomes None and the other part's grows by it."""
    idx = [i for i in range(len(patches)) if i != body]
    if len(idx) < 2:
        return
    boxes = np.array([np.asarray(patches[i].solid.bounding_box()).reshape(2, 3) for i in idx])
    overlap = np.all((boxes[:, None, 0] < boxes[None, :, 1]) & (boxes[None, :, 0] < boxes[:, None, 1]), axis=2)
    for a, c in zip(*np.nonzero(np.triu(overlap, 1)), strict=True):
        i, j = idx[a], idx[c]
        pi, pj = patches[i], patches[j]
        if pi.solid is None or pj.solid is None:  # joined another part already
            continue
        inter = pi.solid ^ pj.solid
        if inter.is_empty() or inter.volume() <= _TINY_VOLUME:
            continue
        embedded = [(x, y) for x, y in ((pi, pj), (pj, pi)) if y.synthesized and _thickness(x.solid) <= sheet
                    and inter.volume() >= 0.9 * x.solid.volume()]
        if embedded:
            part, host = embedded[0]
            host.solid, part.solid = _union([host.solid, part.solid]), None
            continue
        ki = (not pi.synthesized, -pi.solid.volume())
        kj = (not pj.synthesized, -pj.solid.volume())
        loser, winner = (pi, pj) if ki < kj else (pj, pi)
        rest = _minus(loser.solid, winner.solid)
        kept = rest.volume() / loser.solid.volume()
        if kept < 0.5:  # the loser lies (mostly) inside the winner: the winner makes room if it keeps more
            other = _minus(winner.solid, loser.solid)
            if other.volume() / winner.solid.volume() > kept:
                loser, winner, rest, kept = winner, loser, other, other.volume() / winner.solid.volume()
        if rest.is_empty() or rest.volume() <= _TINY_VOLUME:
            logger.warning("parts %s and %s coincide; left overlapping", loser.label, winner.label)
            continue
        loser.solid = rest
