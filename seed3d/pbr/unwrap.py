"""UV atlases for baking: xatlas in an isolated child process, and a box-projection atlas that always works.

xatlas (C++) can crash or run for minutes on some meshes, so it never runs in the caller's process: the
meshes go to a child (``python -m seed3d.pbr.unwrap IN_DIR``) through ``.npz`` files and come back the same
way, one file per mesh as soon as it is done. When the child crashes, exits with an error, times out or
returns something that is not a valid atlas, that mesh gets the fallback atlas instead (and the child is
started again for the meshes after it); ``Atlas.method`` and ``Atlas.reason`` say what happened.

The fallback (``box_atlas``) cuts the surface into charts by dominant normal axis (six directions, smoothed
by a few rounds of neighbour voting so noisy surfaces do not shatter into slivers), splits charts into
connected pieces, projects each piece onto its axis plane and shelf-packs the pieces into the square. It
is fast (vectorised numpy; about a second for 100k faces) and never fails, at the price of more seams
and some stretch (at most sqrt(3) along one direction) compared with xatlas.

Every atlas keeps the input's face order: ``faces[i]`` is face ``i`` of the input with its corners
re-indexed into split vertices, ``vmap[new_vertex]`` is the input vertex it copies.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seed3d.errors import InvalidInputError
from seed3d.typed import FloatArray, IntArray

log = logging.getLogger(__name__)

#: Unwrap methods: ``auto`` (xatlas up to ``xatlas_max_faces``, box above), ``xatlas`` or ``box``.
UNWRAP_METHODS: tuple[str, ...] = ("auto", "xatlas", "box")

_AXES = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float64)
# Per axis: which world coordinates become (u, v) and their signs, so charts are seen from outside, unmirrored.
_PLANE = ((1, 2, 1.0, 1.0), (1, 2, -1.0, 1.0), (0, 2, -1.0, 1.0), (0, 2, 1.0, 1.0), (0, 1, 1.0, 1.0),
          (0, 1, -1.0, 1.0))


@dataclass(eq=False)
class Atlas:
    """A UV atlas of one mesh: split vertices (``vmap`` into the input), faces in input order, UVs in [0, 1]."""

    vmap: IntArray
    faces: IntArray
    uv: FloatArray
    method: str
    """``xatlas`` or ``box``."""
    charts: int
    seconds: float
    reason: str | None = None
    """Why the fallback was used (None when the requested method worked)."""


# ----------------------------------------------------------------------------------------------- box atlas


def _face_adjacency(vertices: FloatArray, faces: IntArray) -> tuple[IntArray, IntArray]:
    """Pairs of faces sharing an edge (vertices welded by exact position), as two index arrays."""
    _, weld = np.unique(vertices, axis=0, return_inverse=True)
    f = weld.reshape(-1)[faces]
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    edges.sort(axis=1)
    owner = np.tile(np.arange(len(faces)), 3)
    key = edges[:, 0] * (int(f.max()) + 1) + edges[:, 1]
    order = np.argsort(key, kind="stable")
    key, owner = key[order], owner[order]
    same = np.flatnonzero(key[1:] == key[:-1])  # consecutive faces on one edge (chains at non-manifold edges)
    a, b = owner[same], owner[same + 1]
    keep = a != b
    return a[keep], b[keep]


def _chart_labels(normals: FloatArray, areas: FloatArray, adj: tuple[IntArray, IntArray]) -> IntArray:
    """Dominant-axis label per face, smoothed by neighbour votes but never onto an axis the face looks away from."""
    import scipy.sparse as sp

    n_faces = len(normals)
    a, b = adj
    adjacency = sp.coo_matrix((np.ones(2 * len(a)), (np.concatenate([a, b]), np.concatenate([b, a]))),
                              shape=(n_faces, n_faces)).tocsr()
    score = normals @ _AXES.T  # (F, 6) cosine to each axis
    allowed = score > 0.2
    allowed[np.arange(n_faces), score.argmax(axis=1)] = True
    smooth = normals * np.maximum(areas, 1e-30)[:, None]
    for _ in range(2):
        smooth = smooth + adjacency @ smooth
    label = np.where(allowed, smooth @ _AXES.T, -np.inf).argmax(axis=1)
    for _ in range(4):
        votes = adjacency @ np.eye(6)[label] + 1.5 * np.eye(6)[label] + 0.01 * score
        label = np.where(allowed, votes, -np.inf).argmax(axis=1)
    return label


def _shelf_pack(sizes: FloatArray, resolution: int, padding: int) -> tuple[float, FloatArray] | None:
    """Largest scale (texels per unit, searched) at which the (w, h) boxes shelf-pack into the square.

    Returns the scale and each box's lower-left corner in texels, or None when nothing fits even one texel.
    """
    order = np.argsort(-sizes[:, 1], kind="stable")
    w_sorted, h_sorted = sizes[order, 0], sizes[order, 1]
    total = float(np.sum(sizes[:, 0] * sizes[:, 1]))
    scale = resolution * math.sqrt(0.9 / max(total, 1e-30))
    scale = min(scale, (resolution - 2 * padding) / max(float(sizes.max()), 1e-30))

    def attempt(scale: float) -> FloatArray | None:
        wt = np.ceil(w_sorted * scale) + 1 + padding  # +1: texel centres on both edges stay inside
        ht = np.ceil(h_sorted * scale) + 1 + padding
        corners = np.zeros((len(sizes), 2))
        x_end = np.cumsum(wt)
        start, y = 0, float(padding)
        while start < len(sizes):
            base = x_end[start - 1] if start else 0.0
            stop = max(int(np.searchsorted(x_end, base + resolution - padding, side="right")), start + 1)
            if x_end[stop - 1] - base > resolution - padding or y + ht[start] > resolution:
                return None
            corners[start:stop, 0] = padding + np.concatenate([[0.0], x_end[start:stop - 1] - base])
            corners[start:stop, 1] = y
            y += ht[start]
            start = stop
        out = np.empty_like(corners)
        out[order] = corners
        return out

    too_big = None
    for _ in range(200):  # shrink until it fits, then bisect between the last failure and the fit
        corners = attempt(scale)
        if corners is not None:
            break
        too_big, scale = scale, scale * 0.9
    else:
        return None
    if too_big is not None:
        good = scale
        for _ in range(8):
            mid = 0.5 * (good + too_big)
            trial = attempt(mid)
            if trial is None:
                too_big = mid
            else:
                good, corners = mid, trial
        scale = good
    return scale, corners


def box_atlas(vertices: FloatArray, faces: IntArray, resolution: int = 1024, padding: int = 4
              ) -> tuple[IntArray, IntArray, FloatArray, int]:
    """Box-projection charts packed into a ``resolution``² square: (vmap, faces, uv, chart count); never fails."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    vertices = np.asarray(vertices, np.float64)
    faces = np.asarray(faces, np.int64)
    n_faces = len(faces)
    if not n_faces:
        return np.zeros(0, np.int64), np.zeros((0, 3), np.int64), np.zeros((0, 2)), 0
    tri = vertices[faces]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    areas = 0.5 * np.linalg.norm(cross, axis=1)
    normals = np.divide(cross, 2 * areas[:, None], out=np.tile([0.0, 0.0, 1.0], (n_faces, 1)),
                        where=areas[:, None] > 0)
    adj = _face_adjacency(vertices, faces)
    label = _chart_labels(normals, areas, adj)
    a, b = adj
    same = label[a] == label[b]
    graph = sp.coo_matrix((np.ones(int(same.sum())), (a[same], b[same])), shape=(n_faces, n_faces))
    n_charts, chart = connected_components(graph, directed=False)
    # split vertices per chart: one new vertex per (chart, input vertex) pair
    pair = chart[:, None].astype(np.int64) * len(vertices) + faces
    keys, inverse = np.unique(pair.reshape(-1), return_inverse=True)
    vmap = keys % len(vertices)
    vchart = keys // len(vertices)
    new_faces = inverse.reshape(-1, 3).astype(np.int64)
    # project each chart's vertices on the plane of its axis
    axis = np.zeros(n_charts, np.int64)
    axis[chart] = label
    plane = np.array(_PLANE)
    ax = axis[vchart]
    p = vertices[vmap]
    iu, iv = plane[ax, 0].astype(np.int64), plane[ax, 1].astype(np.int64)
    uv = np.stack([p[np.arange(len(p)), iu] * plane[ax, 2], p[np.arange(len(p)), iv] * plane[ax, 3]], axis=1)
    lo = np.full((n_charts, 2), np.inf)
    hi = np.full((n_charts, 2), -np.inf)
    np.minimum.at(lo, vchart, uv)
    np.maximum.at(hi, vchart, uv)
    uv -= lo[vchart]
    size = hi - lo
    tall = size[:, 1] > size[:, 0]  # rotate tall charts by 90 degrees (a rotation, so still unmirrored)
    rot = tall[vchart]
    uv[rot] = np.stack([uv[rot, 1], size[vchart[rot], 0] - uv[rot, 0]], axis=1)
    size[tall] = size[tall][:, ::-1]
    packed = _shelf_pack(np.maximum(size, 1e-12), int(resolution), int(padding))
    if packed is None:
        raise InvalidInputError(f"{n_charts} charts cannot be packed into a {resolution}² texture; raise the "
                                "resolution or lower the padding")
    scale, corner = packed
    uv = (corner[vchart] + 0.5 + uv * scale) / resolution
    return vmap.astype(np.int64), new_faces, uv, int(n_charts)


