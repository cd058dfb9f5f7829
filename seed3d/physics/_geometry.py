"""Mesh helpers shared by collision and inertia: welding, closedness, orientation, convex hulls.

All vectorised over vertices and faces; loops run at most over connected components or hulls.
"""

from __future__ import annotations

import numpy as np

from seed3d.typed import FloatArray, IntArray

#: Vertices closer than this (meters, per coordinate after rounding) are welded into one.
WELD_DECIMALS = 9


def weld(vertices: FloatArray, faces: IntArray) -> tuple[FloatArray, IntArray]:
    """Merge coincident vertices (UV seams), drop degenerate and duplicate faces; returns new arrays.

    Unused vertices are removed; vertex order follows first appearance in the rounded, sorted order,
    so the result is deterministic.
    """
    vertices = np.asarray(vertices, np.float64).reshape(-1, 3)
    faces = np.asarray(faces, np.int64).reshape(-1, 3)
    if not len(faces):
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    rounded = np.round(vertices, WELD_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
    uniq, inverse = np.unique(rounded, axis=0, return_inverse=True)
    faces = inverse.reshape(-1)[faces]
    good = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 2] != faces[:, 0])
    faces = faces[good]
    if len(faces):
        # Duplicate triangles (same vertex set, any winding): keep the first one.
        _, first = np.unique(np.sort(faces, axis=1), axis=0, return_index=True)
        faces = faces[np.sort(first)]
    # Average the original positions that were welded together (exact for exact duplicates).
    sums = np.zeros_like(uniq)
    np.add.at(sums, inverse.reshape(-1), vertices)
    counts = np.bincount(inverse.reshape(-1), minlength=len(uniq))[:, None]
    merged = sums / np.maximum(counts, 1)
    used = np.unique(faces)
    remap = np.full(len(merged), -1, np.int64)
    remap[used] = np.arange(len(used))
    return merged[used], remap[faces]


def _edge_codes(faces: IntArray, n: int) -> tuple[IntArray, IntArray]:
    """Directed edge codes a*n+b of every face edge and of the reversed edges."""
    a = faces.reshape(-1)
    b = faces[:, [1, 2, 0]].reshape(-1)
    return a * n + b, b * n + a


def is_closed(faces: IntArray, n_vertices: int) -> bool:
    """True when every undirected edge is shared by an even number (≥ 2) of faces (no boundary)."""
    if not len(faces):
        return False
    e = np.sort(np.stack([faces.reshape(-1), faces[:, [1, 2, 0]].reshape(-1)], axis=1), axis=1)
    _, counts = np.unique(e[:, 0] * n_vertices + e[:, 1], return_counts=True)
    return bool(np.all(counts % 2 == 0))


def is_edge_manifold(faces: IntArray, n_vertices: int) -> bool:
    """True when every undirected edge is shared by exactly two faces (closed 2-manifold edges)."""
    if not len(faces):
        return False
    e = np.sort(np.stack([faces.reshape(-1), faces[:, [1, 2, 0]].reshape(-1)], axis=1), axis=1)
    _, counts = np.unique(e[:, 0] * n_vertices + e[:, 1], return_counts=True)
    return bool(np.all(counts == 2))


def is_oriented(faces: IntArray, n_vertices: int) -> bool:
    """True when every directed edge is matched by as many reversed edges (a closed, coherent surface)."""
    if not len(faces):
        return False
    fwd, rev = _edge_codes(faces, n_vertices)
    codes, counts = np.unique(fwd, return_counts=True)
    rcodes, rcounts = np.unique(rev, return_counts=True)
    return bool(np.array_equal(codes, rcodes) and np.array_equal(counts, rcounts))


