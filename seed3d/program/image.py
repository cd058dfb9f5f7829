"""Image → program: a CNN trained on the engine's own renders predicts an object's category, its movable-part
counts (doors, drawers, lids) and its proportions, enough to write a ``Program`` the engine builds.

``predict_program(image, model)`` preprocesses the image as every image input is (``seed3d.condition.image.
preprocess_image``: alpha or plain background removed, object recentered to fill 0.85 of 128 px, composited
over white), runs ``ProgramNet`` and returns a ``Program`` (``source="image"``): the top category, its count
parameters (clamped to the category's ranges, with the flags that go with them), size targets for the width and
depth relative to the category's drawn height, ``confidence`` = the top category's softmax probability, and the
top-3 categories in ``notes``. When the object was masked, the network's candidates are then fitted to the image by
render-and-compare (``seed3d.program.fit``): the best candidate's counts, style, proportions (size targets) and its
finishes read part by part, with the fit in ``Program.fit``.

Training (``train_program_image``) reads the views cached by ``seed3d.program.image_data`` and augments them for
photographs (``PhotoAugmenter``): exposure, gamma, saturation and hue; crop jitter, partial crops and rotation;
plain, gradient, noise, textured and cluttered backgrounds (other objects behind) or a room (wall, floor in
perspective, contact shadow); an illustration's look (posterised, outlined); occluders; blur; sensor noise; JPEG
re-encoding. Every draw depends only on (seed, step), so a resumed run sees the same batches.
"""

from __future__ import annotations

import io
import logging
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn.pretrained import PretrainedMixin
from seed3d.nn.trainer import TrainConfig
from seed3d.program.text import Program
from seed3d.typed import PathType, ProgressCallback

if TYPE_CHECKING:
    from seed3d.program.fit import FitConfig

log = logging.getLogger(__name__)

#: Side of the preprocessed input image (``preprocess_image(size=INPUT_SIZE)``), at training and inference.
INPUT_SIZE = 128
#: Count heads, in output order.
COUNT_HEADS: tuple[str, ...] = ("doors", "drawers", "lids")
#: Average every prediction with the mirror image's (test-time augmentation; measured in the model card).
FLIP_TTA = True


def _all_categories() -> tuple[str, ...]:
    from seed3d import synth

    return tuple(synth.CATEGORIES)


