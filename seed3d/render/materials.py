"""Per-pixel PBR material values: factors × textures sampled (bilinear, repeat) at interpolated UVs.

Base colour maps are sRGB: texels are decoded to linear before filtering, and ``albedo`` is linear RGB.
The metallic-roughness map follows glTF: roughness = G, metallic = B (R unused). Opacity (alpha) is not
rendered. UVs use the trimesh/OpenGL convention of ``RenderMesh``: v = 0 is the bottom row of the image.
"""

from __future__ import annotations

import weakref

import numpy as np

from seed3d.render.geometry import RenderMesh
from seed3d.typed import NDArray

F32 = NDArray[np.float32]

# Decoded float maps per RenderMesh, dropped with the mesh.
_MAPS: weakref.WeakKeyDictionary[RenderMesh, list[F32 | None]] = weakref.WeakKeyDictionary()


def srgb_to_linear(c: NDArray[np.floating]) -> F32:
    """sRGB-encoded values in [0, 1] to linear (IEC 61966-2-1)."""
    c = np.asarray(c, np.float32)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(c: NDArray[np.floating]) -> F32:
    """Linear values to sRGB encoding, clipped to [0, 1]."""
    c = np.clip(np.asarray(c, np.float32), 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055).astype(np.float32)


def sample_bilinear(image: F32, uv: NDArray[np.floating]) -> F32:
    """Bilinear lookup of an (h, w, C) float image at (N, 2) UVs with repeat wrapping; texel centres at (i + .5) / w.

    v grows upward: v = 1 is the top edge of the first row.
    """
    h, w = image.shape[:2]
    x = uv[:, 0] * w - 0.5
    y = (1.0 - uv[:, 1]) * h - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    fx, fy = (x - x0).astype(np.float32)[:, None], (y - y0).astype(np.float32)[:, None]
    ix0, iy0 = np.mod(x0.astype(np.int64), w), np.mod(y0.astype(np.int64), h)
    ix1, iy1 = np.mod(ix0 + 1, w), np.mod(iy0 + 1, h)
    top = image[iy0, ix0] * (1 - fx) + image[iy0, ix1] * fx
    bottom = image[iy1, ix0] * (1 - fx) + image[iy1, ix1] * fx
    return (top * (1 - fy) + bottom * fy).astype(np.float32)


def _maps(mesh: RenderMesh) -> list[F32 | None]:
    """Per part, one float texture stacking what it has: linear base colour (3) then roughness, metallic (2).

    Both maps of a part are resampled to the larger size when they differ, so one bilinear lookup serves all.
    """
    cached = _MAPS.get(mesh)
    if cached is None:
        cached = []
        for mat, has_uv in zip(mesh.materials, mesh.part_has_uv, strict=True):
            base = mr = None
            if has_uv and mat.base_color_map is not None:
                base = srgb_to_linear(mat.base_color_map[..., :3].astype(np.float32) / 255.0)
            else:
                base = np.ones((1, 1, 3), np.float32)
            if has_uv and mat.metallic_roughness_map is not None:
                mr = mat.metallic_roughness_map[..., 1:3].astype(np.float32) / 255.0
            else:
                mr = np.ones((1, 1, 2), np.float32)
            if base.shape[:2] == mr.shape[:2] == (1, 1):
                cached.append(None)
                continue
            size = max(base.shape[:2], mr.shape[:2])
            cached.append(np.concatenate([_resize(base, size), _resize(mr, size)], axis=2))
        _MAPS[mesh] = cached
    return cached


def _resize(image: F32, size: tuple[int, int]) -> F32:
    """Nearest-texel resampling to ``size`` (only used to bring a part's two maps to one size)."""
    if image.shape[:2] == size:
        return image
    rows = (np.arange(size[0]) * image.shape[0]) // size[0]
    cols = (np.arange(size[1]) * image.shape[1]) // size[1]
    return image[rows][:, cols]


def evaluate_materials(mesh: RenderMesh, part_id: NDArray[np.integer], uv: NDArray[np.floating] | None
                       ) -> tuple[F32, F32, F32]:
    """Linear albedo (N, 3), metallic (N,) and roughness (N,) at N surface points of the given parts and UVs.

    Parts without UVs (or without maps) use their constant factors.
    """
    n = len(part_id)
    factors = np.array([[*m.base_color[:3], m.roughness, m.metallic] for m in mesh.materials], np.float32)
    values = factors[part_id]  # (N, 5): r, g, b, roughness, metallic
    maps = _maps(mesh)
    if uv is not None:
        present = np.unique(part_id)
        for p in present:  # a loop over parts (a handful), each step vectorised over its pixels
            if maps[p] is None:
                continue
            if len(present) == 1:
                values *= sample_bilinear(maps[p], uv)
            else:
                sel = np.flatnonzero(part_id == p)
                values[sel] *= sample_bilinear(maps[p], uv[sel])
    if not n:
        values = np.zeros((0, 5), np.float32)
    return np.ascontiguousarray(values[:, :3]), values[:, 4].copy(), values[:, 3].copy()