def component_labels(faces: IntArray, n_vertices: int) -> IntArray:
    """Connected-component label of every face (faces sharing a vertex are connected)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a = faces.reshape(-1)
    b = faces[:, [1, 2, 0]].reshape(-1)
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(n_vertices, n_vertices))
    _, vlabels = connected_components(graph, directed=False)
    return vlabels[faces[:, 0]]


def tet_determinants(vertices: FloatArray, faces: IntArray, ref: FloatArray) -> FloatArray:
    """6 × signed volume of the tetrahedron (ref, a, b, c) of every face."""
    a = vertices[faces[:, 0]] - ref
    b = vertices[faces[:, 1]] - ref
    c = vertices[faces[:, 2]] - ref
    return np.einsum("ij,ij->i", a, np.cross(b, c))


def signed_volume(vertices: FloatArray, faces: IntArray) -> float:
    """Signed volume enclosed by a closed triangle mesh (positive when faces point outward)."""
    if not len(faces):
        return 0.0
    ref = vertices.mean(axis=0)
    return float(tet_determinants(vertices, faces, ref).sum() / 6.0)


def winding_number(point: FloatArray, vertices: FloatArray, faces: IntArray) -> float:
    """Generalised winding number of ``point`` w.r.t. a triangle mesh (1 inside a closed outward mesh)."""
    a = vertices[faces[:, 0]] - point
    b = vertices[faces[:, 1]] - point
    c = vertices[faces[:, 2]] - point
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    num = np.einsum("ij,ij->i", a, np.cross(b, c))
    den = (la * lb * lc + np.einsum("ij,ij->i", a, b) * lc + np.einsum("ij,ij->i", b, c) * la
           + np.einsum("ij,ij->i", c, a) * lb)
    return float(np.arctan2(num, den).sum() / (2.0 * np.pi))


def orient_outward(vertices: FloatArray, faces: IntArray) -> tuple[IntArray, bool]:
    """Orient a closed mesh so every shell encloses positive volume and cavities negative volume.

    Winding is first made coherent within each connected shell (trimesh's face-graph traversal when
    needed); then a shell's sign is chosen from its nesting depth (odd depth = a cavity inside another
    shell). Returns the new faces and whether the result is coherently oriented.
    """
    faces = faces.copy()
    n = len(vertices)
    if not is_oriented(faces, n):
        import trimesh

        tm = trimesh.Trimesh(vertices, faces, process=False)
        trimesh.repair.fix_winding(tm)
        faces = np.asarray(tm.faces, np.int64).copy()
        if not is_oriented(faces, n):
            return faces, False
    labels = component_labels(faces, n)
    ref = vertices.mean(axis=0)
    vols = np.bincount(labels, weights=tet_determinants(vertices, faces, ref) / 6.0)
    comps = np.unique(labels)
    if len(comps) == 1:
        if vols[comps[0]] < 0:
            faces = faces[:, ::-1].copy()
        return faces, True
    # Bounding boxes per shell; a shell can only be nested in a shell whose box contains it.
    fv = vertices[faces]  # (F, 3, 3)
    lo = np.full((labels.max() + 1, 3), np.inf)
    hi = np.full((labels.max() + 1, 3), -np.inf)
    np.minimum.at(lo, labels, fv.min(axis=1))
    np.maximum.at(hi, labels, fv.max(axis=1))
    inside = np.all(lo[:, None] >= lo[None, :], axis=2) & np.all(hi[:, None] <= hi[None, :], axis=2)
    np.fill_diagonal(inside, False)
    flip = np.zeros(labels.max() + 1, bool)
    for c in comps:  # loop over shells, not vertices
        depth = 0
        for other in np.flatnonzero(inside[c]):
            p = vertices[faces[labels == c][0, 0]]
            depth += round(abs(winding_number(p, vertices, faces[labels == other])))
        want_positive = depth % 2 == 0
        flip[c] = (vols[c] >= 0) != want_positive
    faces[flip[labels]] = faces[flip[labels]][:, ::-1]
    return faces, True


def convex_hull(points: FloatArray) -> tuple[FloatArray, IntArray] | None:
    """Closed, outward-oriented convex hull of ``points`` (vertices, faces), or None when it is flat."""
    from scipy.spatial import ConvexHull, QhullError

    points = np.asarray(points, np.float64).reshape(-1, 3)
    if len(points) < 4 or not np.all(np.isfinite(points)):
        return None
    centre = points.mean(axis=0)
    scale = float(np.abs(points - centre).max())
    if scale <= 0:
        return None
    try:
        hull = ConvexHull((points - centre) / scale)
    except (QhullError, ValueError):
        return None
    if hull.volume <= 1e-12:
        return None
    simplices = hull.simplices.astype(np.int64)
    p = points[simplices]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    wrong = np.einsum("ij,ij->i", normal, hull.equations[:, :3]) < 0
    simplices[wrong] = simplices[wrong][:, ::-1]
    used = np.unique(simplices)
    remap = np.full(len(points), -1, np.int64)
    remap[used] = np.arange(len(used))
    return points[used].copy(), remap[simplices]


def farthest_point_subset(points: FloatArray, k: int) -> FloatArray:
    """``k`` points of ``points`` chosen by deterministic farthest-point sampling.

    Starts from the point farthest from the centroid (lowest index on ties); each step is vectorised.
    """
    points = np.asarray(points, np.float64)
    if len(points) <= k:
        return points.copy()
    centre = points.mean(axis=0)
    chosen = [int(np.argmax(np.linalg.norm(points - centre, axis=1)))]
    dist = np.linalg.norm(points - points[chosen[0]], axis=1)
    for _ in range(k - 1):  # k is a small cap (≤ a few hundred)
        nxt = int(np.argmax(dist))
        chosen.append(nxt)
        dist = np.minimum(dist, np.linalg.norm(points - points[nxt], axis=1))
    return points[np.sort(chosen)]


def face_planes(vertices: FloatArray, faces: IntArray) -> FloatArray:
    """Unique outward face planes (n, d) with n·x ≤ d inside, as a (P, 4) array (coplanar faces merged)."""
    p = vertices[faces]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    norm = np.linalg.norm(normal, axis=1)
    keep = norm > 1e-300
    normal = normal[keep] / norm[keep, None]
    offset = np.einsum("ij,ij->i", normal, p[keep, 0])
    scale = max(float(np.ptp(vertices, axis=0).max()), 1e-12)
    key = np.round(np.concatenate([normal, offset[:, None] / scale], axis=1), 6) + 0.0
    _, first = np.unique(key, axis=0, return_index=True)
    first = np.sort(first)
    return np.concatenate([normal[first], offset[first, None]], axis=1)


def _intersect(planes: FloatArray, interior: FloatArray) -> FloatArray | None:
    """Vertices of the bounded polytope {x : n·x ≤ d}, or None when qhull cannot build it."""
    from scipy.spatial import HalfspaceIntersection, QhullError

    halfspaces = np.concatenate([planes[:, :3], -planes[:, 3:]], axis=1)  # n·x - d ≤ 0
    try:
        points = HalfspaceIntersection(halfspaces, interior).intersections
    except (QhullError, ValueError):
        return None
    return points if np.all(np.isfinite(points)) else None


def circumscribed_hull(vertices: FloatArray, faces: IntArray, n_planes: int) -> tuple[FloatArray, IntArray] | None:
    """A convex polytope of at most ``n_planes`` of the hull's supporting planes that contains it.

    Starts from the hull's 6 bounding-box planes and greedily adds the face plane that cuts off the
    polytope vertex sticking out farthest, so the bulge over the hull shrinks fastest. A polytope of
    k planes has at most 2k − 4 vertices and k faces. Returns None when qhull fails.
    """
    planes = face_planes(vertices, faces)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    eye = np.eye(3)
    box = np.concatenate([np.concatenate([eye, hi[:, None]], axis=1), np.concatenate([-eye, -lo[:, None]], axis=1)])
    interior = vertices.mean(axis=0)
    chosen = box
    scale = float(np.ptp(vertices, axis=0).max())
    for _ in range(max(0, n_planes - 6)):  # loop over planes added (≤ a few dozen)
        corners = _intersect(chosen, interior)
        if corners is None:
            return None
        excess = corners @ planes[:, :3].T - planes[:, 3][None, :]
        worst = np.unravel_index(int(np.argmax(excess)), excess.shape)
        if excess[worst] <= 1e-6 * scale:
            break
        chosen = np.concatenate([chosen, planes[worst[1]][None, :]])
    corners = _intersect(chosen, interior)
    return None if corners is None else convex_hull(corners)


def max_excess(points: FloatArray, vertices: FloatArray, faces: IntArray) -> float:
    """Largest distance of ``points`` outside the convex mesh (vertices, faces), 0 when all are inside."""
    planes = face_planes(vertices, faces)
    return float(max(0.0, (points @ planes[:, :3].T - planes[:, 3][None, :]).max()))


def pca_box(points: FloatArray, min_thickness: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Principal-axes box around ``points``: (centre, axes as rows of a rotation, extents ≥ min_thickness)."""
    points = np.asarray(points, np.float64).reshape(-1, 3)
    mean = points.mean(axis=0) if len(points) else np.zeros(3)
    if len(points) >= 2:
        # Reduced SVD: the full one builds an N×N U (3.2 GB for a 20k-vertex part); vt is the same 3×3.
        _, _, vt = np.linalg.svd(points - mean, full_matrices=len(points) < 3)
    else:
        vt = np.eye(3)
    if np.linalg.det(vt) < 0:
        vt[2] *= -1
    local = (points - mean) @ vt.T if len(points) else np.zeros((1, 3))
    lo, hi = local.min(axis=0), local.max(axis=0)
    extents = np.maximum(hi - lo, min_thickness)
    centre = mean + ((lo + hi) / 2) @ vt
    return centre, vt, extents


