"""The one data model every stage passes on: ``Asset``, ``Part``, ``Joint``, materials and ``Scene``.

Conventions (see DESIGN.md): meters, right-handed, +Z up, front faces +X, origin at the centre of the
bottom of the bounding box. Everything in an ``Asset`` is expressed in the asset frame at the rest pose
(every joint at 0): part meshes, collision hulls, centres of mass, joint origins and axes. Exporters derive
link frames from joint origins.

An asset folder is ``asset.json`` (schema below, versioned) plus ``meshes/*.npz``, ``collision/*.npz`` and
``textures/*.png``; it round-trips losslessly and byte for byte. Exports live beside it at the paths in
``EXPORT_LAYOUT``. Every write goes to a temporary sibling and is renamed into place.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from seed3d.errors import AssetFormatError, DependencyError, InvalidInputError
from seed3d.typed import FloatArray, IntArray, PathType, UInt8Array

SCHEMA = "seed3d.asset"
SCHEMA_VERSION = 1
SCENE_SCHEMA = "seed3d.scene"

JointType = Literal["fixed", "revolute", "prismatic", "continuous"]
JOINT_TYPES: tuple[str, ...] = ("fixed", "revolute", "prismatic", "continuous")
MOVABLE_JOINT_TYPES: tuple[str, ...] = ("revolute", "prismatic", "continuous")

#: Semantic part labels the models know; other labels are allowed and treated as "other".
PART_LABELS: tuple[str, ...] = (
    "body", "door", "drawer", "lid", "handle", "knob", "button", "wheel", "leg", "seat", "back", "arm",
    "shelf", "top", "base", "screen", "keyboard", "spout", "lever", "shade", "bulb", "cushion", "frame",
    "panel", "tray", "other",
)

#: Labels that make a part the body everything else hangs from (articulation's root, completion's body), in order
#: of preference.
ROOT_LABELS: tuple[str, ...] = ("body", "top", "frame", "base", "seat")

#: Where an object is used (``metadata["mount"]``): it stands on the floor (or a table), is screwed to a wall, or
#: hangs from the ceiling.
MOUNTS: tuple[str, ...] = ("floor", "wall", "ceiling")
#: The mounts that hold an object's root fixed to the world (its wall, its ceiling): no floor under it.
FIXED_MOUNTS: tuple[str, ...] = ("wall", "ceiling")

#: Where the exporters put each format, relative to the asset (or output) folder; ``{name}`` is the asset name.
EXPORT_LAYOUT: dict[str, str] = {
    "glb": "{name}.glb",
    "urdf": "urdf/{name}.urdf",
    "mjcf": "mjcf/{name}.xml",
    "usd": "usd/{name}.usda",
    "usdz": "usd/{name}.usdz",
}


# --------------------------------------------------------------------------------------------- joint motions


def rotation(axis: FloatArray, angle: float) -> FloatArray:
    """3x3 rotation by ``angle`` radians about ``axis`` (right-hand rule; a zero axis gives the identity)."""
    a = np.asarray(axis, np.float64)
    n = float(np.linalg.norm(a))
    a = a / n if n > 1e-15 else a * 0.0
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def joint_motion(kind: str, axis: FloatArray, origin: FloatArray, value: float) -> FloatArray:
    """4x4 rigid motion of a joint's child (asset frame) at joint ``value`` (rad or m) instead of 0."""
    m = np.eye(4)
    if kind in ("revolute", "continuous"):
        r = rotation(axis, value)
        o = np.asarray(origin, np.float64)
        m[:3, :3] = r
        m[:3, 3] = o - r @ o
    elif kind == "prismatic":
        a = np.asarray(axis, np.float64)
        n = float(np.linalg.norm(a))
        m[:3, 3] = (a / n if n > 1e-15 else a * 0.0) * float(value)
    return m


# --------------------------------------------------------------------------------------------- atomic I/O


