"""Training augmentations: determinism, new backgrounds, object preservation, agreement with inference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from seed3d.condition import AugmentConfig, ViewAugmenter, augment_views, preprocess_views, to_tensor
from seed3d.condition.image import linear_to_srgb, srgb_to_linear
from seed3d.errors import InvalidInputError

N = 64


def _views(b: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Data-set-like views (cond_rgb, cond_alpha, cond_background) of off-centre discs over random gradients."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:N, 0:N] + 0.5
    rgb, alpha, under = [], [], []
    for _ in range(b):
        cx, cy, r = rng.uniform(20, 44), rng.uniform(20, 44), rng.uniform(8, 14)
        a = np.clip(r - np.hypot(xx - cx, yy - cy) + 0.5, 0, 1)
        a_u8 = np.round(a * 255).astype(np.uint8)
        a = a_u8 / 255.0
        obj = rng.uniform(0.1, 0.9, 3) * (0.7 + 0.3 * (xx / N))[..., None]
        bg = rng.uniform(0, 1, 3) * (0.5 + 0.5 * (yy / N))[..., None]
        bg_u8 = np.round(bg * 255).astype(np.uint8)
        comp = linear_to_srgb(srgb_to_linear(obj) * a[..., None] + srgb_to_linear(bg_u8 / 255.0) * (1 - a[..., None]))
        rgb.append(np.round(comp * 255).astype(np.uint8))
        alpha.append(a_u8)
        under.append(bg_u8)
    return np.stack(rgb), np.stack(alpha), np.stack(under)


def test_same_seed_same_output_and_seeds_differ() -> None:
    rgb, alpha, under = _views()
    cfg = AugmentConfig(size=48, rotation=5.0)
    first = augment_views(rgb, alpha, under, generator=7, config=cfg)
    again = ViewAugmenter(cfg)(torch.from_numpy(rgb), torch.from_numpy(alpha), torch.from_numpy(under),
                               torch.Generator().manual_seed(7))
    other = augment_views(rgb, alpha, under, generator=8, config=cfg)
    assert first.rgb.shape == (3, 3, 48, 48) and first.alpha.shape == (3, 1, 48, 48)
    assert first.rgb.dtype == torch.float32 and float(first.rgb.min()) >= 0 and float(first.rgb.max()) <= 1
    assert torch.equal(first.rgb, again.rgb) and torch.equal(first.alpha, again.alpha)
    assert not torch.equal(first.rgb, other.rgb)


def test_backgrounds_change_and_the_object_is_preserved() -> None:
    rgb, alpha, under = _views(4, seed=1)
    cfg = AugmentConfig(size=N, p_canonical=0.0, exposure=0, gamma=0, saturation=0, hue=0, crop_scale=0, crop_shift=0,
                        recenter=False,
                        supersample=1)
    out = augment_views(rgb, alpha, under, generator=3, config=cfg)
    got = out.rgb.permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(out.alpha[:, 0].numpy(), alpha / 255.0, atol=1e-5)  # the framing is kept
    opaque, empty = alpha == 255, alpha == 0
    np.testing.assert_allclose(got[opaque], rgb[opaque] / 255.0, atol=1.5 / 255)  # the object is untouched
    changed = np.abs(got - under / 255.0).max(-1) > 0.02
    assert changed[empty].mean() > 0.9  # the background is a new one


def test_identity_matches_the_inference_normalisation() -> None:
    rgb, alpha, under = _views(3, seed=2)
    out = augment_views(rgb, alpha, under, config=AugmentConfig.identity(size=N, fill=0.8))
    ref = to_tensor(preprocess_views(rgb, alpha, under, size=N, fill=0.8))
    assert float((out.rgb - ref).abs().mean()) < 0.005  # bicubic here, Lanczos there: edges differ slightly
    ref_alpha = torch.from_numpy(np.stack([p.alpha for p in preprocess_views(rgb, alpha, under, size=N, fill=0.8)]))
    assert float((out.alpha[:, 0] - ref_alpha).abs().mean()) < 0.006


def test_lighting_and_crop_jitter_change_the_object() -> None:
    rgb, alpha, under = _views(2, seed=3)
    plain = augment_views(rgb, alpha, under, config=AugmentConfig.identity(size=N))
    lit = augment_views(rgb, alpha, under, generator=1,
                        config=AugmentConfig(size=N, p_canonical=1.0, crop_scale=0, crop_shift=0))
    inside = plain.alpha > 0.99
    assert float((lit.rgb - plain.rgb).abs().amax(1, keepdim=True)[inside].mean()) > 0.01
    torch.testing.assert_close(lit.alpha, plain.alpha)  # lighting does not move the object
    cropped = augment_views(rgb, alpha, under, generator=1,
                            config=AugmentConfig(size=N, p_canonical=1.0, exposure=0, gamma=0, saturation=0, hue=0,
                                                 crop_scale=0.3, crop_shift=0.1))
    assert float((cropped.alpha - plain.alpha).abs().mean()) > 0.01


def test_bad_inputs_are_rejected() -> None:
    rgb, alpha, under = _views(2)
    with pytest.raises(InvalidInputError, match="does not match"):
        augment_views(rgb, alpha[:1], under)
    with pytest.raises(InvalidInputError, match="uint8 or float"):
        augment_views(rgb.astype(np.int32), alpha, under)
    with pytest.raises(InvalidInputError, match="fill"):
        AugmentConfig(fill=0.0)
