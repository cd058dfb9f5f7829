"""The one training loop every model shares: AdamW with warm-up and cosine decay, gradient clipping, bf16
autocast on CUDA, a JSONL metric log, atomic checkpoints and resume, a wall-time budget, and the final
``save_pretrained`` folder.

A run folder holds ``checkpoint.pt`` (model, optimiser, step, config, seconds), ``log.jsonl`` and ``model/``.
Batches must depend only on (seed, step) so a resumed run sees the same data as an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from seed3d.asset import atomic_file
from seed3d.errors import InvalidInputError
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)


@dataclass
class TrainConfig:
    """Optimiser, schedule and bookkeeping settings shared by every ``seed3d train`` command."""

    steps: int = 2000
    """Optimiser steps."""
    batch: int = 8
    """Shapes per step."""
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
    prefetch: bool | None = None
    """Make the next step's batch in a background thread while this step runs (None: on cuda only, where the
    GPU would otherwise wait for the CPU). Batches depend only on the step, so training is the same either way."""


def learning_rate(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up to ``cfg.lr`` then cosine decay to 5 % of it at ``cfg.steps``."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    t = (step - cfg.warmup) / max(cfg.steps - cfg.warmup, 1)
    return cfg.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(t, 1.0))))


def check_device(device: str) -> None:
    """Refuse a device other than cpu or an available cuda."""
    if device not in ("cpu", "cuda") or (device == "cuda" and not torch.cuda.is_available()):
        raise InvalidInputError(f"device must be cpu or cuda (cuda available: {torch.cuda.is_available()}), "
                                f"got {device!r}")


def warm_start(model: nn.Module, state: dict[str, torch.Tensor], source: str) -> int:
    """Copy tensors of equal shape from ``state`` into ``model``; a 2-D weight that gained input columns keeps
    the old columns and starts the new ones at zero. Returns how many tensors were copied."""
    own = model.state_dict()
    copied = 0
    with torch.no_grad():
        for k, v in own.items():
            w = state.get(k)
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
    log.info("initialised %d of %d tensors from %s", copied, len(own), source)
    return copied


def _save_checkpoint(path: Path, model: nn.Module, opt: torch.optim.Optimizer, step: int, doc: dict[str, Any],
                     seconds: float) -> None:
    with atomic_file(path) as tmp:
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step, "config": doc,
                    "seconds": seconds}, tmp)


def train_loop(model: nn.Module, cfg: TrainConfig, out: PathType,
               make_batch: Callable[[int], dict[str, torch.Tensor]],
               loss_fn: Callable[[nn.Module, dict[str, torch.Tensor]], dict[str, torch.Tensor]],
               *, on_fresh_start: Callable[[], None] | None = None, info: dict[str, Any] | None = None,
               progress: ProgressCallback | None = None, show: tuple[str, ...] = ("loss",)) -> Path:
    """Train (or resume) ``model`` into the run folder ``out``; returns ``out/model``.

    ``make_batch(step)`` gives the step's tensors (on cpu; moved to the device here); ``loss_fn`` returns named
    scalars with the optimised sum under ``loss``. ``cfg`` is a dataclass (a ``TrainConfig`` with more fields):
    resuming with another ``model`` sub-config is refused. ``on_fresh_start`` runs only when no checkpoint
    exists (a warm start); ``info`` goes into ``model/training.json``; ``show`` names the metrics in progress
    messages."""
    check_device(cfg.device)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = progress or (lambda f, m: None)
    doc = asdict(cfg)  # type: ignore[call-overload]
    ckpt_path, log_path = out / "checkpoint.pt", out / "log.jsonl"
    model.to(cfg.device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    step, seconds = 0, 0.0
    if ckpt_path.is_file():
        state = torch.load(ckpt_path, map_location=cfg.device, weights_only=False)
        if state["config"].get("model") != doc.get("model"):
            raise InvalidInputError(f"{ckpt_path} was trained with another model config; use a new --out")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step, seconds = int(state["step"]), float(state["seconds"])
        log.info("resuming from step %d", step)
    elif on_fresh_start is not None:
        on_fresh_start()
    model.train()
    start = time.perf_counter() - seconds
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=cfg.device == "cuda")
    running: dict[str, float] = {}
    prefetch = cfg.device == "cuda" if cfg.prefetch is None else cfg.prefetch
    pool = ThreadPoolExecutor(1) if prefetch else None
    ahead: dict[int, Future[dict[str, torch.Tensor]]] = {}

    def next_batch(k: int) -> dict[str, torch.Tensor]:
        if pool is None:
            return make_batch(k)
        fut = ahead.pop(k, None) or pool.submit(make_batch, k)
        if k + 1 < cfg.steps:
            ahead[k + 1] = pool.submit(make_batch, k + 1)
        return fut.result()

    with log_path.open("a") as logf, pool or contextlib.nullcontext():
        while step < cfg.steps:
            if cfg.max_minutes is not None and time.perf_counter() - start > 60 * cfg.max_minutes:
                log.info("time budget of %.0f min reached at step %d", cfg.max_minutes, step)
                break
            batch = {k: v.to(cfg.device, non_blocking=True) for k, v in next_batch(step).items()}
            for g in opt.param_groups:
                g["lr"] = learning_rate(step, cfg)
            with autocast:
                terms = loss_fn(model, batch)
            opt.zero_grad(set_to_none=True)
            terms["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            for k, v in terms.items():
                running[k] = running.get(k, 0.0) + float(v.detach())
            if step % cfg.log_every == 0 or step == cfg.steps:
                n = cfg.log_every if step % cfg.log_every == 0 else step % cfg.log_every
                rec = {"step": step, "lr": learning_rate(step - 1, cfg),
                       "seconds": round(time.perf_counter() - start, 1),
                       **{k: round(v / n, 5) for k, v in running.items()}}
                logf.write(json.dumps(rec) + "\n")
                logf.flush()
                running.clear()
                report(step / cfg.steps, f"step {step} " + " ".join(f"{k} {rec[k]:.4f}" for k in show if k in rec))
            if step % cfg.checkpoint_every == 0 or step == cfg.steps:
                _save_checkpoint(ckpt_path, model, opt, step, doc, time.perf_counter() - start)
    _save_checkpoint(ckpt_path, model, opt, step, doc, time.perf_counter() - start)
    model.eval()
    final = out / "model"
    model.save_pretrained(final, overwrite=True, extra_files={"training.json": json.dumps(  # type: ignore[operator]
        {"steps": step, "seconds": round(time.perf_counter() - start, 1), **(info or {}), "config": doc},
        indent=2) + "\n"})
    report(1.0, f"saved {final}")
    return final