# ----------------------------------------------------------------------------------------------- xatlas child


def _child_main(folder: str) -> int:
    """Child side: unwrap every ``mesh_<i>.npz`` of ``folder`` in order with xatlas, writing ``atlas_<i>.npz``."""
    import xatlas

    root = Path(folder)
    jobs = sorted(root.glob("mesh_*.npz"), key=lambda p: int(p.stem.split("_")[1]))
    for job in jobs:
        index = job.stem.split("_")[1]
        with np.load(job) as data:
            verts, faces = data["vertices"], data["faces"]
            resolution, padding = int(data["resolution"]), int(data["padding"])
        (root / f"started_{index}").touch()
        t0 = time.perf_counter()
        atlas = xatlas.Atlas()
        atlas.add_mesh(verts.astype(np.float32), faces.astype(np.uint32))
        pack = xatlas.PackOptions()
        pack.resolution = resolution
        pack.padding = padding
        pack.bilinear = True
        atlas.generate(xatlas.ChartOptions(), pack)
        vmap, indices, uvs = atlas[0]
        tmp = root / f".atlas_{index}.npz"
        with open(tmp, "wb") as fh:
            np.savez(fh, vmap=vmap, faces=indices, uv=uvs, atlases=atlas.atlas_count, charts=atlas.chart_count,
                     seconds=time.perf_counter() - t0)
        os.replace(tmp, root / f"atlas_{index}.npz")
    return 0


