"""Collision shapes: convex decomposition of a part mesh into hulls a (GPU) simulator accepts.

Pipeline of ``decompose``:

1. Weld UV seams; a closed mesh whose volume is within ``convex_tolerance`` of its hull's is already
   convex and gets its hull (``method="convex"``, no CoACD).
2. Otherwise CoACD (``method="coacd"``), seeded and with its logging off. Meshes over
   ``max_input_faces`` are first quadric-decimated (open3d; CoACD's time grows with the face count).
   Closed meshes run with CoACD's manifold preprocessing off: its self-intersection check flags valid
   boolean output and then remeshes it into ~200k triangles (a 3×3 shelf took 287 s instead of 10 s,
   with 65 % more hull volume). Open meshes run with it on (slow, and the hulls get coarser).
   CoACD's own hull merging is off (it re-measures concavity by sampling for every candidate pair,
   about 60 % of its run time on our parts); we merge greedily instead, joining the two touching
   hulls whose joint hull adds the least volume while that is below ``merge_tolerance`` of it, then,
   while there are more than ``max_hulls``, the cheapest pairs regardless.
3. Every hull is rebuilt with qhull (closed, outward). A hull over the caps is replaced by a
   circumscribed polytope of its own supporting planes (it contains the hull: no gaps, a small
   bulge) or by an inscribed one of sampled vertices (gaps), whichever deviates less. CoACD's own
   vertex decimation is off because it only shrinks hulls (8 mm gaps on a 10 cm-thick torus).
4. If CoACD is missing or fails, the mesh's convex hull stands in (``method="hull"``) with a warning.

Defaults and why (``CollisionConfig``, measured by ``eval/bench_collision.py`` on 2 shared CPU cores):
``threshold=0.02`` (CoACD's default is 0.05): at 0.05 and 0.03 the cabinet body's hulls reach 8 mm
into the drawer's 3 mm clearance, at 0.02 they stay clear, for about the same time. ``resolution=1000``
(CoACD: 2000) and ``mcts_iterations=50`` (CoACD: 150) cut CoACD's time about 3× with no loss of fit on
our cabinets, shelves and tori; ``mcts_max_depth`` stays 3 (depth 2 made worse cuts and more pieces).
``max_input_faces=5000``: a 100k-triangle part decomposes in ~10 s instead of ~90 s. With these a
1–5k-face part takes about 1–10 s (cabinet body 2–3 s, a 2.3k-face torus 3–4 s).

Results are cached on disk by ``Mesh.digest()`` + the settings that change the output + the CoACD
version, so a second run over the same mesh is instant. Cache files are written atomically; a corrupt
or inconsistent cache file is ignored (logged) and rewritten.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import heapq
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Mesh, atomic_file
from seed3d.errors import DependencyError, InvalidInputError
from seed3d.physics import _geometry as geo
from seed3d.typed import FloatArray, IntArray

logger = logging.getLogger(__name__)

#: Bump when the decomposition code changes its output for the same input and settings.
CACHE_VERSION = 1
METHODS: tuple[str, ...] = ("convex", "coacd", "hull")


def default_cache_dir() -> Path:
    """``$SEED3D_HOME/cache/collision``, else ``~/.seed3d/cache/collision``."""
    home = os.environ.get("SEED3D_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".seed3d"
    return base / "cache" / "collision"


@dataclass
class CollisionConfig:
    """Settings of the convex decomposition (defaults: PhysX GPU limits, CPU-friendly CoACD)."""

    max_hulls: int = 64
    """Most hulls per part (PhysX's GPU pipeline wants fewer than 64)."""
    max_hull_vertices: int = 60
    """Most vertices per hull (PhysX GPU convexes allow 64; REFERENCES.md advises staying under 60)."""
    max_hull_polygons: int = 64
    """Most face planes per hull (PhysX GPU convexes allow 64 polygons); 0 disables the cap."""
    threshold: float = 0.02
    """CoACD concavity threshold, relative to the bounding box; lower = more, tighter hulls (see module doc)."""
    resolution: int = 1000
    """CoACD surface samples for measuring concavity (its default 2000 is twice as slow)."""
    mcts_iterations: int = 50
    """CoACD Monte-Carlo tree search iterations per cut (its default 150 is 3× slower, no tighter here)."""
    mcts_max_depth: int = 3
    """CoACD tree search depth."""
    mcts_nodes: int = 20
    """CoACD tree search children per node."""
    preprocess_resolution: int = 50
    """Voxel resolution of CoACD's remeshing, used only for meshes that are not closed."""
    merge_tolerance: float = 0.03
    """Neighbouring hulls merge while their joint hull adds less than this fraction of its volume."""
    convex_tolerance: float = 0.01
    """A closed mesh whose volume is within this fraction of its hull's is used as its hull."""
    max_input_faces: int = 5000
    """Meshes with more faces are quadric-decimated to this many before CoACD (0: never)."""
    seed: int = 0
    """CoACD random seed (decomposition is deterministic for a given seed)."""
    use_coacd: bool = True
    """False: every non-convex mesh gets its single convex hull (fast, coarse)."""
    cache: bool = True
    """Read and write the on-disk cache."""
    cache_dir: str | None = None
    """Cache folder; None = ``$SEED3D_HOME/cache/collision`` or ``~/.seed3d/cache/collision``."""

    def __post_init__(self) -> None:
        if int(self.max_hulls) < 1:
            raise InvalidInputError(f"max_hulls must be ≥ 1, got {self.max_hulls}")
        if int(self.max_hull_vertices) < 4:
            raise InvalidInputError(f"max_hull_vertices must be ≥ 4, got {self.max_hull_vertices}")
        if int(self.max_hull_polygons) != 0 and int(self.max_hull_polygons) < 4:
            raise InvalidInputError(f"max_hull_polygons must be 0 (no cap) or ≥ 4, got {self.max_hull_polygons}")
        if not 0 < float(self.threshold) <= 1:
            raise InvalidInputError(f"threshold must lie in (0, 1], got {self.threshold}")
        for name in ("resolution", "mcts_iterations", "mcts_max_depth", "mcts_nodes", "preprocess_resolution"):
            if int(getattr(self, name)) < 1:
                raise InvalidInputError(f"{name} must be ≥ 1, got {getattr(self, name)}")
        for name in ("merge_tolerance", "convex_tolerance"):
            if not 0 <= float(getattr(self, name)) < 1:
                raise InvalidInputError(f"{name} must lie in [0, 1), got {getattr(self, name)}")
        if int(self.max_input_faces) < 0:
            raise InvalidInputError(f"max_input_faces must be ≥ 0, got {self.max_input_faces}")

    def resolved_cache_dir(self) -> Path:
        """The cache folder these settings use."""
        return Path(self.cache_dir).expanduser() if self.cache_dir else default_cache_dir()

    def output_settings(self) -> dict[str, Any]:
        """The settings that change the decomposition (the cache key's config part)."""
        skip = {"cache", "cache_dir"}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in skip}


