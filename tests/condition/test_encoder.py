"""Image encoders: the from-scratch ViT (shapes, save/load) and the DINOv2 folder wrapper (tiny random model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from seed3d.condition import (
    Dinov2ImageEncoder,
    ImageEncoder,
    ImageEncoderConfig,
    load_image_encoder,
)
from seed3d.errors import AssetFormatError, InvalidInputError

TINY = ImageEncoderConfig(image_size=32, patch=8, width=32, depth=2, heads=4, out_dim=24)


def test_shapes_and_pooling() -> None:
    torch.manual_seed(0)
    enc = ImageEncoder(TINY).eval()
    x = torch.rand(2, 3, 32, 32)
    out = enc(x)
    assert out.tokens.shape == (2, 1 + 16, 24) and out.pooled.shape == (2, 24)
    assert enc.num_tokens() == 17 and enc.out_dim == 24
    torch.testing.assert_close(out.pooled, out.tokens[:, 0])
    assert enc(torch.rand(1, 3, 48, 32)).tokens.shape == (1, 1 + 24, 24)  # sine-cosine positions: any size
    no_cls = ImageEncoder(ImageEncoderConfig(image_size=32, patch=8, width=32, depth=1, heads=4, out_dim=8,
                                             cls_token=False, positions="learned"))
    out = no_cls(x)
    assert out.tokens.shape == (2, 16, 8)
    torch.testing.assert_close(out.pooled, out.tokens.mean(1))
    with pytest.raises(InvalidInputError, match="resize"):
        no_cls(torch.rand(1, 3, 48, 32))
    with pytest.raises(InvalidInputError, match="multiple of the patch"):
        enc(torch.rand(1, 3, 30, 32))
    with pytest.raises(InvalidInputError, match=r"\(B, 3, H, W\)"):
        enc(torch.rand(3, 32, 32))


def test_cnn_backbone_reads_its_last_map_as_tokens(tmp_path: Path) -> None:
    torch.manual_seed(0)
    cfg = ImageEncoderConfig(backbone="cnn", image_size=32, channels=(8, 16), out_dim=24)
    enc = ImageEncoder(cfg).eval()
    x = torch.rand(2, 3, 32, 32)
    out = enc(x)
    assert out.tokens.shape == (2, 1 + 64, 24) and enc.num_tokens() == 65 and enc.stride == 4
    torch.testing.assert_close(out.pooled, out.tokens[:, 0])
    assert enc(torch.rand(1, 3, 48, 32)).tokens.shape == (1, 1 + 96, 24)  # any multiple of the stride
    # the map's tokens carry their position: a uniform image still gives a different token per cell
    flat = enc(torch.full((1, 3, 32, 32), 0.5)).tokens[0, 1:]
    assert torch.cdist(flat, flat).fill_diagonal_(1.0).min() > 1e-3
    enc.save_pretrained(tmp_path / "cnn")
    loaded = load_image_encoder(tmp_path / "cnn")
    with torch.no_grad():
        assert torch.equal(loaded(x).tokens, out.tokens)
    with pytest.raises(InvalidInputError, match="multiple of the patch 4"):
        enc(torch.rand(1, 3, 30, 32))
    with pytest.raises(InvalidInputError, match="backbone"):
        ImageEncoderConfig(backbone="resnet")
    with pytest.raises(InvalidInputError, match="multiple of 16"):
        ImageEncoderConfig(backbone="cnn", image_size=40, channels=(8, 8, 8, 8))
    with pytest.raises(InvalidInputError, match="divisible by 4"):
        ImageEncoderConfig(backbone="cnn", channels=(8, 18))


def test_bad_configs_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="multiple of patch"):
        ImageEncoderConfig(image_size=30, patch=8)
    with pytest.raises(InvalidInputError, match="heads"):
        ImageEncoderConfig(width=30, heads=4)
    with pytest.raises(InvalidInputError, match="positions"):
        ImageEncoderConfig(positions="rope")


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    torch.manual_seed(1)
    enc = ImageEncoder(TINY).eval()
    x = torch.rand(2, 3, 32, 32)
    enc.save_pretrained(tmp_path / "enc")
    doc = json.loads((tmp_path / "enc" / "config.json").read_text())
    assert doc["model_type"] == ImageEncoder.model_type and doc["width"] == 32
    for loaded in (ImageEncoder.from_pretrained(tmp_path / "enc"), load_image_encoder(tmp_path / "enc")):
        assert isinstance(loaded, ImageEncoder)
        with torch.no_grad():
            a, b = enc(x), loaded(x)
        assert torch.equal(a.tokens, b.tokens) and torch.equal(a.pooled, b.pooled)


def test_load_image_encoder_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such image encoder folder"):
        load_image_encoder(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AssetFormatError, match=r"no config\.json"):
        load_image_encoder(tmp_path / "empty")
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(AssetFormatError, match="'bert' is not an image encoder"):
        load_image_encoder(other)
    broken = tmp_path / "dino"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "dinov2", "hidden_size": 32}))
    with pytest.raises(AssetFormatError, match="cannot load the DINOv2 model"):
        load_image_encoder(broken)


def test_dinov2_folder_is_wrapped(tmp_path: Path) -> None:
    from transformers import Dinov2Config, Dinov2Model

    torch.manual_seed(2)
    cfg = Dinov2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, mlp_ratio=2, image_size=28,
                       patch_size=14)
    Dinov2Model(cfg).eval().save_pretrained(tmp_path / "dino")
    enc = load_image_encoder(tmp_path / "dino")
    assert isinstance(enc, Dinov2ImageEncoder) and enc.out_dim == 32 and enc.image_size == 28
    assert not any(p.requires_grad for p in enc.parameters())
    with torch.no_grad():
        out = enc(torch.rand(2, 3, 64, 64))  # resized to 28 px: 2 x 2 patches + [CLS]
    assert out.tokens.shape == (2, 5, 32) and out.pooled.shape == (2, 32)
    (tmp_path / "dino" / "preprocessor_config.json").write_text(json.dumps(
        {"crop_size": {"height": 42, "width": 42}, "image_mean": [0.5] * 3, "image_std": [0.5] * 3}))
    enc = load_image_encoder(tmp_path / "dino")
    assert enc.image_size == 42
    with torch.no_grad():
        assert enc(torch.rand(1, 3, 42, 42)).tokens.shape == (1, 10, 32)