@contextlib.contextmanager
def atomic_dir(final: PathType, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary sibling folder that replaces ``final`` only when the block succeeds."""
    final = Path(final)
    if final.exists() and not overwrite:
        raise InvalidInputError(f"{final} exists; pass overwrite=True (CLI: --overwrite) to replace it")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent))
    try:
        yield tmp
        if final.exists():
            old = final.with_name(f".{final.name}.old-{os.getpid()}")
            os.replace(final, old)
            os.replace(tmp, final)
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        else:
            os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def atomic_file(final: PathType) -> Iterator[Path]:
    """Yield a temporary sibling path that is renamed onto ``final`` only when the block succeeds."""
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write an uncompressed-header, deflated .npz with fixed timestamps (byte-for-byte deterministic)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        raise AssetFormatError(f"{path}: file is missing")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise AssetFormatError(f"{path}: not a readable .npz array file ({exc})") from exc


# --------------------------------------------------------------------------------------------- geometry


@dataclass(eq=False)
class Mesh:
    """A triangle mesh in meters: ``vertices`` (N, 3) float64, ``faces`` (M, 3) int64, optional ``uv`` (N, 2).

    UVs follow OpenGL/trimesh: u to the right, v up, so uv (0, 0) is the bottom-left of a texture image.
    """

    vertices: FloatArray
    faces: IntArray
    uv: FloatArray | None = None

    def __post_init__(self) -> None:
        self.vertices = np.asarray(self.vertices, dtype=np.float64).reshape(-1, 3) if np.size(
            self.vertices
        ) else np.zeros((0, 3))
        faces = np.asarray(self.faces)
        if faces.size and not np.issubdtype(faces.dtype, np.integer):
            raise InvalidInputError(f"mesh faces must be integers, got {faces.dtype}")
        self.faces = faces.astype(np.int64).reshape(-1, 3) if faces.size else np.zeros((0, 3), np.int64)
        if self.faces.size and (self.faces.min() < 0 or self.faces.max() >= len(self.vertices)):
            raise InvalidInputError(
                f"mesh faces index vertices outside 0..{len(self.vertices) - 1}"
            )
        if self.uv is not None:
            self.uv = np.asarray(self.uv, dtype=np.float64)
            if self.uv.shape != (len(self.vertices), 2):
                raise InvalidInputError(f"mesh uv must be ({len(self.vertices)}, 2), got {self.uv.shape}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mesh):
            return NotImplemented
        same_uv = (self.uv is None and other.uv is None) or (
            self.uv is not None and other.uv is not None and np.array_equal(self.uv, other.uv)
        )
        return (
            np.array_equal(self.vertices, other.vertices)
            and np.array_equal(self.faces, other.faces)
            and same_uv
        )

    @property
    def bounds(self) -> FloatArray:
        """Axis-aligned bounds as a (2, 3) array [min, max]."""
        if not len(self.vertices):
            return np.zeros((2, 3))
        return np.stack([self.vertices.min(axis=0), self.vertices.max(axis=0)])

    def digest(self) -> str:
        """Stable sha256 of vertices and faces (the key of derived-data caches such as collision hulls)."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.vertices, dtype="<f8").tobytes())
        h.update(np.ascontiguousarray(self.faces, dtype="<i8").tobytes())
        return h.hexdigest()

    def translated(self, offset: FloatArray) -> Mesh:
        """A copy moved by ``offset``."""
        return Mesh(self.vertices + np.asarray(offset, dtype=np.float64), self.faces.copy(),
                    None if self.uv is None else self.uv.copy())

    def transformed(self, matrix: FloatArray) -> Mesh:
        """A copy transformed by a 4x4 homogeneous matrix (face winding kept; flipped if det < 0)."""
        m = np.asarray(matrix, dtype=np.float64)
        verts = self.vertices @ m[:3, :3].T + m[:3, 3]
        faces = self.faces.copy() if np.linalg.det(m[:3, :3]) >= 0 else self.faces[:, ::-1].copy()
        return Mesh(verts, faces, None if self.uv is None else self.uv.copy())

    def welded(self) -> Mesh:
        """A copy with vertices at exactly the same position merged and collapsed faces dropped (no UVs)."""
        if not len(self.faces):
            return Mesh(np.zeros((0, 3)), np.zeros((0, 3), np.int64))
        uniq, inverse = np.unique(self.vertices, axis=0, return_inverse=True)
        faces = inverse.reshape(-1)[self.faces]
        keep = (faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 0] != faces[:, 2])
        return Mesh(uniq, faces[keep])

    def face_areas_normals(self) -> tuple[FloatArray, FloatArray]:
        """Per-face area (F,) and unit normal (F, 3); a degenerate face gets a zero normal."""
        tri = self.vertices[self.faces]
        cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        norm = np.linalg.norm(cross, axis=1)
        normals = np.divide(cross, norm[:, None], out=np.zeros_like(cross), where=norm[:, None] > 1e-300)
        return 0.5 * norm, normals

    def sample_surface(self, count: int, seed: int, faces: IntArray | None = None
                       ) -> tuple[FloatArray, FloatArray, IntArray]:
        """``count`` points uniform by area on the surface (or on ``faces`` only), their face normals and face
        indices (seeded). Raises InvalidInputError when there is no area to sample."""
        areas, normals = self.face_areas_normals()
        pool = np.arange(len(areas)) if faces is None else np.asarray(faces, np.int64)
        sub = areas[pool]
        total = float(sub.sum())
        if total <= 0:
            raise InvalidInputError("the mesh has no surface area to sample")
        rng = np.random.default_rng(seed)
        face = pool[rng.choice(len(pool), size=count, p=sub / total)]
        r1, r2 = rng.random(count), rng.random(count)
        s = np.sqrt(r1)
        w = np.stack([1 - s, s * (1 - r2), s * r2], axis=1)
        points = np.einsum("ij,ijk->ik", w, self.vertices[self.faces[face]])
        return points, normals[face], face

    def sample_sharp_edges(self, count: int, seed: int, angle_deg: float = 30.0
                           ) -> tuple[FloatArray, FloatArray, np.ndarray]:
        """``count`` points uniform by length on the sharp edges (dihedral above ``angle_deg``) of the welded
        mesh, the mean normal of the two faces at each, and whether it lies on an edge: a mesh without sharp
        edges gives surface points flagged False (as the data set does)."""
        tm = self.welded().to_trimesh()
        sharp = np.asarray(tm.face_adjacency_angles) > np.radians(angle_deg)
        edges = np.asarray(tm.face_adjacency_edges)[sharp]
        pairs = np.asarray(tm.face_adjacency)[sharp]
        if not len(edges):
            pts, nrm, _ = self.sample_surface(count, seed + 1)
            return pts, nrm, np.zeros(count, bool)
        v = np.asarray(tm.vertices)
        rng = np.random.default_rng([seed, 1])
        length = np.linalg.norm(v[edges[:, 1]] - v[edges[:, 0]], axis=1)
        pick = rng.choice(len(edges), count, p=length / length.sum())
        t = rng.random(count)[:, None]
        pts = v[edges[pick, 0]] * (1 - t) + v[edges[pick, 1]] * t
        fn = np.asarray(tm.face_normals)
        nrm = fn[pairs[pick, 0]] + fn[pairs[pick, 1]]
        nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-12)
        return pts, nrm, np.ones(count, bool)

    def to_trimesh(self) -> Any:
        """This mesh as a ``trimesh.Trimesh`` (no processing, so indices are kept)."""
        import trimesh

        return trimesh.Trimesh(self.vertices.copy(), self.faces.copy(), process=False)

    def to_manifold(self, float32: bool = False) -> Any:
        """This mesh as a ``manifold3d.Manifold`` (vertices as they are: weld first where copies of a vertex should
        join). ``float32``: from positions rounded to float32, as mesh files keep them, and Manifold then works to
        float32's tolerance. A mesh that is not closed and manifold gives one whose ``status()`` is an error."""
        try:
            import manifold3d
        except ImportError as exc:  # pragma: no cover - a pinned dependency
            raise DependencyError("solid operations need manifold3d (pip install manifold3d)") from exc
        if float32:
            return manifold3d.Manifold(manifold3d.Mesh(vert_properties=np.ascontiguousarray(self.vertices, np.float32),
                                                       tri_verts=np.ascontiguousarray(self.faces, np.uint32)))
        return manifold3d.Manifold(manifold3d.Mesh64(vert_properties=np.ascontiguousarray(self.vertices, np.float64),
                                                     tri_verts=np.ascontiguousarray(self.faces, np.uint64)))

    @classmethod
    def from_manifold(cls, solid: Any) -> Mesh:
        """The surface of a ``manifold3d.Manifold`` (its first three vertex properties are the positions)."""
        out = solid.to_mesh64()
        return cls(np.array(out.vert_properties[:, :3], np.float64), np.array(out.tri_verts, np.int64))

    @classmethod
    def from_trimesh(cls, tm: Any) -> Mesh:
        """Wrap a ``trimesh.Trimesh``, keeping its UVs when it has them."""
        uv = getattr(getattr(tm, "visual", None), "uv", None)
        if uv is not None and len(uv) != len(tm.vertices):
            uv = None
        return cls(np.asarray(tm.vertices), np.asarray(tm.faces), None if uv is None else np.asarray(uv))

    @classmethod
    def concatenate(cls, meshes: list[Mesh]) -> Mesh:
        """Join meshes into one (UVs kept only when every mesh has them)."""
        if not meshes:
            return cls(np.zeros((0, 3)), np.zeros((0, 3), np.int64))
        offsets = np.cumsum([0] + [len(m.vertices) for m in meshes[:-1]])
        verts = np.concatenate([m.vertices for m in meshes])
        faces = np.concatenate([m.faces + o for m, o in zip(meshes, offsets, strict=True)])
        uv = np.concatenate([m.uv for m in meshes]) if all(m.uv is not None for m in meshes) else None
        return cls(verts, faces, uv)


