"""From an extracted surface to one clean, closed shell at real-world scale in the asset frame.

``clean_shell`` welds, drops degenerate and doubled faces, removes floaters, repairs non-manifold edges and
vertices, closes holes, winds every shell outward and optionally decimates (quadric edge collapse: a fast
pre-reduction of very large surfaces, then a topology-preserving collapse), checking that the result is still
closed after each step. ``real_world_size`` reads a target size from a prompt
("50 cm tall", "1.2 m wide", "30 inch", "small") or falls back to the synth category's size range;
``to_asset_frame`` scales a mesh from the normalised generation frame to meters, resting on z = 0;
``flatten_base`` then cuts the lowest few millimetres off, so that the base stands on one flat face.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Mesh
from seed3d.catalog.measure import DIMENSIONS, SIZE_MODIFIERS, parse_size_text
from seed3d.errors import DependencyError, InvalidInputError, Seed3DError
from seed3d.progress import heartbeat
from seed3d.typed import FloatArray, ProgressCallback

log = logging.getLogger(__name__)

#: Longest side (meters) used when neither the text nor a known category gives a size (middle of DEFAULT_RANGE_M).
DEFAULT_LONGEST_M = 0.5

#: Longest-side range (meters) standing in for a category's when neither text nor category gives a size.
DEFAULT_RANGE_M = (0.25, 1.0)

class RepairError(Seed3DError):
    """A mesh could not be made into a closed, consistently wound shell."""


# --------------------------------------------------------------------------------------------- clean shell


def _require_pymeshlab() -> Any:
    try:
        import pymeshlab
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise DependencyError("mesh repair needs pymeshlab: pip install pymeshlab==2025.7.post1") from exc
    return pymeshlab


def _is_closed(mesh: Mesh) -> bool:
    """Every edge shared by exactly two faces, wound consistently."""
    if not len(mesh.faces):
        return False
    tm = mesh.to_trimesh()
    return bool(tm.is_watertight and tm.is_winding_consistent)


def _drop_bad_faces(mesh: Mesh) -> Mesh:
    """Drop faces with a repeated vertex, doubled faces (one kept) and opposed pairs (both: a zero-thickness wall)."""
    f = mesh.faces
    f = f[(f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 0] != f[:, 2])]
    if not len(f):
        return Mesh(mesh.vertices, f)
    srt = np.sort(f, axis=1)
    # orientation parity: a face and its reverse sort to the same triple with opposite parity
    rot = np.argmin(f, axis=1)
    canon = np.stack([np.take_along_axis(f, ((rot + k) % 3)[:, None], 1)[:, 0] for k in range(3)], 1)
    parity = canon[:, 1] < canon[:, 2]
    n = int(f.max()) + 1
    # one int64 per sorted triple (same order as a lexicographic row sort, several times faster) while it fits
    rows = srt[:, 0] * (n * n) + srt[:, 1] * n + srt[:, 2] if n < 2_000_000 else srt
    _, inv, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    pos = np.bincount(inv, weights=parity.astype(float), minlength=len(counts))
    opposed = (pos > 0) & (pos < counts)  # both orientations present: an internal membrane
    _, first = np.unique(inv, return_index=True)
    keep = np.zeros(len(f), bool)
    keep[first] = True
    keep &= ~opposed[inv]
    dropped = len(mesh.faces) - int(keep.sum())
    if dropped:
        log.debug("clean_shell: dropped %d degenerate, doubled or opposed faces", dropped)
    return _compact(Mesh(mesh.vertices, f[keep]))


def _compact(mesh: Mesh) -> Mesh:
    """Remove vertices no face uses."""
    used, inv = np.unique(mesh.faces, return_inverse=True)
    return Mesh(mesh.vertices[used], inv.reshape(-1, 3))


def _components(mesh: Mesh) -> tuple[int, np.ndarray]:
    """(count, component label of each face), faces joined through shared vertices."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    f = mesh.faces
    n = len(mesh.vertices)
    rows = np.concatenate([f[:, 0], f[:, 1], f[:, 2]])
    cols = np.concatenate([f[:, 1], f[:, 2], f[:, 0]])
    graph = coo_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    return count, labels[f[:, 0]]


def _face_areas(mesh: Mesh) -> FloatArray:
    v = mesh.vertices[mesh.faces]
    return 0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)


