"""Reading a user's mesh file (GLB/glTF, OBJ, PLY, STL, OFF) into one ``Mesh`` in the asset frame (+Z up).

glTF is +Y up by its specification. OBJ, PLY, STL and OFF carry no up axis, so ``choose_up`` reads one from how
the object would rest under gravity: for each of the six axis directions, the face of its convex hull it would
stand on and how far it could tilt on it before toppling. Of the conventional axes (+Z, +Y) the one it stands on
is taken; when it stands on both, the one that breaks its mirror symmetry (objects are symmetric left to right far
more often than top to bottom); when that does not tell them apart either, the file type's usual axis, and the
note says the choice was ambiguous. Every choice says why (``Orientation.note``); ``up`` overrides it.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Mesh
from seed3d.errors import DependencyError, InvalidInputError
from seed3d.typed import FloatArray, PathType

log = logging.getLogger(__name__)

#: File suffixes ``read_mesh`` accepts.
MESH_SUFFIXES: tuple[str, ...] = (".glb", ".gltf", ".obj", ".ply", ".stl", ".off")
#: Largest mesh ``read_mesh`` accepts (faces).
MAX_FACES = 2_000_000
#: Values of ``up``: a file axis that becomes +Z, or ``auto`` (glTF: +Y by its spec; other formats: ``choose_up``).
UP_CHOICES: tuple[str, ...] = ("auto", "+x", "-x", "+y", "-y", "+z", "-z")
#: Suffixes whose format fixes the up axis, and that axis.
FORMAT_UP: dict[str, str] = {".glb": "+y", ".gltf": "+y"}
#: Least tilt (degrees) an object must take before it topples for a resting pose to count as stable.
MIN_TIP_DEG = 5.0
#: A hull face supports the object with an axis up when its normal lies within this angle (degrees) of down.
MAX_SUPPORT_TILT_DEG = 10.0
#: Mirror-symmetry scores (0..1) closer than this do not tell two stable up axes apart.
SYMMETRY_MARGIN = 0.1
#: Up axes tried before the others: the asset frame's and glTF's.
CONVENTIONAL_UP: tuple[str, ...] = ("+z", "+y")
#: The usual up axis of each file type without a convention, taken when its support cannot tell +Z from +Y: OBJ
#: from Blender, Maya, ShapeNet and glTF tools and PLY scans are +Y up; STL (printing, CAD) and OFF (ModelNet) +Z.
USUAL_UP: dict[str, str] = {".obj": "+y", ".ply": "+y", ".stl": "+z", ".off": "+z"}

_AXES = {"x": 0, "y": 1, "z": 2}


def up_rotation(up: str) -> FloatArray:
    """The 3x3 rotation taking file axis ``up`` ("+x" … "-z") to +Z; "+y" is glTF's (front +Z becomes +X)."""
    if up not in UP_CHOICES or up == "auto":
        raise InvalidInputError(f"up must be one of {', '.join(UP_CHOICES[1:])}, got {up!r}")
    axis = _AXES[up[1]]
    rot = np.zeros((3, 3))
    for new in range(3):  # a cyclic permutation: the up axis lands on z, the other two keep their order
        rot[new, (axis + 1 + new) % 3] = 1.0
    if up[0] == "-":
        rot = np.diag([1.0, -1.0, -1.0]) @ rot  # half a turn about the new x: upside down
    return rot


@dataclass
class Support:
    """How the object rests with one file axis up: on which hull face, and how far it tilts before it topples."""

    up: str
    stable: bool = False
    tip_deg: float = 0.0
    """Tilt (degrees) that would topple it: 0 when its centre of mass is not over the support."""
    area: float = 0.0
    """Area of the support polygon (file units squared)."""
    tilt_deg: float = 0.0
    """Angle between the supporting hull face and the floor plane of this axis."""
    contact: float = 0.0
    """Share of the support polygon the surface itself touches (1: a flat base; near 0: feet, a rim, handles)."""
    symmetry: float = 0.0
    """Share of the surface that the mirror across the plane normal to this axis maps back onto the surface."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (report.json's ``orientation.supports``)."""
        return {"up": self.up, "stable": self.stable, "tip_deg": round(self.tip_deg, 2),
                "area": round(self.area, 6), "tilt_deg": round(self.tilt_deg, 2), "contact": round(self.contact, 3),
                "symmetry": round(self.symmetry, 3)}


