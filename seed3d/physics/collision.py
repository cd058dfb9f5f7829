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
4. When the hulls reaching into the mesh's base layer (its lowest 2 mm) span less than nine tenths of that layer's
   footprint, the layer's own hull is added: decimated and decomposed, a rough base (a generated one) otherwise
   touches the floor at a point or two, and the asset rocks where the mesh would stand.
5. If CoACD is missing or fails, the mesh's convex hull stands in (``method="hull"``) with a warning. CoACD runs in a
   child process stopped at ``CollisionConfig.time_budget`` (``physics.prepare`` also holds all parts of an asset to
   ``PhysicsConfig.collision_budget``); a part it overruns gets ``box_decomposition`` (``method="boxes"``, voxel boxes
   shrunk onto the surface, never cached) with a warning saying so.
6. No hull flatter than ``FLAT_RMS`` is emitted (the validator rejects hulls under 1e-6 m): such pieces are dropped,
   and a part left with none gets a box at least 1 mm thick.

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

Once the joints are known, ``clear_moving_parts`` cuts the hulls of an asset back where they overlap parts
that move against them (hull minus hull is a few convex pieces, ``subtract_convex``): a coarse decomposition
of a carved body fills its drawer and door cavities, and the engines then find the drawer inside the body at
rest. Articulation runs it once the joints are decided, before their limits are swept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import heapq
import itertools
import json
import logging
import math
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh, atomic_file, joint_motion
from seed3d.errors import DependencyError, InvalidInputError
from seed3d.physics import _geometry as geo
from seed3d.typed import FloatArray, IntArray

logger = logging.getLogger(__name__)

#: Bump when the decomposition code changes its output for the same input and settings.
CACHE_VERSION = 4
METHODS: tuple[str, ...] = ("convex", "coacd", "hull", "boxes")
#: Hulls whose points lie closer than this (m, root-mean-square) to their best-fitting plane are flat: the validator
#: rejects them under 1e-6 m (``validate._mesh_findings``), so they are dropped or thickened here with a margin that
#: survives float32 export.
FLAT_RMS = 1e-5


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
    max_cleared_hulls: int = 32
    """Most hulls a part keeps after ``clear_moving_parts`` cut it around moving parts (at least ``max_hulls``;
    the pieces merge only where that is cheap, then the smallest are dropped)."""
    foot_layer: float = 0.002
    """Height (m) of the mesh's base layer, its vertices within this of its lowest point. When the hulls reaching
    into that layer span less than ``foot_cover`` of its footprint (the convex hull of its vertices seen from
    above), the layer's hull is added: a decimated, decomposed rough base otherwise touches the floor at a point or
    two and the asset rocks where the mesh would stand (0: off)."""
    foot_cover: float = 0.9
    """Share of the base layer's footprint the hulls must span for no foot hull to be added."""
    time_budget: float = 20.0
    """Seconds CoACD may run on one part (its child process is killed past it); the part then gets the box
    decomposition fallback (``method="boxes"``), with a warning. 0: only ``COACD_TIMEOUT`` applies."""
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
        if int(self.max_cleared_hulls) < 1:
            raise InvalidInputError(f"max_cleared_hulls must be ≥ 1, got {self.max_cleared_hulls}")
        if int(self.max_input_faces) < 0:
            raise InvalidInputError(f"max_input_faces must be ≥ 0, got {self.max_input_faces}")
        if not float(self.time_budget) >= 0:
            raise InvalidInputError(f"time_budget must be ≥ 0 seconds, got {self.time_budget}")

    def resolved_cache_dir(self) -> Path:
        """The cache folder these settings use."""
        return Path(self.cache_dir).expanduser() if self.cache_dir else default_cache_dir()

    def output_settings(self) -> dict[str, Any]:
        """The settings that change the decomposition (the cache key's config part)."""
        # max_cleared_hulls only matters to clear_moving_parts; a run stopped by time_budget is never cached
        skip = {"cache", "cache_dir", "max_cleared_hulls", "time_budget"}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in skip}


@dataclass
class CollisionResult:
    """Convex hulls of one mesh (same frame as the input), how they were made, and what went wrong."""

    hulls: list[Mesh]
    method: str
    """``convex`` (the mesh was convex), ``coacd`` (decomposed), ``hull`` (single-hull fallback) or ``boxes`` (box
    decomposition fallback when CoACD overran ``CollisionConfig.time_budget``)."""
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False
    transient: bool = False
    """A fallback after a failure that may not recur (CoACD stopped at its timeout, or its process failed before
    CoACD ran): not written to the cache."""


# --------------------------------------------------------------------------------------------- hulls


def hull_problems(hull: Mesh, max_vertices: int | None = None, max_polygons: int | None = None) -> list[str]:
    """Why ``hull`` is not a closed, outward, convex mesh within the caps (empty when it is one).

    ``max_vertices`` caps vertices, ``max_polygons`` distinct face planes (coplanar triangles count once).
    """
    return geo.hull_problems(hull.vertices, hull.faces, max_vertices, max_polygons)


