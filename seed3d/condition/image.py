"""Image preprocessing: load a picture safely, find the object (alpha channel or uniform background), crop it,
recenter it and composite it over a fixed background.

Every conditioning image, at inference and in training, goes through ``preprocess_rgba``:

1. colour is made **premultiplied linear light** (``lin(object) * alpha``), as the data set composites it;
2. the object's box is the bounding box of ``alpha >= 0.5`` (the half-coverage edge of an antialiased
   object); it is grown to a square whose side is the box's longest side / ``fill`` and kept centred, so the
   object fills ``fill`` of the output along its longest side, whatever the input framing;
3. premultiplied colour and alpha are resampled into ``size`` x ``size`` with a Lanczos filter (outside the
   image: transparent);
4. the result is composited over ``background`` in linear light and encoded back to sRGB.

``preprocess_image`` does the loading and the object finding first: an alpha channel is used when it is not
trivially opaque; otherwise the background colour is estimated from the image's border and removed (a soft
alpha by colour distance, the largest connected region, small holes filled). A border that is not one colour
(a photograph) gets a foreground mask from OpenCV's GrabCut (``grabcut_alpha``: seeded by the border as sure
background and a centred box as probable foreground, at a working size of 256 px, the largest component(s)
kept); when that mask is implausible (almost empty, almost the whole frame, or no colour contrast with the
background) no background can be removed: the whole image is kept (and a warning logged).
"""

from __future__ import annotations

import io
import logging
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from seed3d.errors import InvalidInputError
from seed3d.typed import UInt8Array

if TYPE_CHECKING:
    import torch
    from PIL import Image as PILImage

logger = logging.getLogger(__name__)

F32: TypeAlias = NDArray[np.float32]
#: What ``load_image`` accepts: a path, encoded bytes, a PIL image or an (H, W[, C]) array.
ImageSource: TypeAlias = "str | PathLike[str] | bytes | bytearray | PILImage.Image | np.ndarray"

#: Default limit on decoded pixels (width x height).
MAX_PIXELS = 4096 * 4096
#: Default limit on the size of an encoded image file (bytes).
MAX_BYTES = 50 * 1024 * 1024
#: Alpha at or above which a pixel counts as object when its box is measured.
BOX_THRESHOLD = 0.5
#: Default canvas colour (sRGB in [0, 1]) the object is composited over.
DEFAULT_BACKGROUND = (1.0, 1.0, 1.0)

_OPAQUE = 250  # alpha values at or above this count as opaque when deciding whether an alpha channel is used
_LANCZOS_SUPPORT = 3


# --------------------------------------------------------------------------------------------- colour


