"""Training of the part segmenter on ``seed3d data build`` shards (``seed3d train part-seg``).

The shards' surface points lie on the visible surface of the union of an asset's parts -- one merged shell --
and carry the index and label of the part under them, so the model learns to cut a shell rather than read
connected components. Each step draws shapes, 2,048 of their points, random yaw and stretch, and prompts a
part chosen uniformly among those present (small parts are prompted as often as big ones).

Resumable: ``checkpoint.pt`` is written atomically every ``checkpoint_every`` steps and training restarts from
it; metrics go to ``log.jsonl``; the finished model is saved with ``save_pretrained`` in ``OUT/model``.
Batches depend only on (seed, step), so a resumed run sees the same data as an uninterrupted one.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from seed3d.asset import atomic_file
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.parts.model import PartSegmenter, SegmenterConfig
from seed3d.typed import PathType

log = logging.getLogger(__name__)

ProgressCallback = Callable[[float, str], None]
_FIELDS = ("surface_points", "surface_normals", "surface_part", "surface_label", "category",
           "sharp_points", "sharp_normals", "sharp_part", "sharp_label", "sharp_on_edge")


@dataclass
class PartSegTrainConfig:
    """Settings of a part-segmenter training run (the defaults take about an hour on 2 CPU cores)."""

    steps: int = 2000
    """Optimiser steps."""
    batch: int = 8
    """Shapes per step."""
    prompts: int = 8
    """Prompts per shape per step."""
    lr: float = 1e-3
    """Peak learning rate (AdamW, linear warm-up then cosine decay to 5 %)."""
    warmup: int = 100
    """Warm-up steps."""
    weight_decay: float = 0.01
    """AdamW weight decay."""
    seed: int = 0
    """Seed of the initialisation and of every batch."""
    max_minutes: float | None = None
    """Stop (and save) after this much wall time, whatever the step count."""
    checkpoint_every: int = 50
    """Steps between checkpoints."""
    log_every: int = 10
    """Steps between log lines."""
    device: str = "cpu"
    """cpu or cuda (bf16 autocast on CUDA)."""
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


def _lr(step: int, cfg: PartSegTrainConfig) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    t = (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)
    return cfg.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(t, 1.0))))


def _save_checkpoint(path: Path, model: PartSegmenter, opt: torch.optim.Optimizer, step: int, cfg: dict[str, Any],
                     seconds: float) -> None:
    with atomic_file(path) as tmp:
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step, "config": cfg,
                    "seconds": seconds}, tmp)


def _warm_start(model: PartSegmenter, folder: Path) -> None:
    """Copy the weights of a saved segmenter into ``model`` (see ``PartSegTrainConfig.init_from``)."""
    old = PartSegmenter.from_pretrained(folder).state_dict()
    state = model.state_dict()
    copied = 0
    with torch.no_grad():
        for k, v in state.items():
            w = old.get(k)
            if w is None:
                continue
            if w.shape == v.shape:
                v.copy_(w)
            elif w.ndim == 2 and w.shape[0] == v.shape[0] and w.shape[1] < v.shape[1]:
                v.zero_()
                v[:, : w.shape[1]] = w
            else:
                continue
            copied += 1
    log.info("initialised %d of %d tensors from %s", copied, len(state), folder)


def train_part_segmenter(data: PathType, out: PathType, config: PartSegTrainConfig | None = None,
                         progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) a segmenter on ``data``'s train split; returns the folder of the saved model."""
    cfg = config or PartSegTrainConfig()
    if cfg.device not in ("cpu", "cuda") or (cfg.device == "cuda" and not torch.cuda.is_available()):
        raise InvalidInputError(f"device must be cpu or cuda (available: {torch.cuda.is_available()}), "
                                f"got {cfg.device!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = progress or (lambda f, m: None)
    doc = asdict(cfg)
    ckpt_path, log_path = out / "checkpoint.pt", out / "log.jsonl"
    torch.manual_seed(cfg.seed)
    model = PartSegmenter(cfg.model).to(cfg.device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    step, seconds = 0, 0.0
    if ckpt_path.is_file():
        state = torch.load(ckpt_path, map_location=cfg.device, weights_only=False)
        if state["config"]["model"] != doc["model"]:
            raise InvalidInputError(f"{ckpt_path} was trained with another model config; use a new --out")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, seconds = int(state["step"]), float(state["seconds"])
        log.info("resuming from step %d", step)
    elif cfg.init_from:
        _warm_start(model, Path(cfg.init_from))
    report(step / cfg.steps, "loading data")
    points = load_points(data, "train")
    log.info("%d training shapes, model %.2f M parameters", len(points["surface_points"]),
             model.num_parameters() / 1e6)
    model.train()
    start = time.perf_counter() - seconds
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=cfg.device == "cuda")
    running: dict[str, float] = {}
    with log_path.open("a") as logf:
        while step < cfg.steps:
            if cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes:
                log.info("time budget of %.0f min reached at step %d", cfg.max_minutes, step)
                break
            batch = {k: v.to(cfg.device) for k, v in make_batch(points, step, cfg, cfg.model.num_points).items()}
            for g in opt.param_groups:
                g["lr"] = _lr(step, cfg)
            with autocast:
                terms = losses(model, batch)
            opt.zero_grad(set_to_none=True)
            terms["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            for k, v in terms.items():
                running[k] = running.get(k, 0.0) + float(v.detach())
            if step % cfg.log_every == 0 or step == cfg.steps:
                n = cfg.log_every if step % cfg.log_every == 0 else step % cfg.log_every
                rec = {"step": step, "lr": _lr(step - 1, cfg), "seconds": round(time.perf_counter() - start, 1),
                       **{k: round(v / n, 5) for k, v in running.items()}}
                logf.write(json.dumps(rec) + "\n")
                logf.flush()
                running.clear()
                report(step / cfg.steps, f"step {step} loss {rec['loss']:.3f} iou {rec['iou']:.3f}")
            if step % cfg.checkpoint_every == 0 or step == cfg.steps:
                _save_checkpoint(ckpt_path, model, opt, step, doc, time.perf_counter() - start)
    _save_checkpoint(ckpt_path, model, opt, step, doc, time.perf_counter() - start)
    model.eval()
    final = out / "model"
    model.save_pretrained(final, overwrite=True, extra_files={"training.json": json.dumps(
        {"steps": step, "seconds": round(time.perf_counter() - start, 1), "train_shapes":
         len(points["surface_points"]), "config": doc}, indent=2) + "\n"})
    report(1.0, f"saved {final}")
    return final
