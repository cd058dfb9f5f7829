"""The unified multi-view PBR generator: one rectified-flow transformer that generates, for the ``num_views`` views
of the fixed texture rig, albedo (sRGB) together with metallic and roughness — no RGB-then-estimate cascade.

Layout. A sample is a stack of views (B, V, 5, H, W): channels 0-2 albedo, 3 metallic, 4 roughness, all mapped to
[-1, 1] (background 0). The network predicts the clean views (``prediction="x0"``) and reports the velocity
``(x_t - x0) / t`` they imply, so rectified-flow samplers and losses apply unchanged while large pixel patches
only have to carry simple clean content, not per-pixel noise. The views are patchified into two token
**streams**: albedo tokens (3·p² values each) and metallic-roughness tokens (2·p²). Both streams carry the same
per-patch geometry embedding (rendered world normal, canonical position and coverage of the mesh: ``geometry``
(B, V, 7, H, W)), fixed 2-D sine-cosine patch positions, a learned embedding per rig view and one per stream.

Blocks (MMDiT-style, ``depth`` of them). Each stream has its own adaLN-Zero modulation, its own Q/K/V projection
(with per-head RMS normalisation of queries and keys) and its own attention output projection; the attention
itself is **joint** — every token of both streams and of every view attends to all the others, so views agree
with each other and albedo agrees with metallic-roughness. Then a shared cross-attention to the condition tokens
and a shared feed-forward layer: Mixture-of-Experts (``seed3d.nn.moe``) in the last ``moe_blocks`` blocks, whose
router sees the stream embedding and so can specialise experts by modality. Each stream has its own output head.

Condition tokens (model width): ``num_null_tokens`` learned tokens that are always present (so an unconditional
sample is just those), MiniLM token states of the material description projected to the width, and the tokens of
a small patch transformer over the reference image. Classifier-free guidance contrasts the full condition with
the null tokens alone (``FlowSampler``, diffusers' ``FlowMatchEulerDiscreteScheduler``).

``generate_views`` runs the whole thing for a mesh or an asset: render the rig's geometry buffers, build the
condition from a prompt, material words, a caption from a local VLM, a reference image and/or the material
tagger's words for that image, sample, and return per-view albedo / metallic / roughness.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn import PretrainedMixin, SelfBlock
from seed3d.nn.attention import Attention, mlp
from seed3d.nn.dit import TimestepEmbed, modulate
from seed3d.nn.flow import FlowSampler
from seed3d.nn.moe import MoEFeedForward

if TYPE_CHECKING:
    from seed3d.pbr.data import GeometryViews
    from seed3d.pbr.tagger import MaterialTagger

log = logging.getLogger(__name__)

#: Channels of a generated view: albedo RGB (sRGB), metallic, roughness.
PBR_CHANNELS = 5
#: Channels per stream: albedo (3) and metallic-roughness (2).
STREAM_CHANNELS = (3, 2)
STREAM_NAMES = ("albedo", "metallic_roughness")
#: Geometry channels per view: world normal (3), canonical position mapped to [-1, 1] (3), coverage (1).
GEOMETRY_CHANNELS = 7
#: Width of the MiniLM token states the description arrives as.
TEXT_DIM = 384
#: Smallest time the x0-parameterised velocity ``(x_t - x0) / t`` divides by.
X0_MIN_T = 0.05


@dataclass
class PBRModelConfig:
    """Sizes of the multi-view PBR generator (the defaults train on 2 CPU cores; scale ``resolution``,
    ``width``, ``depth`` and ``num_experts`` up for GPUs)."""

    num_views: int = 6
    """Views of the fixed rig (``seed3d.render.TEXTURE_RIG`` has 6)."""
    resolution: int = 32
    """Side of each generated view in pixels."""
    patch: int = 8
    """Patch side: each stream has ``num_views * (resolution / patch)²`` tokens."""
    width: int = 128
    """Transformer width."""
    depth: int = 6
    """Blocks."""
    heads: int = 4
    """Attention heads."""
    mlp_ratio: float = 4.0
    """Hidden width of the dense feed-forward layers relative to ``width``."""
    moe_blocks: int = 3
    """How many of the last blocks use a Mixture-of-Experts feed-forward (the others a dense one)."""
    num_experts: int = 4
    """Routed experts per MoE layer."""
    top_k: int = 2
    """Experts each token is routed to."""
    expert_ratio: float = 2.0
    """Hidden width of each expert relative to ``width`` (``top_k * expert_ratio = mlp_ratio`` keeps the compute
    per token of a dense layer)."""
    shared_experts: int = 0
    """Always-on experts of the same width beside the routed ones."""
    text_dim: int = TEXT_DIM
    """Width of the description's token states (MiniLM: 384)."""
    reference_resolution: int = 64
    """Side of the reference image (preprocessed: object recentred over the canonical background)."""
    reference_patch: int = 8
    """Patch side of the reference-image encoder."""
    reference_depth: int = 1
    """Transformer blocks of the reference-image encoder."""
    num_null_tokens: int = 4
    """Learned condition tokens that are always present (alone: the unconditional branch of guidance)."""
    time_freq_dim: int = 256
    """Sinusoid width of the timestep embedding."""
    prediction: str = "x0"
    """What the network outputs: ``x0`` (the clean views, turned into the velocity ``(x_t - x0) / t``; suits
    large pixel patches, whose clean content is simple while the noise is not) or ``velocity`` (directly)."""
    pixel_dim: int = 32
    """Width of the per-pixel output heads: each stream's token is expanded to ``pixel_dim`` features per pixel
    of its patch, the pixel's own geometry is added, and a small MLP gives the channels (part boundaries inside a
    patch follow the geometry). 0: a plain linear head per stream."""
    pixel_skip: bool = True
    """The per-pixel heads also see the stream's noisy input pixels (at low noise the clean views are mostly there;
    needs ``pixel_dim``)."""

    def __post_init__(self) -> None:
        for name in ("num_views", "resolution", "patch", "width", "depth", "heads", "num_experts", "top_k",
                     "text_dim", "reference_resolution", "reference_patch", "num_null_tokens", "time_freq_dim"):
            if int(getattr(self, name)) < 1:
                raise InvalidInputError(f"PBRModelConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.resolution % self.patch:
            raise InvalidInputError(f"resolution {self.resolution} is not a multiple of the patch {self.patch}")
        if self.reference_resolution % self.reference_patch:
            raise InvalidInputError(f"reference_resolution {self.reference_resolution} is not a multiple of "
                                    f"reference_patch {self.reference_patch}")
        if self.width % self.heads or (self.width // self.heads) % 2:
            raise InvalidInputError(f"width {self.width} must split into {self.heads} heads of even width")
        if self.width % 4:
            raise InvalidInputError(f"width must be a multiple of 4 (2-D sine-cosine positions), got {self.width}")
        if not 0 <= self.moe_blocks <= self.depth:
            raise InvalidInputError(f"moe_blocks must lie in [0, depth={self.depth}], got {self.moe_blocks}")
        if not 1 <= self.top_k <= self.num_experts:
            raise InvalidInputError(f"top_k must lie in [1, num_experts={self.num_experts}], got {self.top_k}")
        if self.shared_experts < 0 or self.reference_depth < 0 or self.pixel_dim < 0:
            raise InvalidInputError("shared_experts, reference_depth and pixel_dim must be >= 0")
        if self.prediction not in ("x0", "velocity"):
            raise InvalidInputError(f"prediction must be 'x0' or 'velocity', got {self.prediction!r}")
        if self.mlp_ratio <= 0 or self.expert_ratio <= 0:
            raise InvalidInputError("mlp_ratio and expert_ratio must be > 0")

    @property
    def grid(self) -> int:
        """Patches along each side of a view."""
        return self.resolution // self.patch

    @property
    def tokens_per_stream(self) -> int:
        """Tokens of one stream (all views)."""
        return self.num_views * self.grid**2


def sincos_2d(grid: int, dim: int) -> torch.Tensor:
    """Fixed 2-D sine-cosine embedding (grid², dim) of a square patch grid (row-major), half the width per axis."""
    quarter = dim // 4
    freqs = torch.exp(-math.log(10000.0) * torch.arange(quarter, dtype=torch.float32) / quarter)
    pos = torch.arange(grid, dtype=torch.float32)
    yy, xx = torch.meshgrid(pos, pos, indexing="ij")
    ay, ax = yy.reshape(-1, 1) * freqs, xx.reshape(-1, 1) * freqs
    return torch.cat([ay.sin(), ay.cos(), ax.sin(), ax.cos()], dim=1)


def patchify(x: torch.Tensor, p: int) -> torch.Tensor:
    """Views (B, V, C, H, W) -> tokens (B, V * H/p * W/p, C * p * p), view-major then row-major."""
    b, v, c, h, w = x.shape
    x = x.reshape(b, v, c, h // p, p, w // p, p).permute(0, 1, 3, 5, 2, 4, 6)
    return x.reshape(b, v * (h // p) * (w // p), c * p * p)


def unpatchify(tokens: torch.Tensor, views: int, channels: int, size: int, p: int) -> torch.Tensor:
    """Inverse of :func:`patchify`: tokens (B, V * g², C * p²) -> views (B, V, C, size, size)."""
    b, g = tokens.shape[0], size // p
    x = tokens.reshape(b, views, g, g, channels, p, p).permute(0, 1, 4, 2, 5, 3, 6)
    return x.reshape(b, views, channels, size, size)


class JointAttention(nn.Module):
    """Attention over the concatenation of several token streams, each with its own Q/K/V and output projection
    and its own RMS normalisation of queries and keys per head."""

    def __init__(self, dim: int, heads: int, streams: int = 2) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim) for _ in range(streams))
        self.q_norm = nn.ModuleList(nn.RMSNorm(self.head_dim, eps=1e-6) for _ in range(streams))
        self.k_norm = nn.ModuleList(nn.RMSNorm(self.head_dim, eps=1e-6) for _ in range(streams))
        self.out = nn.ModuleList(nn.Linear(dim, dim) for _ in range(streams))

    def forward(self, xs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """Streams ``xs`` (each (B, N_s, dim)) -> their outputs, every token attending to every stream's tokens."""
        qs, ks, vs = [], [], []
        for s, x in enumerate(xs):
            b, n, _ = x.shape
            q, k, v = self.qkv[s](x).view(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
            qs.append(self.q_norm[s](q))
            ks.append(self.k_norm[s](k))
            vs.append(v)
        y = F.scaled_dot_product_attention(torch.cat(qs, 2), torch.cat(ks, 2).to(qs[0].dtype),
                                           torch.cat(vs, 2).to(qs[0].dtype))
        outs, start = [], 0
        for s, x in enumerate(xs):
            n = x.shape[1]
            ys = y[:, :, start:start + n].transpose(1, 2).reshape(x.shape[0], n, -1)
            outs.append(self.out[s](ys))
            start += n
        return outs


class PBRBlock(nn.Module):
    """One block: per-stream adaLN-Zero and Q/K/V around joint attention, shared cross-attention to the
    condition tokens, shared feed-forward (dense or Mixture-of-Experts). A fresh block is the identity."""

    def __init__(self, cfg: PBRModelConfig, moe: bool, streams: int = 2) -> None:
        super().__init__()
        w = cfg.width
        self.streams = streams
        self.norm1 = nn.LayerNorm(w, elementwise_affine=False, eps=1e-6)
        self.attn = JointAttention(w, cfg.heads, streams)
        self.norm_cross = nn.LayerNorm(w, eps=1e-6)
        self.cross = Attention(w, cfg.heads)
        self.norm2 = nn.LayerNorm(w, elementwise_affine=False, eps=1e-6)
        self.ff: nn.Module = (MoEFeedForward(w, int(w * cfg.expert_ratio), cfg.num_experts, cfg.top_k,
                                             cfg.shared_experts) if moe else mlp([w, int(w * cfg.mlp_ratio), w]))
        self.is_moe = moe
        self.ada = nn.ModuleList(nn.Sequential(nn.SiLU(), nn.Linear(w, 6 * w)) for _ in range(streams))
        for a in self.ada:
            nn.init.zeros_(a[1].weight)
            nn.init.zeros_(a[1].bias)
        nn.init.zeros_(self.cross.out.weight)
        nn.init.zeros_(self.cross.out.bias)

    def forward(self, hs: list[torch.Tensor], temb: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor
                ) -> tuple[list[torch.Tensor], torch.Tensor]:
        """Streams ``hs`` (B, N_s, W), ``temb`` (B, W), ``cond`` (B, L, W) -> new streams and the MoE aux loss."""
        mods = [self.ada[s](temb).chunk(6, dim=-1) for s in range(self.streams)]
        attn = self.attn([modulate(self.norm1(h), m[0], m[1]) for h, m in zip(hs, mods, strict=True)])
        hs = [h + m[2][:, None] * a for h, m, a in zip(hs, mods, attn, strict=True)]
        sizes = [h.shape[1] for h in hs]
        h = torch.cat(hs, dim=1)
        h = h + self.cross(self.norm_cross(h), cond, cond_mask)
        hs = list(h.split(sizes, dim=1))
        normed = torch.cat([modulate(self.norm2(x), m[3], m[4]) for x, m in zip(hs, mods, strict=True)], dim=1)
        if self.is_moe:
            ff, aux = self.ff(normed)
        else:
            ff, aux = self.ff(normed), normed.new_zeros(())
        ffs = ff.split(sizes, dim=1)
        return [x + m[5][:, None] * f for x, m, f in zip(hs, mods, ffs, strict=True)], aux


class ReferenceEncoder(nn.Module):
    """Patch transformer over the reference image (B, 3, R, R) in [0, 1] -> tokens (B, (R/p)², width)."""

    def __init__(self, cfg: PBRModelConfig) -> None:
        super().__init__()
        self.patch = cfg.reference_patch
        self.size = cfg.reference_resolution
        self.embed = nn.Linear(3 * cfg.reference_patch**2, cfg.width)
        self.register_buffer("pos", sincos_2d(cfg.reference_resolution // cfg.reference_patch, cfg.width),
                             persistent=False)
        self.blocks = nn.ModuleList(SelfBlock(cfg.width, cfg.heads) for _ in range(cfg.reference_depth))
        self.norm = nn.LayerNorm(cfg.width)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        """Reference images (B, 3, R, R) -> (B, T, width)."""
        h = self.embed(patchify(image[:, None] * 2.0 - 1.0, self.patch)) + self.pos
        for blk in self.blocks:
            h = blk(h)
        return self.norm(h)


class PixelHead(nn.Module):
    """A stream's output head: tokens (B, N, width) -> views (B, V, C, H, W). With ``pixel_dim`` each token is
    expanded to per-pixel features, the pixel's geometry is added and a per-pixel MLP gives the channels; the last
    layer starts at zero."""

    def __init__(self, cfg: PBRModelConfig, channels: int) -> None:
        super().__init__()
        self.cfg, self.channels = cfg, channels
        p, d = cfg.patch, cfg.pixel_dim
        if d:
            self.expand = nn.Linear(cfg.width, d * p * p)
            self.geo = nn.Conv2d(GEOMETRY_CHANNELS, d, 1)
            self.noisy = nn.Conv2d(channels, d, 1) if cfg.pixel_skip else None
            self.out = nn.Sequential(nn.GELU(), nn.Conv2d(d, d, 1), nn.GELU(), nn.Conv2d(d, channels, 1))
            last = self.out[-1]
        else:
            self.linear = nn.Linear(cfg.width, channels * p * p)
            last = self.linear
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)

    def forward(self, tokens: torch.Tensor, geometry: torch.Tensor, noisy: torch.Tensor) -> torch.Tensor:
        """Tokens (B, N, width), geometry (B, V, 7, H, W) and the stream's noisy views (B, V, C, H, W) ->
        (B, V, C, H, W)."""
        c = self.cfg
        if not c.pixel_dim:
            return unpatchify(self.linear(tokens), c.num_views, self.channels, c.resolution, c.patch)
        b, v = geometry.shape[:2]
        feat = unpatchify(self.expand(tokens), v, c.pixel_dim, c.resolution, c.patch).flatten(0, 1)
        feat = feat + self.geo(geometry.flatten(0, 1))
        if self.noisy is not None:
            feat = feat + self.noisy(noisy.flatten(0, 1))
        y = self.out(feat)
        return y.reshape(b, v, self.channels, c.resolution, c.resolution)


@dataclass
class ModelOutput:
    """What a forward pass gives: the velocity, the clean views it implies and the MoE load-balancing loss."""

    velocity: torch.Tensor
    """(B, V, 5, H, W) predicted velocity."""
    x0: torch.Tensor
    """(B, V, 5, H, W) predicted clean views (``x_t - t * velocity``)."""
    aux_loss: torch.Tensor
    """Scalar: mean over MoE layers of their load-balancing loss (0 without MoE layers)."""


class PBRGenerator(nn.Module, PretrainedMixin):
    """Multi-view albedo + metallic-roughness flow model (see the module docstring)."""

    config_class = PBRModelConfig
    model_type = "seed3d-pbr-generator"

    def __init__(self, config: PBRModelConfig | None = None) -> None:
        super().__init__()
        self.config = cfg = config or PBRModelConfig()
        w, p = cfg.width, cfg.patch
        self.in_proj = nn.ModuleList(nn.Linear(c * p * p, w) for c in STREAM_CHANNELS)
        self.geo_proj = mlp([GEOMETRY_CHANNELS * p * p, w, w])
        self.view_embed = nn.Parameter(torch.randn(cfg.num_views, w) * 0.02)
        self.stream_embed = nn.Parameter(torch.randn(len(STREAM_CHANNELS), w) * 0.02)
        self.register_buffer("pos", sincos_2d(cfg.grid, w), persistent=False)
        self.time_embed = TimestepEmbed(w, cfg.time_freq_dim)
        self.cond_pool = nn.Linear(w, w)
        nn.init.zeros_(self.cond_pool.weight)
        nn.init.zeros_(self.cond_pool.bias)
        self.text_proj = nn.Sequential(nn.LayerNorm(cfg.text_dim), nn.Linear(cfg.text_dim, w))
        self.reference = ReferenceEncoder(cfg)
        self.type_embed = nn.Parameter(torch.randn(3, w) * 0.02)  # null, text, image
        self.null_tokens = nn.Parameter(torch.randn(cfg.num_null_tokens, w) * 0.02)
        self.blocks = nn.ModuleList(PBRBlock(cfg, moe=i >= cfg.depth - cfg.moe_blocks) for i in range(cfg.depth))
        self.norm_out = nn.LayerNorm(w, elementwise_affine=False, eps=1e-6)
        self.ada_out = nn.ModuleList(nn.Sequential(nn.SiLU(), nn.Linear(w, 2 * w)) for _ in STREAM_CHANNELS)
        self.heads = nn.ModuleList(PixelHead(cfg, c) for c in STREAM_CHANNELS)
        for a in self.ada_out:
            nn.init.zeros_(a[1].weight)
            nn.init.zeros_(a[1].bias)

    # ------------------------------------------------------------------------------------------ bookkeeping

    def num_parameters(self) -> int:
        """All parameters."""
        return sum(p.numel() for p in self.parameters())

    def active_parameters(self) -> int:
        """Parameters one token uses: all, less the routed experts each MoE layer leaves out."""
        unused = sum((m.num_experts - m.top_k) * m.expert_parameters() for m in self.modules()
                     if isinstance(m, MoEFeedForward))
        return self.num_parameters() - unused

    def parameter_counts(self) -> dict[str, int]:
        """``total`` and ``active`` parameter counts (what MoE adds in capacity versus in per-token compute)."""
        return {"total": self.num_parameters(), "active": self.active_parameters()}

    def sample_shape(self, batch: int) -> tuple[int, int, int, int, int]:
        """Shape (B, V, 5, H, W) of a batch of generated views."""
        c = self.config
        return (batch, c.num_views, PBR_CHANNELS, c.resolution, c.resolution)

    # ------------------------------------------------------------------------------------------ condition

    def null_condition(self, batch: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The unconditional tokens (B, L, width) — the learned null tokens, padded to ``length`` — and mask."""
        k = self.config.num_null_tokens
        length = max(k, length or k)
        tokens = self.null_tokens + self.type_embed[0]
        cond = tokens.new_zeros(batch, length, self.config.width)
        cond[:, :k] = tokens
        mask = torch.zeros(batch, length, dtype=torch.bool, device=cond.device)
        mask[:, :k] = True
        return cond, mask

    def encode_condition(self, text: torch.Tensor | None = None, text_mask: torch.Tensor | None = None,
                         image: torch.Tensor | None = None, use_text: torch.Tensor | None = None,
                         use_image: torch.Tensor | None = None, batch: int | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor]:
        """Condition tokens (B, L, width) and mask (B, L): the null tokens, then the description's MiniLM states
        ``text`` (B, Lt, text_dim) with ``text_mask``, then the reference ``image`` (B, 3, R, R) in [0, 1].

        ``use_text`` / ``use_image`` (B,) switch each sample's text / image off (training dropout); with neither
        given (or ``batch`` alone) the result is the null condition."""
        cfg = self.config
        if text is None and image is None:
            if batch is None:
                raise InvalidInputError("encode_condition needs text, an image or a batch size")
            return self.null_condition(batch)
        b = text.shape[0] if text is not None else image.shape[0]  # type: ignore[union-attr]
        cond, mask = self.null_condition(b)
        parts, masks = [cond], [mask]
        if text is not None:
            if text.ndim != 3 or text.shape[-1] != cfg.text_dim:
                raise InvalidInputError(f"text must be (B, L, {cfg.text_dim}) token states, got {tuple(text.shape)}")
            tm = torch.ones(text.shape[:2], dtype=torch.bool, device=text.device) if text_mask is None \
                else text_mask.bool()
            if tm.shape != text.shape[:2]:
                raise InvalidInputError(f"text mask must be {tuple(text.shape[:2])}, got {tuple(tm.shape)}")
            if use_text is not None:
                tm = tm & use_text.bool()[:, None]
            parts.append(self.text_proj(text.to(self.null_tokens.dtype)) + self.type_embed[1])
            masks.append(tm)
        if image is not None:
            r = cfg.reference_resolution
            if image.ndim != 4 or tuple(image.shape[1:]) != (3, r, r):
                raise InvalidInputError(f"reference image must be (B, 3, {r}, {r}) in [0, 1], got {tuple(image.shape)}")
            if image.shape[0] != b:
                raise InvalidInputError(f"batch sizes differ: text {b}, image {image.shape[0]}")
            tokens = self.reference(image.to(self.null_tokens.dtype)) + self.type_embed[2]
            im = torch.ones(tokens.shape[:2], dtype=torch.bool, device=tokens.device)
            if use_image is not None:
                im = im & use_image.bool()[:, None]
            parts.append(tokens)
            masks.append(im)
        return torch.cat(parts, 1), torch.cat(masks, 1)

    # ------------------------------------------------------------------------------------------ forward

    def _check(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor | None,
               geometry: torch.Tensor) -> None:
        c = self.config
        want = self.sample_shape(x.shape[0]) if x.ndim == 5 else None
        if want is None or tuple(x.shape) != want:
            raise InvalidInputError(f"views must be (B, {c.num_views}, {PBR_CHANNELS}, {c.resolution}, "
                                    f"{c.resolution}), got {tuple(x.shape)}")
        g = (x.shape[0], c.num_views, GEOMETRY_CHANNELS, c.resolution, c.resolution)
        if tuple(geometry.shape) != g:
            raise InvalidInputError(f"geometry must be {g} (normal, position, coverage), got {tuple(geometry.shape)}")
        if t.shape != (x.shape[0],):
            raise InvalidInputError(f"t must be ({x.shape[0]},), got {tuple(t.shape)}")
        if cond.ndim != 3 or cond.shape[0] != x.shape[0] or cond.shape[-1] != c.width:
            raise InvalidInputError(f"condition must be ({x.shape[0]}, L, {c.width}) tokens from encode_condition, "
                                    f"got {tuple(cond.shape)}")
        if cond_mask is not None and tuple(cond_mask.shape) != tuple(cond.shape[:2]):
            raise InvalidInputError(f"condition mask must be {tuple(cond.shape[:2])}, got {tuple(cond_mask.shape)}")

    def forward_with_aux(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor,
                         cond_mask: torch.Tensor | None = None, *, geometry: torch.Tensor) -> ModelOutput:
        """Velocity of noisy views ``x`` (B, V, 5, H, W) at times ``t`` (B,) given condition tokens ``cond``
        (B, L, width) and the mesh's ``geometry`` (B, V, 7, H, W), with the MoE load-balancing loss."""
        self._check(x, t, cond, cond_mask, geometry)
        c = self.config
        p = c.patch
        mask = torch.ones(cond.shape[:2], dtype=torch.bool, device=cond.device) if cond_mask is None \
            else cond_mask.bool()
        dtype = self.null_tokens.dtype
        x, geometry, cond = x.to(dtype), geometry.to(dtype), cond.to(dtype)
        base = (self.geo_proj(patchify(geometry, p))
                + (self.view_embed[:, None] + self.pos[None]).reshape(-1, c.width)[None])
        hs, start = [], 0
        for s, ch in enumerate(STREAM_CHANNELS):
            hs.append(self.in_proj[s](patchify(x[:, :, start:start + ch], p)) + base + self.stream_embed[s])
            start += ch
        m = mask.to(dtype)[..., None]
        pooled = (cond * m).sum(1) / m.sum(1).clamp_min(1.0)
        temb = self.time_embed(t) + self.cond_pool(pooled)
        aux, n_moe = x.new_zeros(()), 0
        for block in self.blocks:
            hs, a = block(hs, temb, cond, mask)
            if block.is_moe:
                aux, n_moe = aux + a.float(), n_moe + 1
        outs = []
        start = 0
        for s, ch in enumerate(STREAM_CHANNELS):
            shift, scale = self.ada_out[s](temb).chunk(2, dim=-1)
            outs.append(self.heads[s](modulate(self.norm_out(hs[s]), shift, scale), geometry,
                                      x[:, :, start:start + ch]))
            start += ch
        y = torch.cat(outs, 2)
        tt = t.to(y.dtype).reshape(-1, 1, 1, 1, 1)
        if c.prediction == "x0":
            # the velocity of the straight path through x_t and the predicted x0; t is bounded below so that
            # the velocity stays finite at the clean end (samplers never evaluate t = 0)
            return ModelOutput((x - y) / tt.clamp_min(X0_MIN_T), y, aux / max(n_moe, 1))
        return ModelOutput(y, x - tt * y, aux / max(n_moe, 1))

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor | None = None,
                *, geometry: torch.Tensor) -> torch.Tensor:
        """Velocity (B, V, 5, H, W) of noisy views (see :meth:`forward_with_aux`)."""
        return self.forward_with_aux(x, t, cond, cond_mask, geometry=geometry).velocity

    # ------------------------------------------------------------------------------------------ sampling

    @torch.no_grad()
    def sample(self, geometry: torch.Tensor, cond: torch.Tensor | None = None, cond_mask: torch.Tensor | None = None,
               sampler: FlowSampler | None = None, steps: int = 25, guidance: float = 2.0, shift: float = 1.0,
               generator: torch.Generator | None = None, noise: torch.Tensor | None = None,
               callback: Callable[[float], None] | None = None) -> torch.Tensor:
        """Generate views (B, V, 5, H, W) in [-1, 1] (0 off the mesh) for ``geometry`` (B, V, 7, H, W) and condition
        tokens from :meth:`encode_condition` (None: unconditional). ``sampler`` overrides ``steps`` / ``guidance`` /
        ``shift``; ``generator`` (or ``noise``) makes the result reproducible."""
        b = geometry.shape[0]
        if cond is None:
            cond, cond_mask = self.null_condition(b)
        sampler = sampler or FlowSampler(num_steps=steps, shift=shift, guidance_scale=guidance)
        if sampler.t_start < 1.0:
            raise InvalidInputError("PBRGenerator.sample starts from pure noise; use a sampler with t_start=1")
        null, null_mask = self.null_condition(b)
        shape = self.sample_shape(b)
        x = sampler.sample(self, shape, cond, cond_mask, null, null_mask, noise=noise, generator=generator,
                           device=geometry.device, model_kwargs={"geometry": geometry}, callback=callback)
        covered = (geometry[:, :, 6:7] > 0.5).to(x.dtype)
        return x.clamp(-1.0, 1.0) * covered


# ---------------------------------------------------------------------------------------------- high level


@dataclass
class PBRViews:
    """Generated per-view PBR maps at the texture rig (float32 numpy)."""

    albedo: np.ndarray
    """(V, H, W, 3) base colour, sRGB in [0, 1]."""
    metallic: np.ndarray
    """(V, H, W) metallic in [0, 1]."""
    roughness: np.ndarray
    """(V, H, W) roughness in [0, 1]."""
    mask: np.ndarray
    """(V, H, W) bool: pixels on the mesh."""
    prompt: str = ""
    """The material text the model was conditioned on."""


def views_from_tensor(x: torch.Tensor, mask: torch.Tensor | np.ndarray) -> list[PBRViews]:
    """Split generated views (B, V, 5, H, W) in [-1, 1] into :class:`PBRViews` (``mask`` (B, V, H, W))."""
    arr = ((x.detach().float().cpu().numpy() + 1.0) / 2.0).clip(0.0, 1.0)
    m = mask.cpu().numpy() if isinstance(mask, torch.Tensor) else np.asarray(mask)
    m = m.astype(bool)
    out = []
    for i in range(arr.shape[0]):
        a = arr[i] * m[i][:, None]
        out.append(PBRViews(albedo=a[:, :3].transpose(0, 2, 3, 1).copy(), metallic=a[:, 3].copy(),
                            roughness=a[:, 4].copy(), mask=m[i].copy()))
    return out


def material_prompt(text: str | None = None, material_words: Sequence[str] | None = None,
                    caption: str | None = None, tagged: Sequence[str] | None = None) -> str:
    """One material description from what the user gave: material words first (``"walnut wood, brushed
    brass"``), then a VLM caption, then the prompt; the tagger's words only when none of the others is given."""
    words = [w.strip() for w in (material_words or []) if isinstance(w, str) and w.strip()]
    if material_words is not None and any(not isinstance(w, str) for w in material_words):
        raise InvalidInputError("material words must be strings")
    pieces = [", ".join(words)] if words else []
    for piece in (caption, text):
        if piece is not None:
            if not isinstance(piece, str):
                raise InvalidInputError(f"text and caption must be strings, got {type(piece).__name__}")
            if piece.strip():
                pieces.append(piece.strip())
    if not pieces and tagged:
        pieces.append(", ".join(tagged))
    return ". ".join(pieces)


def generate_views(model: PBRGenerator, target: object | None = None, *, geometry: GeometryViews | None = None,
                   text: str | None = None, material_words: Sequence[str] | None = None, caption: str | None = None,
                   image: Any = None, tagger: MaterialTagger | None = None, steps: int = 25, guidance: float = 2.0,
                   seed: int = 0, text_encoder: Any = None, renderer: Any = None,
                   callback: Callable[[float], None] | None = None) -> PBRViews:
    """Albedo, metallic and roughness of the rig's views of ``target`` (an ``Asset``, ``Mesh`` or ``RenderMesh``;
    or pre-rendered ``geometry``), conditioned on a prompt ``text``, ``material_words``, a ``caption`` from a
    local VLM and/or a reference ``image`` (path, bytes or array). With an image and a ``tagger`` but no words,
    caption or text, the tagger's words describe it (``MaterialTagger.image_words``). Deterministic per ``seed``."""
    from seed3d.condition.image import preprocess_image, to_tensor
    from seed3d.condition.text import default_text_encoder
    from seed3d.pbr.data import render_geometry

    cfg = model.config
    if geometry is None:
        if target is None:
            raise InvalidInputError("generate_views needs a target mesh / asset or rendered geometry")
        geometry = render_geometry(target, cfg.resolution, renderer=renderer)
    geo = geometry.tensor()[None]
    if tuple(geo.shape[1:]) != (cfg.num_views, GEOMETRY_CHANNELS, cfg.resolution, cfg.resolution):
        raise InvalidInputError(f"geometry is {tuple(geo.shape[1:])}, the model wants {cfg.num_views} views at "
                                f"{cfg.resolution} px")
    device = next(model.parameters()).device
    geo = geo.to(device)
    ref = None
    if image is not None:
        ref = to_tensor(preprocess_image(image, size=cfg.reference_resolution)).to(device)
    tagged: list[str] = []
    if ref is not None and tagger is not None and not (material_words or caption or (text and text.strip())):
        tagged = tagger.tag(image)  # at the tagger's own image size
        log.info("material tagger: %s", ", ".join(tagged) or "(nothing above threshold)")
    prompt = material_prompt(text, material_words, caption, tagged)
    tokens = mask = None
    if prompt:
        enc = text_encoder or default_text_encoder()
        tokens, mask = enc.encode_tokens([prompt])
        tokens, mask = tokens.to(device), mask.to(device)
    if tokens is None and ref is None:
        cond, cond_mask = model.null_condition(1)
    else:
        cond, cond_mask = model.encode_condition(tokens, mask, ref, batch=1)
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    noise = torch.randn(model.sample_shape(1), generator=gen)
    x = model.sample(geo, cond, cond_mask, steps=steps, guidance=guidance, noise=noise, callback=callback)
    out = views_from_tensor(x, geometry.mask[None])[0]
    out.prompt = prompt
    return out
