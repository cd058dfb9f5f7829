"""Diffusion-transformer pieces: a sinusoidal timestep embedding, an adaLN-Zero block with cross-attention to
condition tokens, and a conditional trunk (timestep embedding, condition projection, learned null condition,
blocks, modulated output norm) shared by the geometry flow models."""

from __future__ import annotations

import math

import torch
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn.attention import Attention, mlp


def modulate(x: torch.Tensor, shift: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Affine modulation ``x * (1 + scale) + shift`` of tokens (B, T, C) by per-sample (B, C) terms."""
    return x * (1.0 + scale[:, None]) + shift[:, None]


class TimestepEmbed(nn.Module):
    """Embed flow times ``t`` in [0, 1] (B,) as sinusoids of ``t * scale`` followed by a SiLU MLP -> (B, dim)."""

    def __init__(self, dim: int, freq_dim: int = 256, scale: float = 1000.0, max_period: float = 10000.0) -> None:
        super().__init__()
        if freq_dim % 2:
            raise InvalidInputError(f"timestep frequency width must be even, got {freq_dim}")
        half = freq_dim // 2
        freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
        self.register_buffer("freqs", freqs, persistent=False)
        self.scale = scale
        self.mlp = mlp([freq_dim, dim, dim], act=nn.SiLU)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        """``t`` (B,) -> (B, dim)."""
        a = (t.float() * self.scale)[:, None] * self.freqs
        emb = torch.cat([a.cos(), a.sin()], dim=-1)
        return self.mlp(emb.to(self.mlp[0].weight.dtype))


class DiTBlock(nn.Module):
    """adaLN-Zero transformer block: gated self-attention, cross-attention to condition tokens, gated MLP.

    The modulation projection and the cross-attention output are zero-initialised, so a fresh block is the
    identity map."""

    def __init__(self, dim: int, heads: int, cond_dim: int, mlp_ratio: float = 4.0) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.norm_cross = nn.LayerNorm(dim, eps=1e-6)
        self.cross = Attention(dim, heads, cond_dim)
        self.norm2 = nn.LayerNorm(dim, elementwise_affine=False, eps=1e-6)
        self.ff = mlp([dim, int(dim * mlp_ratio), dim])
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(dim, 6 * dim))
        nn.init.zeros_(self.ada[1].weight)
        nn.init.zeros_(self.ada[1].bias)
        nn.init.zeros_(self.cross.out.weight)
        nn.init.zeros_(self.cross.out.bias)

    def forward(self, x: torch.Tensor, temb: torch.Tensor, cond: torch.Tensor,
                cond_mask: torch.Tensor | None = None, key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` (B, T, dim), ``temb`` (B, dim), ``cond`` (B, L, cond_dim) -> (B, T, dim).

        ``cond_mask`` (B, L) and ``key_mask`` (B, T) are True where a condition token / a token may be attended."""
        shift1, scale1, gate1, shift2, scale2, gate2 = self.ada(temb).chunk(6, dim=-1)
        x = x + gate1[:, None] * self.attn(modulate(self.norm1(x), shift1, scale1), key_mask=key_mask)
        x = x + self.cross(self.norm_cross(x), cond, cond_mask)
        return x + gate2[:, None] * self.ff(modulate(self.norm2(x), shift2, scale2))


class DiTTrunk(nn.Module):
    """Conditional DiT trunk on token features: timestep embedding, condition projection, a learned null-condition
    token set (for classifier-free guidance), ``depth`` :class:`DiTBlock` s and an adaLN-modulated output norm.

    With ``pooled_condition`` the masked mean of the projected condition tokens is also added to the timestep
    embedding, so the condition steers every block's modulation (globally) as well as its cross-attention."""

    def __init__(self, width: int, depth: int, heads: int, cond_dim: int, mlp_ratio: float = 4.0,
                 num_null_tokens: int = 4, time_freq_dim: int = 256, pooled_condition: bool = False) -> None:
        super().__init__()
        if num_null_tokens < 1:
            raise InvalidInputError(f"num_null_tokens must be >= 1, got {num_null_tokens}")
        self.cond_dim = cond_dim
        self.time_embed = TimestepEmbed(width, time_freq_dim)
        self.cond_proj = nn.Sequential(nn.LayerNorm(cond_dim), nn.Linear(cond_dim, width))
        self.cond_pool = nn.Sequential(nn.SiLU(), nn.Linear(width, width)) if pooled_condition else None
        self.null_cond = nn.Parameter(torch.randn(num_null_tokens, cond_dim) * 0.02)
        self.blocks = nn.ModuleList(DiTBlock(width, heads, width, mlp_ratio) for _ in range(depth))
        self.norm_out = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.Sequential(nn.SiLU(), nn.Linear(width, 2 * width))
        nn.init.zeros_(self.ada_out[1].weight)
        nn.init.zeros_(self.ada_out[1].bias)

    def null_condition(self, batch: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The null condition as (B, L, cond_dim) tokens and a (B, L) mask; ``L = max(length, num_null_tokens)``."""
        k = self.null_cond.shape[0]
        length = max(k, length or k)
        cond = self.null_cond.new_zeros(batch, length, self.cond_dim)
        cond[:, :k] = self.null_cond
        mask = torch.zeros(batch, length, dtype=torch.bool, device=cond.device)
        mask[:, :k] = True
        return cond, mask

    def drop_condition(self, cond: torch.Tensor, cond_mask: torch.Tensor | None, p: float,
                       generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Replace each sample's condition by the null condition with probability ``p`` (CFG training dropout)."""
        if not 0.0 <= p <= 1.0:
            raise InvalidInputError(f"condition drop probability must be in [0, 1], got {p}")
        b, length, _ = cond.shape
        mask = torch.ones(b, length, dtype=torch.bool, device=cond.device) if cond_mask is None else cond_mask.bool()
        null, null_mask = self.null_condition(b, length)
        cond, mask = pad_tokens(cond, mask, null.shape[1])
        gen_device = generator.device if generator is not None else cond.device
        drop = (torch.rand(b, generator=generator, device=gen_device) < p).to(cond.device)
        cond = torch.where(drop[:, None, None], null.to(cond.dtype), cond)
        mask = torch.where(drop[:, None], null_mask, mask)
        return cond, mask

    def forward(self, h: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Tokens ``h`` (B, T, width) at flow time ``t`` (B,) given ``cond`` (B, L, cond_dim) -> (B, T, width)."""
        if cond.ndim != 3 or cond.shape[-1] != self.cond_dim:
            raise InvalidInputError(f"condition must be (B, L, {self.cond_dim}) tokens, got {tuple(cond.shape)}")
        if cond.shape[0] != h.shape[0] or t.shape != (h.shape[0],):
            raise InvalidInputError(f"batch sizes differ: tokens {h.shape[0]}, condition {cond.shape[0]}, "
                                    f"timesteps {tuple(t.shape)} (t must be (B,))")
        if cond_mask is not None and not bool(cond_mask.any(dim=-1).all()):
            raise InvalidInputError("a sample has no valid condition token; use null_condition() for unconditional")
        temb = self.time_embed(t)
        ctx = self.cond_proj(cond)
        if self.cond_pool is not None:
            m = (torch.ones(cond.shape[:2], device=cond.device) if cond_mask is None else cond_mask).to(ctx.dtype)
            pooled = (ctx * m[..., None]).sum(1) / m.sum(1, keepdim=True).clamp_min(1.0)
            temb = temb + self.cond_pool(pooled)
        for block in self.blocks:
            h = block(h, temb, ctx, cond_mask, key_mask)
        shift, scale = self.ada_out(temb).chunk(2, dim=-1)
        return modulate(self.norm_out(h), shift, scale)


def pad_tokens(x: torch.Tensor, mask: torch.Tensor, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad tokens ``x`` (B, L, C) and mask (B, L) with zeros / False up to ``length`` (no-op when already longer)."""
    extra = length - x.shape[1]
    if extra <= 0:
        return x, mask
    x = torch.cat([x, x.new_zeros(x.shape[0], extra, x.shape[2])], dim=1)
    mask = torch.cat([mask, mask.new_zeros(mask.shape[0], extra)], dim=1)
    return x, mask