def _check_atlas(data: dict[str, np.ndarray], vertices_count: int, faces: IntArray) -> str | None:
    """Why an atlas from the child is unusable, or None when it is valid."""
    vmap, new_faces, uv = data["vmap"].astype(np.int64), data["faces"].astype(np.int64), data["uv"]
    if int(data["atlases"]) != 1:
        return f"xatlas made {int(data['atlases'])} atlases instead of one"
    if new_faces.shape != faces.shape or uv.shape != (len(vmap), 2) or not len(vmap):
        return "xatlas returned arrays of the wrong shape"
    if vmap.min() < 0 or vmap.max() >= vertices_count or new_faces.min() < 0 or new_faces.max() >= len(vmap):
        return "xatlas returned indices out of range"
    if not np.array_equal(vmap[new_faces], faces):
        return "xatlas changed the face order"
    if not np.all(np.isfinite(uv)) or uv.min() < 0 or uv.max() > 1:
        return "xatlas returned UVs outside [0, 1]"
    return None


def default_timeout(n_faces: int) -> float:
    """Seconds one mesh may take in xatlas before the fallback is used: 60 s plus 3 ms per face."""
    return 60.0 + 0.003 * n_faces


def unwrap_meshes(meshes: Sequence[tuple[FloatArray, IntArray]], resolutions: Sequence[int], padding: int = 4,
                  method: str = "auto", xatlas_max_faces: int = 30000, timeout_s: float | None = None,
                  command: Sequence[str] | None = None) -> list[Atlas]:
    """Atlases for (vertices, faces) meshes, each at its own texture size; xatlas runs in one child process.

    ``command`` replaces the child's command line (the folder of jobs is appended), for tests and custom
    builds. ``timeout_s`` bounds each mesh (default ``default_timeout``).
    """
    if method not in UNWRAP_METHODS:
        raise InvalidInputError(f"unwrap method must be one of {', '.join(UNWRAP_METHODS)}, got {method!r}")
    if len(resolutions) != len(meshes):
        raise InvalidInputError(f"need one resolution per mesh, got {len(resolutions)} for {len(meshes)} meshes")
    out: list[Atlas | None] = [None] * len(meshes)
    use_xatlas = [method == "xatlas" or (method == "auto" and len(f) <= xatlas_max_faces) for _, f in meshes]
    reasons: dict[int, str] = {}
    todo = [i for i, x in enumerate(use_xatlas) if x and len(meshes[i][1])]
    if todo:
        reasons = _run_xatlas(meshes, resolutions, padding, todo, timeout_s, command, out)
    for i, (verts, faces) in enumerate(meshes):
        if out[i] is not None:
            continue
        t0 = time.perf_counter()
        vmap, new_faces, uv, charts = box_atlas(verts, faces, resolutions[i], padding)
        reason = reasons.get(i)
        if reason is None and method != "box" and not use_xatlas[i]:
            reason = f"{len(faces)} faces is above xatlas_max_faces={xatlas_max_faces}"
        out[i] = Atlas(vmap, new_faces, uv, "box", charts, time.perf_counter() - t0, reason)
        if use_xatlas[i] and reason:
            log.warning("mesh %d: xatlas failed (%s); using the box-projection atlas", i, reason)
        else:
            log.info("mesh %d: box-projection atlas, %d charts%s", i, charts, f" ({reason})" if reason else "")
    return [a for a in out if a is not None]


