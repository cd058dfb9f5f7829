"""Geometry helpers of the articulation stage: surface sampling, point-to-mesh distances, oriented boxes,
rotational symmetry and line distances (joint motions: ``seed3d.asset.joint_motion``).

Everything is vectorised over points and faces; loops run over parts, axes or joint values only.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from seed3d.asset import Mesh, rotation
from seed3d.errors import DependencyError
from seed3d.typed import FloatArray, IntArray

#: The three world axes (rows).
WORLD_AXES = np.eye(3)


def stable_seed(*keys: object) -> int:
    """A deterministic 32-bit seed from strings/numbers (crc32, not Python's salted ``hash``)."""
    return zlib.crc32("/".join(str(k) for k in keys).encode())


def unit(v: FloatArray) -> FloatArray:
    """``v`` scaled to length 1 (a zero vector stays zero)."""
    v = np.asarray(v, np.float64)
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-15 else v * 0.0


def face_areas_normals(mesh: Mesh) -> tuple[FloatArray, FloatArray]:
    """Per-face area (F,) and unit normal (F, 3) of a triangle mesh."""
    return mesh.face_areas_normals()


@dataclass
class Samples:
    """Area-weighted surface samples of one mesh: points, outward normals and the area each one stands for."""

    points: FloatArray
    normals: FloatArray
    weight: float
    """Surface area per sample (m²): total area / count."""
    faces: IntArray | None = None
    """The face each sample lies on."""

    @property
    def area(self) -> float:
        """Total area the samples cover."""
        return self.weight * len(self.points)


def sample_surface(mesh: Mesh, count: int, seed: int, faces: IntArray | None = None) -> Samples:
    """``count`` points spread over the surface (or over ``faces`` only) in proportion to area (seeded)."""
    areas = mesh.face_areas_normals()[0]
    total = float(areas.sum() if faces is None else areas[np.asarray(faces, np.int64)].sum())
    if total <= 0 or count <= 0:
        return Samples(np.zeros((0, 3)), np.zeros((0, 3)), 0.0, np.zeros(0, np.int64))
    points, normals, face = mesh.sample_surface(count, seed, faces)
    return Samples(points, normals, total / count, face)


class DistanceField:
    """Unsigned distance from query points to one triangle mesh (open3d ray-casting scene, exact)."""

    def __init__(self, mesh: Mesh) -> None:
        try:
            import open3d as o3d
        except ImportError as exc:  # pragma: no cover - open3d is a pinned dependency
            raise DependencyError("articulation needs open3d for point-to-mesh distances: pip install open3d") \
                from exc
        self._scene = o3d.t.geometry.RaycastingScene()
        self._scene.add_triangles(o3d.core.Tensor(mesh.vertices.astype(np.float32)),
                                  o3d.core.Tensor(mesh.faces.astype(np.uint32)))
        self._o3d = o3d

    def distance(self, points: FloatArray) -> FloatArray:
        """Distance (m) from each point (N, 3) to the mesh surface."""
        if not len(points):
            return np.zeros(0)
        q = self._o3d.core.Tensor(np.ascontiguousarray(points, dtype=np.float32))
        return self._scene.compute_distance(q).numpy().astype(np.float64)

    def ray_distance(self, origins: FloatArray, direction: FloatArray) -> FloatArray:
        """Distance (m) each ray from ``origins`` (N, 3) along ``direction`` travels before it meets the mesh
        (inf when it never does)."""
        if not len(origins):
            return np.zeros(0)
        d = np.broadcast_to(np.asarray(direction, np.float64), np.shape(origins))
        rays = np.ascontiguousarray(np.concatenate([origins, d], axis=1), dtype=np.float32)
        return self._scene.cast_rays(self._o3d.core.Tensor(rays))["t_hit"].numpy().astype(np.float64)

    def closest(self, points: FloatArray) -> FloatArray:
        """The closest point on the mesh surface to each point (N, 3)."""
        if not len(points):
            return np.zeros((0, 3))
        q = self._o3d.core.Tensor(np.ascontiguousarray(points, dtype=np.float32))
        return self._scene.compute_closest_points(q)["points"].numpy().astype(np.float64)


# --------------------------------------------------------------------------------------------- boxes


@dataclass
class Box:
    """An oriented box: ``centre``, ``axes`` (3x3, one unit axis per row) and full ``extents`` along them."""

    centre: FloatArray
    axes: FloatArray
    extents: FloatArray

    def local(self, points: FloatArray) -> FloatArray:
        """Coordinates of ``points`` along the box axes, relative to the centre."""
        return (np.asarray(points) - self.centre) @ self.axes.T

    @property
    def diagonal(self) -> float:
        """Length of the box diagonal."""
        return float(np.linalg.norm(self.extents))

    def order(self) -> IntArray:
        """Axis indices from the thinnest extent to the longest."""
        return np.argsort(self.extents, kind="stable")


def _fit_box(points: FloatArray, axes: FloatArray) -> Box:
    loc = points @ axes.T
    lo, hi = loc.min(axis=0), loc.max(axis=0)
    return Box(((lo + hi) / 2) @ axes, axes, hi - lo)


def oriented_box(points: FloatArray, prefer_world: float = 1.2) -> Box:
    """A tight oriented box of ``points``; the world-aligned box wins unless the minimum-volume box is more
    than ``prefer_world`` times smaller (objects come in a canonical frame, so their parts mostly align)."""
    points = np.asarray(points, np.float64)
    world = _fit_box(points, WORLD_AXES)
    try:
        import trimesh

        transform, _ = trimesh.bounds.oriented_bounds(points)
        rot = np.asarray(transform)[:3, :3]  # maps world to box frame: rows are the box axes
        obb = _fit_box(points, rot)
    except Exception:  # degenerate hulls (flat or tiny point sets): the world box will do
        return world
    vw = float(np.prod(np.maximum(world.extents, 1e-9)))
    vo = float(np.prod(np.maximum(obb.extents, 1e-9)))
    if vo * prefer_world >= vw:
        return world
    axes = np.stack([snap(a) for a in obb.axes])
    return _fit_box(points, axes) if abs(abs(np.linalg.det(axes)) - 1) < 1e-6 else obb


def snap(direction: FloatArray, tolerance_deg: float = 2.0) -> FloatArray:
    """A unit direction, snapped onto the nearest world axis when within ``tolerance_deg``."""
    d = unit(direction)
    k = int(np.argmax(np.abs(d)))
    if np.degrees(np.arccos(min(1.0, abs(float(d[k]))))) <= tolerance_deg:
        out = np.zeros(3)
        out[k] = np.sign(d[k])
        return out
    return d


def canonical_sign(direction: FloatArray) -> FloatArray:
    """``direction`` or its opposite, whichever has a positive largest component (for sign-free axes)."""
    d = unit(direction)
    k = int(np.argmax(np.abs(d)))
    return d if d[k] >= 0 else -d


# --------------------------------------------------------------------------------------------- measures


def line_distance(p1: FloatArray, a1: FloatArray, p2: FloatArray, a2: FloatArray) -> float:
    """Distance between the lines ``p1 + t a1`` and ``p2 + s a2`` (parallel lines handled)."""
    a1, a2 = unit(a1), unit(a2)
    d = np.asarray(p2, np.float64) - np.asarray(p1, np.float64)
    c = np.cross(a1, a2)
    n = float(np.linalg.norm(c))
    if n < 1e-6:
        return float(np.linalg.norm(np.cross(d, a1)))
    return float(abs(d @ c) / n)


def axis_angle(a: FloatArray, b: FloatArray) -> float:
    """Angle (rad) between two axes, sign ignored: min(angle(a, b), angle(a, -b))."""
    c = abs(float(unit(a) @ unit(b)))
    return float(np.arccos(min(1.0, c)))


def symmetry_error(points: FloatArray, centre: FloatArray, axis: FloatArray, scale: float,
                   angles: tuple[float, ...] = (0.61, 1.37, 2.49)) -> float:
    """How far ``points`` are from being unchanged by turns about the line (``centre``, ``axis``), over ``scale``.

    The samples are split in two halves; one half, turned by a few angles that no regular polygon shares, is
    matched to the other half by nearest neighbour and compared with the unturned match (which measures the
    sampling density alone). The result is the worst increase of the 75th-percentile distance over ``scale``:
    about 0 for a solid of revolution (a coarse polygon or a grip adds a little), large otherwise.
    """
    from scipy.spatial import cKDTree

    if len(points) < 16 or scale <= 0:
        return float("inf")
    a, b = points[0::2], points[1::2]
    tree = cKDTree(b)
    base = float(np.percentile(tree.query(a, k=1)[0], 75))
    c = np.asarray(centre, np.float64)
    worst = 0.0
    for ang in angles:
        turned = (a - c) @ rotation(axis, ang).T + c
        d, _ = tree.query(turned, k=1)
        worst = max(worst, float(np.percentile(d, 75)) - base)
    return worst / scale


def principal_axes(points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Centroid, eigenvalues (ascending) and principal axes (rows) of a point set."""
    c = points.mean(axis=0)
    cov = np.cov((points - c).T) if len(points) > 3 else np.eye(3)
    vals, vecs = np.linalg.eigh(cov)
    return c, vals, vecs.T


def circle_centre(points2d: FloatArray) -> tuple[FloatArray, float, float]:
    """Least-squares circle through 2-D points: centre, radius and RMS residual (Kåsa fit)."""
    x, y = points2d[:, 0], points2d[:, 1]
    a = np.stack([2 * x, 2 * y, np.ones_like(x)], axis=1)
    b = x * x + y * y
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy, k = sol
    r = float(np.sqrt(max(k + cx * cx + cy * cy, 0.0)))
    res = float(np.sqrt(np.mean((np.hypot(x - cx, y - cy) - r) ** 2)))
    return np.array([cx, cy]), r, res


def plane_basis(normal: FloatArray) -> FloatArray:
    """Two unit vectors (rows) spanning the plane orthogonal to ``normal``."""
    n = unit(normal)
    helper = WORLD_AXES[int(np.argmin(np.abs(n)))]
    u = unit(np.cross(n, helper))
    return np.stack([u, np.cross(n, u)])
