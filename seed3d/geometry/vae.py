"""The locality-aware shape VAE: surface points -> a set of latent tokens anchored in space -> truncated SDF.

Encoding. Token anchors are chosen from the input points by *adaptive* farthest-point sampling: each point is
weighted by how complex the surface around it is (the spread of its neighbours' normals, and 1 on sharp
edges), so anchors crowd on edges and curved detail and thin out on flat panels. Each token then aggregates
only its spatial neighbourhood -- the ``encoder_k`` input points nearest its anchor, attended with their
offsets from the anchor -- before a few self-attention blocks let tokens share context. A KL-regularised
Gaussian per token gives ``latent_dim`` channels; the anchor positions travel with the latent.

Decoding. The latent tokens pass a few self-attention blocks; then every SDF query is *routed*: space is cut
into a grid whose cells shrink as tokens get denser (about one cell per token spacing), each cell keeps the
``route_candidates`` anchors nearest its centre, and a query attends only to its cell's tokens -- never to all
of them -- with a learned per-head penalty on its squared distance to each anchor and the anchor-to-query offset
added to the values. A query therefore costs the same at 256 or 4,096 tokens. Queries of one cell share their
tokens, so large query sets (surface extraction) are decoded cell by cell as small dense attention blocks;
training decodes each query on its own. Both compute the same function. The per-query layers around the attention
are an MLP in, a query projection, an output projection and an MLP head (the full path) or, with
``light_queries``, one linear map in (query and residual together), the output projection and the head: without
the MLP's hidden layer and the query projection, 60 % of the full path's per-query arithmetic (head as wide).
``seed3d.geometry.train.fit_light_queries`` fits that map to a trained full path by least squares.

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

DECODE_BLOCK = 2048
"""Queries ``decode_cells`` works on at a time (its intermediates then stay in a CPU's cache)."""

TRAINABLE = ("all", "decoder", "queries")
"""What a training run may train (``frozen_modules`` names what each keeps)."""


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
    route_candidates: int = 16
    """Tokens each SDF query attends to: the anchors nearest the centre of its routing cell."""
    route_cells: float = 1.0
    """Routing grid cells per axis = this x sqrt(token count), rounded to a power of two (within 4 and
    ``route_grid_max``)."""
    route_grid_max: int = 32
    """Most routing cells per axis (a power of two): beyond it, more tokens make cells fuller, not smaller, so
    large token counts decode in fewer, larger blocks."""
    light_queries: bool = False
    """The light per-query path: one linear map of a query's Fourier features gives its attention query and its
    residual (which also carries the query's side of the anchor-to-query offset), then the output projection and
    an SDF head ``width -> head_width -> 1``; otherwise an MLP in, a query projection, the output projection and
    a ``width -> width -> 1`` head (v3 and before)."""
    head_width: int = 64
    """Hidden width of the light path's SDF head (``fit_light_queries`` sets it to ``width``)."""
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
        if self.route_grid_max < 4 or self.route_grid_max & (self.route_grid_max - 1):
            raise InvalidInputError(f"route_grid_max must be a power of two of at least 4, got {self.route_grid_max}")


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


class RoutedAttention(nn.Module):
    """Attention of queries over a few tokens each, with a per-head squared-distance penalty (scaled by token
    density) and the anchor-to-query offset added to the values (folded into the projected values)."""

    def __init__(self, dim: int, heads: int, query_projection: bool = True) -> None:
        super().__init__()
        self.heads = heads
        if query_projection:  # the light query path's linear map gives the attention query itself
            self.q = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.value_offset = nn.Linear(3, dim, bias=False)
        self.log_beta = nn.Parameter(torch.full((heads,), math.log(40.0)))

    def project(self, tokens: torch.Tensor, anchors: torch.Tensor) -> torch.Tensor:
        """Keys and offset-folded values (B, M, 2C) of the tokens, computed once per shape."""
        k, v = self.kv(tokens).chunk(2, dim=-1)
        return torch.cat([k, v - self.value_offset(anchors)], dim=-1)

    def attend(self, qx: torch.Tensor, xyz: torch.Tensor, kv: torch.Tensor, anchors: torch.Tensor,
               density: float) -> torch.Tensor:
        """Attention output (N, S, C), before the output projection, of projected queries ``qx`` (N, S, C) at
        ``xyz`` (N, S, 3) over their group's tokens ``kv`` (N, K, 2C) anchored at ``anchors`` (N, K, 3);
        ``density`` scales the distance penalty (token count / 256)."""
        n, s, c = qx.shape
        h = self.heads
        k, v = kv.chunk(2, dim=-1)
        split = (n, -1, h, c // h)
        d2 = torch.cdist(xyz, anchors).square()  # (N, S, K)
        bias = -(self.log_beta.exp() * density)[None, :, None, None] * d2[:, None]
        y = F.scaled_dot_product_attention(qx.view(split).transpose(1, 2), k.view(split).transpose(1, 2),
                                           v.view(split).transpose(1, 2), attn_mask=bias)
        return y.transpose(1, 2).reshape(n, s, c)

    def fold_keys(self, kv: torch.Tensor, anchors: torch.Tensor, density: float) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-head keys (H, M, D + 4) and values (H, M, D) of ONE shape's projected tokens ``kv`` (M, 2C) at
        ``anchors`` (M, 3), with the distance penalty folded into the keys: a query's scores are its
        ``(q / sqrt(D), x, 1)`` against them (``-b |x - a|^2`` expanded, its ``|x|^2`` term, the same for all of a
        query's tokens, dropped: softmax does not see it)."""
        m, c = anchors.shape[0], kv.shape[-1] // 2
        h = self.heads
        k, v = kv.chunk(2, dim=-1)
        b = (self.log_beta.exp() * density)[:, None, None]  # (H, 1, 1)
        keys = torch.cat([k.reshape(m, h, c // h).transpose(0, 1), (2.0 * b) * anchors,
                          -b * anchors.square().sum(-1)[None, :, None]], dim=-1)
        return keys.contiguous(), v.reshape(m, h, c // h).transpose(0, 1).contiguous()


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
        self.route = RoutedAttention(w, cfg.heads, query_projection=not cfg.light_queries)
        if cfg.light_queries:
            self.query_in: nn.Module = nn.Linear(pd, 2 * w)
            self.head = nn.Sequential(nn.LayerNorm(w), mlp([w, cfg.head_width, 1]))
        else:
            self.query_in = mlp([pd, w, w])
            self.head = nn.Sequential(nn.LayerNorm(w), mlp([w, w, 1]))

    def frozen_modules(self, trainable: str) -> nn.ModuleList:
        """The modules a run that trains ``trainable`` (all | decoder | queries) keeps as they are: none; the
        encoder (what makes the latent); the encoder and the decoder's token side (what makes the tokens' keys and
        values)."""
        encoder = [self.point_in, self.anchor_in, self.local, self.encoder, self.encoder_norm, self.to_posterior]
        token_side = [self.from_latent, self.latent_pos, self.decoder, self.token_norm, self.route.kv,
                      self.route.value_offset]
        if trainable not in TRAINABLE:
            raise InvalidInputError(f"trainable must be one of {', '.join(TRAINABLE)}, got {trainable!r}")
        kept = {"all": [], "decoder": encoder, "queries": encoder + token_side}[trainable]
        return nn.ModuleList(kept)

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
        return self.route.project(self.token_norm(x), latent.anchors)

    def routing_grid(self, num_tokens: int) -> int:
        """Routing grid cells per axis for ``num_tokens`` tokens (a power of two in 4..``route_grid_max``)."""
        g = 2 ** round(math.log2(max(self.config.route_cells * math.sqrt(num_tokens), 1.0)))
        return int(min(max(g, 4), self.config.route_grid_max))

    def _cells(self, queries: torch.Tensor, grid: int) -> torch.Tensor:
        cell = ((queries.clamp(-1.0, 1.0 - 1e-6) + 1.0) * (grid / 2.0)).long()
        return (cell[..., 0] * grid + cell[..., 1]) * grid + cell[..., 2]

    @staticmethod
    def _centres(cells: torch.Tensor, grid: int, dtype: torch.dtype) -> torch.Tensor:
        ijk = torch.stack([cells // (grid * grid), (cells // grid) % grid, cells % grid], -1)
        return (ijk.to(dtype) + 0.5) * (2.0 / grid) - 1.0

    def route_queries(self, queries: torch.Tensor, anchors: torch.Tensor) -> torch.Tensor:
        """Indices (B, Q, K) of the tokens each query attends to: the anchors nearest its cell's centre."""
        grid = self.routing_grid(anchors.shape[1])
        centres = self._centres(self._cells(queries, grid), grid, queries.dtype)
        return knn(centres, anchors, min(self.config.route_candidates, anchors.shape[1]))[1]

    def decode_tokens(self, tokens: torch.Tensor, anchors: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        """Truncated SDF (B, Q) at ``queries`` (B, Q, 3) from precomputed ``tokens`` (see ``tokens``), each query
        on its own (the training path)."""
        b, q, _ = queries.shape
        idx = self.route_queries(queries, anchors)
        qx, res = self.query_features(queries)
        kv = gather(tokens, idx).flatten(0, 1)
        a = gather(anchors, idx).flatten(0, 1)
        y = self.route.attend(qx.reshape(b * q, 1, -1), queries.reshape(b * q, 1, 3), kv, a, anchors.shape[1] / 256.0)
        return self.query_sdf(y.view(b, q, -1), queries, res)

    def query_features(self, xyz: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Projected attention queries and residual features (..., C) of query points ``xyz`` (..., 3)."""
        x = self.query_in(self.position_embed(xyz))
        if self.config.light_queries:
            q, res = x.chunk(2, dim=-1)
            return q, res
        return self.route.q(x), x

    def query_sdf(self, attended: torch.Tensor, xyz: torch.Tensor, res: torch.Tensor) -> torch.Tensor:
        """SDF (...) of queries at ``xyz`` (..., 3) from their attention output (before the output projection) and
        residual features (see ``query_features``). The light path's residual also carries the query's side of
        the anchor-to-query offset (its Fourier features include the position)."""
        if self.config.light_queries:
            return self.head(res + self.route.out(attended))[..., 0]
        return self.head(res + self.route.out(attended + self.route.value_offset(xyz)))[..., 0]

    def folded_queries(self) -> dict[str, tuple[torch.Tensor, ...]]:
        """The per-query layers merged for ``decode_cells`` (the same function in fewer steps): one map gives the
        residual and the attention query (the latter pre-scaled by 1 / sqrt(head width); on the full path the query
        projection is folded into the query MLP's last layer), the output projection's bias moves into the
        residual, and on the full path the query's side of the value offset passes the output projection as one
        3 x C map. Each entry is (bias, weight transposed) for ``torch.addmm``, or a weight alone."""
        r, c = self.route, self.config.width
        s = 1.0 / math.sqrt(c // self.config.heads)
        out = {"out": (r.out.weight.t().contiguous(),)}
        if self.config.light_queries:
            assert isinstance(self.query_in, nn.Linear)
            (wq, wr), (bq, br) = self.query_in.weight.chunk(2), self.query_in.bias.chunk(2)
            return {**out, "in": (torch.cat([br + r.out.bias, s * bq]), torch.cat([wr, s * wq]).t().contiguous())}
        first, last = self.query_in[0], self.query_in[-1]
        return {**out, "first": (first.bias, first.weight.t().contiguous()),
                "in": (torch.cat([last.bias + r.out.bias, s * (r.q.weight @ last.bias + r.q.bias)]),
                       torch.cat([last.weight, s * (r.q.weight @ last.weight)]).t().contiguous()),
                "offset": ((r.out.weight @ r.value_offset.weight).t().contiguous(),)}

    def _decode_block(self, xyz: torch.Tensor, lists: torch.Tensor, pos: torch.Tensor, group: int,
                      folded: dict[str, tuple[torch.Tensor, ...]], keys: torch.Tensor, values: torch.Tensor
                      ) -> torch.Tensor:
        """SDF of queries ``xyz`` (N, 3) sitting at slots ``pos`` of ``len(lists)`` chunks of ``group`` slots, each
        chunk attending to its token list (``lists`` (chunks, K)); see ``decode_cells``."""
        n, h = len(xyz), self.config.heads
        d = self.config.width // h
        x = self.position_embed(xyz)
        if "first" in folded:
            b, w = folded["first"]
            x = F.gelu(torch.addmm(b, x, w))
        b, w = folded["in"]
        x = torch.addmm(b, x, w)
        res, q = x[:, : h * d], x[:, h * d:]
        qa = torch.empty(h, n, d + 4, dtype=xyz.dtype, device=xyz.device)
        qa[..., :d] = q.view(n, h, d).transpose(0, 1)
        qa[..., d: d + 3] = xyz
        qa[..., d + 3] = 1.0
        chunks = len(lists)
        qg = qa.new_zeros(h, chunks * group, d + 4).index_copy_(1, pos, qa)  # padding slots attend too; dropped
        flat = lists.reshape(-1)
        k = keys.index_select(1, flat).view(h * chunks, -1, d + 4)
        v = values.index_select(1, flat).view(h * chunks, -1, d)
        p = torch.bmm(qg.view(h * chunks, group, d + 4), k.transpose(1, 2)).softmax(-1)
        y = torch.bmm(p, v).view(h, chunks * group, d).index_select(1, pos).transpose(0, 1).reshape(n, h * d)
        pre = torch.addmm(res, y, *folded["out"])
        if "offset" in folded:
            pre.addmm_(xyz, *folded["offset"])
        return self.head(pre)[..., 0]

    def decode_cells(self, tokens: torch.Tensor, anchors: torch.Tensor, queries: torch.Tensor,
                     group: int = 64, block: int = DECODE_BLOCK, cache: dict[str, object] | None = None
                     ) -> torch.Tensor:
        """Truncated SDF (Q,) of ONE shape (``tokens`` (1, M, 2C), ``anchors`` (1, M, 3)) at ``queries`` (Q, 3),
        in dense attention blocks. The same function as ``decode_tokens`` (to float rounding), with the per-query
        layers merged (``folded_queries``) and the distance penalty folded into the keys
        (``RoutedAttention.fold_keys``); ``cache`` keeps those and each cell's token list between calls for one
        shape.

        Queries are sorted by routing cell; a cell's queries attend to its token list together, up to ``group``
        at a time (fewer when cells hold few queries, so padding stays small). The work runs ``block`` queries
        at a time so that its intermediates stay in the CPU's cache."""
        m = anchors.shape[1]
        grid = self.routing_grid(m)
        k = min(self.config.route_candidates, m)
        dev = queries.device
        cache = {} if cache is None else cache
        cells = self._cells(queries, grid)
        table = cache.get("table")
        if not isinstance(table, torch.Tensor):
            table = cache["table"] = torch.full((grid ** 3, k), -1, dtype=torch.long, device=dev)
        if "keys" not in cache:
            cache["keys"] = self.route.fold_keys(tokens[0], anchors[0], m / 256.0)
            cache["folded"] = self.folded_queries()
        keys, values = cache["keys"]  # type: ignore[misc]
        folded: dict[str, tuple[torch.Tensor, ...]] = cache["folded"]  # type: ignore[assignment]
        order = torch.argsort(cells)
        ucell, counts = torch.unique_consecutive(cells[order], return_counts=True)
        todo = ucell[table[ucell, 0] < 0]
        if len(todo):
            from scipy.spatial import cKDTree

            if "tree" not in cache:
                cache["tree"] = cKDTree(anchors[0].detach().double().cpu().numpy())
            _, near = cache["tree"].query(self._centres(todo, grid, torch.float64).cpu().numpy(), k=k)  # type: ignore[attr-defined]
            table[todo] = torch.from_numpy(near.reshape(len(todo), k)).to(dev)
        # chunks of up to `group` queries of one cell (group ~ the mean cell size)
        nc = len(ucell)
        group = int(min(group, max(4, 2 ** round(math.log2(max(len(cells) / nc, 1.0))))))
        per_cell = (counts + group - 1) // group
        cell_of_q = torch.repeat_interleave(torch.arange(nc, device=dev), counts)
        rank = torch.arange(len(cells), device=dev) - (torch.cumsum(counts, 0) - counts)[cell_of_q]
        chunk = (torch.cumsum(per_cell, 0) - per_cell)[cell_of_q] + rank // group
        slot = rank % group
        n_chunks = int(per_cell.sum())
        lists = table[ucell][torch.repeat_interleave(torch.arange(nc, device=dev), per_cell)]  # (chunks, K)
        out = torch.empty(len(cells), dtype=queries.dtype, device=dev)
        step = max(1, block // group)
        starts = torch.arange(0, n_chunks + step, step, device=dev).clamp(max=n_chunks)
        bounds = torch.searchsorted(chunk, starts).tolist()  # sorted query ranges of each run of chunks
        for i, c0 in enumerate(range(0, n_chunks, step)):
            c1, (s0, s1) = min(c0 + step, n_chunks), bounds[i: i + 2]
            idx = order[s0:s1]
            pos = (chunk[s0:s1] - c0) * group + slot[s0:s1]
            out[idx] = self._decode_block(queries.index_select(0, idx), lists[c0:c1], pos, group, folded, keys, values)
        return out

    def decode(self, latent: ShapeLatent, queries: torch.Tensor) -> torch.Tensor:
        """Truncated SDF (B, Q) of ``latent`` at ``queries`` (B, Q, 3) (unclamped during training)."""
        return self.decode_tokens(self.tokens(latent), latent.anchors, queries)

    def sdf_function(self, latent: ShapeLatent, batch: int = 65536) -> object:
        """A numpy callable (Q, 3) -> (Q,) clamped SDF of the first shape of ``latent``, for surface extraction."""
        import numpy as np

        cfg = self.config
        with torch.no_grad():
            one = ShapeLatent(latent.anchors[:1], latent.feats[:1])
            tokens = self.tokens(one)
        cache: dict[str, object] = {}

        def sdf(points: np.ndarray) -> np.ndarray:
            out = np.empty(len(points), np.float32)
            with torch.no_grad():
                for s in range(0, len(points), batch):
                    q = torch.from_numpy(np.ascontiguousarray(points[s: s + batch], np.float32))
                    q = q.to(one.anchors.device, one.anchors.dtype)
                    v = self.decode_cells(tokens, one.anchors, q, cache=cache)
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