def _remove_floaters(mesh: Mesh, min_fraction: float) -> Mesh:
    """Keep the components whose area is at least ``min_fraction`` of the largest one's."""
    count, label = _components(mesh)
    if count <= 1:
        return mesh
    area = np.bincount(label, weights=_face_areas(mesh), minlength=count)
    keep = area >= min_fraction * area.max()
    log.info("clean_shell: %d components; kept %d (area >= %.3g of the largest), dropped %d floaters",
             count, int(keep.sum()), min_fraction, int((~keep).sum()))
    return _compact(Mesh(mesh.vertices, mesh.faces[keep[label]]))


def _meshlab_repair(mesh: Mesh, weld_tol: float) -> Mesh:
    """Merge close vertices, fix non-manifold edges and vertices, close holes, orient coherently (pymeshlab)."""
    pymeshlab = _require_pymeshlab()
    ms = pymeshlab.MeshSet()
    ms.add_mesh(pymeshlab.Mesh(vertex_matrix=mesh.vertices, face_matrix=mesh.faces.astype(np.int32)))
    ms.meshing_merge_close_vertices(threshold=pymeshlab.PureValue(weld_tol))
    ms.meshing_remove_duplicate_faces()
    ms.meshing_remove_null_faces()
    ms.meshing_remove_unreferenced_vertices()
    for _ in range(3):  # removing faces at a non-manifold edge can leave new ones; a few passes settle it
        ms.meshing_repair_non_manifold_edges(method="Remove Faces")
        ms.meshing_repair_non_manifold_vertices(vertdispratio=0.0)
        out = _from_meshset(ms)
        boundary = _boundary_edge_count(out)
        if boundary:
            for self_check in (True, False):
                ms.meshing_close_holes(maxholesize=boundary + 3, newfaceselected=False, selfintersection=self_check)
                if not _boundary_edge_count(_from_meshset(ms)):
                    break
        ms.meshing_remove_unreferenced_vertices()
        out = _from_meshset(ms)
        if _is_closed(out) or not len(out.faces):
            break
    ms.meshing_re_orient_faces_coherently()
    return _from_meshset(ms)


def _from_meshset(ms: Any) -> Mesh:
    m = ms.current_mesh()
    return Mesh(np.asarray(m.vertex_matrix(), np.float64), np.asarray(m.face_matrix(), np.int64))


def _boundary_edge_count(mesh: Mesh) -> int:
    """Edges used by exactly one face."""
    if not len(mesh.faces):
        return 0
    e = np.sort(mesh.faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    _, counts = np.unique(e, axis=0, return_counts=True)
    return int(np.count_nonzero(counts == 1))


def _signed_volumes(mesh: Mesh, label: np.ndarray, count: int) -> FloatArray:
    v = mesh.vertices[mesh.faces]
    six = np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2]))
    return np.bincount(label, weights=six, minlength=count) / 6.0


def _orient_outward(mesh: Mesh) -> Mesh:
    """Wind each closed shell outward; a shell nested inside an odd number of others is a cavity (inward)."""
    count, label = _components(mesh)
    vol = _signed_volumes(mesh, label, count)
    want = np.ones(count)
    if count > 1:
        tm = mesh.to_trimesh()
        probe = mesh.vertices[mesh.faces[np.unique(label, return_index=True)[1], 0]]
        for c in range(count):  # few shells survive floater removal; a loop over shells, not vertices
            sub = tm.submesh([np.flatnonzero(label == c)], append=True)
            inside = sub.contains(probe) if sub.is_watertight else np.zeros(count, bool)
            inside[c] = False
            want[inside] *= -1
    flip = np.sign(vol) * want < 0
    if not flip.any():
        return mesh
    faces = mesh.faces.copy()
    faces[flip[label]] = faces[flip[label]][:, ::-1]
    log.debug("clean_shell: flipped %d inward-wound shells", int(flip.sum()))
    return Mesh(mesh.vertices, faces)


#: Decimation of a mesh with more than twice this many times the target faces first collapses it to this many
#: times the target with Fast-Quadric-Mesh-Simplification (fast, no topology checks), then finishes with
#: pymeshlab's topology-preserving quadric collapse (``python eval/bench_decimation.py --generated``: a 1M-face
#: analytic surface in under a third of the time with no more error; the generator's 1.3M-face image surface is
#: opened by the fast collapse, so it falls back and gains nothing).
PRE_REDUCE = 4


