"""Image → program: ProgramNet saves and loads, predict_program writes a program the engine builds, the data
builder is deterministic and resumable, the photo augmentations are seeded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from seed3d import synth
from seed3d.asset import _read_npz
from seed3d.cli import main
from seed3d.errors import InvalidInputError
from seed3d.program.image import (
    COUNT_HEADS,
    PhotoAugmenter,
    PhotoConfig,
    ProgramImageTrainConfig,
    ProgramNet,
    ProgramNetConfig,
    as_inference_reads,
    count_params,
    predict_batch,
    predict_program,
    predict_views,
    train_program_image,
)
from seed3d.program.image_data import ProgramDataConfig, build_program_data, load_program_data

TINY = {"image_size": 32, "channels": (8, 16), "map_channels": 4, "hidden": 16}
CATS = ("cabinet", "mug", "trash_can")


def _tiny(categories: tuple[str, ...] | None = None) -> ProgramNet:
    torch.manual_seed(0)
    cfg = ProgramNetConfig(**TINY) if categories is None else ProgramNetConfig(**TINY, categories=categories)
    return ProgramNet(cfg)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("program_data")
    cfg = ProgramDataConfig(views=2, resolution=48, supersample=1, seeds_per_shard=1, categories=CATS)
    build_program_data(root, "train", [0, 1], cfg)
    return root


def test_tiny_program_net_round_trips(tmp_path: Path) -> None:
    net = _tiny()
    x = torch.rand(2, 3, 128, 128)
    out = net(x)
    assert out["category"].shape == (2, len(synth.CATEGORIES))
    assert [out[k].shape[1] for k in COUNT_HEADS] == [k + 1 for k in net.config.max_counts]
    assert out["proportions"].shape == (2, 2)
    net.save_pretrained(tmp_path / "m")
    back = ProgramNet.from_pretrained(tmp_path / "m")
    assert back.config == net.config
    net.eval()
    with torch.no_grad():
        torch.testing.assert_close(back(x)["category"], net(x)["category"])
    with pytest.raises(InvalidInputError):
        net(torch.rand(2, 4, 32, 32))


def test_views_and_mirror_images_are_averaged() -> None:
    """``predict_views`` averages its views' probabilities; ``flip`` its images' and their mirrors'."""
    net = _tiny()
    x = torch.rand(2, 3, 128, 128)
    a, b = predict_batch(net, x, flip=False)
    both = predict_views(net, x, flip=False)
    cats = [dict(p.categories) for p in (a, b, both)]
    for c in cats[2]:
        assert cats[2][c] == pytest.approx((cats[0][c] + cats[1][c]) / 2, abs=1e-6)
    mirrored = predict_batch(net, x.flip(-1), flip=False)[0]
    flipped = dict(predict_batch(net, x, flip=True)[0].categories)
    for c in flipped:
        assert flipped[c] == pytest.approx((dict(a.categories)[c] + dict(mirrored.categories)[c]) / 2, abs=1e-6)


def test_data_builder_is_deterministic_and_resumes(built: Path, tmp_path: Path) -> None:
    cfg = ProgramDataConfig(views=2, resolution=48, supersample=1, seeds_per_shard=1, categories=CATS)
    again = build_program_data(tmp_path, "train", [0, 1], cfg)
    first = sorted((built / "train").glob("*.npz"))
    assert [p.name for p in first] == ["train-00000.npz", "train-00001.npz"]
    for p in first:
        a, b = _read_npz(p), _read_npz(tmp_path / "train" / p.name)
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
    assert again["complete"] and again["samples"] == 6
    data = load_program_data(built, "train")
    assert data["rgb"].shape == (6, 2, 48, 48, 3) and data["alpha"].max() == 255
    assert list(data["category"]) == [0, 1, 2, 0, 1, 2] and list(data["seed"]) == [0, 0, 0, 1, 1, 1]
    labels = {CATS[c]: (d, dr, lid) for c, d, dr, lid in zip(data["category"][:3], data["doors"][:3],
                                                             data["drawers"][:3], data["lids"][:3], strict=True)}
    cab = synth.generate("cabinet", 0).metadata["attributes"]
    assert labels["cabinet"][:2] == (len(cab["doors"]), len(cab["drawers"]))
    assert labels["mug"] == (0, 0, 0)
    # two worker processes write the same bytes
    build_program_data(tmp_path / "two", "train", [0, 1], cfg, workers=2)
    for p in first:
        a, b = _read_npz(p), _read_npz(tmp_path / "two" / "train" / p.name)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
    with pytest.raises(InvalidInputError, match="workers"):
        build_program_data(tmp_path / "bad", "train", [0], cfg, workers=0)
    # a rerun reuses the shards (same bytes); another config in the same folder is refused
    assert build_program_data(built, "train", [0, 1], cfg)["shards"] == again["shards"]
    with pytest.raises(InvalidInputError):
        build_program_data(built, "train", [0, 1], ProgramDataConfig(views=1, resolution=48, categories=CATS))


