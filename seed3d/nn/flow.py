"""Rectified-flow utilities: timestep sampling, interpolation, the velocity loss and an Euler sampler with
classifier-free guidance and partial-noise starts.

Convention: ``x_t = (1 - t) * x0 + t * noise`` with ``t`` in [0, 1] (``t = 1`` is pure noise) and the velocity
target ``v = noise - x0``; sampling integrates ``dx/dt = v`` from ``t_start`` down to 0. The step schedule (and
its optional timestep shift) comes from diffusers' ``FlowMatchEulerDiscreteScheduler``, whose sigma is our ``t``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import numpy as np
import torch

from seed3d.errors import InvalidInputError
from seed3d.nn.dit import pad_tokens


class VelocityModel(Protocol):
    """A callable ``model(x_t, t, cond, cond_mask, **kwargs) -> velocity`` (shape of ``x_t``)."""

    def __call__(self, x: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None,
                 cond_mask: torch.Tensor | None, **kwargs: Any) -> torch.Tensor: ...


def _expand(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return t.to(like.dtype).reshape(-1, *([1] * (like.ndim - 1)))


def shift_timesteps(t: torch.Tensor, shift: float) -> torch.Tensor:
    """Timestep shift ``s t / (1 + (s - 1) t)``: ``shift > 1`` moves times toward the noisy end."""
    if shift <= 0:
        raise InvalidInputError(f"timestep shift must be > 0, got {shift}")
    return shift * t / (1.0 + (shift - 1.0) * t)


def shift_for_length(num_tokens: int, base_tokens: int = 256, base_shift: float = 1.0) -> float:
    """Length-aware timestep shift ``base_shift * sqrt(num_tokens / base_tokens)`` (more tokens, noisier times)."""
    if num_tokens < 1 or base_tokens < 1:
        raise InvalidInputError(f"token counts must be >= 1, got {num_tokens} and {base_tokens}")
    return base_shift * math.sqrt(num_tokens / base_tokens)


def sample_timesteps(batch: int, generator: torch.Generator | None = None,
                     mode: Literal["logit_normal", "uniform"] = "logit_normal", mean: float = 0.0, std: float = 1.0,
                     shift: float = 1.0, device: str | torch.device | None = None) -> torch.Tensor:
    """Training times (B,) in (0, 1]: logit-normal ``sigmoid(mean + std * z)`` or uniform, then shifted."""
    gen_device = generator.device if generator is not None else torch.device("cpu")
    if mode == "logit_normal":
        t = torch.sigmoid(mean + std * torch.randn(batch, generator=generator, device=gen_device))
    elif mode == "uniform":
        t = torch.rand(batch, generator=generator, device=gen_device)
    else:
        raise InvalidInputError(f"unknown timestep mode {mode!r}; use 'logit_normal' or 'uniform'")
    t = shift_timesteps(t, shift) if shift != 1.0 else t
    return t.clamp(1e-5, 1.0).to(device or gen_device)


def interpolate(x0: torch.Tensor, noise: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """``x_t = (1 - t) x0 + t noise`` with per-sample ``t`` (B,) broadcast over the remaining dims."""
    tt = _expand(t, x0)
    return (1.0 - tt) * x0 + tt * noise


def velocity_target(x0: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    """The rectified-flow velocity ``noise - x0``."""
    return noise - x0


def flow_loss(pred_v: torch.Tensor, x0: torch.Tensor, noise: torch.Tensor,
              mask: torch.Tensor | None = None) -> torch.Tensor:
    """Mean squared error of ``pred_v`` against ``noise - x0``; ``mask`` (B, M) keeps only real tokens of (B, M, C)."""
    err = (pred_v.float() - velocity_target(x0, noise).float()).square()
    if mask is None:
        return err.mean()
    m = mask.to(err.dtype)
    while m.ndim < err.ndim:
        m = m[..., None]
    denom = (m.expand_as(err)).sum().clamp_min(1.0)
    return (err * m).sum() / denom


class FlowSampler:
    """Euler sampler for rectified flows with timestep shift, classifier-free guidance and partial-noise starts.

    ``t_start < 1`` starts from ``(1 - t_start) x0 + t_start * noise`` for a given ``x0`` (SDEdit-style refinement)
    and spends all ``num_steps`` between ``t_start`` and 0."""

    def __init__(self, num_steps: int = 25, shift: float = 1.0, guidance_scale: float = 1.0,
                 t_start: float = 1.0) -> None:
        if num_steps < 1:
            raise InvalidInputError(f"num_steps must be >= 1, got {num_steps}")
        if shift <= 0:
            raise InvalidInputError(f"timestep shift must be > 0, got {shift}")
        if not 0.0 < t_start <= 1.0:
            raise InvalidInputError(f"t_start must be in (0, 1], got {t_start}")
        self.num_steps = num_steps
        self.shift = float(shift)
        self.guidance_scale = float(guidance_scale)
        self.t_start = float(t_start)

    def __repr__(self) -> str:
        return (f"FlowSampler(num_steps={self.num_steps}, shift={self.shift}, "
                f"guidance_scale={self.guidance_scale}, t_start={self.t_start})")

    def _scheduler(self, device: torch.device) -> Any:
        from diffusers import FlowMatchEulerDiscreteScheduler

        sched = FlowMatchEulerDiscreteScheduler(num_train_timesteps=1000, shift=self.shift)
        s, ts = self.shift, self.t_start
        # The scheduler shifts the sigmas it is given; un-shift t_start so the shifted schedule starts exactly there.
        base_start = ts / (s - (s - 1.0) * ts)
        base = np.linspace(base_start, 0.0, self.num_steps + 1)[:-1]
        sched.set_timesteps(sigmas=base.tolist(), device=device)
        sched.set_begin_index(0)
        return sched

    def times(self) -> torch.Tensor:
        """The ``num_steps + 1`` times visited, from ``t_start`` down to 0."""
        return self._scheduler(torch.device("cpu")).sigmas.clone()

    @torch.no_grad()
    def sample(self, model: VelocityModel | Callable[..., torch.Tensor], shape: Sequence[int] | None = None,
               cond: torch.Tensor | None = None, cond_mask: torch.Tensor | None = None,
               null_cond: torch.Tensor | None = None, null_mask: torch.Tensor | None = None, *,
               x0: torch.Tensor | None = None, noise: torch.Tensor | None = None,
               generator: torch.Generator | None = None, device: str | torch.device | None = None,
               model_kwargs: dict[str, Any] | None = None,
               callback: Callable[[float], None] | None = None) -> torch.Tensor:
        """Integrate ``model`` from noise (or partly noised ``x0``) to ``t = 0``; returns a (``shape``) tensor.

        With ``guidance_scale != 1`` the model sees ``[cond; null_cond]`` in one batch (tensors in ``model_kwargs``
        are repeated along the batch) and the velocity is ``v_null + scale * (v_cond - v_null)``."""
        if x0 is not None:
            shape = tuple(x0.shape)
        elif noise is not None:
            shape = tuple(noise.shape)
        if shape is None:
            raise InvalidInputError("FlowSampler.sample needs a shape, an x0 or a noise tensor")
        if self.t_start < 1.0 and x0 is None:
            raise InvalidInputError(f"t_start={self.t_start} < 1 starts from a partly noised x0; pass x0")
        guided = self.guidance_scale != 1.0
        if guided and null_cond is None:
            raise InvalidInputError("guidance_scale != 1 needs null_cond (the model's null condition)")
        dev = torch.device(device) if device is not None else (
            x0.device if x0 is not None else cond.device if cond is not None else torch.device("cpu"))
        if noise is None:
            gen_device = generator.device if generator is not None else dev
            noise = torch.randn(tuple(shape), generator=generator, device=gen_device)
        noise = noise.to(dev, torch.float32)
        if tuple(noise.shape) != tuple(shape):
            raise InvalidInputError(f"noise shape {tuple(noise.shape)} differs from sample shape {tuple(shape)}")
        x = noise if x0 is None or self.t_start >= 1.0 else (
            (1.0 - self.t_start) * x0.to(dev, torch.float32) + self.t_start * noise)
        batch = x.shape[0]
        kwargs = dict(model_kwargs or {})
        if guided:
            assert null_cond is not None
            c, cm, nc, nm = _guidance_batch(cond, cond_mask, null_cond, null_mask, batch)
            cond, cond_mask = torch.cat([c, nc]), torch.cat([cm, nm])
            kwargs = {k: torch.cat([v, v]) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        sched = self._scheduler(dev)
        n = len(sched.timesteps)
        for i, ts in enumerate(sched.timesteps):
            t = sched.sigmas[i].to(dev).expand(batch)
            if guided:
                v_cond, v_null = model(torch.cat([x, x]), torch.cat([t, t]), cond, cond_mask, **kwargs).float().chunk(2)
                v = v_null + self.guidance_scale * (v_cond - v_null)
            else:
                v = model(x, t, cond, cond_mask, **kwargs).float()
            x = sched.step(v, ts, x, return_dict=False)[0]
            if callback is not None:
                callback((i + 1) / n)
        return x


def _guidance_batch(cond: torch.Tensor | None, cond_mask: torch.Tensor | None, null_cond: torch.Tensor,
                    null_mask: torch.Tensor | None, batch: int
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Conditional and null condition tokens padded to one length, each (B, L, C) with a (B, L) mask."""
    if cond is None:
        raise InvalidInputError("classifier-free guidance needs a condition (cond is None)")
    if null_cond.ndim == 2:
        null_cond = null_cond[None].expand(batch, -1, -1)
    if cond.shape[0] != batch or null_cond.shape[0] != batch or cond.shape[-1] != null_cond.shape[-1]:
        raise InvalidInputError(f"condition {tuple(cond.shape)} and null condition {tuple(null_cond.shape)} do not "
                                f"fit a batch of {batch}")

    def full(m: torch.Tensor | None, x: torch.Tensor) -> torch.Tensor:
        ones = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        return ones if m is None else m.bool().expand(x.shape[0], -1)

    cm, nm = full(cond_mask, cond), full(null_mask, null_cond)
    length = max(cond.shape[1], null_cond.shape[1])
    cond, cm = pad_tokens(cond, cm, length)
    null_cond, nm = pad_tokens(null_cond.to(cond.dtype), nm, length)
    return cond, cm, null_cond, nm
