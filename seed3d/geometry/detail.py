"""Stage 2 of geometry generation: a rectified-flow DiT that generates latent features at FIXED positions -- the
voxel centres of the voxelised, dilated coarse surface -- starting from the re-encoded coarse latent partly noised.

It is trained as a bridge: on the straight line from the coarse latent noised to ``t_start`` (at ``t = t_start``)
to the true shape's latent at the same positions (at ``t = 0``), so sampling from the noised coarse latent is
exactly the path it learned (:func:`detail_start` makes that start for a coarse mesh, in training and at inference).
The clean coarse latent is also an input at every step, beside the noisy feats.

The trunk is stage 1's (:class:`~seed3d.geometry.coarse.CoarseFlow`) and :meth:`DetailFlow.from_coarse` copies it;
positions enter only through Fourier features of the voxel centres, and the token sets, which differ in size per
shape, are padded with a key mask (:func:`batch_supports`).

With ``anchor_offsets`` the flow also generates where each token's VAE anchor sits: an offset from its voxel centre
(3 more channels of the state). The VAE encodes a surface well only from anchors on it (its encoder learned on
surface points), so the start is the coarse mesh encoded at the voxel centres snapped onto the coarse surface, the
target the true shape encoded at the voxel centres snapped onto the true surface (:func:`snap_to_surface`), and
the decoded latent is anchored at centre + generated offset (:func:`state_latent`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.geometry.coarse import CoarseFlow, _check_cond
from seed3d.geometry.vae import ShapeLatent, ShapeVAE
from seed3d.nn import FourierEmbed, PretrainedMixin, farthest_point_sample
from seed3d.nn.dit import DiTTrunk
from seed3d.nn.flow import FlowSampler

log = logging.getLogger(__name__)

_SHARED = ("width", "depth", "heads", "cond_dim", "mlp_ratio", "num_null_tokens", "time_freq_dim",
           "pooled_condition")


@dataclass
class DetailFlowConfig:
    """Sizes of the stage-2 (detail) flow model and the support / refinement settings it was trained with."""

    latent_dim: int = 32
    """Latent channels per token (the shape VAE's ``latent_dim``)."""
    width: int = 256
    """Transformer width (must equal stage 1's to initialise from it)."""
    depth: int = 6
    """DiT blocks (must equal stage 1's to initialise from it)."""
    heads: int = 8
    """Attention heads."""
    cond_dim: int = 384
    """Width of the condition tokens (image / text encoder output)."""
    mlp_ratio: float = 4.0
    """MLP hidden width relative to ``width``."""
    pos_freqs: int = 6
    """Octaves of the Fourier features of the voxel-centre positions (more than stage 1's adds finer bands)."""
    pos_scale: float = 0.5
    """Base frequency of the position features (in units of pi per normalised-cube unit)."""
    num_null_tokens: int = 4
    """Tokens of the learned null condition."""
    time_freq_dim: int = 256
    """Sinusoid width of the timestep embedding."""
    pooled_condition: bool = True
    """The pooled condition also modulates every block (must equal stage 1's to initialise from it)."""
    resolution: int = 32
    """Voxels per axis of the coarse-surface support grid over [-1, 1]^3."""
    dilation: int = 1
    """Voxels the occupied coarse surface is dilated by."""
    max_tokens: int = 512
    """Most support voxels (tokens) per shape; more are thinned by farthest-point sampling."""
    t_start: float = 0.5
    """Noise level the refinement starts from (0 keeps the coarse latent, 1 ignores it); the model is trained for
    this start, so change it only with a retrained model."""
    anchor_offsets: bool = False
    """The flow also generates each token's VAE anchor as an offset from its voxel centre (3 more state channels,
    after the latent's); off: the VAE decodes at the voxel centres themselves."""
    extra: dict[str, float] = field(default_factory=dict)
    """Free-form numbers recorded with the model (e.g. training settings)."""

    def __post_init__(self) -> None:
        if self.width % self.heads:
            raise InvalidInputError(f"width {self.width} is not divisible by {self.heads} heads")
        if self.resolution < 2 or self.dilation < 0 or self.max_tokens < 1:
            raise InvalidInputError(f"need resolution >= 2, dilation >= 0, max_tokens >= 1; got {self.resolution}, "
                                    f"{self.dilation}, {self.max_tokens}")
        if not 0.0 < self.t_start <= 1.0:
            raise InvalidInputError(f"t_start must be in (0, 1], got {self.t_start}")

    @property
    def channels(self) -> int:
        """Channels of the flow's state per token: the latent's, plus 3 with ``anchor_offsets``."""
        return self.latent_dim + (3 if self.anchor_offsets else 0)

    @property
    def snap_reach(self) -> float:
        """Farthest an anchor moves from its voxel centre: four voxels (0.25 at 32³; the 512 centres thinned from a
        dilated 32³ shell lie up to ~0.2 from the true surface, 0.09 on average)."""
        return 8.0 / self.resolution

    def state_scale(self) -> torch.Tensor:
        """Per-channel factor (channels,) from a state in the VAE's units (latent, offsets in normalised units) to
        the flow's (``extra``'s ``latent_scale`` and ``offset_scale``, fixed when the model was trained)."""
        scale = torch.full((self.channels,), 1.0 / float(self.extra.get("latent_scale", 1.0)))
        if self.anchor_offsets:
            scale[self.latent_dim:] = float(self.extra.get("offset_scale", 1.0))
        return scale


class DetailFlow(nn.Module, PretrainedMixin):
    """Stage-2 flow: a noisy state (B, M, C: feats, then any anchor offsets) at fixed ``positions`` (B, M, 3), beside
    the coarse state it started from -> velocity on the state (B, M, C)."""

    config_class = DetailFlowConfig
    model_type = "seed3d-detail-flow"

    def __init__(self, config: DetailFlowConfig | None = None) -> None:
        super().__init__()
        cfg = config or DetailFlowConfig()
        self.config = cfg
        self.pos_embed = FourierEmbed(cfg.pos_freqs, cfg.pos_scale)
        # the noisy state and the coarse state side by side: latents first, then any offsets (so a model without
        # offsets warm-starts the leading columns)
        self.in_proj = nn.Linear(2 * cfg.channels, cfg.width)
        self.pos_proj = nn.Linear(self.pos_embed.out_dim, cfg.width)
        self.trunk = DiTTrunk(cfg.width, cfg.depth, cfg.heads, cfg.cond_dim, cfg.mlp_ratio, cfg.num_null_tokens,
                              cfg.time_freq_dim, cfg.pooled_condition)
        self.out_proj = nn.Linear(cfg.width, cfg.channels)
        nn.init.zeros_(self.out_proj.weight)
        nn.init.zeros_(self.out_proj.bias)

    def num_parameters(self) -> int:
        """Number of parameters."""
        return sum(p.numel() for p in self.parameters())

    @classmethod
    def from_coarse(cls, coarse: CoarseFlow, config: DetailFlowConfig | None = None) -> DetailFlow:
        """A detail model initialised from stage 1: the trunk (blocks, time embedding, condition projection, null
        tokens) is copied, and the position features take stage 1's Fourier bands that both share (stage 1 embeds
        its patch centres the same way); the token input and output projections start fresh (stage 1's carry
        grid values, these latent features)."""
        cc = coarse.config
        if config is None:
            config = DetailFlowConfig(**{k: getattr(cc, k) for k in (*_SHARED, "pos_freqs", "pos_scale")})
        diff = [k for k in _SHARED if getattr(config, k) != getattr(cc, k)]
        if diff:
            raise InvalidInputError(f"detail config differs from the coarse model's in {diff}; these must match "
                                    "to initialise stage 2 from stage 1")
        model = cls(config).to(next(coarse.parameters()).device)
        with torch.no_grad():
            model.trunk.load_state_dict(coarse.trunk.state_dict())
            if config.pos_scale == cc.pos_scale:
                w = torch.zeros_like(model.pos_proj.weight)
                src, dst = _band_columns(cc.pos_freqs), _band_columns(config.pos_freqs)
                common = sorted(set(src) & set(dst))
                w[:, :3] = coarse.pos_proj.weight[:, :3]
                w[:, [dst[k] for k in common]] = coarse.pos_proj.weight[:, [src[k] for k in common]]
                model.pos_proj.weight.copy_(w)
                model.pos_proj.bias.copy_(coarse.pos_proj.bias)
            else:
                log.warning("detail pos_scale %s differs from coarse %s: its position features start untrained",
                            config.pos_scale, cc.pos_scale)
        return model

    def null_condition(self, batch: int, length: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The learned null condition (B, L, cond_dim) and its mask (B, L)."""
        return self.trunk.null_condition(batch, length)

    def drop_condition(self, cond: torch.Tensor, cond_mask: torch.Tensor | None, p: float,
                       generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Replace each sample's condition by the null condition with probability ``p`` (CFG dropout)."""
        return self.trunk.drop_condition(cond, cond_mask, p, generator)

    def forward(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor | None = None,
                *, positions: torch.Tensor, coarse: torch.Tensor, key_mask: torch.Tensor | None = None
                ) -> torch.Tensor:
        """Velocity (B, M, C) of a noisy state ``x`` (feats, then any anchor offsets; the flow's units) at
        ``positions`` (B, M, 3), times ``t`` (B,), given ``cond`` and the clean ``coarse`` state (B, M, C) the sample
        started from (so the noise in ``x`` can be told apart).

        ``key_mask`` (B, M) is True on real tokens (padding gets zero velocity and is never attended)."""
        c, d = self.config.channels, self.config.latent_dim
        if x.ndim != 3 or x.shape[-1] != c or positions.shape != (*x.shape[:2], 3) or coarse.shape != x.shape:
            raise InvalidInputError(f"state and coarse state must be (B, M, {c}) and positions (B, M, 3), got "
                                    f"{tuple(x.shape)}, {tuple(coarse.shape)} and {tuple(positions.shape)}")
        _check_cond(cond, cond_mask, self.config.cond_dim)
        coarse = coarse.to(x.dtype)
        both = torch.cat([x[..., :d], coarse[..., :d], x[..., d:], coarse[..., d:]], -1)
        h = self.in_proj(both) + self.pos_proj(self.pos_embed(positions.to(x.dtype)))
        v = self.out_proj(self.trunk(h, t, cond, cond_mask, key_mask))
        return v if key_mask is None else v * key_mask[..., None].to(v.dtype)


def widen_state(flow: DetailFlow, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A saved stage-2 ``state`` made to warm-start ``flow`` (:func:`~seed3d.nn.trainer.warm_start`) when ``flow``
    has anchor offsets and the saved model had not: its output projection gains zero rows, so the offsets' velocity
    starts at zero (the input projection's new columns start at zero in ``warm_start``)."""
    out = dict(state)
    w, b = state.get("out_proj.weight"), state.get("out_proj.bias")
    grow = flow.config.channels - (0 if b is None else len(b))
    if w is not None and b is not None and grow > 0:
        out["out_proj.weight"] = torch.cat([w, w.new_zeros(grow, w.shape[1])])
        out["out_proj.bias"] = torch.cat([b, b.new_zeros(grow)])
    return out


def _band_columns(freqs: int) -> dict[tuple[int, int, int], int]:
    """Column of each (sin=0 / cos=1, axis, octave) feature in :class:`FourierEmbed`'s output."""
    return {(kind, axis, k): 3 + kind * 3 * freqs + axis * freqs + k
            for kind in (0, 1) for axis in range(3) for k in range(freqs)}


# ------------------------------------------------------------------------------------------------ support


def _surface_samples(mesh: Mesh, spacing: float) -> np.ndarray:
    """Vertices plus area-weighted surface points of ``mesh`` (about 8 per ``spacing``^2), fixed seed."""
    tri = mesh.vertices[mesh.faces]
    areas = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    total = float(areas.sum())
    if total <= 0:
        return mesh.vertices
    count = int(np.clip(np.ceil(8.0 * total / spacing**2), 1024, 4_000_000))
    rng = np.random.default_rng(0)
    face = rng.choice(len(areas), size=count, p=areas / total)
    u, v = rng.random((2, count))
    flip = u + v > 1.0
    u, v = np.where(flip, 1.0 - u, u), np.where(flip, 1.0 - v, v)
    t = tri[face]
    pts = t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])
    return np.concatenate([mesh.vertices, pts])


def coarse_support(source: np.ndarray | Mesh, resolution: int = 32, dilation: int = 1,
                   max_tokens: int = 1024, progress: Callable[[float], None] | None = None) -> np.ndarray:
    """Voxel centres (M, 3) float32 of the coarse surface: voxelised on a ``resolution``^3 grid over [-1, 1]^3,
    dilated by ``dilation`` voxels (26-neighbourhood), thinned to ``max_tokens`` by farthest-point sampling.

    ``source`` is (N, 3) surface points or a :class:`~seed3d.asset.Mesh` (sampled; both in the normalised cube).
    Deterministic; centres come in lexicographic voxel order. ``progress(fraction)`` as the tokens are thinned."""
    if resolution < 2 or dilation < 0 or max_tokens < 1:
        raise InvalidInputError(f"need resolution >= 2, dilation >= 0, max_tokens >= 1; got {resolution}, "
                                f"{dilation}, {max_tokens}")
    voxel = 2.0 / resolution
    if isinstance(source, Mesh):
        if not len(source.vertices):
            raise InvalidInputError("coarse_support got an empty mesh")
        points = _surface_samples(source, voxel) if len(source.faces) else source.vertices
    else:
        points = np.asarray(source, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 3 or not len(points):
            raise InvalidInputError(f"coarse_support needs (N, 3) points with N > 0, got shape {points.shape}")
    if not np.isfinite(points).all():
        raise InvalidInputError("coarse_support got non-finite points")
    reach = float(np.abs(points).max())
    if reach > 1.0 + voxel:
        raise InvalidInputError(f"coarse surface reaches {reach:.3f}, outside the normalised cube [-1, 1]^3; "
                                "normalise the mesh first")
    idx = np.clip(np.floor((points + 1.0) / voxel).astype(np.int64), 0, resolution - 1)
    keys = np.unique((idx[:, 0] * resolution + idx[:, 1]) * resolution + idx[:, 2])
    step = np.stack(np.meshgrid(*([np.arange(-1, 2)] * 3), indexing="ij"), -1).reshape(-1, 3)
    for _ in range(dilation):
        cells = np.stack(np.unravel_index(keys, (resolution,) * 3), -1)
        grown = (cells[:, None] + step[None]).reshape(-1, 3)
        grown = grown[((grown >= 0) & (grown < resolution)).all(axis=1)]
        keys = np.unique((grown[:, 0] * resolution + grown[:, 1]) * resolution + grown[:, 2])
    cells = np.stack(np.unravel_index(keys, (resolution,) * 3), -1)
    centres = ((cells + 0.5) * voxel - 1.0).astype(np.float32)
    if len(centres) > max_tokens:
        log.info("coarse support: thinning %d voxels to %d tokens", len(centres), max_tokens)
        pick = farthest_point_sample(torch.from_numpy(centres)[None], max_tokens, progress=progress)[0].numpy()
        centres = centres[np.sort(pick)]
    return centres


def snap_to_surface(support: np.ndarray, surface: np.ndarray, reach: float) -> np.ndarray:
    """Each of ``support`` (M, 3) moved onto its nearest point of ``surface`` (N, 3), or ``reach`` toward it when
    that is farther (float32)."""
    from scipy.spatial import cKDTree

    if not len(surface):
        raise InvalidInputError("snap_to_surface got no surface points")
    dist, idx = cKDTree(surface).query(support)
    step = surface[idx] - support
    far = dist > reach
    step[far] *= (reach / dist[far])[:, None]
    return (support + step).astype(np.float32)


def detail_start(vae: ShapeVAE, coarse: Mesh, config: DetailFlowConfig, seed: int = 0,
                 progress: Callable[[float], None] | None = None) -> tuple[np.ndarray, torch.Tensor]:
    """Where stage 2 starts for a coarse mesh (normalised frame): its support (M, 3) (:func:`coarse_support` with
    ``config``'s settings) and its state there (M, channels), in the VAE's units: the mesh re-encoded by ``vae``
    (surface samples drawn with ``seed``) at the support or, with ``anchor_offsets``, at the support snapped onto
    the mesh, those offsets after the feats. ``progress(fraction)`` is called after each step."""
    report = progress or (lambda _f: None)
    support = coarse_support(coarse, config.resolution, config.dilation, config.max_tokens,
                             progress=lambda f: report(0.3 * f))
    report(0.3)
    anchors = support
    if config.anchor_offsets:
        anchors = snap_to_surface(support, _surface_samples(coarse, 2.0 / config.resolution), config.snap_reach)
    report(0.45)
    pts, nrm, _ = coarse.sample_surface(vae.config.surface_points, seed=seed)
    report(0.5)
    dev = next(vae.parameters()).device
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, np.float32))[None].to(dev)  # noqa: E731
    with torch.no_grad():
        latent = vae.encode(t(pts), t(nrm), anchors=t(anchors))
    report(1.0)
    state = latent.feats[0].float().cpu()
    if config.anchor_offsets:
        state = torch.cat([state, torch.from_numpy(anchors - support)], -1)
    return support, state


def state_latent(config: DetailFlowConfig, positions: torch.Tensor, state: torch.Tensor) -> ShapeLatent:
    """The VAE latent of a stage-2 state (B, M, channels) in the VAE's units at ``positions`` (B, M, 3): its feats,
    anchored at the positions plus the state's offsets (each axis clamped to ``snap_reach``) when it has them."""
    d = config.latent_dim
    anchors = positions
    if config.anchor_offsets:
        anchors = positions + state[..., d:].clamp(-config.snap_reach, config.snap_reach).to(positions.dtype)
    return ShapeLatent(anchors, state[..., :d])


def batch_supports(supports: Sequence[np.ndarray | torch.Tensor], device: str | torch.device = "cpu"
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad per-shape supports (M_i, 3) into positions (B, max M_i, 3) and a key mask (B, max M_i)."""
    if not supports:
        raise InvalidInputError("batch_supports needs at least one support")
    sets = [torch.as_tensor(np.asarray(s) if not isinstance(s, torch.Tensor) else s, dtype=torch.float32)
            for s in supports]
    m = max(s.shape[0] for s in sets)
    positions = torch.zeros(len(sets), m, 3)
    mask = torch.zeros(len(sets), m, dtype=torch.bool)
    for i, s in enumerate(sets):
        positions[i, : len(s)] = s
        mask[i, : len(s)] = True
    return positions.to(device), mask.to(device)


@torch.no_grad()
def refine(detail_model: DetailFlow, positions: torch.Tensor | np.ndarray, coarse_feats: torch.Tensor,
           cond: torch.Tensor, cond_mask: torch.Tensor | None = None, key_mask: torch.Tensor | None = None,
           t_start: float | None = None, steps: int = 25, guidance: float = 1.0, shift: float = 1.0,
           generator: torch.Generator | None = None, sampler: FlowSampler | None = None,
           callback: Callable[[float], None] | None = None) -> torch.Tensor:
    """Detail state (B, M, C) at ``positions`` (B, M, 3), sampled from the coarse state there (``coarse_feats``:
    :func:`detail_start`'s, in the flow's units) noised to ``t_start`` (default: the model's config); the clean
    ``coarse_feats`` are also the flow's coarse input at every step.

    Unbatched ``positions`` (M, 3) / ``coarse_feats`` (M, C) give (M, C). ``sampler`` overrides ``steps``,
    ``guidance``, ``shift`` and ``t_start``. Padding tokens (``key_mask`` False) come back as zeros."""
    unbatched = coarse_feats.ndim == 2
    feats = coarse_feats[None] if unbatched else coarse_feats
    pos = torch.as_tensor(positions, dtype=torch.float32, device=feats.device)
    pos = pos[None] if pos.ndim == 2 else pos
    if key_mask is not None and key_mask.ndim == 1:
        key_mask = key_mask[None]
    if cond.ndim == 2:
        cond = cond[None]
        cond_mask = None if cond_mask is None else cond_mask.reshape(1, -1)
    if pos.shape != (*feats.shape[:2], 3) or cond.shape[0] != feats.shape[0]:
        raise InvalidInputError(f"positions {tuple(pos.shape)}, coarse feats {tuple(feats.shape)} and condition "
                                f"{tuple(cond.shape)} do not describe the same (B, M) token sets")
    if sampler is None:
        ts = detail_model.config.t_start if t_start is None else t_start
        sampler = FlowSampler(num_steps=steps, shift=shift, guidance_scale=guidance, t_start=ts)
    null, null_mask = detail_model.null_condition(feats.shape[0])
    kwargs: dict[str, torch.Tensor] = {"positions": pos, "coarse": feats}
    if key_mask is not None:
        kwargs["key_mask"] = key_mask.bool()
    log.debug("detail flow: %s tokens, %r", tuple(feats.shape[:2]), sampler)
    out = sampler.sample(detail_model, x0=feats, cond=cond, cond_mask=cond_mask, null_cond=null, null_mask=null_mask,
                         generator=generator, device=feats.device, model_kwargs=kwargs, callback=callback)
    if key_mask is not None:
        out = out * key_mask[..., None].to(out.dtype)
    return out[0] if unbatched else out

