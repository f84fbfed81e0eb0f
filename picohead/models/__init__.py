"""The two model families and the helpers every caller needs: build a model from a spec, run a
tier, slice a tier into a standalone model, turn logits into probabilities.

Importing this package imports torch; ``import picohead`` does not import it.
"""

from __future__ import annotations

import torch
from torch import nn

from picohead.models.bytes_family import BytesModel
from picohead.models.config import BytesConfig, SteadyConfig, config_from_spec, with_full_arch
from picohead.models.nested import slice_state_dict
from picohead.models.steady import SteadyModel
from picohead_runtime.spec import ModelSpec

Model = BytesModel | SteadyModel


def build_model(spec: ModelSpec) -> Model:
    """A freshly initialised model for ``spec`` (family and arch taken from the spec)."""
    cfg = config_from_spec(spec)
    sizes = {h.name: len(h.labels) for h in spec.heads}
    if isinstance(cfg, BytesConfig):
        return BytesModel(cfg, sizes)
    assert isinstance(cfg, SteadyConfig)
    return SteadyModel(cfg, sizes)


def tier_spec(spec: ModelSpec, tier: str) -> ModelSpec:
    """The spec of a standalone model holding only ``tier`` (its widths become the full widths)."""
    spec.check_tier(tier)
    full = with_full_arch(spec)
    arch = dict(full.arch)
    per_tier = ("widths", "buckets", "dims", "local_dims", "local_hidden", "attn_depth")
    for key in (*per_tier, "local_rows"):
        if arch.get(key):  # local_rows may be empty (one size for every tier)
            arch[key] = {tier: arch[key][tier]}
    if "attn_depth" in arch:  # the standalone tier holds only the layers it runs
        arch["attn_layers"] = arch["attn_depth"][tier]
    d = full.to_dict()
    d["arch"], d["tiers"] = arch, [tier]
    return ModelSpec.from_dict(d)


def slice_tier(model: Model, spec: ModelSpec, tier: str) -> tuple[Model, ModelSpec]:
    """A standalone model with only ``tier``'s weights; it computes exactly ``model(..., tier)``."""
    small_spec = tier_spec(spec, tier)
    small = build_model(small_spec)
    small.load_state_dict(slice_state_dict(model.state_dict(), small.state_dict()))
    return small.eval(), small_spec


def probabilities(spec: ModelSpec, logits: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Softmax for softmax heads, sigmoid for multilabel heads (never softmax a multilabel head)."""
    return {
        h.name: torch.sigmoid(logits[h.name]) if h.multilabel else torch.softmax(logits[h.name], -1)
        for h in spec.heads
    }


class TierProbs(nn.Module):
    """``(bytes uint8[B, L], lengths int64[B]) -> one probability tensor per head`` for one tier.

    This is the function an exported ONNX file computes.
    """

    def __init__(self, model: Model, spec: ModelSpec, tier: str) -> None:
        super().__init__()
        self.model, self.spec, self.tier = model, spec, tier

    def forward(self, data: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, ...]:
        probs = probabilities(self.spec, self.model(data, lengths, self.tier))
        return tuple(probs[h.name] for h in self.spec.heads)


def count_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


__all__ = [
    "BytesModel",
    "SteadyModel",
    "Model",
    "build_model",
    "slice_tier",
    "tier_spec",
    "probabilities",
    "TierProbs",
    "count_params",
]
