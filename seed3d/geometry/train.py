"""Training of the geometry models on ``seed3d data build`` shards (``seed3d train geometry-vae``,
``geometry-coarse``, ``geometry-detail``).

The shape VAE learns from each sample's surface points (uniform by area, with normals), its sharp-edge points
(flagged) and its SDF samples near the surface and uniform in the cube. Each step draws shapes, a token budget
from ``ShapeVAEConfig.token_choices``, random yaw, mirror and uniform scale (exact for an SDF) and, on a share
of steps, anchors jittered off the surface (as voxel-centre anchors of the detail stage are); with ``distil`` a
run learns another VAE's own SDF instead (a new query path on a kept encoder and token blocks). Stage 1 learns
the coarse SDF grids of the train split (the data set's ``grid_sdf``) together with its image encoder; stage 2
learns to carry the VAE latent of the true coarse grid's surface, noised, to the shape's own latent at the same
support voxels (a bridge; see ``seed3d.geometry.detail``), its trunk starting from stage 1's. Both
condition on an augmented view, the description, or both, with a share of null conditions for classifier-free
guidance.

Resumable, logged and saved through ``seed3d.nn.trainer.train_loop``; batches depend only on (seed, step).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seed3d.asset import atomic_dir, atomic_file
from seed3d.condition.augment import AugmentConfig, ViewAugmenter
from seed3d.condition.encoder import ImageEncoderConfig, ImageFeatures
from seed3d.condition.text import TEXT_DIM, encode_token_arrays
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.geometry.coarse import CoarseFlow, CoarseFlowConfig
from seed3d.geometry.conditioning import ConditionerConfig, ShapeConditioner, pool_values
from seed3d.geometry.detail import DetailFlow, DetailFlowConfig, detail_start, snap_to_surface, widen_state
from seed3d.geometry.extract import EmptySurfaceError
from seed3d.geometry.generate import GenerateOptions, coarse_mesh, nearest_to_prior
from seed3d.geometry.vae import TRAINABLE, ShapeVAE, ShapeVAEConfig, sdf_loss
from seed3d.nn.dit import pad_tokens
from seed3d.nn.flow import FlowSampler, flow_loss, interpolate, sample_timesteps
from seed3d.nn.trainer import TrainConfig, check_device, train_loop, warm_start
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)

VAE_FIELDS = ("surface_points", "surface_normals", "sharp_points", "sharp_normals", "sharp_on_edge",
              "near_points", "near_sdf", "vol_points", "vol_sdf")


@dataclass
class VAETrainConfig(TrainConfig):
    """Settings of a shape-VAE training run (the defaults take about an hour on 2 CPU cores)."""

    steps: int = 2400
    """Optimiser steps."""
    lr: float = 5e-4
    """Peak learning rate."""
    near_queries: int = 1024
    """SDF queries per shape drawn from the near-surface samples."""
    volume_queries: int = 512
    """SDF queries per shape drawn from the uniform samples of the cube."""
    kl_weight: float = 1e-4
    """Weight of the KL term."""
    occupancy_weight: float = 0.005
    """Weight of a binary cross-entropy on inside/outside with logits -sdf / occupancy_scale: it sharpens the
    sign right at the surface, where the L1 term alone settles near zero."""
    occupancy_scale: float = 0.02
    """SDF value (normalised units) that counts as one logit."""
    jitter_share: float = 0.25
    """Share of steps whose anchors are moved off the surface by Gaussian noise."""
    jitter_sigma: float = 0.03
    """Standard deviation of that noise (normalised units; about a coarse-support voxel)."""
    init_from: str | None = None
    """Start a fresh run from a saved VAE folder (tensors of equal shape are copied)."""
    trainable: str = "all"
    """What trains: ``all``; ``decoder`` (the encoder copied from ``init_from``, which is then required, stays
    frozen, so its latents keep their meaning and flows trained on them need no retraining); ``queries`` (the
    decoder's token blocks stay frozen too: only the per-query layers train, on precomputed token features)."""
    distil: bool = False
    """Learn ``init_from``'s own SDF at the batch's queries instead of the data's (distillation, for a changed
    query path with ``trainable`` 'queries'; the L1 term alone: the occupancy term's push away from zero would
    pull the field off the teacher's); a light query path (``light_queries``, ``head_width`` = ``width``) then
    starts from a least-squares fit of ``init_from``'s full path (``fit_light_queries``)."""
    fit_points: int = 200_000
    """Near-surface samples of the train split that least-squares fit uses."""
    model: ShapeVAEConfig = field(default_factory=ShapeVAEConfig)
    """Model sizes."""

    def __post_init__(self) -> None:
        if self.trainable not in TRAINABLE:
            raise InvalidInputError(f"trainable must be one of {', '.join(TRAINABLE)}, got {self.trainable!r}")
        if self.trainable != "all" and not self.init_from:
            raise InvalidInputError(f"trainable={self.trainable!r} needs init_from: the VAE whose frozen parts it "
                                    "keeps")
        if self.distil and not self.init_from:
            raise InvalidInputError("distil needs init_from: the VAE whose SDF the run learns")


def load_geometry(root: PathType, split: str, fields: tuple[str, ...] = VAE_FIELDS) -> dict[str, np.ndarray]:
    """The geometry fields of every sample of a built split, stacked."""
    from seed3d.synth.dataset import ShardDataset

    ds = ShardDataset(root, split, fields=fields, cache_shards=1)
    if not len(ds):
        raise AssetFormatError(f"{ds.root}: the split has no samples")
    chunks = [ds.load_shard(s) for s in range(len(ds.shards))]
    return {k: np.concatenate([c[k] for c in chunks]) for k in fields}


def _similarity(rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A random yaw (half the steps), y-mirror (a quarter) and uniform scale in [0.8, 1]: SDF-exact."""
    yaw = rng.uniform(0, 2 * math.pi) if rng.random() < 0.5 else 0.0
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    if rng.random() < 0.25:
        rot = rot @ np.diag([1.0, -1.0, 1.0])
    return rot, float(rng.uniform(0.8, 1.0))


def make_batch(data: dict[str, np.ndarray], step: int, cfg: VAETrainConfig) -> dict[str, torch.Tensor]:
    """The batch of ``step`` (depends only on seed and step): input points, normals, sharp flags, queries, SDF
    targets, the token budget and the anchor jitter."""
    rng = np.random.default_rng([cfg.seed, step])
    mc = cfg.model
    total = len(data["surface_points"])
    idx = rng.choice(total, cfg.batch, replace=total < cfg.batch)
    pts, nrm, shp, qry, sdf = [], [], [], [], []
    for i in idx:
        s = rng.choice(data["surface_points"].shape[1], mc.surface_points, replace=False)
        e = rng.choice(data["sharp_points"].shape[1], mc.sharp_points, replace=False)
        nq = rng.choice(data["near_points"].shape[1], cfg.near_queries, replace=False)
        vq = rng.choice(data["vol_points"].shape[1], cfg.volume_queries, replace=False)
        rot, scale = _similarity(rng)
        p = np.concatenate([data["surface_points"][i][s], data["sharp_points"][i][e]])
        n = np.concatenate([data["surface_normals"][i][s], data["sharp_normals"][i][e]])
        q = np.concatenate([data["near_points"][i][nq], data["vol_points"][i][vq]])
        pts.append(scale * p @ rot.T)
        nrm.append(n @ rot.T)
        shp.append(np.concatenate([np.zeros(len(s), bool), data["sharp_on_edge"][i][e]]))
        qry.append(scale * q @ rot.T)
        sdf.append(scale * np.concatenate([data["near_sdf"][i][nq], data["vol_sdf"][i][vq]]))
    tokens = int(rng.choice(mc.token_choices))
    sigma = cfg.jitter_sigma if rng.random() < cfg.jitter_share else 0.0
    jitter = rng.normal(0.0, 1.0, (cfg.batch, tokens, 3)) * sigma
    f32 = np.float32
    return {"points": torch.from_numpy(np.stack(pts).astype(f32)),
            "normals": torch.from_numpy(np.stack(nrm).astype(f32)),
            "sharp": torch.from_numpy(np.stack(shp)), "queries": torch.from_numpy(np.stack(qry).astype(f32)),
            "sdf": torch.from_numpy(np.stack(sdf).astype(f32)), "jitter": torch.from_numpy(jitter.astype(f32)),
            "noise": torch.from_numpy(rng.standard_normal((cfg.batch, tokens, mc.latent_dim)).astype(f32))}


def vae_losses(model: ShapeVAE, batch: dict[str, torch.Tensor], cfg: VAETrainConfig,
               teacher: ShapeVAE | None = None) -> dict[str, torch.Tensor]:
    """Truncated-SDF L1, occupancy cross-entropy, KL, their weighted sum ``loss``, and the sign accuracy near the
    surface; against ``teacher``'s SDF of the same latent when given (distillation), else the data's."""
    mc = model.config
    anchors = model.choose_anchors(batch["points"], batch["normals"], batch["sharp"], batch["jitter"].shape[1])
    anchors = (anchors + batch["jitter"]).clamp(-1.0, 1.0)
    grad = torch.is_grad_enabled()
    with torch.set_grad_enabled(grad and cfg.trainable == "all"):
        latent = model.encode(batch["points"], batch["normals"], batch["sharp"], anchors=anchors)
    assert latent.logvar is not None
    latent.feats = latent.feats + (0.5 * latent.logvar).exp() * batch["noise"]
    with torch.set_grad_enabled(grad and cfg.trainable != "queries"):
        tokens = model.tokens(latent)
    pred = model.decode_tokens(tokens, latent.anchors, batch["queries"]).float()
    target = batch["sdf"]
    if teacher is not None:
        with torch.no_grad():
            target = teacher.decode_tokens(teacher.tokens(latent), latent.anchors, batch["queries"]).float()
    rec = sdf_loss(pred, target, mc.truncation)
    occ = F.binary_cross_entropy_with_logits(-pred / cfg.occupancy_scale, (target < 0).float())
    kl = latent.kl()
    with torch.no_grad():
        near = target.abs() < 0.2 * mc.truncation
        sign = ((pred < 0) == (target < 0))[near].float().mean()
    occupancy_weight = 0.0 if teacher is not None else cfg.occupancy_weight  # its push off zero leaves the teacher
    return {"loss": rec + occupancy_weight * occ + cfg.kl_weight * kl, "sdf_l1": rec, "occupancy": occ, "kl": kl,
            "sign_acc": sign}


def train_vae(data: PathType, out: PathType, config: VAETrainConfig | None = None,
              progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) the shape VAE on ``data``'s train split; returns the folder of the saved model."""
    cfg = config or VAETrainConfig()
    check_device(cfg.device)
    torch.manual_seed(cfg.seed)
    model = ShapeVAE(cfg.model)
    frozen = model.frozen_modules(cfg.trainable)
    frozen.requires_grad_(False)

    teacher = None
    if cfg.distil:
        assert cfg.init_from
        teacher = ShapeVAE.from_pretrained(cfg.init_from).eval().requires_grad_(False)

    def init() -> None:
        if cfg.init_from:
            source = Path(cfg.init_from)
            source_model = ShapeVAE.from_pretrained(source)
            warm_start(model, source_model.state_dict(), str(source))
            ours, theirs = frozen.state_dict(), source_model.frozen_modules(cfg.trainable).state_dict()
            if ours.keys() != theirs.keys() or any(v.shape != theirs[k].shape for k, v in ours.items()):
                raise InvalidInputError(f"{source}: the parts trainable={cfg.trainable!r} keeps frozen differ in "
                                        "shape from this config's; they must match")
            if cfg.distil and cfg.model.light_queries and not source_model.config.light_queries:
                _fit_light_start(model, source_model, geo["near_points"], cfg)

    (progress or (lambda f, m: None))(0.0, "loading data")
    geo = load_geometry(data, "train")
    log.info("%d training shapes, model %.2f M parameters", len(geo["surface_points"]), model.num_parameters() / 1e6)
    return train_loop(model, cfg, out, lambda step: make_batch(geo, step, cfg),
                      lambda m, b: vae_losses(m, b, cfg, teacher),  # type: ignore[arg-type]
                      on_fresh_start=init, info={"train_shapes": len(geo["surface_points"])},
                      progress=progress, show=("sdf_l1", "sign_acc"))


def _fit_light_start(model: ShapeVAE, source: ShapeVAE, near_points: np.ndarray, cfg: VAETrainConfig) -> None:
    """Start ``model``'s light query map from the least-squares fit of ``source``'s full path at ``cfg.fit_points``
    of the near-surface samples (its head, as wide as ``source``'s, was copied by the warm start)."""
    if model.config.head_width != model.config.width:
        raise InvalidInputError(f"distilling into the light query path needs head_width = width "
                                f"({model.config.width}; the head is copied), got {model.config.head_width}")
    rng = np.random.default_rng(cfg.seed)
    flat = near_points.reshape(-1, 3)
    points = torch.from_numpy(flat[rng.choice(len(flat), cfg.fit_points, replace=cfg.fit_points > len(flat))])
    fitted, fit = fit_light_queries(source, points.float())
    log.info("light query map fitted by least squares: %s", {k: round(v, 5) for k, v in fit.items()})
    model.query_in.load_state_dict(fitted.query_in.state_dict())


def fit_light_queries(vae: ShapeVAE, points: torch.Tensor) -> tuple[ShapeVAE, dict[str, float]]:
    """A light-query-path copy of the full-path ``vae``, fitted at ``points`` (N, 3); and the fit's R^2.

    The full path's query MLP and query projection become one linear map of the query's Fourier features, solved
    by least squares (float64) to give the same attention query and the same residual, the residual also taking
    the query's side of the value offset through the output projection (the light path has no offset term). The
    encoder, token blocks, key/value and output projections and the head are copied, so latents keep their
    meaning and the decoder its function up to the fit's error."""
    if vae.config.light_queries:
        raise InvalidInputError("the VAE already has the light query path; fit from a full-path VAE")
    if points.ndim != 2 or points.shape[-1] != 3 or len(points) < 10 * vae.position_embed.out_dim:
        raise InvalidInputError(f"points must be (N, 3) with N >= {10 * vae.position_embed.out_dim}, got "
                                f"{tuple(points.shape)}")
    r = vae.route
    light = ShapeVAE(replace(vae.config, light_queries=True, head_width=vae.config.width))
    shared = {k: v for k, v in vae.state_dict().items() if not k.startswith(("query_in.", "route.q."))}
    missing, unexpected = light.load_state_dict(shared, strict=False)
    assert not unexpected and set(missing) == {"query_in.weight", "query_in.bias"}, (missing, unexpected)
    with torch.no_grad():
        x = points.to(torch.float32)
        feats = vae.position_embed(x)
        res = vae.query_in(feats)
        target = torch.cat([r.q(res), res + r.value_offset(x) @ r.out.weight.t()], dim=-1).double()
        design = torch.cat([feats.double(), torch.ones(len(x), 1, dtype=torch.float64)], dim=-1)
        solution = torch.linalg.lstsq(design, target).solution  # (F + 1, 2C): [query | residual]
        fitted = design @ solution
        r2 = 1.0 - (fitted - target).square().sum(0) / (target - target.mean(0)).square().sum(0)
        light.query_in.weight.copy_(solution[:-1].t())
        light.query_in.bias.copy_(solution[-1])
    c = vae.config.width
    report = {"r2_query_mean": float(r2[:c].mean()), "r2_query_min": float(r2[:c].min()),
              "r2_residual_mean": float(r2[c:].mean()), "r2_residual_min": float(r2[c:].min())}
    return light.eval(), report


# ------------------------------------------------------------------------------------------ stage 1 (coarse)


COARSE_TRAINABLE = ("all", "shape_head")
"""What a stage-1 run can train (``CoarseTrainConfig.trainable``)."""


@dataclass
class CoarseTrainConfig(TrainConfig):
    """Settings of a stage-1 flow training run: the flow and the image encoder learn together on the coarse SDF
    grids of the train split, conditioned on an augmented view, on the description, or on both."""

    steps: int = 2500
    """Optimiser steps."""
    batch: int = 32
    """Shapes per step."""
    lr: float = 5e-4
    """Peak learning rate."""
    warmup: int = 100
    """Warm-up steps."""
    image_share: float = 0.4
    """Share of samples conditioned on an image only."""
    text_share: float = 0.3
    """Share conditioned on the text only (the rest get both)."""
    drop_condition: float = 0.1
    """Share trained with the null condition (for classifier-free guidance)."""
    align_weight: float = 0.5
    """Weight of an auxiliary loss that trains the image encoder's pooled vector, through a linear head, to point
    where the MiniLM sentence vector of the shape's description points (cosine): the from-scratch encoder learns
    what the object is from the start instead of only through the flow's loss. 0: off."""
    shape_weight: float = 1.0
    """Weight of an auxiliary loss that trains the image encoder's pooled vector, through the conditioner's shape
    head, to predict the shape's coarse grid values pooled to ``conditioner.shape_cells``^3 (mean squared error):
    the encoder learns the object's proportions and its orientation from the first step, not only through the
    flow's loss; the head is saved with the conditioner (sampling keeps the stage-1 sample nearest its
    prediction). 0: off."""
    init_from: str | None = None
    """Start a fresh run from a saved stage-1 folder (its flow/ and conditioner/)."""
    trainable: str = "all"
    """What trains: ``all``; ``shape_head`` (only the conditioner's shape head, on the frozen image encoder of
    ``init_from``, which is then required: flow and conditioner are copied from it unchanged)."""
    conditioner: ConditionerConfig = field(
        default_factory=lambda: ConditionerConfig(image=ImageEncoderConfig(backbone="cnn"), shape_cells=8))
    """Image encoder, condition-token and shape-head sizes (a CNN: from one view it learns the pooled grid of the
    auxiliary loss far faster than a ViT from scratch does)."""
    model: CoarseFlowConfig = field(default_factory=CoarseFlowConfig)
    """Flow sizes (``model.grid`` must equal the data set's ``grid_resolution``)."""

    def __post_init__(self) -> None:
        if self.trainable not in COARSE_TRAINABLE:
            raise InvalidInputError(f"trainable must be one of {', '.join(COARSE_TRAINABLE)}, got {self.trainable!r}")
        if self.trainable == "shape_head" and not self.init_from:
            raise InvalidInputError("trainable='shape_head' needs init_from: the stage-1 folder whose flow and image "
                                    "encoder it keeps")
        cells = self.conditioner.shape_cells
        if (self.shape_weight > 0 or self.trainable == "shape_head") and (not cells or self.model.grid % cells):
            raise InvalidInputError(f"the shape head's cells per side ({cells}) must divide the grid "
                                    f"({self.model.grid}) and be > 0 when it trains")


class CoarseModel(nn.Module):
    """The stage-1 flow and its conditioner, trained together and saved as ``flow/`` and ``conditioner/``; the
    training-only head ``align`` maps the image encoder's pooled vector to the MiniLM sentence space."""

    def __init__(self, flow: CoarseFlow, conditioner: ShapeConditioner) -> None:
        super().__init__()
        self.flow = flow
        self.conditioner = conditioner
        self.align = nn.Linear(conditioner.image_encoder.out_dim, TEXT_DIM)

    def save_pretrained(self, path: PathType, overwrite: bool = False, extra_files: dict[str, str] | None = None
                        ) -> Path:
        """Write ``flow/`` and ``conditioner/`` model folders (and ``extra_files``) into ``path`` atomically."""
        with atomic_dir(path, overwrite=overwrite) as tmp:
            self.flow.save_pretrained(tmp / "flow")
            self.conditioner.save_pretrained(tmp / "conditioner")
            for name, text in (extra_files or {}).items():
                (tmp / name).write_text(text)
        return Path(path)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _condition_batch(views: dict[str, np.ndarray], text: tuple[np.ndarray, np.ndarray], idx: np.ndarray,
                     rng: np.random.Generator, cfg: CoarseTrainConfig | DetailTrainConfig,
                     augmenter: ViewAugmenter) -> dict[str, torch.Tensor]:
    """The condition part of a flow batch: one augmented view per shape, its text tokens, which streams each
    sample uses (image only, text only or both, in ``cfg``'s shares) and which samples drop to the null."""
    view = rng.integers(0, views["cond_rgb"].shape[1], len(idx))
    images = augmenter(views["cond_rgb"][idx, view], views["cond_alpha"][idx, view],
                       views["cond_background"][idx, view], generator=int(rng.integers(1 << 62))).rgb
    mode = rng.random(len(idx))
    return {"images": images, "text": torch.from_numpy(text[0][idx].astype(np.float32)),
            "text_mask": torch.from_numpy(text[1][idx]), "use_image": torch.from_numpy(mode < 1 - cfg.text_share),
            "use_text": torch.from_numpy(mode >= cfg.image_share),
            "drop": torch.from_numpy(rng.random(len(idx)) < cfg.drop_condition)}


def _drop_condition(flow: CoarseFlow | DetailFlow, cond: torch.Tensor, mask: torch.Tensor, drop: torch.Tensor
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Swap the condition of the ``drop`` samples for the flow's learned null condition (CFG training)."""
    null, null_mask = flow.null_condition(cond.shape[0], cond.shape[1])
    cond, mask = pad_tokens(cond, mask, null.shape[1])
    return torch.where(drop[:, None, None], null.to(cond.dtype), cond), torch.where(drop[:, None], null_mask, mask)


def make_coarse_batch(grids: np.ndarray, views: dict[str, np.ndarray], text: tuple[np.ndarray, np.ndarray],
                      step: int, cfg: CoarseTrainConfig, augmenter: ViewAugmenter) -> dict[str, torch.Tensor]:
    """The batch of ``step``: the shapes' coarse SDF grids (normalised units), noise, times, an augmented view,
    text tokens, the condition mode."""
    rng = np.random.default_rng([cfg.seed, step])
    n = len(grids)
    idx = rng.choice(n, cfg.batch, replace=n < cfg.batch)
    condition = _condition_batch(views, text, idx, rng, cfg, augmenter)
    gen = torch.Generator().manual_seed(int(rng.integers(1 << 62)))
    sdf = torch.from_numpy(grids[idx].astype(np.float32))
    return {"sdf": sdf, "noise": torch.randn(sdf.shape, generator=gen), "t": sample_timesteps(cfg.batch, gen),
            "text_vec": torch.from_numpy(sentence_vectors(*text, idx)), **condition}


def sentence_vectors(tokens: np.ndarray, mask: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Unit MiniLM sentence vectors (the masked mean of the token states, as the model pools) of samples ``idx``."""
    m = mask[idx].astype(np.float32)[..., None]
    vec = (tokens[idx].astype(np.float32) * m).sum(1) / np.maximum(m.sum(1), 1.0)
    return (vec / np.maximum(np.linalg.norm(vec, axis=-1, keepdims=True), 1e-8)).astype(np.float32)


def _shape_loss(model: CoarseModel, image: ImageFeatures, x0: torch.Tensor) -> torch.Tensor:
    """Mean squared error of the shape head's prediction against the grid values ``x0`` pooled to its cells."""
    target = pool_values(x0, model.conditioner.config.shape_cells)
    return F.mse_loss(model.conditioner.predict_shape(image).float(), target)


def coarse_losses(model: CoarseModel, batch: dict[str, torch.Tensor], align_weight: float = 0.0,
                  shape_weight: float = 0.0, trainable: str = "all") -> dict[str, torch.Tensor]:
    """Rectified-flow velocity loss of the stage-1 flow on the grid values (the conditioner trains through it),
    plus ``align_weight`` times the image encoder's sentence-alignment loss (1 - cosine) and ``shape_weight``
    times its shape head's pooled-grid loss (mean squared error); with ``trainable`` ``shape_head``, that last
    loss alone (the frozen encoder runs without gradients, the flow not at all)."""
    if trainable == "shape_head":
        with torch.no_grad():
            image = model.conditioner.image_encoder(batch["images"])
        shape = _shape_loss(model, image, model.flow.to_values(batch["sdf"]))
        return {"loss": shape, "shape": shape}
    image = model.conditioner.image_encoder(batch["images"])
    cond, mask = model.conditioner(batch["images"], batch["text"], batch["text_mask"], batch["use_image"],
                                   batch["use_text"], image_features=image)
    cond, mask = _drop_condition(model.flow, cond, mask, batch["drop"])
    x0, noise, t = model.flow.to_values(batch["sdf"]), batch["noise"], batch["t"]
    pred = model.flow(interpolate(x0, noise, t), t, cond, mask)
    flow = flow_loss(pred.float(), x0, noise)
    align = 1.0 - F.cosine_similarity(model.align(image.pooled).float(), batch["text_vec"], dim=-1).mean()
    shape = _shape_loss(model, image, x0) if shape_weight > 0 else torch.zeros((), device=x0.device)
    return {"loss": flow + align_weight * align + shape_weight * shape, "flow_loss": flow, "align": align,
            "shape": shape}


def load_views(root: PathType, split: str) -> dict[str, np.ndarray]:
    """The conditioning renders of a split: ``cond_rgb``, ``cond_alpha``, ``cond_background`` and ``description``."""
    return load_geometry(root, split, fields=("cond_rgb", "cond_alpha", "cond_background", "description"))


def load_grids(root: PathType, split: str, grid: int) -> np.ndarray:
    """The coarse SDF grids (N, G, G, G) of a built split, checked against the flow's ``grid``."""
    from seed3d.synth.dataset import ShardDataset

    ds = ShardDataset(root, split, fields=("index",), cache_shards=1)
    names = {f["name"]: f for f in ds.manifest["fields"]}
    if "grid_sdf" not in names:
        raise AssetFormatError(f"{ds.root}: the split has no coarse SDF grids (grid_sdf); rebuild it with "
                               "`seed3d data build --overwrite`")
    if names["grid_sdf"]["shape"] != [grid] * 3:
        raise InvalidInputError(f"{ds.root}: its grids are {names['grid_sdf']['shape']}, the flow generates "
                                f"{[grid] * 3}; set model.grid or rebuild with --grid-resolution {grid}")
    return load_geometry(root, split, fields=("grid_sdf",))["grid_sdf"]


def train_coarse(data: PathType, out: PathType, config: CoarseTrainConfig | None = None,
                 progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) the stage-1 flow and the image encoder; returns the folder with ``flow/`` and
    ``conditioner/``."""
    cfg = config or CoarseTrainConfig()
    check_device(cfg.device)
    torch.manual_seed(cfg.seed)
    if cfg.trainable == "shape_head":  # flow and encoder as they are in init_from; only the new head trains
        source = Path(str(cfg.init_from))
        flow = CoarseFlow.from_pretrained(source / "flow")
        kept = ShapeConditioner.from_pretrained(source / "conditioner")
        conditioner = ShapeConditioner(replace(kept.config, shape_cells=cfg.conditioner.shape_cells))
        result = conditioner.load_state_dict({k: v for k, v in kept.state_dict().items()
                                              if not k.startswith("shape_head.")}, strict=False)
        if result.unexpected_keys or any(not k.startswith("shape_head.") for k in result.missing_keys):
            raise InvalidInputError(f"{source / 'conditioner'}: its tensors do not fit its own config")
        model = CoarseModel(flow, conditioner)
        model.requires_grad_(False)
        assert conditioner.shape_head is not None
        conditioner.shape_head.requires_grad_(True)
    else:
        model = CoarseModel(CoarseFlow(cfg.model), ShapeConditioner(cfg.conditioner))
    report = progress or (lambda f, m: None)
    report(0.0, "loading grids and views")
    grids = load_grids(data, "train", model.flow.config.grid)
    views = load_views(data, "train")
    text = encode_token_arrays([str(d) for d in views["description"]], progress=progress,
                               message="encoding descriptions")
    augmenter = ViewAugmenter(AugmentConfig(size=model.conditioner.image_size))

    def init() -> None:
        if cfg.init_from and cfg.trainable == "all":
            source = Path(cfg.init_from)
            warm_start(model.flow, CoarseFlow.from_pretrained(source / "flow").state_dict(), str(source))
            warm_start(model.conditioner, ShapeConditioner.from_pretrained(source / "conditioner").state_dict(),
                       str(source))

    log.info("%d shapes, flow %.2f M + conditioner %.2f M parameters", len(grids),
             model.flow.num_parameters() / 1e6, sum(p.numel() for p in model.conditioner.parameters()) / 1e6)
    return train_loop(model, cfg, out, lambda step: make_coarse_batch(grids, views, text, step, cfg, augmenter),
                      lambda m, b: coarse_losses(m, b, cfg.align_weight, cfg.shape_weight,  # type: ignore[arg-type]
                                                 cfg.trainable),
                      on_fresh_start=init, info={"train_shapes": len(grids)},
                      progress=progress, show=("shape",) if cfg.trainable == "shape_head" else ("flow_loss", "align",
                                                                                                "shape"))


# ------------------------------------------------------------------------------------------ stage 2 (detail)


@dataclass
class DetailTrainConfig(TrainConfig):
    """Settings of a stage-2 flow training run: detail latents at the voxel centres of each shape's dilated
    surface, initialised from stage 1, conditioned by stage 1's (frozen) conditioner."""

    steps: int = 2000
    """Optimiser steps."""
    batch: int = 8
    """Shapes per step."""
    lr: float = 2e-4
    """Peak learning rate."""
    warmup: int = 100
    """Warm-up steps."""
    vae: str = "weights/geometry-vae"
    """Shape VAE folder (it encodes each shape at its support positions)."""
    coarse: str = "weights/geometry-coarse"
    """Stage-1 folder (``flow/`` initialises the model, ``conditioner/`` makes the condition tokens)."""
    init_from: str | None = None
    """Start a fresh run from a saved stage-2 model folder instead of stage 1 (new input columns start at zero)."""
    shapes: int | None = 2560
    """Train shapes used: N of the split from ``shape_offset`` on (stage 1 trained on the first 2,560; None: all)."""
    shape_offset: int = 0
    """The first train shape used (2,560 skips the shapes stage 1 was trained on)."""
    coarse_from: str = "truth"
    """Where each shape's coarse grid comes from: ``truth`` (its own 16³ grid) or ``stage1`` (a grid the stage-1
    flow samples from the shape's own condition, with the pipeline's default steps and guidance -- what stage 2
    refines at inference, errors included)."""
    image_share: float = 0.4
    """Share of samples conditioned on an image only."""
    text_share: float = 0.3
    """Share conditioned on the text only (the rest get both)."""
    drop_condition: float = 0.1
    """Share trained with the null condition."""
    model: DetailFlowConfig = field(default_factory=lambda: DetailFlowConfig(anchor_offsets=True))
    """Flow sizes and support settings (trunk sizes must match stage 1); generated anchor offsets on, as the
    shipped v2 was trained."""

    def __post_init__(self) -> None:
        if self.coarse_from not in ("truth", "stage1"):
            raise InvalidInputError(f"coarse_from must be 'truth' or 'stage1', got {self.coarse_from!r}")
        if self.shape_offset < 0:
            raise InvalidInputError(f"shape_offset must be >= 0, got {self.shape_offset}")


class DetailModel(nn.Module):
    """The stage-2 flow with stage 1's conditioner frozen beside it (only the flow is saved)."""

    def __init__(self, flow: DetailFlow, conditioner: ShapeConditioner) -> None:
        super().__init__()
        self.flow = flow
        self.conditioner = conditioner.requires_grad_(False).eval()

    def save_pretrained(self, path: PathType, overwrite: bool = False, extra_files: dict[str, str] | None = None
                        ) -> Path:
        """Write the detail flow's model folder."""
        return self.flow.save_pretrained(path, overwrite=overwrite, extra_files=extra_files)


def support_latents(vae: ShapeVAE, data: dict[str, np.ndarray], cfg: DetailFlowConfig, coarse: CoarseFlowConfig,
                    progress: ProgressCallback | None = None) -> dict[str, np.ndarray]:
    """Stage 2's training pairs, per shape: the support of its coarse grid's surface (``data["grid_sdf"]``: the
    true grid or stage 1's sample of it, meshed as stage 1's output is at inference), the state there where
    sampling starts (``coarse``: :func:`~seed3d.geometry.detail.detail_start`'s) and the target state (``feats``:
    the shape itself encoded at the support or, with ``anchor_offsets``, at the support snapped onto its surface
    samples, those offsets after the feats), padded to ``max_tokens`` with a ``mask``. A shape whose coarse grid
    holds no surface gets no tokens (batches skip it)."""
    c = vae.config
    n = len(data["surface_points"])
    pos = np.zeros((n, cfg.max_tokens, 3), np.float32)
    mask = np.zeros((n, cfg.max_tokens), bool)
    feats = np.zeros((n, cfg.max_tokens, cfg.channels), np.float32)
    start = np.zeros_like(feats)
    for i in range(n):
        try:
            sup, coarse_feats = detail_start(vae, coarse_mesh(coarse, data["grid_sdf"][i]), cfg, seed=i)
        except EmptySurfaceError:
            log.warning("training shape %d: its coarse grid holds no surface; stage 2 skips it", i)
            continue
        p = np.concatenate([data["surface_points"][i, : c.surface_points], data["sharp_points"][i, : c.sharp_points]])
        nr = np.concatenate([data["surface_normals"][i, : c.surface_points],
                             data["sharp_normals"][i, : c.sharp_points]])
        n_surface = min(data["surface_points"].shape[1], c.surface_points)
        sh = np.concatenate([np.zeros(n_surface, bool), data["sharp_on_edge"][i, : c.sharp_points]])
        anchors = sup
        if cfg.anchor_offsets:
            anchors = snap_to_surface(sup, data["surface_points"][i].astype(np.float64), cfg.snap_reach)
        with torch.no_grad():
            lat = vae.encode(torch.from_numpy(p.astype(np.float32))[None],
                             torch.from_numpy(nr.astype(np.float32))[None], torch.from_numpy(sh)[None],
                             anchors=torch.from_numpy(anchors)[None])
        target = lat.feats[0].numpy()
        if cfg.anchor_offsets:
            target = np.concatenate([target, anchors - sup], -1)
        m = len(sup)
        pos[i, :m], mask[i, :m], feats[i, :m], start[i, :m] = sup, True, target, coarse_feats.numpy()
        if progress is not None and (i % 16 == 15 or i == n - 1):
            progress((i + 1) / n, f"encoded supports {i + 1}/{n}")
    return {"positions": pos, "mask": mask, "feats": feats, "coarse": start}


def sampled_grids(coarse: CoarseFlow, conditioner: ShapeConditioner, views: dict[str, np.ndarray],
                  text: tuple[np.ndarray, np.ndarray], cfg: DetailTrainConfig, batch: int = 32,
                  progress: ProgressCallback | None = None, candidates: int | None = None) -> np.ndarray:
    """Stage 1's grids (N, G, G, G) of the given shapes, each sampled from the shape's own condition: one of its
    views recentred as at inference and / or its description (``cfg``'s shares, never the null), with the
    pipeline's default steps and guidance. As at inference, a shape whose condition has the image gets the best of
    ``candidates`` samples (default ``GenerateOptions.candidates``) by the conditioner's shape head, when it has
    one (``nearest_to_prior``). Deterministic in ``cfg.seed``."""
    from seed3d.condition.image import preprocess_rgba, to_tensor

    opts = GenerateOptions() if candidates is None else GenerateOptions(candidates=candidates)
    k = opts.candidates if conditioner.shape_head is not None else 1
    sampler = FlowSampler(num_steps=opts.steps, guidance_scale=opts.guidance)
    n = len(views["cond_rgb"])
    grids = np.zeros((n, *[coarse.config.grid] * 3), np.float32)
    for s in range(0, n, batch):
        idx = np.arange(s, min(s + batch, n))
        rng = np.random.default_rng([cfg.seed, s])
        view = rng.integers(0, views["cond_rgb"].shape[1], len(idx))
        images = to_tensor([preprocess_rgba(views["cond_rgb"][i, v], views["cond_alpha"][i, v],
                                            views["cond_background"][i, v], size=conditioner.image_size)
                            for i, v in zip(idx, view, strict=True)])
        mode = rng.random(len(idx))
        use_image = torch.from_numpy(mode < 1 - cfg.text_share)
        with torch.no_grad():
            feats = conditioner.image_encoder(images)
            cond, mask = conditioner(images, torch.from_numpy(text[0][idx].astype(np.float32)),
                                     torch.from_numpy(text[1][idx]), use_image,
                                     torch.from_numpy(mode >= cfg.image_share), image_features=feats)
            reps = torch.where(use_image, k, 1)  # an image condition samples k candidates, a text-only one 1
            gen = torch.Generator().manual_seed(int(rng.integers(1 << 62)))
            out = coarse.generate(cond.repeat_interleave(reps, 0), mask.repeat_interleave(reps, 0), sampler=sampler,
                                  generator=gen).float()
            prior = conditioner.predict_shape(feats) if k > 1 else None
        for j, part in enumerate(out.split(reps.tolist())):
            best = nearest_to_prior(coarse, part, prior[j]) if prior is not None and len(part) > 1 else 0
            grids[idx[j]] = part[best].numpy()
        if progress is not None:
            progress((idx[-1] + 1) / n, f"stage-1 grids {idx[-1] + 1}/{n}")
    return grids


def make_detail_batch(latents: dict[str, np.ndarray], views: dict[str, np.ndarray],
                      text: tuple[np.ndarray, np.ndarray], step: int, cfg: DetailTrainConfig,
                      scale: float | np.ndarray, augmenter: ViewAugmenter) -> dict[str, torch.Tensor]:
    """The batch of ``step``: target states at support positions (times ``scale``, per channel: the flow's units),
    their mask, the bridge's end (where the line from the target through the noised coarse state at ``t_start``
    reaches ``t = 1``), the clean coarse states, times in (0, ``t_start``] and the condition."""
    rng = np.random.default_rng([cfg.seed, step])
    usable = np.flatnonzero(latents["mask"].any(axis=1))
    idx = usable[rng.choice(len(usable), cfg.batch, replace=len(usable) < cfg.batch)]
    condition = _condition_batch(views, text, idx, rng, cfg, augmenter)
    gen = torch.Generator().manual_seed(int(rng.integers(1 << 62)))
    factor = np.asarray(scale, np.float32)
    x0 = torch.from_numpy(latents["feats"][idx] * factor)
    ts = cfg.model.t_start
    coarse = torch.from_numpy(latents["coarse"][idx] * factor)
    start = (1.0 - ts) * coarse + ts * torch.randn(x0.shape, generator=gen)
    # the bridge: the line through the target (t = 0) and the noised coarse latent (t = t_start), extended to t = 1
    end = x0 + (start - x0) / ts
    return {"x0": x0, "end": end, "coarse": coarse, "t": ts * sample_timesteps(cfg.batch, gen),
            "positions": torch.from_numpy(latents["positions"][idx]), "mask": torch.from_numpy(latents["mask"][idx]),
            **condition}


def detail_losses(model: DetailModel, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Velocity loss of the detail flow on its bridge (``end - x0``, constant along the line) over real tokens."""
    with torch.no_grad():
        cond, mask = model.conditioner(batch["images"], batch["text"], batch["text_mask"], batch["use_image"],
                                       batch["use_text"])
    cond, mask = _drop_condition(model.flow, cond, mask, batch["drop"])
    x0, end, t, keys = batch["x0"], batch["end"], batch["t"], batch["mask"]
    pred = model.flow(interpolate(x0, end, t), t, cond, mask, positions=batch["positions"], coarse=batch["coarse"],
                      key_mask=keys)
    return {"loss": flow_loss(pred.float(), x0, end, keys)}


def train_detail(data: PathType, out: PathType, config: DetailTrainConfig | None = None,
                 progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) the stage-2 detail flow; returns its model folder."""
    cfg = config or DetailTrainConfig()
    check_device(cfg.device)
    vae_dir, coarse_dir = Path(cfg.vae), Path(cfg.coarse)
    needed = [(vae_dir, "shape VAE"), (coarse_dir / "flow", "stage-1 flow")]
    if cfg.init_from:
        needed.append((Path(cfg.init_from), "stage-2 flow"))
    for folder, what in needed:
        if not (folder / "model.safetensors").is_file():
            raise InvalidInputError(f"{folder}: no {what} there (train it first)")
    torch.manual_seed(cfg.seed)
    coarse = CoarseFlow.from_pretrained(coarse_dir / "flow")
    model = DetailModel(DetailFlow(cfg.model), ShapeConditioner.from_pretrained(coarse_dir / "conditioner"))
    out = Path(out)
    key = f"{_sha256(vae_dir / 'model.safetensors')[:12]}-{_sha256(coarse_dir / 'flow' / 'config.json')[:8]}-" \
          f"{cfg.model.resolution}-{cfg.model.dilation}-{cfg.model.max_tokens}-{cfg.shapes or 'all'}"
    if cfg.model.anchor_offsets:
        key += f"-snapped{cfg.model.snap_reach:g}"
    if cfg.shape_offset:
        key += f"-from{cfg.shape_offset}"
    if cfg.coarse_from == "stage1":  # the sampled grids depend on stage 1's weights and the seed
        key += f"-stage1-{_sha256(coarse_dir / 'flow' / 'model.safetensors')[:8]}-" \
               f"{_sha256(coarse_dir / 'conditioner' / 'model.safetensors')[:8]}-{cfg.seed}"
    cache = out / f"supports-{key}.npz"
    first = slice(cfg.shape_offset, None if cfg.shapes is None else cfg.shape_offset + cfg.shapes)
    views = {k: v[first] for k, v in load_views(data, "train").items()}
    if not len(views["description"]):
        raise InvalidInputError(f"{data}: no train shapes from shape_offset {cfg.shape_offset} on")
    text = encode_token_arrays([str(d) for d in views["description"]], progress=progress,
                               message="encoding descriptions")
    if cache.is_file():
        with np.load(cache) as z:
            latents = {k: z[k] for k in z.files}
    else:
        geo = {k: v[first] for k, v in load_geometry(data, "train", fields=(*VAE_FIELDS[:5], "grid_sdf")).items()}
        if cfg.coarse_from == "stage1":
            geo["grid_sdf"] = sampled_grids(coarse.eval(), model.conditioner, views, text, cfg, progress=progress)
        latents = support_latents(ShapeVAE.from_pretrained(vae_dir).eval(), geo, cfg.model, coarse.config, progress)
        out.mkdir(parents=True, exist_ok=True)
        with atomic_file(cache) as tmp, open(tmp, "wb") as f:
            np.savez(f, **latents)
    d, real = cfg.model.latent_dim, latents["feats"][latents["mask"]]
    units = {"latent_scale": float(real[:, :d].std())}
    if cfg.model.anchor_offsets:
        units["offset_scale"] = 1.0 / max(float(real[:, d:].std()), 1e-6)
    if cfg.init_from:  # keep the units the warm start was trained in
        extra = json.loads((Path(cfg.init_from) / "config.json").read_text()).get("extra", {})
        units.update({k: float(extra[k]) for k in units if k in extra})
    model.flow.config.extra = {**model.flow.config.extra, **units}
    scale = model.flow.config.state_scale().numpy()
    augmenter = ViewAugmenter(AugmentConfig(size=model.conditioner.image_size))

    def init() -> None:
        if cfg.init_from:
            from safetensors.torch import load_file

            state = {k: v.float() for k, v in load_file(str(Path(cfg.init_from) / "model.safetensors")).items()}
            warm_start(model.flow, widen_state(model.flow, state), cfg.init_from)
        else:
            warm_start(model.flow, DetailFlow.from_coarse(coarse, cfg.model).state_dict(), str(coarse_dir / "flow"))

    return train_loop(model, cfg, out,
                      lambda step: make_detail_batch(latents, views, text, step, cfg, scale, augmenter),
                      detail_losses,  # type: ignore[arg-type]
                      on_fresh_start=init, info={"train_shapes": len(latents["positions"]), "vae": str(vae_dir),
                                                 "coarse": str(coarse_dir), **units},
                      progress=progress)