@dataclass
class CollisionResult:
    """Convex hulls of one mesh (same frame as the input), how they were made, and what went wrong."""

    hulls: list[Mesh]
    method: str
    """``convex`` (the mesh was convex), ``coacd`` (decomposed) or ``hull`` (single-hull fallback)."""
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False


# --------------------------------------------------------------------------------------------- hulls


def hull_problems(hull: Mesh, max_vertices: int | None = None, max_polygons: int | None = None) -> list[str]:
    """Why ``hull`` is not a closed, outward, convex mesh within the caps (empty when it is one).

    ``max_vertices`` caps vertices, ``max_polygons`` distinct face planes (coplanar triangles count once).
    """
    return geo.hull_problems(hull.vertices, hull.faces, max_vertices, max_polygons)


def _hull(points: FloatArray, max_vertices: int, max_polygons: int = 0) -> tuple[FloatArray, IntArray] | None:
    """Closed outward hull of ``points`` within the vertex and face-plane caps, or None if flat.

    A hull over the caps is replaced by whichever deviates less from it: a circumscribed polytope of
    k = min(max_polygons, max_vertices / 2 + 2) of its own supporting planes, chosen greedily to cut the
    largest bulge (at most 2k − 4 vertices, k faces; it contains the hull, so it leaves no gaps), or an
    inscribed hull of farthest-point-sampled vertices (leaves gaps). Ties go to the circumscribed one.
    """
    hull = geo.convex_hull(points)
    if hull is None:
        return None
    k = (max_vertices + 4) // 2
    if max_polygons:
        k = min(k, max_polygons)
    if len(hull[0]) <= max_vertices and (not max_polygons or geo.polygon_count(*hull) <= max_polygons):
        return hull
    outer = geo.circumscribed_hull(hull[0], hull[1], k)
    if outer is not None and not geo.hull_problems(outer[0], outer[1], max_vertices, max_polygons or None):
        bulge = geo.max_excess(outer[0], *hull)
    else:
        outer, bulge = None, np.inf
    inner = _inscribed(hull, max_vertices, max_polygons)
    gap = geo.max_excess(hull[0], *inner) if inner is not None else np.inf
    if outer is not None and bulge <= 1.5 * gap:
        return outer
    return inner


