"""The pipeline: options, the weights manifest, and image/text -> asset with tiny random geometry models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from seed3d.errors import InvalidInputError, NotBuiltError, Seed3DError
from seed3d.pipeline import PipelineOptions, Seed3DPipeline, stage_list, weights_component


def test_options_refuse_unknown_skipped_and_unbuilt_stages() -> None:
    assert PipelineOptions().stages == ("geometry",)
    with pytest.raises(InvalidInputError, match="unknown stages"):
        PipelineOptions(stages=("geometry", "paint"))
    with pytest.raises(InvalidInputError, match="cannot be skipped"):
        PipelineOptions(stages=("texture",))
    with pytest.raises(NotBuiltError, match="texture"):
        PipelineOptions(stages=("geometry", "texture"))
    assert stage_list(" geometry, parts ,") == ("geometry", "parts")


def test_manifest_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(Seed3DError, match="no weights manifest"):
        weights_component("geometry_vae", tmp_path)
    (tmp_path / "pipeline.json").write_text(json.dumps({"components": {}}))
    with pytest.raises(Seed3DError, match="lists no component 'geometry_vae'"):
        Seed3DPipeline.from_pretrained(tmp_path)


@pytest.fixture(scope="module")
def tiny_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from seed3d.geometry.coarse import CoarseFlow
    from seed3d.geometry.conditioning import ShapeConditioner
    from seed3d.geometry.train import CoarseModel
    from seed3d.geometry.vae import ShapeVAE
    from tests.geometry.test_generate import TINY_COND, TINY_FLOW, TINY_VAE

    root = tmp_path_factory.mktemp("weights")
    torch.manual_seed(0)
    ShapeVAE(TINY_VAE).save_pretrained(root / "geometry-vae")
    CoarseModel(CoarseFlow(TINY_FLOW), ShapeConditioner(TINY_COND)).save_pretrained(root / "geometry-coarse")
    (root / "pipeline.json").write_text(json.dumps({"components": {
        "geometry_vae": {"path": "geometry-vae"}, "geometry_coarse": {"path": "geometry-coarse"}}}))
    return root


def test_image_and_text_make_a_one_body_asset_with_metadata(tiny_weights: Path) -> None:
    pipe = Seed3DPipeline.from_pretrained(tiny_weights)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    opts = PipelineOptions(seed=3, steps=2, resolution=32, target_faces=None)
    seen: list[str] = []
    asset = pipe(image=image, text="a box 30 cm tall", options=opts, progress=lambda s, f, m: seen.append(s))
    assert [p.name for p in asset.parts] == ["body"] and not asset.joints
    assert asset.metadata["seed"] == 3 and set(asset.metadata["models"]) == {"geometry_vae", "geometry_coarse"}
    assert "geometry" in asset.metadata["timings"] and set(seen) == {"geometry"}
    assert np.ptp(asset.parts[0].mesh.vertices[:, 2]) == pytest.approx(0.30, rel=1e-3)
    again = pipe(image=image, text="a box 30 cm tall", options=opts)
    assert np.array_equal(again.parts[0].mesh.vertices, asset.parts[0].mesh.vertices)
