"""What a rasteriser backend does: turn a ``RenderMesh`` and a ``Camera`` into triangle ids and barycentrics.

Everything else (positions, depth, normals, materials, shading) is computed once from these two buffers
in ``seed3d.render.buffers``, so backends agree by construction and each backend stays small.
"""

from __future__ import annotations

import abc
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from seed3d.errors import InvalidInputError
from seed3d.render.camera import Camera
from seed3d.render.geometry import RenderMesh
from seed3d.typed import NDArray


@dataclass(eq=False)
class Raster:
    """Visibility of one view: ``tri_id`` (H, W) int32 (-1 = background) and ``bary`` (H, W, 3) float32.

    ``bary[i, j]`` holds the perspective-correct barycentric weights of the pixel centre's surface point
    with respect to vertices 0, 1, 2 of face ``tri_id[i, j]`` (they sum to 1; zeros on background).
    """

    tri_id: NDArray[np.int32]
    bary: NDArray[np.float32]

    def __post_init__(self) -> None:
        if self.tri_id.ndim != 2 or self.bary.shape != (*self.tri_id.shape, 3):
            raise InvalidInputError(f"raster shapes disagree: tri_id {self.tri_id.shape}, bary {self.bary.shape}")

    @property
    def mask(self) -> NDArray[np.bool_]:
        """(H, W) True where a triangle covers the pixel centre."""
        return self.tri_id >= 0


class RasterBackend(abc.ABC):
    """A rasteriser: ``rasterize(mesh, camera) -> Raster``. Construction raises ``DependencyError`` if unusable.

    Backends keep device-side copies of the last few meshes, keyed by ``RenderMesh.key``.
    """

    name: str = "?"
    cache_size: int = 2

    def __init__(self) -> None:
        self._cache: OrderedDict[int, Any] = OrderedDict()

    @abc.abstractmethod
    def _upload(self, mesh: RenderMesh) -> Any:
        """Build the backend's representation of ``mesh`` (a GPU buffer, a BVH, ...)."""

    @abc.abstractmethod
    def _rasterize(self, handle: Any, mesh: RenderMesh, camera: Camera) -> Raster:
        """Rasterise an uploaded mesh."""

    def rasterize(self, mesh: RenderMesh, camera: Camera) -> Raster:
        """Triangle ids and barycentrics of ``mesh`` seen by ``camera`` (pixel centres, no antialiasing)."""
        handle = self._cache.get(mesh.key)
        if handle is None:
            handle = self._upload(mesh)
            self._cache[mesh.key] = handle
            while len(self._cache) > self.cache_size:
                self._release(self._cache.popitem(last=False)[1])
        else:
            self._cache.move_to_end(mesh.key)
        return self._rasterize(handle, mesh, camera)

    def _release(self, handle: Any) -> None:  # noqa: B027 (optional hook)
        """Free what ``_upload`` made (default: nothing to do)."""

    def close(self) -> None:
        """Drop cached uploads."""
        for handle in self._cache.values():
            self._release(handle)
        self._cache.clear()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def clip_range(mesh: RenderMesh, camera: Camera) -> tuple[float, float]:
    """Near and far planes bracketing the mesh's bounding sphere as seen by ``camera`` (for GL depth buffers)."""
    lo, hi = mesh.bounds
    centre = (lo + hi) / 2
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-6)
    z = float(camera.to_camera(centre)[0, 2])
    far = max(z + radius * 1.01, radius * 1e-3)
    near = max(z - radius * 1.01, far * 1e-4)
    return near, far
