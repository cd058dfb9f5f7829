"""The nvdiffrast backend's glue (clip matrix, output decoding) against a stand-in for ``nvdiffrast.torch``.

nvdiffrast needs CUDA, so it cannot run here. The stand-in implements the documented contract of
``dr.rasterize`` with a tiny brute-force rasteriser — output (u, v, z/w, triangle_id + 1) per pixel centre,
u and v perspective-correct weights of vertices 0 and 1, row 0 at NDC y = -1 — so this test checks that
the backend feeds nvdiffrast the right clip coordinates and decodes its output like the other backends.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import torch

from seed3d.render import RenderMesh, create_backend, fixed_views


class _Context:
    def __init__(self, device: object = None) -> None:
        self.device = device


def _rasterize(ctx: _Context, pos: torch.Tensor, tri: torch.Tensor, resolution: tuple[int, int],
               ranges: object = None, grad_db: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    assert pos.dtype == torch.float32 and pos.ndim == 3 and pos.shape[-1] == 4 and tri.dtype == torch.int32
    h, w = resolution
    clip = pos[0].double().numpy()
    faces = tri.long().numpy()
    ndc = clip[:, :3] / clip[:, 3:4]
    ys, xs = np.meshgrid((2 * np.arange(h) + 1) / h - 1, (2 * np.arange(w) + 1) / w - 1, indexing="ij")
    p = np.stack([xs.ravel(), ys.ravel()], 1)[:, None, :]  # (P, 1, 2)
    a, b, c = (ndc[faces[:, k], :2][None] for k in range(3))  # (1, F, 2)
    cross = lambda u, v: u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]  # noqa: E731
    area = cross(b - a, c - a)
    with np.errstate(divide="ignore", invalid="ignore"):
        l1, l2 = cross(p - a, c - a) / area, cross(b - a, p - a) / area
    l0 = 1 - l1 - l2
    inside = (l0 >= 0) & (l1 >= 0) & (l2 >= 0) & (area != 0)
    z = l0 * ndc[faces[:, 0], 2] + l1 * ndc[faces[:, 1], 2] + l2 * ndc[faces[:, 2], 2]
    inside &= (z >= -1) & (z <= 1)
    z = np.where(inside, z, np.inf)
    best = np.argmin(z, axis=1)
    hit = np.isfinite(z[np.arange(len(p)), best])
    inv_w = 1 / clip[faces[best], 3]  # (P, 3)
    lam = np.stack([l0, l1, l2], -1)[np.arange(len(p)), best] * inv_w
    bary = lam / lam.sum(1, keepdims=True)
    out = np.zeros((len(p), 4))
    out[hit, 0], out[hit, 1] = bary[hit, 0], bary[hit, 1]
    out[hit, 2] = z[np.arange(len(p)), best][hit]
    out[hit, 3] = best[hit] + 1
    return torch.from_numpy(out.reshape(1, h, w, 4).astype(np.float32)), torch.zeros(1, h, w, 0)


@pytest.fixture
def fake_nvdiffrast(monkeypatch: pytest.MonkeyPatch) -> None:
    package, module = types.ModuleType("nvdiffrast"), types.ModuleType("nvdiffrast.torch")
    module.RasterizeCudaContext = _Context  # type: ignore[attr-defined]
    module.rasterize = _rasterize  # type: ignore[attr-defined]
    package.torch = module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "nvdiffrast", package)
    monkeypatch.setitem(sys.modules, "nvdiffrast.torch", module)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


def test_nvdiffrast_glue_matches_open3d(fake_nvdiffrast: None, cabinet: RenderMesh) -> None:
    from seed3d.render.backends.nvdiffrast_cuda import NvdiffrastBackend

    nv = NvdiffrastBackend(device="cpu")
    ref = create_backend("open3d")
    for cam in fixed_views(cabinet, 40, 32):  # not square, so a swapped width/height would show
        a, b = nv.rasterize(cabinet, cam), ref.rasterize(cabinet, cam)
        assert a.tri_id.shape == (32, 40)
        same = a.tri_id == b.tri_id
        assert same.mean() > 0.99
        np.testing.assert_allclose(a.bary[same & b.mask], b.bary[same & b.mask], atol=1e-4)
        assert np.all(a.bary[~a.mask] == 0)
