"""Deterministic, batched augmentations of conditioning views for training the image encoder (torch).

Input is what the data set stores per view: ``cond_rgb`` (composited over a random background),
``cond_alpha`` and ``cond_background``. The object is first un-composited in linear light
(``lin(rgb) = lin(object) * a + lin(background) * (1 - a)``, as ``DATASET.md`` documents), then:

- **lighting and colour** on the object's straight colour: exposure (stops), gamma, saturation and a small hue
  rotation about the grey axis;
- **crop**: the same square box as ``seed3d.condition.image.object_box`` (centred on the ``alpha >= 0.5``
  bounding box, side = longest side / ``fill``), then randomly rescaled, shifted and optionally rotated, as an
  imperfect crop at inference would be; resampled bicubically at ``supersample`` x the output size, then
  averaged down;
- **background**: the canonical colour of inference (probability ``p_canonical``) or a new uniform colour,
  linear gradient or smooth colour noise, composited in linear light.

With every jitter at 0 and ``p_canonical`` = 1 the output is ``preprocess_rgba``'s up to the resampling
filter (bicubic here, Lanczos there: about 0.002 mean difference). All randomness comes from one
``torch.Generator`` (or seed), drawn on the CPU, so the same seed gives the same output on any device.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from seed3d.condition.image import BOX_THRESHOLD, DEFAULT_BACKGROUND
from seed3d.errors import InvalidInputError


@dataclass
class AugmentConfig:
    """Ranges of the training augmentations (each one is drawn uniformly per image)."""

    size: int = 128
    """Output side in pixels."""
    fill: float = 0.85
    """Share of the output side the object's longest side fills before the crop jitter (as at inference)."""
    canonical_background: tuple[float, float, float] = DEFAULT_BACKGROUND
    """The background inference composites over (sRGB)."""
    p_canonical: float = 0.5
    """Probability of the canonical background; otherwise uniform, gradient or noise in equal shares."""
    exposure: float = 0.5
    """Exposure change in stops, drawn from [-exposure, exposure]."""
    gamma: float = 0.2
    """Gamma exp(U(-gamma, gamma)) on the straight linear colour."""
    saturation: float = 0.25
    """Saturation factor 1 + U(-saturation, saturation)."""
    hue: float = 0.03
    """Hue rotation in turns, drawn from [-hue, hue]."""
    crop_scale: float = 0.12
    """Crop side times exp(U(-crop_scale, crop_scale))."""
    crop_shift: float = 0.05
    """Crop centre moved by U(-crop_shift, crop_shift) of the crop side, in x and in y."""
    rotation: float = 0.0
    """Rotation in degrees, drawn from [-rotation, rotation] (0: none)."""
    recenter: bool = True
    """Crop and recenter the object; False keeps the input framing (resized to ``size``)."""
    supersample: int = 2
    """Resampling factor before averaging down (antialiasing)."""

    def __post_init__(self) -> None:
        if self.size < 1 or self.supersample < 1:
            raise InvalidInputError("AugmentConfig.size and supersample must be positive")
        if not 0.0 < self.fill <= 1.0:
            raise InvalidInputError(f"AugmentConfig.fill must lie in (0, 1], got {self.fill}")
        if not 0.0 <= self.p_canonical <= 1.0:
            raise InvalidInputError(f"AugmentConfig.p_canonical must lie in [0, 1], got {self.p_canonical}")
        for name in ("exposure", "gamma", "saturation", "hue", "crop_scale", "crop_shift", "rotation"):
            if getattr(self, name) < 0:
                raise InvalidInputError(f"AugmentConfig.{name} must be >= 0, got {getattr(self, name)}")
        self.canonical_background = tuple(float(c) for c in self.canonical_background)  # type: ignore[assignment]

    @classmethod
    def identity(cls, size: int = 128, fill: float = 0.85) -> AugmentConfig:
        """No jitter and the canonical background: the inference normalisation, in torch."""
        return cls(size=size, fill=fill, p_canonical=1.0, exposure=0.0, gamma=0.0, saturation=0.0, hue=0.0,
                   crop_scale=0.0, crop_shift=0.0, rotation=0.0)


class Augmented(NamedTuple):
    """Augmented views: ``rgb`` (B, 3, S, S) sRGB in [0, 1] and ``alpha`` (B, 1, S, S)."""

    rgb: torch.Tensor
    alpha: torch.Tensor


