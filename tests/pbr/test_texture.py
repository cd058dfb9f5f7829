"""The texture stage: generated rig views upsampled inside the silhouette and baked onto every part (tiny random
generator; the shipped one is measured by eval/bench_pbr.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.errors import InvalidInputError
from seed3d.pbr.model import PBRModelConfig, PBRViews
from seed3d.pbr.tagger import MaterialTagger, TaggerConfig
from seed3d.pbr.texture import TextureOptions, Texturer, upsample_views
from seed3d.synth import generate
from tests.pbr.test_model import TINY, tiny_model

SIX = PBRModelConfig(**{**TINY.__dict__, "num_views": 6, "text_dim": 384})


def test_upsampling_stays_inside_the_silhouette_and_never_mixes_in_background() -> None:
    mask = np.zeros((1, 4, 4), bool)
    mask[0, 1:3, 1:3] = True
    albedo = np.zeros((1, 4, 4, 3), np.float32)
    albedo[0, 1:3, 1:3] = (0.2, 0.4, 0.6)
    views = PBRViews(albedo, np.full((1, 4, 4), 0.3, np.float32) * mask, np.full((1, 4, 4), 0.7, np.float32) * mask,
                     mask)
    full = np.zeros((1, 16, 16), bool)
    full[0, 3:13, 3:13] = True
    full[0, 0, 0] = True  # covered at full resolution, but no covered low-resolution pixel near it
    a, m, r, keep = upsample_views(views, full)
    assert a.shape == (1, 16, 16, 3) and m.shape == r.shape == keep.shape == (1, 16, 16)
    assert keep[0, 3:13, 3:13].all() and not keep[0, 0, 0] and not (keep & ~full).any()
    assert np.allclose(a[keep], (0.2, 0.4, 0.6), atol=1e-5)  # a uniform part stays uniform to its very edge
    assert np.allclose(m[keep], 0.3, atol=1e-5) and np.allclose(r[keep], 0.7, atol=1e-5)
    assert np.all(a[~keep] == 0)
    with pytest.raises(InvalidInputError, match="does not fit"):
        upsample_views(views, np.zeros((2, 16, 16), bool))


def test_texturer_bakes_every_part_deterministically_and_loads_from_a_folder(tmp_path: Path) -> None:
    from seed3d.pbr.train import PBRTrainModel

    tagger = MaterialTagger(TaggerConfig(image_size=16, channels=(8, 16)))
    PBRTrainModel(tiny_model(config=SIX), tagger).save_pretrained(tmp_path / "pbr")
    texturer = Texturer.from_pretrained(tmp_path / "pbr")
    assert texturer.tagger is not None
    asset = generate("box", 0)
    opts = TextureOptions(steps=2, texture_size=128)
    a = texturer(asset, text="a red plastic box", options=opts)
    b = texturer(asset, text="a red plastic box", options=opts)
    assert isinstance(a.asset, Asset) and [p.name for p in a.asset.parts] == [p.name for p in asset.parts]
    assert [j.name for j in a.asset.joints] == [j.name for j in asset.joints]
    for part, other in zip(a.asset.parts, b.asset.parts, strict=True):
        mat = part.material
        assert mat.base_color_map is not None and mat.metallic_roughness_map is not None
        assert part.mesh.uv is not None and len(part.mesh.uv) == len(part.mesh.vertices)
        assert np.array_equal(mat.base_color_map, other.material.base_color_map)  # same inputs and seed
    summary = a.asset.metadata["texture"]
    assert summary["prompt"] == "a red plastic box" and len(summary["parts"]) == len(asset.parts)
    assert set(summary["stage_timings"]) == {"render", "generate", "bake"}
    other = texturer(asset, text="a red plastic box", options=TextureOptions(steps=2, texture_size=128, seed=1))
    assert not np.array_equal(other.asset.parts[0].material.base_color_map,
                              a.asset.parts[0].material.base_color_map)
    image = np.zeros((32, 32, 4), np.uint8)
    image[8:24, 8:24] = (200, 30, 30, 255)
    tagged = texturer(asset.parts[0].mesh, image=image, options=opts)  # a bare mesh, image only: tagger words
    assert len(tagged.asset.parts) == 1 and tagged.summary["prompt"]


def test_texturer_refuses_bad_targets_options_and_folders(tmp_path: Path) -> None:
    texturer = Texturer(tiny_model(config=SIX))
    with pytest.raises(InvalidInputError, match="Asset or a Mesh"):
        texturer("box.obj")
    with pytest.raises(InvalidInputError, match="steps"):
        TextureOptions(steps=0)
    with pytest.raises(InvalidInputError, match="guidance"):
        TextureOptions(guidance=-1.0)
    with pytest.raises(InvalidInputError, match="at most 2048"):
        TextureOptions(texture_size=4096)
    with pytest.raises(InvalidInputError, match="not a PBR model folder"):
        Texturer.from_pretrained(tmp_path)
