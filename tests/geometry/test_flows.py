"""Stage-1 (coarse) and stage-2 (detail) geometry flows, and the coarse-surface voxel support."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from seed3d.asset import Mesh
from seed3d.errors import InvalidInputError
from seed3d.geometry.coarse import CoarseFlow, CoarseFlowConfig, grid_sdf_function
from seed3d.geometry.detail import (
    DetailFlow,
    DetailFlowConfig,
    batch_supports,
    coarse_support,
    refine,
    snap_to_surface,
    state_latent,
    widen_state,
)
from seed3d.nn.flow import FlowSampler, flow_loss, interpolate
from seed3d.nn.trainer import warm_start

TINY = {"width": 32, "depth": 2, "heads": 2, "cond_dim": 8, "pos_freqs": 3, "num_null_tokens": 2,
        "time_freq_dim": 16}
GRID = {"grid": 8, "patch": 4}
DETAIL = {**TINY, "latent_dim": 4}


def _randomise(module: torch.nn.Module, seed: int = 0, std: float = 0.15) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * std)


def _coarse(randomise: bool = True) -> CoarseFlow:
    model = CoarseFlow(CoarseFlowConfig(**GRID, **TINY)).eval()
    if randomise:
        _randomise(model)
    return model


def _batch(b: int = 2, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, 8, 8, 8, generator=g), torch.rand(b, generator=g), torch.randn(b, 3, 8, generator=g)


def test_coarse_forward_shape_and_zero_init() -> None:
    x, t, cond = _batch()
    fresh = _coarse(randomise=False)
    assert torch.equal(fresh(x, t, cond), torch.zeros(2, 8, 8, 8))
    model = _coarse()
    v = model(x, t, cond, torch.tensor([[True, True, False], [True, False, False]]))
    assert v.shape == (2, 8, 8, 8) and v.abs().sum() > 0
    assert model.num_tokens == 8
    with pytest.raises(InvalidInputError, match="grid values"):
        model(x[:, :6], t, cond)
    with pytest.raises(InvalidInputError, match="condition"):
        model(x, t, cond[..., :5])


def test_coarse_patches_are_regions_of_space() -> None:
    model = _coarse()
    x, _, _ = _batch()
    tokens = model.patchify(x)
    assert tokens.shape == (2, 8, 64) and torch.equal(model.unpatchify(tokens), x)
    # token 1 is the patch at x index 0, y index 0, z index 1: cells [0:4, 0:4, 4:8]
    assert torch.equal(tokens[0, 1], x[0, :4, :4, 4:].reshape(-1))
    assert torch.allclose(model.patch_centres[1], torch.tensor([-0.5, -0.5, 0.5]))
    # changing one patch's input changes the velocities of every patch (attention), not only its own
    x2 = x.clone()
    x2[:, :4, :4, :4] += 1.0
    t, cond = torch.rand(2), torch.randn(2, 3, 8)
    diff = (model(x2, t, cond) - model(x, t, cond)).abs()
    assert diff[:, 4:, 4:, 4:].sum() > 0


def test_coarse_values_are_the_truncated_distance() -> None:
    model = _coarse()
    cell = 2.0 / 8
    assert model.config.cell == cell and model.config.truncation == pytest.approx(2 * cell)
    sdf = torch.tensor([-1.0, -0.25, 0.0, 0.125, 3.0])
    assert torch.allclose(model.to_values(sdf), torch.tensor([-1.0, -0.5, 0.0, 0.25, 1.0]))
    assert torch.allclose(model.to_distance(model.to_values(sdf)), sdf.clamp(-0.5, 0.5))
    with pytest.raises(InvalidInputError, match="multiple of patch"):
        CoarseFlowConfig(grid=10, patch=4)
    with pytest.raises(InvalidInputError, match="level_cells"):
        CoarseFlowConfig(truncation_cells=1.0, level_cells=1.5)


def test_coarse_condition_dropout_and_save_and_load(tmp_path: Path) -> None:
    model = _coarse()
    cond, mask = model.drop_condition(torch.randn(2, 3, 8), None, 1.0)
    null, null_mask = model.null_condition(2, 3)
    assert torch.equal(cond, null) and torch.equal(mask, null_mask)
    x, t, cond = _batch()
    model.save_pretrained(tmp_path / "coarse")
    loaded = CoarseFlow.from_pretrained(tmp_path / "coarse")
    assert loaded.config == model.config
    assert torch.equal(loaded(x, t, cond), model(x, t, cond))


def test_coarse_generate_is_deterministic() -> None:
    model = _coarse()
    cond = torch.randn(2, 3, 8)
    seen: list[float] = []
    a = model.generate(cond, steps=3, guidance=2.0, generator=torch.Generator().manual_seed(0), callback=seen.append)
    b = model.generate(cond, steps=3, guidance=2.0, generator=torch.Generator().manual_seed(0))
    assert a.shape == (2, 8, 8, 8) and torch.equal(a, b)
    assert bool((a.abs() <= model.config.truncation + 1e-6).all())  # distances, saturating at the truncation
    assert seen[-1] == 1.0 and len(seen) == 3
    with pytest.raises(InvalidInputError, match="pure noise"):
        model.generate(cond, sampler=FlowSampler(num_steps=2, t_start=0.5))


def test_grid_sdf_function_interpolates_and_closes_inside_the_cube() -> None:
    g = 16
    centres = (np.arange(g) + 0.5) * (2.0 / g) - 1.0
    xyz = np.stack(np.meshgrid(centres, centres, centres, indexing="ij"), -1)
    sphere = np.clip(np.linalg.norm(xyz, axis=-1) - 0.5, -0.25, 0.25)
    field = grid_sdf_function(sphere, truncation=0.25)
    q = np.random.default_rng(0).uniform(-0.7, 0.7, (500, 3))
    exact = np.linalg.norm(q, axis=1) - 0.5
    assert np.abs(field(q) - exact)[np.abs(exact) < 0.2].max() < 0.02  # trilinear on a smooth distance
    assert np.allclose(field(xyz.reshape(-1, 3)[:5]), sphere.reshape(-1)[:5], atol=1e-6)  # exact at the centres
    dilated = grid_sdf_function(sphere, truncation=0.25, offset=0.1)
    assert np.allclose(dilated(q), field(q) - 0.1, atol=1e-6)
    # a grid inside up to its outermost centres still gives a surface that closes inside the cube
    full = grid_sdf_function(np.full((g, g, g), -0.25), truncation=0.25, offset=0.1)
    values = full(np.array([[1.0, 0.0, 0.0], [0.0, -0.99, 0.5], [0.95, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    assert values[:2].min() > 0 and values[2:].max() < 0
    with pytest.raises(InvalidInputError, match="G, G, G"):
        grid_sdf_function(np.zeros((4, 4, 5)), 0.25)


def _detail_from(coarse: CoarseFlow, **overrides: object) -> DetailFlow:
    cfg = DetailFlowConfig(**{**DETAIL, **overrides})  # type: ignore[arg-type]
    return DetailFlow.from_coarse(coarse, cfg).eval()


def test_detail_forward_shapes_and_masks() -> None:
    model = DetailFlow(DetailFlowConfig(**DETAIL)).eval()
    _randomise(model)
    g = torch.Generator().manual_seed(0)
    feats, pos, cond = torch.randn(2, 8, 4, generator=g), torch.rand(2, 8, 3, generator=g) * 2 - 1, torch.randn(2, 3, 8)
    t = torch.rand(2, generator=g)
    key_mask = torch.ones(2, 8, dtype=torch.bool)
    key_mask[0, 5:] = False
    coarse = torch.randn(2, 8, 4, generator=g)
    ref = model(feats, t, cond, positions=pos, coarse=coarse, key_mask=key_mask)
    assert ref.shape == (2, 8, 4) and torch.equal(ref[0, 5:], torch.zeros(3, 4))
    feats2, pos2, coarse2 = feats.clone(), pos.clone(), coarse.clone()
    feats2[0, 5:], pos2[0, 5:], coarse2[0, 5:] = 4.0, 0.3, -2.0
    out = model(feats2, t, cond, positions=pos2, coarse=coarse2, key_mask=key_mask)
    assert torch.allclose(out[0, :5], ref[0, :5], atol=1e-5)
    # positions and the coarse feats matter: moving a token or changing its coarse feats changes its velocity
    pos3, coarse3 = pos.clone(), coarse.clone()
    pos3[1, 0] += 0.2
    coarse3[1, 0] += 1.0
    base = model(feats, t, cond, positions=pos, coarse=coarse)[1, 0]
    assert not torch.allclose(model(feats, t, cond, positions=pos3, coarse=coarse)[1, 0], base)
    assert not torch.allclose(model(feats, t, cond, positions=pos, coarse=coarse3)[1, 0], base)
    with pytest.raises(InvalidInputError):
        model(feats, t, cond, positions=pos[:, :4], coarse=coarse)
    with pytest.raises(InvalidInputError, match="coarse"):
        model(feats, t, cond, positions=pos, coarse=coarse[:, :4])


@pytest.mark.parametrize("pos_freqs", [3, 5])
def test_from_coarse_copies_weights(pos_freqs: int) -> None:
    coarse = _coarse()
    detail = _detail_from(coarse, pos_freqs=pos_freqs)
    for k, v in coarse.trunk.state_dict().items():
        assert torch.equal(detail.trunk.state_dict()[k], v)
    # the position features of a point are stage 1's wherever the Fourier bands are shared
    pos = torch.rand(5, 3) * 2 - 1
    if pos_freqs >= coarse.config.pos_freqs:
        assert torch.allclose(detail.pos_proj(detail.pos_embed(pos)), coarse.pos_proj(coarse.pos_embed(pos)),
                              atol=1e-5)
    assert torch.equal(detail.out_proj.weight, torch.zeros_like(detail.out_proj.weight))
    assert DetailFlow.from_coarse(coarse).config.pos_freqs == coarse.config.pos_freqs
    with pytest.raises(InvalidInputError, match="width"):
        DetailFlow.from_coarse(coarse, DetailFlowConfig(**{**DETAIL, "width": 16}))


def test_detail_save_and_load(tmp_path: Path) -> None:
    detail = _detail_from(_coarse())
    detail.save_pretrained(tmp_path / "detail")
    loaded = DetailFlow.from_pretrained(tmp_path / "detail")
    pos, feats, cond = torch.rand(1, 6, 3), torch.randn(1, 6, 4), torch.randn(1, 2, 8)
    t = torch.tensor([0.3])
    assert loaded.config == detail.config
    assert torch.equal(loaded(feats, t, cond, positions=pos, coarse=feats), detail(feats, t, cond, positions=pos,
                                                                                  coarse=feats))


def test_refine_starts_from_partly_noised_coarse_latent() -> None:
    g = torch.Generator().manual_seed(0)
    pos, feats, cond = torch.rand(2, 6, 3, generator=g), torch.randn(2, 6, 4, generator=g), torch.randn(2, 3, 8)
    fresh = DetailFlow(DetailFlowConfig(**DETAIL))  # zero velocity: the output is the partly noised start
    out = refine(fresh, pos, feats, cond, t_start=0.1, steps=3, generator=torch.Generator().manual_seed(1))
    noise = torch.randn(2, 6, 4, generator=torch.Generator().manual_seed(1))
    assert torch.allclose(out, 0.9 * feats + 0.1 * noise, atol=1e-6)
    detail = _detail_from(_coarse())
    key_mask = torch.ones(2, 6, dtype=torch.bool)
    key_mask[1, 4:] = False
    a = refine(detail, pos, feats, cond, key_mask=key_mask, steps=3, guidance=2.0,
               generator=torch.Generator().manual_seed(2))
    b = refine(detail, pos, feats, cond, key_mask=key_mask, steps=3, guidance=2.0,
               generator=torch.Generator().manual_seed(2))
    assert torch.equal(a, b) and torch.equal(a[1, 4:], torch.zeros(2, 4))
    single = refine(detail, pos[0].numpy(), feats[0], cond[0], steps=2, generator=torch.Generator().manual_seed(2))
    assert single.shape == (6, 4)
    with pytest.raises(InvalidInputError):
        refine(detail, pos[:, :5], feats, cond)


def test_anchor_offsets_add_three_state_channels_and_warm_start_from_a_model_without_them() -> None:
    plain = _detail_from(_coarse())
    _randomise(plain, seed=3)
    wide = DetailFlow(DetailFlowConfig(**DETAIL, anchor_offsets=True)).eval()
    assert wide.config.channels == 7 and plain.config.channels == 4
    assert wide.in_proj.weight.shape[1] == 14 and wide.out_proj.weight.shape[0] == 7
    warm_start(wide, widen_state(wide, plain.state_dict()), "plain")
    g = torch.Generator().manual_seed(0)
    x, coarse, pos = torch.randn(2, 6, 7, generator=g), torch.randn(2, 6, 7, generator=g), torch.rand(2, 6, 3)
    t, cond = torch.rand(2, generator=g), torch.randn(2, 3, 8, generator=g)
    v = wide(x, t, cond, positions=pos, coarse=coarse)
    # the latent channels move as the model without offsets moved them (whatever the offsets); the offsets start still
    assert torch.allclose(v[..., :4], plain(x[..., :4], t, cond, positions=pos, coarse=coarse[..., :4]), atol=1e-5)
    assert torch.equal(v[..., 4:], torch.zeros(2, 6, 3))
    with pytest.raises(InvalidInputError, match="7"):
        wide(x[..., :4], t, cond, positions=pos, coarse=coarse[..., :4])
    # the flow's units: the latent over latent_scale, the offsets times offset_scale
    cfg = DetailFlowConfig(**DETAIL, anchor_offsets=True, extra={"latent_scale": 2.0, "offset_scale": 20.0})
    assert torch.equal(cfg.state_scale(), torch.tensor([0.5] * 4 + [20.0] * 3))
    assert torch.equal(DetailFlowConfig(**DETAIL).state_scale(), torch.ones(4))


def test_snapped_anchors_sit_on_the_surface_within_reach() -> None:
    surface = np.stack(np.meshgrid(np.linspace(-1, 1, 41), np.linspace(-1, 1, 41), [0.0]), -1).reshape(-1, 3)
    support = np.array([[0.0, 0.0, 0.05], [0.5, -0.5, -0.1], [0.2, 0.3, 0.6]])
    snapped = snap_to_surface(support, surface, reach=0.25)
    assert snapped.dtype == np.float32
    assert np.allclose(snapped[:2], [[0.0, 0.0, 0.0], [0.5, -0.5, 0.0]], atol=1e-6)
    assert np.allclose(snapped[2], [0.2, 0.3, 0.35], atol=1e-6)  # too far: moved by the reach toward the surface
    with pytest.raises(InvalidInputError, match="no surface"):
        snap_to_surface(support, np.zeros((0, 3)), 0.25)
    # a state's offsets move its latent's anchors off the positions, by at most the reach
    cfg = DetailFlowConfig(**DETAIL, resolution=16, anchor_offsets=True)
    pos = torch.zeros(1, 2, 3)
    state = torch.cat([torch.randn(1, 2, 4), torch.tensor([[[0.1, 0.0, -0.1], [0.0, 2.0, 0.0]]])], -1)
    latent = state_latent(cfg, pos, state)
    assert torch.equal(latent.feats, state[..., :4])
    assert torch.allclose(latent.anchors, torch.tensor([[[0.1, 0.0, -0.1], [0.0, cfg.snap_reach, 0.0]]]))
    plain = state_latent(DetailFlowConfig(**DETAIL), pos, state[..., :4])
    assert torch.equal(plain.anchors, pos) and torch.equal(plain.feats, state[..., :4])


def test_coarse_flow_overfits_one_grid() -> None:
    torch.manual_seed(0)
    model = CoarseFlow(CoarseFlowConfig(**GRID, **TINY))
    g = torch.Generator().manual_seed(0)
    x0 = (torch.rand(1, 8, 8, 8, generator=g) * 2 - 1).expand(8, -1, -1, -1)
    cond = torch.randn(1, 2, 8, generator=g).expand(8, -1, -1)
    eval_noise, eval_t = torch.randn(8, 8, 8, 8, generator=g), torch.linspace(0.05, 0.95, 8)

    def eval_loss() -> float:
        with torch.no_grad():
            return flow_loss(model(interpolate(x0, eval_noise, eval_t), eval_t, cond), x0, eval_noise).item()

    before = eval_loss()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(80):
        noise, t = torch.randn(8, 8, 8, 8, generator=g), torch.rand(8, generator=g)
        loss = flow_loss(model(interpolate(x0, noise, t), t, cond), x0, noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert eval_loss() < 0.75 * before


def _sphere_points(radius: float = 0.6, n: int = 20000) -> np.ndarray:
    p = np.random.default_rng(0).normal(size=(n, 3))
    return radius * p / np.linalg.norm(p, axis=1, keepdims=True)


def test_coarse_support_is_a_dilated_shell() -> None:
    pts = _sphere_points()
    voxel = 2.0 / 32
    shell = coarse_support(pts, resolution=32, dilation=0, max_tokens=100_000)
    r = np.linalg.norm(shell, axis=1)
    assert shell.dtype == np.float32 and shell.shape[1] == 3
    assert np.all(np.abs(r - 0.6) <= np.sqrt(3) / 2 * voxel + 1e-6)  # every voxel touches the sphere
    assert np.allclose((shell + 1) / voxel % 1, 0.5, atol=1e-4)  # voxel centres
    thick = coarse_support(pts, resolution=32, dilation=1, max_tokens=100_000)
    assert len(thick) > 2 * len(shell)
    assert {tuple(p) for p in shell.tolist()} <= {tuple(p) for p in thick.tolist()}
    assert np.all(np.abs(np.linalg.norm(thick, axis=1) - 0.6) <= np.sqrt(3) * 1.5 * voxel)
    assert np.linalg.norm(thick, axis=1).min() > 0.3  # a shell, not a filled ball
    capped = coarse_support(pts, resolution=32, dilation=1, max_tokens=300)
    assert capped.shape == (300, 3)
    assert np.array_equal(capped, coarse_support(pts, resolution=32, dilation=1, max_tokens=300))
    assert {tuple(p) for p in capped.tolist()} <= {tuple(p) for p in thick.tolist()}
    # farthest-point thinning keeps the whole shell covered
    gaps = np.linalg.norm(thick[:, None] - capped[None], axis=-1).min(axis=1)
    assert gaps.max() < 0.25


def test_coarse_support_from_mesh_and_errors() -> None:
    import trimesh

    mesh = Mesh.from_trimesh(trimesh.creation.icosphere(subdivisions=2, radius=0.6))
    support = coarse_support(mesh, resolution=16, dilation=0, max_tokens=10_000)
    r = np.linalg.norm(support, axis=1)
    assert len(support) > 100 and np.all(np.abs(r - 0.6) <= np.sqrt(3) / 16 + 0.02)
    assert np.array_equal(support, coarse_support(mesh, resolution=16, dilation=0, max_tokens=10_000))
    with pytest.raises(InvalidInputError, match="normalised cube"):
        coarse_support(_sphere_points(1.5))
    with pytest.raises(InvalidInputError):
        coarse_support(np.zeros((0, 3)))
    with pytest.raises(InvalidInputError):
        coarse_support(_sphere_points(), dilation=-1)


def test_batch_supports_pads_with_a_mask() -> None:
    positions, mask = batch_supports([np.zeros((3, 3)), torch.ones(5, 3)])
    assert positions.shape == (2, 5, 3) and mask.tolist() == [[True] * 3 + [False] * 2, [True] * 5]
    assert torch.equal(positions[1], torch.ones(5, 3)) and torch.equal(positions[0, 3:], torch.zeros(2, 3))