# --------------------------------------------------------------------------------------------- materials


def _unit_float(value: float, what: str) -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"{what} must lie in [0, 1], got {value}")
    return value


def _texture(arr: UInt8Array | None, channels: tuple[int, ...], what: str) -> UInt8Array | None:
    if arr is None:
        return None
    arr = np.asarray(arr)
    if arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] not in channels:
        raise InvalidInputError(f"{what} must be an (H, W, {channels}) uint8 image, got {arr.dtype} {arr.shape}")
    return arr


@dataclass(eq=False)
class PBRMaterial:
    """glTF-style metallic-roughness material; factors multiply the maps when both are given.

    ``base_color`` is linear RGBA; ``base_color_map`` is an sRGB (H, W, 3|4) uint8 image;
    ``metallic_roughness_map`` packs roughness in G and metallic in B, as glTF does.
    """

    name: str = "default"
    base_color: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 1.0)
    metallic: float = 0.0
    roughness: float = 0.5
    base_color_map: UInt8Array | None = None
    metallic_roughness_map: UInt8Array | None = None

    def __post_init__(self) -> None:
        bc = tuple(float(c) for c in self.base_color)
        if len(bc) == 3:
            bc = (*bc, 1.0)
        if len(bc) != 4:
            raise InvalidInputError(f"base_color needs 3 or 4 components, got {len(bc)}")
        self.base_color = tuple(_unit_float(c, "base_color component") for c in bc)  # type: ignore[assignment]
        self.metallic = _unit_float(self.metallic, "metallic")
        self.roughness = _unit_float(self.roughness, "roughness")
        self.base_color_map = _texture(self.base_color_map, (3, 4), "base_color_map")
        self.metallic_roughness_map = _texture(self.metallic_roughness_map, (3,), "metallic_roughness_map")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PBRMaterial):
            return NotImplemented

        def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
            return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))

        return (
            (self.name, self.base_color, self.metallic, self.roughness)
            == (other.name, other.base_color, other.metallic, other.roughness)
            and same(self.base_color_map, other.base_color_map)
            and same(self.metallic_roughness_map, other.metallic_roughness_map)
        )


