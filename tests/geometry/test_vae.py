"""The locality-aware shape VAE: anchors, locality of encoding and decoding, save/load, training and resume."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from seed3d.errors import InvalidInputError
from seed3d.geometry.train import VAETrainConfig, fit_light_queries, load_geometry, make_batch, train_vae, vae_losses
from seed3d.geometry.vae import TRAINABLE, ShapeLatent, ShapeVAE, ShapeVAEConfig, surface_complexity
from seed3d.synth.dataset import DatasetConfig, build_split

TINY = ShapeVAEConfig(num_tokens=16, token_choices=(8, 16), surface_points=96, sharp_points=32, anchor_pool=64,
                      complexity_k=8, width=32, heads=2, encoder_depth=1, latent_dim=8, decoder_depth=1,
                      route_candidates=4)


def _cube_points(n: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Points and normals on the faces of the cube [-0.5, 0.5]^3; sharp flags near its edges."""
    rng = np.random.default_rng(seed)
    axis = rng.integers(0, 3, n)
    sign = rng.choice([-1.0, 1.0], n)
    p = rng.uniform(-0.5, 0.5, (n, 3))
    p[np.arange(n), axis] = 0.5 * sign
    nrm = np.zeros((n, 3))
    nrm[np.arange(n), axis] = sign
    sharp = (np.sort(np.abs(p), axis=1)[:, 1] > 0.45)
    return (torch.tensor(p, dtype=torch.float32)[None], torch.tensor(nrm, dtype=torch.float32)[None],
            torch.tensor(sharp)[None])


def test_complexity_is_high_on_edges_and_anchors_crowd_there() -> None:
    p, n, s = _cube_points(2000)
    c = surface_complexity(p, n, torch.zeros_like(s), k=12)[0]
    assert float(c[s[0]].mean()) > 3 * float(c[~s[0]].mean())
    torch.manual_seed(0)
    flat = ShapeVAE(ShapeVAEConfig(**{**TINY.__dict__, "complexity_gain": 0.0, "anchor_pool": 2000}))
    crowd = ShapeVAE(ShapeVAEConfig(**{**TINY.__dict__, "complexity_gain": 4.0, "anchor_pool": 2000}))

    def near_edges(model: ShapeVAE) -> float:
        a = model.choose_anchors(p, n, s, 64)[0].numpy()
        return float((np.sort(np.abs(a), axis=1)[:, 1] > 0.45).mean())

    assert near_edges(crowd) > near_edges(flat) + 0.1


def test_shapes_token_budget_and_given_anchors() -> None:
    torch.manual_seed(0)
    model = ShapeVAE(TINY).eval()
    p, n, s = _cube_points(128)
    q = torch.rand(1, 50, 3) * 2 - 1
    for m in (8, 16, 32):
        latent = model.encode(p, n, s, num_tokens=m)
        assert latent.anchors.shape == (1, m, 3) and latent.feats.shape == (1, m, 8)
        assert model.decode(latent, q).shape == (1, 50)
    given = torch.zeros(1, 5, 3)
    assert model.encode(p, n, s, anchors=given).anchors.shape == (1, 5, 3)
    with pytest.raises(InvalidInputError, match="at least as many input points"):
        model.encode(p, n, s, num_tokens=500)
    with pytest.raises(InvalidInputError, match=r"\(B, N, 3\)"):
        model.encode(p[..., :2], n, s)
    with pytest.raises(InvalidInputError, match="no posterior"):
        ShapeLatent(given, torch.zeros(1, 5, 8)).kl()


def test_a_query_depends_only_on_its_routed_tokens() -> None:
    torch.manual_seed(0)
    model = ShapeVAE(TINY).eval()
    p, n, s = _cube_points(128)
    latent = model.encode(p, n, s, num_tokens=16)
    q = torch.tensor([[[0.5, 0.0, 0.0]]])
    with torch.no_grad():
        tokens = model.tokens(latent)
        base = model.decode_tokens(tokens, latent.anchors, q)
        idx = model.route_queries(q, latent.anchors)[0, 0]
        assert len(idx) == TINY.route_candidates
        far = torch.ones(16, dtype=torch.bool)
        far[idx] = False
        changed = tokens.clone()
        changed[0, far] += 5.0  # tokens the query is not routed to
        assert torch.allclose(model.decode_tokens(changed, latent.anchors, q), base)
        changed[0, idx[0]] += 5.0
        assert not torch.allclose(model.decode_tokens(changed, latent.anchors, q), base)