def is_flat(points: FloatArray) -> bool:
    """Whether ``points`` lie within ``FLAT_RMS`` (root-mean-square) of one plane: the validator's test for a flat
    hull, with a margin."""
    points = np.asarray(points, np.float64).reshape(-1, 3)
    if len(points) < 4 or not np.all(np.isfinite(points)):
        return True
    rms = float(np.linalg.svd(points - points.mean(axis=0), compute_uv=False)[-1]) / math.sqrt(len(points))
    return rms < FLAT_RMS


def _hull(points: FloatArray, max_vertices: int, max_polygons: int = 0) -> tuple[FloatArray, IntArray] | None:
    """Closed outward hull of ``points`` within the vertex and face-plane caps, or None if flat (``is_flat``: thinner
    than the validator accepts, though qhull may still close it)."""
    hull = _capped_hull(points, max_vertices, max_polygons)
    return None if hull is None or is_flat(hull[0]) else hull


def _capped_hull(points: FloatArray, max_vertices: int, max_polygons: int = 0) -> tuple[FloatArray, IntArray] | None:
    """Closed outward hull of ``points`` within the vertex and face-plane caps, or None if qhull finds it flat.

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
        return _capped(_weldable(hull), max_vertices, max_polygons)
    outer = geo.circumscribed_hull(hull[0], hull[1], k)
    if outer is not None and not geo.hull_problems(outer[0], outer[1], max_vertices, max_polygons or None):
        bulge = geo.max_excess(outer[0], *hull)
    else:
        outer, bulge = None, np.inf
    inner = _inscribed(hull, max_vertices, max_polygons)
    gap = geo.max_excess(hull[0], *inner) if inner is not None else np.inf
    if outer is not None and bulge <= 1.5 * gap:
        return _capped(_weldable(outer), max_vertices, max_polygons)
    return None if inner is None else _capped(_weldable(inner), max_vertices, max_polygons)


def _capped(hull: tuple[FloatArray, IntArray] | None, max_vertices: int,
            max_polygons: int) -> tuple[FloatArray, IntArray] | None:
    """``hull``, or its inscribed reduction when it breaks a cap. Rounding the vertices for welding (``_weldable``)
    can split faces that were coplanar to the plane count's precision: such hulls were written to the collision
    cache and rejected by every later read (computed again each time)."""
    if hull is None or not geo.hull_problems(hull[0], hull[1], max_vertices, max_polygons or None):
        return hull
    return _inscribed(hull, max_vertices, max_polygons)


def _weldable(hull: tuple[FloatArray, IntArray]) -> tuple[FloatArray, IntArray] | None:
    """``hull`` itself, or, when some of its vertices are closer than welding keeps apart (``geo.weld`` rounds to
    ``WELD_DECIMALS``: the validator and the exporters would merge them and open the hull), the hull of its
    vertices rounded that way (None when that is flat)."""
    rounded = np.unique(np.round(hull[0], geo.WELD_DECIMALS) + 0.0, axis=0)
    if len(rounded) == len(hull[0]):
        return hull
    return geo.convex_hull(rounded)


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


def _merge(pieces: list[FloatArray], tolerance: float, max_hulls: int,
           allowed: Callable[[FloatArray], bool] | None = None) -> list[FloatArray]:
    """Greedy pairwise merging of hull point sets (see module docstring); returns hull vertex sets.

    Only pairs whose bounding boxes touch (within 1 % of the mesh size) are candidates, unless the
    count still exceeds ``max_hulls`` with no such pair left, in which case all pairs are. A merged hull
    that ``allowed`` (given its points) rejects is never made.
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

    def pairs(candidates: list[int], new: int | None = None) -> list[tuple[float, int, int]]:
        """(cost, i, j) of the candidate pairs whose boxes touch (every pair once ``all_pairs``), i before j."""
        if not candidates:
            return []
        c = np.asarray(candidates)
        clo, chi = np.asarray([lo[i] for i in candidates]), np.asarray([hi[i] for i in candidates])
        if new is None:
            touch = (np.all(clo[:, None] <= chi[None] + margin, axis=2) & np.all(clo[None] <= chi[:, None] + margin,
                                                                                   axis=2))
            upper = c[:, None] < c[None]
            ii, jj = np.nonzero(upper if all_pairs else upper & touch)
            return [(cost(int(c[a]), int(c[b])), int(c[a]), int(c[b])) for a, b in zip(ii, jj, strict=True)]
        near = np.all(clo <= hi[new] + margin, axis=1) & np.all(lo[new] <= chi + margin, axis=1)
        return [(cost(int(a), new), int(a), new) for a in (c if all_pairs else c[near])]

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
        if allowed is not None and not allowed(merged[h.vertices]):
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
    """CoACD's child process died (a native abort or crash) or hung instead of answering; ``transient`` when the
    failure may not recur on the same mesh (a timeout under load, a child that exited with an error status
    before answering, as when a fork server cannot start it) rather than a native crash (killed by a signal)."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class CoACDOverBudget(CoACDCrashed):
    """CoACD ran past ``CollisionConfig.time_budget`` and was stopped (transient: a faster or idler machine may
    finish in time)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)


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
    on some meshes, and a dead or hung child becomes a ``CoACDCrashed`` error the caller falls back from; one past
    ``cfg.time_budget`` a ``CoACDOverBudget`` (the budget holds only with the child process, ``ISOLATE_COACD``)."""
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
    try:
        proc.start()
    except Exception as exc:  # e.g. a script without a __main__ guard, re-imported by the fork server: not cached
        parent.close()
        child.close()
        raise CoACDCrashed(f"CoACD's process could not start ({type(exc).__name__}: {exc})", transient=True) from exc
    child.close()
    budget = float(cfg.time_budget)
    limit = min(COACD_TIMEOUT, budget) if budget > 0 else COACD_TIMEOUT
    try:
        if not parent.poll(limit):
            proc.kill()
            proc.join()
            if limit < COACD_TIMEOUT:
                raise CoACDOverBudget(f"CoACD ran past the part's time budget of {limit:g} s and was stopped")
            raise CoACDCrashed(f"CoACD ran longer than {COACD_TIMEOUT:.0f} s and was stopped", transient=True)
        status, value = parent.recv()
    except EOFError:
        proc.join()
        code = proc.exitcode
        raise CoACDCrashed(f"CoACD's process died (exit code {code})", transient=code is None or code >= 0) from None
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
    if cfg.cache and not result.transient:
        _write_cache(path, result)
    return result


def _fallback(vertices: FloatArray, cfg: CollisionConfig, warnings: list[str], why: str) -> CollisionResult:
    warnings.append(f"{why}; using the single convex hull as collision shape")
    hull = _hull(vertices, cfg.max_hull_vertices, cfg.max_hull_polygons)
    if hull is None:
        warnings.append("mesh is flat: its collision shape is a box at least 1 mm thick")
        hull = _thin_box(vertices)
    return CollisionResult([Mesh(*hull)], "hull", warnings)


#: Voxels along the longest principal axis of the box decomposition's first try (halved until the boxes fit).
BOX_RESOLUTION = 24
#: The box decomposition works in the asset's own axes unless its principal axes' box is smaller than this share of
#: the axis-aligned one.
BOX_AXES_SLACK = 1.1


def _box_fallback(vertices: FloatArray, faces: IntArray, cfg: CollisionConfig, warnings: list[str],
                  why: str) -> CollisionResult:
    """Box decomposition standing in for CoACD (``method="boxes"``), or the single hull when it makes no box."""
    boxes = box_decomposition(vertices, faces, cfg.max_hulls)
    if not boxes:
        return _fallback(vertices, cfg, warnings, why)
    warnings.append(f"{why}; using a decomposition into {len(boxes)} boxes as collision shape")
    return CollisionResult([Mesh(*b) for b in boxes], "boxes", warnings)


def _occupancy(local: FloatArray, faces: IntArray, lo: FloatArray, pitch: float, shape: tuple[int, ...]
               ) -> tuple[np.ndarray, FloatArray, IntArray]:
    """Voxels (``shape``, corner ``lo``, edge ``pitch``) the surface passes through, with enclosed cavities filled;
    with the surface samples that marked them and their voxel indices."""
    from scipy import ndimage

    tri = local[faces]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    spacing = pitch / 3.0
    counts = np.minimum(np.ceil(area / (spacing * spacing)).astype(np.int64), 2000) + 1
    total = int(counts.sum())
    if total > 400_000:  # cap the work: fewer samples per face, never none
        counts = np.maximum(1, (counts * (400_000 / total)).astype(np.int64))
    rng = np.random.default_rng(0)
    owner = np.repeat(np.arange(len(faces)), counts)
    u, v = rng.random((2, len(owner)))
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    t = tri[owner]
    points = np.concatenate([local, t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])])
    index = np.clip(np.floor((points - lo) / pitch).astype(np.int64), 0, np.array(shape) - 1)
    grid = np.zeros(shape, bool)
    grid[index[:, 0], index[:, 1], index[:, 2]] = True
    return np.asarray(ndimage.binary_fill_holes(grid)), points, index


def _greedy_boxes(grid: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Cover the filled voxels of ``grid`` exactly with boxes (index ranges [lo, hi)), grown greedily x, y, z."""
    free = grid.copy()
    boxes: list[tuple[np.ndarray, np.ndarray]] = []
    nx, ny, nz = grid.shape
    for i, j, k in zip(*np.nonzero(grid), strict=True):
        if not free[i, j, k]:
            continue
        i1 = i + 1
        while i1 < nx and free[i1, j, k]:
            i1 += 1
        j1 = j + 1
        while j1 < ny and free[i:i1, j1, k].all():
            j1 += 1
        k1 = k + 1
        while k1 < nz and free[i:i1, j:j1, k1].all():
            k1 += 1
        free[i:i1, j:j1, k:k1] = False
        boxes.append((np.array([i, j, k]), np.array([i1, j1, k1])))
    return boxes