def _pre_reduce(mesh: Mesh, target: int) -> Mesh:
    """``mesh`` collapsed to ``PRE_REDUCE × target`` faces by fast quadric simplification, or ``mesh`` itself
    when it is not that much larger or the fast collapse leaves it open or non-manifold."""
    if len(mesh.faces) <= 2 * PRE_REDUCE * target:
        return mesh
    try:
        import fast_simplification
    except ImportError as exc:
        raise DependencyError("decimation needs fast-simplification: pip install fast-simplification==0.2.0") \
            from exc
    v, f = fast_simplification.simplify(mesh.vertices.astype(np.float64), mesh.faces.astype(np.int32),
                                        1.0 - PRE_REDUCE * target / len(mesh.faces))
    out = _drop_bad_faces(Mesh(np.asarray(v, np.float64), np.asarray(f, np.int64)).welded())
    if not _is_closed(out) or _has_nonmanifold_vertices(out):
        log.debug("clean_shell: the fast pre-reduction opened the mesh; decimating the full mesh")
        return mesh
    return out


#: Faces smaller than this (in the mesh's units², float32 as files store it) count as zero-area after a collapse.
ZERO_AREA = 1e-12


def _has_zero_area_faces(mesh: Mesh) -> bool:
    tri = mesh.vertices.astype(np.float32)[mesh.faces].astype(np.float64)
    return bool((np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1) <= 2 * ZERO_AREA).any())


def _decimate(mesh: Mesh, target: int) -> Mesh | None:
    """Quadric edge collapse to about ``target`` faces, keeping topology; None when the result is not closed or
    has zero-area faces."""
    pymeshlab = _require_pymeshlab()
    mesh = _pre_reduce(mesh, target)
    ms = pymeshlab.MeshSet()
    ms.add_mesh(pymeshlab.Mesh(vertex_matrix=mesh.vertices, face_matrix=mesh.faces.astype(np.int32)))
    ms.meshing_decimation_quadric_edge_collapse(
        targetfacenum=int(target), qualitythr=0.3, preserveboundary=True, preservenormal=True,
        preservetopology=True, optimalplacement=True, planarquadric=True, autoclean=True)
    out = _from_meshset(ms)
    if not _is_closed(out):
        out = _drop_bad_faces(out)
        if not _is_closed(out):
            return None
    if _has_zero_area_faces(out):
        return None
    return _orient_outward(out)


#: Faces a second the decimation gets through on a busy CPU (eval/results/progress.json: 445k faces in 21 s under a
#: load of 10 on 2 cores): what its heartbeat expects.
DECIMATE_FACES_PER_S = 20_000


def decimate(mesh: Mesh, target_faces: int, progress: ProgressCallback | None = None) -> Mesh:
    """A closed mesh collapsed to about ``target_faces`` faces by quadric edge collapse, topology kept.

    A collapse that opens the mesh or leaves zero-area faces is retried with 1.5x more faces; when none works the
    mesh comes back as it is (logged). A mesh with no more than ``target_faces`` faces is returned unchanged.
    ``progress(fraction, message)`` is called every second while the collapse runs (``seed3d.progress.heartbeat``:
    the call reports nothing from inside)."""
    if isinstance(target_faces, bool) or not isinstance(target_faces, (int, np.integer)) or target_faces < 4:
        raise InvalidInputError(f"target_faces must be an integer >= 4, got {target_faces!r}")
    target = int(target_faces)
    if target >= len(mesh.faces):
        return mesh
    with heartbeat(progress, 0.0, 1.0, f"decimating {len(mesh.faces) / 1000:.0f}k faces",
                   expected_s=max(1.0, len(mesh.faces) / DECIMATE_FACES_PER_S)):
        while target < len(mesh.faces):
            dec = _decimate(mesh, target)
            if dec is not None:
                if len(dec.faces) > 1.1 * target_faces:
                    log.info("decimate: stopped at %d faces (target %d) to keep the topology", len(dec.faces),
                             target_faces)
                return dec
            log.info("decimate: collapsing to %d faces opened the mesh or left zero-area faces; retrying with more "
                     "faces", target)
            target = math.ceil(target * 1.5)
    if len(mesh.faces) > target_faces:
        log.warning("decimate: no collapse kept the mesh closed and free of zero-area faces; returning %d faces "
                    "(target %d)", len(mesh.faces), target_faces)
    return mesh


