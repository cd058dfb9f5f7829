"""Training of the PBR generator and the material tagger on a tiny built data set: cached views, batches,
losses, a run that writes both models and resumes, refused settings, and the ``seed3d train pbr`` entry."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from seed3d.condition.image import srgb_to_linear
from seed3d.errors import InvalidInputError
from seed3d.pbr.data import kind_words_text, load_references, load_views
from seed3d.pbr.model import PBRGenerator, PBRModelConfig
from seed3d.pbr.tagger import MaterialTagger, TaggerConfig
from seed3d.pbr.train import (
    PBRTrainConfig,
    PBRTrainModel,
    augment_references,
    losses,
    make_batch,
    make_tagger_batch,
    mean_baseline,
    tagger_config,
    tagger_losses,
    tagger_targets,
    train_pbr,
    view_metrics,
)
from seed3d.synth.dataset import DatasetConfig, build_split

MODEL = PBRModelConfig(resolution=8, patch=4, width=32, depth=2, heads=2, moe_blocks=1, num_experts=4, top_k=2,
                       expert_ratio=1.0, reference_resolution=16, reference_patch=8, num_null_tokens=2,
                       time_freq_dim=16, pixel_dim=8)
TAGGER = TaggerConfig(image_size=16, channels=(8, 16))


def tiny_config(**kw: object) -> PBRTrainConfig:
    base: dict[str, object] = {"steps": 2, "batch": 2, "warmup": 1, "checkpoint_every": 1, "log_every": 1,
                               "model": MODEL, "tagger": TAGGER, "tagger_steps": 2, "tagger_batch": 4}
    return PBRTrainConfig(**{**base, **kw})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data")
    cfg = DatasetConfig(samples_per_shard=2, surface_points=256, sharp_points=16, volume_points=16, near_points=16,
                        cond_views=2, cond_resolution=32, pbr_resolution=16, categories=("cabinet", "box"))
    build_split(out, "train", 3, cfg, workers=1)
    return out


@pytest.fixture(scope="module")
def views(tiny_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    return load_views(tiny_data, "train", 8, 16, tmp_path_factory.mktemp("cache"))


def test_cached_views_hold_targets_geometry_references_and_texts(tiny_data: Path, tmp_path: Path) -> None:
    v = load_views(tiny_data, "train", 8, 16, tmp_path)
    assert v["target"].shape == (3, 6, 5, 8, 8) and v["geometry"].shape == (3, 6, 6, 8, 8)
    assert v["mask"].shape == (3, 6, 8, 8) and v["mask"].any(axis=(2, 3)).all()
    assert v["reference"].shape == (3, 2, 3, 16, 16) and v["reference"].dtype == np.uint8
    t = v["target"].astype(np.float32)
    assert np.all(t[:, :, :][~v["mask"][:, :, None].repeat(5, 2)] == 0) and np.abs(t).max() <= 1.0
    assert all(m for m in v["materials"]) and all(d for d in v["description"])
    assert v["desc_tokens"].shape == (3, 64, 384) and v["desc_mask"][:, 0].all() and v["mat_mask"][:, 0].all()
    cached = list(tmp_path.glob("pbr-views-train-*.npz"))
    assert len(cached) == 1
    again = load_views(tiny_data, "train", 8, 16, tmp_path)
    assert all(np.array_equal(again[k], v[k]) for k in v)
    assert list(tmp_path.glob("pbr-views-train-*.npz")) == cached
    with pytest.raises(InvalidInputError, match="do not downsample"):
        load_views(tiny_data, "train", 6, 16, tmp_path)


def test_references_at_another_size_are_the_views_own_remade_and_cached(tiny_data: Path, tmp_path: Path) -> None:
    same = load_references(tiny_data, "train", 16, tmp_path)
    assert np.array_equal(same, load_views(tiny_data, "train", 8, 16, tmp_path)["reference"])
    big = load_references(tiny_data, "train", 32, tmp_path)
    assert big.shape == (3, 2, 3, 32, 32) and big.dtype == np.uint8
    # the same pictures: the 32 px ones, area-averaged, are close to the 16 px ones
    small = big.astype(np.float32).reshape(3, 2, 3, 16, 2, 16, 2).mean((4, 6))
    assert np.abs(small - same.astype(np.float32)).mean() < 12.0
    cached = sorted(tmp_path.glob("pbr-references-train-*.npz"))
    assert len(cached) == 2
    assert np.array_equal(load_references(tiny_data, "train", 32, tmp_path), big)
    assert sorted(tmp_path.glob("pbr-references-train-*.npz")) == cached


def test_batches_depend_only_on_seed_and_step(views: dict[str, np.ndarray]) -> None:
    cfg = tiny_config(batch=4)
    tagger = MaterialTagger(TAGGER)
    labels = tagger_targets(views, tagger)
    assert labels[0].any(axis=1).all()  # every synth asset has a known finish
    a, b, c = make_batch(views, labels, 5, cfg), make_batch(views, labels, 5, cfg), make_batch(views, labels, 6, cfg)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["noise"], c["noise"])
    assert a["x0"].shape == (4, 6, 5, 8, 8) and a["geometry"].shape == (4, 6, 7, 8, 8)
    assert a["image"].shape == (4, 3, 16, 16) and a["text"].shape == (4, 64, 384)
    assert torch.equal(a["geometry"][:, :, 6].bool(), a["mask"])
    everything = tiny_config(batch=64, drop_condition=0.0)
    big = make_batch(views, labels, 0, everything)
    assert bool((big["use_text"] | big["use_image"]).all())  # without dropout every sample keeps a condition
    dropped = make_batch(views, labels, 0, tiny_config(batch=64, drop_condition=1.0))
    assert not bool((dropped["use_text"] | dropped["use_image"]).any())


def test_image_only_samples_swap_colour_channels_in_views_and_reference_alike(views: dict[str, np.ndarray]) -> None:
    labels = tagger_targets(views, MaterialTagger(TAGGER))
    plain = make_batch(views, labels, 3, tiny_config(batch=32, image_share=1.0, text_share=0.0, drop_condition=0.0,
                                                     colour_swap=0.0))
    swapped = make_batch(views, labels, 3, tiny_config(batch=32, image_share=1.0, text_share=0.0,
                                                       drop_condition=0.0, colour_swap=1.0))
    assert torch.equal(plain["x0"][:, :, 3:], swapped["x0"][:, :, 3:])  # metallic-roughness untouched
    changed = 0
    for i in range(32):
        a, b = plain["x0"][i, :, :3], swapped["x0"][i, :, :3]
        perm = [next(c for c in range(3) if torch.equal(b[:, k], a[:, c])) for k in range(3)]
        assert torch.equal(swapped["image"][i], plain["image"][i][perm])  # the same permutation in both
        changed += perm != [0, 1, 2]
    assert changed > 10
    kept = make_batch(views, labels, 3, tiny_config(batch=32, image_share=0.0, text_share=1.0, colour_swap=1.0))
    same = make_batch(views, labels, 3, tiny_config(batch=32, image_share=0.0, text_share=1.0, colour_swap=0.0))
    assert torch.equal(kept["x0"], same["x0"])  # text-conditioned samples keep their colours


def test_kind_word_samples_get_the_kinds_of_their_finishes_and_both_conditions(views: dict[str, np.ndarray]
                                                                                 ) -> None:
    labels = tagger_targets(views, MaterialTagger(TAGGER))
    assert all(k and not any(ch.isdigit() for ch in k) for k in views["kinds"])
    for i, a in enumerate(views["attributes"]):  # the kinds, in order, with no colour words
        assert views["kinds"][i] == kind_words_text(str(a))
    both = {"image_share": 0.0, "text_share": 0.0, "drop_condition": 0.0, "batch": 16}
    kinds = make_batch(views, labels, 2, tiny_config(kinds_share=1.0, colour_swap=0.0, **both))
    plain = make_batch(views, labels, 2, tiny_config(kinds_share=0.0, colour_swap=0.0, **both))
    assert bool((kinds["use_text"] & kinds["use_image"]).all())
    assert torch.equal(kinds["x0"], plain["x0"]) and torch.equal(kinds["image"], plain["image"])
    kind_states = {views["kind_tokens"][j].astype(np.float32).tobytes() for j in range(len(views["kinds"]))}
    assert all(kinds["text"][i].numpy().tobytes() in kind_states for i in range(16))
    assert not any(plain["text"][i].numpy().tobytes() in kind_states for i in range(16))
    swapped = make_batch(views, labels, 2, tiny_config(kinds_share=1.0, colour_swap=1.0, **both))
    assert not torch.equal(swapped["x0"][:, :, :3], kinds["x0"][:, :, :3])  # colour comes from the image


def test_kind_words_text_names_each_kind_once() -> None:
    attrs = {"materials": {"body": {"kind": "wood", "colour": "oak"}, "front": {"kind": "wood", "colour": "walnut"},
                           "handle": {"kind": "chrome", "colour": "polished nickel"}},
             "legs": {"finish": {"kind": "painted_metal", "colour": "black"}}}
    assert kind_words_text(attrs) == "wood, polished metal, painted metal"
    assert kind_words_text({"materials": {}}) == ""


@pytest.mark.parametrize("loss", ["velocity", "x0"])
def test_loss_terms_and_overfitting_one_batch(views: dict[str, np.ndarray], loss: str) -> None:
    torch.manual_seed(0)
    cfg = tiny_config(batch=3, loss=loss)
    model = PBRTrainModel(PBRGenerator(MODEL), MaterialTagger(TAGGER))
    labels = tagger_targets(views, model.tagger)
    batch = make_batch(views, labels, 0, cfg)
    terms = losses(model, batch, cfg)
    assert {"loss", "albedo", "mr", "moe_balance", "x0_albedo_mae", "x0_roughness_mae"} <= set(terms)
    assert all(torch.isfinite(v) for v in terms.values())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    first = None
    for _ in range(40):
        terms = losses(model, batch, cfg)
        first = first if first is not None else {k: float(v.detach()) for k, v in terms.items()}
        opt.zero_grad()
        terms["loss"].backward()
        opt.step()
    assert float(terms["albedo"].detach()) < 0.7 * first["albedo"] and float(terms["mr"].detach()) < 0.7 * first["mr"]
    assert all(p.grad is None for p in model.tagger.parameters())  # the tagger is trained before, not here


def test_tagger_batches_and_overfitting(views: dict[str, np.ndarray]) -> None:
    torch.manual_seed(0)
    tagger = MaterialTagger(TAGGER)
    labels = tagger_targets(views, tagger)
    cfg = tagger_config(tiny_config(tagger_batch=6))
    assert cfg.model == TAGGER and cfg.batch == 6
    refs = views["reference"]
    a, b = make_tagger_batch(refs, labels, 4, cfg), make_tagger_batch(refs, labels, 4, cfg)
    assert all(torch.equal(a[k], b[k]) for k in a) and a["image"].shape == (6, 3, 16, 16)
    assert bool((a["finish"].sum(1) > 0).all())
    opt = torch.optim.AdamW(tagger.parameters(), lr=3e-3)
    first = float(tagger_losses(tagger, a)["loss"].detach())
    for _ in range(60):
        terms = tagger_losses(tagger, a)
        opt.zero_grad()
        terms["loss"].backward()
        opt.step()
    assert float(terms["loss"].detach()) < 0.5 * first and float(terms["tagger_top1"]) == 1.0


def test_tagger_images_move_and_their_object_is_re_exposed_on_an_untouched_background() -> None:
    img = np.ones((1, 3, 12, 12), np.float32)
    img[:, :, 4:8, 4:8] = np.array([0.6, 0.3, 0.1], np.float32)[:, None, None]  # a brown square on white
    moved = augment_references(np.repeat(img, 64, 0), np.random.default_rng(0), shift=2, exposure=0.0)
    obj = (moved < 1.0).any(1)
    rows, cols = np.nonzero(obj.any(2))[1], np.nonzero(obj.any(1))[1]
    assert {int(r) for r in rows} >= {2, 9} and {int(c) for c in cols} >= {2, 9}  # up to 2 px each way
    assert bool((obj.sum((1, 2)) == 16).all())  # the square is moved whole, never cut or smeared
    lit = augment_references(np.repeat(img, 64, 0), np.random.default_rng(0), shift=0, exposure=0.5)
    assert bool((lit[:, :, :4] == 1.0).all()) and bool((lit[:, :, :, 8:] == 1.0).all())  # background kept white
    square = srgb_to_linear(lit[:, :, 4:8, 4:8])
    brown = srgb_to_linear(np.array([0.6, 0.3, 0.1], np.float32))
    assert np.allclose(square[:, 0] / square[:, 2], brown[0] / brown[2], rtol=1e-3)  # one factor for all channels
    gain = square[:, 0, 0, 0] / brown[0]
    assert gain.min() < 0.8 and gain.max() > 1.25 and bool((gain >= 2 ** -0.5 - 1e-3).all())
    assert bool((gain <= 2 ** 0.5 + 1e-3).all())  # within +-0.5 stops, both ways
    plain = augment_references(img, np.random.default_rng(0), shift=0, exposure=0.0)
    assert np.array_equal(plain, img)


def test_training_writes_both_models_and_resumes(tiny_data: Path, tmp_path: Path) -> None:
    cfg = tiny_config()
    final = train_pbr(tiny_data, tmp_path / "run", cfg)
    assert (final / "generator" / "model.safetensors").is_file() and (final / "tagger" / "config.json").is_file()
    info = json.loads((final / "training.json").read_text())
    assert info["steps"] == 2 and info["parameters"]["active"] < info["parameters"]["total"]
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and all(np.isfinite(r["albedo"]) for r in log)
    tag_log = [json.loads(line) for line in (tmp_path / "run" / "tagger" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in tag_log] == [1, 2] and "tagger_top1" in tag_log[0]
    gen = PBRGenerator.from_pretrained(final / "generator")
    assert gen.config == MODEL
    saved, trained = (MaterialTagger.from_pretrained(p).state_dict()
                      for p in (final / "tagger", tmp_path / "run" / "tagger" / "model"))
    assert all(torch.equal(saved[k], trained[k]) for k in saved)  # the trained tagger ships unchanged
    train_pbr(tiny_data, tmp_path / "run", tiny_config(steps=3))
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3]  # resumed at step 2, did one more
    other = tiny_config(steps=4, model=PBRModelConfig(**{**MODEL.__dict__, "width": 48, "heads": 2}))
    with pytest.raises(InvalidInputError, match="another model config"):
        train_pbr(tiny_data, tmp_path / "run", other)
    # a fresh run warm-started from the saved folder begins with its weights
    warm = train_pbr(tiny_data, tmp_path / "warm", tiny_config(steps=1, lr=1e-12, init_from=str(final)))
    a = PBRGenerator.from_pretrained(warm / "generator").state_dict()
    b = PBRGenerator.from_pretrained(tmp_path / "run" / "model" / "generator").state_dict()
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
    # no generator steps: the generator is the source's, only the tagger trained on
    only = train_pbr(tiny_data, tmp_path / "tagger-only", tiny_config(steps=0, tagger_lr=1e-2, init_from=str(final)))
    c = PBRGenerator.from_pretrained(only / "generator").state_dict()
    d = PBRGenerator.from_pretrained(final / "generator").state_dict()
    assert all(torch.equal(c[k], d[k]) for k in c)
    e, f = (MaterialTagger.from_pretrained(p / "tagger").state_dict() for p in (only, final))
    assert not all(torch.equal(e[k], f[k]) for k in e)
    # a tagger that reads larger images than the generator's reference trains on the references remade at its size
    wide = TaggerConfig(image_size=32, channels=(8, 16))
    big = train_pbr(tiny_data, tmp_path / "big", tiny_config(steps=1, tagger=wide))
    assert MaterialTagger.from_pretrained(big / "tagger").config.image_size == 32
    assert len(list((tmp_path / "big").glob("pbr-references-train-*.npz"))) == 1


def test_view_metrics_and_baseline(views: dict[str, np.ndarray]) -> None:
    model = PBRGenerator(PBRModelConfig(**{**MODEL.__dict__, "prediction": "velocity"})).eval()
    m = view_metrics(model, views, np.arange(3), steps=2)
    base = mean_baseline(views, views, np.arange(3))
    for r in (m, base):
        assert set(r) == {"albedo_psnr", "metallic_mae", "roughness_mae", "pixels"}
        assert 0 <= r["metallic_mae"] <= 1 and 0 <= r["roughness_mae"] <= 1 and r["pixels"] == views["mask"].sum()
    # a fresh model's velocity is zero, so its sample is the noise clamped: far from the truth
    assert base["albedo_psnr"] > m["albedo_psnr"]
    with pytest.raises(InvalidInputError):
        view_metrics(model, views, np.arange(3), condition="sometimes")


def test_bad_training_settings_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="image_share"):
        tiny_config(image_share=0.7, text_share=0.5)
    with pytest.raises(InvalidInputError, match="loss"):
        tiny_config(loss="l1")
    with pytest.raises(InvalidInputError, match="tagger_steps"):
        tiny_config(tagger_steps=-1)
    with pytest.raises(InvalidInputError, match="drop_condition"):
        tiny_config(drop_condition=1.5)
    with pytest.raises(InvalidInputError, match="device"):
        train_pbr("nowhere", "nowhere", tiny_config(device="tpu"))


def test_cli_train_pbr_is_registered_and_reports_a_data_set_mismatch(tiny_data: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from seed3d.cli import TRAINERS, main

    assert "pbr" in TRAINERS
    # the default model works at 32 px; the tiny data set has 16 px views
    code = main(["train", "pbr", "--data", str(tiny_data), "--out", str(tmp_path / "run"), "--steps", "1"])
    assert code == 2
    assert "do not downsample to 32 px" in capsys.readouterr().err
    assert main(["train", "pbr", "--data", str(tiny_data), "--out", str(tmp_path / "t"), "--tagger-only"]) == 2
    assert "--tagger-only needs --init-from" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()


def test_cli_train_pbr_passes_tagger_steps(tmp_path: Path, fake_trainer: Callable[[str, str], list[Any]]) -> None:
    from seed3d.cli import main

    seen: list[PBRTrainConfig] = fake_trainer("seed3d.pbr.train", "train_pbr")
    assert main(["train", "pbr", "--out", str(tmp_path / "a"), "--init-from", "m", "--tagger-only",
                 "--tagger-steps", "700"]) == 0
    assert main(["train", "pbr", "--out", str(tmp_path / "b")]) == 0
    assert main(["train", "pbr", "--out", str(tmp_path / "c"), "--tagger-size", "96"]) == 0
    assert (seen[0].steps, seen[0].tagger_steps, seen[0].init_from) == (0, 700, "m")
    assert seen[2].tagger.image_size == 96 and seen[1].tagger.image_size == TaggerConfig().image_size
    assert seen[1].tagger_steps == PBRTrainConfig().tagger_steps and seen[1].steps == PBRTrainConfig().steps