def box_decomposition(vertices: FloatArray, faces: IntArray, max_boxes: int,
                      resolution: int = BOX_RESOLUTION) -> list[tuple[FloatArray, IntArray]]:
    """At most ``max_boxes`` boxes covering a mesh, in its own axes (in its principal axes when they hold it in a box
    ``BOX_AXES_SLACK`` times smaller): voxels its surface passes through (enclosed cavities filled) merged greedily
    into boxes, on a grid of ``resolution`` voxels along its longest axis, halved until they fit; each box is shrunk
    onto the surface samples in its voxels (within their spacing) and the mesh's own box, and is at least 1 mm
    thick. Fast (well under a second for 100k faces) and never flat; coarser than CoACD where the surface is slanted
    to the box's axes."""
    from seed3d.physics.inertia import MIN_THICKNESS

    vertices = np.asarray(vertices, np.float64).reshape(-1, 3)
    faces = np.asarray(faces, np.int64).reshape(-1, 3)
    if len(vertices) < 4 or not len(faces):
        return []
    centre, axes, extents = geo.pca_box(vertices, MIN_THICKNESS)
    lo_w, hi_w = vertices.min(axis=0), vertices.max(axis=0)
    if np.prod(np.maximum(hi_w - lo_w, MIN_THICKNESS)) <= BOX_AXES_SLACK * np.prod(extents):
        # the asset's own axes hold it nearly as tightly: boxes stand square on its base (the principal axes of a
        # nearly cubic cabinet are tilted, and their boxes poke below its feet)
        centre, axes, extents = (lo_w + hi_w) / 2, np.eye(3), np.maximum(hi_w - lo_w, MIN_THICKNESS)
    local = (vertices - centre) @ axes.T
    box_lo, box_hi = -extents / 2, extents / 2
    n = max(1, int(resolution))
    while True:
        pitch = float(extents.max()) / n
        shape = tuple(int(max(1, math.ceil(e / pitch))) for e in extents)
        lo = -(np.array(shape) * pitch) / 2
        grid, points, index = _occupancy(local, faces, lo, pitch, shape)
        boxes = _greedy_boxes(grid)
        if len(boxes) <= max_boxes or n == 1:
            break
        n = max(1, n // 2)
    out: list[tuple[FloatArray, IntArray]] = []
    for a, b in boxes[:max_boxes]:
        low = np.maximum(lo + a * pitch, box_lo)
        high = np.minimum(lo + b * pitch, box_hi)
        inside = np.all((index >= a) & (index < b), axis=1)
        if inside.any():  # shrunk onto the surface it holds: a voxel box stands up to a voxel past it
            grow = pitch / 3.0  # the samples' spacing: the surface between them may reach that far
            low = np.maximum(low, points[inside].min(axis=0) - grow)
            high = np.minimum(high, points[inside].max(axis=0) + grow)
        size = np.maximum(high - low, MIN_THICKNESS)
        out.append(geo.box_mesh(centre + ((low + high) / 2) @ axes, axes, size))
    return out


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
    except CoACDOverBudget as exc:
        fallback = _box_fallback(vertices, faces, cfg, warnings, str(exc))
        fallback.transient = True
        return fallback
    except CoACDCrashed as exc:
        fallback = _fallback(vertices, cfg, warnings, f"CoACD failed (CoACDCrashed: {exc})")
        fallback.transient = exc.transient
        return fallback
    except Exception as exc:  # CoACD raises assorted errors on odd meshes
        return _fallback(vertices, cfg, warnings, f"CoACD failed ({type(exc).__name__}: {exc})")
    merged = _merge(pieces, cfg.merge_tolerance, cfg.max_hulls)
    hulls = [h for h in (_hull(p, cfg.max_hull_vertices, cfg.max_hull_polygons) for p in merged) if h is not None]
    if not hulls:
        return _fallback(vertices, cfg, warnings, "CoACD returned no usable hulls")
    foot = _foot(vertices, [h[0] for h in hulls], cfg)
    if foot is not None and len(hulls) >= cfg.max_hulls > 1:  # make room: one hull fewer from the pieces
        merged = _merge(pieces, cfg.merge_tolerance, cfg.max_hulls - 1)
        hulls = [h for h in (_hull(p, cfg.max_hull_vertices, cfg.max_hull_polygons) for p in merged)
                 if h is not None]
    if foot is not None and len(hulls) < cfg.max_hulls:
        hulls.append(foot)
    elif foot is not None:
        warnings.append("the hulls miss the base's footprint, and max_hulls leaves no room for its own hull")
    return CollisionResult([Mesh(*h) for h in hulls], "coacd", warnings)


def _footprint_area(points: FloatArray) -> float:
    """Area of the convex hull of points' (x, y) (0 when they span no area)."""
    if len(points) < 3:
        return 0.0
    from scipy.spatial import ConvexHull, QhullError

    try:
        return float(ConvexHull(points[:, :2]).volume)
    except QhullError:
        return 0.0


#: A base-layer hull whose footprint is narrower than this (m) across is not added (``_foot``).
FOOT_WIDTH = 1e-3


def _foot(vertices: FloatArray, hulls: list[FloatArray], cfg: CollisionConfig) -> tuple[FloatArray, IntArray] | None:
    """The hull of the mesh's base layer (``CollisionConfig.foot_layer``) when ``hulls`` (vertex arrays) span less
    than ``foot_cover`` of its footprint, else None; None too when that footprint is under ``FOOT_WIDTH`` across (a
    base that touches the floor along a line: its hull is a sheet that engines and the validator reject)."""
    if cfg.foot_layer <= 0:
        return None
    top = float(vertices[:, 2].min()) + cfg.foot_layer
    layer = vertices[vertices[:, 2] <= top]
    support = _footprint_area(layer)
    if support <= 0.0:
        return None
    reached = np.concatenate(hulls)
    if _footprint_area(reached[reached[:, 2] <= top]) >= cfg.foot_cover * support:
        return None
    lifted = layer.copy()
    lifted[:, 2] = top
    hull = _hull(np.concatenate([layer, lifted]), cfg.max_hull_vertices, cfg.max_hull_polygons)
    if hull is None:
        return None
    flat = hull[0][:, :2] - hull[0][:, :2].mean(axis=0)
    widths = np.ptp(flat @ np.linalg.svd(flat, full_matrices=False)[2].T, axis=0)  # across its footprint's axes
    return hull if float(widths.min()) >= FOOT_WIDTH else None


# --------------------------------------------------------------------------------------------- clearance

#: Overlaps shallower than this (m) are contact, not penetration: left alone.
CONTACT_DEPTH = 5e-4


def _normalised_planes(points: FloatArray) -> FloatArray | None:
    """Unit outward planes (n, d), n·x ≤ d inside, of the convex hull of ``points``; None when it is flat.

    Read-only and memoised on the points' bytes: clearing asks for the planes of the same few hulls thousands of
    times (each hull against every obstacle, each candidate merge against every path)."""
    points = np.ascontiguousarray(points, np.float64).reshape(-1, 3)
    return _planes_of(points.tobytes())


@functools.lru_cache(maxsize=4096)
def _planes_of(data: bytes) -> FloatArray | None:
    """``_normalised_planes`` of the float64 points (N, 3) stored in ``data``."""
    hull = geo.convex_hull(np.frombuffer(data, np.float64).reshape(-1, 3))
    if hull is None:
        return None
    planes = geo.face_planes(*hull)
    planes.setflags(write=False)
    return planes


def _deepest_point(planes: FloatArray) -> tuple[FloatArray, float]:
    """Centre and radius of the largest ball inside {x : n·x ≤ d} (unit n); a negative radius: empty."""
    from scipy.optimize import linprog

    a = np.concatenate([planes[:, :3], np.ones((len(planes), 1))], axis=1)
    res = linprog(np.array([0.0, 0.0, 0.0, -1.0]), A_ub=a, b_ub=planes[:, 3], bounds=[(None, None)] * 3 + [(None, 1.0)],
                  method="highs")
    if res.status != 0 or res.x is None:
        return np.zeros(3), -np.inf
    return np.asarray(res.x[:3]), float(res.x[3])


def penetration_bound(a: FloatArray, b: FloatArray) -> float:
    """How far the convex hulls of point sets ``a`` and ``b`` overlap along the face normal where they overlap least.

    An upper bound on the distance that separates them (the separating-axis test over both hulls' face normals,
    without the edge-edge axes); negative when a face plane separates them.
    """
    normals = [p[:, :3] for p in (_normalised_planes(a), _normalised_planes(b)) if p is not None]
    if len(normals) < 2:
        return -np.inf
    n = np.concatenate(normals)
    pa, pb = a @ n.T, b @ n.T
    overlap = np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0))
    return float(overlap.min())


