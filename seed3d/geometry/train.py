"""Training of the geometry models on ``seed3d data build`` shards (``seed3d train geometry-vae``).

The shape VAE learns from each sample's surface points (uniform by area, with normals), its sharp-edge points
(flagged) and its SDF samples near the surface and uniform in the cube. Each step draws shapes, a token budget
from ``ShapeVAEConfig.token_choices``, random yaw, mirror and uniform scale (exact for an SDF) and, on a share
of steps, anchors jittered off the surface (as voxel-centre anchors of the detail stage are).

Resumable, logged and saved through ``seed3d.nn.trainer.train_loop``; batches depend only on (seed, step).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from seed3d.errors import AssetFormatError
from seed3d.geometry.vae import ShapeVAE, ShapeVAEConfig, sdf_loss
from seed3d.nn.trainer import ProgressCallback, TrainConfig, check_device, train_loop, warm_start
from seed3d.typed import PathType

log = logging.getLogger(__name__)

VAE_FIELDS = ("surface_points", "surface_normals", "sharp_points", "sharp_normals", "sharp_on_edge",
              "near_points", "near_sdf", "vol_points", "vol_sdf")


@dataclass
class VAETrainConfig(TrainConfig):
    """Settings of a shape-VAE training run (the defaults take about an hour on 2 CPU cores)."""

    steps: int = 2500
    """Optimiser steps."""
    near_queries: int = 1024
    """SDF queries per shape drawn from the near-surface samples."""
    volume_queries: int = 512
    """SDF queries per shape drawn from the uniform samples of the cube."""
    kl_weight: float = 1e-4
    """Weight of the KL term."""
    occupancy_weight: float = 0.02
    """Weight of a binary cross-entropy on inside/outside with logits -sdf / occupancy_scale: it sharpens the
    sign right at the surface, where the L1 term alone settles near zero."""
    occupancy_scale: float = 0.005
    """SDF value (normalised units) that counts as one logit."""
    jitter_share: float = 0.25
    """Share of steps whose anchors are moved off the surface by Gaussian noise."""
    jitter_sigma: float = 0.03
    """Standard deviation of that noise (normalised units; about a coarse-support voxel)."""
    init_from: str | None = None
    """Start a fresh run from a saved VAE folder (tensors of equal shape are copied)."""
    model: ShapeVAEConfig = field(default_factory=ShapeVAEConfig)
    """Model sizes."""


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


def vae_losses(model: ShapeVAE, batch: dict[str, torch.Tensor], cfg: VAETrainConfig) -> dict[str, torch.Tensor]:
    """Truncated-SDF L1, occupancy cross-entropy, KL, their weighted sum ``loss``, and the sign accuracy near the
    surface."""
    mc = model.config
    anchors = model.choose_anchors(batch["points"], batch["normals"], batch["sharp"], batch["jitter"].shape[1])
    anchors = (anchors + batch["jitter"]).clamp(-1.0, 1.0)
    latent = model.encode(batch["points"], batch["normals"], batch["sharp"], anchors=anchors)
    assert latent.logvar is not None
    latent.feats = latent.feats + (0.5 * latent.logvar).exp() * batch["noise"]
    pred = model.decode(latent, batch["queries"]).float()
    target = batch["sdf"]
    rec = sdf_loss(pred, target, mc.truncation)
    occ = F.binary_cross_entropy_with_logits(-pred / cfg.occupancy_scale, (target < 0).float())
    kl = latent.kl()
    with torch.no_grad():
        near = target.abs() < 0.2 * mc.truncation
        sign = ((pred < 0) == (target < 0))[near].float().mean()
    return {"loss": rec + cfg.occupancy_weight * occ + cfg.kl_weight * kl, "sdf_l1": rec, "occupancy": occ, "kl": kl,
            "sign_acc": sign}


def train_vae(data: PathType, out: PathType, config: VAETrainConfig | None = None,
              progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) the shape VAE on ``data``'s train split; returns the folder of the saved model."""
    cfg = config or VAETrainConfig()
    check_device(cfg.device)
    torch.manual_seed(cfg.seed)
    model = ShapeVAE(cfg.model)

    def init() -> None:
        if cfg.init_from:
            source = Path(cfg.init_from)
            warm_start(model, ShapeVAE.from_pretrained(source).state_dict(), str(source))

    (progress or (lambda f, m: None))(0.0, "loading data")
    geo = load_geometry(data, "train")
    log.info("%d training shapes, model %.2f M parameters", len(geo["surface_points"]), model.num_parameters() / 1e6)
    return train_loop(model, cfg, out, lambda step: make_batch(geo, step, cfg),
                      lambda m, b: vae_losses(m, b, cfg),  # type: ignore[arg-type]
                      on_fresh_start=init, info={"train_shapes": len(geo["surface_points"])},
                      progress=progress, show=("sdf_l1", "sign_acc"))
