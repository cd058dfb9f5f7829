"""Image loading and preprocessing: bad files, object finding (alpha and uniform background), recentering."""

from __future__ import annotations

import io
import logging
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from seed3d.condition import (
    load_image,
    object_box,
    preprocess_image,
    preprocess_rgba,
    preprocess_views,
    to_tensor,
)
from seed3d.condition.image import linear_to_srgb, srgb_to_linear
from seed3d.errors import InvalidInputError

SIZE, FILL = 64, 0.8


def _disc(h: int, w: int, cx: float, cy: float, r: float) -> np.ndarray:
    """Antialiased disc coverage (h, w) in [0, 1]."""
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    return np.clip(r - np.hypot(xx - cx, yy - cy) + 0.5, 0.0, 1.0).astype(np.float32)


def _png(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, "PNG")
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _check_centred(alpha: np.ndarray, fill: float = FILL) -> None:
    """The object's alpha centroid is at the centre and its longest side fills ``fill`` of the image."""
    n = alpha.shape[0]
    yy, xx = np.mgrid[0:n, 0:n] + 0.5
    total = alpha.sum()
    assert abs((alpha * xx).sum() / total - n / 2) < 1.0
    assert abs((alpha * yy).sum() / total - n / 2) < 1.0
    mask = alpha >= 0.5
    cols, rows = np.flatnonzero(mask.any(0)), np.flatnonzero(mask.any(1))
    extent = max(cols[-1] - cols[0] + 1, rows[-1] - rows[0] + 1)
    assert abs(extent - fill * n) <= 2


# --------------------------------------------------------------------------------------------- bad input


def test_text_file_named_png_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    path.write_text("this is not an image\n")
    with pytest.raises(InvalidInputError, match="not an image"):
        load_image(path)
    with pytest.raises(InvalidInputError, match="not an image"):
        preprocess_image(path)


def test_truncated_png_is_rejected(tmp_path: Path) -> None:
    data = _png(np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8))
    path = tmp_path / "cut.png"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidInputError, match="truncated or corrupt"):
        load_image(path)


def test_huge_declared_dimensions_are_rejected_before_decoding() -> None:
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 100)) + \
        _chunk(b"IEND", b"")
    with pytest.raises(InvalidInputError, match="pixels"):
        load_image(bomb)
    small_bomb = _png(np.zeros((300, 300, 3), np.uint8))  # under PIL's own limit, over ours
    with pytest.raises(InvalidInputError, match="more than the limit"):
        load_image(small_bomb, max_pixels=200 * 200)


