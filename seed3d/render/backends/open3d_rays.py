"""Ray-casting backend on Open3D's Embree scene (``open3d.t.geometry.RaycastingScene``): one ray per pixel centre.

Embree reports the hit triangle and its (u, v) with the hit point at (1 - u - v) * p0 + u * p1 + v * p2,
which are exactly the perspective-correct barycentrics a rasteriser interpolates. Back faces are hit too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seed3d.errors import DependencyError
from seed3d.render.backends.base import Raster, RasterBackend
from seed3d.render.camera import Camera
from seed3d.render.geometry import RenderMesh


def _import_open3d() -> Any:
    try:
        import open3d
    except ImportError as exc:  # also raised when libusb-1.0 or libGL is missing on Linux
        raise DependencyError("the open3d backend needs open3d (pip install open3d==0.20.0) and, on Debian, "
                              f"the libusb-1.0-0 package ({exc})") from exc
    except OSError as exc:
        raise DependencyError(f"open3d is installed but cannot load a system library ({exc}); "
                              "on Debian install libusb-1.0-0 and libgomp1") from exc
    return open3d


class Open3DBackend(RasterBackend):
    """Embree ray casting through Open3D: exact at pixel centres, multi-threaded on CPU."""

    name = "open3d"

    def __init__(self) -> None:
        super().__init__()
        self.o3d = _import_open3d()

    def _upload(self, mesh: RenderMesh) -> Any:
        o3c = self.o3d.core
        centre = mesh.bounds.mean(axis=0)  # cast in a centred frame: float32 stays precise far from the origin
        scene = self.o3d.t.geometry.RaycastingScene()
        scene.add_triangles(o3c.Tensor((mesh.vertices - centre).astype(np.float32)),
                            o3c.Tensor(mesh.faces.astype(np.uint32)))
        return scene, centre

    def _rasterize(self, handle: Any, mesh: RenderMesh, camera: Camera) -> Raster:
        scene, centre = handle
        h, w = camera.height, camera.width
        origin, dirs = camera.pixel_rays()
        rays = np.empty((h * w, 6), np.float32)
        rays[:, :3] = origin - centre
        rays[:, 3:] = dirs.reshape(-1, 3)
        hit = scene.cast_rays(self.o3d.core.Tensor(rays))
        prim = hit["primitive_ids"].numpy().astype(np.int64)
        uv = hit["primitive_uvs"].numpy()
        valid = prim != int(scene.INVALID_ID)
        tri_id = np.where(valid, prim, -1).astype(np.int32).reshape(h, w)
        bary = np.zeros((h * w, 3), np.float32)
        bary[valid, 1:] = uv[valid]
        bary[valid, 0] = 1.0 - uv[valid, 0] - uv[valid, 1]
        return Raster(tri_id, bary.reshape(h, w, 3))
