"""Stage-1 training (flow + image encoder on VAE latents) and the shape generator, end to end with tiny models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from seed3d.condition.encoder import ImageEncoderConfig
from seed3d.errors import InvalidInputError
from seed3d.geometry.coarse import CoarseFlow, CoarseFlowConfig
from seed3d.geometry.conditioning import ConditionerConfig, ShapeConditioner
from seed3d.geometry.generate import GenerateOptions, ShapeGenerator, coarse_grid
from seed3d.geometry.train import CoarseTrainConfig, train_coarse
from seed3d.geometry.vae import ShapeVAE, ShapeVAEConfig
from seed3d.synth.dataset import DatasetConfig, build_split

TINY_VAE = ShapeVAEConfig(num_tokens=16, token_choices=(16,), surface_points=96, sharp_points=32, anchor_pool=64,
                          complexity_k=8, width=32, heads=2, encoder_depth=1, latent_dim=8, decoder_depth=1,
                          route_candidates=4)
TINY_COND = ConditionerConfig(image=ImageEncoderConfig(image_size=16, patch=8, width=32, depth=1, heads=2, out_dim=32),
                              cond_dim=32)
TINY_FLOW = CoarseFlowConfig(latent_dim=8, width=32, depth=1, heads=2, cond_dim=32, num_tokens=16, slot_tokens=True)
SET_FLOW = CoarseFlowConfig(**{**TINY_FLOW.__dict__, "slot_tokens": False})


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("gen")
    data = root / "data"
    cfg = DatasetConfig(samples_per_shard=2, surface_points=256, sharp_points=64, volume_points=16, near_points=16,
                        cond_views=2, cond_resolution=16, pbr_resolution=8, categories=("box", "bowl"))
    build_split(data, "train", 3, cfg, workers=1)
    torch.manual_seed(0)
    ShapeVAE(TINY_VAE).save_pretrained(root / "vae")
    run = CoarseTrainConfig(steps=2, batch=2, warmup=1, checkpoint_every=1, log_every=1, vae=str(root / "vae"),
                            num_tokens=16, conditioner=TINY_COND, model=TINY_FLOW)
    final = train_coarse(data, root / "run", run)
    return data, root / "vae", final


def test_stage1_training_saves_flow_and_conditioner_and_resumes(trained: tuple[Path, Path, Path]) -> None:
    data, vae, final = trained
    assert (final / "flow" / "model.safetensors").is_file() and (final / "conditioner" / "config.json").is_file()
    info = json.loads((final / "training.json").read_text())
    assert info["steps"] == 2 and info["latent_scale"] > 0
    assert json.loads((final / "flow" / "config.json").read_text())["extra"]["latent_scale"] == info["latent_scale"]
    assert list((final.parent).glob("latents-*-train-16.npz"))  # the encoded latents are cached
    run = CoarseTrainConfig(steps=3, batch=2, warmup=1, checkpoint_every=1, log_every=1, vae=str(vae),
                            num_tokens=16, conditioner=TINY_COND, model=TINY_FLOW)
    train_coarse(data, final.parent, run)
    log = [json.loads(line) for line in (final.parent / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3] and all(np.isfinite(r["loss"]) for r in log)
    assert all(0.0 <= r["align"] <= 2.0 and r["loss"] >= r["flow_loss"] for r in log)  # the image-text term


def test_stage1_batches_order_tokens_by_the_template_or_pair_them_with_the_noise(
        trained: tuple[Path, Path, Path]) -> None:
    from seed3d.condition.augment import AugmentConfig, ViewAugmenter
    from seed3d.geometry.train import load_views, make_coarse_batch, template_order, token_template

    data, _, final = trained
    z = np.load(next(final.parent.glob("latents-*-train-16.npz")))
    latents = {k: z[k] for k in z.files}
    template = token_template(latents["anchors"], 16)
    latents["order"] = template_order(latents["anchors"], template)
    # the trained flow carries the template as its slot positions
    flow = CoarseFlow.from_pretrained(final / "flow")
    assert np.allclose(flow.slot_positions.numpy(), template)
    views = load_views(data, "train")
    text = (np.zeros((3, 4, 384), np.float16), np.ones((3, 4), bool))
    aug = ViewAugmenter(AugmentConfig(size=16))
    batches = {}
    for order, model in (("template", TINY_FLOW), ("ot", SET_FLOW), ("random", SET_FLOW)):
        cfg = CoarseTrainConfig(batch=2, num_tokens=16, model=model, conditioner=TINY_COND, token_order=order)
        batches[order] = make_coarse_batch(latents, views, text, 7, cfg, 1.0, aug)
        assert batches[order]["text_vec"].shape == (2, 384)
    cost = {k: float((b["x0"] - b["noise"]).square().sum()) for k, b in batches.items()}
    assert cost["ot"] < cost["random"]  # same shapes and noise (same seed and step), shorter paths
    # template order: slot k holds the anchor matched to template point k (the same shapes, shuffled, lie farther)
    scale = TINY_FLOW.anchor_scale
    near = np.linalg.norm(batches["template"]["x0"][..., :3].numpy() / scale - template, axis=-1).mean()
    shuffled = np.linalg.norm(batches["random"]["x0"][..., :3].numpy() / scale - template, axis=-1).mean()
    assert near < shuffled
    order = latents["order"][0]
    assert sorted(order.tolist()) == list(range(16))  # a permutation of the shape's own tokens


def test_stage1_settings_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="go together"):
        CoarseTrainConfig(num_tokens=16, model=SET_FLOW)
    with pytest.raises(InvalidInputError, match="token_order"):
        CoarseTrainConfig(num_tokens=16, model=SET_FLOW, token_order="sorted")
    with pytest.raises(InvalidInputError, match="must equal num_tokens"):
        CoarseTrainConfig(num_tokens=32, model=TINY_FLOW)
    flow = CoarseFlow(TINY_FLOW)
    cond = torch.randn(1, 3, 32)
    with pytest.raises(InvalidInputError, match="exactly 16 ordered tokens"):
        flow.generate(cond, num_tokens=8, steps=1)


def test_stage1_training_refuses_a_missing_or_mismatched_vae(trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data, vae, _ = trained
    with pytest.raises(InvalidInputError, match="no shape VAE"):
        train_coarse(data, tmp_path / "run", CoarseTrainConfig(vae=str(tmp_path / "nothing")))
    wrong = CoarseTrainConfig(vae=str(vae), model=CoarseFlowConfig(latent_dim=4, width=32, depth=1, heads=2),
                              token_order="ot")
    with pytest.raises(InvalidInputError, match="latent channels"):
        train_coarse(data, tmp_path / "run", wrong)


def test_conditioner_masks_switch_streams_off() -> None:
    torch.manual_seed(0)
    cond = ShapeConditioner(TINY_COND).eval()
    images, text = torch.rand(2, 3, 16, 16), torch.randn(2, 5, 384)
    tokens, mask = cond(images, text, torch.ones(2, 5, dtype=torch.bool), torch.tensor([True, False]),
                        torch.tensor([False, True]))
    n_img = tokens.shape[1] - 5
    assert mask[0, :n_img].all() and not mask[0, n_img:].any()
    assert not mask[1, :n_img].any() and mask[1, n_img:].all()
    with pytest.raises(InvalidInputError, match="image, a text or both"):
        cond()


def test_generator_makes_a_closed_mesh_in_meters_deterministically(trained: tuple[Path, Path, Path]) -> None:
    _, vae, final = trained
    gen = ShapeGenerator.from_folders(vae, final)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    opts = GenerateOptions(steps=2, resolution=32, target_faces=None, seed=3)
    a = gen.generate(image=image, text="a small box 30 cm tall", options=opts)
    b = gen.generate(image=image, text="a small box 30 cm tall", options=opts)
    assert np.array_equal(a.mesh.vertices, b.mesh.vertices)
    assert a.mesh.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-9)
    assert np.ptp(a.mesh.vertices[:, 2]) == pytest.approx(0.30, rel=1e-3)
    assert a.mesh.to_trimesh().is_watertight
    assert set(a.timings) == {"condition", "flow", "extract", "postprocess"}
    with pytest.raises(InvalidInputError, match="image, a text or both"):
        gen.generate(text="  ", options=opts)
    # a higher SDF level extracts a surface enclosing the level-0 one (normalised frame: the same latent)
    latent = gen.sample_latent(*gen.condition(image, "a small box"), opts)
    inner, outer = gen.extract(latent, 32), gen.extract(latent, 32, level=0.02)
    assert outer.to_trimesh().volume > inner.to_trimesh().volume


def test_coarse_grid_fits_the_truncation_band() -> None:
    assert coarse_grid(256, 0.1) == 64 and coarse_grid(128, 0.1) == 64 and coarse_grid(256, 0.2) == 32


def test_stage2_training_starts_from_stage1_and_generation_uses_it(trained: tuple[Path, Path, Path],
                                                                   tmp_path: Path) -> None:
    from seed3d.geometry.detail import DetailFlowConfig
    from seed3d.geometry.train import DetailTrainConfig, train_detail

    data, vae, coarse = trained
    detail_cfg = DetailFlowConfig(latent_dim=8, width=32, depth=1, heads=2, cond_dim=32, resolution=8, dilation=0,
                                  max_tokens=24)
    run = DetailTrainConfig(steps=2, batch=2, warmup=1, checkpoint_every=1, log_every=1, vae=str(vae),
                            coarse=str(coarse), model=detail_cfg)
    final = train_detail(data, tmp_path / "detail", run)
    info = json.loads((final / "training.json").read_text())
    assert info["steps"] == 2 and info["latent_scale"] > 0 and list((tmp_path / "detail").glob("supports-*.npz"))
    gen = ShapeGenerator.from_folders(vae, coarse, final)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    cond, mask = gen.condition(image=image)
    opts = GenerateOptions(steps=2, seed=3)
    latent = gen.sample_latent(cond, mask, opts)
    assert 0 < latent.anchors.shape[1] <= 24  # the latent now sits on the detail support
    assert torch.equal(gen.sample_latent(cond, mask, opts).feats, latent.feats)
    coarse_only = gen.sample_latent(cond, mask, GenerateOptions(steps=2, seed=3, detail=False))
    assert coarse_only.anchors.shape[1] == TINY_FLOW.num_tokens
    with pytest.raises(InvalidInputError, match="no stage-1 flow"):
        train_detail(data, tmp_path / "d2", DetailTrainConfig(vae=str(vae), coarse=str(tmp_path / "none")))
