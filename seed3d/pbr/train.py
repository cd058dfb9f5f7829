"""Training of the multi-view PBR generator and the material tagger on ``seed3d data build`` shards
(``seed3d train pbr``).

Each sample's six rig views (``pbr_*`` fields: true albedo, metallic, roughness, normal, canonical position) are
downsampled to the model's resolution and cached with reference images (the data set's conditioning renders,
recentred over the canonical background) and MiniLM states of two material texts: the full description and the
bare material words (``charcoal painted wood, polished nickel``, the form the tagger and users give). Each step
draws shapes, one text form, one reference view, and which condition each sample keeps (image only, text only,
both, or — for classifier-free guidance — neither), swaps the colour channels of some image-only samples in their
views and reference alike, noises the views along the rectified flow (mostly at noisy times: ``time_shift``) and
regresses the clean views (or the velocity) on the covered pixels, per stream. The MoE load-balancing loss is
added with ``moe_weight``.

The material tagger trains first, in its own short run (``OUT/tagger/``: it is small, and its own optimiser and
gradient clipping keep it apart from the generator's), on the finishes of the same reference images (made at its
own ``image_size`` when that differs from the generator's ``reference_resolution``: ``load_references``), flipped
at random. Both models are saved in ``OUT/model/generator`` and ``OUT/model/tagger``.

Resumable, logged and saved through ``seed3d.nn.trainer.train_loop``; batches depend only on (seed, step).
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from seed3d.asset import atomic_dir
from seed3d.condition.image import linear_to_srgb, srgb_to_linear
from seed3d.errors import InvalidInputError
from seed3d.nn.flow import FlowSampler, flow_loss, interpolate, sample_timesteps
from seed3d.nn.trainer import TrainConfig, check_device, train_loop, warm_start
from seed3d.pbr.data import asset_finishes, geometry_batch, load_references, load_views
from seed3d.pbr.model import PBRGenerator, PBRModelConfig
from seed3d.pbr.tagger import MaterialTagger, TaggerConfig
from seed3d.typed import PathType, ProgressCallback

log = logging.getLogger(__name__)


@dataclass
class PBRTrainConfig(TrainConfig):
    """Settings of a PBR generator (+ material tagger) training run (the defaults fit about an hour on 2 CPU
    cores)."""

    steps: int = 2000
    """Optimiser steps."""
    batch: int = 8
    """Shapes per step."""
    lr: float = 5e-4
    """Peak learning rate."""
    warmup: int = 50
    """Warm-up steps."""
    image_share: float = 0.3
    """Share of samples conditioned on the reference image only."""
    text_share: float = 0.3
    """Share conditioned on a material text only (the rest get both)."""
    words_share: float = 0.5
    """Share of text-conditioned samples given the bare material words instead of the full description."""
    kinds_share: float = 0.0
    """Share of the samples with both image and text whose text is only the kinds of their finishes (``painted
    wood, polished metal``, as ``MaterialTagger.predict_kinds`` names them): the colour must come from the image
    (they get the colour permutation too). 0 for the shipped model (weights/pbr/MODEL_CARD.md)."""
    drop_condition: float = 0.1
    """Share trained with the null condition (for classifier-free guidance)."""
    colour_swap: float = 0.5
    """Share of the image-only samples whose albedo views and reference image get one random permutation of the
    RGB channels (exact under the renders' white light): the image path learns to read the colours off the image,
    where it would otherwise recall each training shape's own colours."""
    mr_weight: float = 1.0
    """Weight of the metallic-roughness stream's velocity loss (the albedo stream's is 1)."""
    moe_weight: float = 0.01
    """Weight of the MoE load-balancing loss."""
    tagger_steps: int = 1500
    """Optimiser steps of the material tagger (trained first; 0: keep it as initialised or warm-started)."""
    tagger_batch: int = 32
    """Reference images per tagger step."""
    tagger_lr: float = 2e-3
    """Peak learning rate of the tagger."""
    tagger_shift: int = 3
    """The tagger's images are moved by up to this many pixels in x and y per step (edges repeated)."""
    tagger_exposure: float = 0.2
    """The object in a tagger image (not the white background) gets an exposure change of up to this many stops
    per step."""
    loss: str = "x0"
    """``x0``: squared error of the clean views the model implies, equally weighted at every time (learns the
    coarse colours fastest); ``velocity``: squared error of the velocity (for an x0-predicting model, the clean-view
    error weighted by 1 / t²)."""
    time_shift: float = 4.0
    """Timestep shift of the logit-normal training times (> 1: noisier). Noisy times are where the views must come
    from the condition: at shift 1 (median t 0.5) a run learned to denoise from the noisy input alone, and its
    clean-view guess at t = 1 was no better than the category mean after 1,200 steps."""
    init_from: str | None = None
    """Start a fresh run from a saved run's model folder (its generator/ and tagger/)."""
    model: PBRModelConfig = field(default_factory=PBRModelConfig)
    """Generator sizes."""
    tagger: TaggerConfig = field(default_factory=TaggerConfig)
    """Tagger sizes."""

    def __post_init__(self) -> None:
        for name in ("image_share", "text_share", "words_share", "kinds_share", "drop_condition", "colour_swap"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise InvalidInputError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if self.tagger_steps < 0 or self.tagger_batch < 1 or self.tagger_lr <= 0:
            raise InvalidInputError("tagger_steps must be >= 0, tagger_batch >= 1 and tagger_lr > 0")
        if self.tagger_shift < 0 or self.tagger_exposure < 0:
            raise InvalidInputError("tagger_shift and tagger_exposure must be >= 0")
        if self.loss not in ("velocity", "x0"):
            raise InvalidInputError(f"loss must be 'velocity' or 'x0', got {self.loss!r}")
        if self.image_share + self.text_share > 1.0:
            raise InvalidInputError("image_share + text_share must be <= 1 (the rest get both)")


@dataclass
class TaggerTrainConfig(TrainConfig):
    """Settings of the material tagger's run (made from a ``PBRTrainConfig`` by :func:`tagger_config`)."""

    model: TaggerConfig = field(default_factory=TaggerConfig)
    """Tagger sizes and vocabulary."""
    shift: int = 0
    """Images moved by up to this many pixels per step."""
    exposure: float = 0.0
    """Exposure change of the object, in stops, up to this much per step."""


def tagger_config(cfg: PBRTrainConfig) -> TaggerTrainConfig:
    """The tagger's run settings of a PBR run."""
    return TaggerTrainConfig(steps=cfg.tagger_steps, batch=cfg.tagger_batch, lr=cfg.tagger_lr,
                             warmup=min(100, max(cfg.tagger_steps // 10, 1)), weight_decay=cfg.weight_decay,
                             seed=cfg.seed, checkpoint_every=max(cfg.checkpoint_every, 1), log_every=cfg.log_every,
                             device=cfg.device, model=cfg.tagger, shift=cfg.tagger_shift,
                             exposure=cfg.tagger_exposure)


class PBRTrainModel(nn.Module):
    """The generator and the (already trained, frozen) material tagger, saved as ``generator/`` and ``tagger/``."""

    def __init__(self, generator: PBRGenerator, tagger: MaterialTagger) -> None:
        super().__init__()
        self.generator = generator
        self.tagger = tagger.requires_grad_(False).eval()

    def train(self, mode: bool = True) -> PBRTrainModel:
        """Train mode for the generator only (the tagger stays in eval mode)."""
        super().train(mode)
        self.tagger.eval()
        return self

    def save_pretrained(self, path: PathType, overwrite: bool = False, extra_files: dict[str, str] | None = None
                        ) -> Path:
        """Write ``generator/`` and ``tagger/`` model folders (and ``extra_files``) into ``path`` atomically."""
        with atomic_dir(path, overwrite=overwrite) as tmp:
            self.generator.save_pretrained(tmp / "generator")
            self.tagger.save_pretrained(tmp / "tagger")
            for name, text in (extra_files or {}).items():
                (tmp / name).write_text(text)
        return Path(path)


def tagger_targets(views: dict[str, np.ndarray], tagger: MaterialTagger) -> tuple[np.ndarray, np.ndarray]:
    """Multi-hot finish and kind targets of every cached sample (from its attributes)."""
    fin, kind = tagger.targets([asset_finishes(str(a)) for a in views["attributes"]])
    return fin.numpy().astype(bool), kind.numpy().astype(bool)


def make_batch(views: dict[str, np.ndarray], labels: tuple[np.ndarray, np.ndarray], step: int, cfg: PBRTrainConfig
               ) -> dict[str, torch.Tensor]:
    """The batch of ``step`` (depends only on seed and step): clean views, geometry, noise, times, text tokens of
    one form, a reference view and which condition each sample keeps."""
    rng = np.random.default_rng([cfg.seed, step])
    n = len(views["target"])
    idx = rng.choice(n, cfg.batch, replace=n < cfg.batch)
    words = rng.random(cfg.batch) < cfg.words_share
    text = np.where(words[:, None, None], views["mat_tokens"][idx], views["desc_tokens"][idx])
    text_mask = np.where(words[:, None], views["mat_mask"][idx], views["desc_mask"][idx])
    ref = views["reference"][idx, rng.integers(0, views["reference"].shape[1], cfg.batch)]
    mode = rng.random(cfg.batch)
    drop = rng.random(cfg.batch) < cfg.drop_condition
    gen = torch.Generator().manual_seed(int(rng.integers(1 << 62)))
    target = views["target"][idx].astype(np.float32)
    swap = (mode < cfg.image_share) & ~drop & (rng.random(cfg.batch) < cfg.colour_swap)
    if cfg.kinds_share > 0:  # drawn only when used, so runs without it keep their batches
        kinds = (mode >= cfg.image_share) & (mode < 1.0 - cfg.text_share) & (rng.random(cfg.batch) < cfg.kinds_share)
        text = np.where(kinds[:, None, None], views["kind_tokens"][idx], text)
        text_mask = np.where(kinds[:, None], views["kind_mask"][idx], text_mask)
        swap |= kinds & ~drop & (rng.random(cfg.batch) < cfg.colour_swap)
    perms = np.stack([rng.permutation(3) for _ in range(cfg.batch)])
    for i in np.flatnonzero(swap):
        target[i, :, :3] = target[i][:, perms[i]]
        ref[i] = ref[i][perms[i]]
    x0 = torch.from_numpy(target)
    return {"x0": x0, "noise": torch.randn(x0.shape, generator=gen),
            "t": sample_timesteps(cfg.batch, gen, shift=cfg.time_shift),
            "geometry": geometry_batch(views, idx), "mask": torch.from_numpy(views["mask"][idx]),
            "text": torch.from_numpy(text.astype(np.float32)), "text_mask": torch.from_numpy(text_mask),
            "image": torch.from_numpy(ref.astype(np.float32) / 255.0),
            "use_image": torch.from_numpy((mode < 1.0 - cfg.text_share) & ~drop),
            "use_text": torch.from_numpy((mode >= cfg.image_share) & ~drop)}


def make_tagger_batch(references: np.ndarray, labels: tuple[np.ndarray, np.ndarray], step: int,
                      cfg: TaggerTrainConfig) -> dict[str, torch.Tensor]:
    """The tagger's batch of ``step``: reference images (``references`` (N, Vc, 3, S, S) uint8: a random view of
    each shape, flipped left-right half the time, moved and re-exposed per ``cfg``) and their multi-hot finish and
    kind targets."""
    rng = np.random.default_rng([cfg.seed, step, 1])
    n = len(references)
    idx = rng.choice(n, cfg.batch, replace=n < cfg.batch)
    images = references[idx, rng.integers(0, references.shape[1], cfg.batch)]
    flip = rng.random(cfg.batch) < 0.5
    images = np.where(flip[:, None, None, None], images[..., ::-1], images).astype(np.float32) / 255.0
    if cfg.shift or cfg.exposure:
        images = augment_references(images, rng, cfg.shift, cfg.exposure)
    return {"image": torch.from_numpy(images),
            "finish": torch.from_numpy(labels[0][idx].astype(np.float32)),
            "kind": torch.from_numpy(labels[1][idx].astype(np.float32))}


def augment_references(images: np.ndarray, rng: np.random.Generator, shift: int, exposure: float) -> np.ndarray:
    """Reference images (B, 3, S, S) in [0, 1], each moved by up to ``shift`` pixels in x and y (edge pixels
    repeated) and its object -- every pixel that is not the white background -- re-exposed by up to ``exposure``
    stops (in linear light)."""
    b, _, s, _ = images.shape
    moves = rng.integers(-shift, shift + 1, (b, 2))
    stops = rng.uniform(-exposure, exposure, b)
    out = np.empty_like(images)
    for i in range(b):
        img = images[i]
        if shift:
            pad = np.pad(img, ((0, 0), (shift, shift), (shift, shift)), mode="edge")
            y, x = shift - moves[i, 0], shift - moves[i, 1]
            img = pad[:, y: y + s, x: x + s]
        if exposure:
            obj = (img < 1.0 - 1.5 / 255.0).any(0, keepdims=True)
            img = np.where(obj, linear_to_srgb(srgb_to_linear(img) * 2.0 ** stops[i]), img)
        out[i] = img
    return out


def tagger_losses(model: MaterialTagger, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The tagger's binary cross-entropy (``loss``) and its top-1 finish hit rate."""
    terms = model.loss(batch["image"], batch["finish"], batch["kind"])
    return {"loss": terms["tagger_loss"], "tagger_top1": terms["tagger_top1"]}


def losses(model: PBRTrainModel, batch: dict[str, torch.Tensor], cfg: PBRTrainConfig) -> dict[str, torch.Tensor]:
    """Per-stream masked flow losses, the MoE balance loss and their weighted sum; clean-view errors (MAE)."""
    gen = model.generator
    cond, cmask = gen.encode_condition(batch["text"], batch["text_mask"], batch["image"], batch["use_text"],
                                       batch["use_image"])
    x0, noise, t = batch["x0"], batch["noise"], batch["t"]
    out = gen.forward_with_aux(interpolate(x0, noise, t), t, cond, cmask, geometry=batch["geometry"])
    m = batch["mask"][:, :, None]
    if cfg.loss == "x0":  # flow_loss(pred, x0, noise) is the error of pred against noise - x0: pass -x0 hat, 0
        pred, zero = -out.x0.float(), torch.zeros_like(noise)
        albedo = flow_loss(pred[:, :, :3], x0[:, :, :3], zero[:, :, :3], m.expand(-1, -1, 3, -1, -1))
        mr = flow_loss(pred[:, :, 3:], x0[:, :, 3:], zero[:, :, 3:], m.expand(-1, -1, 2, -1, -1))
    else:
        pred = out.velocity.float()
        albedo = flow_loss(pred[:, :, :3], x0[:, :, :3], noise[:, :, :3], m.expand(-1, -1, 3, -1, -1))
        mr = flow_loss(pred[:, :, 3:], x0[:, :, 3:], noise[:, :, 3:], m.expand(-1, -1, 2, -1, -1))
    total = albedo + cfg.mr_weight * mr + cfg.moe_weight * out.aux_loss
    with torch.no_grad():  # error of the clean views the step implies, on the [0, 1] scale (MAE)
        err = (out.x0.float() - x0).abs() / 2.0
        cover = m.float()
        denom = cover.sum().clamp_min(1.0)
        albedo_mae = (err[:, :, :3] * cover).sum() / (3 * denom)
        metallic_mae, roughness_mae = (err[:, :, 3:4] * cover).sum() / denom, (err[:, :, 4:5] * cover).sum() / denom
    return {"loss": total, "albedo": albedo, "mr": mr, "moe_balance": out.aux_loss.detach(),
            "x0_albedo_mae": albedo_mae, "x0_metallic_mae": metallic_mae, "x0_roughness_mae": roughness_mae}


def train_pbr(data: PathType, out: PathType, config: PBRTrainConfig | None = None,
              progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) the material tagger, then the PBR generator, on ``data``'s train split; returns the
    folder with ``generator/`` and ``tagger/``."""
    cfg = config or PBRTrainConfig()
    check_device(cfg.device)
    out = Path(out)
    views = load_views(data, "train", cfg.model.resolution, cfg.model.reference_resolution, out, progress=progress)
    if views["target"].shape[1] != cfg.model.num_views:
        raise InvalidInputError(f"the data set has {views['target'].shape[1]} rig views, the model "
                                f"{cfg.model.num_views}")
    torch.manual_seed(cfg.seed)
    tagger = MaterialTagger(cfg.tagger)
    labels = tagger_targets(views, tagger)
    source = Path(cfg.init_from) if cfg.init_from else None

    def init_tagger() -> None:
        if source is not None and (source / "tagger").is_dir():
            warm_start(tagger, MaterialTagger.from_pretrained(source / "tagger").state_dict(), str(source))

    tcfg = tagger_config(cfg)
    if cfg.tagger_steps:
        size = cfg.tagger.image_size
        refs = views["reference"] if size == cfg.model.reference_resolution else \
            load_references(data, "train", size, out, progress=progress)
        train_loop(tagger, tcfg, out / "tagger", lambda step: make_tagger_batch(refs, labels, step, tcfg),
                   tagger_losses, on_fresh_start=init_tagger,  # type: ignore[arg-type]
                   info={"train_shapes": len(views["target"])}, progress=progress, show=("loss", "tagger_top1"))
    else:
        init_tagger()
    torch.manual_seed(cfg.seed)
    model = PBRTrainModel(PBRGenerator(cfg.model), tagger.cpu())

    def init() -> None:
        if source is not None:
            warm_start(model.generator, PBRGenerator.from_pretrained(source / "generator").state_dict(), str(source))

    counts = model.generator.parameter_counts()
    log.info("%d training shapes; generator %.2f M parameters (%.2f M active per token), tagger %.2f M",
             len(views["target"]), counts["total"] / 1e6, counts["active"] / 1e6,
             sum(p.numel() for p in model.tagger.parameters()) / 1e6)
    return train_loop(model, cfg, out, lambda step: make_batch(views, labels, step, cfg),
                      lambda m, b: losses(m, b, cfg),  # type: ignore[arg-type]
                      on_fresh_start=init, info={"train_shapes": len(views["target"]), "parameters": counts},
                      progress=progress, show=("albedo", "x0_albedo_mae", "x0_roughness_mae"))


# ---------------------------------------------------------------------------------------------- checks


def psnr(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> float:
    """PSNR (dB) of values in [0, 1] over the ``mask``ed pixels (a, b: (..., H, W, C) or (..., H, W))."""
    m = mask.astype(bool)
    err = (a[m] - b[m]) ** 2
    mse = float(err.mean()) if err.size else 0.0
    return float("inf") if mse == 0 else -10.0 * math.log10(mse)


@torch.no_grad()
def sample_views(model: PBRGenerator, views: dict[str, np.ndarray], indices: np.ndarray, steps: int = 20,
                 guidance: float = 2.0, condition: str = "both", seed: int = 0, batch: int = 8) -> np.ndarray:
    """Generated views (N, V, 5, r, r) in [0, 1] of cached samples ``indices`` (albedo sRGB, metallic,
    roughness; 0 off the mesh). ``condition``: ``both`` (reference view 0 and the material words), ``image``,
    ``text`` or ``none``. Deterministic per ``seed``."""
    if condition not in ("both", "image", "text", "none"):
        raise InvalidInputError(f"condition must be both, image, text or none, got {condition!r}")
    device = next(model.parameters()).device
    out = []
    for s in range(0, len(indices), batch):
        idx = np.asarray(indices[s: s + batch])
        b = len(idx)
        geo = geometry_batch(views, idx).to(device)
        text = torch.from_numpy(views["mat_tokens"][idx].astype(np.float32)).to(device)
        tmask = torch.from_numpy(views["mat_mask"][idx]).to(device)
        image = torch.from_numpy(views["reference"][idx, 0].astype(np.float32) / 255.0).to(device)
        if condition == "none":
            cond, cmask = model.null_condition(b)
        else:
            cond, cmask = model.encode_condition(text if condition in ("both", "text") else None,
                                                 tmask if condition in ("both", "text") else None,
                                                 image if condition in ("both", "image") else None)
        gen = torch.Generator().manual_seed(seed * 1_000_003 + s)
        noise = torch.randn(model.sample_shape(b), generator=gen).to(device)
        x = model.sample(geo, cond, cmask, sampler=FlowSampler(steps, guidance_scale=guidance), noise=noise)
        out.append(((x.float().cpu().numpy() + 1.0) / 2.0).clip(0, 1))
    return np.concatenate(out) if out else np.zeros((0, *model.sample_shape(1)[1:]), np.float32)


def category_means(train: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per category: the mean albedo (sRGB) / metallic / roughness (5,) over the covered pixels of cached views."""
    means: dict[str, np.ndarray] = {}
    for cat in np.unique(train["category"]):
        sel = train["category"] == cat
        t = (train["target"][sel].astype(np.float32) + 1.0) / 2.0
        m = train["mask"][sel].astype(bool)
        means[str(cat)] = np.array([t[:, :, c][m].mean() for c in range(5)], np.float32)
    return means


def mean_views(means: dict[str, np.ndarray], views: dict[str, np.ndarray], indices: np.ndarray) -> np.ndarray:
    """Views (N, V, 5, r, r) that paint every covered pixel with its category's mean material (0.5 for an
    unknown category): the floor any conditioned model must beat."""
    idx = np.asarray(indices)
    mu = np.stack([means.get(str(c), np.full(5, 0.5, np.float32)) for c in views["category"][idx]])
    m = views["mask"][idx].astype(np.float32)[:, :, None]
    return (mu[:, None, :, None, None] * m).astype(np.float32)


def score_views(pred: np.ndarray, views: dict[str, np.ndarray], indices: np.ndarray) -> dict[str, float]:
    """Albedo PSNR (dB, sRGB) and metallic / roughness MAE of views ``pred`` (N, V, 5, r, r) in [0, 1] against
    the truth of cached samples ``indices``, over covered pixels."""
    idx = np.asarray(indices)
    true = (views["target"][idx].astype(np.float32) + 1.0) / 2.0
    m = views["mask"][idx].astype(bool)
    count = max(int(m.sum()), 1)
    mse = float(((pred[:, :, :3] - true[:, :, :3]) ** 2)[m[:, :, None].repeat(3, 2)].sum()) / (3 * count)
    return {"albedo_psnr": -10.0 * math.log10(max(mse, 1e-12)),
            "metallic_mae": float(np.abs(pred[:, :, 3] - true[:, :, 3])[m].sum()) / count,
            "roughness_mae": float(np.abs(pred[:, :, 4] - true[:, :, 4])[m].sum()) / count, "pixels": float(count)}


def view_metrics(model: PBRGenerator, views: dict[str, np.ndarray], indices: np.ndarray, steps: int = 20,
                 guidance: float = 2.0, condition: str = "both", seed: int = 0, batch: int = 8
                 ) -> dict[str, float]:
    """:func:`score_views` of :func:`sample_views` (sample, then compare with the truth)."""
    pred = sample_views(model, views, indices, steps, guidance, condition, seed, batch)
    return score_views(pred, views, indices)


def mean_baseline(views: dict[str, np.ndarray], train: dict[str, np.ndarray], indices: np.ndarray
                  ) -> dict[str, float]:
    """:func:`score_views` of the train split's per-category mean material."""
    return score_views(mean_views(category_means(train), views, indices), views, indices)


def read_log(run: PathType) -> list[dict[str, float]]:
    """The JSONL metric records of a run folder."""
    path = Path(run) / "log.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
