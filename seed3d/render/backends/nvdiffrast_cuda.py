"""CUDA rasteriser through nvdiffrast (``dr.RasterizeCudaContext`` + ``dr.rasterize``), used only when importable.

nvdiffrast's main output is (u, v, z/w, triangle_id + 1) per pixel, with attributes interpolated as
u * a0 + v * a1 + (1 - u - v) * a2 (see ``dr.interpolate``), and its first row at NDC y = -1, which
``Camera.clip_matrix`` maps to the top of the image. This backend needs a CUDA GPU and a CUDA build of
torch, and nvdiffrast >= 0.3.3 (earlier CUDA rasterisers wanted resolutions that are multiples of 8 and at
most 2048). It returns numpy buffers like the other backends (two small copies back to the host).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from seed3d.errors import DependencyError
from seed3d.render.backends.base import Raster, RasterBackend, clip_range
from seed3d.render.camera import Camera
from seed3d.render.geometry import RenderMesh


class NvdiffrastBackend(RasterBackend):
    """nvdiffrast on CUDA; ``device`` is a torch CUDA device ("cuda", "cuda:1", ...)."""

    name = "nvdiffrast"
    #: Triangle ids come back as float32 in nvdiffrast's output; exact only below 2**24.
    max_faces = 2**24 - 1

    def __init__(self, device: str = "cuda") -> None:
        super().__init__()
        try:
            import nvdiffrast.torch as dr
            import torch
        except ImportError as exc:
            raise DependencyError(
                "the nvdiffrast backend needs nvdiffrast >= 0.3.3 and a CUDA build of torch (nvdiffrast is not on "
                f"PyPI: pip install git+https://github.com/NVlabs/nvdiffrast builds it with the CUDA toolkit) ({exc})"
            ) from exc
        if not torch.cuda.is_available():
            raise DependencyError("the nvdiffrast backend needs a CUDA GPU, and torch sees none")
        self.torch, self.dr = torch, dr
        self.device = torch.device(device)
        try:
            self.ctx = dr.RasterizeCudaContext(device=self.device)
        except Exception as exc:
            raise DependencyError(f"nvdiffrast could not create a CUDA rasteriser context ({exc})") from exc

    def _upload(self, mesh: RenderMesh) -> Any:
        if len(mesh.faces) > self.max_faces:
            raise DependencyError(f"nvdiffrast reports triangle ids as float32: at most {self.max_faces} faces "
                                  f"(got {len(mesh.faces)}); use the moderngl or open3d backend")
        torch = self.torch
        centre = mesh.bounds.mean(axis=0)
        local = np.concatenate([mesh.vertices - centre, np.ones((len(mesh.vertices), 1))], axis=1)
        pos = torch.as_tensor(local, dtype=torch.float64, device=self.device)
        tri = torch.as_tensor(mesh.faces.astype(np.int32), device=self.device).contiguous()
        return pos, tri, centre

    def _rasterize(self, handle: Any, mesh: RenderMesh, camera: Camera) -> Raster:
        torch = self.torch
        pos, tri, centre = handle
        near, far = clip_range(mesh, camera)
        local_to_world = np.eye(4)
        local_to_world[:3, 3] = centre
        clip = torch.as_tensor(camera.clip_matrix(near, far) @ local_to_world, dtype=torch.float64, device=self.device)
        pos_clip = (pos @ clip.T).to(torch.float32)[None].contiguous()  # instanced mode: [1, V, 4]
        with torch.no_grad():
            rast, _ = self.dr.rasterize(self.ctx, pos_clip, tri, resolution=(camera.height, camera.width),
                                        grad_db=False)
        out = rast[0].cpu().numpy()
        tri_id = np.rint(out[..., 3]).astype(np.int32) - 1
        bary = np.empty(out.shape[:2] + (3,), np.float32)
        bary[..., 0] = out[..., 0]
        bary[..., 1] = out[..., 1]
        bary[..., 2] = 1.0 - out[..., 0] - out[..., 1]
        bary[tri_id < 0] = 0.0
        return Raster(tri_id, bary)