def clean_shell(mesh: Mesh, target_faces: int | None = None, min_component_fraction: float = 0.02,
                progress: Callable[..., None] | None = None) -> Mesh:
    """One clean, closed, outward-wound manifold shell (plus any other substantial ones) from a raw surface.

    Steps: weld (exact, then within 1e-7 of the bounding-box diagonal), drop degenerate, doubled and opposed
    faces, remove floaters (components with less than ``min_component_fraction`` of the largest one's
    area), remove faces at non-manifold edges and split non-manifold vertices, close holes, wind every shell
    outward (a shell nested inside another is a cavity and faces inward), then decimate to
    ``target_faces`` by quadric edge collapse when given and smaller than the face count (``_pre_reduce`` first
    when the mesh has more than ``2 × PRE_REDUCE`` times that; see ``decimate``). UVs are dropped.

    Raises ``InvalidInputError`` for an empty mesh or bad arguments and ``RepairError`` when no closed,
    consistently wound shell can be made. ``progress(fraction)`` is called after each step, and
    ``progress(fraction, message)`` every second while the decimation runs (``decimate``).
    """
    report = progress or (lambda _f, *_m: None)
    if not len(mesh.faces):
        raise InvalidInputError("clean_shell needs a mesh with faces; got an empty mesh")
    if not np.isfinite(mesh.vertices).all():
        raise InvalidInputError("clean_shell: the mesh has non-finite vertex coordinates")
    if target_faces is not None and (isinstance(target_faces, bool) or not isinstance(target_faces, (int, np.integer))
                                     or target_faces < 4):
        raise InvalidInputError(f"target_faces must be an integer >= 4 or None, got {target_faces!r}")
    if not 0.0 <= min_component_fraction < 1.0:
        raise InvalidInputError(f"min_component_fraction must lie in [0, 1), got {min_component_fraction}")

    n_in = len(mesh.faces)
    lo, hi = mesh.bounds
    diag = float(np.linalg.norm(hi - lo))
    if not diag > 0:
        raise InvalidInputError("clean_shell: the mesh has an empty bounding box")
    out = mesh.welded()
    report(0.05)
    out = _drop_bad_faces(out)
    if not len(out.faces):
        raise RepairError("clean_shell: every face is degenerate; nothing is left to repair")
    report(0.1)
    out = _remove_floaters(out, min_component_fraction)
    report(0.15)
    if not _is_closed(out) or _has_nonmanifold_vertices(out):
        report(0.2)
        out = _meshlab_repair(out, 1e-7 * diag)
        if not len(out.faces):
            raise RepairError("clean_shell: repairing non-manifold geometry removed every face")
        report(0.3)
        out = _remove_floaters(_drop_bad_faces(out), min_component_fraction)
    report(0.35)
    if not _is_closed(out):
        raise RepairError(
            f"clean_shell: could not close the mesh ({_boundary_edge_count(out)} boundary edges remain after "
            "hole filling); extract it again from the field (seed3d.geometry.extract) rather than repairing")
    out = _orient_outward(out)
    report(0.45)
    volume = float(_signed_volumes(out, np.zeros(len(out.faces), np.int64), 1)[0])
    if not volume > 1e-9 * diag**3:
        raise RepairError(f"clean_shell: the closed mesh encloses no volume ({volume:.3g}); the input is a flat or "
                          "open sheet, not the surface of a solid")

    report(0.5)
    if target_faces is not None:
        out = decimate(out, int(target_faces), progress=lambda f, m: report(0.5 + 0.5 * f, m))
    report(1.0)
    log.info("clean_shell: %d faces in, %d out (%d vertices), closed and outward", n_in, len(out.faces),
             len(out.vertices))
    return out