def srgb_to_linear(c: NDArray[np.floating]) -> F32:
    """sRGB-encoded values in [0, 1] to linear light (IEC 61966-2-1)."""
    c = np.asarray(c, np.float32)
    return np.where(c <= 0.04045, c / 12.92, ((np.maximum(c, 0.04045) + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(c: NDArray[np.floating]) -> F32:
    """Linear values to sRGB encoding, clipped to [0, 1]."""
    c = np.clip(np.asarray(c, np.float32), 0.0, 1.0)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * np.power(c, 1 / 2.4) - 0.055).astype(np.float32)


def _unit(x: np.ndarray, name: str) -> F32:
    """uint8 (0..255) or float (0..1) values as float32 in [0, 1]."""
    x = np.asarray(x)
    if x.dtype == np.uint8:
        return x.astype(np.float32) / 255.0
    if x.dtype == np.bool_:
        return x.astype(np.float32)
    if not np.issubdtype(x.dtype, np.floating) and not np.issubdtype(x.dtype, np.integer):
        raise InvalidInputError(f"{name} must be uint8 or float in [0, 1], got dtype {x.dtype}")
    x = x.astype(np.float32)
    if x.size and (not np.isfinite(x).all() or x.min() < -1e-4 or x.max() > 1 + 1e-4):
        raise InvalidInputError(f"{name} must be uint8 or float in [0, 1]; its values span "
                                f"[{np.nanmin(x):.3g}, {np.nanmax(x):.3g}]")
    return np.clip(x, 0.0, 1.0)


# --------------------------------------------------------------------------------------------- loading


def _check_pixels(width: int, height: int, max_pixels: int, what: str) -> None:
    if width <= 0 or height <= 0:
        raise InvalidInputError(f"{what} is empty ({width} x {height} pixels)")
    if width * height > max_pixels:
        raise InvalidInputError(f"{what} is {width} x {height} pixels, more than the limit of {max_pixels} "
                                "(max_pixels): downscale it first")


def _array_to_rgba(arr: np.ndarray, max_pixels: int) -> UInt8Array:
    if arr.ndim == 2:
        arr = arr[..., None]
    if arr.ndim != 3 or arr.shape[2] not in (1, 3, 4):
        raise InvalidInputError(f"an image array must be (H, W), (H, W, 3) or (H, W, 4), got shape {arr.shape}")
    _check_pixels(arr.shape[1], arr.shape[0], max_pixels, "the image array")
    if arr.dtype == np.uint16:
        u8 = np.round(arr.astype(np.float32) / 257.0).astype(np.uint8)
    else:
        u8 = np.round(_unit(arr, "an image array") * 255.0).astype(np.uint8)
    if u8.shape[2] == 1:
        u8 = np.repeat(u8, 3, axis=2)
    if u8.shape[2] == 3:
        u8 = np.concatenate([u8, np.full(u8.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(u8)


def _pil_to_rgba(im: PILImage.Image) -> UInt8Array:
    from PIL import ImageOps

    try:
        im = ImageOps.exif_transpose(im)
    except Exception as exc:  # a malformed EXIF block must not make a readable image unreadable
        logger.warning("ignoring unreadable EXIF orientation: %s", exc)
    if im.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        gray = np.asarray(im, np.float64)
        top = 65535.0 if im.mode.startswith("I;16") or (im.mode == "I" and gray.max() > 255) else (
            1.0 if im.mode == "F" else 255.0)
        g = np.round(np.clip(gray / top, 0, 1) * 255).astype(np.uint8)
        return np.ascontiguousarray(np.stack([g, g, g, np.full_like(g, 255)], axis=-1))
    return np.array(im.convert("RGBA"), dtype=np.uint8)


def load_image(source: ImageSource, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_BYTES) -> UInt8Array:
    """An image as RGBA uint8 (H, W, 4); unreadable, truncated, empty or oversized input raises
    ``InvalidInputError`` (sizes are checked from the header, before anything is decoded)."""
    from PIL import Image, UnidentifiedImageError

    if isinstance(source, np.ndarray):
        return _array_to_rgba(source, max_pixels)
    if isinstance(source, Image.Image):
        _check_pixels(source.width, source.height, max_pixels, "the image")
        return _pil_to_rgba(source)
    if isinstance(source, bytes | bytearray | memoryview):
        data, what = bytes(source), "the image data"
    elif isinstance(source, str | PathLike):
        path = Path(source)
        if not path.is_file():
            raise InvalidInputError(f"{path}: no such image file")
        n = path.stat().st_size
        if n > max_bytes:
            raise InvalidInputError(f"{path} is {n} bytes, more than the limit of {max_bytes} (max_bytes)")
        data, what = path.read_bytes(), str(path)
    else:
        raise InvalidInputError(f"cannot read an image from {type(source).__name__}: pass a path, bytes, "
                                "a PIL image or a numpy array")
    if not data:
        raise InvalidInputError(f"{what} is empty (0 bytes)")
    if len(data) > max_bytes:
        raise InvalidInputError(f"{what} is {len(data)} bytes, more than the limit of {max_bytes} (max_bytes)")
    with warnings.catch_warnings():
        # the pixel limit is ours (checked below from the header); PIL's own warning would repeat it
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            im = Image.open(io.BytesIO(data))
        except UnidentifiedImageError as exc:
            raise InvalidInputError(f"{what} is not an image PIL can read (PNG, JPEG, WebP, ...)") from exc
        except Image.DecompressionBombError as exc:
            raise InvalidInputError(f"{what} declares more pixels than allowed (decompression bomb?): {exc}") \
                from exc
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise InvalidInputError(f"{what} is not a readable image: {exc}") from exc
        _check_pixels(im.width, im.height, max_pixels, what)
        try:
            im.load()
        except (OSError, SyntaxError, ValueError, EOFError, MemoryError) as exc:
            raise InvalidInputError(f"{what} is truncated or corrupt: {exc}") from exc
    return _pil_to_rgba(im)


# --------------------------------------------------------------------------------------------- object finding


def has_alpha(rgba: UInt8Array) -> bool:
    """Whether an RGBA image's alpha channel carries a mask (some pixel is clearly not opaque)."""
    return bool(rgba.shape[-1] == 4 and rgba[..., 3].min() < _OPAQUE)


@dataclass(frozen=True)
class BackgroundEstimate:
    """The colour of an image's border and whether it is uniform enough to be removed."""

    colour: tuple[float, float, float]
    """Median sRGB colour of the border pixels."""
    uniform_fraction: float
    """Fraction of border pixels within the tolerance of that colour."""
    noise: float
    """95th percentile of the colour distance of those close border pixels (sRGB units)."""
    uniform: bool
    """Whether ``uniform_fraction`` reaches the required share."""


def estimate_background(rgb: F32, border: float = 0.02, tolerance: float = 0.1, share: float = 0.8
                        ) -> BackgroundEstimate:
    """Estimate a uniform background colour from the border pixels of ``rgb`` (H, W, 3) sRGB in [0, 1]."""
    h, w = rgb.shape[:2]
    b = max(1, round(border * min(h, w)))
    ring = np.concatenate([rgb[:b].reshape(-1, 3), rgb[-b:].reshape(-1, 3),
                           rgb[b:-b, :b].reshape(-1, 3), rgb[b:-b, -b:].reshape(-1, 3)])
    colour = np.median(ring, axis=0)
    dist = np.linalg.norm(ring - colour, axis=1)
    close = dist <= tolerance
    fraction = float(close.mean())
    noise = float(np.quantile(dist[close], 0.95)) if close.any() else float(tolerance)
    return BackgroundEstimate(tuple(float(c) for c in colour), fraction, noise,  # type: ignore[arg-type]
                              fraction >= share)


def _largest_component(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    from scipy import ndimage

    labels, n = ndimage.label(mask, structure=np.ones((3, 3), bool))
    if n == 0:
        return mask
    sizes = np.bincount(labels.ravel())[1:]
    return np.asarray(labels == int(np.argmax(sizes)) + 1)


def background_alpha(rgb: F32, colour: Sequence[float], noise: float = 0.0, max_hole: float = 0.01,
                     ramp: float = 0.1) -> F32:
    """Soft alpha (H, W) of the object in ``rgb`` against a uniform background ``colour``: colour distance
    ramped from just above the background noise over ``ramp``, the largest connected region only, holes
    smaller than ``max_hole`` of the object's area filled."""
    from scipy import ndimage

    dist = np.linalg.norm(rgb - np.asarray(colour, np.float32), axis=-1)
    lo = max(0.04, 1.5 * float(noise))
    soft = np.clip((dist - lo) / ramp, 0.0, 1.0).astype(np.float32)
    hard = _largest_component(soft >= 0.5)
    if not hard.any():
        raise InvalidInputError("no object found: every pixel is close to the background colour "
                                f"{tuple(round(c, 3) for c in colour)}; give an image with an alpha channel")
    filled = ndimage.binary_fill_holes(hard)
    holes, n = ndimage.label(filled & ~hard)
    if n:
        sizes = np.bincount(holes.ravel())
        small = sizes <= max_hole * float(filled.sum())
        small[0] = False
        hard = hard | small[holes]
    support = ndimage.binary_dilation(hard, iterations=2)
    alpha = np.where(support, soft, 0.0).astype(np.float32)
    alpha[ndimage.binary_erosion(hard, iterations=1) | (hard & (soft < 0.5))] = 1.0
    return alpha


@dataclass(frozen=True)
class GrabCutConfig:
    """How ``grabcut_alpha`` seeds, runs and judges OpenCV's GrabCut on a photo with a busy background."""

    work_size: int = 256
    """Longest side (pixels) the image is reduced to for the segmentation; the mask is scaled back up."""
    iterations: int = 5
    """GrabCut iterations (colour models re-estimated, graph cut solved)."""
    border: float = 0.05
    """Width of the frame's border ring marked as sure background, as a share of the shorter side."""
    box: float = 0.2
    """Margin of the centred box (share of each side, from the frame's edge) inside which the object is seeded as
    probably foreground; between the border ring and the box: probably background."""
    keep: float = 0.15
    """Components of the mask at least this share of the largest one are kept (the largest always is)."""
    min_area: float = 0.03
    """A mask covering less of the frame than this is refused (nothing found)."""
    max_area: float = 0.85
    """A mask covering more of the frame than this is refused (the background was not separated)."""
    min_separation: float = 0.35
    """A mask whose colours are not this distinct from the background's (total-variation distance of their
    colour histograms, 0 = the same colours, 1 = no colour in common) is refused: GrabCut found no object."""
    feather: float = 0.7
    """Width (working-size pixels) of the soft edge the hard mask gets when scaled back up."""
    strip: float = 0.02
    """Radius (share of the shorter side) of the opening that finds the mask's body: thinner bands (a floor line
    GrabCut let through) are cut off at the body's columns (see ``_trim_strips``)."""
    margin: float = 0.03
    """Margin (share of the shorter side) either side of the body's columns that the mask keeps."""

    def __post_init__(self) -> None:
        problems = []
        if isinstance(self.work_size, bool) or not isinstance(self.work_size, int) or self.work_size < 32:
            problems.append(f"work_size must be an integer of at least 32 pixels, got {self.work_size!r}")
        if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) or self.iterations < 1:
            problems.append(f"iterations must be a positive integer, got {self.iterations!r}")
        if not 0.0 < self.border < 0.5 or not self.border <= self.box < 0.5:
            problems.append(f"need 0 < border <= box < 0.5 (shares of the frame), got border={self.border}, "
                            f"box={self.box}")
        if not 0.0 <= self.keep <= 1.0:
            problems.append(f"keep must lie in [0, 1], got {self.keep}")
        if not 0.0 <= self.min_area < self.max_area <= 1.0:
            problems.append(f"need 0 <= min_area < max_area <= 1, got {self.min_area} and {self.max_area}")
        if not 0.0 <= self.min_separation <= 1.0 or self.feather < 0.0:
            problems.append(f"min_separation must lie in [0, 1] and feather be >= 0, got {self.min_separation} and "
                            f"{self.feather}")
        if problems:
            raise InvalidInputError("GrabCutConfig: " + "; ".join(problems))


def _colour_separation(rgb_u8: UInt8Array, mask: NDArray[np.bool_], bins: int = 8) -> float:
    """Total-variation distance between the colour histograms (``bins`` per channel) inside and outside ``mask``."""
    q = (rgb_u8.astype(np.int32) * bins) // 256
    idx = (q[..., 0] * bins + q[..., 1]) * bins + q[..., 2]
    inside = np.bincount(idx[mask], minlength=bins ** 3).astype(np.float64)
    outside = np.bincount(idx[~mask], minlength=bins ** 3).astype(np.float64)
    if inside.sum() == 0 or outside.sum() == 0:
        return 0.0
    return float(0.5 * np.abs(inside / inside.sum() - outside / outside.sum()).sum())


def _import_cv2() -> Any:
    try:
        import cv2
    except ImportError as exc:
        from seed3d.errors import DependencyError

        raise DependencyError("finding the object in a photo with a busy background needs OpenCV: "
                              "pip install opencv-python-headless==5.0.0.93") from exc
    return cv2


def _kept(labels: NDArray[np.int32], n: int, keep: float) -> NDArray[np.bool_]:
    """The largest labelled component and those at least ``keep`` of its size."""
    sizes = np.bincount(labels.ravel())[1:]
    kept = np.zeros(n + 1, bool)
    kept[1:] = sizes >= keep * sizes.max()
    return kept[labels]


def _trim_strips(mask: NDArray[np.bool_], cfg: GrabCutConfig) -> NDArray[np.bool_]:
    """``mask`` cut to the columns of its body (what survives an opening by ``strip`` of the shorter side, with a
    margin of ``margin``): a thin band GrabCut let through along a floor line, skirting or table edge, running out
    to the frame's sides, no longer widens the object's crop to the whole image. Rows are kept whole: legs and
    stems reach below a body (a chair's seat) and are thin too."""
    from scipy import ndimage

    r = max(1, round(cfg.strip * min(mask.shape)))
    disc = np.hypot(*np.mgrid[-r:r + 1, -r:r + 1]) <= r
    body = ndimage.binary_opening(mask, structure=disc)
    labels, n = ndimage.label(body, structure=np.ones((3, 3), bool))
    if n == 0:
        return mask
    body = _kept(labels, n, cfg.keep)
    cols = np.flatnonzero(body.any(0))
    m = max(1, round(cfg.margin * min(mask.shape)))
    box = np.zeros_like(mask)
    box[:, max(0, cols[0] - m):cols[-1] + m + 1] = True
    return mask & box


def grabcut_alpha(rgb: F32, config: GrabCutConfig | None = None) -> F32 | None:
    """The object's alpha (H, W) in ``rgb`` (H, W, 3) sRGB in [0, 1] by OpenCV's GrabCut, or None when no
    plausible object was found.

    GrabCut runs at ``work_size`` on a seed of a sure-background border ring and a centred box of probable
    foreground; the largest component (and those at least ``keep`` of it) is kept, cut to its body's columns (thin
    bands along floor lines dropped, ``_trim_strips``) and its holes filled. The mask is refused when it covers less
    than ``min_area`` or more than ``max_area`` of the frame, or when its colours do not stand apart from the
    background's (``min_separation``). The kept mask is scaled back to (H, W) with a
    soft edge of about ``feather`` working pixels. Deterministic (OpenCV's random generator is seeded)."""
    from PIL import Image
    from scipy import ndimage

    cfg = config or GrabCutConfig()
    cv2 = _import_cv2()
    h, w = rgb.shape[:2]
    scale = min(1.0, cfg.work_size / max(h, w))
    ww, wh = max(8, round(w * scale)), max(8, round(h * scale))
    u8 = np.round(np.clip(rgb, 0, 1) * 255).astype(np.uint8)
    small = u8 if (ww, wh) == (w, h) else np.asarray(
        Image.fromarray(u8, "RGB").resize((ww, wh), Image.Resampling.LANCZOS), np.uint8)
    seed = np.full((wh, ww), cv2.GC_PR_BGD, np.uint8)
    bx, by = max(1, round(cfg.box * ww)), max(1, round(cfg.box * wh))
    seed[by:wh - by, bx:ww - bx] = cv2.GC_PR_FGD
    ring = max(1, round(cfg.border * min(ww, wh)))
    seed[:ring], seed[-ring:], seed[:, :ring], seed[:, -ring:] = (cv2.GC_BGD,) * 4
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    try:
        out, _, _ = cv2.grabCut(np.ascontiguousarray(small[..., ::-1]), seed, None, bgd, fgd, int(cfg.iterations),
                                cv2.GC_INIT_WITH_MASK)
    except cv2.error as exc:  # e.g. a degenerate colour model (every pixel one colour)
        logger.info("GrabCut found no object: %s", exc)
        return None
    fg = (out == cv2.GC_FGD) | (out == cv2.GC_PR_FGD)
    labels, n = ndimage.label(fg, structure=np.ones((3, 3), bool))
    if n == 0:
        return None
    mask = _trim_strips(_kept(labels, n, cfg.keep), cfg)
    labels, n = ndimage.label(mask, structure=np.ones((3, 3), bool))
    if n == 0:
        return None
    mask = ndimage.binary_fill_holes(_kept(labels, n, cfg.keep))
    area = float(mask.mean())
    separation = _colour_separation(small, mask)
    if not cfg.min_area <= area <= cfg.max_area or separation < cfg.min_separation:
        logger.info("GrabCut mask refused: it covers %.1f%% of the frame (allowed %.0f%%..%.0f%%), colour "
                    "separation %.2f (needs %.2f)", 100 * area, 100 * cfg.min_area, 100 * cfg.max_area,
                    separation, cfg.min_separation)
        return None
    soft = mask.astype(np.float32)
    if cfg.feather > 0:
        soft = ndimage.gaussian_filter(soft, cfg.feather)
    if (ww, wh) != (w, h):
        soft = np.asarray(Image.fromarray(soft, "F").resize((w, h), Image.Resampling.BILINEAR), np.float32)
    # a soft edge only: the inside stays opaque and the outside clear
    return np.clip((soft - 0.5) * 2.0 + 0.5, 0.0, 1.0).astype(np.float32)


# --------------------------------------------------------------------------------------------- recentering


@dataclass
class Preprocessed:
    """A conditioning image: the object recentered, resized and composited over a fixed background."""

    rgb: F32
    """(S, S, 3) sRGB colour in [0, 1]."""
    alpha: F32
    """(S, S) object coverage in [0, 1]."""
    box: tuple[float, float, float, float]
    """The square crop (x0, y0, x1, y1) in input pixels that became the output (may extend past the image)."""
    method: str
    """How the object was found: 'alpha' (the image's alpha channel), 'background' (a uniform background was
    removed), 'grabcut' (a busy background was segmented away by GrabCut), 'none' (no background found: the whole
    image) or 'given' (alpha passed by the caller)."""
    background: tuple[float, float, float] | None
    """The canvas colour (sRGB) composited under the object; None: the image's own background was kept."""
    removed_background: tuple[float, float, float] | None = None
    """The background colour that was estimated and removed ('background' method)."""
    frame: F32 | None = None
    """'grabcut' only: (S, S, 3) the whole image as method 'none' gives it. A network trained on photos with their
    backgrounds reads both (a GrabCut cut-out alone reads worse: eval/results/program_image.json)."""

    def to_uint8(self) -> UInt8Array:
        """RGBA uint8 (S, S, 4): the composited colour and the alpha."""
        rgba = np.concatenate([self.rgb, self.alpha[..., None]], axis=-1)
        return np.round(np.clip(rgba, 0, 1) * 255).astype(np.uint8)


def object_box(alpha: F32, fill: float = 0.85, threshold: float = BOX_THRESHOLD
               ) -> tuple[float, float, float, float]:
    """The square crop (x0, y0, x1, y1) centred on the object's bounding box (pixels with alpha at or above
    ``threshold``; any coverage when none reaches it) whose side is the box's longest side / ``fill``."""
    mask = alpha >= threshold
    if not mask.any():
        mask = alpha > 0
    if not mask.any():
        raise InvalidInputError("the alpha mask is empty: there is no object to crop")
    cols, rows = np.flatnonzero(mask.any(axis=0)), np.flatnonzero(mask.any(axis=1))
    x0, x1, y0, y1 = float(cols[0]), float(cols[-1] + 1), float(rows[0]), float(rows[-1] + 1)
    half = max(x1 - x0, y1 - y0) / fill / 2.0
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    return (cx - half, cy - half, cx + half, cy + half)


def _resample(channels: F32, box: tuple[float, float, float, float], size: int, pad: str) -> F32:
    """Resample (H, W, C) float channels inside ``box`` to (size, size, C) with Lanczos; outside the image the
    channels are 0 (``pad='zero'``) or repeat the edge (``pad='edge'``)."""
    from PIL import Image

    h, w = channels.shape[:2]
    x0, y0, x1, y1 = box
    margin = math.ceil(_LANCZOS_SUPPORT * max(1.0, (x1 - x0) / size)) + 1
    left, top = max(0, math.ceil(-x0) + margin), max(0, math.ceil(-y0) + margin)
    right, bottom = max(0, math.ceil(x1 - w) + margin), max(0, math.ceil(y1 - h) + margin)
    mode = "constant" if pad == "zero" else "edge"
    padded = np.pad(channels, ((top, bottom), (left, right), (0, 0)), mode=mode)
    pbox = (x0 + left, y0 + top, x1 + left, y1 + top)
    out = [np.asarray(Image.fromarray(np.ascontiguousarray(padded[..., c]), mode="F")
                      .resize((size, size), Image.Resampling.LANCZOS, box=pbox), np.float32)
           for c in range(channels.shape[2])]
    return np.stack(out, axis=-1)


def _check_options(size: int, fill: float, background: Sequence[float] | None) -> tuple[float, float, float] | None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidInputError(f"size must be a positive integer, got {size!r}")
    if not 0.0 < fill <= 1.0:
        raise InvalidInputError(f"fill must lie in (0, 1], got {fill}")
    if background is None:
        return None
    bg = tuple(float(c) for c in background)
    if len(bg) != 3 or not all(0.0 <= c <= 1.0 for c in bg):
        raise InvalidInputError(f"background must be an sRGB triple in [0, 1] or None, got {background!r}")
    return bg  # type: ignore[return-value]


def _recenter(premult: F32, alpha: F32, original: F32 | None, size: int, fill: float,
              background: tuple[float, float, float] | None, box: tuple[float, float, float, float] | None = None,
              scale: float = 1.0) -> tuple[F32, F32, tuple[float, float, float, float]]:
    """Crop/resize premultiplied linear colour + alpha and composite; returns rgb, alpha and the box (scaled by
    ``scale`` into the caller's pixel units)."""
    if box is None:
        box = object_box(alpha, fill)
    res = _resample(np.concatenate([premult, alpha[..., None]], axis=-1), box, size, "zero")
    a = np.clip(res[..., 3], 0.0, 1.0)
    if background is None:
        if original is None:
            raise InvalidInputError("background=None needs the image's own colours")
        rgb = linear_to_srgb(_resample(original, box, size, "edge"))
    else:
        col = np.clip(res[..., :3], 0.0, a[..., None])
        rgb = linear_to_srgb(col + srgb_to_linear(np.asarray(background, np.float32)) * (1.0 - a[..., None]))
    return rgb, a.astype(np.float32), tuple(float(v) * scale for v in box)  # type: ignore[return-value]


def preprocess_rgba(rgb: np.ndarray, alpha: np.ndarray, composited_over: np.ndarray | Sequence[float] | None = None,
                    size: int = 128, fill: float = 0.85,
                    background: Sequence[float] | None = DEFAULT_BACKGROUND) -> Preprocessed:
    """Recenter an object given its colour and alpha: ``rgb`` (H, W, 3) sRGB, uint8 or float in [0, 1];
    ``alpha`` (H, W). ``composited_over`` is the background ``rgb`` was composited over (a colour or an
    (H, W, 3) image; the data set's ``cond_background``), removed in linear light; None: ``rgb`` is the
    object's straight (unpremultiplied) colour, as in an RGBA file."""
    bg = _check_options(size, fill, background)
    c = _unit(rgb, "rgb")
    a = _unit(alpha, "alpha")
    if c.ndim != 3 or c.shape[2] != 3 or a.shape != c.shape[:2]:
        raise InvalidInputError(f"rgb must be (H, W, 3) and alpha (H, W) of the same size, got {c.shape} "
                                f"and {a.shape}")
    lin = srgb_to_linear(c)
    if composited_over is None:
        premult = lin * a[..., None]
    else:
        under = _unit(np.asarray(composited_over), "composited_over")
        if under.shape not in ((3,), c.shape):
            raise InvalidInputError(f"composited_over must be a colour (3,) or an image {c.shape}, "
                                    f"got {under.shape}")
        premult = np.clip(lin - srgb_to_linear(under) * (1.0 - a[..., None]), 0.0, a[..., None])
    out_rgb, out_a, box = _recenter(premult, a, lin, size, fill, bg)
    return Preprocessed(out_rgb, out_a, box, "given", bg)


def preprocess_views(rgb: np.ndarray, alpha: np.ndarray, composited_over: np.ndarray | None = None,
                     size: int = 128, fill: float = 0.85,
                     background: Sequence[float] | None = DEFAULT_BACKGROUND) -> list[Preprocessed]:
    """``preprocess_rgba`` over a stack of views: ``rgb`` (V, H, W, 3), ``alpha`` (V, H, W) and optionally
    ``composited_over`` (V, H, W, 3), e.g. a sample's ``cond_rgb``, ``cond_alpha``, ``cond_background``."""
    rgb, alpha = np.asarray(rgb), np.asarray(alpha)
    if rgb.ndim != 4 or alpha.ndim != 3 or len(rgb) != len(alpha):
        raise InvalidInputError(f"expected rgb (V, H, W, 3) and alpha (V, H, W), got {rgb.shape} and {alpha.shape}")
    unders: list[Any] = [None] * len(rgb) if composited_over is None else list(np.asarray(composited_over))
    if len(unders) != len(rgb):
        raise InvalidInputError(f"composited_over has {len(unders)} views, rgb has {len(rgb)}")
    return [preprocess_rgba(rgb[i], alpha[i], unders[i], size, fill, background) for i in range(len(rgb))]


def _whole_frame(lin: F32, size: int, bg: tuple[float, float, float] | None, scale: float
                 ) -> tuple[F32, F32, tuple[float, float, float, float]]:
    """The whole (linear) image, centred in a square of ``size``: (sRGB, alpha, box)."""
    a = np.ones(lin.shape[:2], np.float32)
    side = float(max(lin.shape[:2]))
    cx, cy = lin.shape[1] / 2, lin.shape[0] / 2
    box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    return _recenter(lin, a, lin, size, 1.0, bg, box=box, scale=scale)


def preprocess_image(image: ImageSource, size: int = 128, fill: float = 0.85,
                     background: Sequence[float] | None = DEFAULT_BACKGROUND, max_pixels: int = MAX_PIXELS,
                     max_bytes: int = MAX_BYTES, work_size: int = 1024, grabcut: bool | GrabCutConfig = True
                     ) -> Preprocessed:
    """Load ``image``, find the object (alpha channel, else a uniform border colour, else GrabCut), recenter it so
    that it fills ``fill`` of a ``size`` x ``size`` square and composite it over ``background`` (None: keep the
    image's own). Images larger than ``work_size`` are first reduced to it (the box is in input pixels).
    ``grabcut``: whether (or with which ``GrabCutConfig``) a photo with a busy border is segmented; when it is
    not, or GrabCut finds no plausible object, the whole image is kept (method 'none', with a warning)."""
    from PIL import Image

    bg = _check_options(size, fill, background)
    rgba = load_image(image, max_pixels=max_pixels, max_bytes=max_bytes)
    h, w = rgba.shape[:2]
    scale = 1.0
    if max(h, w) > work_size:
        scale = max(h, w) / work_size
        nw, nh = max(1, round(w / scale)), max(1, round(h / scale))
        rgba = np.asarray(Image.fromarray(rgba, "RGBA").resize((nw, nh), Image.Resampling.LANCZOS), np.uint8)
        scale = w / nw
    c = rgba[..., :3].astype(np.float32) / 255.0
    lin = srgb_to_linear(c)
    if has_alpha(rgba):
        a = rgba[..., 3].astype(np.float32) / 255.0
        if not (a >= 1.0 / 255).any():
            raise InvalidInputError("the image is fully transparent: there is no object in it")
        rgb, alpha, box = _recenter(lin * a[..., None], a, lin, size, fill, bg, scale=scale)
        return Preprocessed(rgb, alpha, box, "alpha", bg)
    est = estimate_background(c)
    if not est.uniform and grabcut is not False:
        a_cut = grabcut_alpha(c, grabcut if isinstance(grabcut, GrabCutConfig) else None)
        if a_cut is not None:
            logger.info("the image border is not one colour: the object was found by GrabCut (%.0f%% of the frame)",
                        100 * float((a_cut >= 0.5).mean()))
            rgb, alpha, box = _recenter(lin * a_cut[..., None], a_cut, lin, size, fill, bg, scale=scale)
            return Preprocessed(rgb, alpha, box, "grabcut", bg, frame=_whole_frame(lin, size, bg, scale)[0])
    if not est.uniform:
        logger.warning("the image border is not one colour (%.0f%% of it matches its median colour) and no object "
                       "stands out from it: no background removed, the whole image is kept; pass an image with an "
                       "alpha channel or a plain background", 100 * est.uniform_fraction)
        rgb, alpha, box = _whole_frame(lin, size, bg, scale)
        return Preprocessed(rgb, alpha, box, "none", bg)
    a = background_alpha(c, est.colour, est.noise)
    premult = np.clip(lin - srgb_to_linear(np.asarray(est.colour, np.float32)) * (1.0 - a[..., None]), 0.0,
                      a[..., None])
    rgb, alpha, box = _recenter(premult, a, lin, size, fill, bg, scale=scale)
    return Preprocessed(rgb, alpha, box, "background", bg, est.colour)


def to_tensor(items: Preprocessed | Sequence[Preprocessed], alpha: bool = False) -> torch.Tensor:
    """Stack preprocessed images into a float32 tensor (B, 3, S, S) in [0, 1] ((B, 4, S, S) with ``alpha``)."""
    import torch

    batch = [items] if isinstance(items, Preprocessed) else list(items)
    if not batch:
        raise InvalidInputError("to_tensor needs at least one preprocessed image")
    sizes = {p.rgb.shape for p in batch}
    if len(sizes) != 1:
        raise InvalidInputError(f"preprocessed images differ in size: {sorted(sizes)}")
    arrays = [np.concatenate([p.rgb, p.alpha[..., None]], -1) if alpha else p.rgb for p in batch]
    return torch.from_numpy(np.stack(arrays).astype(np.float32)).permute(0, 3, 1, 2).contiguous()