@dataclass
class ProgramNetConfig:
    """Sizes of the image → program network (a residual CNN encoder, a spatial head and one output per label)."""

    categories: tuple[str, ...] = field(default_factory=_all_categories)
    """Category names, in logit order (every synth category; ``freeform`` is the catch-all for objects that
    are none of the others)."""
    image_size: int = 96
    """Side the 128 px preprocessed input is resized to (antialiased) before the encoder."""
    channels: tuple[int, ...] = (24, 48, 96, 160)
    """Channels of the encoder's stride-2 stages (``seed3d.condition.encoder.ImageEncoder``, backbone cnn)."""
    map_channels: int = 32
    """Channels of the token map kept at full spatial layout for the head (counts need where things are)."""
    hidden: int = 256
    """Width of the head's hidden layer."""
    dropout: float = 0.1
    """Dropout before the outputs (training only)."""
    max_counts: tuple[int, ...] = (8, 16, 3)
    """Largest count each of ``COUNT_HEADS`` classifies (classes 0..K; larger truths are clamped to K)."""

    def __post_init__(self) -> None:
        self.categories = tuple(str(c) for c in self.categories)
        self.channels = tuple(int(c) for c in self.channels)
        self.max_counts = tuple(int(k) for k in self.max_counts)
        if len(self.categories) < 2 or len(set(self.categories)) != len(self.categories):
            raise InvalidInputError(f"ProgramNetConfig.categories must be at least 2 distinct names, "
                                    f"got {self.categories}")
        if len(self.max_counts) != len(COUNT_HEADS) or min(self.max_counts) < 1:
            raise InvalidInputError(f"ProgramNetConfig.max_counts must be {len(COUNT_HEADS)} positive integers "
                                    f"({', '.join(COUNT_HEADS)}), got {self.max_counts}")
        for name in ("image_size", "map_channels", "hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"ProgramNetConfig.{name} must be a positive integer, got {value!r}")
        if not 0.0 <= self.dropout < 1.0:
            raise InvalidInputError(f"ProgramNetConfig.dropout must lie in [0, 1), got {self.dropout}")


class ProgramNet(nn.Module, PretrainedMixin):
    """Images (B, 3, H, W) in [0, 1] (preprocessed) → logits of category and counts, and log proportions."""

    config_class = ProgramNetConfig
    model_type = "seed3d-program-image"

    def __init__(self, config: ProgramNetConfig | None = None) -> None:
        super().__init__()
        from seed3d.condition.encoder import ImageEncoder, ImageEncoderConfig

        self.config = cfg = config or ProgramNetConfig()
        self.encoder = ImageEncoder(ImageEncoderConfig(backbone="cnn", image_size=cfg.image_size,
                                                       channels=cfg.channels, out_dim=cfg.channels[-1]))
        grid = cfg.image_size // self.encoder.stride
        self.reduce = nn.Linear(cfg.channels[-1], cfg.map_channels)
        self.trunk = nn.Sequential(nn.Linear(cfg.map_channels * grid * grid + cfg.channels[-1], cfg.hidden),
                                   nn.GELU(), nn.Dropout(cfg.dropout))
        self.category = nn.Linear(cfg.hidden, len(cfg.categories))
        self.counts = nn.ModuleList([nn.Linear(cfg.hidden, k + 1) for k in cfg.max_counts])
        self.proportions = nn.Linear(cfg.hidden, 2)

    def forward(self, images: torch.Tensor) -> dict[str, torch.Tensor]:
        """``images`` (B, 3, H, W) in [0, 1] → {category (B, C), doors / drawers / lids (B, K + 1) logits,
        proportions (B, 2): log(width / height), log(depth / height)}."""
        if not isinstance(images, torch.Tensor) or images.ndim != 4 or images.shape[1] != 3:
            shape = tuple(images.shape) if isinstance(images, torch.Tensor) else type(images).__name__
            raise InvalidInputError(f"images must be a (B, 3, H, W) tensor in [0, 1], got {shape}")
        size = self.config.image_size
        if images.shape[2:] != (size, size):
            images = F.interpolate(images, size=(size, size), mode="bilinear", antialias=True, align_corners=False)
        tokens = self.encoder(images).tokens
        pooled, grid = tokens[:, 0], tokens[:, 1:]
        h = self.trunk(torch.cat([self.reduce(grid).flatten(1), pooled], dim=1))
        out = {"category": self.category(h), "proportions": self.proportions(h)}
        for name, head in zip(COUNT_HEADS, self.counts, strict=True):
            out[name] = head(h)
        return out


# ------------------------------------------------------------------------------------------------ inference


@dataclass
class ImagePrediction:
    """What the network reads off one image: category probabilities, counts and proportions."""

    categories: list[tuple[str, float]]
    """Every category with its probability, most likely first."""
    counts: dict[str, int]
    """Most likely doors, drawers and lids."""
    count_confidence: dict[str, float]
    """Probability of each predicted count."""
    proportions: dict[str, float]
    """width / height and depth / height."""
    count_probabilities: dict[str, list[float]] = field(default_factory=dict)
    """Every class's probability, per count head (index = count)."""


@torch.no_grad()
def _probabilities(model: ProgramNet, images: torch.Tensor, flip: bool) -> dict[str, np.ndarray]:
    """Per-image softmax probabilities of every head and the log proportions, averaged with the mirror image's
    when ``flip`` (category, counts and proportions do not change in a mirror)."""
    model.eval()
    device = next(model.parameters()).device
    views = [images.to(device)] + ([images.to(device).flip(-1)] if flip else [])
    outs = [model(v) for v in views]
    probs = {k: torch.stack([o[k].float().softmax(-1) for o in outs]).mean(0).cpu().numpy()
             for k in ("category", *COUNT_HEADS)}
    probs["log_proportions"] = torch.stack([o["proportions"].float() for o in outs]).mean(0).cpu().numpy()
    return probs


def _prediction(model: ProgramNet, probs: dict[str, np.ndarray], i: int) -> ImagePrediction:
    cat = probs["category"][i]
    order = np.argsort(-cat, kind="stable")
    props = np.exp(probs["log_proportions"][i])
    return ImagePrediction(
        [(model.config.categories[j], float(cat[j])) for j in order],
        {k: int(probs[k][i].argmax()) for k in COUNT_HEADS},
        {k: float(probs[k][i].max()) for k in COUNT_HEADS},
        {"width/height": float(props[0]), "depth/height": float(props[1])},
        {k: [float(v) for v in probs[k][i]] for k in COUNT_HEADS})


def predict_batch(model: ProgramNet, images: torch.Tensor, flip: bool = FLIP_TTA) -> list[ImagePrediction]:
    """Predictions for preprocessed images (B, 3, S, S) in [0, 1], one per image (``flip``: see ``FLIP_TTA``)."""
    probs = _probabilities(model, images, flip)
    return [_prediction(model, probs, i) for i in range(probs["category"].shape[0])]


def network_views(pre: Any) -> torch.Tensor:
    """What the network reads of one ``Preprocessed`` image: the object as found, and for a GrabCut cut-out the
    whole frame too (``Preprocessed.frame``), (V, 3, S, S)."""
    from seed3d.condition.image import to_tensor

    views = to_tensor(pre)
    if getattr(pre, "frame", None) is not None:
        frame = torch.from_numpy(np.asarray(pre.frame, np.float32)).permute(2, 0, 1)[None]
        views = torch.cat([views, frame])
    return views


def predict_views(model: ProgramNet, views: torch.Tensor, flip: bool = FLIP_TTA) -> ImagePrediction:
    """One prediction from several views of one object (``network_views``): probabilities averaged."""
    probs = _probabilities(model, views, flip)
    return _prediction(model, {k: v.mean(0, keepdims=True) for k, v in probs.items()}, 0)


def _range(param: Any) -> tuple[int, int]:
    lo, hi = param.bounds
    return int(lo), int(hi)


def count_params(category: str, counts: dict[str, int]) -> tuple[dict[str, Any], list[str]]:
    """The category's parameters for predicted ``counts`` (clamped to its ranges, flags set to match), and
    notes on what did not fit."""
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    params: dict[str, Any] = {}
    notes: list[str] = []
    doors, drawers, lids = counts.get("doors", 0), counts.get("drawers", 0), counts.get("lids", 0)
    if category == "nightstand":
        if doors > 0:
            params["layout"] = "drawer_over_door"
        else:
            params["layout"] = "drawers" if drawers != 1 else "drawer_over_shelf"
            if drawers != 1:
                lo, hi = _range(cat.params["drawers"])
                params["drawers"] = min(max(drawers, lo), hi)
                if params["drawers"] != drawers:
                    notes.append(f"{drawers} drawers seen; a nightstand has {lo}..{hi}: built {params['drawers']}")
        return params, notes
    for name, value, flag in (("doors", doors, "has_doors"), ("drawers", drawers, "has_drawers")):
        prm = cat.params.get(name)
        if prm is None:
            if value > 0:
                notes.append(f"{value} {name} seen; a {category} has no {name} parameter (the engine's own kept)")
            continue
        lo, hi = _range(prm)
        if not lo <= value <= hi:
            notes.append(f"{value} {name} seen; a {category} has {lo}..{hi}: built {min(max(value, lo), hi)}")
        params[name] = min(max(value, lo), hi)
        for f in (flag, flag.rstrip("s")):
            if f in cat.params:
                params[f] = params[name] > 0
    if category == "trash_can":
        params["lid"] = "none" if lids == 0 else "flip"
    return params, notes


def _size_targets(category: str, params: dict[str, Any], proportions: dict[str, float], seed: int
                  ) -> dict[str, float]:
    """Width and depth targets (meters) that give the predicted proportions at the category's drawn height."""
    from seed3d import synth

    cat = synth.CATEGORIES[category]
    if "width" not in cat.params or "height" not in cat.params:
        return {}
    asset = synth.generate(category, seed, dict(params))
    height = float(asset.metadata["attributes"]["size_m"]["height"])
    out = {"width": height * proportions["width/height"]}
    if "depth" in cat.params:
        out["depth"] = height * proportions["depth/height"]
    return {k: round(v, 4) for k, v in out.items()}


def load_program_net(model: ProgramNet | PathType, device: str = "cpu") -> ProgramNet:
    """``model`` itself, or the ProgramNet saved in that folder."""
    if isinstance(model, ProgramNet):
        return model
    return ProgramNet.from_pretrained(model, device=device)


def body_finish_from_image(category: str, pre: Any) -> tuple[str, str] | None:
    """(``kind:colour``, the colour as #rrggbb) of the category's body finish nearest to the masked object's median
    colour (``seed3d.program.fit.nearest_finish``); None without such a finish or
    enough object pixels. The median of the lit pixels: the object's main colour, somewhat darker than its albedo."""
    from seed3d.program.fit import nearest_finish
    from seed3d.synth import CATEGORIES

    prm = CATEGORIES[category].params.get("body_finish")
    inside = np.asarray(pre.alpha) > 0.9
    if prm is None or not prm.is_finish or inside.sum() < 16:
        return None
    colour = np.median(np.asarray(pre.rgb)[inside], axis=0)
    hexed = "#" + "".join(f"{round(float(c) * 255):02x}" for c in np.clip(colour, 0, 1))
    return nearest_finish(category, "body_finish", colour), hexed


def predict_program(image: Any, model: ProgramNet | PathType, seed: int = 0, top_k: int = 3,
                    fit_proportions: bool = True, fit: bool | FitConfig = True, renderer: Any = None
                    ) -> Program:
    """The program an image shows: ``image`` is a path, bytes, PIL image, array or a ``Preprocessed``;
    ``model`` a ProgramNet or its folder (``weights/program-image``).

    When the object was masked and ``fit`` is true (or a ``seed3d.program.fit.FitConfig``), the network's top
    candidates are fitted to the image by render-and-compare (``fit_program``, built with ``seed``: the seed the
    program is built with) and the best is returned with its finishes read part by part (``Program.fit`` records
    the fit); otherwise the network's top category and counts, with the body finish read off the whole object.
    """
    from seed3d.condition.image import Preprocessed, preprocess_image

    net = load_program_net(model)
    pre = image if isinstance(image, Preprocessed) else preprocess_image(image, size=INPUT_SIZE)
    pred = predict_views(net, network_views(pre))
    top = ", ".join(f"{c} {p:.2f}" for c, p in pred.categories[:top_k])
    notes = [f"top categories: {top}",
             "counts seen: " + ", ".join(f"{k} {v} ({pred.count_confidence[k]:.2f})" for k, v in pred.counts.items()),
             "proportions seen: " + ", ".join(f"{k} {v:.2f}" for k, v in pred.proportions.items())]
    if pre.method == "none":
        notes.append("no object mask found (the border is not one colour): the whole image was read")
    result = None
    if fit and pre.method != "none":
        from seed3d.program.fit import FitConfig, fit_program, read_part_finishes

        cfg = fit if isinstance(fit, FitConfig) else FitConfig()
        try:
            result = fit_program(pre, pred, seed=seed, config=cfg, renderer=renderer)
        except InvalidInputError as exc:
            notes.append(f"render-and-compare fit failed ({exc}): the network's reading kept")
    if result is not None:
        category = result.candidate.category
        confidence = dict(pred.categories)[category]
        _, count_notes = count_params(category, result.candidate.counts)
        params = dict(result.params)
        notes += count_notes
        if result.style:
            notes.append(f"style: the {category} as seed {seed + result.style} draws it fits best; its structure "
                         "is given as parameters")
        others = sorted(result.tried, key=lambda t: -t.get("total", -1e9))
        notes.append(f"render-and-compare: {category} {result.candidate.counts} fits with silhouette IoU "
                     f"{result.iou:.3f} ({len(others)} candidates, {result.evaluations} renders, "
                     f"{result.seconds:.1f} s; next: " + ", ".join(
                         f"{t['category']} {t.get('counts')} IoU {t.get('iou', 0):.3f}" for t in others[1:3]) + ")")
        finishes, finish_notes = read_part_finishes(pre, result, seed=seed, config=cfg, renderer=renderer)
        result.finishes = finishes
        params.update(finishes)
        notes += finish_notes
        size = dict(result.size) if fit_proportions else {}
    else:
        category, confidence = pred.categories[0]
        params, count_notes = count_params(category, pred.counts)
        notes += count_notes
        size = _size_targets(category, params, pred.proportions, seed) if fit_proportions else {}
    if pre.method != "none" and "body_finish" not in params and not (result is not None and result.finishes):
        finish = body_finish_from_image(category, pre)
        if finish is not None:
            params["body_finish"] = finish[0]
            notes.append(f"body finish read off the image: {finish[0]} (median object colour {finish[1]})")
    return Program(category, params, confidence, source="image", how="image", size=size,
                   masked=pre.method != "none", placed=[f"{k}={v}" for k, v in params.items()], notes=notes,
                   fit=result.to_dict() if result is not None else None)


# --------------------------------------------------------------------------------------------- augmentation


@dataclass
class PhotoConfig:
    """Probabilities and ranges of the photo augmentations on top of ``seed3d.condition.augment``'s."""

    p_wild: float = 0.3
    """Share of images framed as a photo would be: looser, shifted, partly cropped, tilted."""
    p_plain: float = 0.35
    """Share of images over the inference background (white), as ``preprocess_image`` composites."""
    p_clutter: float = 0.35
    """Share of the other images with other objects behind (the rest get uniform, gradient, noise or texture)."""
    p_occlude: float = 0.15
    """Probability of an occluding rectangle in front."""
    p_blur: float = 0.3
    """Probability of a Gaussian blur (sigma 0.3..1.5 px at 128 px)."""
    p_noise: float = 0.3
    """Probability of sensor noise (sigma up to 0.03)."""
    p_jpeg: float = 0.4
    """Probability of JPEG re-encoding (quality 25..90)."""
    p_room: float = 0.0
    """Share of the images not over white set in a room instead: a wall pattern above a floor (planks, tiles or
    plain, in perspective) whose far edge runs behind the object's foot, a skirting board, a contact shadow."""
    p_drawn: float = 0.0
    """Probability of an illustration's look: the object's colours posterised, dark outlines round it and along
    its strong inner edges."""


class PhotoAugmenter:
    """Turns cached renders into photograph-like 128 px inputs: ``ViewAugmenter`` (colour, crop) then
    backgrounds, occluders, blur, noise and JPEG; deterministic given the generator's seed."""

    def __init__(self, config: PhotoConfig | None = None, size: int = INPUT_SIZE) -> None:
        from seed3d.condition.augment import AugmentConfig, ViewAugmenter

        self.config = config or PhotoConfig()
        self.size = size
        black = (0.0, 0.0, 0.0)
        self.tight = ViewAugmenter(AugmentConfig(size=size, canonical_background=black, p_canonical=1.0,
                                                 exposure=0.6, gamma=0.25, saturation=0.35, hue=0.05,
                                                 crop_scale=0.1, crop_shift=0.04, rotation=3.0, supersample=1))
        self.wild = ViewAugmenter(AugmentConfig(size=size, canonical_background=black, p_canonical=1.0,
                                                exposure=0.8, gamma=0.3, saturation=0.45, hue=0.06,
                                                crop_scale=0.4, crop_shift=0.12, rotation=10.0, supersample=1))

    def __call__(self, rgb: np.ndarray, alpha: np.ndarray, seed: int) -> torch.Tensor:
        """``rgb`` (B, H, W, 3) uint8 over black, ``alpha`` (B, H, W) uint8 → (B, 3, S, S) in [0, 1]."""
        from seed3d.condition.augment import linear_to_srgb, srgb_to_linear

        cfg, n, s = self.config, rgb.shape[0], self.size
        gen = torch.Generator().manual_seed(int(seed))
        rng = np.random.default_rng(int(seed))
        black = np.zeros_like(rgb)
        wild = rng.uniform(size=n) < cfg.p_wild
        col = torch.zeros(n, 3, s, s)
        a = torch.zeros(n, 1, s, s)
        for mask, aug in ((~wild, self.tight), (wild, self.wild)):
            if mask.any():
                out = aug(rgb[mask], alpha[mask], black[mask], generator=gen)
                col[torch.from_numpy(mask)] = srgb_to_linear(out.rgb)  # over black: premultiplied linear colour
                a[torch.from_numpy(mask)] = out.alpha
        bg = self._backgrounds(col, a, rng)
        lin = col + srgb_to_linear(bg) * (1 - a)
        img = linear_to_srgb(lin.clamp(0, 1))
        img = self._drawn(img, a, rng)
        img = self._occlude(img, rng)
        img = self._blur(img, rng)
        noisy = torch.from_numpy(rng.uniform(size=n) < cfg.p_noise)
        sigma = torch.from_numpy(rng.uniform(0, 0.03, n)).float()
        noise = torch.randn(img.shape, generator=gen) * (sigma * noisy)[:, None, None, None]
        img = (img + noise).clamp(0, 1)
        return self._jpeg(img, rng)

    def _backgrounds(self, col: torch.Tensor, a: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
        from seed3d.condition.augment import linear_to_srgb, srgb_to_linear

        cfg, n, s = self.config, col.shape[0], self.size
        out = torch.ones(n, 3, s, s)
        yy, xx = torch.meshgrid(torch.linspace(0, 1, s), torch.linspace(0, 1, s), indexing="ij")
        for i in range(n):
            u = rng.uniform()
            if u < cfg.p_plain:
                continue
            if cfg.p_room > 0 and rng.uniform() < cfg.p_room:
                out[i] = self._room(a[i, 0], rng, yy, xx)
                continue
            kind = rng.integers(5) if rng.uniform() >= cfg.p_clutter else 5
            c0, c1 = (torch.from_numpy(rng.uniform(0, 1, 3)).float() for _ in range(2))
            if kind < 5:
                out[i] = self._pattern(int(kind), c0, c1, rng, yy, xx)
                continue
            # clutter: other objects of the batch, moved and scaled, over a gradient
            t = yy.clamp(0, 1)
            bg = c0[:, None, None] + t[None] * (c1 - c0)[:, None, None]
            lin = srgb_to_linear(bg)
            for _ in range(int(rng.integers(1, 4))):
                j = int(rng.integers(n))
                scale = rng.uniform(0.6, 1.3)
                dx, dy = rng.uniform(-0.9, 0.9, 2)
                theta = torch.tensor([[[1 / scale, 0, dx], [0, 1 / scale, dy]]], dtype=torch.float32)
                grid = F.affine_grid(theta, [1, 4, s, s], align_corners=False)
                moved = F.grid_sample(torch.cat([col[j:j + 1], a[j:j + 1]], 1), grid, align_corners=False)[0]
                lin = moved[:3] + lin * (1 - moved[3:])
            bg = linear_to_srgb(lin)
            out[i] = bg
        return out

    def _pattern(self, kind: int, c0: torch.Tensor, c1: torch.Tensor, rng: np.random.Generator, yy: torch.Tensor,
                 xx: torch.Tensor) -> torch.Tensor:
        """Background ``kind`` 0..4 (uniform, gradient, smooth noise, stripes or checks, fine texture): (3, S, S)."""
        s = self.size
        if kind == 0:
            bg = c0[:, None, None].expand(3, s, s)
        elif kind == 1:
            ang = rng.uniform(0, 2 * math.pi)
            t = (math.cos(ang) * (xx - 0.5) + math.sin(ang) * (yy - 0.5) + 0.5).clamp(0, 1)
            bg = c0[:, None, None] + t[None] * (c1 - c0)[:, None, None]
        elif kind == 2:
            g = int(rng.integers(3, 9))
            grid = torch.from_numpy(rng.uniform(0, 1, (1, 3, g, g))).float()
            bg = F.interpolate(grid, size=(s, s), mode="bicubic", align_corners=True)[0].clamp(0, 1)
        elif kind == 3:  # stripes or checks (tiles, planks, fabric)
            period = rng.uniform(6, 40)
            ang = rng.uniform(0, math.pi)
            u1 = (math.cos(ang) * xx + math.sin(ang) * yy) * s / period
            pattern = (u1.floor() % 2) if rng.uniform() < 0.5 else \
                ((u1.floor() + ((-math.sin(ang) * xx + math.cos(ang) * yy) * s / period).floor()) % 2)
            bg = c0[:, None, None] + pattern[None] * (c1 - c0)[:, None, None]
        else:  # 4: fine noise texture (concrete, carpet)
            fine = torch.from_numpy(rng.uniform(-0.15, 0.15, (1, 1, s // 2, s // 2))).float()
            fine = F.interpolate(fine, size=(s, s), mode="bilinear", align_corners=False)[0]
            bg = (c0[:, None, None] + fine).clamp(0, 1)
        return bg

    def _room(self, alpha: torch.Tensor, rng: np.random.Generator, yy: torch.Tensor, xx: torch.Tensor
              ) -> torch.Tensor:
        """An object photographed in a room: a wall (any pattern) above a floor in perspective whose far edge runs
        behind the object's foot, sometimes a skirting board, and a soft contact shadow: (3, S, S) sRGB."""
        s = self.size
        rows = torch.nonzero(alpha.amax(1) > 0.5).flatten()
        cols = torch.nonzero(alpha.amax(0) > 0.5).flatten()
        foot = (float(rows.max()) + 1) / s if len(rows) else 0.85
        cx = (float(cols.min()) + float(cols.max()) + 1) / (2 * s) if len(cols) else 0.5
        half = max((float(cols.max()) - float(cols.min()) + 1) / (2 * s), 0.05) if len(cols) else 0.3
        horizon = float(np.clip(foot - rng.uniform(0.04, 0.4), 0.15, 0.95))
        c0, c1 = (torch.from_numpy(rng.uniform(0, 1, 3)).float() for _ in range(2))
        wall = self._pattern(int(rng.integers(5)), c0, c1, rng, yy, xx)
        f0 = torch.from_numpy(rng.uniform(0.05, 0.9, 3)).float()
        f1 = (f0 * torch.from_numpy(rng.uniform(0.6, 1.2, 3)).float()).clamp(0, 1)
        v = ((yy - horizon) / max(1 - horizon, 1e-3)).clamp(0, 1) + 0.08  # nearer is lower
        kind = rng.integers(4)
        tones = torch.from_numpy(rng.uniform(0, 1, 257)).float()
        n = rng.uniform(4, 12)
        if kind == 0:  # planks running away from the viewer, converging on a vanishing point
            idx = ((xx - cx - rng.uniform(-0.5, 0.5)) / v * n).floor()
        elif kind == 1:  # planks along the wall
            idx = (n / v).floor()
        elif kind == 2:  # tiles
            idx = (n / v).floor() * 7 + ((xx - cx) / v * n).floor()
        else:  # plain floor or carpet
            idx = torch.zeros_like(xx)
        t = tones[(idx.long() % 257)]
        floor = f0[:, None, None] + t[None] * (f1 - f0)[:, None, None]
        if kind == 2:  # grout lines
            gu, gv = (xx - cx) / v * n, n / v
            line = ((gu - gu.floor() < 0.06) | (gv - gv.floor() < 0.06)).float()
            floor = floor * (1 - 0.35 * line[None])
        floor = floor * (0.75 + 0.25 * v.clamp(0, 1))[None]  # darker towards the wall
        bg = torch.where((yy < horizon)[None], wall, floor)
        if rng.uniform() < 0.5:  # skirting board
            h = rng.uniform(0.008, 0.03)
            band = ((yy >= horizon - h) & (yy < horizon)).float()[None]
            bg = bg * (1 - band) + torch.from_numpy(rng.uniform(0, 1, 3)).float()[:, None, None] * band
        d = ((xx - cx) / (half * rng.uniform(0.8, 1.3))) ** 2 + ((yy - foot) / rng.uniform(0.015, 0.06)) ** 2
        shadow = rng.uniform(0.2, 0.6) * torch.exp(-d)
        return (bg * (1 - shadow[None])).clamp(0, 1)

    def _drawn(self, img: torch.Tensor, a: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
        """An illustration's look, with probability ``p_drawn`` each: the object's colours posterised, a dark
        outline round it and along its strong inner edges (``img`` (B, 3, S, S) sRGB, ``a`` (B, 1, S, S))."""
        if self.config.p_drawn <= 0:
            return img
        for i in range(img.shape[0]):
            if rng.uniform() >= self.config.p_drawn:
                continue
            levels = float(rng.integers(3, 8))
            obj = a[i]
            post = (img[i] * levels).round() / levels
            one = img[i] * (1 - obj) + post * obj
            width = int(rng.integers(1, 3))
            k = 2 * width + 1
            grown = F.max_pool2d(obj[None], k, 1, width)[0]
            shrunk = -F.max_pool2d(-obj[None], k, 1, width)[0]
            edge = (grown - shrunk).clamp(0, 1)
            lum = one.mean(0, keepdim=True)[None]
            gx = F.pad(lum[..., :, 1:] - lum[..., :, :-1], (0, 1, 0, 0))
            gy = F.pad(lum[..., 1:, :] - lum[..., :-1, :], (0, 0, 0, 1))
            inner = ((gx.abs() + gy.abs())[0] > rng.uniform(0.12, 0.3)).float() * obj
            line = torch.maximum(edge, inner)
            ink = torch.from_numpy(rng.uniform(0, 0.25, 3)).float()[:, None, None]
            img[i] = one * (1 - line) + ink * line
        return img

    def _occlude(self, img: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
        s = self.size
        for i in range(img.shape[0]):
            if rng.uniform() < self.config.p_occlude:
                w, h = (int(v) for v in rng.uniform(0.12, 0.35, 2) * s)
                x0 = int(rng.integers(0, s - w)) if rng.uniform() < 0.5 else int(rng.choice([0, s - w]))
                y0 = int(rng.integers(0, s - h))
                img[i, :, y0:y0 + h, x0:x0 + w] = torch.from_numpy(rng.uniform(0, 1, 3)).float()[:, None, None]
        return img

    def _blur(self, img: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
        for i in range(img.shape[0]):
            if rng.uniform() < self.config.p_blur:
                sigma = rng.uniform(0.3, 1.5)
                r = math.ceil(2.5 * sigma)
                x = torch.arange(-r, r + 1, dtype=torch.float32)
                k = torch.exp(-0.5 * (x / sigma) ** 2)
                k = k / k.sum()
                one = F.pad(img[i:i + 1], (r, r, r, r), mode="replicate")
                one = F.conv2d(one, k.view(1, 1, 1, -1).expand(3, 1, 1, -1).contiguous(), groups=3)
                img[i:i + 1] = F.conv2d(one, k.view(1, 1, -1, 1).expand(3, 1, -1, 1).contiguous(), groups=3)
        return img

    def _jpeg(self, img: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
        from PIL import Image

        for i in range(img.shape[0]):
            if rng.uniform() < self.config.p_jpeg:
                arr = (img[i].permute(1, 2, 0).numpy() * 255 + 0.5).astype(np.uint8)
                buf = io.BytesIO()
                Image.fromarray(arr).save(buf, format="JPEG", quality=int(rng.integers(25, 91)))
                back = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"), np.float32) / 255.0
                img[i] = torch.from_numpy(back).permute(2, 0, 1)
        return img


def clean_inputs(rgb: np.ndarray, alpha: np.ndarray) -> torch.Tensor:
    """The inference preprocessing of cached views (recentered, over white; no jitter): (B, 3, 128, 128)."""
    from seed3d.condition.augment import AugmentConfig, ViewAugmenter

    aug = ViewAugmenter(AugmentConfig.identity(size=INPUT_SIZE))
    return aug(rgb, alpha, np.zeros_like(rgb), generator=0).rgb


def as_inference_reads(image: torch.Tensor, frame: bool = False) -> torch.Tensor:
    """A photo-like image (3, S, S) in [0, 1] as ``predict_program`` reads it (``preprocess_image`` at
    ``INPUT_SIZE``): the object found and recentred over white, or with ``frame`` and a GrabCut cut-out, the whole
    frame. An image inference would refuse (no object stands out) is returned as it is."""
    from seed3d.condition.image import preprocess_image

    arr = (image.permute(1, 2, 0).clamp(0, 1).numpy() * 255 + 0.5).astype(np.uint8)
    try:
        pre = preprocess_image(arr, size=INPUT_SIZE)
    except InvalidInputError:  # nothing stands out (an object the colour of a plain background): inference refuses
        return image
    out = pre.frame if frame and pre.frame is not None else pre.rgb
    return torch.from_numpy(np.asarray(out, np.float32)).permute(2, 0, 1)


# ------------------------------------------------------------------------------------------------- training


@dataclass
class ProgramImageTrainConfig(TrainConfig):
    """Training of ``ProgramNet`` on the cached renders (``seed3d train program-image``)."""

    steps: int = 3000
    """Optimiser steps."""
    batch: int = 32
    """Images per step."""
    lr: float = 2e-3
    """Peak learning rate."""
    warmup: int = 150
    """Warm-up steps."""
    weight_decay: float = 0.02
    """AdamW weight decay."""
    checkpoint_every: int = 100
    """Steps between checkpoints."""
    prefetch: bool | None = True
    """Augment the next batch in a background thread while this step runs (batches depend only on the step)."""
    p_clean: float = 0.2
    """Share of each batch given the inference preprocessing only (no jitter, white background)."""
    p_inference: float = 0.35
    """Share of the other (photo-augmented) images then read as inference reads a photo
    (``seed3d.condition.image.preprocess_image``: a plain background removed, a busy one cut out by GrabCut);
    for a GrabCut cut-out, half of them take its whole frame instead (``network_views`` reads both)."""
    count_weight: float = 0.5
    """Weight of each count head's cross-entropy."""
    proportion_weight: float = 1.0
    """Weight of the proportions' smooth L1 (log ratios)."""
    label_smoothing: float = 0.05
    """Label smoothing of the category cross-entropy."""
    model: dict[str, Any] = field(default_factory=dict)
    """``ProgramNetConfig`` overrides (categories come from the data)."""
    init_from: str | None = None
    """A saved ProgramNet folder a fresh run starts from (its weights; the schedule starts again)."""
    photo: dict[str, Any] = field(default_factory=lambda: {"p_room": 0.3, "p_drawn": 0.1})
    """``PhotoConfig`` overrides of the training augmentation (the benchmark's augmented set keeps the defaults)."""


def _labels(data: dict[str, np.ndarray], max_counts: tuple[int, ...]) -> dict[str, torch.Tensor]:
    size = data["size_m"].astype(np.float64)
    props = np.stack([np.log(size[:, 0] / size[:, 2]), np.log(size[:, 1] / size[:, 2])], 1)
    out = {"category": torch.from_numpy(data["category"].astype(np.int64)),
           "proportions": torch.from_numpy(props.astype(np.float32))}
    for name, k in zip(COUNT_HEADS, max_counts, strict=True):
        out[name] = torch.from_numpy(np.minimum(data[name].astype(np.int64), k))
    return out


def program_loss(model: nn.Module, batch: dict[str, torch.Tensor], count_weight: float = 0.5,
                 proportion_weight: float = 1.0, label_smoothing: float = 0.05) -> dict[str, torch.Tensor]:
    """Cross-entropy of category and counts, smooth L1 of the log proportions; ``loss`` is the weighted sum."""
    out = model(batch["images"])
    terms = {"category": F.cross_entropy(out["category"].float(), batch["category"],
                                         label_smoothing=label_smoothing)}
    for name in COUNT_HEADS:
        terms[name] = F.cross_entropy(out[name].float(), batch[name])
    terms["proportions"] = F.smooth_l1_loss(out["proportions"].float(), batch["proportions"], beta=0.1)
    with torch.no_grad():
        terms["acc"] = (out["category"].argmax(-1) == batch["category"]).float().mean()
    terms["loss"] = (terms["category"] + count_weight * sum(terms[n] for n in COUNT_HEADS)
                     + proportion_weight * terms["proportions"])
    return terms


def train_program_image(data: PathType, out: PathType, config: ProgramImageTrainConfig | None = None,
                        progress: ProgressCallback | None = None) -> Path:
    """Train (or resume) ``ProgramNet`` on ``data/train`` (built by ``build_program_data``); returns the model
    folder ``out/model``."""
    from seed3d.program.image_data import data_manifest, load_program_data

    cfg = config or ProgramImageTrainConfig()
    manifest = data_manifest(data, "train")
    arrays = load_program_data(data, "train")
    net_cfg = ProgramNetConfig(**{**cfg.model, "categories": tuple(manifest["categories"])})
    cfg.model = {**cfg.model, "categories": list(net_cfg.categories)}
    torch.manual_seed(cfg.seed)
    model = ProgramNet(net_cfg)
    labels = _labels(arrays, net_cfg.max_counts)
    n_obj, n_views = arrays["rgb"].shape[:2]
    augmenter = PhotoAugmenter(PhotoConfig(**cfg.photo))
    if cfg.p_inference > 0:  # "no object found, the whole frame is kept" would be said for thousands of images
        logging.getLogger("seed3d.condition.image").setLevel(logging.ERROR)
    log.info("program-image: %d objects x %d views, %d parameters", n_obj, n_views,
             sum(p.numel() for p in model.parameters()))

    def make_batch(step: int) -> dict[str, torch.Tensor]:
        rng = np.random.default_rng([cfg.seed, step])
        idx = rng.integers(0, n_obj, cfg.batch)
        view = rng.integers(0, n_views, cfg.batch)
        rgb, alpha = arrays["rgb"][idx, view], arrays["alpha"][idx, view]
        images = augmenter(rgb, alpha, seed=int(rng.integers(2**31)))
        clean = rng.uniform(size=cfg.batch) < cfg.p_clean
        inference = (rng.uniform(size=cfg.batch) < cfg.p_inference) & ~clean
        frame = rng.uniform(size=cfg.batch) < 0.5
        for i in np.flatnonzero(inference):
            images[i] = as_inference_reads(images[i], bool(frame[i]))
        if clean.any():
            images[torch.from_numpy(clean)] = clean_inputs(rgb[clean], alpha[clean])
        t = torch.from_numpy(idx)
        return {"images": images, **{k: v[t] for k, v in labels.items()}}

    info = {"data": str(data), "data_manifest": {k: manifest.get(k) for k in
                                                 ("format", "version", "synth_version", "config", "seeds")},
            "objects": int(n_obj), "views": int(n_views)}
    if cfg.init_from:
        info["init_from"] = str(cfg.init_from)
    return train_loop_program(model, cfg, out, make_batch, info, progress)


def train_loop_program(model: ProgramNet, cfg: ProgramImageTrainConfig, out: PathType, make_batch: Any,
                       info: dict[str, Any], progress: ProgressCallback | None) -> Path:
    """``seed3d.nn.trainer.train_loop`` with the program loss (a fresh run starts from ``cfg.init_from``)."""
    from seed3d.nn.trainer import train_loop, warm_start

    def loss_fn(m: nn.Module, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return program_loss(m, batch, cfg.count_weight, cfg.proportion_weight, cfg.label_smoothing)

    def fresh() -> None:
        if cfg.init_from:
            source = ProgramNet.from_pretrained(cfg.init_from)
            if replace(source.config, categories=model.config.categories) != model.config:
                raise InvalidInputError(f"--init-from {cfg.init_from} has another model config")
            state = source.state_dict()
            if source.config.categories != model.config.categories:
                state = _category_rows(state, source.config.categories, model)
            warm_start(model, state, str(cfg.init_from))

    return train_loop(model, cfg, out, make_batch, loss_fn, on_fresh_start=fresh, info=info, progress=progress,
                      show=("loss", "acc"))


def _category_rows(state: dict[str, torch.Tensor], categories: tuple[str, ...], model: ProgramNet
                   ) -> dict[str, torch.Tensor]:
    """``state`` with its category output rows moved to ``model``'s category order; a category the source did
    not have starts from ``model``'s own initialisation."""
    own = model.state_dict()
    out = dict(state)
    for key in ("category.weight", "category.bias"):
        rows = own[key].clone()
        for j, name in enumerate(model.config.categories):
            if name in categories:
                rows[j] = state[key][categories.index(name)]
        out[key] = rows
    return out


__all__ = ["COUNT_HEADS", "FLIP_TTA", "INPUT_SIZE", "ImagePrediction", "PhotoAugmenter", "PhotoConfig",
           "ProgramImageTrainConfig", "ProgramNet", "ProgramNetConfig", "as_inference_reads", "clean_inputs",
           "count_params", "load_program_net", "network_views", "predict_batch", "predict_program", "predict_views",
           "program_loss", "train_program_image"]