def _too_thin(hull: tuple[FloatArray, IntArray], plane: FloatArray, inside: list[FloatArray], radius: float) -> bool:
    """Whether the piece ``hull`` ∩ {outside ``plane``} ∩ {inside every plane of ``inside``} holds no ball of
    ``radius``, shown without a linear program (a sufficient test; False says nothing): the part of the hull outside
    ``plane`` (its kept vertices and its edges' crossings) lies within a slab thinner than the ball, either beyond
    ``plane`` or inside one of the ``inside`` planes."""
    vertices, faces = hull
    side = vertices @ plane[:3] - plane[3]
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    a, b = side[edges[:, 0]], side[edges[:, 1]]
    crossing = (a > 0) != (b > 0)
    t = (a[crossing] / (a[crossing] - b[crossing]))[:, None]
    e = edges[crossing]
    beyond = np.concatenate([vertices[side >= 0], vertices[e[:, 0]] + t * (vertices[e[:, 1]] - vertices[e[:, 0]])])
    width = 2.0 * radius * (1.0 - 1e-6)  # a ball of the radius needs a slab at least twice as wide
    if not len(beyond) or float((beyond @ plane[:3] - plane[3]).max()) < width:
        return True
    return any(float((beyond @ p[:3] - p[3]).min()) > -width for p in inside)