@dataclass
class PhysicalMaterial:
    """What a simulator needs of a material: density (kg/m³), Coulomb friction and restitution."""

    name: str = "plastic"
    density: float = 1100.0
    friction: float = 0.5
    restitution: float = 0.2

    def __post_init__(self) -> None:
        self.density, self.friction, self.restitution = (
            float(self.density), float(self.friction), float(self.restitution))
        if not self.density > 0:
            raise InvalidInputError(f"density of {self.name!r} must be positive, got {self.density}")
        if self.friction < 0 or not 0 <= self.restitution <= 1:
            raise InvalidInputError(
                f"{self.name!r}: friction must be >= 0 and restitution in [0, 1]")


@dataclass(eq=False)
class Inertial:
    """Mass (kg), centre of mass (asset frame) and inertia tensor about the centre of mass (asset axes).

    ``source`` says how it was obtained: ``mesh`` (watertight mesh × density), ``hull`` (convex hull of a
    mesh that is not watertight: an approximation, flagged in reports) or ``given``.
    """

    mass: float
    com: FloatArray
    inertia: FloatArray
    source: str = "mesh"

    def __post_init__(self) -> None:
        self.mass = float(self.mass)
        self.com = np.asarray(self.com, dtype=np.float64).reshape(3)
        self.inertia = np.asarray(self.inertia, dtype=np.float64).reshape(3, 3)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Inertial):
            return NotImplemented
        return (
            self.mass == other.mass and self.source == other.source
            and np.array_equal(self.com, other.com) and np.array_equal(self.inertia, other.inertia)
        )


# --------------------------------------------------------------------------------------------- parts, joints


