"""Image and/or text -> a clean, watertight mesh in meters: condition, sample the stage-1 flow's coarse SDF grid
(and, when a stage-2 detail flow and the shape VAE are given, detail latents on the coarse surface decoded by the
VAE), extract the surface hierarchically, clean it, and size and place it in the asset frame.

``ShapeGenerator.from_folders(coarse[, vae, detail])`` loads the trained components; ``generate`` is
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
from seed3d.geometry.coarse import CoarseFlow, CoarseFlowConfig, grid_sdf_function
from seed3d.geometry.conditioning import ShapeConditioner, pool_values
from seed3d.geometry.detail import DetailFlow, detail_start, refine, state_latent
from seed3d.geometry.extract import SAFETY, SDFFunction, extract_surface
from seed3d.geometry.postprocess import (
    RealWorldSize,
    clean_shell,
    flatten_base,
    real_world_size,
    rest_pose,
    to_asset_frame,
)
from seed3d.geometry.vae import ShapeLatent, ShapeVAE
from seed3d.nn.flow import FlowSampler
from seed3d.typed import PathType

log = logging.getLogger(__name__)

StageCallback = Callable[..., None]
"""``callback(phase, fraction)`` after each step of a phase, and ``callback(phase, fraction, message)`` every second
while a call that cannot report from inside runs (the mesh's decimation: ``seed3d.progress.heartbeat``)."""
#: Share of the detail phase's progress spent placing its start (support, re-encoding); the flow's steps the rest.
DETAIL_START_SHARE = 0.1
#: Lattice points per sdf call in surface extraction: each call reports progress (a few seconds each on a busy CPU).
EXTRACT_BATCH = 16384
#: The phases ``ShapeGenerator.generate`` reports, in order, with the share of the stage's time each takes on the
#: CPU at default settings (the pipeline maps them onto one monotonic progress bar; measured in
#: eval/results/progress.json: 3, 13, 60, 108 and 23 s on 2 busy cores, the text encoder loaded beforehand).
GEOMETRY_PHASES: dict[str, float] = {"condition": 0.02, "coarse": 0.08, "detail": 0.29, "extract": 0.5,
                                     "postprocess": 0.11}


#: Share of surface extraction's time its hierarchical refinement takes; meshing the kept cells is the rest
#: (eval/results/progress.json: 118 of 120 s). ``extract_surface`` reports refinement in [0, 0.5] and meshing in
#: (0.5, 1]; ``extract_time_share`` maps that onto the time.
EXTRACT_REFINE_SHARE = 0.97


def extract_time_share(fraction: float) -> float:
    """The share of extraction's time done at ``fraction`` of ``extract_surface``'s own progress."""
    f = min(max(fraction, 0.0), 1.0)
    if f <= 0.5:
        return EXTRACT_REFINE_SHARE * f / 0.5
    return EXTRACT_REFINE_SHARE + (1 - EXTRACT_REFINE_SHARE) * (f - 0.5) / 0.5


@dataclass
class GenerateOptions:
    """Sampling and meshing settings of one generation."""

    seed: int = 0
    """Seed of the flow noise (same inputs and seed -> same shape)."""
    steps: int = 25
    """Euler steps of each flow."""
    candidates: int = 8
    """Stage-1 samples drawn for a request with an image, when the conditioner has a shape head: the one whose
    grid, pooled, is nearest the coarse shape the head predicts from the image is kept (1: one sample). 8 against
    4: image -> shape F@0.05 +0.015 on 36 test shapes and +0.017 on 54 val (the model card)."""
    guidance: float = 3.0
    """Classifier-free guidance scale (1: none)."""
    resolution: int = 128
    """Surface-extraction resolution (a power of two times the coarse grid)."""
    target_faces: int | None = 50_000
    """Faces after decimation (None: keep every face)."""
    detail: bool = True
    """Run stage 2 when a detail flow is loaded."""
    level: float = 0.0
    """SDF value whose level set becomes the surface (normalised units; a small positive value thickens walls),
    on top of the coarse surface's own dilation."""
    flat_base: float = 0.005
    """Fraction of the height (at most 5 mm) cut off the base so that it stands on one flat face (0: keep the base
    as generated; ``postprocess.flatten_base``)."""

    def __post_init__(self) -> None:
        if self.candidates < 1:
            raise InvalidInputError(f"candidates must be >= 1, got {self.candidates}")
        if self.flat_base < 0:
            raise InvalidInputError(f"flat_base must be >= 0, got {self.flat_base}")


@dataclass
class GeneratedShape:
    """A generated shape: the mesh in meters (asset frame, turned onto its resting face), the normalised mesh (as
    extracted and cleaned, before that turn), the coarse SDF grid, stage 2's latent (None when stage 2 did not
    run), the size used."""

    mesh: Mesh
    normalised: Mesh
    coarse: np.ndarray
    latent: ShapeLatent | None
    size: RealWorldSize
    timings: dict[str, float] = field(default_factory=dict)


def coarse_grid(resolution: int, truncation: float) -> int:
    """The coarsest grid (resolution / 2^k) whose half cell diagonal (times the extraction's safety) fits inside
    the SDF truncation band, so that extraction can prune its empty cells."""
    coarse = resolution
    while coarse % 2 == 0 and SAFETY * np.sqrt(3) / (coarse // 2) < truncation:
        coarse //= 2
    return coarse


def coarse_field(config: CoarseFlowConfig, grid: np.ndarray) -> tuple[SDFFunction, float]:
    """The coarse surface's field of a stage-1 grid (its interpolant, dilated by the flow's ``level_cells``) and
    that field's truncation."""
    return grid_sdf_function(grid, config.truncation, offset=config.level), config.truncation - config.level


def coarse_mesh(config: CoarseFlowConfig, grid: np.ndarray, resolution: int = 64) -> Mesh:
    """The coarse surface of a stage-1 grid meshed at ``resolution``: what stage 2 voxelises into its support and
    re-encodes (normalised frame)."""
    field, truncation = coarse_field(config, grid)
    return extract_surface(field, resolution=resolution, coarse=coarse_grid(resolution, truncation))


def nearest_to_prior(flow: CoarseFlow, grids: torch.Tensor, prior: torch.Tensor) -> int:
    """Index of the candidate among stage-1 ``grids`` (K, G, G, G; normalised units) whose values, average-pooled
    to the cells of the shape head's ``prior`` (cells^3,), are nearest it (mean squared error)."""
    pooled = pool_values(flow.to_values(grids.float()), round(prior.shape[-1] ** (1 / 3)))
    return int(((pooled - prior[None].to(pooled)) ** 2).mean(1).argmin())


class ShapeGenerator:
    """The geometry stage: the stage-1 flow with its conditioner; optionally the shape VAE and a stage-2 flow."""

    def __init__(self, flow: CoarseFlow, conditioner: ShapeConditioner, vae: ShapeVAE | None = None,
                 detail: DetailFlow | None = None, device: str = "cpu") -> None:
        if detail is not None and vae is None:
            raise InvalidInputError("a stage-2 detail flow needs the shape VAE that encodes and decodes its latents")
        self.flow, self.conditioner = flow.eval(), conditioner.eval()
        self.vae = None if vae is None else vae.eval()
        self.detail = None if detail is None else detail.eval()
        self.device = torch.device(device)
        self._text = None

    @classmethod
    def from_folders(cls, coarse: PathType, vae: PathType | None = None, detail: PathType | None = None,
                     device: str = "cpu") -> ShapeGenerator:
        """Load ``coarse`` (a folder with ``flow/`` and ``conditioner/``) and, for stage 2, ``vae`` and ``detail``."""
        c = Path(coarse)
        return cls(CoarseFlow.from_pretrained(c / "flow", device),
                   ShapeConditioner.from_pretrained(c / "conditioner", device),
                   None if vae is None else ShapeVAE.from_pretrained(vae, device),
                   None if detail is None else DetailFlow.from_pretrained(detail, device), device)

    def shape_prior(self, image: ImageSource | None) -> torch.Tensor | None:
        """The coarse shape (1, cells^3) the conditioner's shape head predicts from ``image`` (None without an image
        or a head): what ``sample_coarse`` ranks its candidates by."""
        return None if image is None else self._encode(image, None, prior=True)[2]

    def condition(self, image: ImageSource | None = None, text: str | None = None
                  ) -> tuple[torch.Tensor, torch.Tensor]:
        """Condition tokens (1, L, cond_dim) and mask for an image, a text or both."""
        cond, mask, _ = self._encode(image, text, prior=False)
        return cond, mask

    def _encode(self, image: ImageSource | None, text: str | None, prior: bool,
                progress: Callable[[float], None] | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``condition``'s tokens and mask and, when ``prior`` is asked for, ``shape_prior`` (one image encoding);
        ``progress(fraction)`` after the image and the text are prepared."""
        report = progress or (lambda _f: None)
        if image is None and (text is None or not text.strip()):
            raise InvalidInputError("give an image, a text or both")
        images = None
        if image is not None:
            images = to_tensor(preprocess_image(image, size=self.conditioner.image_size)).to(self.device)
            report(0.3)
        tokens = mask = None
        if text is not None and text.strip():
            if self._text is None:
                from seed3d.condition.text import default_text_encoder

                self._text = default_text_encoder()
                report(0.4)
            tokens, mask = self._text.encode_tokens([text])
            tokens, mask = tokens.to(self.device), mask.to(self.device)
            report(0.6)
        with torch.no_grad():
            feats = None if images is None else self.conditioner.image_encoder(images)
            cond, cond_mask = self.conditioner(images, tokens, mask, image_features=feats)
            ranked = prior and feats is not None and self.conditioner.shape_head is not None
            return cond, cond_mask, self.conditioner.predict_shape(feats) if ranked else None

    def sample_coarse(self, cond: torch.Tensor, mask: torch.Tensor, options: GenerateOptions,
                      callback: StageCallback | None = None, prior: torch.Tensor | None = None) -> np.ndarray:
        """Sample stage 1: the coarse SDF grid (G, G, G) of the first condition (normalised units). With a
        ``prior`` (see ``shape_prior``), ``options.candidates`` grids are sampled in one batch and the one whose
        values, average-pooled to the prior's cells, are nearest it (mean squared error) is kept; the first
        candidate starts from the noise one sample would."""
        n = options.candidates if prior is not None else 1
        gen = torch.Generator(device=self.device).manual_seed(options.seed)
        sampler = FlowSampler(num_steps=options.steps, guidance_scale=options.guidance)
        report = callback or (lambda s, f: None)
        grids = self.flow.generate(cond[:1].expand(n, -1, -1), mask[:1].expand(n, -1), sampler=sampler,
                                   generator=gen, callback=lambda f: report("coarse", f))
        best = 0
        if prior is not None and n > 1:
            best = nearest_to_prior(self.flow, grids, prior[0])
            log.debug("stage 1: kept candidate %d of %d", best, n)
        return grids[best].float().cpu().numpy()

    def sample(self, cond: torch.Tensor, mask: torch.Tensor, options: GenerateOptions,
               callback: StageCallback | None = None, prior: torch.Tensor | None = None
               ) -> tuple[np.ndarray, ShapeLatent | None]:
        """Both stages: the coarse grid (ranked by ``prior`` as ``sample_coarse`` says) and stage 2's latent (None
        when no detail flow is loaded or ``options.detail`` is off)."""
        grid = self.sample_coarse(cond, mask, options, callback, prior)
        if self.detail is None or not options.detail:
            return grid, None
        return grid, self.sample_detail(grid, cond, mask, options, callback)

    def sample_detail(self, grid: np.ndarray, cond: torch.Tensor, mask: torch.Tensor, options: GenerateOptions,
                      callback: StageCallback | None = None) -> ShapeLatent:
        """Sample stage 2 on the coarse surface of ``grid``: the coarse mesh is voxelised and dilated into the
        support, re-encoded there by the VAE, partly noised and refined; returns the latent in the VAE's units."""
        if self.detail is None or self.vae is None:
            raise InvalidInputError("no stage-2 detail flow loaded")
        report = callback or (lambda s, f: None)
        report("detail", 0.0)
        gen = torch.Generator(device=self.device).manual_seed(options.seed + 1)
        cfg = self.detail.config
        coarse = coarse_mesh(self.flow.config, grid)
        report("detail", DETAIL_START_SHARE * 0.1)
        support, start = detail_start(self.vae, coarse, cfg, seed=options.seed,
                                      progress=lambda f: report("detail", DETAIL_START_SHARE * (0.1 + 0.9 * f)))
        positions = torch.from_numpy(support).to(self.device)[None]
        scale = cfg.state_scale().to(self.device)
        state = refine(self.detail, positions, start.to(self.device)[None] * scale, cond, mask, steps=options.steps,
                       guidance=options.guidance, generator=gen,
                       callback=lambda f: report("detail", DETAIL_START_SHARE + (1 - DETAIL_START_SHARE) * f))
        return state_latent(cfg, positions, state / scale)

    def extract(self, sdf: SDFFunction, truncation: float, resolution: int, level: float = 0.0,
                progress: Callable[[float], None] | None = None) -> Mesh:
        """The raw surface (normalised frame) of a field truncated at ``truncation``: its ``level`` set, extracted
        hierarchically at ``resolution`` (``progress(fraction)`` as the levels are refined)."""
        return extract_surface(sdf, resolution=resolution, level=level, coarse=coarse_grid(resolution, truncation),
                               progress=progress, batch=EXTRACT_BATCH)

    def surface_field(self, grid: np.ndarray, latent: ShapeLatent | None) -> tuple[SDFFunction, float]:
        """The final shape's field and its truncation: stage 2's latent decoded by the VAE, else the coarse field."""
        if latent is not None and self.vae is not None:
            return self.vae.sdf_function(latent), self.vae.config.truncation  # type: ignore[return-value]
        return coarse_field(self.flow.config, grid)

    def generate(self, image: ImageSource | None = None, text: str | None = None,
                 options: GenerateOptions | None = None, category: str | None = None,
                 callback: StageCallback | None = None) -> GeneratedShape:
        """A watertight mesh in meters for an image and/or a text; ``category`` sets the size prior when the text
        names no size. ``callback(phase, fraction[, message])`` is called through every phase, in ``GEOMETRY_PHASES``
        order (``StageCallback``)."""
        opts = options or GenerateOptions()
        report = callback or (lambda s, f, *m: None)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        report("condition", 0.0)
        cond, mask, prior = self._encode(image, text, prior=opts.candidates > 1,
                                         progress=lambda f: report("condition", f))
        report("condition", 1.0)
        timings["condition"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        grid, latent = self.sample(cond, mask, opts, callback, prior)
        timings["flow"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        report("extract", 0.0)
        raw = self.extract(*self.surface_field(grid, latent), resolution=opts.resolution, level=opts.level,
                           progress=lambda f: report("extract", extract_time_share(f)))
        timings["extract"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        report("postprocess", 0.0)
        shell = clean_shell(raw, target_faces=opts.target_faces,
                            progress=lambda f, *message: report("postprocess", 0.8 * f, *message))
        size = real_world_size(text, category)
        mesh = to_asset_frame(rest_pose(shell), size)
        report("postprocess", 0.9)
        if opts.flat_base > 0:  # then scaled back to the size asked for
            mesh = to_asset_frame(flatten_base(mesh, opts.flat_base), size)
        timings["postprocess"] = time.perf_counter() - t0
        report("postprocess", 1.0)
        log.info("generated %d faces in %.1f s", len(mesh.faces), sum(timings.values()))
        return GeneratedShape(mesh, shell, grid, latent, size, {k: round(v, 3) for k, v in timings.items()})