def srgb_to_linear(c: torch.Tensor) -> torch.Tensor:
    """sRGB-encoded values in [0, 1] to linear light."""
    return torch.where(c <= 0.04045, c / 12.92, ((c.clamp(min=0.04045) + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c: torch.Tensor) -> torch.Tensor:
    """Linear values to sRGB encoding, clipped to [0, 1]."""
    c = c.clamp(0.0, 1.0)
    return torch.where(c <= 0.0031308, c * 12.92, 1.055 * c.clamp(min=0.0031308) ** (1 / 2.4) - 0.055)


def _nchw(x: torch.Tensor | np.ndarray, channels: int, name: str) -> torch.Tensor:
    """(B, H, W, C) or (B, H, W) uint8 / float in [0, 1] as float32 (B, C, H, W)."""
    t = torch.as_tensor(np.ascontiguousarray(x)) if isinstance(x, np.ndarray) else x
    if t.dtype == torch.uint8:
        t = t.float() / 255.0
    elif t.is_floating_point():
        t = t.float()
    else:
        raise InvalidInputError(f"{name} must be uint8 or float in [0, 1], got {t.dtype}")
    if channels == 1 and t.ndim == 3:
        t = t[..., None]
    if t.ndim != 4 or t.shape[-1] != channels:
        raise InvalidInputError(f"{name} must be (B, H, W{', 3' if channels == 3 else ''}), got {tuple(t.shape)}")
    return t.permute(0, 3, 1, 2).contiguous()


def _uniform(g: torch.Generator, n: int, bound: float, *shape: int) -> torch.Tensor:
    return (torch.rand(n, *shape, generator=g) * 2.0 - 1.0) * bound


def object_boxes(alpha: torch.Tensor, fill: float, threshold: float = BOX_THRESHOLD) -> torch.Tensor:
    """Per image (B, 1, H, W) the square crop as (cx, cy, half side) in pixels (``object_box`` batched); an
    empty alpha gives the whole image."""
    h, w = alpha.shape[2:]
    mask = alpha[:, 0] >= threshold
    weak = alpha[:, 0] > 0
    use = torch.where(mask.flatten(1).any(1)[:, None, None], mask, weak)
    cols, rows = use.any(1), use.any(2)  # (B, W), (B, H)
    xs = torch.arange(w, device=alpha.device)
    ys = torch.arange(h, device=alpha.device)
    big = max(h, w) + 1
    x0 = torch.where(cols, xs, big).amin(1).float()
    x1 = torch.where(cols, xs, -1).amax(1).float() + 1
    y0 = torch.where(rows, ys, big).amin(1).float()
    y1 = torch.where(rows, ys, -1).amax(1).float() + 1
    empty = ~cols.any(1)
    x0, x1 = torch.where(empty, 0.0, x0), torch.where(empty, float(w), x1)
    y0, y1 = torch.where(empty, 0.0, y0), torch.where(empty, float(h), y1)
    half = torch.maximum(x1 - x0, y1 - y0) / fill / 2.0
    return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, half], dim=1)


def _hue_matrices(turns: torch.Tensor) -> torch.Tensor:
    """(B, 3, 3) rotations about the grey axis (1, 1, 1) by ``turns``."""
    theta = turns * 2 * math.pi
    cos, sin = torch.cos(theta), torch.sin(theta)
    k = torch.tensor([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]]) / math.sqrt(3.0)
    eye, kk = torch.eye(3), k @ k
    return eye + sin[:, None, None] * k + (1 - cos)[:, None, None] * kk


def _backgrounds(gen: torch.Generator, n: int, size: int, cfg: AugmentConfig
                 ) -> torch.Tensor:
    """(n, 3, size, size) sRGB backgrounds: canonical, uniform, gradient or smooth noise."""
    pick = torch.rand(n, generator=gen)
    kind = torch.randint(0, 3, (n,), generator=gen)
    colours = torch.rand(n, 2, 3, generator=gen)
    angle = torch.rand(n, generator=gen) * 2 * math.pi
    grid = torch.rand(n, 3, 4, 4, generator=gen)
    t = torch.linspace(0.0, 1.0, size)
    yy, xx = torch.meshgrid(t - 0.5, t - 0.5, indexing="ij")
    ramp = (torch.cos(angle)[:, None, None] * xx + torch.sin(angle)[:, None, None] * yy + 0.5).clamp(0, 1)
    gradient = colours[:, 0, :, None, None] + ramp[:, None] * (colours[:, 1] - colours[:, 0])[:, :, None, None]
    noise = F.interpolate(grid, size=(size, size), mode="bilinear", align_corners=True)
    uniform = colours[:, 0, :, None, None].expand(n, 3, size, size)
    out = torch.where((kind == 0)[:, None, None, None], uniform, torch.where((kind == 1)[:, None, None, None],
                                                                             gradient, noise))
    canonical = torch.tensor(cfg.canonical_background)[None, :, None, None].expand(n, 3, size, size)
    return torch.where((pick < cfg.p_canonical)[:, None, None, None], canonical, out)


