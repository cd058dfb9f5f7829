"""Training of the part segmenter on ``seed3d data build`` shards (``seed3d train part-seg``).

The shards' surface points lie on the visible surface of the union of an asset's parts -- one merged shell --
and carry the index and label of the part under them, so the model learns to cut a shell rather than read
connected components. Each step draws shapes, 2,048 of their points, random yaw and stretch, and prompts a
part chosen uniformly among those present (small parts are prompted as often as big ones).

Resumable: ``checkpoint.pt`` is written atomically every ``checkpoint_every`` steps and training restarts from
it; metrics go to ``log.jsonl``; the finished model is saved with ``save_pretrained`` in ``OUT/model``, beside
the label-size prior of the training split (``seed3d.parts.prior``, ``size_prior.json``) and the label-material
prior of the synth assets behind it (``material_prior.json``).
Batches depend only on (seed, step), so a resumed run sees the same data as an uninterrupted one.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from seed3d.asset import PART_LABELS
from seed3d.errors import AssetFormatError
from seed3d.nn.trainer import TrainConfig, check_device, train_loop, warm_start
from seed3d.parts.model import PartSegmenter, SegmenterConfig
from seed3d.parts.prior import MaterialPrior, fit_material_prior, fit_size_prior
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)

_FIELDS = ("surface_points", "surface_normals", "surface_part", "surface_label", "category",
           "sharp_points", "sharp_normals", "sharp_part", "sharp_label", "sharp_on_edge")


@dataclass
class PartSegTrainConfig(TrainConfig):
    """Settings of a part-segmenter training run (the defaults take about an hour on 2 CPU cores)."""

    prompts: int = 8
    """Prompts per shape per step."""
    init_from: str | None = None
    """Start a fresh run from a saved segmenter folder: tensors of equal shape are copied, a layer that gained
    input columns (e.g. the edge flag) keeps the old columns and starts the new ones at zero."""
    model: SegmenterConfig = field(default_factory=lambda: SegmenterConfig(edge_points=512))
    """Model sizes."""


def load_points(root: PathType, split: str) -> dict[str, np.ndarray]:
    """The point fields of every sample of a built split, stacked (surface points, normals, part, label)."""
    from seed3d.synth.dataset import ShardDataset

    ds = ShardDataset(root, split, fields=_FIELDS, cache_shards=1)
    if not len(ds):
        raise AssetFormatError(f"{ds.root}: the split has no samples")
    chunks = [ds.load_shard(s) for s in range(len(ds.shards))]
    return {k: np.concatenate([c[k] for c in chunks]) for k in _FIELDS}


def augment(points: np.ndarray, normals: np.ndarray, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray]:
    """Random yaw (half the time any angle, else within ±10°) and stretch, renormalised to the data's extent."""
    yaw = rng.uniform(0, 2 * math.pi) if rng.random() < 0.5 else rng.uniform(-0.17, 0.17)
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    stretch = rng.uniform(0.85, 1.15, 3)
    p = (points @ rot.T) * stretch
    n = (normals @ rot.T) / stretch
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
    lo, hi = p.min(0), p.max(0)
    p = (p - (lo + hi) / 2) * (0.9 / max(float((hi - lo).max()) / 2, 1e-9))
    return p.astype(np.float32), n.astype(np.float32)


def make_batch(data: dict[str, np.ndarray], step: int, cfg: PartSegTrainConfig, num_points: int
               ) -> dict[str, torch.Tensor]:
    """The batch of ``step``: points (the last ``edge_points`` of them on sharp edges), normals, edge flags,
    prompt indices, target masks and labels (depends only on seed and step)."""
    rng = np.random.default_rng([cfg.seed, step])
    total = len(data["surface_points"])
    idx = rng.choice(total, cfg.batch, replace=total < cfg.batch)
    n_edge = cfg.model.edge_points
    pts, nrm, edg, prm, msk, lab = [], [], [], [], [], []
    for i in idx:
        sel = rng.choice(data["surface_points"].shape[1], num_points - n_edge, replace=False)
        esel = rng.choice(data["sharp_points"].shape[1], n_edge, replace=data["sharp_points"].shape[1] < n_edge)
        p, n = augment(np.concatenate([data["surface_points"][i][sel], data["sharp_points"][i][esel]]),
                       np.concatenate([data["surface_normals"][i][sel], data["sharp_normals"][i][esel]]), rng)
        part = np.concatenate([data["surface_part"][i][sel], data["sharp_part"][i][esel]]).astype(np.int64)
        labels = np.concatenate([data["surface_label"][i][sel], data["sharp_label"][i][esel]])
        edg.append(np.concatenate([np.zeros(len(sel), bool), data["sharp_on_edge"][i][esel]]))
        present = np.unique(part)
        chosen = rng.choice(present, cfg.prompts, replace=len(present) < cfg.prompts)
        prompt = np.array([rng.choice(np.flatnonzero(part == c)) for c in chosen])
        pts.append(p)
        nrm.append(n)
        prm.append(prompt)
        msk.append(part[None, :] == part[prompt][:, None])
        lab.append(labels[prompt].astype(np.int64))
    return {"points": torch.from_numpy(np.stack(pts)), "normals": torch.from_numpy(np.stack(nrm)),
            "edge": torch.from_numpy(np.stack(edg)),
            "prompts": torch.from_numpy(np.stack(prm)), "masks": torch.from_numpy(np.stack(msk)),
            "labels": torch.from_numpy(np.stack(lab))}


