"""Mixture-of-Experts feed-forward layer: a softmax router picks the ``top_k`` of ``num_experts`` GELU MLPs for
each token; their outputs are summed with the (renormalised) router weights, plus optional always-on shared
experts. Capacity grows with ``num_experts`` while the compute per token grows only with ``top_k``.

No token is ever dropped (no capacity factor): every expert runs on exactly the tokens routed to it, so the
output does not depend on which other tokens share the batch. The Switch-Transformer load-balancing loss
``E * sum_e f_e * P_e`` (``f_e``: share of routing slots sent to expert e, ``P_e``: its mean router probability)
is returned with every forward; it is 1 when tokens and probability are spread evenly and ``E / k`` at worst.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from seed3d.errors import InvalidInputError
from seed3d.nn.attention import mlp


@dataclass
class Routing:
    """Where a batch of tokens goes: per token the chosen experts, their weights, and the full router softmax."""

    experts: torch.Tensor
    """(T, k) expert index per routing slot, best first."""
    weights: torch.Tensor
    """(T, k) weight of each chosen expert (sums to 1 per token when ``normalize`` is on)."""
    probs: torch.Tensor
    """(T, E) router softmax."""

    def load(self, num_experts: int) -> torch.Tensor:
        """(E,) share of the routing slots each expert received (sums to 1)."""
        counts = torch.bincount(self.experts.flatten(), minlength=num_experts).to(self.probs.dtype)
        return counts / counts.sum().clamp_min(1.0)


def load_balance_loss(routing: Routing, num_experts: int) -> torch.Tensor:
    """Switch-Transformer auxiliary loss ``E * sum_e f_e * P_e`` (1 when balanced); differentiable through P."""
    if routing.probs.shape[0] == 0:
        return routing.probs.sum() * 0.0
    return num_experts * (routing.load(num_experts).detach() * routing.probs.float().mean(0)).sum()


class MoEFeedForward(nn.Module):
    """Top-k routed GELU MLP experts (and ``shared_experts`` dense ones every token uses) on tokens (..., dim).

    ``forward`` returns ``(y, aux)``: the output, shaped as the input, and the load-balancing loss of this call."""

    def __init__(self, dim: int, hidden: int, num_experts: int = 4, top_k: int = 2, shared_experts: int = 0,
                 normalize: bool = True) -> None:
        super().__init__()
        if dim < 1 or hidden < 1:
            raise InvalidInputError(f"MoE widths must be >= 1, got dim {dim} and hidden {hidden}")
        if num_experts < 1 or not 1 <= top_k <= num_experts:
            raise InvalidInputError(f"MoE needs 1 <= top_k <= num_experts, got top_k {top_k} of {num_experts}")
        if shared_experts < 0:
            raise InvalidInputError(f"shared_experts must be >= 0, got {shared_experts}")
        self.dim, self.hidden = dim, hidden
        self.num_experts, self.top_k, self.normalize = num_experts, top_k, normalize
        self.router = nn.Linear(dim, num_experts, bias=False)
        nn.init.normal_(self.router.weight, std=0.02)
        self.experts = nn.ModuleList(mlp([dim, hidden, dim]) for _ in range(num_experts))
        self.shared = mlp([dim, hidden * shared_experts, dim]) if shared_experts else None

    def route(self, x: torch.Tensor) -> Routing:
        """Routing of tokens ``x`` (T, dim): top-k experts by router probability (ties: lower index first)."""
        probs = F.softmax(self.router(x).float(), dim=-1)
        weights, experts = probs.topk(self.top_k, dim=-1)
        if self.normalize:
            weights = weights / weights.sum(-1, keepdim=True).clamp_min(1e-9)
        return Routing(experts, weights, probs)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens ``x`` (..., dim) -> ``(y, aux)`` with ``y`` (..., dim) and the scalar load-balancing loss."""
        if x.shape[-1] != self.dim:
            raise InvalidInputError(f"MoE input must end in {self.dim} channels, got {tuple(x.shape)}")
        flat = x.reshape(-1, self.dim)
        routing = self.route(flat)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            token, slot = torch.nonzero(routing.experts == e, as_tuple=True)
            if token.numel() == 0:
                continue
            w = routing.weights[token, slot].to(flat.dtype)[:, None]
            out.index_add_(0, token, (expert(flat[token]) * w).to(out.dtype))
        if self.shared is not None:
            out = out + self.shared(flat)
        return out.reshape(x.shape), load_balance_loss(routing, self.num_experts)

    def expert_parameters(self) -> int:
        """Parameters of one routed expert."""
        return sum(p.numel() for p in self.experts[0].parameters())

    def num_parameters(self) -> int:
        """All parameters (router, every expert, shared experts)."""
        return sum(p.numel() for p in self.parameters())

    def active_parameters(self) -> int:
        """Parameters one token uses: the router, ``top_k`` routed experts and the shared experts."""
        return self.num_parameters() - (self.num_experts - self.top_k) * self.expert_parameters()
