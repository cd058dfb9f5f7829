"""Texture baking: per-view albedo / metallic / roughness images → UV atlas → glTF PBR texture maps on each part.

``bake_asset(asset, cameras, albedo, metallic, roughness)`` is the last step of the texture stage: the
generator paints V fixed views (``seed3d.render.fixed_views``), and this module carries those pixels onto
the surface. ``project_reference_image`` is the single-image baseline the texture eval compares against.

How (every step vectorised over texels; a loop runs over parts and views only):

1. **Unwrap** each part (``seed3d.pbr.unwrap``): xatlas in a child process, or the box-projection atlas when
   xatlas fails, times out or the part is larger than ``xatlas_max_faces``. Parts get textures sized by their
   share of the surface (``resolution``² for the whole asset, powers of two, at least ``min_part_resolution``).
2. **Rasterise the atlas in UV space** with the project's rasteriser (a plane of UVs seen by a pinhole camera
   at distance 1 is an exact orthographic raster), then grow every chart by ``border_texels`` rings (each
   ring texel takes its neighbour's triangle, its barycentrics clamped into it), so bilinear and mip-mapped
   lookups at chart edges read surface colour, not gutter.
3. **Back-project**: each texel's surface point is projected into every view. A view's sample is the
   bilinear mix of the four pixels around it, keeping only pixels that show this surface (rendered depth
   within a tolerance that grows with the pixel footprint and the slope) and are in the image's mask; its
   weight is |cos(normal, view direction)|^``cosine_power`` times a feather that falls off within
   ``feather_px`` of silhouettes and depth edges, so view boundaries blend instead of cutting seams.
4. **Fill** what no view saw with a 3-D push-pull (a multi-resolution voxel average of seen texels, finest
   level where it has data), so holes take the colour of the surface around them across chart seams and
   between charts; then fill the gutter between charts with a 2-D push-pull of the texture, so no black
   texel is left for mip-maps to bleed in.
5. **Encode**: albedo as sRGB (blending happens in linear light), metallic-roughness packed the glTF way
   (R = 0, G = roughness, B = metallic); the part's material factors become 1 (alpha kept).

Images are sRGB-encoded albedo (as textures and the data set store it), metallic and roughness in [0, 1],
as uint8 (0–255) or float arrays, one per camera with the camera's size.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh, Part, PBRMaterial
from seed3d.errors import InvalidInputError
from seed3d.pbr.unwrap import UNWRAP_METHODS, Atlas, unwrap_meshes
from seed3d.render import Camera, Renderer, RenderMesh, compute_buffers, get_renderer, linear_to_srgb, srgb_to_linear
from seed3d.render.rigs import bounding_sphere
from seed3d.typed import FloatArray, IntArray, NDArray, ProgressCallback, UInt8Array

log = logging.getLogger(__name__)

F32 = NDArray[np.float32]

#: Largest texture side the baker makes.
MAX_RESOLUTION = 2048


@dataclass
class BakeConfig:
    """Options of the baker (defaults suit the 6-view texture rig at 512 px)."""

    resolution: int = 1024
    """Texture side for the whole asset (16 … 2048); a part gets a power-of-two share by its surface area."""
    min_part_resolution: int = 32
    """Smallest texture side a part gets."""
    padding: int = 4
    """Texels between charts in the atlas."""
    border_texels: int = 2
    """Rings of gutter texels around each chart that are projected from the views (chart-edge filtering)."""
    cosine_power: float = 4.0
    """Exponent on |cos(normal, view direction)| in each view's weight."""
    feather_px: float = 6.0
    """Width (image pixels) over which a view's weight falls off towards silhouettes and depth edges."""
    depth_tolerance: float = 0.004
    """Depth agreement needed for a texel to count as visible, as a fraction of the bounding radius (plus a
    term for the pixel footprint and slope)."""
    unwrap: str = "auto"
    """``auto`` (xatlas up to ``xatlas_max_faces`` faces per part, box projection above), ``xatlas`` or ``box``."""
    xatlas_max_faces: int = 30000
    """Largest part ``auto`` gives to xatlas (it takes about 0.7 ms per face; 100k faces take over a minute)."""
    unwrap_timeout_s: float | None = None
    """Seconds xatlas may spend on one part before the fallback is used (None: 60 s + 3 ms per face)."""
    unwrap_command: tuple[str, ...] | None = None
    """Command line of the xatlas child (its job folder is appended); None: this Python, ``-m seed3d.pbr.unwrap``."""
    backend: str = "auto"
    """Render backend for depth maps and the UV raster when no renderer is passed."""
    chunk_texels: int = 1 << 19
    """Texels projected at once (bounds memory)."""

    def __post_init__(self) -> None:
        for name in ("resolution", "min_part_resolution", "padding", "border_texels", "xatlas_max_faces",
                     "chunk_texels"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(f"BakeConfig.{name} must be a non-negative integer, got {value!r}")
        if not 16 <= self.resolution <= MAX_RESOLUTION:
            raise InvalidInputError(f"BakeConfig.resolution must lie in 16..{MAX_RESOLUTION}, got {self.resolution}")
        if not 8 <= self.min_part_resolution <= self.resolution:
            raise InvalidInputError("BakeConfig.min_part_resolution must lie in 8..resolution, "
                                    f"got {self.min_part_resolution}")
        if self.unwrap not in UNWRAP_METHODS:
            raise InvalidInputError(f"BakeConfig.unwrap must be one of {', '.join(UNWRAP_METHODS)}, "
                                    f"got {self.unwrap!r}")
        if not (self.cosine_power >= 0 and self.feather_px >= 0 and self.depth_tolerance > 0 and self.chunk_texels):
            raise InvalidInputError("BakeConfig: cosine_power and feather_px must be >= 0, depth_tolerance and "
                                    "chunk_texels > 0")


@dataclass(eq=False)
class PartBake:
    """What baking did to one part."""

    part: str
    resolution: int
    unwrap: str
    """``xatlas`` or ``box``."""
    unwrap_reason: str | None
    charts: int
    seen_fraction: float
    """Share of the part's chart texels some view saw (the rest were filled)."""


@dataclass(eq=False)
class BakeResult:
    """The baked asset (new meshes with UVs, textured materials) and what happened on the way."""

    asset: Asset
    parts: list[PartBake]
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Plain-JSON summary (per-part resolution, unwrap method, seen fraction; timings in seconds)."""
        return {"parts": [dataclasses.asdict(p) for p in self.parts],
                "timings": {k: round(v, 4) for k, v in self.timings.items()}}


# ----------------------------------------------------------------------------------------------- inputs


def _image_stack(images: Any, cameras: Sequence[Camera], channels: int | None, what: str) -> list[F32]:
    """Validate per-view images (uint8 0..255 or float 0..1) against the cameras; float32 copies in [0, 1]."""
    if isinstance(images, np.ndarray) and images.dtype != object:
        if images.ndim < 3:
            raise InvalidInputError(f"{what} must be one image per view, got an array of shape {images.shape}")
        seq = list(images)
    else:
        seq = list(images)
    if len(seq) != len(cameras):
        raise InvalidInputError(f"{what}: {len(seq)} images for {len(cameras)} cameras; pass one per camera")
    out = []
    for k, (img, cam) in enumerate(zip(seq, cameras, strict=True)):
        arr = np.asarray(img)
        want = (cam.height, cam.width) if channels is None else (cam.height, cam.width, channels)
        if channels is None and arr.ndim == 3 and arr.shape[2] == 1:
            arr = arr[..., 0]
        if arr.shape != want:
            raise InvalidInputError(f"{what}[{k}] has shape {arr.shape}; camera {k} needs {want}")
        if arr.dtype == np.uint8:
            out.append(arr.astype(np.float32) / 255.0)
        elif arr.dtype == np.bool_ and channels is None:
            out.append(arr.astype(np.float32))
        elif np.issubdtype(arr.dtype, np.floating):
            f = arr.astype(np.float32)
            if not np.all(np.isfinite(f)) or f.min() < -1e-4 or f.max() > 1 + 1e-4:
                raise InvalidInputError(f"{what}[{k}]: float images must be finite and within [0, 1]")
            out.append(np.clip(f, 0.0, 1.0))
        else:
            raise InvalidInputError(f"{what}[{k}] must be uint8 (0-255) or float (0-1), got {arr.dtype}")
    return out


def _check_cameras(cameras: Sequence[Camera]) -> list[Camera]:
    cams = list(cameras)
    if not cams:
        raise InvalidInputError("baking needs at least one camera and its images")
    for k, cam in enumerate(cams):
        if not isinstance(cam, Camera):
            raise InvalidInputError(f"cameras[{k}] is a {type(cam).__name__}, not a seed3d.render.Camera")
    return cams


def _as_asset(target: Asset | Mesh) -> Asset:
    if isinstance(target, Mesh):
        closed = bool(len(target.faces)) and bool(target.welded().to_trimesh().is_watertight)
        target = Asset("mesh", [Part("mesh", target, watertight=closed)])
    if not isinstance(target, Asset):
        raise InvalidInputError(f"bake an Asset or a Mesh, not a {type(target).__name__}")
    empty = [p.name for p in target.parts if not len(p.mesh.faces)]
    if empty or not target.parts:
        raise InvalidInputError(f"cannot bake parts without faces: {empty or 'the asset has no parts'}")
    return target


# ----------------------------------------------------------------------------------------------- views


@dataclass(eq=False)
class _View:
    camera: Camera
    weighted: F32  # (H*W, C + 1): feather × values (linear albedo [, metallic, roughness]), then feather; 0 if unusable
    depth: F32  # (H*W,) camera z of the surface; NaN where the pixel is unusable


def _prepare_view(renderer: Renderer, mesh: RenderMesh, camera: Camera, values: F32, mask: F32 | None,
                  radius: float, config: BakeConfig) -> _View:
    """Render the view's depth; valid pixels; feather weight falling off towards silhouettes and depth edges."""
    from scipy.ndimage import distance_transform_edt

    raster = renderer.backend.rasterize(mesh, camera)
    buf = compute_buffers(mesh, raster, camera, ("depth",), backend=renderer.backend_name)
    depth = buf.depth.astype(np.float32)
    valid = buf.mask.copy()
    if mask is not None:
        valid &= mask > 0.5
    # depth edges: neighbours whose depths differ by far more than the pixel footprint explains
    pix = depth / float(min(camera.fx, camera.fy))
    jump = 0.01 * radius + 8.0 * pix
    edge = ~valid
    rows = (np.abs(depth[1:] - depth[:-1]) > np.minimum(jump[1:], jump[:-1])) & valid[1:] & valid[:-1]
    cols = (np.abs(depth[:, 1:] - depth[:, :-1]) > np.minimum(jump[:, 1:], jump[:, :-1])) & valid[:, 1:] & valid[:, :-1]
    edge[1:] |= rows
    edge[:-1] |= rows
    edge[:, 1:] |= cols
    edge[:, :-1] |= cols
    if config.feather_px > 0 and edge.any():
        dist = distance_transform_edt(~edge).astype(np.float32)
        feather = 0.05 + 0.95 * np.clip((dist - 0.5) / config.feather_px, 0.0, 1.0)
    else:
        feather = np.ones(depth.shape, np.float32)
    feather = np.where(valid, feather, 0.0).astype(np.float32)[..., None]
    weighted = np.concatenate([values * feather, feather], axis=2).reshape(-1, values.shape[-1] + 1)
    return _View(camera, weighted.astype(np.float32), np.where(valid, depth, np.nan).reshape(-1).astype(np.float32))


def _splat_views(points: FloatArray, normals: FloatArray, views: Sequence[_View], radius: float,
                 config: BakeConfig) -> tuple[F32, F32]:
    """Weighted sum of every view's valid bilinear samples at the points: (numerator (N, C), weight (N,))."""
    n = len(points)
    channels = views[0].weighted.shape[1]
    acc = np.zeros((n, channels), np.float32)
    for view in views:
        cam = view.camera
        w_img, h_img = cam.width, cam.height
        pc = points @ cam.rotation.T + cam.world_to_camera[:3, 3]
        z = pc[:, 2]
        zs = np.where(z > 1e-9, z, np.nan)
        x = cam.fx * pc[:, 0] / zs + (cam.cx - 0.5)
        y = cam.fy * pc[:, 1] / zs + (cam.cy - 0.5)
        inside = (x > -1) & (x < w_img) & (y > -1) & (y < h_img)  # NaN compares False
        # cheap first pass: the nearest pixel must show a surface near this depth (drops hidden texels early)
        xn = np.clip(np.rint(np.where(inside, x, 0.0)), 0, w_img - 1).astype(np.int64)
        yn = np.clip(np.rint(np.where(inside, y, 0.0)), 0, h_img - 1).astype(np.int64)
        coarse = 4.0 * config.depth_tolerance * radius + 16.0 * np.where(inside, zs, 0.0) / min(cam.fx, cam.fy)
        near = np.abs(view.depth[yn * w_img + xn] - z) < coarse
        keep = np.flatnonzero(inside & (near | ~np.isfinite(view.depth[yn * w_img + xn])))
        if not len(keep):
            continue
        p, z, x, y = points[keep], z[keep], x[keep], y[keep]
        to_cam = cam.position - p
        cos = np.abs(np.einsum("ij,ij->i", normals[keep], to_cam)) / np.maximum(np.linalg.norm(to_cam, axis=1), 1e-12)
        sin = np.sqrt(np.maximum(1.0 - cos**2, 0.0))
        tol = (config.depth_tolerance * radius + 1.5 * z / min(cam.fx, cam.fy) * sin / np.maximum(cos, 0.1))
        base = (cos ** config.cosine_power).astype(np.float32)
        x0, y0 = np.floor(x), np.floor(y)
        fx, fy = (x - x0).astype(np.float32), (y - y0).astype(np.float32)
        x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
        zf, tolf = z.astype(np.float32), tol.astype(np.float32)
        sub = np.zeros((len(keep), channels), np.float32)
        for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
            xi, yi = x0 + dx, y0 + dy
            ok = (xi >= 0) & (xi < w_img) & (yi >= 0) & (yi < h_img)
            idx = np.where(ok, yi * w_img + xi, 0)
            good = ok & (np.abs(view.depth[idx] - zf) < tolf)  # NaN depth (unusable pixel) compares False
            wb = (fx if dx else 1 - fx) * (fy if dy else 1 - fy)
            w = np.where(good, wb * base, np.float32(0.0))
            sub += w[:, None] * view.weighted[idx]
        acc[keep] += sub
    return acc[:, :-1], acc[:, -1]


# ----------------------------------------------------------------------------------------------- atlas raster


def _uv_raster(renderer: Renderer, atlas: Atlas, size: int) -> IntArray:
    """(size, size) triangle id per texel centre (-1 outside charts): the UV layout drawn at depth 1."""
    plane = np.column_stack([atlas.uv[:, 0], 1.0 - atlas.uv[:, 1], np.ones(len(atlas.uv))])
    mesh = RenderMesh.from_mesh(Mesh(plane, atlas.faces))
    cam = Camera(size, size, float(size), float(size), 0.0, 0.0, np.eye(4))
    return renderer.backend.rasterize(mesh, cam).tri_id.astype(np.int64)


def _grow(tri: IntArray, rings: int) -> IntArray:
    """Give each empty texel next to a chart (up to ``rings`` away) the triangle of a neighbour (fixed order)."""
    h, w = tri.shape
    out = tri.copy()
    for _ in range(rings):
        padded = np.full((h + 2, w + 2), -1, np.int64)
        padded[1:-1, 1:-1] = out
        fill = out.copy()
        for dy, dx in ((0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
            nb = padded[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
            take = (fill < 0) & (nb >= 0)
            fill[take] = nb[take]
        out = fill
    return out


def _texel_points(tri: IntArray, texels: IntArray, atlas: Atlas, vertices: FloatArray, face_normals: FloatArray,
                  size: int) -> tuple[FloatArray, FloatArray]:
    """Surface point and normal of texels (flat indices) from their triangle's UVs (barycentrics clamped in)."""
    t = tri.reshape(-1)[texels]
    row, col = np.divmod(texels, size)
    p = np.column_stack([(col + 0.5) / size, 1.0 - (row + 0.5) / size])
    corners = atlas.faces[t]
    a, b, c = atlas.uv[corners[:, 0]], atlas.uv[corners[:, 1]], atlas.uv[corners[:, 2]]
    e1, e2, d = b - a, c - a, p - a
    det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    safe = np.abs(det) > 1e-18
    det = np.where(safe, det, 1.0)
    l1 = np.where(safe, (d[:, 0] * e2[:, 1] - d[:, 1] * e2[:, 0]) / det, 1 / 3)
    l2 = np.where(safe, (e1[:, 0] * d[:, 1] - e1[:, 1] * d[:, 0]) / det, 1 / 3)
    bary = np.clip(np.column_stack([1.0 - l1 - l2, l1, l2]), 0.0, None)
    bary /= np.maximum(bary.sum(axis=1, keepdims=True), 1e-12)
    pv = vertices[atlas.vmap[corners]]  # (N, 3 corners, 3)
    points = np.einsum("ij,ijk->ik", bary, pv)
    return points, face_normals[t]


# ----------------------------------------------------------------------------------------------- filling


def fill_3d(src_points: FloatArray, src_values: F32, query: FloatArray, cell: float) -> F32:
    """Values at ``query`` points from scattered samples: a 3-D push-pull over a voxel pyramid.

    Level ``l`` averages the samples in cells of side ``cell * 2**l``; a query reads each level by trilinear
    interpolation between the cell centres around it, weighted by which cells hold samples (its cover, in
    [0, 1]). Going from the coarsest level (one cell) to the finest, each level replaces the value by its
    own in proportion to its cover, so finer levels win where they have data and hand over smoothly to
    coarser ones where they do not. A query with no cover at one level has none at finer levels, so it
    leaves the loop there: points deep inside unseen regions cost only the coarse levels.
    """
    channels = src_values.shape[1]
    if not len(query):
        return np.zeros((0, channels), np.float32)
    if not len(src_points):
        raise InvalidInputError("nothing to fill from: no sample was seen")
    lo = np.minimum(src_points.min(axis=0), query.min(axis=0))
    extent = float(np.max(np.maximum(src_points.max(axis=0), query.max(axis=0)) - lo))
    levels = max(1, math.ceil(math.log2(max(extent / cell, 1.0))) + 1)
    origin = lo - cell * 2 ** (levels - 1)  # one coarsest cell of margin: every corner index stays >= 0
    dims = [math.ceil((extent + 2 * cell * 2 ** (levels - 1)) / (cell * 2**level)) + 2 for level in range(levels)]
    # build the pyramid fine to coarse: sorted cell keys, per-cell mean; coarser cells merge 2x2x2 of finer ones
    coords = np.floor((src_points - origin) / cell).astype(np.int64)
    sums = src_values.astype(np.float64)
    counts = np.ones(len(src_points))
    pyramid = []
    for level in range(levels):
        d = dims[level]
        keys = (coords[:, 0] * d + coords[:, 1]) * d + coords[:, 2]
        uniq, inverse = np.unique(keys, return_inverse=True)
        cell_sum = np.stack([np.bincount(inverse, sums[:, c], len(uniq)) for c in range(channels)], axis=1)
        cell_count = np.bincount(inverse, counts, len(uniq))
        mean = np.concatenate([(cell_sum / cell_count[:, None]).astype(np.float32), np.ones((1, channels),
                                                                                            np.float32)])
        if d**3 <= 1 << 22:  # small grid: a dense table from cell to row (missing cells point at a zero row)
            table = np.full(d**3, len(uniq), np.int32)
            table[uniq] = np.arange(len(uniq), dtype=np.int32)
            pyramid.append((d, table, None, mean))
        else:
            pyramid.append((d, None, uniq, mean))
        coords = np.stack([uniq // (d * d), (uniq // d) % d, uniq % d], axis=1) // 2
        sums, counts = cell_sum, cell_count
    result = np.broadcast_to((sums.sum(axis=0) / counts.sum()).astype(np.float32), (len(query), channels)).copy()
    active = np.arange(len(query))
    for level in range(levels - 1, -1, -1):
        d, table, uniq, mean = pyramid[level]
        q = (query[active] - origin) / (cell * 2**level) - 0.5
        q0 = np.floor(q)
        frac = (q - q0).astype(np.float32)
        q0 = q0.astype(np.int64)
        base = (q0[:, 0] * d + q0[:, 1]) * d + q0[:, 2]
        wx, wy, wz = ((1 - frac[:, k], frac[:, k]) for k in range(3))
        acc = np.zeros((len(active), channels), np.float32)
        cover = np.zeros(len(active), np.float32)
        for ox in (0, 1):
            for oy in (0, 1):
                wxy = wx[ox] * wy[oy]
                for oz in (0, 1):
                    key = base + (ox * d + oy) * d + oz
                    if table is not None:
                        row = table[key]
                        tw = wxy * wz[oz] * (row < len(mean) - 1)
                    else:
                        pos = np.minimum(np.searchsorted(uniq, key), len(uniq) - 1)
                        hit = uniq[pos] == key
                        row = np.where(hit, pos, len(mean) - 1)
                        tw = wxy * wz[oz] * hit
                    acc += tw[:, None] * mean[row]
                    cover += tw
        has = cover > 1e-6
        blend = np.minimum(cover[has], 1.0)[:, None]
        sel = active[has]
        result[sel] = (1.0 - blend) * result[sel] + blend * (acc[has] / cover[has, None])
        active = sel
        if not len(active):
            break
    return result


def push_pull(image: F32, known: NDArray[np.bool_]) -> F32:
    """Fill the unknown texels of an (H, W, C) image from the known ones by a 2-D push-pull pyramid."""
    if known.all() or not known.any():
        return image.copy()
    h, w = known.shape
    weight = known.astype(np.float32)
    ph, pw = h + h % 2, w + w % 2
    img = np.zeros((ph, pw, image.shape[2]), np.float32)
    wgt = np.zeros((ph, pw), np.float32)
    img[:h, :w] = image * weight[..., None]
    wgt[:h, :w] = weight
    s_img = img.reshape(ph // 2, 2, pw // 2, 2, -1).sum(axis=(1, 3))
    s_w = wgt.reshape(ph // 2, 2, pw // 2, 2).sum(axis=(1, 3))
    coarse_known = s_w > 0
    coarse = np.where(coarse_known[..., None], s_img / np.maximum(s_w, 1e-12)[..., None], 0.0).astype(np.float32)
    coarse = push_pull(coarse, coarse_known)
    up = np.repeat(np.repeat(coarse, 2, axis=0), 2, axis=1)[:h, :w]
    return np.where(known[..., None], image, up).astype(np.float32)


# ----------------------------------------------------------------------------------------------- baking


def _part_resolutions(areas: FloatArray, config: BakeConfig) -> list[int]:
    total = float(areas.sum())
    out = []
    for a in areas:
        share = a / total if total > 0 else 1.0 / len(areas)
        side = config.resolution * math.sqrt(max(share, 1e-12))
        side = 2 ** round(math.log2(max(side, 1.0)))
        out.append(int(min(config.resolution, max(config.min_part_resolution, side))))
    return out


def _encode(values: F32, size: int, with_mr: bool) -> tuple[UInt8Array, UInt8Array | None]:
    img = values.reshape(size, size, -1)
    base = np.round(linear_to_srgb(img[..., :3]) * 255.0).astype(np.uint8)
    if not with_mr:
        return base, None
    mr = np.zeros((size, size, 3), np.uint8)
    mr[..., 1] = np.round(np.clip(img[..., 4], 0, 1) * 255.0).astype(np.uint8)  # G = roughness
    mr[..., 2] = np.round(np.clip(img[..., 3], 0, 1) * 255.0).astype(np.uint8)  # B = metallic
    return base, mr


def bake_asset(target: Asset | Mesh, cameras: Sequence[Camera], albedo: Any, metallic: Any = None,
               roughness: Any = None, masks: Any = None, config: BakeConfig | None = None,
               renderer: Renderer | None = None, progress: ProgressCallback | None = None) -> BakeResult:
    """Bake per-view images into UV textures on every part of ``target`` (see the module doc).

    ``albedo``: V sRGB images (H, W, 3); ``metallic``/``roughness``: V images (H, W) or None (then only the
    base colour is baked and the parts keep their metallic/roughness factors); ``masks``: V (H, W) images
    whose nonzero pixels may be used (None: every pixel on the surface). Returns a new Asset.
    """
    cfg = config or BakeConfig()
    asset = _as_asset(target)
    cams = _check_cameras(cameras)
    if (metallic is None) != (roughness is None):
        raise InvalidInputError("pass both metallic and roughness images, or neither")
    albedo_imgs = _image_stack(albedo, cams, 3, "albedo")
    metal_imgs = _image_stack(metallic, cams, None, "metallic") if metallic is not None else None
    rough_imgs = _image_stack(roughness, cams, None, "roughness") if roughness is not None else None
    mask_imgs = _image_stack(masks, cams, None, "masks") if masks is not None else None
    report = progress or (lambda _f, _m: None)
    timings: dict[str, float] = {}
    t_all = time.perf_counter()
    own = renderer is None
    rend = get_renderer(cfg.backend) if renderer is None else renderer
    try:
        return _bake(asset, cams, albedo_imgs, metal_imgs, rough_imgs, mask_imgs, cfg, rend, report, timings, t_all)
    finally:
        if own:
            rend.close()


def _bake(asset: Asset, cams: list[Camera], albedo: list[F32], metal: list[F32] | None, rough: list[F32] | None,
          masks: list[F32] | None, cfg: BakeConfig, renderer: Renderer, report: ProgressCallback,
          timings: dict[str, float], t_all: float) -> BakeResult:
    with_mr = metal is not None and rough is not None
    report(0.0, "unwrapping")
    t0 = time.perf_counter()
    areas = np.array([p.mesh.face_areas_normals()[0].sum() for p in asset.parts])
    sizes = _part_resolutions(areas, cfg)
    atlases = unwrap_meshes([(p.mesh.vertices, p.mesh.faces) for p in asset.parts], sizes, cfg.padding, cfg.unwrap,
                            cfg.xatlas_max_faces, cfg.unwrap_timeout_s, cfg.unwrap_command)
    timings["unwrap"] = time.perf_counter() - t0

    report(0.2, "rendering view depth")
    t0 = time.perf_counter()
    full = RenderMesh.from_asset(asset)
    _, radius = bounding_sphere(full)
    views = []
    for k, cam in enumerate(cams):
        vals = [srgb_to_linear(albedo[k])]
        if with_mr:
            vals += [metal[k][..., None], rough[k][..., None]]  # type: ignore[index]
        views.append(_prepare_view(renderer, full, cam, np.concatenate(vals, axis=2).astype(np.float32),
                                   None if masks is None else masks[k], radius, cfg))
        report(0.2 + 0.1 * (k + 1) / len(cams), f"rendering view depth ({k + 1} of {len(cams)})")
    timings["views"] = time.perf_counter() - t0

    # per part: raster the atlas, project chart texels (inside + border rings)
    t0 = time.perf_counter()
    channels = 5 if with_mr else 3
    layouts = []
    for i, (p, atlas, size) in enumerate(zip(asset.parts, atlases, sizes, strict=True)):
        report(0.3 + 0.3 * i / len(asset.parts), f"projecting the views onto {p.name}")
        tri = _grow(_uv_raster(renderer, atlas, size), cfg.border_texels)
        texels = np.flatnonzero(tri.reshape(-1) >= 0)
        _, normals = p.mesh.face_areas_normals()
        values = np.zeros((len(texels), channels), np.float32)
        weight = np.zeros(len(texels), np.float32)
        points = np.zeros((len(texels), 3))
        for start in range(0, len(texels), cfg.chunk_texels):
            sl = slice(start, start + cfg.chunk_texels)
            pts, nrm = _texel_points(tri, texels[sl], atlas, p.mesh.vertices, normals, size)
            num, den = _splat_views(pts, nrm, views, radius, cfg)
            seen = den > 1e-8
            values[sl][seen] = num[seen] / den[seen, None]
            weight[sl] = den
            points[sl] = pts
            done = (i + min(1.0, (start + cfg.chunk_texels) / len(texels))) / len(asset.parts)
            report(0.3 + 0.3 * done, f"projecting the views onto {p.name}")
        layouts.append((tri, texels, points, values, weight > 1e-8))
    timings["project"] = time.perf_counter() - t0
    report(0.6, "filling unseen texels")

    # fill: texels no view saw from seen texels of the same part (all parts when it has none), then the gutter
    t0 = time.perf_counter()
    all_seen_pts = np.concatenate([lay[2][lay[4]] for lay in layouts])
    all_seen_val = np.concatenate([lay[3][lay[4]] for lay in layouts])
    if not len(all_seen_pts):
        raise InvalidInputError("no texel of the asset is visible in any view: check the cameras look at it "
                                "(same frame as the asset, OpenCV convention) and the masks are not empty")
    parts, out_parts = [], []
    for i, (p, atlas, size, (_tri, texels, points, values, seen)) in enumerate(
            zip(asset.parts, atlases, sizes, layouts, strict=True)):
        report(0.6 + 0.4 * i / len(asset.parts), f"filling unseen texels of {p.name}")
        area = float(p.mesh.face_areas_normals()[0].sum())
        texel_world = math.sqrt(max(area, 1e-12) / max(len(texels), 1))
        if (~seen).any():
            src_p, src_v = (points[seen], values[seen]) if seen.any() else (all_seen_pts, all_seen_val)
            if len(src_p) > 0:
                values[~seen] = fill_3d(src_p, src_v, points[~seen], 1.5 * texel_world)
        image = np.zeros((size * size, channels), np.float32)
        image[texels] = values
        known = np.zeros(size * size, bool)
        known[texels] = True
        if not len(texels):  # a part too small to cover one texel centre: the asset's mean colour
            image[:] = all_seen_val.mean(axis=0)
            known[:] = True
        image = push_pull(image.reshape(size, size, channels), known.reshape(size, size)).reshape(-1, channels)
        base, mr = _encode(image, size, with_mr)
        old = p.material
        mat = PBRMaterial(f"{p.name}_baked", (1.0, 1.0, 1.0, old.base_color[3]), 1.0 if with_mr else old.metallic,
                          1.0 if with_mr else old.roughness, base, mr if with_mr else None)
        mesh = Mesh(p.mesh.vertices[atlas.vmap], atlas.faces, atlas.uv)
        out_parts.append(dataclasses.replace(p, mesh=mesh, material=mat))
        seen_fraction = float(seen.mean()) if len(seen) else 0.0
        parts.append(PartBake(p.name, size, atlas.method, atlas.reason, atlas.charts, seen_fraction))
        log.info("baked part %r: %d² texture, %s atlas (%d charts), %.0f%% of texels seen", p.name, size,
                 atlas.method, atlas.charts, 100 * seen_fraction)
    timings["fill"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - t_all
    baked = Asset(asset.name, out_parts, list(asset.joints), dict(asset.metadata), asset.joints_known)
    report(1.0, "baked")
    return BakeResult(baked, parts, timings)


def project_reference_image(target: Asset | Mesh, camera: Camera, image: Any, metallic: float = 0.0,
                            roughness: float = 0.5, config: BakeConfig | None = None,
                            renderer: Renderer | None = None) -> BakeResult:
    """Baseline texture: one reference image (known camera) projected onto the surface as albedo, the rest filled.

    ``image`` is (H, W, 3) sRGB or (H, W, 4) with alpha (pixels with alpha < 0.5 are not used); metallic and
    roughness become constant factors on every part. No lighting is removed: shading in the photo stays.
    """
    cams = _check_cameras([camera])
    arr = np.asarray(image)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise InvalidInputError(f"the reference image must be (H, W, 3) or (H, W, 4), got shape {arr.shape}")
    mask = None
    if arr.shape[2] == 4:
        mask = [arr[..., 3]]
        arr = arr[..., :3]
    for name, value in (("metallic", metallic), ("roughness", roughness)):
        if not 0.0 <= float(value) <= 1.0:
            raise InvalidInputError(f"{name} must lie in [0, 1], got {value}")
    result = bake_asset(target, cams, [arr], None, None, mask, config, renderer)
    for p in result.asset.parts:
        p.material.metallic, p.material.roughness = float(metallic), float(roughness)
    return result