def subtract_convex(hull: FloatArray, obstacle: FloatArray, margin: float,
                    min_radius: float = CONTACT_DEPTH) -> list[FloatArray]:
    """Convex pieces (vertex sets) of the hull of ``hull`` outside the hull of ``obstacle`` grown by ``margin``.

    A convex set minus a convex polytope with planes p1 … pk is the disjoint union of the pieces
    {outside p_i, inside p_1 … p_(i-1)}; only planes that cut the hull make pieces. Pieces whose inscribed ball is
    smaller than ``min_radius`` (slivers) are dropped. The hull itself comes back when the two do not overlap.
    """
    pa, pb = _normalised_planes(hull), _normalised_planes(obstacle)
    if pa is None or pb is None:
        return [hull]
    pb = pb.copy()
    pb[:, 3] += margin
    if _deepest_point(np.concatenate([pa, pb]))[1] <= 0:
        return [hull]
    excess = (hull @ pb[:, :3].T - pb[:, 3]).max(axis=0)
    cutting = np.argsort(-excess, kind="stable")
    cutting = cutting[excess[cutting] > 0]
    whole = geo.convex_hull(hull)
    pieces: list[FloatArray] = []
    inside: list[FloatArray] = []
    for i in cutting:
        if whole is not None and _too_thin(whole, pb[i], inside, min_radius):
            inside.append(pb[i])
            continue
        flipped = -pb[i][None, :]
        planes = np.concatenate([pa, flipped, *(p[None, :] for p in inside)])
        centre, radius = _deepest_point(planes)
        inside.append(pb[i])
        if radius < min_radius:
            continue
        corners = geo._intersect(planes, centre)
        piece = None if corners is None else geo.convex_hull(corners)
        if piece is not None:
            pieces.append(piece[0])
    return pieces


