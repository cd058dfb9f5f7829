"""Shared neural-network blocks: attention (torch SDPA), point-cloud operators, positional encodings and the
``save_pretrained`` / ``from_pretrained`` format every model uses (``config.json`` + ``model.safetensors``)."""

from seed3d.nn.attention import Attention, CrossBlock, SelfBlock, mlp
from seed3d.nn.dit import DiTBlock, DiTTrunk, TimestepEmbed
from seed3d.nn.flow import FlowSampler, flow_loss, sample_timesteps, shift_for_length, velocity_target
from seed3d.nn.points import FourierEmbed, farthest_point_sample, gather, interpolate, knn
from seed3d.nn.pretrained import PretrainedMixin

__all__ = ["Attention", "CrossBlock", "FourierEmbed", "PretrainedMixin", "SelfBlock", "farthest_point_sample",
           "gather", "interpolate", "knn", "mlp"]
__all__ += ["DiTBlock", "DiTTrunk", "FlowSampler", "TimestepEmbed", "flow_loss", "sample_timesteps",
            "shift_for_length", "velocity_target"]
