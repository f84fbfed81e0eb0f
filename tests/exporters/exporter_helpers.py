"""Helpers shared by the exporter tests (a module name unique across tests/, see conftest)."""

from __future__ import annotations

from typing import Any


def random_model(family: str, seed: int = 0) -> tuple[Any, Any]:
    import torch

    from picohead.models import build_model
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict(toy_spec(family))
    torch.manual_seed(seed)
    return build_model(spec).eval(), spec