class ViewAugmenter:
    """Augments batches of data-set views (``cond_rgb``, ``cond_alpha``, ``cond_background``) into encoder input."""

    def __init__(self, config: AugmentConfig | None = None) -> None:
        self.config = config or AugmentConfig()

    def __call__(self, rgb: torch.Tensor | np.ndarray, alpha: torch.Tensor | np.ndarray,
                 composited_over: torch.Tensor | np.ndarray | None = None,
                 generator: torch.Generator | int | None = None) -> Augmented:
        """Augment views ``rgb`` (B, H, W, 3), ``alpha`` (B, H, W) (uint8 or [0, 1] floats), composited over
        ``composited_over`` (B, H, W, 3; None: ``rgb`` is straight colour); ``generator`` or an int seed."""
        cfg = self.config
        gen = generator if isinstance(generator, torch.Generator) else torch.Generator().manual_seed(
            0 if generator is None else int(generator))
        c = _nchw(rgb, 3, "rgb")
        a = _nchw(alpha, 1, "alpha")
        if a.shape[0] != c.shape[0] or a.shape[2:] != c.shape[2:]:
            raise InvalidInputError(f"alpha {tuple(a.shape)} does not match rgb {tuple(c.shape)}")
        dev, n, h, w = c.device, c.shape[0], c.shape[2], c.shape[3]
        a = a.to(dev)
        lin = srgb_to_linear(c)
        if composited_over is None:
            premult = lin * a
        else:
            under = _nchw(composited_over, 3, "composited_over").to(dev)
            if under.shape != c.shape:
                raise InvalidInputError(f"composited_over {tuple(under.shape)} does not match rgb {tuple(c.shape)}")
            premult = torch.minimum((lin - srgb_to_linear(under) * (1 - a)).clamp(min=0), a)

        # lighting and colour, on the straight colour
        exposure = _uniform(gen, n, cfg.exposure).to(dev)
        gamma = torch.exp(_uniform(gen, n, cfg.gamma)).to(dev)
        sat = (1.0 + _uniform(gen, n, cfg.saturation)).to(dev)
        hue = _hue_matrices(_uniform(gen, n, cfg.hue)).to(dev)
        if cfg.exposure or cfg.gamma or cfg.saturation or cfg.hue:
            straight = (premult / a.clamp(min=1e-4)).clamp(0, 1)
            straight = (straight * torch.exp2(exposure)[:, None, None, None]).clamp(0, 1)
            straight = straight.clamp(min=1e-8) ** gamma[:, None, None, None]
            grey = (straight * torch.tensor([0.2126, 0.7152, 0.0722], device=dev)[:, None, None]).sum(1, True)
            straight = grey + (straight - grey) * sat[:, None, None, None]
            straight = torch.einsum("bij,bjhw->bihw", hue, straight).clamp(0, 1)
            premult = straight * a

        # crop: the inference box, jittered
        scale = torch.exp(_uniform(gen, n, cfg.crop_scale))
        shift = _uniform(gen, n, cfg.crop_shift, 2)
        angle = _uniform(gen, n, math.radians(cfg.rotation))
        if cfg.recenter:
            box = object_boxes(a, cfg.fill).cpu()
        else:
            box = torch.tensor([[w / 2, h / 2, max(h, w) / 2]]).expand(n, 3)
        half = box[:, 2] * scale
        cx = box[:, 0] + shift[:, 0] * 2 * half
        cy = box[:, 1] + shift[:, 1] * 2 * half
        cos, sin = torch.cos(angle), torch.sin(angle)
        theta = torch.stack([torch.stack([2 * half / w * cos, -2 * half / w * sin, 2 * cx / w - 1], 1),
                             torch.stack([2 * half / h * sin, 2 * half / h * cos, 2 * cy / h - 1], 1)], 1)
        big = cfg.size * cfg.supersample
        grid = F.affine_grid(theta.to(dev), [n, 4, big, big], align_corners=False)
        sampled = F.grid_sample(torch.cat([premult, a], 1), grid, mode="bicubic", padding_mode="zeros",
                                align_corners=False)
        if cfg.supersample > 1:
            sampled = F.avg_pool2d(sampled, cfg.supersample)
        out_a = sampled[:, 3:].clamp(0, 1)
        col = torch.minimum(sampled[:, :3].clamp(min=0), out_a)

        # background
        bg = _backgrounds(gen, n, cfg.size, cfg).to(dev)
        out = linear_to_srgb(col + srgb_to_linear(bg) * (1 - out_a))
        return Augmented(out, out_a)


def augment_views(rgb: torch.Tensor | np.ndarray, alpha: torch.Tensor | np.ndarray,
                  composited_over: torch.Tensor | np.ndarray | None = None,
                  generator: torch.Generator | int | None = None, config: AugmentConfig | None = None) -> Augmented:
    """``ViewAugmenter(config)(rgb, alpha, composited_over, generator)``."""
    return ViewAugmenter(config)(rgb, alpha, composited_over, generator)
