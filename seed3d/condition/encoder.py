"""The image encoder: a small ViT or CNN trained from scratch on the project's renders, or a local DINOv2 folder.

``ImageEncoder``: images (B, 3, H, W) in [0, 1] (``seed3d.condition.image.to_tensor``) are normalised with the
config's mean/std. The ViT cuts them into ``patch`` x ``patch`` patches, embedded linearly, given 2D sine-cosine
(or learned) positions and a [CLS] token, run through ``depth`` pre-norm transformer blocks
(``seed3d.nn.SelfBlock``); the CNN halves the resolution in each of its ``channels`` stages and reads the final
map as tokens (with sine-cosine positions) after a pooled token. Either way the tokens are normed and projected
to ``out_dim``; it returns every token (for cross-attention conditioning) and a pooled vector.

``load_image_encoder(path)`` opens either one of our folders (``save_pretrained``) or a Hugging Face DINOv2
folder a user has (``config.json`` with ``model_type`` 'dinov2' or 'dinov2_with_registers'); the latter is
wrapped, frozen, to the same interface (its last hidden state, [CLS] first).
"""

from __future__ import annotations

import itertools
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import AssetFormatError, DependencyError, InvalidInputError
from seed3d.nn import PretrainedMixin, SelfBlock
from seed3d.typed import PathType

logger = logging.getLogger(__name__)

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
DINOV2_TYPES = ("dinov2", "dinov2_with_registers")


class ImageFeatures(NamedTuple):
    """What an image encoder returns: ``tokens`` (B, L, D) ([CLS] first when it has one) and ``pooled`` (B, D)."""

    tokens: torch.Tensor
    pooled: torch.Tensor


@dataclass
class ImageEncoderConfig:
    """Sizes of the from-scratch ViT image encoder (the defaults suit 128 px views on a CPU)."""

    backbone: str = "vit"
    """'vit' (patches through transformer blocks) or 'cnn' (a residual convolution stack; learns from a few
    thousand objects much faster than a ViT from scratch)."""
    image_size: int = 128
    """Input side in pixels (learned positions need exactly this; sine-cosine ones any multiple of ``patch``)."""
    patch: int = 8
    """Patch side in pixels."""
    width: int = 192
    """Token width."""
    depth: int = 4
    """Transformer blocks."""
    heads: int = 6
    """Attention heads."""
    mlp_ratio: float = 4.0
    """MLP hidden width / token width."""
    out_dim: int = 192
    """Width of the returned tokens and pooled vector."""
    positions: str = "sincos"
    """'sincos' (fixed 2D sine-cosine) or 'learned'."""
    cls_token: bool = True
    """Prepend a learned [CLS] token (the pooled vector); without it the pooled vector is the mean token."""
    mean: tuple[float, float, float] = IMAGENET_MEAN
    """Per-channel mean subtracted from [0, 1] input."""
    std: tuple[float, float, float] = IMAGENET_STD
    """Per-channel standard deviation the input is divided by."""
    channels: tuple[int, ...] = (32, 64, 128, 192)
    """CNN only: channels of each stage; every stage halves the resolution (128 px -> an 8 x 8 token map with
    four stages). The tokens are a pooled token (the mean of the map) then the map, with sine-cosine positions;
    ``patch``, ``width``, ``depth``, ``heads``, ``positions`` and ``cls_token`` are the ViT's."""

    def __post_init__(self) -> None:
        if self.backbone not in ("vit", "cnn"):
            raise InvalidInputError(f"ImageEncoderConfig.backbone must be 'vit' or 'cnn', got {self.backbone!r}")
        self.channels = tuple(int(c) for c in self.channels)
        if self.backbone == "cnn":
            if not self.channels or min(self.channels) < 1 or self.channels[-1] % 4:
                raise InvalidInputError(f"ImageEncoderConfig.channels must be positive with the last divisible by "
                                        f"4 (sine-cosine positions), got {self.channels}")
            if any(c % min(8, c) for c in self.channels):
                raise InvalidInputError(f"ImageEncoderConfig.channels must be multiples of 8 (group norm), got "
                                        f"{self.channels}")
            if self.image_size % 2 ** len(self.channels):
                raise InvalidInputError(f"ImageEncoderConfig.image_size {self.image_size} is not a multiple of "
                                        f"{2 ** len(self.channels)} ({len(self.channels)} stages)")
        for name in ("image_size", "patch", "width", "depth", "heads", "out_dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"ImageEncoderConfig.{name} must be a positive integer, got {value!r}")
        if self.image_size % self.patch:
            raise InvalidInputError(f"ImageEncoderConfig.image_size {self.image_size} is not a multiple of "
                                    f"patch {self.patch}")
        if self.width % self.heads:
            raise InvalidInputError(f"ImageEncoderConfig.width {self.width} is not divisible by {self.heads} heads")
        if self.positions not in ("sincos", "learned"):
            raise InvalidInputError(f"ImageEncoderConfig.positions must be 'sincos' or 'learned', "
                                    f"got {self.positions!r}")
        if self.positions == "sincos" and self.width % 4:
            raise InvalidInputError(f"sine-cosine positions need a width divisible by 4, got {self.width}")
        self.mean = tuple(float(v) for v in self.mean)  # type: ignore[assignment]
        self.std = tuple(float(v) for v in self.std)  # type: ignore[assignment]
        if len(self.mean) != 3 or len(self.std) != 3 or min(self.std) <= 0:
            raise InvalidInputError("ImageEncoderConfig.mean and std must be 3 values (std > 0)")


def sincos_2d(height: int, width: int, dim: int) -> torch.Tensor:
    """Fixed 2D sine-cosine position embeddings (height * width, dim), rows first; ``dim`` divisible by 4."""
    quarter = dim // 4
    omega = 1.0 / (10000.0 ** (torch.arange(quarter, dtype=torch.float64) / max(quarter, 1)))
    ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float64), torch.arange(width, dtype=torch.float64),
                            indexing="ij")
    ax, ay = xs.reshape(-1, 1) * omega, ys.reshape(-1, 1) * omega
    return torch.cat([ax.sin(), ax.cos(), ay.sin(), ay.cos()], dim=1).float()


