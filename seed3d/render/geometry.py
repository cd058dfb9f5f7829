"""``RenderMesh``: what the renderer draws — one triangle soup made of every part, with per-face part ids.

Triangle ids in every render buffer index ``RenderMesh.faces``: the parts' faces concatenated in the
order of ``Asset.parts`` (``part_face_offsets`` says where each part starts). Build a ``RenderMesh`` once
and pass it to the renderer when rendering many views: backends cache their upload of it by ``key``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from seed3d.asset import Asset, Mesh, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.typed import FloatArray, IntArray

_keys = itertools.count(1)


@dataclass(eq=False)
class RenderMesh:
    """Concatenated parts ready to render; treat it as immutable (backends cache it by ``key``).

    ``uv`` is (V, 2) with zeros on parts that have no UVs (``part_has_uv`` says which do). UV convention:
    u to the right, v **up** (trimesh/OpenGL): uv (0, 0) is the bottom-left corner of a texture image and
    (0, 1) its top-left corner (first row).
    """

    vertices: FloatArray
    faces: IntArray
    face_part: IntArray
    materials: tuple[PBRMaterial, ...]
    part_names: tuple[str, ...]
    uv: FloatArray | None = None
    part_has_uv: tuple[bool, ...] = ()
    key: int = field(default_factory=lambda: next(_keys))

    def __post_init__(self) -> None:
        self.vertices = np.ascontiguousarray(self.vertices, np.float64).reshape(-1, 3)
        self.faces = np.ascontiguousarray(self.faces, np.int64).reshape(-1, 3)
        self.face_part = np.ascontiguousarray(self.face_part, np.int32).reshape(-1)
        if not len(self.faces):
            raise InvalidInputError("nothing to render: the mesh has no faces")
        if self.faces.min() < 0 or self.faces.max() >= len(self.vertices):
            raise InvalidInputError("render mesh faces index vertices out of range")
        if not np.all(np.isfinite(self.vertices)):
            raise InvalidInputError("render mesh vertices must be finite")
        if len(self.face_part) != len(self.faces):
            raise InvalidInputError(f"face_part has {len(self.face_part)} entries for {len(self.faces)} faces")
        if len(self.materials) != len(self.part_names) or self.face_part.min() < 0 \
                or self.face_part.max() >= len(self.materials):
            raise InvalidInputError("face_part must index materials and part_names, one per part")
        if self.uv is not None:
            self.uv = np.ascontiguousarray(self.uv, np.float64).reshape(-1, 2)
            if len(self.uv) != len(self.vertices):
                raise InvalidInputError(f"uv must have one row per vertex, got {len(self.uv)} for {len(self.vertices)}")
        if not self.part_has_uv:
            self.part_has_uv = tuple([self.uv is not None] * len(self.materials))
        if len(self.faces) >= 2**31 - 1:
            raise InvalidInputError("render meshes are limited to 2**31 - 2 triangles (int32 triangle ids)")

    # ---- constructors
    @classmethod
    def from_asset(cls, asset: Asset) -> RenderMesh:
        """All parts of an asset at rest, one part id per part in ``asset.parts`` order."""
        return cls.from_meshes([p.mesh for p in asset.parts], [p.material for p in asset.parts],
                               [p.name for p in asset.parts])

    @classmethod
    def from_mesh(cls, mesh: Mesh, material: PBRMaterial | None = None, name: str = "mesh") -> RenderMesh:
        """A single mesh with one material (the default grey ``PBRMaterial`` when none is given)."""
        return cls.from_meshes([mesh], [material or PBRMaterial()], [name])

    @classmethod
    def from_meshes(cls, meshes: list[Mesh], materials: list[PBRMaterial], names: list[str] | None = None
                    ) -> RenderMesh:
        """Concatenate meshes (one part each) with their materials."""
        if not meshes or len(meshes) != len(materials):
            raise InvalidInputError(f"need one material per mesh, got {len(meshes)} meshes, {len(materials)} materials")
        names = names or [f"part{i}" for i in range(len(meshes))]
        has_uv = tuple(m.uv is not None for m in meshes)
        uv = None
        if any(has_uv):
            uv = np.concatenate([m.uv if m.uv is not None else np.zeros((len(m.vertices), 2)) for m in meshes])
        joined = Mesh.concatenate([Mesh(m.vertices, m.faces) for m in meshes])
        face_part = np.repeat(np.arange(len(meshes), dtype=np.int32), [len(m.faces) for m in meshes])
        return cls(joined.vertices, joined.faces, face_part, tuple(materials), tuple(names), uv, has_uv)

    # ---- derived data
    @property
    def num_parts(self) -> int:
        """Number of parts (materials)."""
        return len(self.materials)

    @cached_property
    def part_face_offsets(self) -> IntArray:
        """(P + 1,) index of each part's first face in ``faces`` (last entry = number of faces)."""
        counts = np.bincount(self.face_part, minlength=self.num_parts)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

    @cached_property
    def bounds(self) -> FloatArray:
        """(2, 3) bounds of the vertices used by faces."""
        used = self.vertices[np.unique(self.faces)]
        return np.stack([used.min(axis=0), used.max(axis=0)])

    @cached_property
    def canonical_transform(self) -> tuple[FloatArray, float]:
        """(offset, scale) with canonical = (position - offset) * scale: the bounds' centre goes to 0.5 and the
        longest side spans [0, 1] (uniform scale, so shapes are not distorted; shorter sides are centred)."""
        lo, hi = self.bounds
        extent = float(np.max(hi - lo))
        scale = 1.0 / extent if extent > 0 else 1.0
        return (lo + hi) / 2 - 0.5 / scale, scale

    @cached_property
    def face_normals(self) -> FloatArray:
        """(F, 3) unit geometric normals from the winding (right hand rule); zero for degenerate faces."""
        v = self.vertices[self.faces]
        n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
        length = np.linalg.norm(n, axis=1, keepdims=True)
        return np.divide(n, length, out=np.zeros_like(n), where=length > 0)

    @cached_property
    def face_areas(self) -> FloatArray:
        """(F,) triangle areas."""
        v = self.vertices[self.faces]
        return 0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)

    @cached_property
    def vertex_normals(self) -> FloatArray:
        """(V, 3) unit area-weighted vertex normals (shared by index only: UV seams and hard edges stay split)."""
        weighted = self.face_normals * self.face_areas[:, None]
        idx = self.faces.reshape(-1)
        acc = np.stack([np.bincount(idx, np.repeat(weighted[:, c], 3), minlength=len(self.vertices))
                        for c in range(3)], axis=1)
        length = np.linalg.norm(acc, axis=1, keepdims=True)
        return np.divide(acc, length, out=np.zeros_like(acc), where=length > 0)


def as_render_mesh(target: Asset | Mesh | RenderMesh, material: PBRMaterial | None = None) -> RenderMesh:
    """Turn what a caller passes (an Asset, a Mesh with an optional material, or a RenderMesh) into a RenderMesh."""
    if isinstance(target, RenderMesh):
        if material is not None:
            raise InvalidInputError("a material applies to a single Mesh, not to a RenderMesh")
        return target
    if isinstance(target, Asset):
        if material is not None:
            raise InvalidInputError("an Asset brings its own per-part materials; do not pass a material")
        return RenderMesh.from_asset(target)
    if isinstance(target, Mesh):
        return RenderMesh.from_mesh(target, material)
    raise InvalidInputError(f"cannot render a {type(target).__name__}; pass an Asset, a Mesh or a RenderMesh")
