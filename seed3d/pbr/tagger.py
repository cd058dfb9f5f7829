"""The material tagger: a small CNN that reads a reference image and names its materials in the words the
synth descriptions use (``walnut wood``, ``brushed brass``, ``white plastic``), so that an image-only input
still gets semantic conditioning tokens for the PBR generator.

Two heads over a vocabulary fixed in the config (and so saved with the weights): a softmax over finishes (kind +
colour, e.g. ``oak wood``; trained toward an even share over the asset's finishes) and independent sigmoids per
kind (``painted metal``). ``predict_words`` returns the best finish and every other finish at least
``finish_ratio`` as probable (``max_finishes`` at most), then each confident kind no chosen finish already names.
Trained on the data set's reference renders (``seed3d train pbr`` trains it first, then the generator).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn import PretrainedMixin


def _finish_vocab() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    from seed3d.synth.describe import finish_words
    from seed3d.synth.materials import KIND_WORDS, KINDS, PALETTES

    words, kinds = [], []
    for kind in KINDS:
        for colour in PALETTES[kind]:
            words.append(finish_words({"kind": kind, "colour": colour}))
            kinds.append(kind)
    return tuple(words), tuple(kinds), tuple(KIND_WORDS[k] for k in KINDS)


def default_finishes() -> tuple[str, ...]:
    """Every synth finish as words (``oak wood`` …), in library order."""
    return _finish_vocab()[0]


def default_finish_kinds() -> tuple[str, ...]:
    """The kind (``wood``, ``painted_wood`` …) of each of :func:`default_finishes`."""
    return _finish_vocab()[1]


def default_kinds() -> tuple[str, ...]:
    """Every synth finish kind as words (``wood``, ``painted wood`` …)."""
    return _finish_vocab()[2]


@dataclass
class TaggerConfig:
    """Sizes and vocabulary of the material tagger."""

    image_size: int = 128
    """Side of the (preprocessed) input image (it need not be the generator's ``reference_resolution``: the
    texture stage and training give the tagger the reference image at this size)."""
    channels: tuple[int, ...] = (16, 32, 64, 128)
    """Channels of the stride-2 convolution stages."""
    threshold: float = 0.5
    """Probability above which a kind word is predicted."""
    finish_ratio: float = 0.5
    """A finish is predicted when its probability is at least this share of the best finish's."""
    max_finishes: int = 3
    """At most this many finishes are named."""
    finishes: tuple[str, ...] = field(default_factory=default_finishes)
    """Finish words (kind + colour) of the finish head."""
    finish_kinds: tuple[str, ...] = field(default_factory=default_finish_kinds)
    """Kind id (``painted_wood`` …) of each finish."""
    kinds: tuple[str, ...] = field(default_factory=default_kinds)
    """Kind words of the kind head."""

    def __post_init__(self) -> None:
        self.channels, self.finishes = tuple(self.channels), tuple(self.finishes)
        self.finish_kinds, self.kinds = tuple(self.finish_kinds), tuple(self.kinds)
        if self.max_finishes < 1:
            raise InvalidInputError(f"max_finishes must be >= 1, got {self.max_finishes}")
        if self.image_size < 8 or not self.channels or min(self.channels) < 1:
            raise InvalidInputError("TaggerConfig needs image_size >= 8 and positive channel counts")
        if not 0.0 < self.threshold < 1.0 or not 0.0 < self.finish_ratio <= 1.0:
            raise InvalidInputError(f"threshold must lie in (0, 1) and finish_ratio in (0, 1], got "
                                    f"{self.threshold} and {self.finish_ratio}")
        if not self.finishes or len(self.finish_kinds) != len(self.finishes) or not self.kinds:
            raise InvalidInputError("TaggerConfig needs finishes, one kind per finish and kinds")