def losses(model: PartSegmenter, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Mask (BCE + dice), label (cross-entropy) and IoU-score (MSE) losses and their sum ``loss``."""
    logits, label_logits, iou_pred = model(batch["points"], batch["normals"], batch["prompts"], batch["edge"])
    logits = logits.float()
    target = batch["masks"].float()
    bce = F.binary_cross_entropy_with_logits(logits, target)
    prob = logits.sigmoid()
    dice = 1 - (2 * (prob * target).sum(-1) + 1) / (prob.sum(-1) + target.sum(-1) + 1)
    label = F.cross_entropy(label_logits.float().flatten(0, 1), batch["labels"].flatten())
    with torch.no_grad():
        hard = logits > 0
        inter = (hard & batch["masks"]).sum(-1).float()
        union = (hard | batch["masks"]).sum(-1).float().clamp(min=1)
        iou = inter / union
    score = F.mse_loss(iou_pred.float(), iou)
    total = bce + dice.mean() + 0.5 * label + score
    return {"loss": total, "bce": bce, "dice": dice.mean(), "label": label, "score": score, "iou": iou.mean(),
            "label_acc": (label_logits.argmax(-1) == batch["labels"]).float().mean()}


def train_part_segmenter(data: PathType, out: PathType, config: PartSegTrainConfig | None = None,
                         progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) a segmenter on ``data``'s train split; returns the folder of the saved model."""
    cfg = config or PartSegTrainConfig()
    check_device(cfg.device)
    torch.manual_seed(cfg.seed)
    model = PartSegmenter(cfg.model)

    def init() -> None:
        if cfg.init_from:
            source = Path(cfg.init_from)
            warm_start(model, PartSegmenter.from_pretrained(source).state_dict(), str(source))

    (progress or (lambda f, m: None))(0.0, "loading data")
    points = load_points(data, "train")
    log.info("%d training shapes, model %.2f M parameters", len(points["surface_points"]),
             model.num_parameters() / 1e6)
    final = train_loop(model, cfg, out, lambda step: make_batch(points, step, cfg, cfg.model.num_points),
                       losses, on_fresh_start=init, info={"train_shapes": len(points["surface_points"])},
                       progress=progress, show=("loss", "iou"))
    # label ids in the shards index PART_LABELS (the manifest's label_names)
    fit_size_prior(points["surface_part"], points["surface_label"], PART_LABELS).save(final)
    synth_material_prior(data).save(final)
    return final


def synth_material_prior(data: PathType, split: str = "train") -> MaterialPrior:
    """The label -> material prior of the synth assets behind ``data``'s ``split``: each sample id
    (``{category}_{seed}``) generated again (geometry only, about 16 ms each)."""
    from seed3d.synth import CATEGORIES, generate
    from seed3d.synth.dataset import ShardDataset

    ids = ShardDataset(data, split, fields=("sample_id",), cache_shards=1).sample_ids
    if not ids:
        raise AssetFormatError(f"{data}/{split}: the split has no samples")
    pairs = [sid.rsplit("_", 1) for sid in ids]
    bad = [sid for sid, pair in zip(ids, pairs, strict=True)
           if len(pair) != 2 or pair[0] not in CATEGORIES or not pair[1].isdigit()]
    if bad:
        raise AssetFormatError(f"{data}/{split}: sample ids {bad[:3]} are not '{{category}}_{{seed}}' of synth assets")
    return fit_material_prior(generate(category, int(seed)) for category, seed in pairs)
