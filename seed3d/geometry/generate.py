"""Image and/or text -> a clean, watertight mesh in meters: condition, sample the stage-1 flow (and the stage-2
detail flow when one is given), decode the latent's SDF, extract the surface hierarchically, clean it, and size
and place it in the asset frame.

``ShapeGenerator.from_folders(vae, coarse[, detail])`` loads the trained components; ``generate`` is
deterministic for a given seed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from seed3d.asset import Mesh
from seed3d.condition.image import ImageSource, preprocess_image, to_tensor
from seed3d.errors import InvalidInputError
from seed3d.geometry.coarse import CoarseFlow
from seed3d.geometry.conditioning import ShapeConditioner
from seed3d.geometry.detail import DetailFlow, coarse_support, refine
from seed3d.geometry.extract import extract_surface
from seed3d.geometry.postprocess import RealWorldSize, clean_shell, real_world_size, to_asset_frame
from seed3d.geometry.vae import ShapeLatent, ShapeVAE
from seed3d.nn.flow import FlowSampler
from seed3d.typed import PathType

log = logging.getLogger(__name__)

StageCallback = Callable[[str, float], None]


@dataclass
class GenerateOptions:
    """Sampling and meshing settings of one generation."""

    seed: int = 0
    """Seed of the flow noise (same inputs and seed -> same shape)."""
    steps: int = 25
    """Euler steps of each flow."""
    guidance: float = 3.0
    """Classifier-free guidance scale (1: none)."""
    num_tokens: int | None = None
    """Stage-1 latent tokens (None: the flow's default)."""
    resolution: int = 128
    """Surface-extraction resolution (a power of two times the coarse grid). 128: the shipped latents carry no
    detail that 256 recovers (``python eval/bench_geometry.py --no-vae --no-foreign --generation --limit 6
    --resolution 128|256``: F@0.05 0.548 / 0.553 image, 0.544 / 0.548 text) at a tenth of the time."""
    target_faces: int | None = 50_000
    """Faces after decimation (None: keep every face)."""
    detail: bool = True
    """Run stage 2 when a detail flow is loaded."""
    level: float = 0.0
    """SDF value whose level set becomes the surface (normalised units; a small positive value thickens walls)."""


@dataclass
class GeneratedShape:
    """A generated shape: the mesh in meters (asset frame), the normalised mesh, the latent, the size used."""

    mesh: Mesh
    normalised: Mesh
    latent: ShapeLatent
    size: RealWorldSize
    timings: dict[str, float] = field(default_factory=dict)


def coarse_grid(resolution: int, truncation: float) -> int:
    """The coarsest grid (resolution / 2^k) whose cell diagonal fits inside the SDF truncation band."""
    coarse = resolution
    while coarse % 2 == 0 and 2 * np.sqrt(3) / (coarse // 2) <= truncation:
        coarse //= 2
    return coarse


class ShapeGenerator:
    """The geometry stage: trained VAE, stage-1 flow with its conditioner, optional stage-2 detail flow."""

    def __init__(self, vae: ShapeVAE, flow: CoarseFlow, conditioner: ShapeConditioner,
                 detail: DetailFlow | None = None, device: str = "cpu") -> None:
        self.vae, self.flow, self.conditioner, self.detail = vae.eval(), flow.eval(), conditioner.eval(), detail
        self.device = torch.device(device)
        self.latent_scale = float(flow.config.extra.get("latent_scale", 1.0))
        self._text = None

    @classmethod
    def from_folders(cls, vae: PathType, coarse: PathType, detail: PathType | None = None,
                     device: str = "cpu") -> ShapeGenerator:
        """Load ``vae`` (a VAE folder), ``coarse`` (a folder with ``flow/`` and ``conditioner/``) and ``detail``."""
        c = Path(coarse)
        return cls(ShapeVAE.from_pretrained(vae, device), CoarseFlow.from_pretrained(c / "flow", device),
                   ShapeConditioner.from_pretrained(c / "conditioner", device),
                   None if detail is None else DetailFlow.from_pretrained(detail, device), device)

    def condition(self, image: ImageSource | None = None, text: str | None = None
                  ) -> tuple[torch.Tensor, torch.Tensor]:
        """Condition tokens (1, L, cond_dim) and mask for an image, a text or both."""
        if image is None and (text is None or not text.strip()):
            raise InvalidInputError("give an image, a text or both")
        images = None
        if image is not None:
            pre = preprocess_image(image, size=self.conditioner.image_size)
            images = to_tensor(pre).to(self.device)
        tokens = mask = None
        if text is not None and text.strip():
            if self._text is None:
                from seed3d.condition.text import default_text_encoder

                self._text = default_text_encoder()
            tokens, mask = self._text.encode_tokens([text])
            tokens, mask = tokens.to(self.device), mask.to(self.device)
        with torch.no_grad():
            return self.conditioner(images, tokens, mask)

    def sample_latent(self, cond: torch.Tensor, mask: torch.Tensor, options: GenerateOptions,
                      callback: StageCallback | None = None) -> ShapeLatent:
        """Sample stage 1 (and stage 2 when loaded and asked for): a latent in the VAE's units."""
        gen = torch.Generator(device=self.device).manual_seed(options.seed)
        sampler = FlowSampler(num_steps=options.steps, guidance_scale=options.guidance)
        report = callback or (lambda s, f: None)
        anchors, feats = self.flow.generate(cond, mask, options.num_tokens, sampler=sampler, generator=gen,
                                            callback=lambda f: report("coarse", f))
        latent = ShapeLatent(anchors, feats * self.latent_scale)
        if self.detail is not None and options.detail:
            coarse_mesh = self.extract(latent, 64)
            support = coarse_support(coarse_mesh, self.detail.config.resolution, self.detail.config.dilation,
                                     self.detail.config.max_tokens)
            positions = torch.from_numpy(support).to(self.device)[None]
            pts, nrm, _ = coarse_mesh.sample_surface(self.vae.config.surface_points, seed=options.seed)
            with torch.no_grad():
                re = self.vae.encode(torch.from_numpy(pts.astype(np.float32))[None].to(self.device),
                                     torch.from_numpy(nrm.astype(np.float32))[None].to(self.device),
                                     anchors=positions)
            detail_scale = float(self.detail.config.extra.get("latent_scale", 1.0))
            feats = refine(self.detail, positions, re.feats / detail_scale, cond, mask, steps=options.steps,
                           guidance=options.guidance, generator=gen, callback=lambda f: report("detail", f))
            latent = ShapeLatent(positions, feats * detail_scale)
        return latent

    def extract(self, latent: ShapeLatent, resolution: int, level: float = 0.0) -> Mesh:
        """The raw surface of a latent (normalised frame): its SDF's ``level`` set, extracted hierarchically at
        ``resolution``."""
        sdf = self.vae.sdf_function(latent)
        return extract_surface(sdf, resolution=resolution, level=level,  # type: ignore[arg-type]
                               coarse=coarse_grid(resolution, self.vae.config.truncation))

    def generate(self, image: ImageSource | None = None, text: str | None = None,
                 options: GenerateOptions | None = None, category: str | None = None,
                 callback: StageCallback | None = None) -> GeneratedShape:
        """A watertight mesh in meters for an image and/or a text; ``category`` sets the size prior when the text
        names no size."""
        opts = options or GenerateOptions()
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        cond, mask = self.condition(image, text)
        timings["condition"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        latent = self.sample_latent(cond, mask, opts, callback)
        timings["flow"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        raw = self.extract(latent, opts.resolution, opts.level)
        timings["extract"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        shell = clean_shell(raw, target_faces=opts.target_faces)
        size = real_world_size(text, category)
        mesh = to_asset_frame(shell, size)
        timings["postprocess"] = time.perf_counter() - t0
        log.info("generated %d faces in %.1f s", len(mesh.faces), sum(timings.values()))
        return GeneratedShape(mesh, shell, latent, size, {k: round(v, 3) for k, v in timings.items()})
