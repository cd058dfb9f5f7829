"""Geometric refinement of a predicted face segmentation: smooth patches, connected components, protrusions.

The segmenter's masks are soft near part boundaries and miss parts it barely sees (a handle is a few thousandths
of a wardrobe's area). The shell's geometry knows where parts may meet: doors, drawer fronts and lids are
separate pieces of the shell (the gap around them) or meet their neighbours at sharp edges (creases, grooves,
steps). ``refine_parts`` uses that in four steps, each vectorised over the face adjacency:

1. **Patches** -- faces joined across edges whose dihedral angle is below ``sharp_deg`` (connected components of
   the face graph without its sharp edges). Each patch takes the part that holds most of its area, provided
   that part holds at least ``snap_share`` of it; a component that is one single patch (a shape without sharp
   edges) is left as predicted.
2. **Components** -- a part spanning several connected pieces of the shell is split, one part per piece; a
   piece smaller than ``spill`` of its component that is not the part's largest piece is a spill across a gap
   and joins the part holding most of that component.
3. **Protrusions** -- in every component, the largest convex piece (faces joined across smooth or convex edges)
   is its anchor; the rest falls into groups attached to it through concave edges. A group smaller than
   ``protrusion_area`` of the anchor that lies outside the anchor's convex hull (a handle on a door, a leg
   under a body, a knob on a panel) becomes a part of its own, unless it is a mount: partly within a running
   gap of another piece of the shell (a handle's stem, a wheel's housing); a bigger group is searched the same
   way with its own largest convex piece as anchor (a drawer's front on its box), ``depth`` levels deep.
4. **Count** -- with ``max_parts`` given, the smallest parts join the neighbour they share most edges with.

Every step keeps what the model predicted where geometry says nothing, so a smooth shape is left unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from seed3d.errors import InvalidInputError

log = logging.getLogger(__name__)


@dataclass
class RefineConfig:
    """Settings of the geometric refinement."""

    sharp_deg: float = 30.0
    """Edges whose faces' normals differ by more than this (degrees) bound patches."""
    snap_share: float = 0.5
    """A patch snaps to its plurality part only when that part holds at least this share of its area."""
    spill: float = 0.05
    """A part's piece in another component smaller than this share of that component joins its main part."""
    min_piece: float = 0.0005
    """Components smaller than this share of the whole area are never split off (crumbs of a noisy mesh), unless
    they come within ``mount_gap`` of another component (a button in its hole)."""
    protrusion_area: float = 0.1
    """A protrusion becomes a part when its area is below this share of its anchor's area."""
    outside: float = 0.5
    """... and at least this share of its area lies outside the anchor's convex hull."""
    outside_tol: float = 0.002
    """Distance outside the hull that counts as outside, as a fraction of the bounding-box diagonal."""
    depth: int = 3
    """Levels of the protrusion search (a group too big to be a protrusion is searched with its own anchor)."""
    max_protrusions: int = 12
    """An anchor with more protrusion candidates than this is rough, not fitted: none of them is split off."""
    mount_gap: float = 0.006
    """Meters (shells are at real scale). A protrusion with at least ``mount_share`` of its area this close to
    another connected piece of the shell is a mount -- a post, stem or housing that carries a moving piece across
    its running gap (a faucet handle's stem, a wheel's housing, a control panel round its buttons) -- and stays
    with its anchor; fittings (handles, legs, burners) stand clear of other pieces."""
    mount_share: float = 0.05
    """... share of its area (see ``mount_gap``; above 1 turns the rule off)."""


