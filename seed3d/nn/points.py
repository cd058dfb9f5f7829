"""Point-cloud operators in torch: farthest point sampling, k nearest neighbours, gathering, interpolation,
Fourier positional features."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn


def farthest_point_sample(points: torch.Tensor, count: int, start: torch.Tensor | None = None,
                          weights: torch.Tensor | None = None,
                          progress: Callable[[float], None] | None = None) -> torch.Tensor:
    """Indices (B, count) of ``count`` points of ``points`` (B, N, 3) chosen greedily far from each other.

    The first pick is ``start`` (B,) when given, else the point farthest from the centroid (deterministic).
    ``weights`` (B, N) > 0 make the choice adaptive: each pick maximises distance x weight, so points of weight
    w end up about w times closer together than points of weight 1. ``progress(fraction)`` every 64 picks."""
    b, n, _ = points.shape
    if count > n:
        raise ValueError(f"cannot choose {count} of {n} points")
    out = torch.empty(b, count, dtype=torch.long, device=points.device)
    if start is None:
        start = (points - points.mean(dim=1, keepdim=True)).square().sum(-1).argmax(dim=1)
    dist = torch.full((b, n), float("inf"), device=points.device, dtype=points.dtype)
    cur = start
    rows = torch.arange(b, device=points.device)
    for i in range(count):
        out[:, i] = cur
        d = (points - points[rows, cur][:, None]).square().sum(-1)
        dist = torch.minimum(dist, d)
        cur = dist.argmax(dim=1) if weights is None else (dist * weights.square()).argmax(dim=1)
        if progress is not None and (i + 1) % 64 == 0:
            progress((i + 1) / count)
    return out


def gather(values: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``values`` (B, N, C) at ``index`` (B, ...) -> (B, ..., C)."""
    b, n, c = values.shape
    rows = index.reshape(b, -1) + torch.arange(b, device=index.device)[:, None] * n  # rows of the flattened batch
    return values.reshape(b * n, c).index_select(0, rows.reshape(-1)).view(*index.shape, c)


def knn(queries: torch.Tensor, points: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Squared distances and indices (B, Q, k) of the ``k`` nearest ``points`` (B, N, 3) to ``queries`` (B, Q, 3)."""
    d = torch.cdist(queries, points).square()
    dist, idx = d.topk(min(k, points.shape[1]), dim=-1, largest=False)
    return dist, idx


def interpolate(queries: torch.Tensor, points: torch.Tensor, values: torch.Tensor, k: int = 3) -> torch.Tensor:
    """Inverse-distance-weighted features (B, Q, C) at ``queries`` from ``values`` (B, N, C) at ``points``."""
    dist, idx = knn(queries, points, k)
    w = 1.0 / (dist + 1e-8)
    w = w / w.sum(-1, keepdim=True)
    return (gather(values, idx) * w[..., None]).sum(-2)


class FourierEmbed(nn.Module):
    """Sines and cosines of 3D coordinates at octave frequencies, with the coordinates themselves."""

    def __init__(self, freqs: int = 8, scale: float = 1.0) -> None:
        super().__init__()
        self.register_buffer("bands", scale * math.pi * 2.0 ** torch.arange(freqs).float(), persistent=False)
        self.out_dim = 3 + 6 * freqs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` (..., 3) -> (..., 3 + 6 * freqs)."""
        a = (x[..., None] * self.bands).flatten(-2)
        return torch.cat([x, a.sin(), a.cos()], dim=-1)
