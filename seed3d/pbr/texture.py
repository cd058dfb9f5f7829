"""The texture stage: the multi-view PBR generator paints the fixed rig's views of a mesh or asset (albedo,
metallic, roughness), and the baker carries them into UV textures on every part.

``Texturer.from_pretrained(folder)`` loads a ``seed3d train pbr`` model folder (``generator/`` and, when present,
``tagger/``); ``texturer(asset, image=..., text=...)`` returns a :class:`TextureResult` whose asset has glTF
PBR textures (base colour; metallic-roughness packed G = roughness, B = metallic).

The generator works at its own low resolution (``PBRModelConfig.resolution``); the rig is rendered at
``supersample`` times that, the generated views are upsampled to it by coverage-normalised bilinear
interpolation inside the full-resolution silhouette, and those are baked. Deterministic per seed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from seed3d.asset import Asset, Mesh
from seed3d.errors import InvalidInputError
from seed3d.pbr.bake import MAX_RESOLUTION, BakeConfig, BakeResult, bake_asset
from seed3d.pbr.data import GeometryViews, render_geometry
from seed3d.pbr.model import PBRGenerator, PBRViews, generate_views
from seed3d.pbr.tagger import MaterialTagger
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)


@dataclass
class TextureOptions:
    """Sampling and baking settings of the texture stage."""

    seed: int = 0
    """Seed of the generator's noise (same inputs and seed -> same textures)."""
    steps: int = 2
    """Euler steps of the generator's flow (on the shipped model 1-2 steps score best: eval/bench_pbr.py)."""
    guidance: float = 1.0
    """Classifier-free guidance scale (1: none; more lowered albedo PSNR on the shipped model)."""
    texture_size: int = 1024
    """Texture side for the whole asset (16 … 2048; each part gets a power-of-two share by its area)."""
    supersample: int = 4
    """The rig is rendered (and baked from) at this many times the generator's resolution."""

    def __post_init__(self) -> None:
        for name, low in (("seed", 0), ("steps", 1), ("texture_size", 16), ("supersample", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidInputError(f"{name} must be an integer >= {low}, got {value!r}")
        if not isinstance(self.guidance, int | float) or not self.guidance >= 0:
            raise InvalidInputError(f"guidance must be a number >= 0, got {self.guidance!r}")
        if self.texture_size > MAX_RESOLUTION:
            raise InvalidInputError(f"texture_size must be at most {MAX_RESOLUTION}, got {self.texture_size}")


@dataclass
class TextureResult:
    """A textured asset and what made it."""

    asset: Asset
    """The input's parts with UVs and baked PBR textures (joints and metadata kept)."""
    views: PBRViews
    """The generated views at the generator's resolution."""
    summary: dict[str, Any] = field(default_factory=dict)
    """Plain JSON: the material text used, per-part bake results, timings (also in ``asset.metadata['texture']``)."""


def upsample_views(views: PBRViews, full_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Generated views (V, h, w) upsampled to the full-resolution coverage ``full_mask`` (V, H, W): albedo
    (V, H, W, 3), metallic and roughness (V, H, W), and the pixels that got a value (covered at full resolution
    and next to a covered low-resolution pixel); coverage-normalised bilinear, so the background never bleeds in."""
    v, h, w = views.mask.shape
    if full_mask.ndim != 3 or full_mask.shape[0] != v or full_mask.shape[1] % h or full_mask.shape[2] % w:
        raise InvalidInputError(f"full-resolution mask {full_mask.shape} does not fit views of {views.mask.shape}")
    size = full_mask.shape[1:]
    m = torch.from_numpy(views.mask.astype(np.float32))[:, None]
    vals = torch.from_numpy(np.concatenate([views.albedo, views.metallic[..., None], views.roughness[..., None]],
                                           -1).astype(np.float32)).permute(0, 3, 1, 2)
    num = F.interpolate(vals * m, size=size, mode="bilinear", align_corners=False)
    den = F.interpolate(m, size=size, mode="bilinear", align_corners=False)
    out = (num / den.clamp_min(1e-6)).clamp(0.0, 1.0).permute(0, 2, 3, 1).numpy()
    keep = full_mask.astype(bool) & (den[:, 0].numpy() > 1e-3)
    out = np.where(keep[..., None], out, 0.0).astype(np.float32)
    return out[..., :3], out[..., 3], out[..., 4], keep


def bake_views(target: Asset | Mesh, geometry: GeometryViews, views: PBRViews, texture_size: int = 1024,
               renderer: Any = None, progress: ProgressCallback | None = None) -> BakeResult:
    """Bake views at the generator's resolution (``views``, from the rig of ``geometry``, which must carry its
    full-resolution coverage) into textures on every part of ``target``."""
    if geometry.full_mask is None:
        raise InvalidInputError("the geometry views carry no full-resolution mask (render them with "
                                "seed3d.pbr.data.render_geometry)")
    albedo, metallic, roughness, masks = upsample_views(views, geometry.full_mask)
    return bake_asset(target, geometry.cameras, albedo, metallic, roughness, masks,
                      BakeConfig(resolution=texture_size), renderer, progress=progress)


class Texturer:
    """The texture stage: a trained :class:`PBRGenerator` (and optional :class:`MaterialTagger`) plus the baker."""

    def __init__(self, generator: PBRGenerator, tagger: MaterialTagger | None = None) -> None:
        self.generator = generator.eval()
        self.tagger = tagger.eval() if tagger is not None else None

    @classmethod
    def from_pretrained(cls, folder: PathType, device: str = "cpu") -> Texturer:
        """Load ``folder/generator`` and, when present, ``folder/tagger`` (a ``seed3d train pbr`` model folder)."""
        from pathlib import Path

        root = Path(folder)
        if not (root / "generator" / "config.json").is_file():
            raise InvalidInputError(f"{root}: not a PBR model folder (no generator/config.json)")
        tagger = MaterialTagger.from_pretrained(root / "tagger", device) if (root / "tagger").is_dir() else None
        return cls(PBRGenerator.from_pretrained(root / "generator", device), tagger)

    def __call__(self, target: Asset | Mesh, image: Any = None, text: str | None = None,
                 material_words: Sequence[str] | None = None, caption: str | None = None,
                 options: TextureOptions | None = None, progress: ProgressCallback | None = None,
                 renderer: Any = None) -> TextureResult:
        """Texture every part of ``target`` from a reference ``image`` (path, bytes, PIL image or array), a prompt
        ``text``, ``material_words`` and/or a VLM ``caption`` (none of them: the unconditional model)."""
        from seed3d.render import get_renderer

        if not isinstance(target, Asset | Mesh):
            raise InvalidInputError(f"the texture stage needs an Asset or a Mesh, got {type(target).__name__}")
        opts = options or TextureOptions()
        report = progress or (lambda f, m: None)
        cfg = self.generator.config
        timings: dict[str, float] = {}
        own = renderer is None
        rend = renderer or get_renderer()
        try:
            t0 = time.perf_counter()
            report(0.0, "rendering the rig's geometry")
            geometry = render_geometry(target, cfg.resolution, opts.supersample, renderer=rend)
            timings["render"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            views = generate_views(self.generator, geometry=geometry, text=text, material_words=material_words,
                                   caption=caption, image=image, tagger=self.tagger, steps=opts.steps,
                                   guidance=opts.guidance, seed=opts.seed,
                                   callback=lambda f: report(0.05 + 0.55 * f, "generating views"))
            timings["generate"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            result = bake_views(target, geometry, views, opts.texture_size, rend,
                                progress=lambda f, m: report(0.6 + 0.4 * f, m))
            timings["bake"] = time.perf_counter() - t0
        finally:
            if own:
                rend.close()
        summary = {"prompt": views.prompt, "steps": opts.steps, "guidance": opts.guidance, "seed": opts.seed,
                   "texture_size": opts.texture_size, **result.summary(),
                   "stage_timings": {k: round(v, 3) for k, v in timings.items()}}
        asset = result.asset
        asset.metadata = {**asset.metadata, "texture": summary}
        log.info("textured %d part(s) in %.1f s (material text: %r)", len(asset.parts), sum(timings.values()),
                 views.prompt)
        report(1.0, "textured")
        return TextureResult(asset, views, summary)
