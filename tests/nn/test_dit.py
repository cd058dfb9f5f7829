"""DiT pieces: timestep embedding, adaLN-Zero block, conditional trunk and its null condition."""

from __future__ import annotations

import pytest
import torch

from seed3d.errors import InvalidInputError
from seed3d.nn.dit import DiTBlock, DiTTrunk, TimestepEmbed


def _randomise(module: torch.nn.Module, seed: int = 0, std: float = 0.2) -> None:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * std)


def _inputs(b: int = 2, t: int = 5, dim: int = 16, length: int = 3, cond_dim: int = 8, seed: int = 1
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(b, t, dim, generator=g), torch.randn(b, dim, generator=g),
            torch.randn(b, length, cond_dim, generator=g))


def test_timestep_embed_shape_and_sensitivity() -> None:
    emb = TimestepEmbed(16, freq_dim=32)
    out = emb(torch.tensor([0.0, 0.5, 1.0]))
    assert out.shape == (3, 16)
    assert not torch.allclose(out[0], out[1]) and not torch.allclose(out[1], out[2])
    with pytest.raises(InvalidInputError):
        TimestepEmbed(16, freq_dim=31)


def test_dit_block_is_identity_at_init() -> None:
    block = DiTBlock(16, 2, cond_dim=8)
    x, temb, cond = _inputs()
    mask = torch.tensor([[True, True, False], [True, False, False]])
    key_mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    assert torch.equal(block(x, temb, cond, mask, key_mask), x)


def test_dit_block_uses_condition_and_masks() -> None:
    block = DiTBlock(16, 2, cond_dim=8)
    _randomise(block)
    x, temb, cond = _inputs()
    mask = torch.tensor([[True, True, False], [True, False, False]])
    out = block(x, temb, cond, mask)
    assert out.shape == x.shape and not torch.allclose(out, x)
    other = cond.clone()
    other[~mask] = 5.0  # masked condition tokens are never attended
    assert torch.allclose(block(x, temb, other, mask), out, atol=1e-6)
    other[0, 0] = 5.0
    assert not torch.allclose(block(x, temb, other, mask)[0], out[0])
    # padding tokens (key mask False) do not change real tokens
    key_mask = torch.tensor([[True, True, True, False, False]] * 2)
    ref = block(x, temb, cond, mask, key_mask)
    x2 = x.clone()
    x2[:, 3:] = 7.0
    assert torch.allclose(block(x2, temb, cond, mask, key_mask)[:, :3], ref[:, :3], atol=1e-5)


def test_trunk_null_condition_and_drop() -> None:
    trunk = DiTTrunk(16, 1, 2, cond_dim=8, num_null_tokens=3)
    null, null_mask = trunk.null_condition(2, length=5)
    assert null.shape == (2, 5, 8) and null_mask.tolist() == [[True] * 3 + [False] * 2] * 2
    assert trunk.null_condition(1, length=1)[0].shape == (1, 3, 8)  # never shorter than the null set
    cond = torch.randn(4, 2, 8)
    kept, kept_mask = trunk.drop_condition(cond, None, 0.0)
    assert torch.equal(kept[:, :2], cond) and kept.shape == (4, 3, 8) and kept_mask[:, :2].all()
    assert not kept_mask[:, 2].any()
    dropped, dropped_mask = trunk.drop_condition(cond, None, 1.0)
    assert torch.equal(dropped, trunk.null_condition(4, 2)[0]) and dropped_mask[:, :3].all()
    a = trunk.drop_condition(cond, None, 0.5, torch.Generator().manual_seed(3))
    b = trunk.drop_condition(cond, None, 0.5, torch.Generator().manual_seed(3))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    with pytest.raises(InvalidInputError):
        trunk.drop_condition(cond, None, 1.5)


def test_trunk_forward_checks() -> None:
    trunk = DiTTrunk(16, 2, 2, cond_dim=8)
    h = torch.randn(2, 5, 16)
    out = trunk(h, torch.rand(2), torch.randn(2, 3, 8))
    assert out.shape == (2, 5, 16)
    with pytest.raises(InvalidInputError, match="no valid condition"):
        trunk(h, torch.rand(2), torch.randn(2, 3, 8), torch.tensor([[True, False, False], [False] * 3]))
    with pytest.raises(InvalidInputError):
        trunk(h, torch.rand(2), torch.randn(2, 3, 7))
    with pytest.raises(InvalidInputError):
        trunk(h, torch.rand(3), torch.randn(2, 3, 8))


def test_trunk_pooled_condition_modulates_through_the_masked_mean() -> None:
    trunk = DiTTrunk(16, 1, 2, cond_dim=8, pooled_condition=True)
    _randomise(trunk)
    with torch.no_grad():
        for blk in trunk.blocks:  # no cross-attention: the condition reaches the tokens only through the pool
            blk.cross.out.weight.zero_()
            blk.cross.out.bias.zero_()
    h, _, cond = _inputs()
    t = torch.tensor([0.3, 0.7])
    mask = torch.tensor([[True, True, False], [True, False, False]])
    out = trunk(h, t, cond, mask)
    other = cond.clone()
    other[~mask] = 9.0  # masked tokens are left out of the pool
    assert torch.allclose(trunk(h, t, other, mask), out, atol=1e-6)
    other[0, 1] = 9.0
    changed = trunk(h, t, other, mask)
    assert not torch.allclose(changed[0], out[0]) and torch.allclose(changed[1], out[1], atol=1e-6)
    plain = DiTTrunk(16, 1, 2, cond_dim=8)
    assert not any("cond_pool" in k for k in plain.state_dict())  # older checkpoints load unchanged
