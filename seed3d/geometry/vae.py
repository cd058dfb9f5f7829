"""The locality-aware shape VAE: surface points -> a set of latent tokens anchored in space -> truncated SDF.

Encoding. Token anchors are chosen from the input points by *adaptive* farthest-point sampling: each point is
weighted by how complex the surface around it is (the spread of its neighbours' normals, and 1 on sharp
edges), so anchors crowd on edges and curved detail and thin out on flat panels. Each token then aggregates
only its spatial neighbourhood -- the ``encoder_k`` input points nearest its anchor, attended with their
offsets from the anchor -- before a few self-attention blocks let tokens share context. A KL-regularised
Gaussian per token gives ``latent_dim`` channels; the anchor positions travel with the latent.

Decoding. The latent tokens pass a few self-attention blocks; then every SDF query is *routed* to its
``route_k`` nearest anchors and attends only to those tokens (with their offsets from the query), never to all
of them, so a query costs the same at 256 or 4,096 tokens. Large query sets (surface extraction) route through
a coarse grid: each grid cell keeps the anchors nearest its centre and a query searches only its cell's list.

The token budget is chosen at inference (``num_tokens``); training draws it per step from ``token_choices``.
Frames: the data set's normalised cube [-1, 1]^3 (an asset's longest side spans 1.8), SDF negative inside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn import CrossBlock, FourierEmbed, PretrainedMixin, SelfBlock, farthest_point_sample, gather, knn, mlp


@dataclass
class ShapeVAEConfig:
    """Sizes of the shape VAE (the defaults train in about an hour on 2 CPU cores)."""

    num_tokens: int = 256
    """Default token budget at inference."""
    token_choices: tuple[int, ...] = (128, 256, 512)
    """Token budgets drawn per training step."""
    surface_points: int = 3072
    """Input points sampled uniformly on the surface."""
    sharp_points: int = 1024
    """Input points on sharp edges (flagged in an input channel)."""
    anchor_pool: int = 1536
    """Anchors are chosen among this many input points (at least twice the token count), evenly strided."""
    complexity_k: int = 16
    """Neighbours used to measure the normal spread around a point."""
    complexity_gain: float = 3.0
    """Anchor density on the most complex surface relative to a flat one (adaptive FPS weight 1 + gain * c)."""
    encoder_coverage: float = 2.0
    """Each input point falls in about this many token neighbourhoods: a token aggregates its
    coverage x N / M nearest input points (within ``encoder_k``)."""
    encoder_k: tuple[int, int] = (8, 48)
    """Bounds of the neighbourhood size."""
    offset_scale: float = 8.0
    """Offsets between a point and an anchor are multiplied by this before their Fourier features."""
    offset_freqs: int = 6
    """Octaves of the offset features."""
    position_freqs: int = 8
    """Octaves of the absolute position features."""
    width: int = 192
    """Transformer width."""
    heads: int = 6
    """Attention heads."""
    encoder_depth: int = 2
    """Self-attention blocks after the local aggregation."""
    latent_dim: int = 32
    """Latent channels per token."""
    decoder_depth: int = 4
    """Self-attention blocks on the latent tokens before the queries."""
    route_k: int = 8
    """Tokens each SDF query attends to."""
    truncation: float = 0.1
    """SDF truncation (normalised units): targets and outputs are clamped to +-truncation."""
    logvar_clamp: tuple[float, float] = (-12.0, 4.0)
    """Bounds of the predicted log-variance."""
    extra: dict[str, float] = field(default_factory=dict)
    """Free-form numbers recorded with the model (e.g. the latent scale the flows use)."""

    def __post_init__(self) -> None:
        self.token_choices = tuple(int(t) for t in self.token_choices)
        self.encoder_k = (int(self.encoder_k[0]), int(self.encoder_k[1]))
        self.logvar_clamp = (float(self.logvar_clamp[0]), float(self.logvar_clamp[1]))
        if self.width % self.heads:
            raise InvalidInputError(f"width {self.width} is not divisible by {self.heads} heads")


@dataclass
class ShapeLatent:
    """A shape's latent: ``anchors`` (B, M, 3) in the normalised cube and ``feats`` (B, M, latent_dim)."""

    anchors: torch.Tensor
    feats: torch.Tensor
    mean: torch.Tensor | None = None
    logvar: torch.Tensor | None = None

    def kl(self) -> torch.Tensor:
        """Mean KL divergence per latent channel against a unit Gaussian."""
        if self.mean is None or self.logvar is None:
            raise InvalidInputError("this latent carries no posterior (it was not produced by encode)")
        return 0.5 * (self.mean.square() + self.logvar.exp() - 1.0 - self.logvar).mean()