def _inscribed(hull: tuple[FloatArray, IntArray], max_vertices: int,
               max_polygons: int) -> tuple[FloatArray, IntArray] | None:
    """Hull of farthest-point-sampled vertices, thinned by 10 % steps until within the face-plane cap.

    A triangulated hull of V points in general position has 2V − 4 faces, so V = max_polygons / 2 + 2
    always meets the cap.
    """
    k = min(len(hull[0]), max_vertices)
    out = geo.convex_hull(geo.farthest_point_subset(hull[0], k)) if len(hull[0]) > k else hull
    if max_polygons:
        floor = max(4, max_polygons // 2 + 2)
        while out is not None and k > floor and geo.polygon_count(*out) > max_polygons:
            k = max(floor, int(k * 0.9))
            out = geo.convex_hull(geo.farthest_point_subset(hull[0], k))
    return out


def _thin_box(points: FloatArray) -> tuple[FloatArray, IntArray]:
    """A principal-axes box at least 1 mm thick around flat or degenerate ``points``."""
    from seed3d.physics.inertia import MIN_THICKNESS

    return geo.box_mesh(*geo.pca_box(points, MIN_THICKNESS))


def _merge(pieces: list[FloatArray], tolerance: float, max_hulls: int) -> list[FloatArray]:
    """Greedy pairwise merging of hull point sets (see module docstring); returns hull vertex sets.

    Only pairs whose bounding boxes touch (within 1 % of the mesh size) are candidates, unless the
    count still exceeds ``max_hulls`` with no such pair left, in which case all pairs are.
    """
    from scipy.spatial import ConvexHull, QhullError

    pts: list[FloatArray] = []
    vols: list[float] = []
    for p in pieces:
        try:
            h = ConvexHull(p)
        except (QhullError, ValueError):
            continue
        pts.append(p[h.vertices])
        vols.append(float(h.volume))
    alive = set(range(len(pts)))
    if len(alive) <= 1:
        return pts
    allpts = np.concatenate(pts)
    margin = 0.01 * float(np.ptp(allpts, axis=0).max())
    lo = [p.min(axis=0) for p in pts]
    hi = [p.max(axis=0) for p in pts]

    def cost(i: int, j: int) -> float:
        try:
            v = ConvexHull(np.concatenate([pts[i], pts[j]])).volume
        except (QhullError, ValueError):
            return np.inf
        return (v - vols[i] - vols[j]) / max(v, 1e-300)

    def touching(i: int, j: int) -> bool:
        return bool(np.all(lo[i] <= hi[j] + margin) and np.all(lo[j] <= hi[i] + margin))

    def pairs(candidates: list[int], new: int | None = None) -> list[tuple[float, int, int]]:
        if new is None:
            return [(cost(i, j), i, j) for i in candidates for j in candidates
                    if i < j and (all_pairs or touching(i, j))]
        return [(cost(a, new), a, new) for a in candidates if all_pairs or touching(a, new)]

    all_pairs = False
    heap = pairs(sorted(alive))
    heapq.heapify(heap)
    while len(alive) > 1:
        while heap and (heap[0][1] not in alive or heap[0][2] not in alive):
            heapq.heappop(heap)
        if not heap or heap[0][0] > tolerance:
            if len(alive) <= max_hulls:
                break
            if not all_pairs:  # over the cap: from now on every pair is a candidate
                all_pairs = True
                heap = pairs(sorted(alive))
                heapq.heapify(heap)
                continue
            if not heap:
                break
        _, i, j = heapq.heappop(heap)
        merged = np.concatenate([pts[i], pts[j]])
        try:
            h = ConvexHull(merged)
        except (QhullError, ValueError):
            continue
        pts.append(merged[h.vertices])
        vols.append(float(h.volume))
        lo.append(pts[-1].min(axis=0))
        hi.append(pts[-1].max(axis=0))
        k = len(pts) - 1
        alive -= {i, j}
        for item in pairs(sorted(alive), k):
            heapq.heappush(heap, item)
        alive.add(k)
    return [pts[a] for a in sorted(alive)]


# --------------------------------------------------------------------------------------------- CoACD


def _decimate(vertices: FloatArray, faces: IntArray, target: int) -> tuple[FloatArray, IntArray] | None:
    """Quadric decimation to ``target`` faces with open3d (deterministic); None when open3d is missing."""
    try:
        import open3d as o3d
    except ImportError:
        return None
    mesh = o3d.geometry.TriangleMesh(o3d.utility.Vector3dVector(vertices), o3d.utility.Vector3iVector(faces))
    out = mesh.simplify_quadric_decimation(int(target))
    v, f = geo.weld(np.asarray(out.vertices), np.asarray(out.triangles))
    return (v, f) if len(f) >= 4 else None


class CoACDCrashed(RuntimeError):
    """CoACD's child process died (a native abort or crash) instead of answering."""


def _coacd_child(conn: Any, vertices: FloatArray, faces: IntArray, manifold: bool, cfg: CollisionConfig) -> None:
    import faulthandler

    faulthandler.disable()  # a native abort here is expected and handled by the parent: no traceback dump
    try:
        conn.send(("ok", _coacd_pieces(vertices, faces, manifold, cfg)))
    except BaseException as exc:  # report anything back to the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


#: Seconds CoACD may run on one part before its process is killed (the part then gets its convex hull).
COACD_TIMEOUT = 900.0
#: Run CoACD in a child process (False: in this process, where a native abort ends the caller too).
ISOLATE_COACD = True


def _run_coacd(vertices: FloatArray, faces: IntArray, manifold: bool, cfg: CollisionConfig) -> list[FloatArray]:
    """CoACD pieces (point sets) of a welded mesh, computed in a child process from a fork server (a clean,
    single-threaded parent, so no lock of this process's threads is inherited): CoACD aborts the whole process
    on some meshes, and a dead or hung child becomes a ``CoACDCrashed`` error the caller falls back from."""
    import importlib.util
    import multiprocessing as mp

    # only look for it here: importing coacd before open3d breaks open3d's later import in the same process
    # (ImportError: std::bad_cast), so the parent never imports it
    if importlib.util.find_spec("coacd") is None:
        raise DependencyError("CoACD is not installed: pip install coacd==1.0.14")
    if not ISOLATE_COACD or "forkserver" not in mp.get_all_start_methods():
        return _coacd_pieces(vertices, faces, manifold, cfg)
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "coacd", "seed3d.physics.collision"])
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_coacd_child, args=(child, vertices, faces, manifold, cfg), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(COACD_TIMEOUT):
            proc.kill()
            proc.join()
            raise CoACDCrashed(f"CoACD ran longer than {COACD_TIMEOUT:.0f} s and was stopped")
        status, value = parent.recv()
    except EOFError:
        proc.join()
        raise CoACDCrashed(f"CoACD's process died (exit code {proc.exitcode})") from None
    finally:
        parent.close()
    proc.join()
    if status != "ok":
        raise RuntimeError(value)
    return value  # type: ignore[no-any-return]


