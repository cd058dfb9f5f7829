"""Hierarchical (coarse-to-fine) extraction of a signed distance field's level set as a watertight mesh.

The field is sampled on a coarse grid first; only cells that may hold the surface are split in two along
each axis, level after level, until the requested resolution. A child is sampled only when the corner it shares
with its parent lies within the child's diagonal (times a safety factor) of the level: farther, a distance field
cannot cross the level inside it, and it takes that corner's value as its sign. The surviving fine cells are grouped
into blocks of ``8³`` cells, each block's corner lattice is meshed with marching cubes (Lewiner), and vertices on
block faces are welded by the lattice edge they lie on, so the result is one closed, consistently wound mesh
with outward normals. No ``resolution³`` array is ever allocated: cost and memory follow the number of cells
near the surface (about ``resolution²``), not the volume.

Frame and sign: the field lives in the cube ``[-bound, bound]³`` (the normalised generation frame) and is
negative inside; the mesh comes back in the same frame.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, overload

import numpy as np

from seed3d.asset import Mesh
from seed3d.errors import DependencyError, InvalidInputError, Seed3DError

log = logging.getLogger(__name__)

#: A signed distance function: (Q, 3) float32 points → (Q,) distances, negative inside.
SDFFunction = Callable[[np.ndarray], np.ndarray]

#: The largest resolution accepted (512 is the documented working size).
MAX_RESOLUTION = 1024
#: Fine cells per block side for the marching-cubes pass.
BLOCK = 8
#: Default widening of the kept band (see ``extract_surface``'s ``safety``).
SAFETY = 1.2
_SPLIT_CHUNK = 1 << 15  # parent cells split per batch (about 50 MB of temporaries)

# the 8 corners of a cell and the 27 points of a cell split in two, as integer offsets
_OFF8 = np.stack(np.meshgrid([0, 1], [0, 1], [0, 1], indexing="ij"), -1).reshape(-1, 3).astype(np.int64)
_OFF27 = np.stack(np.meshgrid([0, 1, 2], [0, 1, 2], [0, 1, 2], indexing="ij"), -1).reshape(-1, 3).astype(np.int64)
# for child c (an _OFF8 row) and its corner k (an _OFF8 row): the index of that point among the 27
_CHILD_CORNERS = ((_OFF8[:, None, :] + _OFF8[None, :, :]) @ np.array([9, 3, 1])).astype(np.int64)
# child c shares its corner c with the parent: the parent's corners among the 27 points, in _OFF8 order
_PARENT_CORNERS = np.diagonal(_CHILD_CORNERS).copy()
# (8, 27) membership: which of the 27 points are corners of child c
_CHILD_POINTS = np.zeros((8, 27), np.uint8)
_CHILD_POINTS[np.repeat(np.arange(8), 8), _CHILD_CORNERS.reshape(-1)] = 1


class EmptySurfaceError(Seed3DError):
    """The field has no level-set crossing inside the extraction cube (nothing to mesh)."""


@dataclass
class ExtractionStats:
    """What one extraction cost: sdf evaluations, active cells per level, blocks meshed and wall time."""

    resolution: int
    coarse: int
    evaluations: int = 0
    """Points passed to the sdf (each lattice point at most once)."""
    active_cells: list[int] = field(default_factory=list)
    """Cells kept at each level, coarse to fine (the last one counts cells with a sign change)."""
    blocks: int = 0
    vertices: int = 0
    faces: int = 0
    seconds: float = 0.0

    @property
    def dense_evaluations(self) -> int:
        """Points a dense grid at the same resolution would evaluate, ``(resolution + 1)³``."""
        return (self.resolution + 1) ** 3


class _Lattice:
    """The sdf sampled on the fine lattice: a sorted table of evaluated points plus fallbacks for the rest."""

    def __init__(self, sdf: SDFFunction, resolution: int, bound: float, level: float, batch: int,
                 tick: Callable[[float], None] | None = None) -> None:
        self.sdf, self.n, self.bound, self.level, self.batch = sdf, resolution, bound, level, batch
        self.tick = tick  # called with the share of one evaluation done, after each sdf batch
        self.h = 2.0 * bound / resolution
        self.eps = np.float32(level + 1e-4 * self.h) - np.float32(level)  # nudge off exact level hits
        if not self.eps > 0:
            self.eps = np.float32(np.spacing(np.float32(level)) * 4)
        self.keys = np.zeros(0, np.int64)
        self.vals = np.zeros(0, np.float32)
        self.evaluations = 0
        self.clamped = 0
        self.outside = 0  # samples above the level before clamping (none: the field is "inside" everywhere)
        # per coarse level: sorted keys of inactive cells and their mean corner value (sign holder)
        self.inactive: dict[int, tuple[int, int, np.ndarray, np.ndarray]] = {}
        self._pending: dict[int, list[tuple[int, int, np.ndarray, np.ndarray]]] = {}

    def key(self, q: np.ndarray) -> np.ndarray:
        """Integer key of lattice points (..., 3)."""
        m = self.n + 1
        return (q[..., 0] * m + q[..., 1]) * m + q[..., 2]

    def unkey(self, k: np.ndarray) -> np.ndarray:
        m = self.n + 1
        return np.stack([k // (m * m), (k // m) % m, k % m], axis=-1)

    def _evaluate(self, q: np.ndarray) -> np.ndarray:
        """Call the sdf on lattice points in batches; nudge exact level hits and close the cube's faces."""
        out = np.empty(len(q), np.float32)
        for start in range(0, len(q), self.batch):
            pts = (q[start:start + self.batch] * self.h - self.bound).astype(np.float32)
            val = np.asarray(self.sdf(pts))
            if val.shape not in ((len(pts),), (len(pts), 1)):
                raise InvalidInputError(
                    f"sdf must return one distance per point, shape ({len(pts)},); got {val.shape}")
            out[start:start + len(pts)] = val.reshape(-1)
            if self.tick is not None:
                self.tick((start + len(pts)) / len(q))
        bad = ~np.isfinite(out)
        if bad.any():
            raise InvalidInputError(f"sdf returned {int(bad.sum())} non-finite values (NaN or inf) at lattice "
                                    "points; check the model's inputs and weights")
        self.evaluations += len(q)
        level = np.float32(self.level)
        out[out == level] += self.eps
        self.outside += int(np.count_nonzero(out > level))
        on_face = ((q == 0) | (q == self.n)).any(axis=1)
        low = on_face & (out < level)
        if low.any():
            self.clamped += int(low.sum())
            out[low] = level + self.eps
        return out

    def values(self, keys: np.ndarray) -> np.ndarray:
        """Values at unique sorted ``keys``: looked up when evaluated before, else evaluated and stored."""
        vals = np.empty(len(keys), np.float32)
        found, idx = self.lookup(keys)
        vals[found] = self.vals[idx[found]]
        new = ~found
        if new.any():
            vals[new] = self._evaluate(self.unkey(keys[new]))
            pos = np.searchsorted(self.keys, keys[new])  # new keys are sorted and absent: an O(n) merge
            self.keys = np.insert(self.keys, pos, keys[new])
            self.vals = np.insert(self.vals, pos, vals[new])
        return vals

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, index into the table) for ``keys``."""
        idx = np.searchsorted(self.keys, keys)
        idx = np.minimum(idx, max(len(self.keys) - 1, 0))
        found = (self.keys[idx] == keys) if len(self.keys) else np.zeros(len(keys), bool)
        return found, idx

    def add_inactive(self, lvl: int, size: int, count: int, lower: np.ndarray, mean: np.ndarray) -> None:
        """Record inactive cells of level ``lvl`` (cell ``size`` in fine units, ``count`` cells per side)."""
        self._pending.setdefault(lvl, []).append((size, count, self._cell_key(lower // size, count), mean))

    def finish_level(self, lvl: int) -> None:
        """Sort the inactive cells recorded for level ``lvl`` into its lookup table."""
        batches = self._pending.pop(lvl, [])
        if batches:
            k = np.concatenate([b[2] for b in batches])
            m = np.concatenate([b[3] for b in batches])
            order = np.argsort(k)
            self.inactive[lvl] = (batches[0][0], batches[0][1], k[order], m[order])

    @staticmethod
    def _cell_key(c: np.ndarray, count: int) -> np.ndarray:
        return (c[..., 0] * count + c[..., 1]) * count + c[..., 2]

    def at(self, q: np.ndarray) -> np.ndarray:
        """Values at lattice points (M, 3): evaluated ones, else the mean value of their inactive cell.

        Inactive cells hold no level crossing, so every point in one has the sign of its corners; the
        fallback is a pure function of the point, so neighbouring blocks always agree on it.
        """
        keys = self.key(q)
        found, idx = self.lookup(keys)
        out = np.where(found, self.vals[idx], np.float32(np.nan)).astype(np.float32)
        rest = np.flatnonzero(~found)
        for lvl in sorted(self.inactive, reverse=True):  # fine to coarse
            size, count, ckeys, cmean = self.inactive[lvl]
            if not len(rest):
                break
            if not len(ckeys):
                continue
            ck = self._cell_key(np.minimum(q[rest] // size, count - 1), count)
            j = np.minimum(np.searchsorted(ckeys, ck), len(ckeys) - 1)
            hit = ckeys[j] == ck
            out[rest[hit]] = cmean[j[hit]]
            rest = rest[~hit]
        if len(rest):  # cannot happen by construction; evaluate rather than guess
            log.debug("extract: %d lattice points had no inactive cell; evaluating them", len(rest))
            out[rest] = self.values(np.unique(keys[rest]))[np.searchsorted(np.unique(keys[rest]), keys[rest])]
        return out


def _check_args(resolution: int, coarse: int, bound: float, level: float, batch: int,
                max_active_cells: int | None, safety: float) -> int:
    """Validate the arguments; returns the number of refinement levels."""
    for name, value in (("resolution", resolution), ("coarse", coarse), ("batch", batch)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InvalidInputError(f"{name} must be an integer, got {value!r}")
    if coarse < 2:
        raise InvalidInputError(f"coarse must be at least 2 cells per side, got {coarse}")
    ratio = resolution / coarse
    if resolution < coarse or resolution % coarse or ratio != 2 ** round(math.log2(ratio)):
        raise InvalidInputError(
            f"resolution must be coarse × 2^k (coarse={coarse}: e.g. {coarse * 4}, {coarse * 8}, {coarse * 16}); "
            f"got {resolution}")
    if resolution > MAX_RESOLUTION:
        raise InvalidInputError(f"resolution {resolution} is above the maximum {MAX_RESOLUTION} (512 is typical)")
    if not (math.isfinite(bound) and bound > 0):
        raise InvalidInputError(f"bound must be a positive number, got {bound}")
    if not math.isfinite(level):
        raise InvalidInputError(f"level must be finite, got {level}")
    if batch < 1:
        raise InvalidInputError(f"batch must be at least 1, got {batch}")
    if max_active_cells is not None and max_active_cells < 1:
        raise InvalidInputError(f"max_active_cells must be positive or None, got {max_active_cells}")
    if not (math.isfinite(safety) and safety >= 1.0):
        raise InvalidInputError(f"safety must be a number >= 1, got {safety}")
    return round(math.log2(ratio))


@overload
def extract_surface(sdf: SDFFunction, resolution: int = ..., coarse: int = ..., bound: float = ...,
                    level: float = ..., batch: int = ..., max_active_cells: int | None = ...,
                    progress: Callable[[float], None] | None = ..., *, safety: float = ...,
                    return_stats: Literal[False] = ...) -> Mesh: ...


@overload
def extract_surface(sdf: SDFFunction, resolution: int = ..., coarse: int = ..., bound: float = ...,
                    level: float = ..., batch: int = ..., max_active_cells: int | None = ...,
                    progress: Callable[[float], None] | None = ..., *, safety: float = ...,
                    return_stats: Literal[True]) -> tuple[Mesh, ExtractionStats]: ...


def extract_surface(sdf: SDFFunction, resolution: int = 256, coarse: int = 32, bound: float = 1.0,
                    level: float = 0.0, batch: int = 262144, max_active_cells: int | None = 1 << 23,
                    progress: Callable[[float], None] | None = None, *, safety: float = SAFETY,
                    return_stats: bool = False) -> Mesh | tuple[Mesh, ExtractionStats]:
    """Mesh the ``level`` set of ``sdf`` in ``[-bound, bound]³`` at ``resolution`` cells per side, coarse to fine.

    ``sdf`` maps (Q, 3) float32 points (Q <= ``batch``) to (Q,) signed distances, negative inside. It may be
    truncated (saturating at ±tau); pruning is exact for a true distance (or an under-estimate), truncated or
    not, and it prunes empty coarse cells when ``tau`` exceeds half the coarse cell diagonal (``√3·bound /
    coarse``, times ``safety``); ``safety`` (>= 1) widens the kept band for fields whose slope over-estimates the
    distance, such as learned ones.

    ``resolution`` must be ``coarse × 2^k`` and at most 1024 (512 is the documented working size). A cell is
    kept when its corners change sign, or when all lie within ``safety ×`` its diagonal of the level (a
    saturated corner counts as within when ``tau`` is below that) and the nearest within half of that; kept
    cells are split, the rest are never visited again. Of a split cell's 8 children only those whose corner
    shared with the parent lies within ``safety ×`` the child's diagonal are sampled; the others hold no
    crossing for a distance field. Each lattice point is evaluated at most once.

    Memory is bounded by the cells near the surface, never ``resolution³``: about 50 MB of temporaries
    (cells are split in batches) plus ~24 bytes per kept cell, 12 per evaluated point and 12 per pruned
    cell, then the mesh itself; more than ``max_active_cells`` kept cells at any level (default 2²³, about
    0.5 GB) raise ``InvalidInputError``. A sphere of radius 0.7 keeps 0.27 M cells of 256³ before the last
    split at 512 and peaks at about 0.25 GB, its 1.2 M-face mesh included.

    The mesh is closed (a surface leaving the cube is capped on its faces, with a warning), consistently
    wound with outward normals, in the same frame as the field. Raises ``EmptySurfaceError`` when the field
    never crosses ``level``. With ``return_stats=True`` returns ``(mesh, ExtractionStats)``.
    """
    levels = _check_args(resolution, coarse, bound, level, batch, max_active_cells, safety)
    try:
        from skimage.measure import marching_cubes
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise DependencyError("surface extraction needs scikit-image: pip install scikit-image==0.26.0") from exc

    t0 = time.perf_counter()
    stats = ExtractionStats(resolution=int(resolution), coarse=int(coarse))
    report = progress or (lambda _f: None)
    # refinement (levels 0..levels) fills [0, 0.5] of the progress, meshing (0.5, 1]; the evaluations in flight
    # report per sdf batch within their share ``span`` (a level's, or its split chunk's)
    span = [0.0, 0.5 / (levels + 1)]
    lat = _Lattice(sdf, int(resolution), float(bound), float(level), int(batch),
                   tick=None if progress is None else lambda f: report(span[0] + (span[1] - span[0]) * f))
    lv = np.float32(level)

    # ---- level 0: the dense coarse lattice
    size = 2 ** levels  # cell size in fine lattice units
    g = np.arange(coarse + 1, dtype=np.int64) * size
    pts = np.stack(np.meshgrid(g, g, g, indexing="ij"), -1).reshape(-1, 3)
    vol = lat.values(lat.key(pts)).reshape((coarse + 1,) * 3)
    corners = np.stack([vol[dx:dx + coarse, dy:dy + coarse, dz:dz + coarse].reshape(-1) for dx, dy, dz in _OFF8], 1)
    lower = pts.reshape((coarse + 1,) * 3 + (3,))[:coarse, :coarse, :coarse].reshape(-1, 3)
    dev = np.abs(vol - lv)
    tau = float(dev.max())
    if float(np.mean(dev >= tau * (1 - 1e-5))) > 0.01 and tau <= safety * math.sqrt(3) * bound / coarse:
        log.info("extract: the field saturates at %.4g, within half the coarse cell diagonal (x safety) %.4g: "
                 "no coarse cell can be pruned (use a finer `coarse`)", tau, safety * math.sqrt(3) * bound / coarse)

    def classify(lvl: int, size: int, lower: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """Record the inactive cells of one batch; return the lower corners of the kept ones."""
        count = coarse * 2 ** lvl
        cmin, cmax = corners.min(axis=1), corners.max(axis=1)
        keep = (cmin < lv) & (cmax > lv)
        if lvl < levels:
            # a surface inside a cell lies within its diagonal of every corner and within half of it of the
            # nearest corner, so for a distance a cell is empty when any corner is farther than the diagonal
            # or every corner is farther than half of it
            # (a truncated field saturating below the diagonal passes the first test at every corner, as it must:
            # a saturated corner may be farther than it reads)
            diag = safety * math.sqrt(3) * 2 * bound / count
            nearest = np.where(cmin > lv, cmin - lv, lv - cmax)
            keep |= (np.maximum(cmax - lv, lv - cmin) <= diag) & (nearest <= diag / 2)
            lat.add_inactive(lvl, size, count, lower[~keep], corners[~keep].mean(axis=1).astype(np.float32))
        return lower[keep]

    kept = classify(0, size, lower, corners)
    lat.finish_level(0)
    report(0.5 / (levels + 1))
    del corners, lower, vol, dev
    for lvl in range(1, levels + 1):
        n_kept = len(kept)
        stats.active_cells.append(n_kept)
        if max_active_cells is not None and n_kept > max_active_cells:
            raise InvalidInputError(
                f"extraction needs {n_kept} active cells at level {lvl - 1} ({coarse * 2 ** (lvl - 1)}³ grid), "
                f"above max_active_cells={max_active_cells}; lower `resolution`, raise max_active_cells (about "
                "40 bytes each), or check that the field is a distance (negative only inside)")
        if not n_kept:
            break
        half = size // 2
        child_diag = safety * math.sqrt(3) * 2 * bound / (coarse * 2 ** lvl)
        parts: list[np.ndarray] = []
        for start in range(0, n_kept, _SPLIT_CHUNK):
            parents = kept[start:start + _SPLIT_CHUNK]
            share = 0.5 / (levels + 1)
            span[:] = [share * (lvl + start / n_kept), share * (lvl + (start + len(parents)) / n_kept)]
            keys27 = lat.key(parents[:, None, :] + half * _OFF27[None])
            pkeys, pinv = np.unique(keys27[:, _PARENT_CORNERS], return_inverse=True)
            shared = lat.values(pkeys)[pinv.reshape(-1, 8)]  # corners of kept cells: all evaluated already
            alive = np.abs(shared - lv) <= child_diag  # (P, 8): child c may hold the level
            lower = parents[:, None, :] + half * _OFF8[None]  # (P, 8, 3)
            lat.add_inactive(lvl, half, coarse * 2 ** lvl, lower[~alive], shared[~alive])
            need = (alive.astype(np.uint8) @ _CHILD_POINTS) > 0  # (P, 27): points of the sampled children
            ukeys, inverse = np.unique(keys27[need], return_inverse=True)
            vals27 = np.full(keys27.shape, np.nan, np.float32)
            vals27[need] = lat.values(ukeys)[inverse.reshape(-1)]
            corners = vals27[:, _CHILD_CORNERS][alive]  # (A, 8)
            parts.append(classify(lvl, half, lower[alive], corners))
        kept = np.concatenate(parts)
        del parts
        lat.finish_level(lvl)
        size = half
        report(0.5 * (lvl + 1) / (levels + 1))
    else:
        stats.active_cells.append(len(kept))

    if not len(kept):
        raise EmptySurfaceError(
            f"the field never crosses level {level} inside [-{bound}, {bound}]³ (min {float(lat.vals.min()):.4g}, "
            f"max {float(lat.vals.max()):.4g} over {lat.evaluations} samples); nothing to mesh")
    if not lat.outside:
        raise EmptySurfaceError(
            f"the field is below level {level} at all {lat.evaluations} samples of [-{bound}, {bound}]³ (everything "
            "is inside); check the sign convention (negative inside) or enlarge `bound`")
    if lat.clamped:
        log.warning("extract: the surface leaves the cube [-%g, %g]³ (%d boundary samples inside); it was closed "
                    "on the cube's faces", bound, bound, lat.clamped)

    # ---- meshing: marching cubes per block of BLOCK³ fine cells, welded by lattice edge
    block = math.gcd(int(resolution), BLOCK)
    nblocks = resolution // block
    bkey = np.unique(lat._cell_key(kept // block, nblocks))
    del kept
    off = np.stack(np.meshgrid(*[np.arange(block + 1)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(np.int64)
    done = np.zeros(0, np.int64)
    pending = bkey
    vert_keys: list[np.ndarray] = []
    vert_pos: list[np.ndarray] = []
    face_list: list[np.ndarray] = []
    nvert = 0
    serial = 0
    meshed = 0
    chunk = max(1, 262144 // len(off))
    while len(pending):
        done = np.union1d(done, pending)
        grow: list[np.ndarray] = []
        for start in range(0, len(pending), chunk):
            bk = pending[start:start + chunk]
            span[:] = [0.5 + 0.5 * min(meshed / len(bkey), 0.99), 0.5 + 0.5 * min((meshed + len(bk)) / len(bkey), 0.99)]
            borg = np.stack([bk // (nblocks * nblocks), (bk // nblocks) % nblocks, bk % nblocks], 1) * block
            vols = lat.at((borg[:, None, :] + off[None]).reshape(-1, 3)).reshape((len(bk),) + (block + 1,) * 3)
            for i in range(len(bk)):
                v = vols[i]
                if not (v.min() < lv < v.max()):
                    continue
                verts, faces, _, _ = marching_cubes(v, level=float(level))
                verts = verts.astype(np.float64)
                flo = np.floor(verts)
                frac = verts != flo
                nfrac = frac.sum(axis=1)
                axis = np.where(nfrac == 1, np.argmax(frac, axis=1), 3)
                gpos = flo.astype(np.int64) + borg[i]
                vk = lat.key(gpos) * 4 + axis
                odd = nfrac >= 2  # vertices inside a cube are never shared: give them unique negative keys
                if odd.any():
                    vk[odd] = -1 - (serial + np.arange(int(odd.sum())))
                    serial += int(odd.sum())
                vert_keys.append(vk)
                vert_pos.append(verts + borg[i])
                face_list.append(faces.astype(np.int64) + nvert)
                nvert += len(verts)
            # closure: a block face whose lattice crosses the level needs the neighbour block meshed too
            faces6 = [vols[:, 0], vols[:, -1], vols[:, :, 0], vols[:, :, -1], vols[:, :, :, 0], vols[:, :, :, -1]]
            bc = borg // block
            for f, (ax, step) in enumerate([(0, -1), (0, 1), (1, -1), (1, 1), (2, -1), (2, 1)]):
                fv = faces6[f].reshape(len(bk), -1)
                need = (fv.min(axis=1) < lv) & (fv.max(axis=1) > lv)
                nb = bc[need].copy()
                nb[:, ax] += step
                nb = nb[((nb >= 0) & (nb < nblocks)).all(axis=1)]
                if len(nb):
                    grow.append(lat._cell_key(nb, nblocks))
            meshed += len(bk)
            report(0.5 + 0.5 * min(meshed / len(bkey), 0.99))
        pending = np.setdiff1d(np.unique(np.concatenate(grow)) if grow else np.zeros(0, np.int64), done)
        if len(pending):
            log.debug("extract: closing the surface across %d more blocks", len(pending))
    stats.blocks = len(done)
    if not face_list:
        raise EmptySurfaceError(f"the field never crosses level {level} inside [-{bound}, {bound}]³; nothing to mesh")

    keys_all = np.concatenate(vert_keys)
    pos_all = np.concatenate(vert_pos)
    faces_all = np.concatenate(face_list)
    _, first, inverse = np.unique(keys_all, return_index=True, return_inverse=True)
    verts = pos_all[first] * lat.h - bound
    faces_all = inverse.reshape(-1)[faces_all]
    ok = (faces_all[:, 0] != faces_all[:, 1]) & (faces_all[:, 1] != faces_all[:, 2]) & (
        faces_all[:, 0] != faces_all[:, 2])
    mesh = Mesh(verts, faces_all[ok])
    stats.evaluations = lat.evaluations
    stats.vertices, stats.faces = len(mesh.vertices), len(mesh.faces)
    stats.seconds = time.perf_counter() - t0
    report(1.0)
    log.info("extract: %d³ from %d³: %d sdf evaluations (dense %d, %.2f%%), active cells per level %s, %d blocks, "
             "%d vertices, %d faces, %.2fs", resolution, coarse, stats.evaluations, stats.dense_evaluations,
             100.0 * stats.evaluations / stats.dense_evaluations, stats.active_cells, stats.blocks,
             stats.vertices, stats.faces, stats.seconds)
    return (mesh, stats) if return_stats else mesh