@dataclass
class Part:
    """One rigid link: a mesh with its semantic label, materials, collision hulls and inertial."""

    name: str
    mesh: Mesh
    label: str = "body"
    material: PBRMaterial = field(default_factory=PBRMaterial)
    physical: PhysicalMaterial = field(default_factory=PhysicalMaterial)
    collision: list[Mesh] = field(default_factory=list)
    inertial: Inertial | None = None
    watertight: bool = True
    """Whether the asset promises this mesh is closed (validation checks the promise)."""

    def __post_init__(self) -> None:
        _check_name(self.name, "part")


@dataclass
class Joint:
    """A joint between two parts; ``origin`` and ``axis`` are in the asset frame at rest (joint value 0).

    ``lower``/``upper`` are radians (revolute) or meters (prismatic); continuous and fixed joints ignore them.
    ``damping`` and ``friction`` keep parts where they are put (a door must not swing by itself).
    """

    name: str
    type: str
    parent: str
    child: str
    origin: FloatArray = field(default_factory=lambda: np.zeros(3))
    axis: FloatArray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    lower: float = 0.0
    upper: float = 0.0
    effort: float = 50.0
    velocity: float = 2.0
    damping: float = 0.5
    friction: float = 0.1

    def __post_init__(self) -> None:
        _check_name(self.name, "joint")
        if self.type not in JOINT_TYPES:
            raise InvalidInputError(f"joint {self.name!r}: type must be one of {JOINT_TYPES}, got {self.type!r}")
        self.origin = np.asarray(self.origin, dtype=np.float64).reshape(3)
        self.axis = np.asarray(self.axis, dtype=np.float64).reshape(3)
        for attr in ("lower", "upper", "effort", "velocity", "damping", "friction"):
            setattr(self, attr, float(getattr(self, attr)))

    @property
    def movable(self) -> bool:
        """True for revolute, prismatic and continuous joints."""
        return self.type in MOVABLE_JOINT_TYPES

    @property
    def unit_axis(self) -> FloatArray:
        """The axis normalised to length 1; a zero or non-finite axis is an error."""
        n = float(np.linalg.norm(self.axis))
        if not np.isfinite(n) or n < 1e-12:
            raise AssetFormatError(f"joint {self.name!r}: axis {self.axis.tolist()} is zero or not finite")
        return self.axis / n

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Joint):
            return NotImplemented
        scalars = ("name", "type", "parent", "child", "lower", "upper", "effort", "velocity", "damping",
                   "friction")
        return all(getattr(self, a) == getattr(other, a) for a in scalars) and np.array_equal(
            self.origin, other.origin) and np.array_equal(self.axis, other.axis)


def _check_name(name: str, what: str) -> None:
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-" for c in name):
        raise InvalidInputError(f"{what} name must be non-empty letters, digits, '_' or '-', got {name!r}")


# --------------------------------------------------------------------------------------------- asset


