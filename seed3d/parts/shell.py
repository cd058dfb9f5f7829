"""One shell from many parts: the union of an asset's parts at rest, with the part each face came from.

This is what a generated or scanned mesh looks like (one closed surface, no internal faces), so the segmenter
and part completion are evaluated on it; the face labels are the ground truth of that evaluation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh
from seed3d.errors import AssetFormatError, DependencyError


def _manifold(mesh: Mesh) -> Any:
    """The part's solid, its vertices welded and rounded to float32 as mesh files keep them."""
    import manifold3d

    m = mesh.welded().to_manifold(float32=True)
    if m.status() != manifold3d.Error.NoError:
        raise AssetFormatError(f"a part is not a closed manifold mesh ({m.status()})")
    return m


def merged_shell(asset: Asset) -> tuple[Mesh, np.ndarray]:
    """The boolean union of the parts at rest, and for each of its faces the index of the part it lies on.

    A face takes the part whose surface is nearest its centre (ties: the earlier part)."""
    import manifold3d

    solids = [_manifold(p.mesh) for p in asset.parts]
    union = manifold3d.Manifold.batch_boolean(solids, manifold3d.OpType.Add)
    shell = Mesh.from_manifold(union)
    shell.vertices = shell.vertices.astype(np.float32).astype(np.float64)  # as the parts: float32 positions
    if not len(shell.faces):
        raise AssetFormatError(f"asset {asset.name!r}: the union of its parts is empty")
    return shell, nearest_part(asset, shell.vertices[shell.faces].mean(axis=1))


def nearest_part(asset: Asset, points: np.ndarray) -> np.ndarray:
    """Index of the part whose surface is nearest each point (open3d ray-casting scene, exact closest points)."""
    try:
        import open3d as o3d
    except ImportError as exc:  # pragma: no cover - a pinned dependency
        raise DependencyError("labelling faces needs open3d (pip install open3d)") from exc
    scene = o3d.t.geometry.RaycastingScene()
    ids = {}
    for i, p in enumerate(asset.parts):
        gid = scene.add_triangles(o3d.core.Tensor(np.asarray(p.mesh.vertices, np.float32)),
                                  o3d.core.Tensor(np.asarray(p.mesh.faces, np.uint32)))
        ids[gid] = i
    ans = scene.compute_closest_points(o3d.core.Tensor(np.asarray(points, np.float32)))
    geometry = ans["geometry_ids"].numpy().astype(np.int64)
    lookup = np.zeros(max(ids) + 1, np.int64)
    lookup[list(ids)] = list(ids.values())
    return lookup[geometry]