def clear_of(hulls: list[FloatArray], obstacles: list[FloatArray], margin: float,
             depth: float = CONTACT_DEPTH, strict: Collection[int] = ()) -> tuple[list[FloatArray], bool]:
    """``hulls`` (vertex sets) cut back to ``margin`` outside every obstacle they overlap deeper than ``depth``
    (any overlap for the obstacles whose ``id`` is in ``strict``).

    Returns the pieces and whether anything was cut.
    """
    out, changed = list(hulls), False
    lo, hi = _bounds(out)
    for obstacle in obstacles:
        if not out:
            break
        near = np.all(lo <= obstacle.max(axis=0) + margin, axis=1) & np.all(obstacle.min(axis=0) <= hi + margin,
                                                                             axis=1)
        if not near.any():
            continue
        limit = 0.0 if id(obstacle) in strict else depth
        cut = [i for i in np.flatnonzero(near) if penetration_bound(out[i], obstacle) > limit]
        if not cut:
            continue
        pieces = {int(i): subtract_convex(out[i], obstacle, margin, depth) for i in cut}
        out = [p for i, h in enumerate(out) for p in pieces.get(i, [h])]
        lo, hi = _bounds(out)
        changed = True
    return out, changed


def _bounds(hulls: list[FloatArray]) -> tuple[FloatArray, FloatArray]:
    """Each point set's bounding box corners, as (N, 3) arrays of minima and maxima."""
    return (np.asarray([h.min(axis=0) for h in hulls]).reshape(-1, 3),
            np.asarray([h.max(axis=0) for h in hulls]).reshape(-1, 3))


def _hull_volume(points: FloatArray) -> float:
    hull = geo.convex_hull(points)
    return 0.0 if hull is None else geo.signed_volume(*hull)


#: Largest turn (rad) between the poses whose joint hulls stand for a revolute joint's swing: the arc between two
#: poses bulges past their joint hull by r·(1 − cos(step / 2)), 0.5 mm at 0.5 m from the axis.
_SWING_STEP = math.radians(5.0)
#: Surface samples per part for telling whether a moving part's path runs through the true mesh of what it moves in.
_PATH_SAMPLES = 4000


def _paths(joint: Any, hulls: list[FloatArray], margin: float) -> list[FloatArray]:
    """``hulls`` (at rest) over the joint's range as convex pieces: for a prismatic joint each hull swept from
    ``lower`` to ``upper``; for a revolute one the joint hulls of consecutive poses at most ``_SWING_STEP`` apart,
    for a continuous one the same over a full turn, in steps whose arcs bulge past the joint hulls by at most
    ``margin / 2`` (at least ``_SWING_STEP``)."""
    if joint.type == "prismatic":
        ends = [joint_motion("prismatic", joint.axis, joint.origin, v)[:3, 3] for v in (joint.lower, joint.upper)]
        return [np.concatenate([h + ends[0], h, h + ends[1]]) for h in hulls]

    def posed(value: float) -> list[FloatArray]:
        m = joint_motion(joint.type, joint.axis, joint.origin, value)
        return [h @ m[:3, :3].T + m[:3, 3] for h in hulls]

    step = _SWING_STEP
    lower, upper = joint.lower, joint.upper
    if not hulls:
        return []
    if joint.type == "continuous":
        # a full turn; steps as wide as keep the arc's bulge past the joint hulls under half the clearing margin
        lower, upper = 0.0, 2 * math.pi
        rel = np.concatenate(hulls) - np.asarray(joint.origin, np.float64)
        axis = np.asarray(joint.axis, np.float64) / np.linalg.norm(joint.axis)
        radius = float(np.linalg.norm(rel - np.outer(rel @ axis, axis), axis=1).max())
        if radius > margin:
            step = max(step, 2 * math.acos(max(-1.0, 1 - margin / (2 * radius))))
    steps = max(1, math.ceil(abs(upper - lower) / step))
    poses = [posed(float(v)) for v in np.linspace(lower, upper, steps + 1)]
    if upper == lower:
        return poses[0]
    return [np.concatenate([a, b]) for first, second in itertools.pairwise(poses)
            for a, b in zip(first, second, strict=True)]


