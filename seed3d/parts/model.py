"""The point-prompted part segmenter: a point-cloud transformer that, given a prompt point on a shape's surface,
predicts the mask of the part under it, the part's semantic label and how good its own mask is (IoU).

Encoder (once per shape): per-point Fourier features and normals -> local groups of the ``group`` nearest points
around ``tokens`` farthest-point centres, max-pooled into tokens (each token sees only its neighbourhood) ->
``depth`` transformer blocks over the tokens -> per-point features = the point's own features fused with the
tokens interpolated at it. Features can be evaluated at any surface point (with its normal), so masks are
computed on the sampled points and again on a mesh's faces.

Decoder (cheap, once per prompt, as in SAM): the prompt's feature and position attend to the tokens; each query
point's mask logit comes from the product of its feature with the prompt's plus its position relative to the
prompt. Labels and the IoU score are heads on the prompt query.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from seed3d.asset import PART_LABELS
from seed3d.errors import InvalidInputError
from seed3d.nn import (
    CrossBlock,
    FourierEmbed,
    PretrainedMixin,
    SelfBlock,
    farthest_point_sample,
    gather,
    interpolate,
    knn,
    mlp,
)


@dataclass
class SegmenterConfig:
    """Sizes of the part segmenter (the defaults train in about an hour on 2 CPU cores)."""

    num_points: int = 2048
    """Points the encoder sees per shape (masks can be evaluated at any number of points)."""
    edge_points: int = 0
    """How many of them lie on sharp edges, flagged in an extra input channel (0: surface points only). Edges
    show the narrow gaps around doors and drawers that sparse surface points miss."""
    tokens: int = 256
    """Local tokens (farthest-point centres)."""
    fps_pool: int = 1024
    """Token centres are farthest-point samples of this many of the points (cost grows with it)."""
    group: int = 24
    """Points pooled into each token (its nearest neighbours)."""
    point_dim: int = 64
    """Width of the per-point features."""
    width: int = 192
    """Token width."""
    feature_dim: int = 128
    """Width of the fused per-point features the mask head reads."""
    depth: int = 4
    """Transformer blocks over the tokens."""
    heads: int = 6
    """Attention heads."""
    decoder_depth: int = 2
    """Cross-attention blocks of the prompt query over the tokens."""
    mask_dim: int = 64
    """Width of the per-point mask head."""
    freqs: int = 6
    """Fourier octaves of absolute positions."""
    rel_freqs: int = 4
    """Fourier octaves of positions relative to the prompt."""
    labels: tuple[str, ...] = PART_LABELS
    """Semantic part labels the label head predicts."""

    def __post_init__(self) -> None:
        if not 0 <= self.edge_points < self.num_points:
            raise InvalidInputError(f"edge_points must lie in [0, num_points={self.num_points}), "
                                    f"got {self.edge_points}")
        self.labels = tuple(self.labels)


@dataclass
class ShapeFeatures:
    """What the encoder computed for a batch of shapes."""

    points: torch.Tensor
    """(B, N, 3) the encoded points (normalised frame)."""
    point_feat: torch.Tensor
    """(B, N, C) features of those points."""
    token_xyz: torch.Tensor
    """(B, M, 3) token centres."""
    tokens: torch.Tensor
    """(B, M, W) token features after the transformer."""


class PartSegmenter(nn.Module, PretrainedMixin):
    """Point-prompted part segmentation: ``encode`` a shape once, ``decode`` masks for any number of prompts."""

    config_class = SegmenterConfig
    model_type = "seed3d-part-segmenter"

    def __init__(self, config: SegmenterConfig | None = None) -> None:
        super().__init__()
        self.config = cfg = config or SegmenterConfig()
        self.pe = FourierEmbed(cfg.freqs)
        self.rel_pe = FourierEmbed(cfg.rel_freqs, scale=2.0)
        self.point_in = mlp([self.pe.out_dim + 3 + (1 if cfg.edge_points else 0), cfg.point_dim, cfg.point_dim])
        self.group_in = mlp([cfg.point_dim + self.rel_pe.out_dim, cfg.width, cfg.width])
        self.token_pos = mlp([self.pe.out_dim, cfg.width, cfg.width])
        self.blocks = nn.ModuleList([SelfBlock(cfg.width, cfg.heads) for _ in range(cfg.depth)])
        self.token_norm = nn.LayerNorm(cfg.width)
        self.fuse = mlp([cfg.point_dim + cfg.width, cfg.feature_dim, cfg.feature_dim])
        self.prompt_in = mlp([cfg.feature_dim + self.pe.out_dim, cfg.width, cfg.width])
        self.decoder = nn.ModuleList([CrossBlock(cfg.width, cfg.heads, self_attention=False)
                                      for _ in range(cfg.decoder_depth)])
        self.query_norm = nn.LayerNorm(cfg.width)
        self.mask_point = nn.Linear(cfg.feature_dim, cfg.mask_dim)
        self.mask_query = nn.Linear(cfg.width, cfg.mask_dim)
        self.mask_rel = mlp([self.rel_pe.out_dim, cfg.mask_dim])
        self.mask_out = mlp([cfg.mask_dim, cfg.mask_dim, 1])
        self.label_head = mlp([cfg.width, cfg.width, len(cfg.labels)])
        self.iou_head = mlp([cfg.width, cfg.width // 2, 1])

    # ---- encoder
    def _point_features(self, xyz: torch.Tensor, normals: torch.Tensor, edge: torch.Tensor | None
                        ) -> torch.Tensor:
        parts = [self.pe(xyz), normals]
        if self.config.edge_points:
            parts.append(torch.zeros_like(xyz[..., :1]) if edge is None else edge.to(xyz.dtype)[..., None])
        return self.point_in(torch.cat(parts, dim=-1))

    def encode(self, points: torch.Tensor, normals: torch.Tensor, edge: torch.Tensor | None = None
               ) -> ShapeFeatures:
        """Encode shapes: ``points`` and unit ``normals`` (B, N, 3) in the normalised frame; ``edge`` (B, N)
        flags points on sharp edges (models with ``edge_points``; None: none are)."""
        cfg = self.config
        pf = self._point_features(points, normals, edge)
        pool = points.detach()[:, :: max(1, points.shape[1] // cfg.fps_pool)]
        centres = farthest_point_sample(pool, min(cfg.tokens, pool.shape[1]))
        cxyz = gather(pool, centres)
        _, gidx = knn(cxyz, points, cfg.group)
        rel = gather(points, gidx) - cxyz[:, :, None]
        g = self.group_in(torch.cat([gather(pf, gidx), self.rel_pe(rel)], dim=-1)).amax(dim=2)
        tok = g + self.token_pos(self.pe(cxyz))
        for blk in self.blocks:
            tok = blk(tok)
        tok = self.token_norm(tok)
        feat = ShapeFeatures(points, pf, cxyz, tok)
        feat.point_feat = self._fuse(feat, points, pf)
        return feat

    def _fuse(self, feat: ShapeFeatures, xyz: torch.Tensor, pf: torch.Tensor) -> torch.Tensor:
        return self.fuse(torch.cat([pf, interpolate(xyz, feat.token_xyz, feat.tokens)], dim=-1))

    def features_at(self, feat: ShapeFeatures, xyz: torch.Tensor, normals: torch.Tensor,
                    edge: torch.Tensor | None = None) -> torch.Tensor:
        """Per-point features (B, Q, feature_dim) at any surface points ``xyz`` with ``normals`` (B, Q, 3)."""
        return self._fuse(feat, xyz, self._point_features(xyz, normals, edge))

    # ---- decoder
    def prompt_queries(self, feat: ShapeFeatures, prompt_idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries (B, K, W) and positions (B, K, 3) of prompts given as indices (B, K) into the encoded points."""
        pxyz = gather(feat.points, prompt_idx)
        return self._queries(feat, gather(feat.point_feat, prompt_idx), pxyz), pxyz

    def queries_at(self, feat: ShapeFeatures, xyz: torch.Tensor, normals: torch.Tensor) -> torch.Tensor:
        """Queries (B, K, W) of prompts at any surface points ``xyz`` with ``normals`` (B, K, 3), not only at
        encoded ones (a part too small to hold an encoded point can still be prompted)."""
        return self._queries(feat, self.features_at(feat, xyz, normals), xyz)

    def _queries(self, feat: ShapeFeatures, prompt_feat: torch.Tensor, pxyz: torch.Tensor) -> torch.Tensor:
        q = self.prompt_in(torch.cat([prompt_feat, self.pe(pxyz)], dim=-1))
        for blk in self.decoder:
            q = blk(q, feat.tokens)
        return self.query_norm(q)

    def mask_logits(self, query: torch.Tensor, pxyz: torch.Tensor, xyz: torch.Tensor, point_feat: torch.Tensor
                    ) -> torch.Tensor:
        """Mask logits (B, K, Q) of K prompt queries at Q points (``xyz`` with features ``point_feat``)."""
        a = self.mask_point(point_feat)[:, None]                      # B, 1, Q, D
        b = self.mask_query(query)[:, :, None]                        # B, K, 1, D
        rel = self.mask_rel(self.rel_pe(xyz[:, None] - pxyz[:, :, None]))  # B, K, Q, D
        return self.mask_out(a * b + rel).squeeze(-1)

    def forward(self, points: torch.Tensor, normals: torch.Tensor, prompt_idx: torch.Tensor,
                edge: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Mask logits (B, K, N) on the input points, label logits (B, K, L) and predicted mask IoU (B, K)."""
        feat = self.encode(points, normals, edge)
        q, pxyz = self.prompt_queries(feat, prompt_idx)
        masks = self.mask_logits(q, pxyz, feat.points, feat.point_feat)
        return masks, self.label_head(q), self.iou_head(q).squeeze(-1)

    def num_parameters(self) -> int:
        """Number of parameters."""
        return sum(p.numel() for p in self.parameters())
