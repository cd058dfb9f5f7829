"""Stage 1 of geometry generation: a rectified-flow DiT that generates the coarse shape -- a truncated signed
distance on a ``grid``\\ :sup:`3` lattice of cell centres over the normalised cube -- from condition tokens.

The grid is cut into ``(grid / patch)``\\ :sup:`3` patches of ``patch``\\ :sup:`3` cells; each patch is one token
(its values projected to the width, plus Fourier features of the patch centre). The token order is fixed by
space, so every token learns one region of the cube, as an image DiT's patches do. Values are the signed
distance in units of the truncation band (``truncation_cells`` cells), clamped to [-1, 1]: the scale of the
unit noise the flow starts from, and far from the surface only the sign (occupancy) is left to generate.

The coarse surface is the level set ``level_cells`` cells outside the zero level of the grid's interpolant
(:func:`grid_sdf_function`): a half-cell dilation keeps walls thinner than a cell, whose zero level falls between
cell centres (on the synth test split that takes F@0.05 of the true grids' surfaces from 0.85 to 0.98 at 16^3).
It is what stage 2 voxelises as its support, and the shape itself when no stage 2 is loaded.

A learned null-condition token set stands in for the condition when it is dropped in training and on the
unconditional branch of classifier-free guidance.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn import FourierEmbed, PretrainedMixin
from seed3d.nn.dit import DiTTrunk
from seed3d.nn.flow import FlowSampler

log = logging.getLogger(__name__)


@dataclass
class CoarseFlowConfig:
    """Sizes of the stage-1 (coarse) flow model and the grid it generates."""

    grid: int = 16
    """Cells per side of the generated SDF grid over [-1, 1]^3 (the data set's ``grid_resolution``)."""
    patch: int = 4
    """Cells per side of one token's patch (``grid`` must be a multiple)."""
    truncation_cells: float = 2.0
    """Distances are divided by this many cells and clamped to [-1, 1] (the values the flow generates)."""
    level_cells: float = 0.5
    """The coarse surface lies this many cells outside the zero level (a dilation that keeps thin walls)."""
    width: int = 256
    """Transformer width."""
    depth: int = 6
    """DiT blocks."""
    heads: int = 8
    """Attention heads."""
    cond_dim: int = 384
    """Width of the condition tokens (image / text encoder output)."""
    mlp_ratio: float = 4.0
    """MLP hidden width relative to ``width``."""
    pos_freqs: int = 6
    """Octaves of the Fourier features of patch centres."""
    pos_scale: float = 0.5
    """Base frequency of the position features (in units of pi per normalised-cube unit)."""
    num_null_tokens: int = 4
    """Tokens of the learned null condition."""
    time_freq_dim: int = 256
    """Sinusoid width of the timestep embedding."""
    pooled_condition: bool = True
    """Also add the pooled condition to the timestep embedding (every block's adaLN sees it), not only to the
    cross-attention (``seed3d.nn.dit.DiTTrunk``)."""
    extra: dict[str, float] = field(default_factory=dict)
    """Free-form numbers recorded with the model (e.g. training settings)."""

    def __post_init__(self) -> None:
        if self.width % self.heads:
            raise InvalidInputError(f"width {self.width} is not divisible by {self.heads} heads")
        for name in ("grid", "patch", "width", "depth", "heads", "cond_dim", "num_null_tokens"):
            if int(getattr(self, name)) < 1:
                raise InvalidInputError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.grid % self.patch:
            raise InvalidInputError(f"grid {self.grid} is not a multiple of patch {self.patch}")
        if self.truncation_cells <= 0 or not 0 <= self.level_cells < self.truncation_cells:
            raise InvalidInputError(f"need truncation_cells > 0 and 0 <= level_cells < truncation_cells, got "
                                    f"{self.truncation_cells} and {self.level_cells}")

    @property
    def cell(self) -> float:
        """Side of one grid cell (normalised units)."""
        return 2.0 / self.grid

    @property
    def truncation(self) -> float:
        """Distance (normalised units) at which grid values saturate."""
        return self.truncation_cells * self.cell

    @property
    def level(self) -> float:
        """Distance (normalised units) outside the zero level where the coarse surface lies."""
        return self.level_cells * self.cell


def _check_cond(cond: torch.Tensor, cond_mask: torch.Tensor | None, cond_dim: int) -> None:
    if cond.ndim != 3 or cond.shape[-1] != cond_dim:
        raise InvalidInputError(f"condition must be (B, L, {cond_dim}) tokens, got {tuple(cond.shape)}")
    if cond_mask is not None and tuple(cond_mask.shape) != tuple(cond.shape[:2]):
        raise InvalidInputError(f"condition mask must be {tuple(cond.shape[:2])}, got {tuple(cond_mask.shape)}")


class CoarseFlow(nn.Module, PretrainedMixin):
    """Stage-1 flow: noisy grid values (B, G, G, G) -> velocity (B, G, G, G), one token per patch."""

    config_class = CoarseFlowConfig
    model_type = "seed3d-coarse-grid-flow"

    def __init__(self, config: CoarseFlowConfig | None = None) -> None:
        super().__init__()
        cfg = config or CoarseFlowConfig()
        self.config = cfg
        p3 = cfg.patch ** 3
        self.pos_embed = FourierEmbed(cfg.pos_freqs, cfg.pos_scale)
        self.in_proj = nn.Linear(p3, cfg.width)
        self.pos_proj = nn.Linear(self.pos_embed.out_dim, cfg.width)
        self.trunk = DiTTrunk(cfg.width, cfg.depth, cfg.heads, cfg.cond_dim, cfg.mlp_ratio, cfg.num_null_tokens,
                              cfg.time_freq_dim, cfg.pooled_condition)
        self.out_proj = nn.Linear(cfg.width, p3)
        nn.init.zeros_(self.out_proj.weight)
        nn.init.zeros_(self.out_proj.bias)
        n = cfg.grid // cfg.patch
        c = (torch.arange(n, dtype=torch.float32) + 0.5) * (2.0 / n) - 1.0
        centres = torch.stack(torch.meshgrid(c, c, c, indexing="ij"), -1).reshape(-1, 3)
        self.register_buffer("patch_centres", centres, persistent=False)

    @property
    def num_tokens(self) -> int:
        """Tokens (patches) per grid."""
        return (self.config.grid // self.config.patch) ** 3

    def num_parameters(self) -> int:
        """Number of parameters."""
        return sum(p.numel() for p in self.parameters())

    def to_values(self, sdf: torch.Tensor) -> torch.Tensor:
        """Grid values in [-1, 1] of signed distances (normalised units): ``sdf / truncation``, clamped."""
        return (sdf / self.config.truncation).clamp(-1.0, 1.0)

    def to_distance(self, values: torch.Tensor) -> torch.Tensor:
        """Signed distances (normalised units, saturating at the truncation) of grid values."""
        return values.clamp(-1.0, 1.0) * self.config.truncation

    def patchify(self, grid: torch.Tensor) -> torch.Tensor:
        """Grid values (B, G, G, G) -> patch tokens (B, T, p^3), patches in x, y, z order."""
        g, p = self.config.grid, self.config.patch
        if grid.ndim != 4 or tuple(grid.shape[1:]) != (g, g, g):
            raise InvalidInputError(f"grid values must be (B, {g}, {g}, {g}), got {tuple(grid.shape)}")
        n = g // p
        x = grid.reshape(grid.shape[0], n, p, n, p, n, p).permute(0, 1, 3, 5, 2, 4, 6)
        return x.reshape(grid.shape[0], n ** 3, p ** 3)

    def unpatchify(self, tokens: torch.Tensor) -> torch.Tensor:
        """Patch tokens (B, T, p^3) -> grid values (B, G, G, G)."""
        g, p = self.config.grid, self.config.patch
        n = g // p
        x = tokens.reshape(tokens.shape[0], n, n, n, p, p, p).permute(0, 1, 4, 2, 5, 3, 6)
        return x.reshape(tokens.shape[0], g, g, g)

    def null_condition(self, batch: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The learned null condition (B, L, cond_dim) and its mask (B, L)."""
        return self.trunk.null_condition(batch, length)

    def drop_condition(self, cond: torch.Tensor, cond_mask: torch.Tensor | None, p: float,
                       generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Replace each sample's condition by the null condition with probability ``p`` (CFG dropout)."""
        return self.trunk.drop_condition(cond, cond_mask, p, generator)

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor,
                cond_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Velocity (B, G, G, G) of noisy grid values ``x`` at times ``t`` (B,) given ``cond`` (B, L, cond_dim);
        ``cond_mask`` (B, L) is True on real condition tokens."""
        _check_cond(cond, cond_mask, self.config.cond_dim)
        tokens = self.patchify(x)
        h = self.in_proj(tokens) + self.pos_proj(self.pos_embed(self.patch_centres.to(tokens.dtype)))[None]
        return self.unpatchify(self.out_proj(self.trunk(h, t, cond, cond_mask)))

    @torch.no_grad()
    def generate(self, cond: torch.Tensor, cond_mask: torch.Tensor | None = None, sampler: FlowSampler | None = None,
                 steps: int = 25, guidance: float = 1.0, shift: float = 1.0, generator: torch.Generator | None = None,
                 callback: Callable[[float], None] | None = None) -> torch.Tensor:
        """Sample coarse shapes for ``cond`` (B, L, cond_dim): signed distances (B, G, G, G) at the cell centres
        (normalised units, saturating at the truncation).

        ``sampler`` overrides ``steps`` / ``guidance`` / ``shift``; ``generator`` makes the result reproducible."""
        _check_cond(cond, cond_mask, self.config.cond_dim)
        sampler = sampler or FlowSampler(num_steps=steps, shift=shift, guidance_scale=guidance)
        if sampler.t_start < 1.0:
            raise InvalidInputError("CoarseFlow.generate starts from pure noise; use a sampler with t_start=1")
        b, g = cond.shape[0], self.config.grid
        null, null_mask = self.null_condition(b)
        log.debug("coarse flow: %d grids of %d^3, %r", b, g, sampler)
        x = sampler.sample(self, (b, g, g, g), cond, cond_mask, null, null_mask, generator=generator,
                           device=cond.device, callback=callback)
        return self.to_distance(x)


def grid_sdf_function(sdf: np.ndarray | torch.Tensor, truncation: float, offset: float = 0.0
                      ) -> Callable[[np.ndarray], np.ndarray]:
    """A numpy SDF callable (Q, 3) -> (Q,) of one grid of signed distances (G, G, G) at cell centres over
    [-1, 1]^3: trilinear interpolation minus ``offset`` (a positive offset dilates the surface). Beyond the
    outermost centres the field rises towards ``truncation`` (one cell out), and it is cut by a box a quarter
    cell inside the cube, so the surface always closes inside the cube."""
    from scipy.ndimage import map_coordinates

    values = sdf.detach().float().cpu().numpy() if isinstance(sdf, torch.Tensor) else np.asarray(sdf, np.float32)
    if values.ndim != 3 or len(set(values.shape)) != 1:
        raise InvalidInputError(f"a coarse SDF grid must be (G, G, G), got {values.shape}")
    g = values.shape[0]
    padded = np.pad(np.minimum(values, truncation), 1, constant_values=truncation).astype(np.float32)
    inner = 1.0 - 0.25 * (2.0 / g)

    def field(points: np.ndarray) -> np.ndarray:
        idx = (np.asarray(points, np.float64) + 1.0) * (g / 2.0) + 0.5  # +1 padding - 0.5 centre offset
        out = map_coordinates(padded, np.clip(idx, 0.0, g + 1.0).T, order=1, mode="nearest")
        return np.maximum(out - offset, np.abs(points).max(axis=1) - inner).astype(np.float32)

    return field