def _coacd_pieces(vertices: FloatArray, faces: IntArray, manifold: bool, cfg: CollisionConfig) -> list[FloatArray]:
    """CoACD pieces (point sets) of a welded mesh, logging silenced; raises on failure (in this process).

    ``manifold``: the mesh is a closed, coherently oriented 2-manifold, so CoACD's remeshing is skipped.
    """
    with contextlib.suppress(ImportError):
        import open3d  # noqa: F401  (first: open3d cannot be imported after coacd in one process)
    import coacd

    coacd.set_log_level("off")
    pieces = coacd.run_coacd(
        coacd.Mesh(np.ascontiguousarray(vertices, np.float64), np.ascontiguousarray(faces, np.int32)),
        threshold=float(cfg.threshold),
        max_convex_hull=-1,  # we merge and cap ourselves (see module docstring)
        preprocess_mode="off" if manifold else "on",
        preprocess_resolution=int(cfg.preprocess_resolution),
        resolution=int(cfg.resolution),
        mcts_nodes=int(cfg.mcts_nodes),
        mcts_iterations=int(cfg.mcts_iterations),
        mcts_max_depth=int(cfg.mcts_max_depth),
        merge=False,
        decimate=False,  # CoACD's vertex decimation shrinks hulls (gaps); _hull caps them from outside

        seed=int(cfg.seed),
    )
    return [np.asarray(v, np.float64).reshape(-1, 3) for v, _ in pieces if len(v) >= 4]