def test_missing_empty_oversized_and_odd_inputs(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such image file"):
        load_image(tmp_path / "nope.png")
    with pytest.raises(InvalidInputError, match="empty"):
        load_image(b"")
    with pytest.raises(InvalidInputError, match="max_bytes"):
        load_image(_png(np.zeros((8, 8, 3), np.uint8)), max_bytes=10)
    with pytest.raises(InvalidInputError, match="empty"):
        load_image(np.zeros((0, 5, 3), np.uint8))
    with pytest.raises(InvalidInputError, match="shape"):
        load_image(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        load_image(np.full((4, 4, 3), 2.0))
    with pytest.raises(InvalidInputError, match="cannot read an image"):
        load_image(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="fill"):
        preprocess_image(np.zeros((4, 4, 3), np.uint8), fill=1.5)


def test_load_image_formats_agree(tmp_path: Path) -> None:
    rgba = np.random.default_rng(1).integers(0, 255, (20, 30, 4), dtype=np.uint8)
    path = tmp_path / "x.png"
    path.write_bytes(_png(rgba))
    for source in (path, str(path), path.read_bytes(), Image.fromarray(rgba), rgba):
        out = load_image(source)
        assert out.dtype == np.uint8 and out.shape == (20, 30, 4)
        np.testing.assert_array_equal(out, rgba)
    grey = load_image(np.linspace(0, 1, 12).reshape(3, 4))
    assert grey.shape == (3, 4, 4) and (grey[..., 3] == 255).all() and (grey[..., 0] == grey[..., 2]).all()


def test_fully_transparent_and_blank_images_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="fully transparent"):
        preprocess_image(np.zeros((32, 32, 4), np.uint8))
    with pytest.raises(InvalidInputError, match="no object found"):
        preprocess_image(np.full((32, 32, 3), 200, np.uint8))


# --------------------------------------------------------------------------------------------- object finding


def test_alpha_channel_object_is_recentered() -> None:
    h, w = 120, 160
    a = _disc(h, w, cx=40.0, cy=35.0, r=18.0)
    rgba = np.zeros((h, w, 4), np.uint8)
    rgba[..., :3] = (200, 30, 30)
    rgba[..., 3] = np.round(a * 255)
    out = preprocess_image(rgba, size=SIZE, fill=FILL, background=(1.0, 1.0, 1.0))
    assert out.method == "alpha" and out.rgb.shape == (SIZE, SIZE, 3) and out.alpha.shape == (SIZE, SIZE)
    assert out.rgb.dtype == np.float32 and out.rgb.min() >= 0.0 and out.rgb.max() <= 1.0
    _check_centred(out.alpha)
    np.testing.assert_allclose(out.rgb[SIZE // 2, SIZE // 2], np.array([200, 30, 30]) / 255, atol=2 / 255)
    np.testing.assert_allclose(out.rgb[1, 1], 1.0, atol=1e-6)  # the canvas colour
    x0, y0, x1, y1 = out.box
    assert abs((x0 + x1) / 2 - 40.0) < 1.0 and abs((y0 + y1) / 2 - 35.0) < 1.0
    assert abs((x1 - x0) - 36.0 / FILL) < 1.5


def test_uniform_background_is_removed_and_object_recentered(caplog: pytest.LogCaptureFixture) -> None:
    h, w = 140, 180
    bg = np.array([0.3, 0.55, 0.8], np.float32)
    rng = np.random.default_rng(2)
    img = np.broadcast_to(bg, (h, w, 3)).copy()
    img[90:130, 110:170] = (0.9, 0.7, 0.1)  # an off-centre box...
    img[108:111, 138:141] = bg  # ...with a small spot of the background colour inside (a hole to fill)
    img[5:8, 5:8] = (0.0, 0.0, 0.0)  # a speck: not the largest region
    img = np.clip(img + rng.normal(0, 0.01, img.shape), 0, 1)
    u8 = np.round(img * 255).astype(np.uint8)
    out = preprocess_image(u8, size=SIZE, fill=FILL)
    assert out.method == "background"
    assert out.removed_background is not None
    np.testing.assert_allclose(out.removed_background, bg, atol=0.02)
    _check_centred(out.alpha)
    inside = out.alpha[SIZE // 2 - 10:SIZE // 2 + 10, SIZE // 2 - 10:SIZE // 2 + 10]
    assert inside.min() > 0.99  # the hole was filled
    assert out.alpha[:4].max() == 0.0  # the speck is gone
    np.testing.assert_allclose(out.rgb[SIZE // 2 + 8, SIZE // 2 - 12], (0.9, 0.7, 0.1), atol=0.03)
    centre = out.rgb[SIZE // 2, SIZE // 2]  # the filled hole keeps its own colour
    assert np.linalg.norm(centre - bg) < np.linalg.norm(centre - (0.9, 0.7, 0.1))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_busy_border_keeps_the_whole_image(caplog: pytest.LogCaptureFixture) -> None:
    img = np.random.default_rng(3).integers(0, 255, (50, 100, 3), dtype=np.uint8)
    with caplog.at_level(logging.WARNING, logger="seed3d.condition.image"):
        out = preprocess_image(img, size=SIZE)
    assert out.method == "none"
    assert any("not one colour" in r.getMessage() for r in caplog.records)
    assert out.box == (0.0, -25.0, 100.0, 75.0)  # the whole image, padded to a square
    assert out.alpha[SIZE // 2, 2:-2].min() > 0.99 and out.alpha[0].max() == 0.0


def test_preprocessing_is_deterministic(tmp_path: Path) -> None:
    h, w = 90, 70
    a = _disc(h, w, 50, 30, 12)
    rgb = np.broadcast_to(np.float32([0.1, 0.2, 0.9]), (h, w, 3)) * a[..., None] + (1 - a[..., None])
    data = _png(np.round(rgb * 255).astype(np.uint8))
    first, second = preprocess_image(data, size=SIZE), preprocess_image(io.BytesIO(data).getvalue(), size=SIZE)
    np.testing.assert_array_equal(first.rgb, second.rgb)
    np.testing.assert_array_equal(first.alpha, second.alpha)
    assert first.box == second.box


def test_large_images_are_reduced_but_boxes_stay_in_input_pixels() -> None:
    h, w = 600, 800
    a = _disc(h, w, 600, 200, 80)
    rgba = np.zeros((h, w, 4), np.uint8)
    rgba[..., 3] = np.round(a * 255)
    out = preprocess_image(rgba, size=SIZE, fill=FILL, work_size=200)
    x0, y0, x1, y1 = out.box
    assert abs((x0 + x1) / 2 - 600) < 4 and abs((y0 + y1) / 2 - 200) < 4 and abs((x1 - x0) - 160 / FILL) < 8
    _check_centred(out.alpha)


# --------------------------------------------------------------------------------------------- training views


def _view(seed: int, n: int = 96) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A data-set-like view: object colour, alpha, a random background and the composite (all uint8)."""
    rng = np.random.default_rng(seed)
    a = _disc(n, n, 30 + rng.uniform(0, 30), 40 + rng.uniform(0, 20), 20)
    obj = np.broadcast_to(rng.uniform(0.2, 0.9, 3).astype(np.float32), (n, n, 3))
    bg = np.broadcast_to(rng.uniform(0, 1, 3).astype(np.float32), (n, n, 3)) * np.linspace(0.5, 1, n)[:, None, None]
    comp = linear_to_srgb(srgb_to_linear(obj) * a[..., None] + srgb_to_linear(bg) * (1 - a[..., None]))
    u8 = lambda x: np.round(np.clip(x, 0, 1) * 255).astype(np.uint8)  # noqa: E731
    return u8(obj), u8(a), u8(bg), u8(comp)


def test_views_use_the_same_normalisation_as_inference() -> None:
    obj, a, bg, comp = _view(4)
    from_views = preprocess_views(comp[None], a[None], bg[None], size=SIZE, fill=FILL)[0]
    rgba = np.concatenate([obj, a[..., None]], axis=-1)
    from_file = preprocess_image(_png(rgba), size=SIZE, fill=FILL)
    assert from_views.method == "given" and from_file.method == "alpha"
    assert from_views.box == from_file.box
    np.testing.assert_allclose(from_views.alpha, from_file.alpha, atol=1e-6)
    assert np.abs(from_views.rgb - from_file.rgb).max() < 0.03  # uint8 rounding of the composite only
    _check_centred(from_views.alpha)
    # the alpha-only helper and the box agree
    assert object_box(a.astype(np.float32) / 255, FILL) == from_views.box


def test_background_none_keeps_the_image_own_pixels() -> None:
    _, a, _, comp = _view(5)
    out = preprocess_rgba(comp, a, size=SIZE, fill=FILL, background=None)
    assert out.background is None
    # the corner shows the original (gradient) background, not a canvas colour
    corner = comp[int(out.box[1]) + 2, max(0, int(out.box[0]) + 2)] / 255
    assert np.abs(out.rgb[1, 1] - corner).max() < 0.1


def test_to_tensor_stacks() -> None:
    items = [preprocess_rgba(_view(s)[3], _view(s)[1], size=SIZE) for s in (6, 7)]
    t = to_tensor(items)
    assert t.shape == (2, 3, SIZE, SIZE) and t.dtype == torch.float32
    assert to_tensor(items[0], alpha=True).shape == (1, 4, SIZE, SIZE)
    np.testing.assert_array_equal(t[1].permute(1, 2, 0).numpy(), items[1].rgb)
    with pytest.raises(InvalidInputError):
        to_tensor([])