class MaterialTagger(nn.Module, PretrainedMixin):
    """Image (B, 3, S, S) in [0, 1] -> finish logits (B, F) and kind logits (B, K)."""

    config_class = TaggerConfig
    model_type = "seed3d-material-tagger"

    def __init__(self, config: TaggerConfig | None = None) -> None:
        super().__init__()
        self.config = cfg = config or TaggerConfig()
        layers: list[nn.Module] = []
        c_in = 3
        for c in cfg.channels:
            layers += [nn.Conv2d(c_in, c, 3, stride=2, padding=1), nn.GroupNorm(min(8, c), c), nn.GELU(),
                       nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(min(8, c), c), nn.GELU()]
            c_in = c
        self.features = nn.Sequential(*layers)
        width = cfg.channels[-1]
        # mean- and max-pooled features: colour is a mean, small metal handles are a max
        self.finish_head = nn.Sequential(nn.Linear(2 * width, width), nn.GELU(), nn.Linear(width, len(cfg.finishes)))
        self.kind_head = nn.Sequential(nn.Linear(2 * width, width), nn.GELU(), nn.Linear(width, len(cfg.kinds)))

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Finish and kind logits of ``images`` (B, 3, S, S) in [0, 1]."""
        s = self.config.image_size
        if images.ndim != 4 or tuple(images.shape[1:]) != (3, s, s):
            raise InvalidInputError(f"tagger input must be (B, 3, {s}, {s}) in [0, 1], got {tuple(images.shape)}")
        f = self.features(images.to(self.finish_head[0].weight.dtype) * 2.0 - 1.0)
        pooled = torch.cat([f.mean((2, 3)), f.amax((2, 3))], dim=1)
        return self.finish_head(pooled), self.kind_head(pooled)

    def targets(self, finishes: Sequence[Sequence[dict[str, str]]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Multi-hot finish (B, F) and kind (B, K) targets of each sample's list of {kind, colour} finishes."""
        from seed3d.synth.describe import finish_words
        from seed3d.synth.materials import KINDS

        cfg = self.config
        f_index = {w: i for i, w in enumerate(cfg.finishes)}
        fin = np.zeros((len(finishes), len(cfg.finishes)), np.float32)
        kind = np.zeros((len(finishes), len(cfg.kinds)), np.float32)
        for b, items in enumerate(finishes):
            for item in items:
                w = finish_words(item)
                if w in f_index:
                    fin[b, f_index[w]] = 1.0
                if item["kind"] in KINDS and KINDS.index(item["kind"]) < len(cfg.kinds):
                    kind[b, KINDS.index(item["kind"])] = 1.0
        return torch.from_numpy(fin), torch.from_numpy(kind)

    def loss(self, images: torch.Tensor, finish_target: torch.Tensor, kind_target: torch.Tensor
             ) -> dict[str, torch.Tensor]:
        """Cross-entropy of the finish softmax against an even share over each sample's finishes plus binary
        cross-entropy of the kinds (``tagger_loss``), and how often the best finish is one of the sample's."""
        fl, kl = self(images)
        share = finish_target / finish_target.sum(-1, keepdim=True).clamp_min(1.0)
        loss = -(share * F.log_softmax(fl.float(), dim=-1)).sum(-1).mean() \
            + F.binary_cross_entropy_with_logits(kl.float(), kind_target)
        with torch.no_grad():
            top = fl.argmax(-1)
            top_hit = finish_target.gather(1, top[:, None]).squeeze(1).mean()
        return {"tagger_loss": loss, "tagger_top1": top_hit}

    @torch.no_grad()
    def predict_words(self, images: torch.Tensor, threshold: float | None = None) -> list[list[str]]:
        """Material words per image (B, 3, S, S): the best finish and those at least ``finish_ratio`` as probable,
        best first, then kinds above ``threshold`` (default: the config's) not already named by a chosen finish."""
        cfg = self.config
        thr = cfg.threshold if threshold is None else float(threshold)
        fl, kl = self(images)
        fp, kp = fl.softmax(-1).cpu().numpy(), kl.sigmoid().cpu().numpy()
        out = []
        for b in range(fp.shape[0]):
            order = np.argsort(-fp[b], kind="stable")
            chosen = [int(i) for i in order[: cfg.max_finishes] if fp[b, i] >= cfg.finish_ratio * fp[b, order[0]]]
            kinds_named = {cfg.finish_kinds[i] for i in chosen}
            words = [cfg.finishes[i] for i in chosen]
            kind_ids = _kind_ids(cfg)
            for k in np.argsort(-kp[b], kind="stable"):
                if kp[b, k] >= thr and kind_ids[int(k)] not in kinds_named:
                    words.append(cfg.kinds[int(k)])
            out.append(words)
        return out

    @torch.no_grad()
    def predict_kinds(self, images: torch.Tensor, threshold: float | None = None) -> list[list[str]]:
        """Kind words per image (B, 3, S, S), colours left out: every kind above ``threshold`` (default: the
        config's), most probable first, and at least the most probable one."""
        thr = self.config.threshold if threshold is None else float(threshold)
        kp = self(images)[1].sigmoid().cpu().numpy()
        out = []
        for b in range(kp.shape[0]):
            order = np.argsort(-kp[b], kind="stable")
            out.append([self.config.kinds[int(k)] for n, k in enumerate(order) if n == 0 or kp[b, k] >= thr])
        return out

    def image_words(self, images: torch.Tensor) -> list[list[str]]:
        """The words an image-only texture request is conditioned on, per image (B, 3, S, S): the finish words of
        :meth:`predict_words`. (Kind words alone, with a generator trained on them, ``PBRTrainConfig.kinds_share``,
        scored better roughness but worse albedo: weights/pbr/MODEL_CARD.md.)"""
        return self.predict_words(images)

    def tag(self, image: object) -> list[str]:
        """Material words of one image (path, bytes, PIL image or array), preprocessed as the generator's
        reference image is."""
        from seed3d.condition.image import preprocess_image, to_tensor

        x = to_tensor(preprocess_image(image, size=self.config.image_size))  # type: ignore[arg-type]
        return self.image_words(x.to(self.finish_head[0].weight.device))[0]


def _kind_ids(cfg: TaggerConfig) -> list[str]:
    """The kind id of each kind word, matched through the finish list (``painted wood`` -> ``painted_wood``)."""
    from seed3d.synth.materials import KIND_WORDS

    by_word = {w: k for k, w in KIND_WORDS.items()}
    return [by_word.get(w, w) for w in cfg.kinds]
