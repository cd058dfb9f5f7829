"""Multi-head attention on ``torch.nn.functional.scaled_dot_product_attention`` and pre-norm transformer blocks."""

from __future__ import annotations

import itertools

import torch
import torch.nn.functional as F
from torch import nn


def mlp(dims: list[int], act: type[nn.Module] = nn.GELU, last_act: bool = False) -> nn.Sequential:
    """Linear layers of the given widths with an activation between them (and after the last when asked)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(dims)):
        layers.append(nn.Linear(a, b))
        if i < len(dims) - 2 or last_act:
            layers.append(act())
    return nn.Sequential(*layers)


class Attention(nn.Module):
    """Multi-head attention of queries ``x`` over ``context`` (itself when None), with an optional key mask."""

    def __init__(self, dim: int, heads: int, context_dim: int | None = None) -> None:
        super().__init__()
        if dim % heads:
            raise ValueError(f"width {dim} is not divisible by {heads} heads")
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(context_dim or dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None,
                key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` (B, Q, C), ``context`` (B, K, Cc), ``key_mask`` (B, K) True where a key may be attended."""
        ctx = x if context is None else context
        b, q, c = x.shape
        h = self.heads
        qh = self.q(x).view(b, q, h, c // h).transpose(1, 2)
        k, v = self.kv(ctx).view(b, ctx.shape[1], 2, h, c // h).permute(2, 0, 3, 1, 4)
        mask = None if key_mask is None else key_mask[:, None, None, :]
        y = F.scaled_dot_product_attention(qh, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, q, c))


class SelfBlock(nn.Module):
    """Pre-norm transformer block: self-attention then a GELU MLP, both residual."""

    def __init__(self, dim: int, heads: int, mlp_ratio: float = 4.0) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.ff = mlp([dim, int(dim * mlp_ratio), dim])

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` (B, T, C) -> (B, T, C)."""
        x = x + self.attn(self.norm1(x), key_mask=key_mask)
        return x + self.ff(self.norm2(x))


class CrossBlock(nn.Module):
    """Pre-norm block: queries attend to a context, then to each other, then an MLP (all residual)."""

    def __init__(self, dim: int, heads: int, context_dim: int | None = None, mlp_ratio: float = 4.0,
                 self_attention: bool = True) -> None:
        super().__init__()
        self.norm_q, self.norm_c = nn.LayerNorm(dim), nn.LayerNorm(context_dim or dim)
        self.cross = Attention(dim, heads, context_dim)
        self.self_attn = SelfBlock(dim, heads, mlp_ratio) if self_attention else None
        self.norm_f = nn.LayerNorm(dim)
        self.ff = mlp([dim, int(dim * mlp_ratio), dim])

    def forward(self, x: torch.Tensor, context: torch.Tensor, key_mask: torch.Tensor | None = None
                ) -> torch.Tensor:
        """``x`` (B, Q, C) attending to ``context`` (B, K, Cc) -> (B, Q, C)."""
        x = x + self.cross(self.norm_q(x), self.norm_c(context), key_mask)
        if self.self_attn is not None:
            x = self.self_attn(x)
        return x + self.ff(self.norm_f(x))