@dataclass
class FaceGraph:
    """Face adjacency of a triangle mesh: adjacent face pairs, dihedral angle and convexity per pair, face areas,
    face centres and vertices."""

    pairs: np.ndarray
    angles: np.ndarray
    convex: np.ndarray
    area: np.ndarray
    centres: np.ndarray
    vertices: np.ndarray
    faces: np.ndarray

    @classmethod
    def from_mesh(cls, vertices: np.ndarray, faces: np.ndarray) -> FaceGraph:
        """The graph of a mesh; coincident vertices are merged first, faces keep their order."""
        import trimesh

        tm = trimesh.Trimesh(np.asarray(vertices, np.float64), np.asarray(faces, np.int64), process=False)
        tm.merge_vertices()
        pairs = np.asarray(tm.face_adjacency, np.int64).reshape(-1, 2)
        return cls(pairs, np.asarray(tm.face_adjacency_angles, np.float64),
                   np.asarray(tm.face_adjacency_convex, bool), np.asarray(tm.area_faces, np.float64),
                   np.asarray(tm.triangles_center, np.float64), np.asarray(tm.vertices), np.asarray(tm.faces))

    @property
    def num_faces(self) -> int:
        """Number of faces."""
        return len(self.area)

    def groups(self, keep: np.ndarray | None = None, faces: np.ndarray | None = None) -> np.ndarray:
        """Connected components of the faces over the adjacency pairs where ``keep`` is true; with a face mask
        ``faces``, only pairs of two such faces join (others stay singletons). Ids are numbered in order of
        each group's lowest face index."""
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        pairs = self.pairs if keep is None else self.pairs[keep]
        if faces is not None:
            pairs = pairs[faces[pairs[:, 0]] & faces[pairs[:, 1]]]
        n = self.num_faces
        graph = coo_matrix((np.ones(len(pairs), np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
        return connected_components(graph, directed=False)[1].astype(np.int64)


def smooth_patches(graph: FaceGraph, sharp_deg: float = 30.0) -> np.ndarray:
    """Patch id per face: faces joined across edges whose dihedral angle is at most ``sharp_deg`` degrees."""
    return graph.groups(graph.angles <= np.radians(sharp_deg))


def convex_pieces(graph: FaceGraph, sharp_deg: float = 30.0) -> np.ndarray:
    """Convex piece id per face: faces joined across smooth or convex edges (cut at concave sharp edges)."""
    return graph.groups((graph.angles <= np.radians(sharp_deg)) | graph.convex)


def _votes(group: np.ndarray, part: np.ndarray, weight: np.ndarray, n_groups: int, n_parts: int) -> np.ndarray:
    """Area of each part in each group, (n_groups, n_parts)."""
    out = np.zeros((n_groups, n_parts))
    np.add.at(out, (group, part), weight)
    return out


def snap_to_patches(graph: FaceGraph, part: np.ndarray, patch: np.ndarray, component: np.ndarray,
                    share: float) -> np.ndarray:
    """Each patch takes its plurality part (by area) when that part holds at least ``share`` of it; patches that
    are a whole component are left alone."""
    n_patch = int(patch.max()) + 1
    votes = _votes(patch, part, graph.area, n_patch, int(part.max()) + 1)
    best = votes.argmax(1)
    total = votes.sum(1)
    ok = votes[np.arange(n_patch), best] >= share * total
    # a patch that is its whole component has no sharp boundary: nothing to snap to
    patch_comp = component[np.unique(patch, return_index=True)[1]]
    ok &= np.bincount(patch_comp)[patch_comp] > 1
    return np.where(ok[patch], best[patch], part)


def split_components(graph: FaceGraph, part: np.ndarray, component: np.ndarray, spill: float,
                     min_piece: float = 0.0, fitted_gap: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One part per (part, component) piece, spills folded into their component's main part; components under
    ``min_piece`` of the total area stay with their part's largest piece (crumbs), unless they come within
    ``fitted_gap`` of another component (a button fitted in its hole is a part, however small).

    Returns the new part per face and, per new part, the old part it came from."""
    n_comp, n_part = int(component.max()) + 1, int(part.max()) + 1
    votes = _votes(component, part, graph.area, n_comp, n_part)  # area of each part in each component
    comp_area = votes.sum(1)
    main = votes.argmax(1)                                       # the part holding most of each component
    home = votes.argmax(0)                                       # each part's largest component
    is_spill = (votes < spill * comp_area[:, None]) & (np.arange(n_comp)[:, None] != home[None, :]) & (votes > 0)
    piece_part = np.where(is_spill, main[:, None], np.arange(n_part)[None, :])  # (comp, part) -> part it joins
    part = piece_part[component, part]
    crumb = comp_area < min_piece * comp_area.sum()
    if fitted_gap > 0:
        for c in np.flatnonzero(crumb):
            faces = np.flatnonzero(component == c)
            crumb[c] = not _near_other_piece(graph, component, faces, fitted_gap).any()
    largest = _votes(component, part, graph.area, n_comp, n_part).argmax(0)
    key = part * n_comp + np.where(crumb[component], largest[part], component)
    uniq, new = np.unique(key, return_inverse=True)
    return new.astype(np.int64), (uniq // n_comp).astype(np.int64)


def _outside_hull(anchor_pts: np.ndarray, pts: np.ndarray, tol: float) -> np.ndarray:
    """Whether each point lies farther than ``tol`` outside the convex hull of ``anchor_pts``."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(anchor_pts, qhull_options="QJ")
    except (QhullError, ValueError):
        return np.ones(len(pts), bool)
    dist = pts @ hull.equations[:, :3].T + hull.equations[:, 3]
    return dist.max(1) > tol


def _near_other_piece(graph: FaceGraph, component: np.ndarray, faces: np.ndarray, gap: float) -> np.ndarray:
    """Whether each of ``faces`` (its centre or a corner) lies within ``gap`` of a face of another component."""
    import trimesh

    corners = graph.vertices[graph.faces[faces]]
    pts = np.concatenate([graph.centres[faces][:, None], corners], axis=1)
    lo, hi = pts.reshape(-1, 3).min(0) - gap, pts.reshape(-1, 3).max(0) + gap
    tri = graph.vertices[graph.faces]
    others = (component != component[faces[0]]) & np.all(tri.max(1) >= lo, axis=1) & np.all(tri.min(1) <= hi, axis=1)
    if not others.any():
        return np.zeros(len(faces), bool)
    near = trimesh.Trimesh(tri[others].reshape(-1, 3), np.arange(3 * int(others.sum())).reshape(-1, 3),
                           process=False)
    dist = trimesh.proximity.closest_point(near, pts.reshape(-1, 3))[1].reshape(len(faces), 4)
    return dist.min(1) <= gap


def split_protrusions(graph: FaceGraph, part: np.ndarray, component: np.ndarray, cfg: RefineConfig
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Protrusions become parts of their own (see the module doc), level by level: a group too big to be a
    protrusion is searched again with its own largest convex piece as anchor (handles on a drawer front
    whose anchor is the drawer box), ``cfg.depth`` levels deep.

    Returns the new part per face and, per new part, the part it came from, whether geometry alone made it (the
    model gave the protrusion its anchor's part) and whether it hangs below its anchor (lower than the
    anchor's lowest point along +Z, as legs and feet do)."""
    n_part = int(part.max()) + 1
    piece = convex_pieces(graph, cfg.sharp_deg)
    diag = float(np.linalg.norm(np.ptp(graph.vertices, axis=0)))
    out, extra, geometric, below = part.copy(), [], [], []
    unit = component.copy()  # the region searched at this level; -1 once settled
    top: dict[int, np.ndarray] = {}  # each component's own anchor points (level 0)
    for level in range(cfg.depth):
        live = np.flatnonzero(unit >= 0)
        if not len(live):
            break
        # the anchor of each unit: its largest convex piece (ties: the lowest piece id)
        keys, kinv = np.unique(unit[live] * (int(piece.max()) + 1) + piece[live], return_inverse=True)
        k_area = np.bincount(kinv, weights=graph.area[live])
        k_unit = keys // (int(piece.max()) + 1)
        order = np.lexsort((-k_area, k_unit))
        first = order[np.unique(k_unit[order], return_index=True)[1]]
        is_anchor_key = np.zeros(len(keys), bool)
        is_anchor_key[first] = True
        anchor_area = dict(zip(k_unit[first].tolist(), k_area[first].tolist(), strict=True))
        anchor = np.zeros(graph.num_faces, bool)
        anchor[live[is_anchor_key[kinv]]] = True
        rest_mask = (unit >= 0) & ~anchor
        if not rest_mask.any():
            break
        rest = np.flatnonzero(rest_mask)
        group = graph.groups(faces=rest_mask)
        gids, ginv = np.unique(group[rest], return_inverse=True)
        g_area = np.bincount(ginv, weights=graph.area[rest])
        g_unit = np.zeros(len(gids), np.int64)
        g_unit[ginv] = unit[rest]
        g_anchor_area = np.asarray([anchor_area[u] for u in g_unit.tolist()])
        small = g_area < cfg.protrusion_area * g_anchor_area
        face_lists = np.split(rest[np.argsort(ginv, kind="stable")], np.cumsum(np.bincount(ginv))[:-1])
        settled = np.zeros(len(gids), bool)
        if level == 0:
            for u in np.unique(g_unit).tolist():
                a_faces = np.flatnonzero(anchor & (unit == u))
                top[int(component[a_faces[0]])] = graph.vertices[np.unique(graph.faces[a_faces].ravel())]
        crowded = np.bincount(g_unit[small], minlength=int(unit.max()) + 1) > cfg.max_protrusions
        settled[crowded[g_unit]] = True
        for u in np.unique(g_unit[small]).tolist():
            if crowded[u]:
                continue
            a_faces = np.flatnonzero(anchor & (unit == u))
            a_part = int(np.bincount(part[a_faces], weights=graph.area[a_faces]).argmax())
            anchor_pts = graph.vertices[np.unique(graph.faces[a_faces].ravel())]
            comp = int(component[a_faces[0]])
            for g in np.flatnonzero(small & (g_unit == u)).tolist():
                faces = face_lists[g]
                # outside its anchor's hull, and (deeper down) outside its component's anchor too: a panel's
                # handle sticks out of the carcass, a shelf inside a cavity does not
                outside = _outside_hull(anchor_pts, graph.centres[faces], cfg.outside_tol * diag)
                if level > 0 and comp in top:
                    outside &= _outside_hull(top[comp], graph.centres[faces], cfg.outside_tol * diag)
                if graph.area[faces][outside].sum() < cfg.outside * g_area[g]:
                    continue
                settled[g] = True
                near = _near_other_piece(graph, component, faces, cfg.mount_gap)
                if graph.area[faces][near].sum() >= cfg.mount_share * g_area[g]:
                    continue  # a mount: it carries another piece across a gap, so it stays with its anchor
                out[faces] = n_part + len(extra)
                # a protrusion the model gave a part of its own keeps that part's label; else its anchor's
                own = int(np.bincount(part[faces], weights=graph.area[faces], minlength=n_part).argmax())
                extra.append(own)
                geometric.append(own == a_part)
                below.append(bool(graph.centres[faces, 2].mean() < anchor_pts[:, 2].min()))
        # groups not split off are searched again at the next level, each with its own anchor
        next_unit = np.full(graph.num_faces, -1, np.int64)
        keep = ~settled[ginv]
        next_unit[rest[keep]] = gids[ginv[keep]]
        unit = next_unit
    none = np.zeros(n_part, bool)
    return (out, np.concatenate([np.arange(n_part), np.asarray(extra, np.int64)]),
            np.concatenate([none, np.asarray(geometric, bool)]), np.concatenate([none, np.asarray(below, bool)]))


def merge_to_count(graph: FaceGraph, part: np.ndarray, max_parts: int) -> np.ndarray:
    """Merge the smallest part into the neighbour it shares most edges with until at most ``max_parts`` remain."""
    part = part.copy()
    while True:
        used = np.unique(part)
        if len(used) <= max_parts:
            return part
        area = np.bincount(part, weights=graph.area)
        small = int(used[np.argmin(area[used])])
        a, b = part[graph.pairs[:, 0]], part[graph.pairs[:, 1]]
        border = (a == small) ^ (b == small)
        other = np.where(a[border] == small, b[border], a[border])
        target = int(np.bincount(other).argmax()) if len(other) else int(used[used != small][np.argmax(
            area[used[used != small]])])
        part[part == small] = target


@dataclass
class RefinedParts:
    """A refined segmentation: a part id per face (0..P-1, every id used) and, per part, the input part it came
    from (its label and score carry over), whether geometry made it (a protrusion split off its anchor's part)
    and whether that protrusion hangs below its anchor."""

    face_part: np.ndarray
    origin: np.ndarray
    protrusion: np.ndarray
    below: np.ndarray


def refine_parts(graph: FaceGraph, part: np.ndarray, cfg: RefineConfig | None = None, max_parts: int | None = None,
                 progress: Callable[[float], None] | None = None) -> RefinedParts:
    """Refine a part id per face with the shell's geometry (see the module doc); ``max_parts`` caps the count;
    ``progress(fraction)`` after each step."""
    report = progress or (lambda _f: None)
    cfg = cfg or RefineConfig()
    part = np.asarray(part, np.int64)
    if part.shape != (graph.num_faces,) or not len(part) or part.min() < 0:
        raise InvalidInputError(f"need a non-negative part id per face ({graph.num_faces}), got shape {part.shape}")
    if max_parts is not None and max_parts < 1:
        raise InvalidInputError(f"max_parts must be at least 1, got {max_parts}")
    component = graph.groups()
    patch = smooth_patches(graph, cfg.sharp_deg)
    report(0.2)
    snapped = snap_to_patches(graph, part, patch, component, cfg.snap_share)
    report(0.4)
    split, origin = split_components(graph, snapped, component, cfg.spill, cfg.min_piece, cfg.mount_gap)
    report(0.6)
    prot, origin2, made, below = split_protrusions(graph, split, component, cfg)
    origin = origin[origin2]
    report(0.8)
    if max_parts is not None:
        prot = merge_to_count(graph, prot, max_parts)
    report(1.0)
    used, final = np.unique(prot, return_inverse=True)
    log.debug("refined %d parts into %d (%d patches, %d components)", int(part.max()) + 1, len(used),
              int(patch.max()) + 1, int(component.max()) + 1)
    return RefinedParts(final.astype(np.int64), origin[used], made[used], below[used])
