"""Foreground masks for photos with busy backgrounds: GrabCut finds the object, implausible masks are refused."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from seed3d.condition.image import (
    GrabCutConfig,
    grabcut_alpha,
    linear_to_srgb,
    preprocess_image,
    srgb_to_linear,
)
from seed3d.errors import InvalidInputError

SIZE = 64


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.logical_and(a, b).sum() / np.logical_or(a, b).sum())


def _checks(h: int, w: int, period: int, c0: tuple[float, ...], c1: tuple[float, ...]) -> np.ndarray:
    """A two-colour checkerboard (h, w, 3) in linear light."""
    yy, xx = np.mgrid[0:h, 0:w]
    t = ((yy // period + xx // period) % 2).astype(np.float32)[..., None]
    return srgb_to_linear(np.float32(c0) + t * (np.float32(c1) - np.float32(c0)))


def _drawn_object(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """A shaded object (a box with a round top, off centre) as linear colour (h, w, 3) and truth mask (h, w)."""
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    box = (xx > 0.38 * w) & (xx < 0.7 * w) & (yy > 0.42 * h) & (yy < 0.85 * h)
    disc = np.hypot(xx - 0.54 * w, yy - 0.42 * h) < 0.16 * w
    truth = box | disc
    shade = (0.55 + 0.45 * (xx - 0.38 * w) / (0.32 * w)).clip(0.4, 1.0)[..., None]
    colour = srgb_to_linear(np.float32([0.85, 0.25, 0.1])) * shade
    return colour.astype(np.float32), truth


def _photo(h: int = 200, w: int = 240, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The drawn object over a checkerboard floor and a blotchy wall, sensor noise, 8 bits: (image, truth)."""
    rng = np.random.default_rng(seed)
    colour, truth = _drawn_object(h, w)
    bg = _checks(h, w, 13, (0.2, 0.45, 0.75), (0.9, 0.9, 0.85))
    wall = np.kron(rng.uniform(0.3, 0.7, (4, 5, 1)), np.ones((h // 4 + 1, w // 5 + 1, 1)))[:h, :w]
    bg[: h // 2] = srgb_to_linear(wall[: h // 2].astype(np.float32) * np.float32([0.6, 0.8, 0.5]))
    lin = np.where(truth[..., None], colour, bg)
    img = np.clip(linear_to_srgb(lin) + rng.normal(0, 0.01, lin.shape), 0, 1)
    return np.round(img * 255).astype(np.uint8), truth


def test_object_on_a_busy_background_is_found_by_grabcut(caplog: pytest.LogCaptureFixture) -> None:
    img, truth = _photo()
    with caplog.at_level(logging.WARNING, logger="seed3d.condition.image"):
        out = preprocess_image(img, size=SIZE, fill=0.8)
    assert out.method == "grabcut"
    assert not caplog.records  # no "whole image kept" warning
    alpha = grabcut_alpha(img.astype(np.float32) / 255)
    assert alpha is not None and alpha.shape == truth.shape
    assert _iou(alpha >= 0.5, truth) >= 0.9
    # the object, not the frame, was recentred: its box is about the object's (x 91..168, y 52..170)
    x0, y0, x1, y1 = out.box
    assert abs((x0 + x1) / 2 - 129.6) < 6 and abs((y0 + y1) / 2 - 110) < 6
    assert abs((x1 - x0) - 118 / 0.8) < 12
    # the background never shows: the canvas is white away from the object
    np.testing.assert_allclose(out.rgb[1, 1], 1.0, atol=1e-6)
    assert out.alpha[SIZE // 2, SIZE // 2] > 0.99
    # the whole frame comes along for the image network, the same as a cut with GrabCut turned off
    whole = preprocess_image(img, size=SIZE, fill=0.8, grabcut=False)
    assert out.frame is not None and whole.method == "none" and whole.frame is None
    np.testing.assert_allclose(out.frame, whole.rgb, atol=1e-6)


def test_grabcut_is_deterministic() -> None:
    img, _ = _photo(seed=1)
    first = preprocess_image(img, size=SIZE)
    second = preprocess_image(img.copy(), size=SIZE)
    np.testing.assert_array_equal(first.alpha, second.alpha)
    np.testing.assert_array_equal(first.rgb, second.rgb)


def test_rendered_asset_over_a_pattern_is_masked() -> None:
    from PIL import Image

    from seed3d.render import get_renderer, orbit_camera
    from seed3d.synth import generate

    asset = generate("cabinet", seed=3)
    with get_renderer() as renderer:
        rgba = renderer.render_image(asset, orbit_camera(asset, 35.0, 20.0, 160), supersample=2)
    n = 240  # the render pasted into a larger frame, a little off centre
    a = np.zeros((n, n), np.float32)
    premult = np.zeros((n, n, 3), np.float32)
    a[30:190, 50:210] = rgba[..., 3]
    premult[30:190, 50:210] = srgb_to_linear(rgba[..., :3]) * rgba[..., 3:]
    bg = _checks(n, n, 17, (0.55, 0.35, 0.2), (0.75, 0.6, 0.45))  # planks / tiles
    img = np.round(linear_to_srgb(premult + bg * (1 - a[..., None])) * 255).astype(np.uint8)
    out = preprocess_image(Image.fromarray(img), size=SIZE)
    assert out.method == "grabcut"
    alpha = grabcut_alpha(img.astype(np.float32) / 255)
    # a hard case: the worktop's wood is the colour of the tiles, and tiles touching the cabinet join it
    assert alpha is not None and _iou(alpha >= 0.5, a >= 0.5) >= 0.75


def test_uniform_border_still_uses_the_background_path() -> None:
    img = np.full((120, 150, 3), (40, 120, 200), np.uint8)
    img[30:100, 40:110] = (230, 200, 20)
    out = preprocess_image(img, size=SIZE)
    assert out.method == "background"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pure_noise_falls_back_to_the_whole_frame(seed: int, caplog: pytest.LogCaptureFixture) -> None:
    img = np.random.default_rng(seed).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    assert grabcut_alpha(img.astype(np.float32) / 255) is None
    with caplog.at_level(logging.WARNING, logger="seed3d.condition.image"):
        out = preprocess_image(img, size=SIZE)
    assert out.method == "none"
    assert any("not one colour" in r.getMessage() for r in caplog.records)


def test_implausible_masks_are_refused() -> None:
    img, _ = _photo()
    rgb = img.astype(np.float32) / 255
    assert grabcut_alpha(rgb, GrabCutConfig(max_area=0.05)) is None  # "almost the whole frame"
    assert grabcut_alpha(rgb, GrabCutConfig(min_area=0.9, max_area=1.0)) is None  # "almost empty"


def test_a_region_without_colour_contrast_is_refused() -> None:
    """A patch of the background's own pattern, shifted, in the middle: edges but no object colours."""
    n = 200
    img = linear_to_srgb(_checks(n, n, 10, (0.2, 0.3, 0.7), (0.9, 0.8, 0.3)))
    img[60:140, 60:140] = linear_to_srgb(_checks(80, 80, 7, (0.9, 0.8, 0.3), (0.2, 0.3, 0.7)))
    u8 = np.round(img * 255).astype(np.uint8)
    assert grabcut_alpha(u8.astype(np.float32) / 255) is None
    assert preprocess_image(u8, size=SIZE).method == "none"


def test_grabcut_can_be_turned_off() -> None:
    img, _ = _photo()
    assert preprocess_image(img, size=SIZE, grabcut=False).method == "none"
    assert preprocess_image(img, size=SIZE, grabcut=GrabCutConfig(iterations=3)).method == "grabcut"


@pytest.mark.parametrize("bad", [{"work_size": 4}, {"iterations": 0}, {"border": 0.3, "box": 0.2},
                                 {"min_area": 0.9, "max_area": 0.5}, {"min_separation": 1.5}])
def test_bad_settings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(InvalidInputError, match="GrabCutConfig"):
        GrabCutConfig(**bad)  # type: ignore[arg-type]


def test_a_thin_band_along_the_floor_line_does_not_widen_the_crop() -> None:
    """A floor line in the object's own colour runs out to both sides of the frame: GrabCut takes it with the
    object; the mask is cut to its body's columns, so the crop frames the object, not the whole image."""
    img, truth = _photo()
    h, w = truth.shape
    band = np.zeros_like(truth)
    band[int(0.84 * h):int(0.855 * h), int(0.06 * w):int(0.94 * w)] = True  # 3 px, under the object's foot
    img = img.copy()
    img[band] = img[truth].reshape(-1, 3).mean(0).astype(np.uint8)
    alpha = grabcut_alpha(img.astype(np.float32) / 255.0)
    assert alpha is not None
    cols = np.flatnonzero((alpha >= 0.5).any(0))
    true_cols = np.flatnonzero(truth.any(0))
    assert cols[0] >= true_cols[0] - 0.05 * w and cols[-1] <= true_cols[-1] + 0.05 * w
    assert _iou(alpha >= 0.5, truth) > 0.85