def _inside(points: FloatArray, hull: FloatArray, grow: float) -> FloatArray:
    """Which ``points`` lie inside the convex hull of ``hull`` grown by ``grow`` (negative: shrunk)."""
    planes = _normalised_planes(hull)
    if planes is None:
        return np.zeros(len(points), bool)
    return np.asarray((points @ planes[:, :3].T - planes[:, 3] - grow).max(axis=1) < 0)


def _spins_onto_itself(meshes: list[Mesh], joint: Any, tolerance: float) -> bool:
    """Whether the moving parts' true surface, turned about the joint's axis, lands on itself (within
    ``tolerance`` plus the sampling's spacing, for 99 % of the samples): a solid of revolution spinning about its own
    axis sweeps only the space it already fills."""
    from scipy.spatial import cKDTree

    meshes = [m for m in meshes if len(m.faces)]
    if not meshes:
        return False
    dense = np.concatenate([m.sample_surface(_PATH_SAMPLES * 4, seed=1)[0] for m in meshes])
    probe = np.concatenate([m.sample_surface(_PATH_SAMPLES // 2, seed=2)[0] for m in meshes])
    area = sum(float(m.face_areas_normals()[0].sum()) for m in meshes)
    spacing = math.sqrt(area / len(dense))
    tree = cKDTree(dense)
    for k in range(1, 7):  # a seventh of a turn apart: no symmetry of a handle or a grip repeats that way
        m = joint_motion("continuous", joint.axis, joint.origin, 2 * math.pi * k / 7)
        dist, _ = tree.query(probe @ m[:3, :3].T + m[:3, 3])
        if float(np.quantile(dist, 0.99)) > tolerance + 1.5 * spacing:
            return False
    return True


def _path_is_free(swept: list[FloatArray], rest: list[FloatArray], surfaces: list[FloatArray], margin: float) -> bool:
    """No point of the still parts' true surfaces lies on the sweep (beyond ``margin``) outside the rest pose."""
    for points in surfaces:
        if not len(points):
            continue
        on_path = np.zeros(len(points), bool)
        for h in swept:
            on_path |= _inside(points, h, -margin)
        if not on_path.any():
            continue
        candidates = points[on_path]
        at_rest = np.zeros(len(candidates), bool)
        for h in rest:
            at_rest |= _inside(candidates, h, margin)
        if not at_rest.all():
            return False
    return True


def _cut(hulls: list[FloatArray], obstacles: list[FloatArray], paths: list[FloatArray], margin: float,
         cfg: CollisionConfig, prefix: str, warnings: list[str], strict: Collection[int] = ()
         ) -> list[tuple[FloatArray, IntArray]] | None:
    """``hulls`` cut back from ``obstacles`` and merged where the merged hull stays off ``paths`` (``strict``: ids of
    obstacles and paths cleared at any overlap, not only beyond ``CONTACT_DEPTH``); None when nothing was cut, []
    when nothing is left."""
    pieces, changed = clear_of(hulls, obstacles, margin, strict=strict)
    if not changed:
        return None
    if not pieces:
        return []

    path_lo, path_hi = _bounds(paths)

    def clear(points: FloatArray) -> bool:
        lo, hi = points.min(axis=0), points.max(axis=0)
        near = np.flatnonzero(np.all(lo <= path_hi, axis=1) & np.all(path_lo <= hi, axis=1))
        return all(penetration_bound(points, paths[i]) <= (0.0 if id(paths[i]) in strict else CONTACT_DEPTH)
                   for i in near)

    # only cheap merges: a forced one grows a hull into the parts around it
    merged = _merge(pieces, cfg.merge_tolerance, len(pieces), allowed=clear)
    out = [h for h in (_hull(p, cfg.max_hull_vertices, cfg.max_hull_polygons) for p in merged) if h is not None]
    cap = max(cfg.max_hulls, cfg.max_cleared_hulls)
    if len(out) > cap:
        volumes = [geo.signed_volume(*h) for h in out]
        base = min(float(h[:, 2].min()) for h in hulls) + cfg.foot_layer
        on_floor = [float(h[0][:, 2].min()) <= base for h in out]  # kept first: what the part stands on
        order = sorted(range(len(out)), key=lambda i: (not on_floor[i], -volumes[i]))
        keep = sorted(order[:cap])
        dropped = 1.0 - sum(volumes[i] for i in keep) / max(sum(volumes), 1e-300)
        warnings.append(prefix + f"clearing moving parts left {len(out)} hulls; the {len(out) - cap} smallest "
                        f"({100 * dropped:.2g} % of the volume) were dropped to keep {cap} (those reaching the "
                        "part's base kept first)")
        out = [out[i] for i in keep]
    return out


def clear_moving_parts(asset: Asset, margin: float = 1e-3, config: CollisionConfig | None = None) -> Asset:
    """A copy of ``asset`` whose collision hulls stay ``margin`` clear of the parts that move against them.

    A coarse decomposition of a carved part (a cabinet body with drawer and door cavities) fills the cavities,
    so the parts in them overlap it at rest. For every movable joint, the hulls of the parts outside its moving
    subtree are cut back (``subtract_convex``) around the hulls inside it wherever they overlap deeper than
    ``CONTACT_DEPTH``: what moves keeps its shape, what it moves against loses the overlap (siblings both do).
    Around a joint's parts the cut follows their sweep over the joint's range (a continuous one: a full turn) when
    no still part's true surface lies on that sweep (a drawer's path through its cavity, a door's swing past the
    body's front) or, for a continuous joint, when its parts are a solid of revolution about its axis (a cap on a
    neck: the decomposition's pieces of it turn into each other's gaps, the true shape onto itself); otherwise
    only the rest pose is cut, so a joint that moves into real geometry still does. Overlaps shallower than
    ``CONTACT_DEPTH`` are left as contact, except on a continuous joint's full turn: there its joint hulls, which the
    arc between two poses bulges past by up to ``margin / 2``, are cleared at any overlap (else a turntable's hull
    could meet the body's by 1 mm on the turn and the spin check would take it for a revolute joint). The pieces
    merge again only where that adds under ``config.merge_tolerance`` of volume and the merged hull stays clear of
    the moving parts across their range; beyond ``config.max_cleared_hulls`` the smallest are dropped, with a
    warning (those reaching the part's base layer last: they are what it stands on). A part that lies wholly inside
    parts moving against it keeps its hulls and those parts are cut around it instead.
    ``metadata["physics"]["clearance"]`` lists, per changed part, hull count and hull volume before and after.
    """
    cfg = config or CollisionConfig()
    out = asset.copy()
    original = {p.name: [np.asarray(h.vertices, np.float64) for h in p.collision] for p in out.parts}
    obstacles: dict[str, dict[int, FloatArray]] = {}
    paths: dict[str, list[FloatArray]] = {}
    against: dict[str, dict[str, None]] = {}
    strict: set[int] = set()  # ids of the joint hulls of continuous joints' full turns (cleared at any overlap)
    surfaces: dict[str, FloatArray] = {}
    for j in out.joints:
        if not j.movable:
            continue
        moving = out.subtree(j.child)
        still = [p for p in out.parts if p.name not in moving]
        rest = [h for name in moving for h in original.get(name, [])]
        swept = _paths(j, rest, margin)
        cut = rest
        if j.type == "continuous" and _spins_onto_itself([out.part(n).mesh for n in moving], j, margin):
            cut = swept
        else:
            for p in still:
                if p.name not in surfaces:
                    surfaces[p.name] = p.mesh.sample_surface(_PATH_SAMPLES, seed=0)[0] if len(p.mesh.faces) else \
                        np.zeros((0, 3))
            if _path_is_free(swept, rest, [surfaces[p.name] for p in still], margin):
                cut = swept
        if j.type == "continuous" and cut is swept:
            strict.update(id(h) for h in swept)
        for p in still:
            obstacles.setdefault(p.name, {}).update({id(h): h for h in cut})
            paths.setdefault(p.name, []).extend(swept)
            against.setdefault(p.name, {}).update(dict.fromkeys(moving))
    physics = dict(out.metadata.get("physics") or {})
    warnings = list(physics.get("warnings", []))
    cuts: dict[str, list[tuple[FloatArray, IntArray]]] = {}
    swallowed: list[str] = []
    for part in out.parts:
        if part.name not in obstacles or not part.collision:
            continue
        result = _cut(original[part.name], list(obstacles[part.name].values()), paths[part.name], margin, cfg,
                      f"part {part.name!r} collision: ", warnings, strict)
        if result:
            cuts[part.name] = result
        elif result is not None:
            swallowed.append(part.name)
    for name in swallowed:  # wholly inside what moves against it: those parts are cut around it instead
        warnings.append(f"part {name!r} collision: lies inside parts that move against it; those are cut around it")
        mine = original[name]
        for other in against[name]:
            base = [h[0] for h in cuts[other]] if other in cuts else original.get(other, [])
            again = _cut(base, mine, mine, margin, cfg, f"part {other!r} collision: ", warnings)
            if again:
                cuts[other] = again
    report: dict[str, dict[str, Any]] = {}
    for part in out.parts:
        if part.name in cuts:
            part.collision = [Mesh(*h) for h in cuts[part.name]]
            report[part.name] = {"hulls_before": len(original[part.name]), "hulls_after": len(part.collision),
                                 "volume_before": round(sum(_hull_volume(v) for v in original[part.name]), 9),
                                 "volume_after": round(sum(_hull_volume(h.vertices) for h in part.collision), 9)}
    physics["warnings"] = warnings
    physics["hulls"] = {p.name: len(p.collision) for p in out.parts}
    physics["clearance"] = {"margin": margin, "parts": report}
    out.metadata["physics"] = physics
    return out
