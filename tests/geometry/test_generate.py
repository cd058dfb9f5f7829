"""Stage-1 training (flow + image encoder on coarse SDF grids), stage 2 and the shape generator, end to end with tiny
models."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from seed3d.condition.encoder import ImageEncoderConfig
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.geometry.coarse import CoarseFlow, CoarseFlowConfig, grid_sdf_function
from seed3d.geometry.conditioning import ConditionerConfig, ShapeConditioner
from seed3d.geometry.detail import DetailFlow, DetailFlowConfig, coarse_support
from seed3d.geometry.generate import GenerateOptions, ShapeGenerator, coarse_grid, coarse_mesh
from seed3d.geometry.train import CoarseTrainConfig, train_coarse
from seed3d.geometry.vae import ShapeLatent, ShapeVAE, ShapeVAEConfig
from seed3d.pipeline import geometry_fraction
from seed3d.synth.dataset import DatasetConfig, build_split

TINY_VAE = ShapeVAEConfig(num_tokens=16, token_choices=(16,), surface_points=96, sharp_points=32, anchor_pool=64,
                          complexity_k=8, width=32, heads=2, encoder_depth=1, latent_dim=8, decoder_depth=1,
                          route_candidates=4)
TINY_COND = ConditionerConfig(image=ImageEncoderConfig(image_size=16, patch=8, width=32, depth=1, heads=2, out_dim=32),
                              cond_dim=32, shape_cells=2)
TINY_FLOW = CoarseFlowConfig(grid=8, patch=4, width=32, depth=1, heads=2, cond_dim=32)
DATA = DatasetConfig(samples_per_shard=2, surface_points=256, sharp_points=64, volume_points=16, near_points=16,
                     grid_resolution=8, cond_views=2, cond_resolution=16, pbr_resolution=8, categories=("box", "bowl"))


def _run(**overrides: object) -> CoarseTrainConfig:
    settings = {"steps": 2, "batch": 2, "warmup": 1, "checkpoint_every": 1, "log_every": 1, "conditioner": TINY_COND,
                "model": TINY_FLOW, **overrides}
    return CoarseTrainConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("gen")
    data = root / "data"
    build_split(data, "train", 3, DATA, workers=1)
    torch.manual_seed(0)
    ShapeVAE(TINY_VAE).save_pretrained(root / "vae")
    final = train_coarse(data, root / "run", _run())
    return data, root / "vae", final


def test_stage1_training_saves_flow_and_conditioner_and_resumes(trained: tuple[Path, Path, Path]) -> None:
    data, _, final = trained
    assert (final / "flow" / "model.safetensors").is_file() and (final / "conditioner" / "config.json").is_file()
    info = json.loads((final / "training.json").read_text())
    assert info["steps"] == 2 and info["train_shapes"] == 3
    train_coarse(data, final.parent, _run(steps=3))
    log = [json.loads(line) for line in (final.parent / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3] and all(np.isfinite(r["loss"]) for r in log)
    assert all(0.0 <= r["align"] <= 2.0 and r["loss"] >= r["flow_loss"] for r in log)  # the image-text term


def test_stage1_batches_hold_the_shapes_grids_and_depend_on_seed_and_step(trained: tuple[Path, Path, Path]) -> None:
    from seed3d.condition.augment import AugmentConfig, ViewAugmenter
    from seed3d.geometry.train import load_grids, load_views, make_coarse_batch

    data, _, _ = trained
    grids, views = load_grids(data, "train", 8), load_views(data, "train")
    assert grids.shape == (3, 8, 8, 8) and (grids < 0).any() and (grids > 0).any()
    text = (np.zeros((3, 4, 384), np.float16), np.ones((3, 4), bool))
    aug = ViewAugmenter(AugmentConfig(size=16))
    cfg = _run(batch=4)
    a, b = (make_coarse_batch(grids, views, text, 7, cfg, aug) for _ in range(2))
    assert a["sdf"].shape == a["noise"].shape == (4, 8, 8, 8) and a["text_vec"].shape == (4, 384)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert any(bool((a["sdf"][0] == torch.from_numpy(g)).all()) for g in grids)  # a shape's own grid
    other = make_coarse_batch(grids, views, text, 8, cfg, aug)
    assert not torch.equal(other["noise"], a["noise"])


def test_stage1_training_refuses_data_without_matching_grids(trained: tuple[Path, Path, Path],
                                                             tmp_path: Path) -> None:
    data, _, _ = trained
    with pytest.raises(InvalidInputError, match="--grid-resolution 16"):
        train_coarse(data, tmp_path / "run", _run(model=CoarseFlowConfig(grid=16, patch=4, width=32, depth=1,
                                                                         heads=2, cond_dim=32)))
    manifest = json.loads((data / "train" / "manifest.json").read_text())
    old = tmp_path / "old"
    (old / "train").mkdir(parents=True)
    manifest["fields"] = [f for f in manifest["fields"] if f["name"] != "grid_sdf"]
    (old / "train" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(AssetFormatError, match="rebuild"):
        train_coarse(old, tmp_path / "run", _run())


def test_shape_head_training_keeps_the_flow_and_encoder(trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    data, _, source = trained
    final = train_coarse(data, tmp_path / "head", _run(trainable="shape_head", init_from=str(source)))
    log = [json.loads(line) for line in (tmp_path / "head" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and all(np.isfinite(r["shape"]) for r in log)
    before, after = ShapeConditioner.from_pretrained(source / "conditioner"), ShapeConditioner.from_pretrained(
        final / "conditioner")
    b, a = before.state_dict(), after.state_dict()
    assert a.keys() == b.keys() and any(k.startswith("shape_head.") for k in a)
    assert all(torch.equal(a[k], b[k]) for k in a if not k.startswith("shape_head."))
    assert not all(torch.equal(a[k], b[k]) for k in a if k.startswith("shape_head."))
    flow_a = CoarseFlow.from_pretrained(final / "flow").state_dict()
    flow_b = CoarseFlow.from_pretrained(source / "flow").state_dict()
    assert all(torch.equal(flow_a[k], flow_b[k]) for k in flow_b)


def test_stage1_training_settings_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="needs init_from"):
        _run(trainable="shape_head")
    with pytest.raises(InvalidInputError, match="trainable must be one of"):
        _run(trainable="flow")
    with pytest.raises(InvalidInputError, match="must divide the grid"):
        _run(conditioner=ConditionerConfig(image=TINY_COND.image, cond_dim=32, shape_cells=3))
    with pytest.raises(InvalidInputError, match="must divide the grid"):
        _run(conditioner=ConditionerConfig(image=TINY_COND.image, cond_dim=32))  # no head, but its loss is on
    assert _run(conditioner=ConditionerConfig(image=TINY_COND.image, cond_dim=32), shape_weight=0.0).trainable == "all"
    with pytest.raises(InvalidInputError, match="candidates"):
        GenerateOptions(candidates=0)


def test_stage1_keeps_the_candidate_nearest_the_shape_prior(trained: tuple[Path, Path, Path]) -> None:
    _, _, final = trained
    gen = ShapeGenerator.from_folders(final)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    cond, mask = gen.condition(image=image)
    prior = gen.shape_prior(image)
    assert prior is not None and prior.shape == (1, 8)
    assert gen.shape_prior(None) is None
    opts = GenerateOptions(steps=2, seed=3, candidates=3)
    from seed3d.nn.flow import FlowSampler

    sampler = FlowSampler(num_steps=2, guidance_scale=opts.guidance)
    grids = gen.flow.generate(cond.expand(3, -1, -1), mask.expand(3, -1), sampler=sampler,
                              generator=torch.Generator().manual_seed(3))
    pooled = torch.nn.functional.adaptive_avg_pool3d(gen.flow.to_values(grids)[:, None], 2).flatten(1)
    for k in range(3):  # whichever candidate the prior points at is the one kept
        assert np.array_equal(gen.sample_coarse(cond, mask, opts, prior=pooled[k: k + 1]), grids[k].numpy())
    one = gen.sample_coarse(cond, mask, GenerateOptions(steps=2, seed=3))
    assert np.allclose(one, grids[0].numpy(), atol=1e-5)  # the first candidate is the single sample


def test_conditioner_shape_head_is_optional() -> None:
    torch.manual_seed(0)
    plain = ShapeConditioner(ConditionerConfig(image=TINY_COND.image, cond_dim=32)).eval()
    images = torch.rand(2, 3, 16, 16)
    assert plain.shape_head is None and plain.shape_prior(images) is None
    with pytest.raises(InvalidInputError, match="no shape head"):
        plain.predict_shape(plain.image_encoder(images))
    assert ShapeConditioner(TINY_COND).eval().shape_prior(images).shape == (2, 8)
    with pytest.raises(InvalidInputError, match="shape_cells"):
        ConditionerConfig(shape_cells=-1)


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
    _, _, final = trained
    gen = ShapeGenerator.from_folders(final)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    opts = GenerateOptions(steps=2, resolution=32, target_faces=None, seed=3)
    seen: list[tuple[str, float]] = []
    a = gen.generate(image=image, text="a small box 30 cm tall", options=opts,
                     callback=lambda p, f: seen.append((p, f)))
    b = gen.generate(image=image, text="a small box 30 cm tall", options=opts)
    assert np.array_equal(a.mesh.vertices, b.mesh.vertices) and np.array_equal(a.coarse, b.coarse)
    # every phase reports, in order, and the pipeline's bar over them only moves forward to the end
    phases = list(dict.fromkeys(p for p, _ in seen))
    assert phases == ["condition", "coarse", "extract", "postprocess"]  # no detail flow in this generator
    bar = [geometry_fraction(p, f) for p, f in seen]
    assert bar == sorted(bar) and bar[0] == 0.0 and bar[-1] == pytest.approx(1.0)
    assert len([p for p, _ in seen if p == "extract"]) >= 3
    assert a.coarse.shape == (8, 8, 8) and a.latent is None
    assert a.mesh.vertices[:, 2].min() == pytest.approx(0.0, abs=1e-9)
    assert np.ptp(a.mesh.vertices[:, 2]) == pytest.approx(0.30, rel=1e-3)
    assert a.mesh.to_trimesh().is_watertight
    assert set(a.timings) == {"condition", "flow", "extract", "postprocess"}
    with pytest.raises(InvalidInputError, match="image, a text or both"):
        gen.generate(text="  ", options=opts)
    # the coarse surface is the grid's level set dilated by level_cells; a higher level encloses it
    field, truncation = gen.surface_field(a.coarse, None)
    assert truncation == pytest.approx(TINY_FLOW.truncation - TINY_FLOW.level)
    q = np.random.default_rng(1).uniform(-0.3, 0.3, (64, 3)).astype(np.float32)  # away from the clipping box
    assert np.allclose(field(q), grid_sdf_function(a.coarse, TINY_FLOW.truncation)(q) - TINY_FLOW.level, atol=1e-6)
    inner, outer = gen.extract(field, truncation, 32), gen.extract(field, truncation, 32, level=0.02)
    assert outer.to_trimesh().volume > inner.to_trimesh().volume
    with pytest.raises(InvalidInputError, match="VAE"):
        ShapeGenerator(gen.flow, gen.conditioner, detail=DetailFlow(DetailFlowConfig(width=32, depth=1, heads=2,
                                                                                     cond_dim=32)))


def test_coarse_grid_fits_the_truncation_band() -> None:
    # half the coarse cell diagonal (x 1.2) must stay below the truncation: 32³ for 0.1 (0.065), 16³ for 0.2 (0.13)
    assert coarse_grid(256, 0.1) == 32 and coarse_grid(128, 0.1) == 32 and coarse_grid(256, 0.2) == 16
    assert coarse_grid(256, 0.05) == 64 and coarse_grid(48, 0.1) == 24


def test_stage2_batches_lie_on_the_line_from_the_noised_coarse_latent_to_the_shape(
        trained: tuple[Path, Path, Path]) -> None:
    from seed3d.condition.augment import AugmentConfig, ViewAugmenter
    from seed3d.geometry.train import DetailTrainConfig, load_views, make_detail_batch
    from seed3d.nn.flow import interpolate

    views = load_views(trained[0], "train")
    n, m, c, scale = len(views["description"]), 40, 8, 0.5  # flow units: state x scale
    rng = np.random.default_rng(0)
    latents = {"positions": rng.uniform(-1, 1, (n, m, 3)).astype(np.float32), "mask": np.ones((n, m), bool),
               "feats": rng.normal(size=(n, m, c)).astype(np.float32),
               "coarse": rng.normal(size=(n, m, c)).astype(np.float32)}
    latents["mask"][0] = False  # a shape whose coarse grid held no surface
    text = (np.zeros((n, 4, 32), np.float16), np.ones((n, 4), bool))
    cfg = DetailTrainConfig(batch=32, model=DetailFlowConfig(latent_dim=c, t_start=0.4))
    augmenter = ViewAugmenter(AugmentConfig(size=16))
    batch = make_detail_batch(latents, views, text, 3, cfg, scale, augmenter)
    assert torch.equal(batch["end"], make_detail_batch(latents, views, text, 3, cfg, scale, augmenter)["end"])
    assert bool(((batch["t"] > 0) & (batch["t"] <= 0.4)).all())
    # each sample's target is one usable shape's latent, in the flow's units
    rows = [int(np.flatnonzero(np.isclose(latents["feats"][:, 0, 0] * scale, x[0, 0].item()))[0])
            for x in batch["x0"]]
    assert 0 not in rows and len(set(rows)) == n - 1
    assert torch.allclose(batch["x0"], torch.from_numpy(latents["feats"][rows] * scale))
    assert torch.allclose(batch["coarse"], torch.from_numpy(latents["coarse"][rows] * scale))
    # at t_start the line passes through the coarse latent noised to t_start: (1 - t) coarse + t N(0, 1)
    at_start = interpolate(batch["x0"], batch["end"], torch.full((32,), 0.4))
    eps = (at_start - 0.6 * torch.from_numpy(latents["coarse"][rows] * scale)) / 0.4
    assert abs(float(eps.mean())) < 0.05 and abs(float(eps.std()) - 1.0) < 0.05
    # and at t = 0 it is the target
    assert torch.allclose(interpolate(batch["x0"], batch["end"], torch.zeros(32)), batch["x0"])


def _stage2_sample(coarse: Path, vae: Path, detail: Path
                   ) -> tuple[ShapeGenerator, np.ndarray, torch.Tensor, torch.Tensor, GenerateOptions, np.ndarray,
                              ShapeLatent]:
    """A generator with both stages, a random image, its condition, 2-step options, and that image's stage-1 grid and
    stage-2 latent."""
    gen = ShapeGenerator.from_folders(coarse, vae, detail)
    image = (np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)
    cond, mask = gen.condition(image=image)
    opts = GenerateOptions(steps=2, seed=3)
    grid = gen.sample_coarse(cond, mask, opts)
    return gen, image, cond, mask, opts, grid, gen.sample_detail(grid, cond, mask, opts)


def test_stage2_training_starts_from_stage1_and_generation_uses_it(trained: tuple[Path, Path, Path],
                                                                   tmp_path: Path) -> None:
    from seed3d.geometry.train import DetailTrainConfig, train_detail

    data, vae, coarse = trained
    detail_cfg = DetailFlowConfig(latent_dim=8, width=32, depth=1, heads=2, cond_dim=32, resolution=8, dilation=0,
                                  max_tokens=24)
    run = DetailTrainConfig(steps=2, batch=2, warmup=1, checkpoint_every=1, log_every=1, vae=str(vae),
                            coarse=str(coarse), model=detail_cfg)
    final = train_detail(data, tmp_path / "detail", run)
    info = json.loads((final / "training.json").read_text())
    assert info["steps"] == 2 and info["latent_scale"] > 0 and list((tmp_path / "detail").glob("supports-*.npz"))
    gen, image, cond, mask, opts, grid, latent = _stage2_sample(coarse, vae, final)
    assert 0 < latent.anchors.shape[1] <= 24  # the latent sits on the detail support
    assert torch.equal(gen.sample_detail(grid, cond, mask, opts).feats, latent.feats)
    assert np.array_equal(gen.sample_coarse(cond, mask, opts), grid)
    # the final surface is the VAE's decoding of stage 2's latent; without it, the coarse surface
    q = np.random.default_rng(1).uniform(-1, 1, (64, 3)).astype(np.float32)
    field, truncation = gen.surface_field(grid, latent)
    assert truncation == TINY_VAE.truncation and np.allclose(field(q), gen.vae.sdf_function(latent)(q))
    coarse_only = gen.generate(image=image, options=GenerateOptions(steps=2, seed=3, resolution=32, detail=False,
                                                                    candidates=1))
    assert coarse_only.latent is None and np.array_equal(coarse_only.coarse, grid)
    with pytest.raises(InvalidInputError, match="no stage-1 flow"):
        train_detail(data, tmp_path / "d2", DetailTrainConfig(vae=str(vae), coarse=str(tmp_path / "none")))
    with pytest.raises(InvalidInputError, match="no stage-2 flow"):
        train_detail(data, tmp_path / "d2", DetailTrainConfig(vae=str(vae), coarse=str(coarse),
                                                              init_from=str(tmp_path / "none")))
    # a fresh run can start from a saved stage-2 model instead of stage 1
    again = train_detail(data, tmp_path / "d3", DetailTrainConfig(
        steps=1, batch=2, warmup=1, lr=1e-12, vae=str(vae), coarse=str(coarse), model=detail_cfg, init_from=str(final)))
    start, restarted = DetailFlow.from_pretrained(final).state_dict(), DetailFlow.from_pretrained(again).state_dict()
    assert start["out_proj.weight"].abs().max() > 0  # trained (stage 1 would start it at zero)
    assert all(torch.allclose(start[k], restarted[k], atol=1e-6) for k in start)


def test_stage2_with_anchor_offsets_learns_anchors_on_the_true_surface(trained: tuple[Path, Path, Path],
                                                                        tmp_path: Path) -> None:
    from scipy.spatial import cKDTree

    from seed3d.geometry.train import DetailTrainConfig, load_geometry, train_detail

    data, vae, coarse = trained
    plain_cfg = DetailFlowConfig(latent_dim=8, width=32, depth=1, heads=2, cond_dim=32, resolution=8, dilation=0,
                                 max_tokens=24)
    settings = {"batch": 2, "warmup": 1, "vae": str(vae), "coarse": str(coarse)}
    plain = train_detail(data, tmp_path / "plain", DetailTrainConfig(steps=2, model=plain_cfg, **settings))
    snap_cfg = dataclasses.replace(plain_cfg, anchor_offsets=True)
    final = train_detail(data, tmp_path / "snap", DetailTrainConfig(steps=1, lr=1e-12, model=snap_cfg,
                                                                    init_from=str(plain), **settings))
    info = json.loads((final / "training.json").read_text())
    assert info["offset_scale"] > 0 and info["latent_scale"] == json.loads(
        (plain / "training.json").read_text())["latent_scale"]  # the warm start's units are kept
    # the model without offsets carries over: its latent channels as they were, the offsets' output at zero
    old, new = DetailFlow.from_pretrained(plain).state_dict(), DetailFlow.from_pretrained(final).state_dict()
    assert torch.allclose(new["out_proj.weight"][:8], old["out_proj.weight"], atol=1e-6)
    assert new["out_proj.weight"][8:].abs().max() < 1e-9  # zero, moved by one step at lr 1e-12
    assert torch.allclose(new["in_proj.weight"][:, :16], old["in_proj.weight"], atol=1e-6)
    # the target anchors (support + offsets) sit on the true surface samples unless more than the reach away
    (cache,) = (tmp_path / "snap").glob("supports-*.npz")
    assert "snapped" in cache.name
    pairs = dict(np.load(cache))
    surface = load_geometry(data, "train", fields=("surface_points",))["surface_points"]
    reach = snap_cfg.snap_reach
    for i in range(len(surface)):
        real = pairs["mask"][i]
        pos, offsets = pairs["positions"][i][real], pairs["feats"][i][real][:, 8:]
        moved = np.linalg.norm(offsets, axis=1)
        gap = cKDTree(surface[i]).query(pos + offsets)[0]
        assert len(pos) and np.all(moved <= reach + 1e-5) and np.all((gap < 1e-5) | (moved > reach - 1e-5))
        assert np.abs(pairs["coarse"][i][real][:, 8:]).max() > 0  # the start snaps onto the coarse surface
    # generation anchors stage 2's latent at the support moved by its generated offsets
    gen, _, cond, mask, opts, grid, latent = _stage2_sample(coarse, vae, final)
    support = coarse_support(coarse_mesh(gen.flow.config, grid), 8, 0, 24)
    shift = (latent.anchors[0] - torch.from_numpy(support)).abs()
    assert latent.feats.shape == (1, len(support), 8) and shift.max() > 0 and shift.max() <= reach + 1e-6
    assert torch.equal(gen.sample_detail(grid, cond, mask, opts).anchors, latent.anchors)


def test_stage2_can_train_on_stage1s_own_samples(trained: tuple[Path, Path, Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from seed3d.geometry.coarse import CoarseFlow
    from seed3d.geometry.train import DetailTrainConfig, load_grids, load_views, sampled_grids, train_detail

    data, vae, coarse = trained
    with pytest.raises(InvalidInputError, match="coarse_from"):
        DetailTrainConfig(coarse_from="noise")
    with pytest.raises(InvalidInputError, match="shape_offset"):
        DetailTrainConfig(shape_offset=-1)
    # the grids are the stage-1 flow's samples from each shape's condition, reproducible from the seed
    flow, cond = CoarseFlow.from_pretrained(coarse / "flow"), ShapeConditioner.from_pretrained(coarse / "conditioner")
    views = load_views(data, "train")
    text = (np.random.default_rng(0).standard_normal((3, 4, 384)).astype(np.float16), np.ones((3, 4), bool))
    a, b = (sampled_grids(flow, cond, views, text, DetailTrainConfig(coarse_from="stage1"), batch=2) for _ in range(2))
    assert a.shape == (3, 8, 8, 8) and np.array_equal(a, b)
    assert not np.array_equal(a, sampled_grids(flow, cond, views, text, DetailTrainConfig(seed=1), batch=2))
    assert not np.allclose(a, load_grids(data, "train", 8))
    # as at inference, an image condition keeps, of its candidates, the one nearest the shape head's prediction
    image_only = DetailTrainConfig(coarse_from="stage1", image_share=1.0, text_share=0.0)
    drawn: list[torch.Tensor] = []
    predicted: list[torch.Tensor] = []
    generate, predict = flow.generate, cond.predict_shape
    monkeypatch.setattr(flow, "generate", lambda *a, **k: drawn.append(generate(*a, **k)) or drawn[-1])
    monkeypatch.setattr(cond, "predict_shape", lambda *a, **k: predicted.append(predict(*a, **k)) or predicted[-1])
    four = sampled_grids(flow, cond, views, text, image_only, batch=2, candidates=4)
    candidates, priors = torch.cat(drawn).view(3, 4, 8, 8, 8), torch.cat(predicted)
    for j in range(3):
        pooled = torch.nn.functional.adaptive_avg_pool3d(flow.to_values(candidates[j])[:, None], 2).flatten(1)
        dist = ((pooled - priors[j]) ** 2).mean(1)
        assert np.array_equal(four[j], candidates[j, int(dist.argmin())].numpy())
    monkeypatch.undo()
    assert np.array_equal(four, sampled_grids(flow, cond, views, text, image_only, batch=2, candidates=4))
    assert not np.array_equal(four, sampled_grids(flow, cond, views, text, image_only, batch=2, candidates=1))
    detail_cfg = DetailFlowConfig(latent_dim=8, width=32, depth=1, heads=2, cond_dim=32, resolution=8, dilation=0,
                                  max_tokens=24)
    settings = {"steps": 1, "batch": 2, "warmup": 1, "vae": str(vae), "coarse": str(coarse), "model": detail_cfg}
    with pytest.raises(InvalidInputError, match="no train shapes from shape_offset 3"):
        train_detail(data, tmp_path / "none", DetailTrainConfig(shape_offset=3, **settings))  # type: ignore[arg-type]
    supports = {}
    for source in ("stage1", "truth"):
        final = train_detail(data, tmp_path / source, DetailTrainConfig(coarse_from=source, shape_offset=1,
                                                                        **settings))  # type: ignore[arg-type]
        assert json.loads((final / "training.json").read_text())["train_shapes"] == 2  # shapes 1 and 2 of 3
        (cache,) = (tmp_path / source).glob("supports-*.npz")
        assert ("stage1" in cache.name) == (source == "stage1") and "from1" in cache.name
        supports[source] = dict(np.load(cache))
    # the support (where stage 2 works) follows the sampled grid, the target is the true shape encoded there
    assert not np.array_equal(supports["stage1"]["positions"], supports["truth"]["positions"])


def test_cli_train_geometry_detail_passes_its_coarse_source(tmp_path: Path,
                                                            fake_trainer: Callable[[str, str], list[Any]]) -> None:
    from seed3d.cli import main
    from seed3d.geometry.train import DetailTrainConfig

    seen: list[DetailTrainConfig] = fake_trainer("seed3d.geometry.train", "train_detail")
    assert main(["train", "geometry-detail", "--out", str(tmp_path / "a"), "--coarse-from", "stage1",
                 "--shape-offset", "2560", "--shapes", "1280"]) == 0
    assert main(["train", "geometry-detail", "--out", str(tmp_path / "b")]) == 0
    assert (seen[0].coarse_from, seen[0].shape_offset, seen[0].shapes) == ("stage1", 2560, 1280)
    assert (seen[1].coarse_from, seen[1].shape_offset, seen[1].shapes) == ("truth", 0, DetailTrainConfig().shapes)
    # anchor offsets are on by default (as the shipped model was trained) and can be turned off
    assert seen[1].model.anchor_offsets and DetailTrainConfig().model.anchor_offsets
    assert main(["train", "geometry-detail", "--out", str(tmp_path / "c"), "--model-option", "anchor_offsets=false",
                 "--model-option", "max_tokens=256"]) == 0
    assert not seen[2].model.anchor_offsets and seen[2].model.max_tokens == 256 and seen[2].model.resolution == 32
    with pytest.raises(SystemExit):
        main(["train", "geometry-detail", "--coarse-from", "noise"])