def test_cell_by_cell_decoding_matches_per_query_decoding() -> None:
    torch.manual_seed(0)
    model = ShapeVAE(ShapeVAEConfig(**{**TINY.__dict__, "route_candidates": 8})).eval()
    anchors = torch.rand(1, 300, 3) * 1.6 - 0.8
    latent = ShapeLatent(anchors, torch.randn(1, 300, 8))
    q = torch.rand(2000, 3) * 2 - 1
    with torch.no_grad():
        tokens = model.tokens(latent)
        per_query = model.decode_tokens(tokens, anchors, q[None])[0]
        cache: dict[str, torch.Tensor] = {}
        for group, block in ((4, 2048), (32, 2048), (8, 40)):  # block 40: many runs of chunks
            cells = model.decode_cells(tokens, anchors, q, group=group, block=block, cache=cache)
            assert torch.allclose(cells, per_query, atol=1e-5)
        # crowded cells (many queries per routing cell)
        crowded = torch.rand(3000, 3) * 0.25
        want = model.decode_tokens(tokens, anchors, crowded[None])[0]
        assert torch.allclose(model.decode_cells(tokens, anchors, crowded, group=64, cache=cache), want, atol=1e-5)
    assert model.routing_grid(256) == 16 and model.routing_grid(1024) == 32 and model.routing_grid(1) == 4
    assert model.routing_grid(4096) == 32  # the default cap: cells fill up instead of shrinking