def test_predict_program_on_a_render_builds(built: Path) -> None:
    data = load_program_data(built, "train")
    a = data["alpha"][0, 0]
    rgba = np.concatenate([data["rgb"][0, 0], a[..., None]], -1)  # premultiplied over black: fine as a test image
    prog = predict_program(rgba, _tiny())
    assert prog.source == "image" and prog.category in synth.CATEGORIES
    assert 0.0 < prog.confidence <= 1.0
    assert prog.notes[0].startswith("top categories: ") and prog.notes[0].count(",") == 2
    asset = synth.generate(prog.category, 0, prog.params)
    assert asset.parts


@pytest.mark.parametrize("category", ["cabinet", "wardrobe", "nightstand", "dresser", "bookshelf", "refrigerator",
                                      "oven", "table", "toolbox", "trash_can"])
def test_count_params_are_accepted_by_the_engine(category: str) -> None:
    for counts in ({"doors": 0, "drawers": 0, "lids": 0}, {"doors": 8, "drawers": 16, "lids": 3},
                   {"doors": 2, "drawers": 1, "lids": 1}):
        params, _ = count_params(category, counts)
        synth.generate(category, 3, params)


def test_photo_augmenter_is_seeded(built: Path) -> None:
    data = load_program_data(built, "train")
    rgb, alpha = data["rgb"][:, 0], data["alpha"][:, 0]
    aug = PhotoAugmenter()
    x, y = aug(rgb, alpha, seed=5), aug(rgb, alpha, seed=5)
    assert x.shape == (6, 3, 128, 128) and float(x.min()) >= 0.0 and float(x.max()) <= 1.0
    torch.testing.assert_close(x, y)
    assert not torch.equal(x, aug(rgb, alpha, seed=6))


def test_room_and_drawn_looks_change_only_what_they_say(built: Path) -> None:
    """Off by default (the benchmark's augmented set stays the same images); a room puts a floor under the
    object's foot that differs from the wall above it and a contact shadow; the drawn look outlines the object
    in dark ink; both are seeded."""
    data = load_program_data(built, "train")
    rgb, alpha = data["rgb"][:, 0], data["alpha"][:, 0]
    assert PhotoConfig().p_room == 0.0 and PhotoConfig().p_drawn == 0.0
    room = PhotoAugmenter(PhotoConfig(p_plain=0.0, p_room=1.0, p_wild=0.0, p_occlude=0.0, p_blur=0.0,
                                      p_noise=0.0, p_jpeg=0.0))
    x = room(rgb, alpha, seed=3)
    torch.testing.assert_close(x, room(rgb, alpha, seed=3))
    plain = PhotoAugmenter(PhotoConfig(p_plain=1.0, p_wild=0.0, p_occlude=0.0, p_blur=0.0, p_noise=0.0,
                                       p_jpeg=0.0))(rgb, alpha, seed=3)
    assert not torch.allclose(x[:, :, :8], plain[:, :, :8])  # the wall is not the plain white backdrop
    top, bottom = x[:, :, :6].mean((2, 3)), x[:, :, -6:].mean((2, 3))
    assert float((top - bottom).abs().sum(1).max()) > 0.05  # a floor below, unlike the wall above
    drawn = PhotoAugmenter(PhotoConfig(p_plain=1.0, p_drawn=1.0, p_wild=0.0, p_occlude=0.0, p_blur=0.0,
                                       p_noise=0.0, p_jpeg=0.0))(rgb, alpha, seed=3)
    changed = (drawn - plain).abs().sum(1) > 0.05
    dark = drawn.max(1).values < 0.3
    assert float((changed & dark).float().mean()) > 0.002  # ink lines
    cfg = ProgramImageTrainConfig()
    assert cfg.photo["p_room"] > 0 and cfg.photo["p_drawn"] > 0  # training sees both