@dataclass
class Asset:
    """A sim-ready object: parts linked by joints into one tree, plus metadata (prompt, seed, timings…).

    ``joints_known=False`` marks parts whose joints are not known yet (a segmented mesh before articulation):
    it has no joints, its first part stands for the root, and exporters refuse it until it is articulated.
    """

    name: str
    parts: list[Part]
    joints: list[Joint] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    joints_known: bool = True

    def __post_init__(self) -> None:
        _check_name(self.name, "asset")
        self.check_tree()

    # ---- structure
    def part(self, name: str) -> Part:
        """The part called ``name``."""
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(f"asset {self.name!r} has no part {name!r}")

    def joint_to(self, child: str) -> Joint | None:
        """The joint whose child is ``child`` (None for the root)."""
        return next((j for j in self.joints if j.child == child), None)

    @property
    def root(self) -> str:
        """Name of the root part (the one that is nobody's child; the first part while joints are unknown)."""
        if not self.joints_known:
            return self.parts[0].name
        children = {j.child for j in self.joints}
        return next(p.name for p in self.parts if p.name not in children)

    def children(self, parent: str) -> list[Joint]:
        """Joints whose parent is ``parent``, in asset order."""
        return [j for j in self.joints if j.parent == parent]

    def subtree(self, part: str) -> list[str]:
        """``part`` and every part below it in the joint tree."""
        out, stack = [], [part]
        while stack:
            name = stack.pop()
            out.append(name)
            stack.extend(j.child for j in self.children(name))
        return out

    def tree_order(self) -> list[str]:
        """Part names, parents before children (depth first from the root; asset order while joints are unknown)."""
        if not self.joints_known:
            return [p.name for p in self.parts]
        order: list[str] = []
        stack = [self.root]
        while stack:
            name = stack.pop()
            order.append(name)
            stack.extend(j.child for j in reversed(self.children(name)))
        return order

    def link_origin(self, part: str) -> FloatArray:
        """Origin of a part's link frame in the asset frame: its joint origin, or 0 for the root."""
        j = self.joint_to(part)
        return np.zeros(3) if j is None else j.origin.copy()

    def check_tree(self) -> None:
        """Raise ``AssetFormatError`` unless parts and joints form one tree with unique names."""
        if not self.parts:
            raise AssetFormatError(f"asset {self.name!r} has no parts")
        names = [p.name for p in self.parts]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise AssetFormatError(f"asset {self.name!r}: duplicate part names {dupes}")
        if not self.joints_known:
            if self.joints:
                raise AssetFormatError(f"asset {self.name!r}: joints are marked unknown but {len(self.joints)} "
                                       "are given")
            return
        jnames = [j.name for j in self.joints]
        jdupes = sorted({n for n in jnames if jnames.count(n) > 1})
        if jdupes:
            raise AssetFormatError(f"asset {self.name!r}: duplicate joint names {jdupes}")
        known = set(names)
        for j in self.joints:
            for end in (j.parent, j.child):
                if end not in known:
                    raise AssetFormatError(f"joint {j.name!r} refers to unknown part {end!r}")
            if j.parent == j.child:
                raise AssetFormatError(f"joint {j.name!r} links part {j.child!r} to itself")
        children = [j.child for j in self.joints]
        twice = sorted({c for c in children if children.count(c) > 1})
        if twice:
            raise AssetFormatError(f"asset {self.name!r}: parts {twice} have more than one parent joint")
        roots = [n for n in names if n not in set(children)]
        if len(roots) != 1:
            raise AssetFormatError(
                f"asset {self.name!r} must have exactly one root part, found {roots or 'none (a cycle)'}")
        seen: set[str] = set()
        stack = [roots[0]]
        while stack:
            n = stack.pop()
            seen.add(n)
            stack.extend(j.child for j in self.joints if j.parent == n and j.child not in seen)
        if seen != known:
            raise AssetFormatError(f"asset {self.name!r}: parts {sorted(known - seen)} are in a cycle")

    def bounds(self) -> FloatArray:
        """Axis-aligned bounds of all part meshes at rest, (2, 3)."""
        b = np.stack([p.mesh.bounds for p in self.parts if len(p.mesh.vertices)])
        return np.stack([b[:, 0].min(axis=0), b[:, 1].max(axis=0)])

    def copy(self) -> Asset:
        """A deep copy."""
        return copy.deepcopy(self)

    # ---- folder I/O
    def save(self, path: PathType, overwrite: bool = False) -> Path:
        """Write the asset folder atomically; returns its path."""
        path = Path(path)
        with atomic_dir(path, overwrite=overwrite) as tmp:
            self._write(tmp)
            if overwrite and path.is_dir():  # keep exports made earlier beside the asset
                for item in path.iterdir():
                    if not (tmp / item.name).exists():
                        os.replace(item, tmp / item.name)
        return path

    def _write(self, root: Path) -> None:
        (root / "meshes").mkdir()
        doc: dict[str, Any] = {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "name": self.name,
            "metadata": self.metadata, "parts": [], "joints": [],
        }
        if not self.joints_known:
            doc["joints_known"] = False
        for p in self.parts:
            mesh_rel = f"meshes/{p.name}.npz"
            arrays = {"vertices": p.mesh.vertices, "faces": p.mesh.faces}
            if p.mesh.uv is not None:
                arrays["uv"] = p.mesh.uv
            _write_npz(root / mesh_rel, arrays)
            mat = p.material
            mat_doc: dict[str, Any] = {
                "name": mat.name, "base_color": list(mat.base_color), "metallic": mat.metallic,
                "roughness": mat.roughness, "base_color_map": None, "metallic_roughness_map": None,
            }
            for key, img in (("base_color_map", mat.base_color_map),
                             ("metallic_roughness_map", mat.metallic_roughness_map)):
                if img is not None:
                    rel = f"textures/{p.name}_{key.removesuffix('_map')}.png"
                    (root / "textures").mkdir(exist_ok=True)
                    _write_png(root / rel, img)
                    mat_doc[key] = rel
            coll_rel = None
            if p.collision:
                coll_rel = f"collision/{p.name}.npz"
                (root / "collision").mkdir(exist_ok=True)
                hulls: dict[str, np.ndarray] = {}
                for i, h in enumerate(p.collision):
                    hulls[f"h{i:03d}_vertices"] = h.vertices
                    hulls[f"h{i:03d}_faces"] = h.faces
                _write_npz(root / coll_rel, hulls)
            inertial = None if p.inertial is None else {
                "mass": p.inertial.mass, "com": p.inertial.com.tolist(),
                "inertia": p.inertial.inertia.tolist(), "source": p.inertial.source,
            }
            doc["parts"].append({
                "name": p.name, "label": p.label, "mesh": mesh_rel, "watertight": p.watertight,
                "material": mat_doc,
                "physical": {"name": p.physical.name, "density": p.physical.density,
                             "friction": p.physical.friction, "restitution": p.physical.restitution},
                "collision": coll_rel, "inertial": inertial,
            })
        for j in self.joints:
            doc["joints"].append({
                "name": j.name, "type": j.type, "parent": j.parent, "child": j.child,
                "origin": j.origin.tolist(), "axis": j.axis.tolist(), "lower": j.lower, "upper": j.upper,
                "effort": j.effort, "velocity": j.velocity, "damping": j.damping, "friction": j.friction,
            })
        (root / "asset.json").write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n")

    @classmethod
    def load(cls, path: PathType) -> Asset:
        """Read an asset folder; problems raise ``AssetFormatError`` naming the file and element."""
        root = Path(path)
        doc_path, doc = _read_json(root, "asset.json", "an asset folder")
        if doc.get("schema") != SCHEMA:
            raise AssetFormatError(f"{doc_path}: schema is not {SCHEMA!r}")
        version = doc.get("schema_version")
        if version != SCHEMA_VERSION:
            raise AssetFormatError(f"{doc_path}: schema_version {version!r} is not supported "
                                   f"(this Seed3D reads {SCHEMA_VERSION})")
        parts = []
        for i, pd in enumerate(doc.get("parts", [])):
            where = f"{doc_path}: parts[{i}] ({pd.get('name', '?') if isinstance(pd, dict) else '?'})"
            try:
                parts.append(_load_part(root, pd))
            except AssetFormatError as exc:
                raise AssetFormatError(f"{where}: {exc}") from exc
            except (KeyError, TypeError, ValueError) as exc:
                raise AssetFormatError(f"{where}: {type(exc).__name__}: {exc}") from exc
        joints = []
        for i, jd in enumerate(doc.get("joints", [])):
            where = f"{doc_path}: joints[{i}] ({jd.get('name', '?') if isinstance(jd, dict) else '?'})"
            try:
                joints.append(Joint(**jd))
            except (KeyError, TypeError, ValueError) as exc:
                raise AssetFormatError(f"{where}: {exc}") from exc
        try:
            known = doc.get("joints_known", True)
            if not isinstance(known, bool):
                raise ValueError(f"joints_known must be true or false, got {known!r}")
            return cls(name=doc["name"], parts=parts, joints=joints, metadata=doc.get("metadata", {}),
                       joints_known=known)
        except (KeyError, ValueError) as exc:
            raise AssetFormatError(f"{doc_path}: {exc}") from exc

    def export_path(self, root: PathType, fmt: str) -> Path:
        """Where format ``fmt`` of this asset lives under ``root`` (see ``EXPORT_LAYOUT``)."""
        if fmt not in EXPORT_LAYOUT:
            raise InvalidInputError(f"unknown format {fmt!r}; known: {', '.join(EXPORT_LAYOUT)}")
        return Path(root) / EXPORT_LAYOUT[fmt].format(name=self.name)