def surface_complexity(points: torch.Tensor, normals: torch.Tensor, sharp: torch.Tensor, k: int) -> torch.Tensor:
    """Per-point complexity in [0, 1] (B, N): the spread of the normals of its ``k`` nearest points (1 minus the
    length of their mean), and 1 on sharp edges."""
    _, idx = knn(points, points, k)
    mean = gather(normals, idx).mean(dim=2)
    spread = (1.0 - mean.norm(dim=-1)).clamp(0.0, 1.0)
    return torch.maximum(spread * 2.0, sharp.float()).clamp(max=1.0)


class RoutedCrossAttention(nn.Module):
    """Each query attends to its own ``k`` tokens, picked by index, with a learned embedding of their offsets.

    Keys and values are projected once per token and then gathered, so the per-query cost is k x width."""

    def __init__(self, dim: int, heads: int, offset_dim: int) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.offset = nn.Linear(offset_dim, dim)
        self.out = nn.Linear(dim, dim)

    def project(self, tokens: torch.Tensor) -> torch.Tensor:
        """Keys and values (B, M, 2C) of the tokens, to pass to ``forward`` for any number of query batches."""
        return self.kv(tokens)

    def forward(self, x: torch.Tensor, kv: torch.Tensor, index: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """``x`` (B, Q, C) attends to the tokens ``index`` (B, Q, k) of ``kv`` (B, M, 2C) whose offsets from the
        query are embedded in ``offsets`` (B, Q, k, D) -> (B, Q, C)."""
        b, q, kk = index.shape
        c = x.shape[-1]
        h = self.heads
        rel = self.offset(offsets)
        keys, vals = gather(kv, index).split(c, dim=-1)
        keys = (keys + rel).view(b, q, kk, h, c // h)
        vals = (vals + rel).view(b, q, kk, h, c // h)
        qh = self.q(x).view(b, q, 1, h, c // h)
        w = ((qh * keys).sum(-1) / math.sqrt(c // h)).softmax(dim=2)  # (B, Q, k, h)
        y = (w[..., None] * vals).sum(2)
        return self.out(y.reshape(b, q, c))


class ShapeVAE(nn.Module, PretrainedMixin):
    """Locality-aware shape VAE (see the module docstring): ``encode`` points, ``decode`` SDF at queries."""

    config_class = ShapeVAEConfig
    model_type = "seed3d-shape-vae"

    def __init__(self, config: ShapeVAEConfig | None = None) -> None:
        super().__init__()
        cfg = config or ShapeVAEConfig()
        self.config = cfg
        w = cfg.width
        self.offset_embed = FourierEmbed(cfg.offset_freqs)
        self.position_embed = FourierEmbed(cfg.position_freqs, scale=0.5)
        od, pd = self.offset_embed.out_dim, self.position_embed.out_dim
        self.point_in = mlp([od + 3 + 1, w // 2, w])
        self.anchor_in = mlp([pd, w, w])
        self.local = CrossBlock(w, cfg.heads)
        self.encoder = nn.ModuleList(SelfBlock(w, cfg.heads) for _ in range(cfg.encoder_depth))
        self.encoder_norm = nn.LayerNorm(w)
        self.to_posterior = nn.Linear(w, 2 * cfg.latent_dim)
        self.from_latent = nn.Linear(cfg.latent_dim, w)
        self.latent_pos = mlp([pd, w, w])
        self.decoder = nn.ModuleList(SelfBlock(w, cfg.heads) for _ in range(cfg.decoder_depth))
        self.token_norm = nn.LayerNorm(w)
        self.query_in = mlp([pd, w, w])
        self.route = RoutedCrossAttention(w, cfg.heads, od)
        self.head = nn.Sequential(nn.LayerNorm(w), mlp([w, w, 1]))

    def num_parameters(self) -> int:
        """Number of parameters."""
        return sum(p.numel() for p in self.parameters())

    # ------------------------------------------------------------------------------------------- encoding

    def choose_anchors(self, points: torch.Tensor, normals: torch.Tensor, sharp: torch.Tensor,
                       num_tokens: int) -> torch.Tensor:
        """Anchors (B, M, 3): adaptive farthest-point samples of ``points``, denser where the surface is complex."""
        if num_tokens > points.shape[1]:
            raise InvalidInputError(f"{num_tokens} tokens need at least as many input points, got {points.shape[1]}")
        cfg = self.config
        n = points.shape[1]
        pool = min(n, max(cfg.anchor_pool, 2 * num_tokens))
        sel = torch.linspace(0, n - 1, pool, device=points.device).round().long()
        p, nr, sh = points[:, sel], normals[:, sel], sharp[:, sel]
        with torch.no_grad():
            c = surface_complexity(p, nr, sh, cfg.complexity_k)
            idx = farthest_point_sample(p, num_tokens, weights=1.0 + cfg.complexity_gain * c)
        return gather(p, idx)

    def encode(self, points: torch.Tensor, normals: torch.Tensor, sharp: torch.Tensor | None = None,
               num_tokens: int | None = None, anchors: torch.Tensor | None = None,
               sample: bool = False, generator: torch.Generator | None = None) -> ShapeLatent:
        """Latent of surface ``points`` (B, N, 3) with ``normals`` and sharp-edge flags ``sharp`` (B, N).

        Anchors are chosen adaptively (``num_tokens`` of them, default ``config.num_tokens``) unless given
        (B, M, 3) -- e.g. voxel centres of a coarse surface. ``sample`` draws from the posterior; otherwise
        the mean is the latent."""
        cfg = self.config
        if points.ndim != 3 or points.shape[-1] != 3 or normals.shape != points.shape:
            raise InvalidInputError(f"points and normals must be (B, N, 3), got {tuple(points.shape)} and "
                                    f"{tuple(normals.shape)}")
        if sharp is None:
            sharp = torch.zeros(points.shape[:2], dtype=torch.bool, device=points.device)
        if anchors is None:
            anchors = self.choose_anchors(points, normals, sharp, num_tokens or cfg.num_tokens)
        n, m = points.shape[1], anchors.shape[1]
        k = min(n, max(cfg.encoder_k[0], min(cfg.encoder_k[1], round(cfg.encoder_coverage * n / m))))
        _, idx = knn(anchors, points, k)
        offsets = (gather(points, idx) - anchors[:, :, None]) * cfg.offset_scale
        feats = torch.cat([self.offset_embed(offsets), gather(normals, idx),
                           gather(sharp[..., None].to(points.dtype), idx)], dim=-1)
        b, m, k, _ = feats.shape
        ctx = self.point_in(feats).view(b * m, k, -1)
        x = self.anchor_in(self.position_embed(anchors))
        x = self.local(x.view(b * m, 1, -1), ctx).view(b, m, -1)
        for block in self.encoder:
            x = block(x)
        mean, logvar = self.to_posterior(self.encoder_norm(x)).chunk(2, dim=-1)
        logvar = logvar.clamp(*cfg.logvar_clamp)
        z = mean
        if sample:
            noise = torch.randn(mean.shape, generator=generator, device=mean.device, dtype=mean.dtype)
            z = mean + (0.5 * logvar).exp() * noise
        return ShapeLatent(anchors, z, mean, logvar)

    # ------------------------------------------------------------------------------------------- decoding

    def tokens(self, latent: ShapeLatent) -> torch.Tensor:
        """Keys and values (B, M, 2 x width) of a latent's decoder tokens: computed once, reused for every query
        batch."""
        x = self.from_latent(latent.feats) + self.latent_pos(self.position_embed(latent.anchors))
        for block in self.decoder:
            x = block(x)
        return self.route.project(self.token_norm(x))

    def route_queries(self, queries: torch.Tensor, anchors: torch.Tensor, grid: int | None = None,
                      candidates: int = 64) -> torch.Tensor:
        """Indices (B, Q, route_k) of the anchors each query attends to.

        Exact nearest anchors when ``grid`` is None; otherwise queries search only the ``candidates`` anchors
        nearest the centre of their cell of a ``grid``^3 lattice over [-1, 1]^3 (cost independent of M)."""
        k = min(self.config.route_k, anchors.shape[1])
        if grid is None or anchors.shape[1] <= candidates:
            return knn(queries, anchors, k)[1]
        b = queries.shape[0]
        axis = (torch.arange(grid, device=queries.device, dtype=queries.dtype) + 0.5) * (2.0 / grid) - 1.0
        centres = torch.stack(torch.meshgrid(axis, axis, axis, indexing="ij"), -1).view(1, -1, 3).expand(b, -1, -1)
        cand = knn(centres, anchors, candidates)[1]  # (B, G^3, C)
        cell = ((queries.clamp(-1, 1 - 1e-6) + 1.0) * (grid / 2.0)).long()
        flat = (cell[..., 0] * grid + cell[..., 1]) * grid + cell[..., 2]  # (B, Q)
        qc = torch.gather(cand, 1, flat[..., None].expand(-1, -1, candidates))  # (B, Q, C)
        d = (gather(anchors, qc) - queries[:, :, None]).square().sum(-1)
        pick = d.topk(k, dim=-1, largest=False)[1]
        return torch.gather(qc, 2, pick)

    def decode_tokens(self, tokens: torch.Tensor, anchors: torch.Tensor, queries: torch.Tensor,
                      grid: int | None = None) -> torch.Tensor:
        """Truncated SDF (B, Q) at ``queries`` (B, Q, 3) from precomputed ``tokens`` (see ``tokens``)."""
        cfg = self.config
        idx = self.route_queries(queries, anchors, grid)
        offsets = (queries[:, :, None] - gather(anchors, idx)) * cfg.offset_scale
        x = self.query_in(self.position_embed(queries))
        x = x + self.route(x, tokens, idx, self.offset_embed(offsets))
        return self.head(x)[..., 0]

    def decode(self, latent: ShapeLatent, queries: torch.Tensor) -> torch.Tensor:
        """Truncated SDF (B, Q) of ``latent`` at ``queries`` (B, Q, 3) (unclamped during training)."""
        return self.decode_tokens(self.tokens(latent), latent.anchors, queries)

    def sdf_function(self, latent: ShapeLatent, batch: int = 65536, grid: int | None = 16
                     ) -> object:
        """A numpy callable (Q, 3) -> (Q,) clamped SDF of the first shape of ``latent``, for surface extraction."""
        import numpy as np

        cfg = self.config
        with torch.no_grad():
            one = ShapeLatent(latent.anchors[:1], latent.feats[:1])
            tokens = self.tokens(one)

        def sdf(points: np.ndarray) -> np.ndarray:
            out = np.empty(len(points), np.float32)
            with torch.no_grad():
                for s in range(0, len(points), batch):
                    q = torch.from_numpy(np.ascontiguousarray(points[s: s + batch], np.float32))[None]
                    q = q.to(one.anchors.device, one.anchors.dtype)
                    v = self.decode_tokens(tokens, one.anchors, q, grid=grid)[0]
                    out[s: s + batch] = v.clamp(-cfg.truncation, cfg.truncation).float().cpu().numpy()
            return out

        return sdf

    def forward(self, points: torch.Tensor, normals: torch.Tensor, sharp: torch.Tensor, queries: torch.Tensor,
                num_tokens: int | None = None, anchors: torch.Tensor | None = None,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor, ShapeLatent]:
        """Training pass: encode (sampling the posterior), decode ``queries``; returns (sdf (B, Q), latent)."""
        latent = self.encode(points, normals, sharp, num_tokens=num_tokens, anchors=anchors, sample=True,
                             generator=generator)
        return self.decode(latent, queries), latent


def sdf_loss(pred: torch.Tensor, target: torch.Tensor, truncation: float, near_weight: float = 4.0
             ) -> torch.Tensor:
    """L1 between ``pred`` and the truncated ``target``, weighted up where the target is within a tenth of the
    truncation of the surface."""
    t = target.clamp(-truncation, truncation)
    w = 1.0 + near_weight * (t.abs() < 0.1 * truncation).float()
    return (w * F.l1_loss(pred, t, reduction="none")).sum() / w.sum()