def test_train_a_few_steps_and_resume(built: Path, tmp_path: Path) -> None:
    cfg = ProgramImageTrainConfig(steps=2, batch=4, warmup=1, log_every=1, checkpoint_every=1, model=dict(TINY))
    final = train_program_image(built, tmp_path / "run", cfg)
    net = ProgramNet.from_pretrained(final)
    assert net.config.categories == CATS
    cfg2 = ProgramImageTrainConfig(steps=3, batch=4, warmup=1, log_every=1, checkpoint_every=1, model=dict(TINY))
    train_program_image(built, tmp_path / "run", cfg2)
    steps = [line for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines() if line]
    assert len(steps) == 3
    warm = ProgramImageTrainConfig(steps=1, batch=4, warmup=1, model=dict(TINY), init_from=str(final))
    assert ProgramNet.from_pretrained(train_program_image(built, tmp_path / "warm", warm)).config == net.config


def test_init_from_a_network_with_other_categories(built: Path, tmp_path: Path) -> None:
    """A run on more categories starts from a saved network's weights: each shared category keeps its output row
    (by name, whatever its index); the encoder is copied; another architecture is refused."""
    source = _tiny(("trash_can", "cabinet", "lamp"))
    with torch.no_grad():
        source.category.weight.copy_(torch.arange(3.0)[:, None].expand_as(source.category.weight))
    source.save_pretrained(tmp_path / "src")
    cfg = ProgramImageTrainConfig(steps=1, batch=4, warmup=1, lr=0.0, model=dict(TINY),
                                  init_from=str(tmp_path / "src"))
    net = ProgramNet.from_pretrained(train_program_image(built, tmp_path / "run", cfg))
    assert net.config.categories == CATS  # cabinet, mug, trash_can
    w = net.category.weight.float()
    assert torch.all(w[0] == 1.0) and torch.all(w[2] == 0.0) and not torch.all(w[1] == w[1][0])
    torch.testing.assert_close(net.reduce.weight.float(), source.reduce.weight.float(), atol=1e-3, rtol=0)
    other = ProgramImageTrainConfig(steps=1, batch=4, warmup=1, model={**TINY, "hidden": 8},
                                    init_from=str(tmp_path / "src"))
    with pytest.raises(InvalidInputError, match="another model config"):
        train_program_image(built, tmp_path / "other", other)


def test_training_reads_some_images_as_inference_does(built: Path) -> None:
    """``as_inference_reads`` gives what ``predict_program`` reads: an object over a plain background comes back
    recentred over white; a busy frame is cut out (or kept whole when asked for its frame)."""
    data = load_program_data(built, "train")
    img = PhotoAugmenter()(data["rgb"][:1, 0], data["alpha"][:1, 0], seed=1)[0]
    out = as_inference_reads(img)
    assert out.shape == (3, 128, 128) and float(out.min()) >= 0.0 and float(out.max()) <= 1.0
    x = torch.linspace(0, 1, 128)
    busy = torch.stack([x[None].expand(128, 128), x[:, None].expand(128, 128),
                        (x[None] * 7 % 1).expand(128, 128)])
    busy[:, 40:90, 45:85] = torch.tensor([0.9, 0.1, 0.1])[:, None, None]
    cut, whole = as_inference_reads(busy), as_inference_reads(busy, frame=True)
    assert torch.allclose(cut[:, 2, 2], torch.ones(3), atol=0.02)  # the busy border became white
    assert not torch.allclose(whole[:, 2, 2], torch.ones(3), atol=0.02)
    plain = torch.tensor([0.41, 0.24, 0.11])[:, None, None].expand(3, 128, 128).clone()
    assert torch.equal(as_inference_reads(plain), plain)  # inference refuses it (no object): kept as it is


def test_cli_train_program_image_options(tmp_path: Path, fake_trainer: Callable[[str, str], list[Any]]) -> None:
    seen: list[ProgramImageTrainConfig] = fake_trainer("seed3d.program.image", "train_program_image")
    assert main(["train", "program-image", "--out", str(tmp_path / "a"), "--steps", "7", "--init-from", "m"]) == 0
    assert (seen[0].steps, seen[0].init_from, seen[0].batch) == (7, "m", ProgramImageTrainConfig().batch)