def _run_xatlas(meshes: Sequence[tuple[FloatArray, IntArray]], resolutions: Sequence[int], padding: int,
                todo: list[int], timeout_s: float | None, command: Sequence[str] | None,
                out: list[Atlas | None]) -> dict[int, str]:
    """Run the child on ``todo`` (restarting it after a failure); fill ``out``; return failure reasons by index."""
    reasons: dict[int, str] = {}
    cmd = list(command) if command is not None else [sys.executable, "-m", "seed3d.pbr.unwrap"]
    with tempfile.TemporaryDirectory(prefix="seed3d-unwrap-") as tmp:
        pending = list(todo)
        while pending:
            folder = Path(tmp) / f"run{pending[0]}"
            folder.mkdir()
            for i in pending:
                verts, faces = meshes[i]
                np.savez(folder / f"mesh_{i}.npz", vertices=np.asarray(verts, np.float64),
                         faces=np.asarray(faces, np.int64), resolution=int(resolutions[i]), padding=int(padding))
            failure = _watch_child(cmd + [str(folder)], folder, pending, meshes, timeout_s)
            done = []
            for i in pending:
                path = folder / f"atlas_{i}.npz"
                if not path.is_file():
                    break
                with np.load(path) as data:
                    arrays = {k: data[k] for k in data.files}
                faces = np.asarray(meshes[i][1], np.int64)
                bad = _check_atlas(arrays, len(meshes[i][0]), faces)
                done.append(i)
                if bad:
                    reasons[i] = bad
                    continue
                out[i] = Atlas(arrays["vmap"].astype(np.int64), arrays["faces"].astype(np.int64),
                               arrays["uv"].astype(np.float64), "xatlas", int(arrays["charts"]),
                               float(arrays["seconds"]) if "seconds" in arrays else 0.0)
                log.info("mesh %d: xatlas atlas, %d charts", i, out[i].charts)  # type: ignore[union-attr]
            pending = [i for i in pending if i not in done]
            if pending:  # the first unfinished mesh is the one the child failed on
                reasons[pending[0]] = failure or "the xatlas child stopped without an atlas"
                pending = pending[1:]
    return reasons


def _watch_child(cmd: list[str], folder: Path, pending: list[int],
                 meshes: Sequence[tuple[FloatArray, IntArray]], timeout_s: float | None) -> str | None:
    """Run the child until it exits or the mesh it is on runs past its timeout; a failure's description or None."""
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    started = time.perf_counter()
    log_path = folder / "child.log"
    with open(log_path, "wb") as log_file, subprocess.Popen(cmd, stdout=log_file, stderr=log_file, env=env) as proc:
        current, since = -1, started
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            now_on = sum(1 for i in pending if (folder / f"started_{i}").exists()) - 1
            if now_on != current:
                current, since = now_on, time.perf_counter()
            i = pending[max(current, 0)]
            limit = default_timeout(len(meshes[i][1])) if timeout_s is None else float(timeout_s)
            if time.perf_counter() - since > limit:
                proc.kill()
                proc.wait()
                return f"xatlas ran past its {limit:.0f} s timeout"
    if proc.returncode == 0:
        return None
    if proc.returncode < 0:
        return f"the xatlas child was killed by signal {-proc.returncode}"
    err = log_path.read_text(errors="replace").strip()
    last = err.splitlines()[-1] if err else ""
    return f"the xatlas child exited with status {proc.returncode}" + (f": {last}" if last else "")


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1]))