def _check_images(images: torch.Tensor) -> None:
    if not isinstance(images, torch.Tensor) or images.ndim != 4 or images.shape[1] != 3:
        shape = tuple(images.shape) if isinstance(images, torch.Tensor) else type(images).__name__
        raise InvalidInputError(f"images must be a (B, 3, H, W) tensor in [0, 1], got {shape}")


class ConvStage(nn.Module):
    """A stride-2 convolution then a residual 3 x 3 convolution, each with group norm and GELU."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 3, 2, 1), nn.GroupNorm(min(8, cout), cout), nn.GELU())
        self.body = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1), nn.GroupNorm(min(8, cout), cout), nn.GELU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, cin, H, W) -> (B, cout, H / 2, W / 2)."""
        x = self.down(x)
        return x + self.body(x)


class ImageEncoder(nn.Module, PretrainedMixin):
    """An image encoder trained from scratch (a ViT or a CNN, ``config.backbone``): images (B, 3, H, W) in [0, 1]
    -> ``ImageFeatures`` (tokens, pooled)."""

    config_class = ImageEncoderConfig
    model_type = "seed3d-image-encoder"

    def __init__(self, config: ImageEncoderConfig | None = None) -> None:
        super().__init__()
        self.config = cfg = config or ImageEncoderConfig()
        self.register_buffer("mean", torch.tensor(cfg.mean).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("std", torch.tensor(cfg.std).view(1, 3, 1, 1), persistent=False)
        if cfg.backbone == "cnn":
            chans = (3, *cfg.channels)
            self.stages = nn.Sequential(*(ConvStage(a, b) for a, b in itertools.pairwise(chans)))
            self.norm = nn.LayerNorm(cfg.channels[-1])
            self.proj = nn.Linear(cfg.channels[-1], cfg.out_dim)
            return
        grid = cfg.image_size // cfg.patch
        self.patch_embed = nn.Conv2d(3, cfg.width, kernel_size=cfg.patch, stride=cfg.patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, cfg.width)) if cfg.cls_token else None
        if cfg.positions == "learned":
            self.pos = nn.Parameter(torch.zeros(1, grid * grid, cfg.width))
        else:
            self.register_buffer("pos", sincos_2d(grid, grid, cfg.width)[None], persistent=False)
        self.blocks = nn.ModuleList([SelfBlock(cfg.width, cfg.heads, cfg.mlp_ratio) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm(cfg.width)
        self.proj = nn.Linear(cfg.width, cfg.out_dim)
        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        w = self.patch_embed.weight
        nn.init.trunc_normal_(w.view(w.shape[0], -1), std=0.02)
        nn.init.zeros_(self.patch_embed.bias)  # type: ignore[arg-type]
        if self.cls is not None:
            nn.init.trunc_normal_(self.cls, std=0.02)
        if isinstance(self.pos, nn.Parameter):
            nn.init.trunc_normal_(self.pos, std=0.02)

    @property
    def out_dim(self) -> int:
        """Width of the returned tokens."""
        return self.config.out_dim

    @property
    def image_size(self) -> int:
        """The input side the encoder was built for."""
        return self.config.image_size

    @property
    def stride(self) -> int:
        """Input pixels per token side (the ViT's patch, or 2 per CNN stage)."""
        return 2 ** len(self.config.channels) if self.config.backbone == "cnn" else self.config.patch

    def num_tokens(self, height: int | None = None, width: int | None = None) -> int:
        """Tokens returned for an input of this size ([CLS] or the CNN's pooled token included)."""
        p = self.stride
        h, w = height or self.config.image_size, width or self.config.image_size
        first = self.config.backbone == "cnn" or self.cls is not None
        return (h // p) * (w // p) + (1 if first else 0)

    def _positions(self, gh: int, gw: int, like: torch.Tensor) -> torch.Tensor:
        grid = self.config.image_size // self.config.patch
        if (gh, gw) == (grid, grid):
            return self.pos.to(like.dtype)  # type: ignore[no-any-return]
        if self.config.positions == "learned":
            raise InvalidInputError(f"this encoder has learned positions for {self.config.image_size} px input; "
                                    f"resize the images to {self.config.image_size} x {self.config.image_size}")
        return sincos_2d(gh, gw, self.config.width)[None].to(like)

    def forward(self, images: torch.Tensor) -> ImageFeatures:
        """``images`` (B, 3, H, W) in [0, 1], H and W multiples of ``patch`` -> tokens (B, L, out_dim), pooled."""
        _check_images(images)
        p = self.stride
        if images.shape[2] % p or images.shape[3] % p:
            raise InvalidInputError(f"image size {tuple(images.shape[2:])} is not a multiple of the patch {p}")
        x = (images - self.mean.to(images.dtype)) / self.std.to(images.dtype)
        if self.config.backbone == "cnn":
            x = self.stages(x)
            gh, gw = x.shape[2], x.shape[3]
            x = x.flatten(2).transpose(1, 2)
            x = torch.cat([x.mean(dim=1, keepdim=True), x + sincos_2d(gh, gw, x.shape[-1])[None].to(x)], dim=1)
            tokens = self.proj(self.norm(x))
            return ImageFeatures(tokens, tokens[:, 0])
        x = self.patch_embed(x)
        gh, gw = x.shape[2], x.shape[3]
        x = x.flatten(2).transpose(1, 2) + self._positions(gh, gw, x)
        if self.cls is not None:
            x = torch.cat([self.cls.expand(x.shape[0], -1, -1).to(x.dtype), x], dim=1)
        for block in self.blocks:
            x = block(x)
        tokens = self.proj(self.norm(x))
        pooled = tokens[:, 0] if self.cls is not None else tokens.mean(dim=1)
        return ImageFeatures(tokens, pooled)


class Dinov2ImageEncoder(nn.Module):
    """A frozen Hugging Face DINOv2 model behind the ``ImageEncoder`` interface (images in [0, 1])."""

    def __init__(self, model: nn.Module, image_size: int, mean: tuple[float, ...] = IMAGENET_MEAN,
                 std: tuple[float, ...] = IMAGENET_STD) -> None:
        super().__init__()
        self.model = model.eval()
        for param in self.model.parameters():
            param.requires_grad_(False)
        self._image_size = int(image_size)
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("std", torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1), persistent=False)

    @property
    def out_dim(self) -> int:
        """Width of the returned tokens (the model's hidden size)."""
        return int(self.model.config.hidden_size)  # type: ignore[union-attr]

    @property
    def image_size(self) -> int:
        """The side images are resized to before the model sees them."""
        return self._image_size

    @classmethod
    def from_folder(cls, path: PathType, device: str | torch.device = "cpu") -> Dinov2ImageEncoder:
        """Load a local Hugging Face DINOv2 folder (never the network)."""
        try:
            from transformers import AutoModel
        except ImportError as exc:
            raise DependencyError("DINOv2 folders need transformers: pip install transformers==5.24.0") from exc
        from seed3d.condition.text import quiet_transformers

        root = Path(path)
        try:
            with quiet_transformers():
                model = AutoModel.from_pretrained(str(root), local_files_only=True)
        except (OSError, ValueError, KeyError) as exc:
            raise AssetFormatError(f"{root}: cannot load the DINOv2 model ({exc})") from exc
        size, mean, std = int(model.config.image_size), IMAGENET_MEAN, IMAGENET_STD
        pre = root / "preprocessor_config.json"
        if pre.is_file():
            try:
                doc: dict[str, Any] = json.loads(pre.read_text())
            except json.JSONDecodeError as exc:
                raise AssetFormatError(f"{pre}: not JSON ({exc})") from exc
            crop = doc.get("crop_size")
            if isinstance(crop, dict) and "height" in crop:
                size = int(crop["height"])
            elif isinstance(crop, int):
                size = crop
            mean = tuple(doc.get("image_mean", mean))
            std = tuple(doc.get("image_std", std))
        patch = int(model.config.patch_size)
        size = max(patch, size // patch * patch)
        return cls(model, size, mean, std).to(device)

    def forward(self, images: torch.Tensor) -> ImageFeatures:
        """``images`` (B, 3, H, W) in [0, 1] -> the last hidden state (B, 1 + [registers] + N, D) and [CLS]."""
        _check_images(images)
        x = images.float()
        if x.shape[2:] != (self._image_size, self._image_size):
            x = F.interpolate(x, size=(self._image_size, self._image_size), mode="bicubic", align_corners=False,
                              antialias=True).clamp(0, 1)
        x = (x - self.mean) / self.std
        out = self.model(pixel_values=x)
        tokens = out.last_hidden_state
        pooled = getattr(out, "pooler_output", None)
        return ImageFeatures(tokens, tokens[:, 0] if pooled is None else pooled)


def load_image_encoder(path: PathType, device: str | torch.device = "cpu") -> ImageEncoder | Dinov2ImageEncoder:
    """Load an image encoder folder: ours (``ImageEncoder.save_pretrained``) or a local Hugging Face DINOv2."""
    root = Path(path)
    if not root.is_dir():
        raise InvalidInputError(f"{root}: no such image encoder folder")
    cfg = root / "config.json"
    if not cfg.is_file():
        raise AssetFormatError(f"{root}: not an image encoder folder (no config.json)")
    try:
        model_type = json.loads(cfg.read_text()).get("model_type")
    except (json.JSONDecodeError, AttributeError) as exc:
        raise AssetFormatError(f"{cfg}: not a JSON object ({exc})") from exc
    if model_type == ImageEncoder.model_type:
        return ImageEncoder.from_pretrained(root, device=device)
    if model_type in DINOV2_TYPES:
        logger.info("using the DINOv2 model in %s as the image encoder", root)
        return Dinov2ImageEncoder.from_folder(root, device=device)
    raise AssetFormatError(f"{root}: model_type {model_type!r} is not an image encoder (expected "
                           f"{ImageEncoder.model_type!r} or a DINOv2 folder: {', '.join(DINOV2_TYPES)})")

