"""Point samples of an asset's solid: surface points with normals, sharp-edge points and signed distances.

The solid of an asset is the union of its closed parts at rest. ``PartSolids`` keeps the parts separate
(each welded, so UV seams are closed again) and answers queries about their union:

- **inside**: a point is inside the union when it is inside any part; each part's inside test is ray parity
  (Open3D ``RaycastingScene.count_intersections``) along 3 fixed oblique directions on that part alone, for
  points in the part's bounding box, and the exact winding number where the rays disagree (a float32 ray
  can slip through a crack between two triangles). A part alone is a closed 2-manifold, so parity is right;
  the union as one mesh is not: where two parts touch, an exact boolean union keeps two coincident faces of
  opposite orientation and a ray that hits them counts one crossing (measured in ``eval/bench_dataset.py``).
- **signed distance** = distance to the nearest part surface with the sign of *inside*. Open3D's BVH picks
  the nearest face, but its float32 closest-point test errs by up to ~1e-3 (in a unit-sized frame) on the long
  thin triangles boolean-built walls are made of; the distance to that face and to its edge neighbours is
  therefore recomputed in float64 (exact to ~1e-9 in tests against brute force). Outside the union this is
  the exact distance to the union's surface; inside, its magnitude is the distance to the nearest part
  surface (the CSG union ``min_i sdf_i`` when parts do not overlap), smaller than the true depth only near
  faces where two parts touch or overlap.
- **surface samples** are drawn by area on every part, then a sample is dropped when a point ``eps`` along its
  outward normal lies inside another part: faces where parts touch or overlap are hidden inside the union,
  not part of its surface. **Sharp-edge samples** lie on part edges whose faces meet at more than a
  threshold angle (between normals); one is dropped when either face is hidden next to it (a probe ``eps``
  above the face and ``eps`` into it from the edge lies inside another part), so the seam where two flush
  parts meet, flat on the union, is not taken for a sharp edge.

``winding_number`` (generalised winding number, van Oosterom–Strackee solid angles) is the exact, slow
reference for the sign. Everything works in the frame the meshes are given in; the dataset builder passes
them in its normalised frame.

``backend="torch"`` answers the same queries without Open3D, by brute force in torch (float64, on ``device``:
cpu or cuda): the inside test is the winding number itself and the nearest face the exact nearest of all
faces. It is O(points × faces), fast on a GPU for synth-sized meshes (a few thousand faces), and is what lets
``seed3d data build --queries cuda`` make geometry samples on a machine without Open3D.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh
from seed3d.errors import AssetFormatError, DependencyError, InvalidInputError
from seed3d.typed import FloatArray, IntArray, NDArray

BoolArray = NDArray[np.bool_]

#: Fixed oblique ray directions for parity tests (no axis or diagonal alignment with typical CAD-like faces).
_RAY_DIRECTIONS = np.array([[0.5377, 0.8271, -0.1636], [-0.6931, 0.2124, 0.6889], [0.1882, -0.6454, -0.7403],
                            [-0.3107, -0.8815, 0.3556], [0.8460, -0.2471, 0.4723]], np.float32)
_RAY_DIRECTIONS /= np.linalg.norm(_RAY_DIRECTIONS, axis=1, keepdims=True)


def sharp_edges(faces: IntArray, face_normals: FloatArray, angle_deg: float) -> tuple[IntArray, IntArray]:
    """Edges of a welded mesh whose two faces' normals differ by more than ``angle_deg``.

    Returns (E, 2) vertex indices and (E, 2) indices of the two adjacent faces; edges not shared by exactly
    two faces are left out.
    """
    f = np.asarray(faces, np.int64)
    edges = np.stack([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], axis=1).reshape(-1, 2)
    face_of = np.repeat(np.arange(len(f)), 3)
    key = np.sort(edges, axis=1)
    order = np.lexsort((key[:, 1], key[:, 0]))
    key, face_of = key[order], face_of[order]
    _, start, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    pairs = start[counts == 2]
    fa, fb = face_of[pairs], face_of[pairs + 1]
    cos = np.einsum("ij,ij->i", face_normals[fa], face_normals[fb])
    sharp = cos < np.cos(np.radians(angle_deg))
    return key[pairs[sharp]], np.stack([fa[sharp], fb[sharp]], axis=1)


def point_triangle_distance(points: FloatArray, a: FloatArray, b: FloatArray, c: FloatArray) -> FloatArray:
    """Exact (float64) distance from each point to the triangle (a, b, c) of the same row; all inputs (n, 3)."""
    ab, ac = b - a, c - a
    n = np.cross(ab, ac)
    nn = np.einsum("ij,ij->i", n, n)
    ap = points - a
    # barycentrics of the projection onto the plane (valid for non-degenerate triangles)
    safe = np.where(nn > 0, nn, 1.0)
    v = np.einsum("ij,ij->i", np.cross(ap, ac), n) / safe
    w = np.einsum("ij,ij->i", np.cross(ab, ap), n) / safe
    inside = (nn > 0) & (v >= 0) & (w >= 0) & (v + w <= 1)
    plane = np.abs(np.einsum("ij,ij->i", ap, n)) / np.sqrt(safe)

    def segment(p0: FloatArray, p1: FloatArray) -> FloatArray:
        d = p1 - p0
        dd = np.einsum("ij,ij->i", d, d)
        t = np.clip(np.einsum("ij,ij->i", points - p0, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
        return np.linalg.norm(points - (p0 + t[:, None] * d), axis=1)

    edge = np.minimum(np.minimum(segment(a, b), segment(b, c)), segment(c, a))
    return np.where(inside, plane, edge)


@dataclass
class SurfaceSamples:
    """Points on the surface: ``points`` (n, 3), unit outward ``normals`` (n, 3), ``part`` index (n,) and, for
    sharp-edge samples, ``on_edge`` (n,): False where a shape without visible sharp edges got surface points."""

    points: FloatArray
    normals: FloatArray
    part: IntArray
    on_edge: BoolArray | None = None


@dataclass(eq=False)
class _Part:
    vertices: FloatArray
    faces: IntArray

    @cached_property
    def cross(self) -> FloatArray:
        v = self.vertices[self.faces]
        return np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])

    @cached_property
    def normals(self) -> FloatArray:
        length = np.linalg.norm(self.cross, axis=1, keepdims=True)
        return np.divide(self.cross, length, out=np.zeros_like(self.cross), where=length > 0)

    @cached_property
    def areas(self) -> FloatArray:
        return 0.5 * np.linalg.norm(self.cross, axis=1)

    @cached_property
    def bounds(self) -> FloatArray:
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    @cached_property
    def edge_neighbours(self) -> IntArray:
        """(F, 3) faces sharing an edge with each face (-1 where none)."""
        f = self.faces
        key = np.sort(np.stack([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], axis=1).reshape(-1, 2), axis=1)
        face_of = np.repeat(np.arange(len(f)), 3)
        order = np.lexsort((key[:, 1], key[:, 0]))
        key, face_of = key[order], face_of[order]
        i = np.flatnonzero(np.all(key[1:] == key[:-1], axis=1))
        a = np.concatenate([face_of[i], face_of[i + 1]])
        b = np.concatenate([face_of[i + 1], face_of[i]])
        order = np.argsort(a, kind="stable")
        a, b = a[order], b[order]
        rank = np.arange(len(a)) - np.searchsorted(a, a)
        keep = rank < 3
        out = np.full((len(f), 3), -1, np.int64)
        out[a[keep], rank[keep]] = b[keep]
        return out


def _o3d() -> Any:
    try:
        import open3d as o3d
    except ImportError as exc:  # pragma: no cover - a pinned dependency
        raise DependencyError("point sampling needs open3d: pip install open3d==0.20.0") from exc
    return o3d


@dataclass(eq=False)
class PartSolids:
    """The closed parts of an asset (or any list of closed meshes) and queries about their union."""

    meshes: list[Mesh]
    eps: float = 1e-4
    """Offset along the normal for the "hidden by another part" test, in the meshes' units."""
    rays: int = 3
    """Rays per inside test (odd, at most 5); when they disagree the winding number decides."""
    threads: int = 0
    """Open3D threads per query (0: all cores)."""
    backend: str = "open3d"
    """Query engine: ``open3d`` (BVH and ray parity) or ``torch`` (exact brute force; see the module doc)."""
    device: str = "cpu"
    """Torch device of the ``torch`` backend (cpu or cuda)."""
    _parts: list[_Part] = field(init=False, repr=False)
    _cache: dict[Any, Any] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not self.meshes:
            raise InvalidInputError("need at least one part mesh")
        if self.rays not in (1, 3, 5):
            raise InvalidInputError(f"rays must be 1, 3 or 5, got {self.rays}")
        if self.backend not in QUERY_BACKENDS:
            raise InvalidInputError(f"backend must be one of {', '.join(QUERY_BACKENDS)}, got {self.backend!r}")
        if self.backend == "torch":  # synth may not import seed3d.nn (DESIGN.md's arrows): checked here
            import torch

            if self.device not in ("cpu", "cuda") or (self.device == "cuda" and not torch.cuda.is_available()):
                raise InvalidInputError(f"device must be cpu or cuda (cuda available: {torch.cuda.is_available()}), "
                                        f"got {self.device!r}")
        self._parts = []
        for i, m in enumerate(self.meshes):
            welded = m.welded()
            v, f = welded.vertices, welded.faces
            if not len(f):
                raise AssetFormatError(f"part {i} has no faces")
            self._parts.append(_Part(v, f))

    @classmethod
    def from_asset(cls, asset: Asset, offset: FloatArray = (0.0, 0.0, 0.0), scale: float = 1.0,
                   **kwargs: Any) -> PartSolids:
        """The parts of ``asset`` at rest, mapped to ``(vertices - offset) * scale``; part i is ``asset.parts[i]``."""
        if not scale > 0:
            raise InvalidInputError(f"scale must be positive, got {scale}")
        off = np.asarray(offset, np.float64)
        return cls([Mesh((p.mesh.vertices - off) * scale, p.mesh.faces) for p in asset.parts], **kwargs)

    # ---- properties
    @property
    def num_parts(self) -> int:
        """Number of parts."""
        return len(self._parts)

    def part_mesh(self, i: int) -> tuple[FloatArray, IntArray]:
        """Welded vertices and faces of part ``i``."""
        return self._parts[i].vertices, self._parts[i].faces

    @cached_property
    def bounds(self) -> FloatArray:
        """(2, 3) bounds of all parts."""
        b = np.stack([p.bounds for p in self._parts])
        return np.stack([b[:, 0].min(axis=0), b[:, 1].max(axis=0)])

    @cached_property
    def part_volumes(self) -> FloatArray:
        """(P,) enclosed volume of each part (positive when its faces point outward)."""
        out = []
        for p in self._parts:
            v = p.vertices[p.faces]
            out.append(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6.0)
        return np.asarray(out)

    def check_closed(self) -> None:
        """Raise ``AssetFormatError`` unless every part is closed (each edge used once in each direction) and
        encloses a positive volume."""
        for i, p in enumerate(self._parts):
            f = p.faces
            directed = np.stack([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], axis=1).reshape(-1, 2)
            n = len(p.vertices)
            code = directed[:, 0] * n + directed[:, 1]
            rev = directed[:, 1] * n + directed[:, 0]
            if len(np.unique(code)) != len(code) or not np.isin(rev, code).all():
                raise AssetFormatError(f"part {i} is not a closed, consistently oriented mesh")
            if not self.part_volumes[i] > 0:
                raise AssetFormatError(f"part {i} has its faces pointing inward (volume {self.part_volumes[i]:.3g})")

    # ---- Open3D scenes
    def _scene(self, key: int) -> Any:
        """Scene of part ``key``, or of every part (key -1, geometry id = part index)."""
        if key not in self._cache:
            o3d = _o3d()
            scene = o3d.t.geometry.RaycastingScene()
            for p in self._parts if key < 0 else [self._parts[key]]:
                scene.add_triangles(o3d.core.Tensor(p.vertices.astype(np.float32)),
                                    o3d.core.Tensor(p.faces.astype(np.uint32)))
            self._cache[key] = scene
        return self._cache[key]

    def _torch(self, key: int) -> _TorchTriangles:
        """Brute-force query helper of part ``key``, or of every part (key -1, faces in global order)."""
        name = ("torch", key)
        if name not in self._cache:
            tri = self._faces_all[0] if key < 0 else self._parts[key].vertices[self._parts[key].faces]
            self._cache[name] = _TorchTriangles(tri, self.device)
        return self._cache[name]

    def _tensor(self, points: FloatArray) -> Any:
        return _o3d().core.Tensor(np.ascontiguousarray(points, np.float32).reshape(-1, 3))

    # ---- queries
    def inside_part(self, j: int, points: FloatArray) -> BoolArray:
        """Whether each of (n, 3) points is inside part ``j``: ray parity along ``rays`` fixed oblique
        directions; where they disagree (a ray slipped through a float32 crack between triangles or grazed an
        edge) the exact winding number decides."""
        points = np.asarray(points, np.float64).reshape(-1, 3)
        if self.backend == "torch":
            return self._torch(j).winding(points) > 0.5
        o3d = _o3d()
        votes = np.zeros(len(points), np.int64)
        origins = np.ascontiguousarray(points, np.float32)
        for d in _RAY_DIRECTIONS[:self.rays]:
            rays = np.concatenate([origins, np.broadcast_to(d, origins.shape)], axis=1)
            counts = self._scene(j).count_intersections(o3d.core.Tensor(rays), nthreads=self.threads)
            votes += counts.numpy().astype(np.int64) % 2
        out = votes * 2 > self.rays
        split = np.flatnonzero((votes > 0) & (votes < self.rays))
        if len(split):
            v, f = self._parts[j].vertices, self._parts[j].faces
            out[split] = winding_number(points[split], v, f) > 0.5
        return out

    def inside(self, points: FloatArray, exclude: IntArray | None = None) -> BoolArray:
        """Whether each of (n, 3) points is inside some part (other than ``exclude[k]`` for point k, if given)."""
        points = np.asarray(points, np.float64).reshape(-1, 3)
        out = np.zeros(len(points), bool)
        for j, part in enumerate(self._parts):
            lo, hi = part.bounds
            test = np.all((points >= lo) & (points <= hi), axis=1) & ~out
            if exclude is not None:
                test &= exclude != j
            idx = np.flatnonzero(test)
            if len(idx):
                out[idx] = self.inside_part(j, points[idx])
        return out

    @cached_property
    def _face_offsets(self) -> IntArray:
        return np.concatenate([[0], np.cumsum([len(p.faces) for p in self._parts])]).astype(np.int64)

    @cached_property
    def _neighbours_all(self) -> IntArray:
        nb = [np.where(p.edge_neighbours >= 0, p.edge_neighbours + o, -1)
              for p, o in zip(self._parts, self._face_offsets, strict=False)]
        return np.concatenate(nb)

    def _nearest(self, points: FloatArray) -> tuple[FloatArray, IntArray]:
        """Exact distance and global face index of the nearest face: Open3D's BVH picks a face (its float32
        closest-point test errs by up to ~1e-3 on long thin triangles), then the distance to that face and its
        edge neighbours is computed in float64 and the smallest kept."""
        points = np.asarray(points, np.float64).reshape(-1, 3)
        if self.backend == "torch":
            face = self._torch(-1).nearest_face(points)
        else:
            hit = self._scene(-1).compute_closest_points(self._tensor(points), nthreads=self.threads)
            face = self._face_offsets[hit["geometry_ids"].numpy().astype(np.int64)] \
                + hit["primitive_ids"].numpy().astype(np.int64)
        tri = self._faces_all[0]
        cand = np.concatenate([face[:, None], self._neighbours_all[face]], axis=1)
        best, best_face = np.full(len(points), np.inf), face.copy()
        for k in range(cand.shape[1]):
            ok = cand[:, k] >= 0
            t = tri[np.where(ok, cand[:, k], 0)]
            d = np.where(ok, point_triangle_distance(points, t[:, 0], t[:, 1], t[:, 2]), np.inf)
            better = d < best
            best, best_face = np.where(better, d, best), np.where(better, cand[:, k], best_face)
        return best, best_face

    def unsigned_distance(self, points: FloatArray) -> FloatArray:
        """Distance from each of (n, 3) points to the nearest part surface (float64; see ``_nearest``)."""
        return self._nearest(points)[0]

    def signed_distance(self, points: FloatArray) -> FloatArray:
        """Signed distance to the union of the parts (negative inside; see the module doc for its accuracy)."""
        points = np.asarray(points, np.float64).reshape(-1, 3)
        d = self.unsigned_distance(points)
        return np.where(self.inside(points), -d, d)

    def nearest_part(self, points: FloatArray) -> IntArray:
        """Index of the part whose surface is nearest to each of (n, 3) points."""
        return self._faces_all[3][self._nearest(points)[1]]

    # ---- sampling
    @cached_property
    def _faces_all(self) -> tuple[FloatArray, FloatArray, FloatArray, IntArray]:
        """Every part's triangles (F, 3, 3), unit normals (F, 3), cumulative areas (F,) and part index (F,)."""
        return (np.concatenate([p.vertices[p.faces] for p in self._parts]),
                np.concatenate([p.normals for p in self._parts]),
                np.cumsum(np.concatenate([p.areas for p in self._parts])),
                np.repeat(np.arange(self.num_parts), [len(p.faces) for p in self._parts]))

    def _draw_surface(self, n: int, rng: np.random.Generator) -> tuple[SurfaceSamples, FloatArray]:
        """``n`` points by area on all parts, and their probe (``eps`` along the normal) for the hidden test."""
        tri, normals, cdf, part_of = self._faces_all
        face = np.minimum(np.searchsorted(cdf, rng.uniform(0.0, cdf[-1], n), side="right"), len(cdf) - 1)
        r1, r2 = rng.uniform(size=(2, n))
        s = np.sqrt(r1)
        w = np.stack([1.0 - s, s * (1.0 - r2), s * r2], axis=1)
        points = np.einsum("ij,ijk->ik", w, tri[face])
        return SurfaceSamples(points, normals[face], part_of[face]), (points + self.eps * normals[face])[None]

    def _edge_segments(self, angle_deg: float) -> dict[str, np.ndarray] | None:
        """Sharp edges of every part: ends ``a``, ``b``, mean normal, part, and per face side a probe direction
        (its normal plus the in-plane direction from the edge into that face)."""
        key = f"edges/{angle_deg}"
        if key not in self._cache:
            parts = []
            for i, p in enumerate(self._parts):
                edges, adj = sharp_edges(p.faces, p.normals, angle_deg)
                if not len(edges):
                    continue
                a, b = p.vertices[edges[:, 0]], p.vertices[edges[:, 1]]
                e = (b - a) / np.maximum(np.linalg.norm(b - a, axis=1, keepdims=True), 1e-300)
                probes = []
                for side in (0, 1):
                    n_face = p.normals[adj[:, side]]
                    into = np.cross(n_face, e)
                    centroid = p.vertices[p.faces[adj[:, side]]].mean(axis=1)
                    into *= np.where(np.einsum("ij,ij->i", into, centroid - a) < 0, -1.0, 1.0)[:, None]
                    probes.append(n_face + into)
                mean = p.normals[adj[:, 0]] + p.normals[adj[:, 1]]
                mean /= np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
                parts.append({"a": a, "b": b, "normal": mean, "part": np.full(len(edges), i),
                              "probe0": probes[0], "probe1": probes[1]})
            self._cache[key] = {k: np.concatenate([d[k] for d in parts]) for k in parts[0]} if parts else None
        return self._cache[key]

    def _draw_edges(self, n: int, rng: np.random.Generator, angle_deg: float
                    ) -> tuple[SurfaceSamples, FloatArray] | None:
        """``n`` points by length on sharp edges, with one probe per adjacent face for the hidden test."""
        seg = self._edge_segments(angle_deg)
        if seg is None:
            return None
        a, b = seg["a"], seg["b"]
        cdf = np.cumsum(np.linalg.norm(b - a, axis=1))
        pick = np.minimum(np.searchsorted(cdf, rng.uniform(0.0, cdf[-1], n), side="right"), len(a) - 1)
        t = rng.uniform(size=(n, 1))
        points = a[pick] + t * (b[pick] - a[pick])
        probes = np.stack([points + self.eps * seg["probe0"][pick], points + self.eps * seg["probe1"][pick]])
        return SurfaceSamples(points, seg["normal"][pick], seg["part"][pick], np.ones(n, bool)), probes

    def _visible(self, draw: Any, n: int, rng: np.random.Generator, rounds: int = 8) -> SurfaceSamples | None:
        """``n`` samples from ``draw`` none of whose probes lies inside another part (the sample is on the
        union's surface), drawing again (twice as many each round) while too few survive."""
        kept: list[SurfaceSamples] = []
        have, batch = 0, max(n + n // 4, 16)
        for _ in range(rounds):
            drawn = draw(batch, rng)
            if drawn is None:
                return None
            s, probes = drawn
            keep = np.ones(batch, bool)
            for probe in probes:
                keep &= ~self.inside(probe, exclude=s.part)
            kept.append(SurfaceSamples(s.points[keep], s.normals[keep], s.part[keep],
                                       None if s.on_edge is None else s.on_edge[keep]))
            have += int(keep.sum())
            if have >= n:
                break
            batch *= 2
        if have == 0:
            return None
        out = SurfaceSamples(*(np.concatenate([getattr(k, f) for k in kept])
                               for f in ("points", "normals", "part")),
                             None if kept[0].on_edge is None else np.concatenate([k.on_edge for k in kept]))
        idx = np.arange(n) % have  # fewer than n visible after every round: repeat (only on degenerate shapes)
        return SurfaceSamples(out.points[idx], out.normals[idx], out.part[idx],
                              None if out.on_edge is None else out.on_edge[idx])

    def sample_surface(self, n: int, rng: np.random.Generator) -> SurfaceSamples:
        """``n`` points uniform by area on the union's surface, with outward unit normals and part indices."""
        if n < 0:
            raise InvalidInputError(f"number of samples must be >= 0, got {n}")
        out = self._visible(self._draw_surface, n, rng)
        if out is None:
            raise AssetFormatError("every surface sample is hidden inside another part")
        return out

    def sample_sharp(self, n: int, rng: np.random.Generator, angle_deg: float = 30.0) -> SurfaceSamples:
        """``n`` points uniform by length on visible sharp edges (normal: mean of the two faces' normals).

        A shape without visible sharp edges gets surface samples instead, flagged ``on_edge = False``.
        """
        if n < 0:
            raise InvalidInputError(f"number of samples must be >= 0, got {n}")
        out = self._visible(lambda k, r: self._draw_edges(k, r, angle_deg), n, rng)
        if out is None:
            out = self.sample_surface(n, rng)
            out.on_edge = np.zeros(n, bool)
        return out


QUERY_BACKENDS: tuple[str, ...] = ("open3d", "torch")


class _TorchTriangles:
    """Triangles (F, 3, 3) on a torch device, answering exact float64 brute-force queries in chunks of about
    ``pairs`` point-face pairs."""

    def __init__(self, triangles: FloatArray, device: str, pairs: int = 1 << 22) -> None:
        import torch

        self.torch = torch
        self.tri = torch.as_tensor(np.asarray(triangles, np.float64), device=device)
        self.device = device
        self.chunk = max(1, pairs // max(len(self.tri), 1))

    def _chunks(self, points: FloatArray) -> Any:
        pts = self.torch.as_tensor(np.asarray(points, np.float64).reshape(-1, 3), device=self.device)
        for start in range(0, len(pts), self.chunk):
            yield pts[start:start + self.chunk]

    def winding(self, points: FloatArray) -> FloatArray:
        """Generalised winding number of each point (van Oosterom–Strackee, as ``winding_number``)."""
        torch = self.torch
        out = []
        for p in self._chunks(points):
            d = self.tri[None] - p[:, None, None, :]  # (c, F, 3, 3)
            a, b, c = d[..., 0, :], d[..., 1, :], d[..., 2, :]
            la, lb, lc = (x.norm(dim=-1) for x in (a, b, c))
            det = (a * torch.linalg.cross(b, c)).sum(-1)
            den = la * lb * lc + (a * b).sum(-1) * lc + (b * c).sum(-1) * la + (c * a).sum(-1) * lb
            out.append(torch.atan2(det, den).sum(1) / (2.0 * np.pi))
        return torch.cat(out).cpu().numpy() if out else np.zeros(0)

    def nearest_face(self, points: FloatArray) -> IntArray:
        """Index of the face nearest to each point (exact distances, as ``point_triangle_distance``)."""
        torch = self.torch
        a, b, c = self.tri[None, :, 0], self.tri[None, :, 1], self.tri[None, :, 2]
        ab, ac = b - a, c - a
        n = torch.linalg.cross(ab, ac)
        nn = (n * n).sum(-1)
        safe = torch.where(nn > 0, nn, torch.ones_like(nn))
        out = []
        for p in self._chunks(points):
            ap = p[:, None] - a
            v = (torch.linalg.cross(ap, ac.expand_as(ap)) * n).sum(-1) / safe
            w = (torch.linalg.cross(ab.expand_as(ap), ap) * n).sum(-1) / safe
            inside = (nn > 0) & (v >= 0) & (w >= 0) & (v + w <= 1)
            plane = (ap * n).sum(-1).abs() / safe.sqrt()

            def segment(p0: Any, p1: Any, p: Any = p) -> Any:
                e = p1 - p0
                ee = (e * e).sum(-1)
                q = p[:, None] - p0
                t = ((q * e).sum(-1) / torch.where(ee > 0, ee, torch.ones_like(ee))).clamp(0.0, 1.0)
                return (q - t[..., None] * e).norm(dim=-1)

            edge = torch.minimum(torch.minimum(segment(a, b), segment(b, c)), segment(c, a))
            out.append(torch.where(inside, plane, edge).argmin(1))
        return torch.cat(out).cpu().numpy().astype(np.int64) if out else np.zeros(0, np.int64)


def winding_number(points: FloatArray, vertices: FloatArray, faces: IntArray, chunk: int = 128) -> FloatArray:
    """Generalised winding number of (n, 3) points w.r.t. a triangle mesh: 1 inside, 0 outside a closed solid.

    Exact (coincident opposite faces cancel) but O(n × faces): a reference for checks, not for building.
    """
    points = np.asarray(points, np.float64).reshape(-1, 3)
    tri = np.asarray(vertices, np.float64)[np.asarray(faces, np.int64)]  # (F, 3, 3)
    out = np.empty(len(points))
    for start in range(0, len(points), chunk):
        d = tri[None] - points[start:start + chunk, None, None, :]  # (c, F, 3, 3)
        a, b, c = d[..., 0, :], d[..., 1, :], d[..., 2, :]
        la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
        det = np.einsum("...i,...i->...", a, np.cross(b, c))
        den = (la * lb * lc + np.einsum("...i,...i->...", a, b) * lc + np.einsum("...i,...i->...", b, c) * la
               + np.einsum("...i,...i->...", c, a) * lb)
        out[start:start + chunk] = np.arctan2(det, den).sum(axis=1) / (2.0 * np.pi)
    return out