def _coacd_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coacd")
    except PackageNotFoundError:
        return "none"


# --------------------------------------------------------------------------------------------- cache


def cache_key(mesh: Mesh, config: CollisionConfig) -> str:
    """Hex key of a mesh's decomposition under ``config`` (mesh digest + output settings + CoACD version)."""
    doc = {"v": CACHE_VERSION, "mesh": mesh.digest(), "config": config.output_settings(),
           "coacd": _coacd_version() if config.use_coacd else "unused"}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _cache_path(key: str, config: CollisionConfig) -> Path:
    return config.resolved_cache_dir() / f"{key}.npz"


def _read_cache(path: Path, config: CollisionConfig) -> CollisionResult | None:
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            n = int(meta["hulls"])
            hulls = [Mesh(data[f"h{i:03d}_vertices"], data[f"h{i:03d}_faces"]) for i in range(n)]
        method = meta["method"]
        warnings = [str(w) for w in meta["warnings"]]
        if method not in METHODS or not 1 <= n <= config.max_hulls:
            raise ValueError(f"method {method!r} with {n} hulls")
        for h in hulls:
            problems = hull_problems(h, config.max_hull_vertices, config.max_hull_polygons or None)
            if problems:
                raise ValueError("a cached hull " + "; ".join(problems))
    except Exception as exc:  # any unreadable or inconsistent file is just a cache miss
        logger.warning("ignoring corrupt collision cache file %s (%s); recomputing", path, exc)
        return None
    return CollisionResult(hulls, method, warnings, cached=True)