def _read_json(root: Path, name: str, what: str) -> tuple[Path, dict[str, Any]]:
    """Read ``root/name`` as a JSON object, or raise ``AssetFormatError`` saying why."""
    doc_path = root / name
    if not doc_path.is_file():
        raise AssetFormatError(f"{root}: not {what} (no {name})")
    try:
        doc = json.loads(doc_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AssetFormatError(f"{doc_path}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict):
        raise AssetFormatError(f"{doc_path}: not a JSON object")
    return doc_path, doc


def _write_png(path: Path, img: UInt8Array) -> None:
    from PIL import Image

    Image.fromarray(img).save(path, format="PNG", optimize=False)


def _read_png(path: Path) -> UInt8Array:
    from PIL import Image, UnidentifiedImageError

    if not path.is_file():
        raise AssetFormatError(f"{path}: texture file is missing")
    try:
        with Image.open(path) as im:
            im = im.convert("RGBA") if im.mode in ("RGBA", "LA", "P") and "A" in im.getbands() else im
            if im.mode not in ("RGB", "RGBA"):
                im = im.convert("RGB")
            return np.asarray(im).copy()
    except (UnidentifiedImageError, OSError) as exc:
        raise AssetFormatError(f"{path}: not a readable image ({exc})") from exc


def _load_part(root: Path, pd: dict[str, Any]) -> Part:
    mesh_arrays = _read_npz(root / pd["mesh"])
    for key in ("vertices", "faces"):
        if key not in mesh_arrays:
            raise AssetFormatError(f"{root / pd['mesh']}: no '{key}' array")
    mesh = Mesh(mesh_arrays["vertices"], mesh_arrays["faces"], mesh_arrays.get("uv"))
    md = dict(pd.get("material") or {})
    for key in ("base_color_map", "metallic_roughness_map"):
        if md.get(key):
            md[key] = _read_png(root / md[key])
    material = PBRMaterial(**md)
    physical = PhysicalMaterial(**(pd.get("physical") or {}))
    collision: list[Mesh] = []
    if pd.get("collision"):
        arrays = _read_npz(root / pd["collision"])
        n = len([k for k in arrays if k.endswith("_vertices")])
        for i in range(n):
            collision.append(Mesh(arrays[f"h{i:03d}_vertices"], arrays[f"h{i:03d}_faces"]))
    inertial = Inertial(**pd["inertial"]) if pd.get("inertial") else None
    return Part(name=pd["name"], mesh=mesh, label=pd.get("label", "body"), material=material,
                physical=physical, collision=collision, inertial=inertial,
                watertight=bool(pd.get("watertight", True)))


# --------------------------------------------------------------------------------------------- scene


@dataclass
class SceneObject:
    """One asset placed in a scene: ``position`` of its origin (room frame) and ``yaw`` about +Z (radians)."""

    name: str
    asset: Asset
    position: FloatArray = field(default_factory=lambda: np.zeros(3))
    yaw: float = 0.0

    def __post_init__(self) -> None:
        _check_name(self.name, "scene object")
        self.position = np.asarray(self.position, dtype=np.float64).reshape(3)
        self.yaw = float(self.yaw)

    def pose(self) -> FloatArray:
        """4x4 transform from the asset frame to the room frame."""
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        m = np.eye(4)
        m[:2, :2] = [[c, -s], [s, c]]
        m[:3, 3] = self.position
        return m


@dataclass
class Scene:
    """A room (``size`` = width along X, depth along Y, height, meters; floor at z = 0) and placed assets."""

    name: str
    size: FloatArray = field(default_factory=lambda: np.array([4.0, 4.0, 2.7]))
    objects: list[SceneObject] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_name(self.name, "scene")
        self.size = np.asarray(self.size, dtype=np.float64).reshape(3)
        names = [o.name for o in self.objects]
        if len(set(names)) != len(names):
            raise AssetFormatError(f"scene {self.name!r}: duplicate object names")

    def save(self, path: PathType, overwrite: bool = False) -> Path:
        """Write ``scene.json`` and one asset folder per object under ``assets/``, atomically."""
        path = Path(path)
        with atomic_dir(path, overwrite=overwrite) as tmp:
            doc = {
                "schema": SCENE_SCHEMA, "schema_version": SCHEMA_VERSION, "name": self.name,
                "size": self.size.tolist(), "metadata": self.metadata,
                "objects": [{"name": o.name, "asset": f"assets/{o.name}", "position": o.position.tolist(),
                             "yaw": o.yaw} for o in self.objects],
            }
            (tmp / "assets").mkdir()
            for o in self.objects:
                o.asset._write(_mkdir(tmp / "assets" / o.name))
            (tmp / "scene.json").write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n")
        return path

    @classmethod
    def load(cls, path: PathType) -> Scene:
        """Read a scene folder written by ``save``."""
        root = Path(path)
        doc_path, doc = _read_json(root, "scene.json", "a scene folder")
        if doc.get("schema") != SCENE_SCHEMA or doc.get("schema_version") != SCHEMA_VERSION:
            raise AssetFormatError(f"{doc_path}: not a {SCENE_SCHEMA} v{SCHEMA_VERSION} document")
        objects = [SceneObject(o["name"], Asset.load(root / o["asset"]), o["position"], o["yaw"])
                   for o in doc["objects"]]
        return cls(doc["name"], doc["size"], objects, doc.get("metadata", {}))


def _mkdir(p: Path) -> Path:
    p.mkdir(parents=True)
    return p