@dataclass
class Orientation:
    """Which file axis was taken as up, where that came from (``given``, ``format``, ``support``, ``default``)
    and why."""

    up: str
    source: str
    note: str
    supports: list[Support] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (report.json's ``orientation``)."""
        return {"up": self.up, "source": self.source, "note": self.note,
                "supports": [s.to_dict() for s in self.supports]}

    def summary(self) -> str:
        """One line for a terminal: the axis, its source and the reason."""
        return f"up: file {self.up} axis ({self.source}): {self.note}"


def _supports(mesh: Mesh) -> list[Support]:
    """The resting pose of ``mesh`` with each of the six axis directions up (convex hull faces and centre of mass)."""
    from scipy.spatial import ConvexHull, QhullError

    tm = mesh.to_trimesh()
    com = np.asarray(tm.center_mass if tm.is_volume else tm.centroid, np.float64)
    try:
        hull = tm.convex_hull
    except Exception as exc:  # qhull and trimesh raise many types for degenerate point sets
        log.info("no convex hull to rest on (%s: %s)", type(exc).__name__, exc)
        return [Support(up) for up in UP_CHOICES[1:]]
    groups = [np.asarray(g) for g in hull.facets]
    grouped = np.zeros(len(hull.faces), bool)
    for g in groups:
        grouped[g] = True
    groups += [np.array([i]) for i in np.flatnonzero(~grouped)]
    normals = np.asarray(hull.face_normals)[[g[0] for g in groups]]
    areas, face_normals = mesh.face_areas_normals()
    centres = mesh.vertices[mesh.faces].mean(axis=1)
    reach = 1e-3 * float(np.linalg.norm(np.ptp(mesh.vertices, axis=0)))
    out = []
    for up in UP_CHOICES[1:]:
        down = -up_rotation(up)[2]  # the file direction that points at the floor
        best = Support(up)
        for k in np.flatnonzero(normals @ down >= math.cos(math.radians(MAX_SUPPORT_TILT_DEG))):
            n = normals[k]
            pts = hull.vertices[np.unique(hull.faces[groups[k]])]
            height = float((pts[0] - com) @ n)  # centre of mass above the face's plane
            u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
            u /= np.linalg.norm(u)
            w = np.cross(n, u)
            flat = np.stack([pts @ u, pts @ w], 1)
            try:
                poly = ConvexHull(flat)
            except (QhullError, ValueError):  # a sliver: no area to stand on
                continue
            margin = float((-(poly.equations[:, :2] @ np.array([com @ u, com @ w]) + poly.equations[:, 2])).min())
            tip = math.degrees(math.atan2(margin, height)) if margin > 0 and height > 0 else 0.0
            if tip > best.tip_deg or (best.tip_deg == 0 and poly.volume > best.area):
                touching = (np.abs((centres - pts[0]) @ n) <= reach) & (face_normals @ n >= 0.99)
                best = Support(up, tip >= MIN_TIP_DEG, tip, float(poly.volume),
                               math.degrees(math.acos(min(1.0, float(n @ down)))),
                               min(1.0, float(areas[touching].sum()) / max(float(poly.volume), 1e-300)))
        out.append(best)
    return out


def _symmetry(mesh: Mesh, samples: int = 2000, tol: float = 0.01) -> FloatArray:
    """Per file axis, the share of surface samples whose mirror image across the axis's mid-plane lies within
    ``tol`` of the bounding-box diagonal from the surface."""
    try:
        import open3d as o3d
    except ImportError as exc:  # pragma: no cover - a pinned dependency
        raise DependencyError("reading a mesh's up axis needs open3d (pip install open3d)") from exc

    pts = mesh.sample_surface(samples, seed=0)[0]
    lo, hi = mesh.bounds
    mid, reach = (lo + hi) / 2, tol * float(np.linalg.norm(hi - lo))
    scene = o3d.t.geometry.RaycastingScene()
    scene.add_triangles(o3d.core.Tensor(mesh.vertices.astype(np.float32)),
                        o3d.core.Tensor(mesh.faces.astype(np.uint32)))
    mirrored = np.repeat(pts[None], 3, axis=0)
    for a in range(3):
        mirrored[a, :, a] = 2 * mid[a] - mirrored[a, :, a]
    dist = scene.compute_distance(o3d.core.Tensor(mirrored.reshape(-1, 3).astype(np.float32))).numpy()
    return (dist.reshape(3, -1) <= reach).mean(axis=1).astype(np.float64)


def choose_up(mesh: Mesh, prefer: str = "+z", kind: str = "this file type") -> Orientation:
    """The file axis ``mesh`` stands upright on, read from its support (see the module's docstring).

    ``prefer`` (one of ``CONVENTIONAL_UP``), the usual axis of ``kind``, breaks a tie between the conventional
    axes; a shape with no stable resting face (a ball, a cone on its tip) keeps +Z and says so.
    """
    if prefer not in CONVENTIONAL_UP:
        raise InvalidInputError(f"prefer must be one of {', '.join(CONVENTIONAL_UP)}, got {prefer!r}")
    if len(mesh.faces) < 4 or not mesh.face_areas_normals()[0].sum() > 0:
        return Orientation("+z", "default", "too few faces or no area to read a support from; kept the file's +z")
    supports = _supports(mesh)
    sym = _symmetry(mesh)
    for s in supports:
        s.symmetry = float(sym[_AXES[s.up[1]]])
    by_up = {s.up: s for s in supports}
    stable = [s for s in supports if s.stable]
    if not stable:
        return Orientation("+z", "default", f"no stable resting face: it topples within {MIN_TIP_DEG:g} degrees "
                           "on every axis-aligned side (round, pointed or flat); kept the file's +z, pass --up to "
                           "choose", supports)
    conventional = [by_up[u] for u in CONVENTIONAL_UP if by_up[u].stable]
    if not conventional:
        best = max(stable, key=lambda s: s.tip_deg)
        return Orientation(best.up, "support", f"it stands on neither +z nor +y; {best.up} up is its most stable "
                           f"rest (tips at {best.tip_deg:.0f} degrees)", supports)
    if len(conventional) == 1:
        (best,) = conventional
        other = by_up["+y" if best.up == "+z" else "+z"]
        return Orientation(best.up, "support", f"it stands with {best.up} up (tips at {best.tip_deg:.0f} degrees) "
                           f"and not with {other.up} up (tips at {other.tip_deg:.0f} degrees)", supports)
    z, y = by_up["+z"], by_up["+y"]
    if abs(z.symmetry - y.symmetry) >= SYMMETRY_MARGIN:
        best, other = (z, y) if z.symmetry < y.symmetry else (y, z)
        return Orientation(best.up, "support", f"it stands with +z or +y up; {best.up} breaks its mirror symmetry "
                           f"({best.symmetry:.2f} against {other.symmetry:.2f}), as an up axis does", supports)
    best = by_up[prefer]
    return Orientation(best.up, "support", f"ambiguous: it stands with +z up (tips at {z.tip_deg:.0f} degrees) and "
                       f"+y up ({y.tip_deg:.0f} degrees), about as symmetric both ways; took {prefer}, the usual up "
                       f"axis of {kind}: pass --up if it is wrong", supports)


def _load(p: Path) -> Mesh:
    """The file's geometry as one ``Mesh`` in its own axes (errors a user can act on)."""
    import trimesh

    if not p.is_file():
        raise InvalidInputError(f"{p}: no such mesh file")
    suffix = p.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise InvalidInputError(f"{p}: unsupported mesh type {suffix or '(none)'}; use one of "
                                f"{', '.join(MESH_SUFFIXES)}")
    try:
        loaded = trimesh.load(str(p), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for malformed files
        raise InvalidInputError(f"{p}: not a readable {suffix[1:].upper()} mesh ({type(exc).__name__}: {exc})") \
            from exc
    faces = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))))
    verts = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), np.float64)
    if faces.ndim != 2 or faces.shape[1] != 3 or not len(faces):
        raise InvalidInputError(f"{p}: the file holds no triangles")
    if len(faces) > MAX_FACES:
        raise InvalidInputError(f"{p}: {len(faces)} faces exceed the limit of {MAX_FACES}; decimate it first")
    if not np.isfinite(verts).all():
        raise InvalidInputError(f"{p}: vertex coordinates are not all finite")
    return Mesh(verts, faces)