def _has_nonmanifold_vertices(mesh: Mesh) -> bool:
    """Whether some vertex's faces form more than one fan (e.g. two cones touching at a tip)."""
    f = mesh.faces
    nv = len(mesh.vertices)
    # union faces around each vertex through the edges they share at that vertex: count fans per vertex via
    # (vertex, face) nodes joined when two faces share an edge containing the vertex
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    nf = len(f)
    node = np.arange(3 * nf).reshape(nf, 3)  # node (face, corner)
    e_a = f[:, [0, 1, 2]].reshape(-1)
    e_b = f[:, [1, 2, 0]].reshape(-1)
    corner_a = node[:, [0, 1, 2]].reshape(-1)
    corner_b = node[:, [1, 2, 0]].reshape(-1)
    key = np.minimum(e_a, e_b) * nv + np.maximum(e_a, e_b)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    same = ks[1:] == ks[:-1]
    i, j = order[:-1][same], order[1:][same]  # half-edges on the same edge (manifold: pairs)
    # join the corners at each shared endpoint: endpoint a of half-edge i with the corner of j at the same vertex
    va_i, vb_i = e_a[i], e_b[i]
    ca_i, cb_i = corner_a[i], corner_b[i]
    ca_j, cb_j = corner_a[j], corner_b[j]
    va_j = e_a[j]
    src = np.concatenate([ca_i, cb_i])
    dst = np.concatenate([np.where(va_j == va_i, ca_j, cb_j), np.where(va_j == vb_i, ca_j, cb_j)])
    graph = coo_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(3 * nf, 3 * nf))
    _, fan = connected_components(graph, directed=False)
    vert = f.reshape(-1).astype(np.int64)
    pairs = np.unique(vert * (3 * nf) + fan)  # one int64 key per (vertex, fan): 1-D unique, not a row sort
    return bool(len(pairs) > len(np.unique(vert)))


# --------------------------------------------------------------------------------------------- real-world size


