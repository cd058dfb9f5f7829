"""Stage 1 of geometry generation: a rectified-flow DiT that generates a whole shape latent -- the token set of
anchors (B, M, 3) and features (B, M, latent_dim) -- from condition tokens.

A token is ``[anchor * anchor_scale, feats]`` (see :meth:`CoarseFlow.pack`). By default the tokens form a set:
there is no index positional encoding, only Fourier features of each token's (noisy) anchor plus a linear map of
the whole token, so the model is permutation equivariant. With ``slot_tokens`` the set is ordered instead: token
``k`` is the shape's anchor matched to the ``k``-th point of a fixed template (the ``slot_positions`` buffer, set
by training and saved with the weights), and each slot adds the Fourier features of its template point, so every
slot learns a narrow distribution (a part of space) instead of all of them learning the whole shape. A learned
null-condition token set stands in for the condition when it is dropped in training and on the unconditional
branch of classifier-free guidance.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn import FourierEmbed, PretrainedMixin
from seed3d.nn.dit import DiTTrunk
from seed3d.nn.flow import FlowSampler

log = logging.getLogger(__name__)


@dataclass
class CoarseFlowConfig:
    """Sizes of the stage-1 (coarse) flow model."""

    latent_dim: int = 32
    """Latent channels per token (the shape VAE's ``latent_dim``)."""
    width: int = 256
    """Transformer width."""
    depth: int = 6
    """DiT blocks."""
    heads: int = 8
    """Attention heads."""
    cond_dim: int = 384
    """Width of the condition tokens (image / text encoder output)."""
    num_tokens: int = 256
    """Default token count generated at inference."""
    mlp_ratio: float = 4.0
    """MLP hidden width relative to ``width``."""
    pos_freqs: int = 6
    """Octaves of the Fourier features of token positions."""
    pos_scale: float = 0.5
    """Base frequency of the position features (in units of pi per normalised-cube unit)."""
    anchor_scale: float = 2.0
    """Anchors are multiplied by this inside a token so their spread is about that of unit noise."""
    num_null_tokens: int = 4
    """Tokens of the learned null condition."""
    time_freq_dim: int = 256
    """Sinusoid width of the timestep embedding."""
    pooled_condition: bool = False
    """Also add the pooled condition to the timestep embedding (every block's adaLN sees it), not only to the
    cross-attention (``seed3d.nn.dit.DiTTrunk``)."""
    slot_tokens: bool = False
    """Ordered tokens: ``num_tokens`` slots, each tied to a template point (see the module docstring); the token
    count is then fixed."""
    extra: dict[str, float] = field(default_factory=dict)
    """Free-form numbers recorded with the model (e.g. training settings)."""

    def __post_init__(self) -> None:
        if self.width % self.heads:
            raise InvalidInputError(f"width {self.width} is not divisible by {self.heads} heads")
        for name in ("latent_dim", "width", "depth", "heads", "cond_dim", "num_tokens", "num_null_tokens"):
            if int(getattr(self, name)) < 1:
                raise InvalidInputError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.anchor_scale <= 0:
            raise InvalidInputError(f"anchor_scale must be > 0, got {self.anchor_scale}")


def _trunk(cfg: CoarseFlowConfig) -> DiTTrunk:
    return DiTTrunk(cfg.width, cfg.depth, cfg.heads, cfg.cond_dim, cfg.mlp_ratio, cfg.num_null_tokens,
                    cfg.time_freq_dim, cfg.pooled_condition)


def _check_cond(cond: torch.Tensor, cond_mask: torch.Tensor | None, cond_dim: int) -> None:
    if cond.ndim != 3 or cond.shape[-1] != cond_dim:
        raise InvalidInputError(f"condition must be (B, L, {cond_dim}) tokens, got {tuple(cond.shape)}")
    if cond_mask is not None and tuple(cond_mask.shape) != tuple(cond.shape[:2]):
        raise InvalidInputError(f"condition mask must be {tuple(cond.shape[:2])}, got {tuple(cond_mask.shape)}")


class CoarseFlow(nn.Module, PretrainedMixin):
    """Stage-1 flow: noisy tokens ``[anchor * anchor_scale, feats]`` (B, M, 3 + C) -> velocity (B, M, 3 + C)."""

    config_class = CoarseFlowConfig
    model_type = "seed3d-coarse-flow"

    def __init__(self, config: CoarseFlowConfig | None = None) -> None:
        super().__init__()
        cfg = config or CoarseFlowConfig()
        self.config = cfg
        self.pos_embed = FourierEmbed(cfg.pos_freqs, cfg.pos_scale)
        self.in_proj = nn.Linear(3 + cfg.latent_dim, cfg.width)
        self.pos_proj = nn.Linear(self.pos_embed.out_dim, cfg.width)
        self.trunk = _trunk(cfg)
        self.out_proj = nn.Linear(cfg.width, 3 + cfg.latent_dim)
        nn.init.zeros_(self.out_proj.weight)
        nn.init.zeros_(self.out_proj.bias)
        if cfg.slot_tokens:
            self.register_buffer("slot_positions", torch.zeros(cfg.num_tokens, 3))
            self.slot_proj = nn.Linear(self.pos_embed.out_dim, cfg.width)

    @property
    def token_dim(self) -> int:
        """Channels of a token: 3 anchor coordinates + ``latent_dim``."""
        return 3 + self.config.latent_dim

    def num_parameters(self) -> int:
        """Number of parameters."""
        return sum(p.numel() for p in self.parameters())

    def pack(self, anchors: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        """Tokens (B, M, 3 + C) of a latent: ``[anchors * anchor_scale, feats]``."""
        c = self.config.latent_dim
        if anchors.shape[:-1] != feats.shape[:-1] or anchors.shape[-1] != 3 or feats.shape[-1] != c:
            raise InvalidInputError(f"anchors must be (B, M, 3) and feats (B, M, {c}), got "
                                    f"{tuple(anchors.shape)} and {tuple(feats.shape)}")
        return torch.cat([anchors * self.config.anchor_scale, feats], dim=-1)

    def unpack(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Anchors (B, M, 3) and feats (B, M, C) of tokens made by :meth:`pack`."""
        return x[..., :3] / self.config.anchor_scale, x[..., 3:]

    def null_condition(self, batch: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The learned null condition (B, L, cond_dim) and its mask (B, L)."""
        return self.trunk.null_condition(batch, length)

    def drop_condition(self, cond: torch.Tensor, cond_mask: torch.Tensor | None, p: float,
                       generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Replace each sample's condition by the null condition with probability ``p`` (CFG dropout)."""
        return self.trunk.drop_condition(cond, cond_mask, p, generator)

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Velocity (B, M, 3 + C) of noisy tokens ``x`` at times ``t`` (B,) given ``cond`` (B, L, cond_dim).

        ``cond_mask`` (B, L) and ``key_mask`` (B, M) are True on real condition tokens / real latent tokens."""
        if x.ndim != 3 or x.shape[-1] != self.token_dim:
            raise InvalidInputError(f"tokens must be (B, M, {self.token_dim}), got {tuple(x.shape)}")
        _check_cond(cond, cond_mask, self.config.cond_dim)
        xyz = x[..., :3] / self.config.anchor_scale
        h = self.in_proj(x) + self.pos_proj(self.pos_embed(xyz))
        if self.config.slot_tokens:
            if x.shape[1] != self.config.num_tokens:
                raise InvalidInputError(f"this flow has {self.config.num_tokens} ordered token slots, got "
                                        f"{x.shape[1]} tokens")
            h = h + self.slot_proj(self.pos_embed(self.slot_positions.to(h.dtype)))
        v = self.out_proj(self.trunk(h, t, cond, cond_mask, key_mask))
        return v if key_mask is None else v * key_mask[..., None].to(v.dtype)

    @torch.no_grad()
    def generate(self, cond: torch.Tensor, cond_mask: torch.Tensor | None = None, num_tokens: int | None = None,
                 sampler: FlowSampler | None = None, steps: int = 25, guidance: float = 1.0, shift: float = 1.0,
                 generator: torch.Generator | None = None,
                 callback: Callable[[float], None] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Sample latents for ``cond`` (B, L, cond_dim): anchors (B, M, 3) clamped to [-1, 1] and feats (B, M, C).

        ``sampler`` overrides ``steps`` / ``guidance`` / ``shift``; ``generator`` makes the result reproducible."""
        _check_cond(cond, cond_mask, self.config.cond_dim)
        m = num_tokens or self.config.num_tokens
        if self.config.slot_tokens and m != self.config.num_tokens:
            raise InvalidInputError(f"this flow generates exactly {self.config.num_tokens} ordered tokens, not {m}")
        sampler = sampler or FlowSampler(num_steps=steps, shift=shift, guidance_scale=guidance)
        if sampler.t_start < 1.0:
            raise InvalidInputError("CoarseFlow.generate starts from pure noise; use a sampler with t_start=1")
        b = cond.shape[0]
        null, null_mask = self.null_condition(b)
        log.debug("coarse flow: %d x %d tokens, %r", b, m, sampler)
        x = sampler.sample(self, (b, m, self.token_dim), cond, cond_mask, null, null_mask, generator=generator,
                           device=cond.device, callback=callback)
        anchors, feats = self.unpack(x)
        return anchors.clamp(-1.0, 1.0), feats
