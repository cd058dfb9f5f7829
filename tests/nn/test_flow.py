"""Rectified-flow utilities and the Euler sampler, checked against analytic velocity fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from seed3d.errors import InvalidInputError
from seed3d.nn.flow import (
    FlowSampler,
    flow_loss,
    interpolate,
    sample_timesteps,
    shift_for_length,
    shift_timesteps,
    velocity_target,
)


def point_mass(x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None, cond_mask: torch.Tensor | None,
               **_: Any) -> torch.Tensor:
    """Exact velocity toward the target ``cond[:, 0]`` (B, 1, D) for a point-mass data distribution."""
    assert cond is not None
    return (x - cond[:, :1]) / t[:, None, None]


def gaussian_field(mu: float, s: float) -> Callable[..., torch.Tensor]:
    """Exact velocity of the flow whose data distribution is N(mu, s^2) per coordinate."""

    def field(x: torch.Tensor, t: torch.Tensor, cond: Any, cond_mask: Any) -> torch.Tensor:
        tt = t[:, None, None]
        var = (1 - tt) ** 2 * s**2 + tt**2
        x0 = mu + (1 - tt) * s**2 / var * (x - (1 - tt) * mu)
        noise = (x - (1 - tt) * x0) / tt
        return noise - x0

    return field


def test_interpolate_and_target_identities() -> None:
    g = torch.Generator().manual_seed(0)
    x0, noise = torch.randn(3, 4, 5, generator=g), torch.randn(3, 4, 5, generator=g)
    assert torch.equal(interpolate(x0, noise, torch.zeros(3)), x0)
    assert torch.equal(interpolate(x0, noise, torch.ones(3)), noise)
    t, dt = torch.tensor([0.2, 0.5, 0.9]), 1e-3
    deriv = (interpolate(x0, noise, t + dt) - interpolate(x0, noise, t - dt)) / (2 * dt)
    assert torch.allclose(deriv, velocity_target(x0, noise), atol=1e-2)
    assert flow_loss(noise - x0, x0, noise).item() == pytest.approx(0.0)
    mask = torch.tensor([[True, True, False, False]] * 3)
    pred = noise - x0
    pred[:, 2:] += 10.0  # padding tokens do not count
    assert flow_loss(pred, x0, noise, mask).item() == pytest.approx(0.0)
    pred[:, :2] += 1.0
    assert flow_loss(pred, x0, noise, mask).item() == pytest.approx(1.0)


def test_sample_timesteps() -> None:
    t = sample_timesteps(4000, torch.Generator().manual_seed(0))
    assert t.shape == (4000,) and bool((t > 0).all() and (t <= 1).all())
    assert t.median().item() == pytest.approx(0.5, abs=0.03)
    u = sample_timesteps(4000, torch.Generator().manual_seed(0), mode="uniform")
    assert u.mean().item() == pytest.approx(0.5, abs=0.03)
    shifted = sample_timesteps(4000, torch.Generator().manual_seed(0), shift=3.0)
    assert shifted.median().item() > 0.7
    assert torch.equal(sample_timesteps(8, torch.Generator().manual_seed(5)),
                       sample_timesteps(8, torch.Generator().manual_seed(5)))
    with pytest.raises(InvalidInputError):
        sample_timesteps(2, mode="cosine")  # type: ignore[arg-type]
    assert shift_timesteps(torch.tensor([0.0, 1.0]), 3.0).tolist() == [0.0, 1.0]
    assert shift_for_length(1024) == pytest.approx(2.0)


def test_sampler_schedule() -> None:
    times = FlowSampler(num_steps=4).times()
    assert torch.allclose(times, torch.tensor([1.0, 0.75, 0.5, 0.25, 0.0]))
    shifted = FlowSampler(num_steps=4, shift=3.0, t_start=0.4).times()
    assert len(shifted) == 5 and shifted[0].item() == pytest.approx(0.4) and shifted[-1].item() == 0.0
    assert bool((shifted[:-1] > shifted[1:]).all())
    with pytest.raises(InvalidInputError):
        FlowSampler(num_steps=0)
    with pytest.raises(InvalidInputError):
        FlowSampler(t_start=0.0)


@pytest.mark.parametrize("shift", [1.0, 3.0])
def test_euler_reaches_point_mass(shift: float) -> None:
    c = torch.tensor([[[0.5, -1.0, 2.0]], [[3.0, 0.0, -0.25]]])
    out = FlowSampler(num_steps=7, shift=shift).sample(point_mass, (2, 6, 3), cond=c,
                                                       generator=torch.Generator().manual_seed(0))
    assert torch.allclose(out, c.expand(-1, 6, -1), atol=1e-5)


def test_classifier_free_guidance() -> None:
    c = torch.tensor([[[1.0, 2.0]]])
    null = torch.zeros(1, 1, 2)
    g = torch.Generator
    plain = FlowSampler(num_steps=5).sample(point_mass, (1, 3, 2), cond=c, generator=g().manual_seed(1))
    one = FlowSampler(num_steps=5, guidance_scale=1.0).sample(point_mass, (1, 3, 2), cond=c, null_cond=null,
                                                                generator=g().manual_seed(1))
    assert torch.equal(one, plain)
    # guided velocity v_null + s (v_cond - v_null) is the exact field toward null + s (c - null)
    two = FlowSampler(num_steps=5, guidance_scale=2.0).sample(point_mass, (1, 3, 2), cond=c, null_cond=null,
                                                                generator=g().manual_seed(1))
    assert torch.allclose(two, 2.0 * c.expand(-1, 3, -1), atol=1e-5)
    with pytest.raises(InvalidInputError, match="null_cond"):
        FlowSampler(guidance_scale=2.0).sample(point_mass, (1, 3, 2), cond=c)


def test_guidance_runs_one_batched_call_per_step() -> None:
    calls: list[tuple[int, int, int]] = []

    def model(x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor, cond_mask: torch.Tensor,
              extra: torch.Tensor) -> torch.Tensor:
        calls.append((x.shape[0], cond.shape[1], extra.shape[0]))
        assert cond_mask[:2].all() and cond_mask[2:, :1].all() and not cond_mask[2:, 1:].any()
        return torch.zeros_like(x)

    cond = torch.randn(2, 3, 4)
    FlowSampler(num_steps=3, guidance_scale=4.0).sample(model, (2, 5, 4), cond=cond, null_cond=torch.zeros(1, 4),
                                                        model_kwargs={"extra": torch.zeros(2, 5)})
    assert calls == [(4, 3, 4)] * 3


def test_partial_start_stays_close_to_x0() -> None:
    mu, s = 0.5, 0.7
    field = gaussian_field(mu, s)
    g = torch.Generator().manual_seed(0)
    x0 = mu + s * torch.randn(1, 2000, 1, generator=g)
    near = FlowSampler(num_steps=50, t_start=0.05).sample(field, x0=x0, generator=torch.Generator().manual_seed(1))
    far = FlowSampler(num_steps=50, t_start=1.0).sample(field, x0=x0, generator=torch.Generator().manual_seed(1))
    assert (near - x0).abs().mean().item() < 0.06
    assert (far - x0).abs().mean().item() > 0.3
    # from pure noise the exact field transports N(0, 1) to the data distribution N(mu, s^2)
    assert far.mean().item() == pytest.approx(mu, abs=0.06) and far.std().item() == pytest.approx(s, abs=0.03)
    with pytest.raises(InvalidInputError, match="x0"):
        FlowSampler(t_start=0.5).sample(field, (1, 2, 1))


def test_sampler_is_deterministic_per_generator_and_reports_progress() -> None:
    field = gaussian_field(0.0, 0.5)
    seen: list[float] = []
    sampler = FlowSampler(num_steps=4)
    a = sampler.sample(field, (2, 8, 3), generator=torch.Generator().manual_seed(7), callback=seen.append)
    b = sampler.sample(field, (2, 8, 3), generator=torch.Generator().manual_seed(7))
    c = sampler.sample(field, (2, 8, 3), generator=torch.Generator().manual_seed(8))
    assert torch.equal(a, b) and not torch.allclose(a, c)
    assert seen == [0.25, 0.5, 0.75, 1.0]