def _random_tokens(model: ShapeVAE, count: int, queries: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Decoder tokens and anchors of ``count`` random tokens, and ``queries`` random query points."""
    torch.manual_seed(0)
    anchors = torch.rand(1, count, 3) * 1.6 - 0.8
    with torch.no_grad():
        tokens = model.tokens(ShapeLatent(anchors, torch.randn(1, count, model.config.latent_dim)))
    return tokens, anchors, torch.rand(queries, 3) * 2 - 1


def test_routing_grid_stops_at_its_maximum_and_cells_then_fill_up() -> None:
    capped = ShapeVAE(ShapeVAEConfig(**{**TINY.__dict__, "route_grid_max": 8, "route_candidates": 6})).eval()
    assert [capped.routing_grid(m) for m in (16, 64, 256, 4096)] == [4, 8, 8, 8]
    tokens, anchors, q = _random_tokens(capped, 400, 2500)
    with torch.no_grad():
        want = capped.decode_tokens(tokens, anchors, q[None])[0]
        assert torch.allclose(capped.decode_cells(tokens, anchors, q, block=256), want, atol=1e-5)
    for bad in (2, 48):
        with pytest.raises(InvalidInputError, match="power of two"):
            ShapeVAEConfig(route_grid_max=bad)


def test_light_query_path_has_no_query_projection_and_decodes_the_same_cell_by_cell() -> None:
    light = ShapeVAE(ShapeVAEConfig(**{**TINY.__dict__, "light_queries": True, "head_width": 16})).eval()
    names = {k for k, _ in light.named_parameters()}
    assert not any(k.startswith("route.q.") for k in names) and "route.out.weight" in names
    assert light.num_parameters() < ShapeVAE(TINY).num_parameters()
    tokens, anchors, q = _random_tokens(light, 100, 1500)
    with torch.no_grad():
        want = light.decode_tokens(tokens, anchors, q[None])[0]
        assert torch.allclose(light.decode_cells(tokens, anchors, q, block=100), want, atol=1e-5)
        # each query still hears only its routed tokens
        idx = light.route_queries(q[None, :1], anchors)[0, 0]
        changed = tokens.clone()
        changed[0, [i for i in range(100) if i not in set(idx.tolist())]] += 5.0
        assert torch.allclose(light.decode_tokens(changed, anchors, q[None, :1]), want[:1], atol=1e-6)


def test_light_query_fit_keeps_the_latent_and_reproduces_the_full_path() -> None:
    torch.manual_seed(0)
    full = ShapeVAE(TINY).eval()
    tokens, anchors, q = _random_tokens(full, 120, 3000)
    light, fit = fit_light_queries(full, torch.rand(4000, 3) * 2 - 1)
    assert light.config.light_queries and light.config.head_width == TINY.width
    assert 0.9 < fit["r2_residual_mean"] <= 1.0 and fit["r2_query_min"] <= fit["r2_query_mean"] <= 1.0
    theirs = full.state_dict()
    ours = light.state_dict()
    assert all(torch.equal(v, theirs[k]) for k, v in ours.items() if not k.startswith("query_in."))
    p, n, s = _cube_points(96)
    unfitted = ShapeVAE(light.config).eval()  # the same but for a query map of its own initialisation
    unfitted.load_state_dict({**ours, **{k: v for k, v in unfitted.state_dict().items() if k.startswith("query_in.")}})
    with torch.no_grad():
        assert torch.equal(full.encode(p, n, s).feats, light.encode(p, n, s).feats)
        want = full.decode_cells(tokens, anchors, q)
        error = (light.decode_cells(tokens, anchors, q) - want).abs().mean()
        unfitted_error = (unfitted.decode_cells(tokens, anchors, q) - want).abs().mean()
    assert error < 0.25 * want.std() and error < 0.3 * unfitted_error
    with pytest.raises(InvalidInputError, match="already has the light query path"):
        fit_light_queries(light, torch.rand(4000, 3))
    with pytest.raises(InvalidInputError, match="points must be"):
        fit_light_queries(full, torch.rand(20, 3))


def test_save_and_load_give_identical_sdf(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = ShapeVAE(TINY).eval()
    p, n, s = _cube_points(128)
    q = torch.rand(1, 40, 3) * 2 - 1
    model.save_pretrained(tmp_path / "vae")
    again = ShapeVAE.from_pretrained(tmp_path / "vae").eval()
    assert again.config == model.config
    with torch.no_grad():
        a = model.decode(model.encode(p, n, s), q)
        b = again.decode(again.encode(p, n, s), q)
    assert torch.equal(a, b)
    sdf = again.sdf_function(again.encode(p, n, s), batch=16)
    vals = sdf(q[0].numpy())  # type: ignore[operator]
    assert vals.shape == (40,) and np.all(np.abs(vals) <= TINY.truncation + 1e-6)


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data")
    cfg = DatasetConfig(samples_per_shard=2, surface_points=256, sharp_points=64, volume_points=64, near_points=64,
                        cond_views=0, cond_resolution=16, pbr_resolution=8, categories=("box", "bowl"))
    build_split(out, "train", 3, cfg, workers=1)
    return out


def test_batches_depend_only_on_seed_and_step_and_keep_sdf_exact(tiny_data: Path) -> None:
    data = load_geometry(tiny_data, "train")
    cfg = VAETrainConfig(batch=2, near_queries=32, volume_queries=16, model=TINY)
    a, b = make_batch(data, 5, cfg), make_batch(data, 5, cfg)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert a["points"].shape == (2, 128, 3) and a["queries"].shape == (2, 48, 3) and a["sdf"].shape == (2, 48)
    assert a["jitter"].shape[1] in TINY.token_choices
    # the similarity transform keeps |sdf| <= distance to the nearest surface point (an SDF is 1-Lipschitz)
    for i in range(2):
        d = torch.cdist(a["queries"][i][:32], a["points"][i]).min(dim=1).values
        near = a["sdf"][i][:32].abs()
        assert bool((near <= d + 1e-4).all())


def test_training_writes_a_model_and_resumes(tiny_data: Path, tmp_path: Path) -> None:
    cfg = VAETrainConfig(steps=2, batch=2, near_queries=16, volume_queries=8, warmup=1, checkpoint_every=1,
                         log_every=1, model=TINY)
    final = train_vae(tiny_data, tmp_path / "run", cfg)
    assert (final / "model.safetensors").is_file()
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2] and all(np.isfinite(r["loss"]) for r in log)
    train_vae(tiny_data, tmp_path / "run", VAETrainConfig(**{**cfg.__dict__, "steps": 3}))
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3]
    other = VAETrainConfig(**{**cfg.__dict__, "steps": 4, "model": ShapeVAEConfig(**{**TINY.__dict__, "width": 64})})
    with pytest.raises(InvalidInputError, match="another model config"):
        train_vae(tiny_data, tmp_path / "run", other)


def test_partial_training_keeps_the_frozen_parts_and_moves_the_rest(tiny_data: Path, tmp_path: Path) -> None:
    cfg = VAETrainConfig(steps=2, batch=2, near_queries=16, volume_queries=8, warmup=1, lr=1e-2, model=TINY)
    first = train_vae(tiny_data, tmp_path / "a", cfg)
    before = ShapeVAE.from_pretrained(first)
    light = ShapeVAEConfig(**{**TINY.__dict__, "light_queries": True, "route_cells": 0.5, "route_candidates": 6})
    p, n, s = _cube_points(96)
    for trainable in ("decoder", "queries"):
        part = VAETrainConfig(**{**cfg.__dict__, "init_from": str(first), "trainable": trainable, "model": light})
        after = ShapeVAE.from_pretrained(train_vae(tiny_data, tmp_path / trainable, part))
        assert after.config.light_queries and after.config.route_candidates == 6
        kept_a, kept_b = before.frozen_modules(trainable).state_dict(), after.frozen_modules(trainable).state_dict()
        assert all(torch.equal(kept_a[k], kept_b[k]) for k in kept_a)
        if trainable == "decoder":  # the token blocks moved
            assert not torch.equal(before.state_dict()["decoder.0.attn.q.weight"],
                                   after.state_dict()["decoder.0.attn.q.weight"])
        torch.manual_seed(part.seed)  # the run's own initialisation of the new query layers
        start = ShapeVAE(light).state_dict()["query_in.weight"]
        assert not torch.equal(after.state_dict()["query_in.weight"], start)
        with torch.no_grad():  # the latent, and so every flow trained on it, is unchanged
            assert torch.equal(before.encode(p, n, s).feats, after.encode(p, n, s).feats)
    assert {k for k, _ in before.frozen_modules("queries").named_parameters()} > {
        k for k, _ in before.frozen_modules("decoder").named_parameters()}
    for bad in ({"trainable": "decoder"}, {"trainable": "queries"}):
        with pytest.raises(InvalidInputError, match="needs init_from"):
            VAETrainConfig(**bad)
    with pytest.raises(InvalidInputError, match="trainable must be one of"):
        VAETrainConfig(trainable="head", init_from=str(first))
    wide = VAETrainConfig(**{**cfg.__dict__, "init_from": str(first), "trainable": "decoder",
                             "model": ShapeVAEConfig(**{**light.__dict__, "width": 64})})
    with pytest.raises(InvalidInputError, match="differ in shape"):
        train_vae(tiny_data, tmp_path / "c", wide)


def test_distilling_into_the_light_path_starts_from_the_fit_and_keeps_the_latent(tiny_data: Path,
                                                                                  tmp_path: Path) -> None:
    cfg = VAETrainConfig(steps=2, batch=2, near_queries=16, volume_queries=8, warmup=1, lr=1e-3, model=TINY)
    first = train_vae(tiny_data, tmp_path / "a", cfg)
    full = ShapeVAE.from_pretrained(first).eval()
    light = ShapeVAEConfig(**{**TINY.__dict__, "light_queries": True, "head_width": TINY.width})
    distil = VAETrainConfig(**{**cfg.__dict__, "init_from": str(first), "trainable": "queries", "distil": True,
                               "model": light, "fit_points": 2000})
    start = ShapeVAE.from_pretrained(train_vae(tiny_data, tmp_path / "fit", replace(distil, steps=0))).eval()
    after = ShapeVAE.from_pretrained(train_vae(tiny_data, tmp_path / "distil", distil)).eval()
    log = [json.loads(line) for line in (tmp_path / "distil" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["step"] == 2 and all(np.isfinite(r["sdf_l1"]) for r in log)
    tokens, anchors, q = _random_tokens(full, 60, 2000)
    unfitted = ShapeVAE(light).eval()
    p, n, s = _cube_points(96)
    with torch.no_grad():
        want = full.decode_cells(tokens, anchors, q)
        start_error = (start.decode_cells(tokens, anchors, q) - want).abs().mean()
        assert start_error < 0.5 * (unfitted.decode_cells(tokens, anchors, q) - want).abs().mean()
        assert torch.equal(full.encode(p, n, s).feats, after.encode(p, n, s).feats)
    assert torch.equal(start.state_dict()["head.1.0.weight"], full.state_dict()["head.1.0.weight"])
    assert not torch.equal(start.state_dict()["query_in.weight"], after.state_dict()["query_in.weight"])
    with pytest.raises(InvalidInputError, match="distil needs init_from"):
        VAETrainConfig(distil=True)
    narrow = replace(distil, model=ShapeVAEConfig(**{**light.__dict__, "head_width": 8}))
    with pytest.raises(InvalidInputError, match="head_width = width"):
        train_vae(tiny_data, tmp_path / "narrow", narrow)


def test_distillation_loss_measures_against_the_teacher_and_drops_the_occupancy_term(tiny_data: Path) -> None:
    cfg = VAETrainConfig(batch=2, near_queries=16, volume_queries=8, model=TINY)
    batch = make_batch(load_geometry(tiny_data, "train"), 0, cfg)
    torch.manual_seed(0)
    model = ShapeVAE(TINY).eval()
    with torch.no_grad():
        last = model.head[-1][-1]  # outputs within the truncation, where the loss does not clamp them
        last.weight.mul_(0.01)
        last.bias.zero_()
        against_itself = vae_losses(model, batch, cfg, teacher=model)
        against_data = vae_losses(model, batch, cfg)
    assert against_itself["sign_acc"] == 1.0 and against_itself["sdf_l1"] < 0.1 * against_data["sdf_l1"]
    assert torch.isclose(against_itself["loss"], against_itself["sdf_l1"] + cfg.kl_weight * against_itself["kl"])
    assert not torch.isclose(against_data["loss"], against_data["sdf_l1"] + cfg.kl_weight * against_data["kl"])


def test_sparse_queries_shrink_the_group_and_keep_the_numbers() -> None:
    torch.manual_seed(0)
    model = ShapeVAE(TINY).eval()
    anchors = torch.rand(1, 64, 3) * 1.8 - 0.9  # an 8^3 routing grid: about 6 queries per cell below
    latent = ShapeLatent(anchors, torch.randn(1, 64, 8))
    q = torch.rand(3000, 3) * 2 - 1
    with torch.no_grad():
        tokens = model.tokens(latent)
        a = model.decode_cells(tokens, latent.anchors, q, group=32)
        b = model.decode_tokens(tokens, latent.anchors, q[None])[0]
    assert torch.allclose(a, b, atol=1e-5)


def test_cli_train_geometry_vae_passes_model_options_and_what_trains(
        tmp_path: Path, fake_trainer: Callable[[str, str], list[Any]], capsys: pytest.CaptureFixture[str]) -> None:
    from seed3d.cli import main

    seen: list[VAETrainConfig] = fake_trainer("seed3d.geometry.train", "train_vae")
    assert main(["train", "geometry-vae", "--out", str(tmp_path / "a"), "--init-from", "weights/geometry-vae",
                 "--trainable", "decoder", "--model-option", "light_queries=true", "--model-option",
                 "route_cells=0.5", "--queries", "3072", "1024", "--distil"]) == 0
    assert main(["train", "geometry-vae", "--out", str(tmp_path / "b")]) == 0
    assert seen[0].trainable == "decoder" and seen[0].model.light_queries and seen[0].model.route_cells == 0.5
    assert seen[0].distil and not seen[1].distil
    assert seen[0].model.width == ShapeVAEConfig().width
    assert (seen[0].near_queries, seen[0].volume_queries) == (3072, 1024)
    assert seen[1].trainable == "all" and seen[1].model == ShapeVAEConfig()
    assert (seen[1].near_queries, seen[1].volume_queries) == (1024, 512)
    assert main(["train", "geometry-vae", "--model-option", "wings=2"]) == 2
    assert "KEY one of" in capsys.readouterr().err
    assert main(["train", "geometry-vae", "--model-option", "width=100", "--model-option", "heads=3"]) == 2
    assert "not divisible" in capsys.readouterr().err
    assert main(["train", "geometry-vae", "--trainable", "queries"]) == 2
    assert "needs init_from" in capsys.readouterr().err
    assert seen[2:] == []
    with pytest.raises(SystemExit):
        main(["train", "geometry-vae", "--trainable", "head"])
    for trainable in TRAINABLE:  # the parser offers every value the config takes
        assert main(["train", "geometry-vae", "--out", str(tmp_path / trainable), "--init-from", "w",
                     "--trainable", trainable]) == 0
    assert [c.trainable for c in seen[2:]] == list(TRAINABLE)
