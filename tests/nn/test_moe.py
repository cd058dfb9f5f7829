"""Mixture-of-Experts feed-forward: routing, top-k mixing, load balancing, gradients and parameter counts."""

from __future__ import annotations

import pytest
import torch

from seed3d.errors import InvalidInputError
from seed3d.nn.moe import MoEFeedForward, load_balance_loss


def _dense_reference(moe: MoEFeedForward, x: torch.Tensor) -> torch.Tensor:
    """Every expert on every token, mixed with the router's top-k weights (what the sparse dispatch must equal)."""
    r = moe.route(x)
    all_out = torch.stack([e(x) for e in moe.experts], dim=1)  # T, E, C
    picked = all_out.gather(1, r.experts[..., None].expand(-1, -1, x.shape[-1]))
    y = (picked * r.weights[..., None]).sum(1)
    return y + (moe.shared(x) if moe.shared is not None else 0.0)


@pytest.mark.parametrize(("experts", "k", "shared"), [(4, 1, 0), (4, 2, 0), (6, 3, 1)])
def test_sparse_dispatch_equals_dense_top_k_mixture(experts: int, k: int, shared: int) -> None:
    torch.manual_seed(0)
    moe = MoEFeedForward(8, 16, num_experts=experts, top_k=k, shared_experts=shared)
    x = torch.randn(2, 5, 8)
    y, aux = moe(x)
    assert y.shape == x.shape and aux.ndim == 0
    assert torch.allclose(y.reshape(-1, 8), _dense_reference(moe, x.reshape(-1, 8)), atol=1e-5)


def test_routing_takes_the_k_most_probable_experts_and_normalises_weights() -> None:
    torch.manual_seed(1)
    moe = MoEFeedForward(4, 8, num_experts=5, top_k=2)
    x = torch.randn(32, 4)
    r = moe.route(x)
    logits = moe.router(x)
    assert torch.equal(r.experts, logits.topk(2, dim=-1).indices)
    assert torch.allclose(r.weights.sum(-1), torch.ones(32))
    assert torch.allclose(r.probs.sum(-1), torch.ones(32))
    assert bool((r.weights[:, 0] >= r.weights[:, 1]).all())
    assert torch.allclose(r.load(5).sum(), torch.tensor(1.0))


def test_tokens_are_routed_independently_of_the_rest_of_the_batch() -> None:
    torch.manual_seed(2)
    moe = MoEFeedForward(8, 16, num_experts=4, top_k=2)
    x = torch.randn(10, 8)
    alone = torch.stack([moe(x[i:i + 1])[0][0] for i in range(10)])
    assert torch.allclose(moe(x)[0], alone, atol=1e-6)  # no capacity limit: nothing is dropped


def test_load_balance_loss_is_one_when_balanced_and_larger_when_collapsed() -> None:
    moe = MoEFeedForward(4, 8, num_experts=4, top_k=1)
    with torch.no_grad():
        moe.router.weight.copy_(torch.eye(4) * 10.0)
    # one token per expert direction: every expert gets a quarter of the tokens
    balanced = load_balance_loss(moe.route(torch.eye(4).repeat(8, 1)), 4)
    assert balanced.item() == pytest.approx(1.0, abs=0.01)
    collapsed = load_balance_loss(moe.route(torch.eye(4)[:1].repeat(32, 1)), 4)
    assert collapsed.item() == pytest.approx(4.0, abs=0.01)  # E / k at worst


def test_balance_loss_gradient_spreads_a_collapsed_router() -> None:
    torch.manual_seed(3)
    moe = MoEFeedForward(8, 8, num_experts=4, top_k=2)
    with torch.no_grad():
        moe.router.weight[0] += 1.0  # expert 0 takes most of its possible half of the routing slots
    x = torch.randn(256, 8) + 0.5
    opt = torch.optim.SGD(moe.router.parameters(), lr=0.5)
    before, load_before = moe(x)[1].item(), moe.route(x).load(4)
    for _ in range(50):
        opt.zero_grad()
        moe(x)[1].backward()
        opt.step()
    after, load_after = moe(x)[1].item(), moe.route(x).load(4)
    assert before > 1.4 and after < 1.1
    assert float(load_before[0]) > 0.4 and float(load_after[0]) < 0.3


def test_gradients_reach_the_router_and_only_the_chosen_experts() -> None:
    torch.manual_seed(4)
    moe = MoEFeedForward(6, 12, num_experts=4, top_k=1)
    with torch.no_grad():
        moe.router.weight.zero_()
        moe.router.weight[2] = 1.0  # positive inputs all pick expert 2
    x = torch.rand(16, 6) + 0.1
    y, aux = moe(x)
    (y.square().sum() + aux).backward()
    assert moe.router.weight.grad is not None and float(moe.router.weight.grad.abs().sum()) > 0
    for e, expert in enumerate(moe.experts):
        grads = [p.grad for p in expert.parameters()]
        if e == 2:
            assert all(g is not None and float(g.abs().sum()) > 0 for g in grads)
        else:
            assert all(g is None or float(g.abs().sum()) == 0 for g in grads)


def test_router_weights_get_gradient_from_the_task_loss_through_the_gates() -> None:
    torch.manual_seed(5)
    moe = MoEFeedForward(6, 12, num_experts=4, top_k=2)
    y, _ = moe(torch.randn(20, 6))
    y.sum().backward()
    assert moe.router.weight.grad is not None and float(moe.router.weight.grad.abs().sum()) > 0


def test_active_versus_total_parameters() -> None:
    moe = MoEFeedForward(8, 16, num_experts=8, top_k=2, shared_experts=1)
    expert = 8 * 16 + 16 + 16 * 8 + 8
    router = 8 * 8
    assert moe.expert_parameters() == expert
    assert moe.num_parameters() == router + 8 * expert + expert
    assert moe.active_parameters() == router + 2 * expert + expert
    dense_like = MoEFeedForward(8, 16, num_experts=2, top_k=2)
    assert dense_like.active_parameters() == dense_like.num_parameters()


def test_bad_settings_and_inputs_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="top_k"):
        MoEFeedForward(8, 16, num_experts=2, top_k=3)
    with pytest.raises(InvalidInputError, match="top_k"):
        MoEFeedForward(8, 16, num_experts=2, top_k=0)
    with pytest.raises(InvalidInputError, match="shared_experts"):
        MoEFeedForward(8, 16, shared_experts=-1)
    with pytest.raises(InvalidInputError, match="8 channels"):
        MoEFeedForward(8, 16)(torch.zeros(3, 7))
