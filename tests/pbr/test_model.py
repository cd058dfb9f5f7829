"""The multi-view PBR generator: shapes, streams, cross-view attention, conditioning, CFG sampling, determinism,
save/load, input checks; the material tagger; geometry rendering and the generate_views entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.nn.flow import FlowSampler
from seed3d.nn.moe import MoEFeedForward
from seed3d.pbr.data import downsample_views, geometry_array, target_array
from seed3d.pbr.model import (
    GEOMETRY_CHANNELS,
    PBRGenerator,
    PBRModelConfig,
    material_prompt,
    patchify,
    unpatchify,
    views_from_tensor,
)
from seed3d.pbr.tagger import MaterialTagger, TaggerConfig

TINY = PBRModelConfig(num_views=3, resolution=8, patch=4, width=32, depth=2, heads=2, moe_blocks=1, num_experts=4,
                      top_k=2, expert_ratio=1.0, text_dim=12, reference_resolution=16, reference_patch=8,
                      reference_depth=1, num_null_tokens=2, time_freq_dim=16, pixel_dim=8)


def tiny_model(seed: int = 0, config: PBRModelConfig = TINY) -> PBRGenerator:
    """A tiny generator whose zero-initialised layers (adaLN, heads, cross-attention out) are randomised, so every
    path carries signal."""
    torch.manual_seed(seed)
    model = PBRGenerator(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            if not p.abs().sum():
                p.copy_(torch.randn_like(p) * 0.05)
    return model


def inputs(model: PBRGenerator, b: int = 2, seed: int = 0) -> dict[str, torch.Tensor]:
    """Random noisy views, times, geometry (coverage channel set), text tokens and reference images."""
    g = torch.Generator().manual_seed(seed)
    c = model.config
    geo = torch.randn(b, c.num_views, GEOMETRY_CHANNELS, c.resolution, c.resolution, generator=g)
    geo[:, :, 6] = (torch.rand(b, c.num_views, c.resolution, c.resolution, generator=g) > 0.3).float()
    return {"x": torch.randn(model.sample_shape(b), generator=g), "t": torch.rand(b, generator=g), "geometry": geo,
            "text": torch.randn(b, 5, c.text_dim, generator=g), "text_mask": torch.ones(b, 5, dtype=torch.bool),
            "image": torch.rand(b, 3, c.reference_resolution, c.reference_resolution, generator=g)}


def run(model: PBRGenerator, d: dict[str, torch.Tensor], **cond_kw: Any) -> torch.Tensor:
    cond, mask = model.encode_condition(d["text"], d["text_mask"], d["image"], **cond_kw)
    return model(d["x"], d["t"], cond, mask, geometry=d["geometry"])


def test_patchify_round_trip_and_order() -> None:
    x = torch.arange(2 * 3 * 5 * 8 * 8, dtype=torch.float32).reshape(2, 3, 5, 8, 8)
    tok = patchify(x, 4)
    assert tok.shape == (2, 3 * 4, 5 * 16)
    assert torch.equal(unpatchify(tok, 3, 5, 8, 4), x)
    assert torch.equal(tok[0, 4], x[0, 1, :, :4, :4].reshape(-1))  # view-major, then row-major patches


def test_forward_shapes_zero_init_and_aux_loss() -> None:
    torch.manual_seed(0)
    fresh = PBRGenerator(TINY)
    d = inputs(fresh)
    cond, mask = fresh.encode_condition(d["text"], d["text_mask"], d["image"])
    assert cond.shape == (2, 2 + 5 + 4, 32) and mask.all()
    out = fresh.forward_with_aux(d["x"], d["t"], cond, mask, geometry=d["geometry"])
    assert out.velocity.shape == (2, 3, 5, 8, 8)
    # zero-initialised heads: a fresh model predicts x0 = 0, i.e. the velocity x_t / t of the path to 0
    assert float(out.x0.detach().abs().max()) == 0.0
    assert torch.allclose(out.velocity, d["x"] / d["t"].clamp_min(0.05).reshape(-1, 1, 1, 1, 1))
    as_velocity = PBRGenerator(PBRModelConfig(**{**TINY.__dict__, "prediction": "velocity"}))
    v0 = as_velocity.forward_with_aux(d["x"], d["t"], cond, mask, geometry=d["geometry"])
    assert float(v0.velocity.detach().abs().max()) == 0.0 and torch.allclose(v0.x0, d["x"])
    assert out.aux_loss.ndim == 0 and 1.0 - 1e-4 <= out.aux_loss.item() <= 2.0  # E/k = 2 at worst
    model = tiny_model()
    v = run(model, d)
    assert v.shape == (2, 3, 5, 8, 8) and bool(torch.isfinite(v).all()) and float(v.detach().abs().max()) > 0


def test_pixel_skip_feeds_each_pixel_its_own_noisy_value() -> None:
    model = tiny_model(config=PBRModelConfig(**{**TINY.__dict__, "pixel_skip": True}))
    no_skip = PBRGenerator(PBRModelConfig(**{**TINY.__dict__, "pixel_skip": False}))
    assert model.heads[1].noisy is not None and no_skip.heads[1].noisy is None
    d = inputs(model)
    x = d["x"].clone()
    x[:, 1, 4, 2, 3] += 1.0  # one roughness pixel of view 1

    def x0_change() -> torch.Tensor:
        cond, mask = model.encode_condition(d["text"], d["text_mask"], d["image"])
        a = model.forward_with_aux(d["x"], d["t"], cond, mask, geometry=d["geometry"]).x0
        b = model.forward_with_aux(x, d["t"], cond, mask, geometry=d["geometry"]).x0
        return (b - a).detach()[:, 1, 4]

    with_skip = x0_change()
    with torch.no_grad():
        model.heads[1].noisy.weight.zero_()
    tokens_only = x0_change()
    skip_effect = (with_skip - tokens_only).abs()
    assert float(skip_effect[:, 2, 3].min()) > 1e-4  # the pixel itself moves through the skip


def test_parameter_counts_report_active_and_total() -> None:
    model = PBRGenerator(TINY)
    counts = model.parameter_counts()
    moes = [m for m in model.modules() if isinstance(m, MoEFeedForward)]
    assert len(moes) == TINY.moe_blocks
    unused = sum((m.num_experts - m.top_k) * m.expert_parameters() for m in moes)
    assert counts["total"] == sum(p.numel() for p in model.parameters())
    assert counts["active"] == counts["total"] - unused and unused > 0
    dense = PBRGenerator(PBRModelConfig(**{**TINY.__dict__, "moe_blocks": 0})).parameter_counts()
    assert dense["active"] == dense["total"]


def test_streams_have_their_own_projections_and_share_attention() -> None:
    model = tiny_model()
    for block in model.blocks:
        qkv = block.attn.qkv
        assert qkv[0].weight is not qkv[1].weight and not torch.equal(qkv[0].weight, qkv[1].weight)
    assert model.heads[0] is not model.heads[1]
    d = inputs(model)
    # an albedo-only loss: the metallic-roughness head gets no gradient, the MR stream's Q/K/V does (its keys and
    # values feed the joint attention the albedo tokens read), and so do the albedo head and Q/K/V
    model.zero_grad()
    run(model, d)[:, :, :3].square().sum().backward()

    def grad(p: torch.Tensor) -> float:
        return 0.0 if p.grad is None else float(p.grad.abs().sum())

    assert all(grad(p) == 0.0 for p in model.heads[1].parameters())
    assert all(grad(p) > 0.0 for p in model.heads[0].parameters())
    assert grad(model.blocks[0].attn.qkv[1].weight) > 0.0 and grad(model.blocks[0].attn.qkv[0].weight) > 0.0
    assert grad(model.in_proj[1].weight) > 0.0
    # changing only the MR stream's projections changes the albedo output (attention is shared)
    before = run(model, d)[:, :, :3]
    with torch.no_grad():
        model.blocks[0].attn.qkv[1].weight.add_(0.5)
    assert not torch.allclose(run(model, d)[:, :, :3], before)


def test_views_attend_to_each_other() -> None:
    model = tiny_model()
    d = inputs(model)
    base = run(model, d)
    d2 = {**d, "geometry": d["geometry"].clone()}
    d2["geometry"][:, 2, :6] += 1.0  # change only the last view's geometry
    changed = run(model, d2)
    assert not torch.allclose(changed[:, 0], base[:, 0], atol=1e-6)  # view 0 sees view 2


def test_condition_dropout_masks_equal_the_null_condition() -> None:
    model = tiny_model()
    d = inputs(model)
    off = torch.zeros(2, dtype=torch.bool)
    dropped = run(model, d, use_text=off, use_image=off)
    null, null_mask = model.null_condition(2)
    unconditional = model(d["x"], d["t"], null, null_mask, geometry=d["geometry"])
    assert torch.allclose(dropped, unconditional, atol=1e-5)
    full = run(model, d)
    assert not torch.allclose(full, unconditional, atol=1e-4)
    text_only = run(model, d, use_image=off)
    assert not torch.allclose(text_only, full, atol=1e-4) and not torch.allclose(text_only, unconditional,
                                                                                  atol=1e-4)
    # a sample's dropout does not touch the other sample
    mixed = run(model, d, use_text=torch.tensor([True, False]), use_image=torch.tensor([True, False]))
    assert torch.allclose(mixed[0], full[0], atol=1e-5) and torch.allclose(mixed[1], unconditional[1], atol=1e-5)


def test_sampling_is_deterministic_per_seed_and_masked() -> None:
    model = tiny_model()
    d = inputs(model)
    cond, mask = model.encode_condition(d["text"], d["text_mask"], d["image"])

    def sample(seed: int, guidance: float = 2.0) -> torch.Tensor:
        return model.sample(d["geometry"], cond, mask, steps=3, guidance=guidance,
                            generator=torch.Generator().manual_seed(seed))

    a, b, c = sample(0), sample(0), sample(1)
    assert torch.equal(a, b) and not torch.allclose(a, c)
    assert a.shape == (2, 3, 5, 8, 8) and float(a.abs().max()) <= 1.0
    off = d["geometry"][:, :, 6:7].expand_as(a) < 0.5
    assert float(a[off].abs().max()) == 0.0 and float(a[~off].abs().max()) > 0.0
    assert not torch.allclose(sample(0, guidance=1.0), a)


def test_classifier_free_guidance_combines_conditional_and_null_velocities() -> None:
    model = tiny_model()
    d = inputs(model)
    cond, mask = model.encode_condition(d["text"], d["text_mask"], d["image"])
    null, null_mask = model.null_condition(2)
    noise = torch.randn(model.sample_shape(2), generator=torch.Generator().manual_seed(3))
    scale = 3.0
    calls: list[int] = []
    hook = model.register_forward_hook(lambda m, args, kw_out=None: calls.append(args[0].shape[0]))
    got = model.sample(d["geometry"], cond, mask, sampler=FlowSampler(num_steps=1, guidance_scale=scale),
                       noise=noise)
    hook.remove()
    assert calls == [4]  # one batch holding the conditional and the null branch
    t = torch.ones(2)
    v_cond = model(noise, t, cond, mask, geometry=d["geometry"])
    v_null = model(noise, t, null, null_mask, geometry=d["geometry"])
    expected = noise - (v_null + scale * (v_cond - v_null))  # one Euler step from t = 1 to 0
    covered = d["geometry"][:, :, 6:7] > 0.5
    assert torch.allclose(got, expected.clamp(-1, 1) * covered, atol=1e-4)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    model = tiny_model()
    model.save_pretrained(tmp_path / "m")
    assert (tmp_path / "m" / "config.json").is_file() and (tmp_path / "m" / "model.safetensors").is_file()
    again = PBRGenerator.from_pretrained(tmp_path / "m")
    assert again.config == model.config
    d = inputs(model)
    assert torch.equal(run(again, d), run(model, d))
    with pytest.raises(AssetFormatError):
        PBRGenerator.from_pretrained(tmp_path)
    tagger = MaterialTagger(TaggerConfig(image_size=16, channels=(8, 16)))
    tagger.save_pretrained(tmp_path / "t")
    t2 = MaterialTagger.from_pretrained(tmp_path / "t")
    assert t2.config == tagger.config
    x = torch.rand(2, 3, 16, 16)
    assert all(torch.equal(a, b) for a, b in zip(t2(x), tagger.eval()(x), strict=True))
    with pytest.raises(AssetFormatError, match="not a seed3d-pbr-generator"):
        PBRGenerator.from_pretrained(tmp_path / "t")


@pytest.mark.parametrize(("change", "match"), [
    ({"resolution": 10}, "multiple of the patch"), ({"top_k": 5}, "top_k"), ({"moe_blocks": 3}, "moe_blocks"),
    ({"heads": 3}, "heads"), ({"reference_resolution": 20}, "reference_patch"), ({"width": 0}, "width"),
    ({"prediction": "noise"}, "prediction"),
])
def test_bad_configs_are_refused(change: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        PBRModelConfig(**{**TINY.__dict__, **change})


def test_bad_inputs_are_refused() -> None:
    model = tiny_model()
    d = inputs(model)
    cond, mask = model.encode_condition(d["text"], d["text_mask"], d["image"])
    with pytest.raises(InvalidInputError, match="views must be"):
        model(d["x"][:, :2], d["t"], cond, mask, geometry=d["geometry"])
    with pytest.raises(InvalidInputError, match="geometry must be"):
        model(d["x"], d["t"], cond, mask, geometry=d["geometry"][..., :4])
    with pytest.raises(InvalidInputError, match="t must be"):
        model(d["x"], d["t"][:1], cond, mask, geometry=d["geometry"])
    with pytest.raises(InvalidInputError, match="condition must be"):
        model(d["x"], d["t"], d["text"], d["text_mask"], geometry=d["geometry"])
    with pytest.raises(InvalidInputError, match="text must be"):
        model.encode_condition(torch.zeros(2, 5, 7))
    with pytest.raises(InvalidInputError, match="reference image"):
        model.encode_condition(image=torch.zeros(2, 3, 8, 8))
    with pytest.raises(InvalidInputError, match="batch sizes differ"):
        model.encode_condition(d["text"], d["text_mask"], d["image"][:1])
    with pytest.raises(InvalidInputError, match="needs text"):
        model.encode_condition()
    with pytest.raises(InvalidInputError, match="t_start"):
        model.sample(d["geometry"], sampler=FlowSampler(2, t_start=0.5))


def test_views_from_tensor_maps_channels_back_to_unit_range() -> None:
    x = torch.zeros(1, 2, 5, 4, 4)
    x[:, :, 0] = 1.0   # red = 1
    x[:, :, 3] = -1.0  # metallic = 0
    x[:, :, 4] = 0.5   # roughness = 0.75
    mask = np.ones((1, 2, 4, 4), bool)
    mask[0, 1] = False
    v = views_from_tensor(x, mask)[0]
    assert v.albedo.shape == (2, 4, 4, 3) and v.metallic.shape == (2, 4, 4)
    assert np.allclose(v.albedo[0, ..., 0], 1.0) and np.allclose(v.albedo[0, ..., 1], 0.5)
    assert np.allclose(v.metallic[0], 0.0) and np.allclose(v.roughness[0], 0.75)
    assert np.all(v.albedo[1] == 0) and not v.mask[1].any()


def test_material_prompt_composition() -> None:
    assert material_prompt("a red chair", ["walnut wood", " brushed brass "]) == \
        "walnut wood, brushed brass. a red chair"
    assert material_prompt(caption="an oak table with steel legs") == "an oak table with steel legs"
    assert material_prompt(tagged=["white plastic", "chrome"]) == "white plastic, chrome"
    assert material_prompt("a lamp", tagged=["white plastic"]) == "a lamp"  # the user's words win over the tagger
    assert material_prompt() == ""
    with pytest.raises(InvalidInputError):
        material_prompt(material_words=["oak", 3])  # type: ignore[list-item]


def test_downsampling_weights_by_coverage() -> None:
    mask = np.zeros((1, 4, 4), bool)
    mask[0, :2, :2] = True
    mask[0, 2:, 2:] = [[True, False], [False, False]]  # a quarter-covered block is off the mesh
    mask[0, :2, 2:] = [[True, True], [True, False]]    # three quarters: on, averaged over the covered pixels
    rough = np.zeros((1, 4, 4), np.float32)
    rough[0, :2, 2:] = [[0.2, 0.4], [0.6, 9.0]]
    normal = np.zeros((1, 4, 4, 3), np.float32)
    normal[0, :2, :2] = [[[0, 0, 1], [0, 1, 0]], [[0, 0, 1], [0, 1, 0]]]
    out = downsample_views(mask, 2, roughness=rough, normal=normal)
    assert out["mask"][0].tolist() == [[True, True], [False, False]]
    assert out["roughness"][0, 0, 1] == pytest.approx(0.4)
    assert np.allclose(out["normal"][0, 0, 0], [0, np.sqrt(0.5), np.sqrt(0.5)], atol=1e-6)
    assert np.all(out["normal"][0, 1] == 0)
    with pytest.raises(InvalidInputError):
        downsample_views(mask, 3)


def test_geometry_and_target_arrays() -> None:
    mask = np.array([[[True, False]]])
    normal = np.array([[[[0, 0, 1], [0, 0, 1]]]], np.float32)
    canonical = np.full((1, 1, 2, 3), 0.75, np.float32)
    g = geometry_array(normal, canonical, mask)
    assert g.shape == (1, 7, 1, 2)
    assert g[0, :, 0, 0].tolist() == [0, 0, 1, 0.5, 0.5, 0.5, 1] and g[0, :, 0, 1].tolist() == [0] * 7
    t = target_array(np.full((1, 1, 2, 3), 1.0, np.float32), np.zeros((1, 1, 2), np.float32),
                     np.full((1, 1, 2), 0.5, np.float32), mask)
    assert t[0, :, 0, 0].tolist() == [1, 1, 1, -1, 0] and t[0, :, 0, 1].tolist() == [0] * 5


def test_tagger_vocabulary_targets_and_words() -> None:
    torch.manual_seed(0)
    tagger = MaterialTagger(TaggerConfig(image_size=16, channels=(8, 16))).eval()
    cfg = tagger.config
    assert len(set(cfg.finishes)) == len(cfg.finishes) and "walnut wood" in cfg.finishes
    assert "painted metal" in cfg.kinds
    fin, kind = tagger.targets([[{"kind": "wood", "colour": "walnut"}, {"kind": "chrome", "colour": "chrome"}], []])
    assert fin.shape == (2, len(cfg.finishes)) and fin[0].sum() == 2 and fin[1].sum() == 0
    assert fin[0, cfg.finishes.index("walnut wood")] == 1 and fin[0, cfg.finishes.index("chrome")] == 1
    assert kind[0, cfg.kinds.index("wood")] == 1 and kind[0, cfg.kinds.index("polished metal")] == 1
    words = tagger.predict_words(torch.rand(3, 3, 16, 16))
    assert len(words) == 3 and all(w and w[0] in cfg.finishes for w in words)
    assert all(set(w) <= set(cfg.finishes) | set(cfg.kinds) for w in words)
    # a tagger pushed to one finish and its kind names that finish and not the kind again
    with torch.no_grad():
        tagger.finish_head[-1].bias.fill_(-20.0)
        tagger.finish_head[-1].bias[cfg.finishes.index("oak wood")] = 20.0
        tagger.kind_head[-1].bias.fill_(-20.0)
        tagger.kind_head[-1].bias[cfg.kinds.index("wood")] = 20.0
        tagger.kind_head[-1].bias[cfg.kinds.index("plastic")] = 20.0
    assert tagger.predict_words(torch.rand(1, 3, 16, 16))[0] == ["oak wood", "plastic"]
    assert tagger.predict_kinds(torch.rand(1, 3, 16, 16))[0] == ["wood", "plastic"]
    with torch.no_grad():
        tagger.kind_head[-1].bias.fill_(-20.0)
        tagger.kind_head[-1].bias[cfg.kinds.index("glass")] = -5.0
    assert tagger.predict_kinds(torch.rand(2, 3, 16, 16)) == [["glass"], ["glass"]]  # the likeliest, if none passes
    with pytest.raises(InvalidInputError, match="tagger input"):
        tagger(torch.rand(1, 3, 8, 8))
    losses = tagger.loss(torch.rand(2, 3, 16, 16), fin, kind)
    assert losses["tagger_loss"].item() > 0


def test_generate_views_renders_a_mesh_and_conditions_on_text() -> None:
    from seed3d.pbr.model import generate_views
    from seed3d.synth import generate

    cfg = PBRModelConfig(**{**TINY.__dict__, "num_views": 6, "text_dim": 384})
    model = tiny_model(config=cfg)
    asset = generate("box", 0)
    a = generate_views(model, asset, text="a red plastic box", steps=2, seed=0)
    b = generate_views(model, asset, text="a red plastic box", steps=2, seed=0)
    c = generate_views(model, asset, material_words=["walnut wood"], steps=2, seed=0)
    assert a.albedo.shape == (6, 8, 8, 3) and a.metallic.shape == (6, 8, 8) and a.mask.shape == (6, 8, 8)
    assert a.mask.any(axis=(1, 2)).all()  # the box is seen in every rig view
    assert np.array_equal(a.albedo, b.albedo) and not np.allclose(a.albedo, c.albedo)
    assert a.prompt == "a red plastic box" and c.prompt == "walnut wood"
    assert a.albedo.min() >= 0.0 and a.albedo.max() <= 1.0 and np.all(a.albedo[~a.mask] == 0)
    with pytest.raises(InvalidInputError):
        generate_views(model, "not a mesh", steps=1)
    # an image alone: the tagger's words become the material text; with words given, the tagger is not asked
    image = np.zeros((32, 32, 4), np.uint8)
    image[8:24, 8:24] = (200, 30, 30, 255)
    tagger = MaterialTagger(TaggerConfig(image_size=16, channels=(8, 16))).eval()
    tagged = generate_views(model, asset, image=image, tagger=tagger, steps=1)
    assert tagged.prompt and tagged.prompt.split(", ")[0] in tagger.config.finishes
    # a tagger that reads larger images than the generator's reference gets the image at its own size
    big = MaterialTagger(TaggerConfig(image_size=32, channels=(8, 16))).eval()
    assert generate_views(model, asset, image=image, tagger=big, steps=1).prompt == ", ".join(big.tag(image))
    worded = generate_views(model, asset, image=image, tagger=tagger, material_words=["oak wood"], steps=1)
    assert worded.prompt == "oak wood"
    image_only = generate_views(model, asset, image=image, steps=1)
    assert image_only.prompt == "" and not np.allclose(image_only.albedo, tagged.albedo)
