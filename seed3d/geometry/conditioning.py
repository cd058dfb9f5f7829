"""Condition tokens for the geometry flows: an image, a text, or both.

The image goes through the from-scratch image encoder (``seed3d.condition.ImageEncoder``, a CNN in the shipped
stage 1, trained together with the stage-1 flow); the text through the bundled MiniLM's token states (frozen,
computed outside). Each stream is projected to ``cond_dim`` and tagged with a learned type embedding, and the two
are concatenated with a mask, so one model serves image-only, text-only and image+text requests. Classifier-free
guidance uses the flow's null condition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from seed3d.condition.encoder import ImageEncoder, ImageEncoderConfig, ImageFeatures
from seed3d.condition.text import TEXT_DIM
from seed3d.errors import InvalidInputError
from seed3d.nn import PretrainedMixin, mlp


def pool_values(values: torch.Tensor, cells: int) -> torch.Tensor:
    """Grid values (B, G, G, G) average-pooled to ``cells``^3 and flattened (B, cells^3): what the shape head
    predicts."""
    return F.adaptive_avg_pool3d(values[:, None], cells).flatten(1)


@dataclass
class ConditionerConfig:
    """Sizes of the conditioner: the image encoder's config and the width of the condition tokens."""

    image: ImageEncoderConfig = field(default_factory=ImageEncoderConfig)
    """The image encoder (a ViT or a CNN, ``ImageEncoderConfig.backbone``)."""
    text_dim: int = TEXT_DIM
    """Width of the text token states (MiniLM: 384)."""
    cond_dim: int = 384
    """Width of the condition tokens the flows attend to."""
    shape_cells: int = 0
    """Cells per side of the shape head's output: the coarse grid (in the stage-1 flow's value units) average-pooled
    to ``shape_cells``^3, predicted from the image encoder's pooled vector; ``ShapeGenerator`` keeps the stage-1
    sample closest to it. 0: no shape head."""

    def __post_init__(self) -> None:
        if isinstance(self.image, dict):
            self.image = ImageEncoderConfig(**self.image)
        if self.shape_cells < 0:
            raise InvalidInputError(f"shape_cells must be >= 0, got {self.shape_cells}")


class ShapeConditioner(nn.Module, PretrainedMixin):
    """Image and/or text -> condition tokens (B, L, cond_dim) and their mask (B, L)."""

    config_class = ConditionerConfig
    model_type = "seed3d-shape-conditioner"

    def __init__(self, config: ConditionerConfig | None = None) -> None:
        super().__init__()
        cfg = config or ConditionerConfig()
        self.config = cfg
        self.image_encoder = ImageEncoder(cfg.image)
        self.image_proj = nn.Sequential(nn.LayerNorm(cfg.image.out_dim), nn.Linear(cfg.image.out_dim, cfg.cond_dim))
        self.text_proj = nn.Sequential(nn.LayerNorm(cfg.text_dim), nn.Linear(cfg.text_dim, cfg.cond_dim))
        self.type_embed = nn.Parameter(torch.zeros(2, cfg.cond_dim))
        nn.init.normal_(self.type_embed, std=0.02)
        d = cfg.image.out_dim
        self.shape_head = mlp([d, 4 * d, cfg.shape_cells ** 3]) if cfg.shape_cells else None

    @property
    def image_size(self) -> int:
        """Side of the square images the encoder takes."""
        return self.config.image.image_size

    def predict_shape(self, features: ImageFeatures) -> torch.Tensor:
        """The shape head's coarse grid values (B, ``shape_cells``^3) from the image encoder's ``features``."""
        if self.shape_head is None:
            raise InvalidInputError("this conditioner has no shape head (its config's shape_cells is 0)")
        return self.shape_head(features.pooled)

    def shape_prior(self, images: torch.Tensor) -> torch.Tensor | None:
        """The coarse shape (B, ``shape_cells``^3) the shape head predicts from ``images`` (B, 3, S, S) in [0, 1];
        None when the conditioner has no shape head."""
        if self.shape_head is None:
            return None
        with torch.no_grad():
            return self.predict_shape(self.image_encoder(images))

    def forward(self, images: torch.Tensor | None = None, text_tokens: torch.Tensor | None = None,
                text_mask: torch.Tensor | None = None, use_image: torch.Tensor | None = None,
                use_text: torch.Tensor | None = None, image_features: ImageFeatures | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Condition tokens from ``images`` (B, 3, S, S) in [0, 1] and/or MiniLM ``text_tokens`` (B, L, 384) with
        ``text_mask``; ``use_image`` / ``use_text`` (B,) switch a stream off per sample (training mixes modes).
        ``image_features``: the image encoder's output for ``images`` when the caller already has it."""
        parts, masks = [], []
        if images is None and text_tokens is None:
            raise InvalidInputError("a shape condition needs an image, a text or both")
        if images is not None:
            feats = image_features if image_features is not None else self.image_encoder(images)
            tokens = self.image_proj(feats.tokens) + self.type_embed[0]
            m = torch.ones(tokens.shape[:2], dtype=torch.bool, device=tokens.device)
            if use_image is not None:
                m = m & use_image[:, None].to(m.device)
            parts.append(tokens)
            masks.append(m)
        if text_tokens is not None:
            tokens = self.text_proj(text_tokens) + self.type_embed[1]
            m = (torch.ones(tokens.shape[:2], dtype=torch.bool, device=tokens.device) if text_mask is None
                 else text_mask.bool())
            if use_text is not None:
                m = m & use_text[:, None].to(m.device)
            parts.append(tokens)
            masks.append(m)
        return torch.cat(parts, dim=1), torch.cat(masks, dim=1)