@dataclass
class RealWorldSize:
    """Target real-world dimensions in meters and where they came from (``text``, ``category`` or ``default``).

    ``dims`` maps any of ``DIMENSIONS`` to meters: ``height`` (z), ``width`` (y), ``depth`` (x), ``length``
    (the longer horizontal side; also diameters) and ``longest`` (the longest side).
    """

    dims: dict[str, float]
    source: str = "default"
    note: str = ""
    modifiers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.dims:
            raise InvalidInputError("a RealWorldSize needs at least one dimension")
        for k, v in self.dims.items():
            if k not in DIMENSIONS:
                raise InvalidInputError(f"unknown dimension {k!r}; use one of {', '.join(DIMENSIONS)}")
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise InvalidInputError(f"{k} must be a positive number of meters, got {v!r}")
        self.dims = {k: float(v) for k, v in self.dims.items()}

    def describe(self) -> str:
        """Where the size came from, in words a user can act on."""
        moved = f", moved by {', '.join(repr(m) for m in self.modifiers)}" if self.modifiers else ""
        if self.source == "text":
            return self.note or "stated in the text"
        if self.source == "category":
            return f"the typical size of a {self.note.replace('_', ' ')} (its category){moved}"
        return self.note + moved

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (report.json's ``size``): ``dims`` (meters), ``source``, ``note`` and ``modifiers``."""
        return {"dims": {k: round(v, 4) for k, v in self.dims.items()}, "source": self.source,
                "note": self.describe(), "modifiers": list(self.modifiers)}


@functools.lru_cache(maxsize=1)
def _category_table() -> dict[str, tuple[tuple[float, float, float], tuple[float, float, float], tuple[str, ...]]]:
    """Synth categories → (extent_min, extent_max, nouns); empty when the synth engine cannot be imported."""
    try:
        from seed3d.synth import CATEGORIES
    except ImportError as exc:  # pragma: no cover - synth ships with seed3d
        log.warning("real_world_size: no category size priors (%s)", exc)
        return {}
    return {name: (tuple(c.extent_min), tuple(c.extent_max), tuple(c.nouns) or (name.replace("_", " "),))
            for name, c in CATEGORIES.items()}


def category_size(category: str, t: float = 0.5) -> dict[str, float] | None:
    """Depth, width and height (meters) at position ``t`` of a synth category's size range, None if unknown.

    ``t = 0.5`` is the geometric middle of ``Category.extent_min`` … ``extent_max`` (see ``SIZE_MODIFIERS``).
    """
    entry = _category_table().get(category)
    if entry is None:
        return None
    lo, hi, _ = entry
    size = [a * (b / a) ** t for a, b in zip(lo, hi, strict=True)]
    return {"depth": size[0], "width": size[1], "height": size[2]}


def _category_from_text(text: str) -> str | None:
    """The synth category whose noun appears in ``text`` (longest noun wins)."""
    low = text.lower()
    best: tuple[int, str] | None = None
    for name, (_, _, nouns) in _category_table().items():
        for noun in (*nouns, name.replace("_", " ")):
            found = re.search(r"\b" + re.escape(noun.lower()) + r"(?:e?s)?\b", low)
            if found and (best is None or len(noun) > best[0]):
                best = (len(noun), name)
    return None if best is None else best[1]


def real_world_size(text: str | None = None, category: str | None = None) -> RealWorldSize:
    """The size to give an object: measurements in ``text``, else the category's typical size, else a default.

    Size words ("tiny", "small", "large", "huge", … see ``SIZE_MODIFIERS``) move the size within the
    category's range; a stated measurement wins over both. ``category`` is a synth category name
    (``seed3d.synth.CATEGORIES``) or one of its nouns; when it is missing or unknown, a category noun in
    ``text`` ("a wooden wardrobe") is used. Without either, the longest side is ``DEFAULT_LONGEST_M``
    (logged), moved by size words within ``DEFAULT_RANGE_M``.
    """
    if text is not None and not isinstance(text, str):
        raise InvalidInputError(f"text must be a string or None, got {type(text).__name__}")
    text = text or ""
    stated = parse_size_text(text) if text else {}
    if stated:
        return RealWorldSize(stated, "text", note="stated in the prompt")
    mods = [w for w in re.findall(r"[a-z]+", text.lower()) if w in SIZE_MODIFIERS]
    t = float(np.mean([SIZE_MODIFIERS[w] for w in mods])) if mods else 0.5
    name = category if category and category in _category_table() else None
    if category and name is None:
        by_noun = _category_from_text(category.replace("_", " "))
        if by_noun is None:
            log.warning("real_world_size: unknown category %r; trying the text", category)
        name = by_noun
    if name is None and text:
        name = _category_from_text(text)
    prior = category_size(name, t) if name else None
    if prior is not None:
        return RealWorldSize(prior, "category", note=name or "", modifiers=mods)
    lo, hi = DEFAULT_RANGE_M
    longest = lo * (hi / lo) ** t
    log.info("real_world_size: no size in the text and no known category; longest side %.3g m", longest)
    return RealWorldSize({"longest": longest}, "default", modifiers=mods,
                         note=f"no measurement in the text and no known category: a {longest:.3g} m longest side (give "
                              "a measurement such as '80 cm tall' or a category)")


# --------------------------------------------------------------------------------------------- asset frame


def _measure(extent: FloatArray) -> dict[str, float]:
    return {"depth": float(extent[0]), "width": float(extent[1]), "height": float(extent[2]),
            "length": float(max(extent[0], extent[1])), "longest": float(extent.max())}


def asset_frame_matrix(mesh: Mesh, size: RealWorldSize | float | None = None) -> FloatArray:
    """4x4 matrix from the normalised generation frame to the asset frame (meters, bottom centre at the origin).

    The axes are the same in both frames (+Z up, front +X), so it is a uniform scale and a shift. With one
    target dimension the scale meets it exactly; with several (e.g. a category prior's depth, width and
    height) it is the geometric mean of the per-dimension ratios, the least-squares fit in log space.
    ``size`` as a number is the longest side in meters; None is ``real_world_size()``'s default.
    """
    if not len(mesh.vertices):
        raise InvalidInputError("to_asset_frame needs a mesh with vertices")
    if size is None:
        size = RealWorldSize({"longest": DEFAULT_LONGEST_M})
    elif not isinstance(size, RealWorldSize):
        size = RealWorldSize({"longest": float(size)})
    lo, hi = mesh.bounds
    have = _measure(hi - lo)
    ratios = [math.log(meters / have[dim]) for dim, meters in size.dims.items() if have[dim] > 1e-12]
    if not ratios:
        raise InvalidInputError(f"cannot scale a flat mesh (extent {hi - lo}) to {size.dims}")
    scale = math.exp(sum(ratios) / len(ratios))
    bottom = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
    mat = np.eye(4)
    mat[:3, :3] *= scale
    mat[:3, 3] = -scale * bottom
    return mat


def rest_pose(mesh: Mesh, max_tilt_deg: float = 20.0) -> Mesh:
    """``mesh`` turned to rest on the support it settles on when set down upright (uniform density; +Z up).

    A generated base is rarely flat: set down as it is, the shape rocks onto the face of its convex hull that holds
    its centre of mass. Of the hull's faces (coplanar ones merged) that tilt at most ``max_tilt_deg`` from the floor
    and hold the centre of mass, the one that tilts least becomes the floor plane (the smallest rotation about a
    horizontal axis through the centre of mass). The mesh comes back unchanged when no such face exists or the
    least tilt is zero."""
    import trimesh

    tm = mesh.to_trimesh()
    com = np.asarray(tm.center_mass if tm.is_volume else tm.centroid, np.float64)
    hull = tm.convex_hull
    groups = [list(f) for f in hull.facets]
    grouped = {int(i) for g in groups for i in g}
    groups += [[i] for i in range(len(hull.faces)) if i not in grouped]
    best: tuple[float, FloatArray] | None = None
    for g in groups:
        n = np.asarray(hull.face_normals[g[0]], np.float64)
        if -n[2] < math.cos(math.radians(max_tilt_deg)) or (best is not None and -n[2] <= best[0]):
            continue
        q = com - float((com - hull.vertices[hull.faces[g[0], 0]]) @ n) * n
        tris = hull.vertices[hull.faces[g]]
        bary = trimesh.triangles.points_to_barycentric(tris, np.repeat(q[None], len(g), axis=0))
        if (bary >= -1e-9).all(axis=1).any():
            best = (float(-n[2]), n)
    if best is None or best[0] >= 1.0 - 1e-12:
        return mesh
    n = best[1]
    axis = np.cross(n, [0.0, 0.0, -1.0])
    angle = math.atan2(float(np.linalg.norm(axis)), best[0])
    rot = trimesh.transformations.rotation_matrix(angle, axis / np.linalg.norm(axis), com)
    log.info("rest_pose: tilted %.2f degrees onto its support", math.degrees(angle))
    return mesh.transformed(rot)


def flatten_base(mesh: Mesh, fraction: float = 0.005, most: float = 0.005) -> Mesh:
    """``mesh`` (closed, in meters, resting on z = 0) with everything below ``fraction`` of its height (at most
    ``most`` m) cut off by a horizontal plane and lowered back onto z = 0, the cut capped: the base stands on one
    flat face.

    A generated base is rough even after ``rest_pose``: it touches the floor at a few points, and its collision
    shapes (decimated, then decomposed) touch it at others, so the asset rocks in the engines. The cut's face holds
    every point of the support ``rest_pose`` chose, so the centre of mass still lies over it. A mesh that is not a
    valid solid, or whose cut would leave nothing, comes back unchanged."""
    if fraction < 0 or most < 0:
        raise InvalidInputError(f"flatten_base needs fraction >= 0 and most >= 0, got {fraction}, {most}")
    lo, hi = mesh.bounds
    depth = min(fraction * float(hi[2] - lo[2]), most)
    if depth <= 0 or not len(mesh.faces):
        return mesh
    solid = mesh.welded().to_manifold()
    if solid.status().name != "NoError" or solid.is_empty():
        log.warning("flatten_base: the mesh is not a valid solid (%s); its base is left as it is", solid.status())
        return mesh
    cut = solid.trim_by_plane((0.0, 0.0, 1.0), float(lo[2]) + depth)
    if cut.is_empty():
        return mesh
    out = Mesh.from_manifold(cut)
    out.vertices[:, 2] -= out.vertices[:, 2].min()
    return out


def to_asset_frame(mesh: Mesh, size: RealWorldSize | float | None = None) -> Mesh:
    """The mesh in meters, resting on z = 0 and centred in x and y, scaled to ``size`` (see ``asset_frame_matrix``)."""
    out = mesh.transformed(asset_frame_matrix(mesh, size))
    out.vertices[:, 2] -= out.vertices[:, 2].min()  # exactly on the floor despite rounding
    return out