def _write_cache(path: Path, result: CollisionResult) -> None:
    arrays: dict[str, np.ndarray] = {"meta": np.array(json.dumps(
        {"method": result.method, "warnings": result.warnings, "hulls": len(result.hulls)}))}
    for i, h in enumerate(result.hulls):
        arrays[f"h{i:03d}_vertices"] = h.vertices
        arrays[f"h{i:03d}_faces"] = h.faces
    try:
        with atomic_file(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    except OSError as exc:
        logger.warning("could not write collision cache %s (%s)", path, exc)


# --------------------------------------------------------------------------------------------- API


def decompose(mesh: Mesh, config: CollisionConfig | None = None) -> CollisionResult:
    """Convex hulls covering ``mesh`` (same frame), each closed, outward, convex and within the caps."""
    cfg = config or CollisionConfig()
    if not len(mesh.faces):
        raise InvalidInputError("cannot build collision hulls for a mesh without faces")
    start = time.perf_counter()
    key = cache_key(mesh, cfg)
    path = _cache_path(key, cfg)
    if cfg.cache:
        hit = _read_cache(path, cfg)
        if hit is not None:
            hit.seconds = time.perf_counter() - start
            return hit
    result = _decompose(mesh, cfg)
    result.seconds = time.perf_counter() - start
    if cfg.cache:
        _write_cache(path, result)
    return result


def _fallback(vertices: FloatArray, cfg: CollisionConfig, warnings: list[str], why: str) -> CollisionResult:
    warnings.append(f"{why}; using the single convex hull as collision shape")
    hull = _hull(vertices, cfg.max_hull_vertices, cfg.max_hull_polygons)
    if hull is None:
        warnings.append("mesh is flat: its collision shape is a box at least 1 mm thick")
        hull = _thin_box(vertices)
    return CollisionResult([Mesh(*hull)], "hull", warnings)


def _decompose(mesh: Mesh, cfg: CollisionConfig) -> CollisionResult:
    warnings: list[str] = []
    vertices, faces = geo.weld(mesh.vertices, mesh.faces)
    if len(faces) < 4:
        return _fallback(vertices if len(vertices) else mesh.vertices, cfg, warnings,
                         f"mesh has only {len(faces)} distinct faces")
    hull = geo.convex_hull(vertices)
    if hull is None:
        return _fallback(vertices, cfg, warnings, "mesh is flat (no volume)")
    closed = geo.is_closed(faces, len(vertices))
    if closed:
        faces, closed = geo.orient_outward(vertices, faces)
    if closed:
        volume = geo.signed_volume(vertices, faces)
        hull_volume = geo.signed_volume(*hull)
        if volume >= (1.0 - cfg.convex_tolerance) * hull_volume:
            small = _hull(vertices, cfg.max_hull_vertices, cfg.max_hull_polygons) or _thin_box(vertices)
            return CollisionResult([Mesh(*small)], "convex", warnings)
    else:
        warnings.append("mesh is not watertight (or not orientable) after welding seams; "
                        "CoACD remeshes it first (slow, coarser)")
    if not cfg.use_coacd:
        return _fallback(vertices, cfg, warnings, "CoACD is disabled (use_coacd=False)")
    cv, cf = vertices, faces
    if cfg.max_input_faces and len(faces) > cfg.max_input_faces:
        dec = _decimate(vertices, faces, cfg.max_input_faces)
        if dec is not None and closed and geo.is_closed(dec[1], len(dec[0])):
            dec_faces, ok = geo.orient_outward(*dec)
            dec = (dec[0], dec_faces) if ok else None
        elif dec is not None and closed:
            dec = None  # decimation opened a closed mesh: CoACD would have to remesh it, worse than waiting
        if dec is None:
            logger.info("CoACD runs on all %d faces (decimation unavailable or not clean)", len(faces))
        else:
            logger.info("decimated %d faces to %d before CoACD", len(faces), len(dec[1]))
            cv, cf = dec
    # CoACD's preprocessing may only be skipped for a clean closed 2-manifold.
    manifold = closed and geo.is_edge_manifold(cf, len(cv)) and geo.is_oriented(cf, len(cv))
    try:
        pieces = _run_coacd(cv, cf, manifold, cfg)
    except DependencyError as exc:
        return _fallback(vertices, cfg, warnings, str(exc))
    except Exception as exc:  # CoACD raises assorted errors on odd meshes
        return _fallback(vertices, cfg, warnings, f"CoACD failed ({type(exc).__name__}: {exc})")
    merged = _merge(pieces, cfg.merge_tolerance, cfg.max_hulls)
    hulls = [h for h in (_hull(p, cfg.max_hull_vertices, cfg.max_hull_polygons) for p in merged) if h is not None]
    if not hulls:
        return _fallback(vertices, cfg, warnings, "CoACD returned no usable hulls")
    return CollisionResult([Mesh(*h) for h in hulls], "coacd", warnings)