def read_mesh_oriented(path: PathType, up: str = "auto") -> tuple[Mesh, Orientation]:
    """All geometry of a mesh file as one ``Mesh`` in meters, +Z up, and how its up axis was chosen.

    ``up`` is the file axis that becomes +Z ("+x" … "-z"), or ``auto``: glTF's +Y by its specification, for
    other formats ``choose_up``. Scene graphs are flattened with their transforms.
    """
    if up not in UP_CHOICES:
        raise InvalidInputError(f"up must be one of {', '.join(UP_CHOICES)}, got {up!r}")
    p = Path(path)
    mesh = _load(p)
    suffix = p.suffix.lower()
    if up != "auto":
        orientation = Orientation(up, "given", f"{up} up as asked")
    elif suffix in FORMAT_UP:
        orientation = Orientation(FORMAT_UP[suffix], "format", f"{suffix[1:]} is {FORMAT_UP[suffix]} up by its "
                                  "specification")
    else:
        orientation = choose_up(mesh, USUAL_UP.get(suffix, "+z"), f"{suffix[1:].upper()} files")
    log.info("%s: %s", p.name, orientation.summary())
    if orientation.up != "+z":
        mesh = Mesh(mesh.vertices @ up_rotation(orientation.up).T, mesh.faces)
    return mesh, orientation


def read_mesh(path: PathType, up: str | None = None) -> Mesh:
    """All geometry of a mesh file as one ``Mesh`` in meters, +Z up.

    ``up`` as in ``read_mesh_oriented``; None takes the format's convention only (glTF +Y, other formats +Z, no
    support analysis).
    """
    if up is None:
        up = FORMAT_UP.get(Path(path).suffix.lower(), "+z")
    return read_mesh_oriented(path, up)[0]
