"""Reading a user's mesh file (GLB/glTF, OBJ, PLY, STL, OFF) into one ``Mesh`` in the asset frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.export.glb import GLTF_FROM_ASSET
from seed3d.typed import PathType

#: File suffixes ``read_mesh`` accepts.
MESH_SUFFIXES: tuple[str, ...] = (".glb", ".gltf", ".obj", ".ply", ".stl", ".off")
#: Largest mesh ``read_mesh`` accepts (faces).
MAX_FACES = 2_000_000


def read_mesh(path: PathType, y_up: bool | None = None) -> Mesh:
    """All geometry of a mesh file as one ``Mesh`` in meters, +Z up.

    glTF files are +Y up by specification and are turned to +Z up (front +Z becomes +X); other formats are
    taken as +Z up unless ``y_up`` says otherwise. Scene graphs are flattened with their transforms.
    """
    import trimesh

    p = Path(path)
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
    if y_up if y_up is not None else suffix in (".glb", ".gltf"):
        verts = verts @ GLTF_FROM_ASSET  # glTF (x, y, z) -> asset (z, x, y)
    return Mesh(verts, faces)