def box_mesh(centre: FloatArray, axes: FloatArray, extents: FloatArray) -> tuple[FloatArray, IntArray]:
    """An oriented closed box (8 vertices, 12 outward triangles)."""
    corners = np.array([[i, j, k] for i in (-0.5, 0.5) for j in (-0.5, 0.5) for k in (-0.5, 0.5)])
    verts = centre + (corners * extents) @ axes
    hull = convex_hull(verts)
    assert hull is not None  # extents are positive
    return hull


def polygon_count(vertices: FloatArray, faces: IntArray) -> int:
    """Number of distinct face planes of a convex mesh (coplanar triangles form one polygon)."""
    p = vertices[faces]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    norm = np.linalg.norm(normal, axis=1)
    keep = norm > 0
    normal = normal[keep] / norm[keep, None]
    scale = max(float(np.ptp(vertices, axis=0).max()), 1e-12)
    offset = np.einsum("ij,ij->i", normal, p[keep, 0]) / scale
    planes = np.round(np.concatenate([normal, offset[:, None]], axis=1), 6) + 0.0
    return len(np.unique(planes, axis=0))


def hull_problems(vertices: FloatArray, faces: IntArray, max_vertices: int | None = None,
                  max_polygons: int | None = None) -> list[str]:
    """What keeps a mesh from being a closed, outward-oriented convex hull (empty when it is one).

    ``max_vertices`` / ``max_polygons`` add caps on vertices and on distinct face planes.
    """
    vertices = np.asarray(vertices, np.float64).reshape(-1, 3)
    faces = np.asarray(faces, np.int64).reshape(-1, 3)
    problems: list[str] = []
    if len(vertices) < 4 or len(faces) < 4:
        return [f"has {len(vertices)} vertices and {len(faces)} faces (a closed hull needs ≥ 4 of each)"]
    if not np.all(np.isfinite(vertices)):
        return ["has non-finite vertices"]
    if max_vertices is not None and len(vertices) > max_vertices:
        problems.append(f"has {len(vertices)} vertices (> {max_vertices})")
    if faces.min() < 0 or faces.max() >= len(vertices):
        return [*problems, "faces index missing vertices"]
    if max_polygons is not None and (n_poly := polygon_count(vertices, faces)) > max_polygons:
        problems.append(f"has {n_poly} face planes (> {max_polygons})")
    if not is_oriented(faces, len(vertices)):
        problems.append("is not closed and coherently oriented")
    vol = signed_volume(vertices, faces)
    if not vol > 0:
        problems.append(f"encloses non-positive volume {vol:.3g} (inward or flat)")
    p = vertices[faces]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    norm = np.linalg.norm(normal, axis=1)
    ok = norm > 0
    normal = normal[ok] / norm[ok, None]
    offsets = np.einsum("ij,ij->i", normal, p[ok, 0])
    scale = float(np.ptp(vertices, axis=0).max())
    excess = vertices @ normal.T - offsets[None, :]
    if excess.size and float(excess.max()) > 1e-6 * max(scale, 1e-9):
        problems.append(f"is not convex (a vertex lies {float(excess.max()):.3g} m outside a face plane)")
    return problems
