"""Nested ("slimmable") layers and tier slicing shared by both model families.

Every weight is laid out so that a tier uses a prefix along each of its dimensions: the first
``k`` output channels, the first ``k`` input channels, the first ``k`` hash rows. Running a tier
means running the same module with smaller widths, and slicing a tier out of a trained model is
just taking those prefixes (:func:`slice_state_dict`), which gives exactly the same function.

What it does not do: choose widths (the family configs do) or decide what is exported.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import torch
import torch.nn.functional as F
from torch import nn


class SlimLinear(nn.Module):
    """A linear layer whose callers pick how many input and output features to use."""

    def __init__(self, in_max: int, out_max: int, bias: bool = True) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_max, in_max))
        self.bias = nn.Parameter(torch.zeros(out_max)) if bias else None
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x: torch.Tensor, out_w: int) -> torch.Tensor:
        in_w = x.shape[-1]
        b = self.bias[:out_w] if self.bias is not None else None
        return F.linear(x, self.weight[:out_w, :in_w], b)


class SlimConv1d(nn.Module):
    """A Conv1d over ``[B, C, L]`` using the first ``in``/``out`` channels of its weight."""

    def __init__(
        self,
        in_max: int,
        out_max: int,
        kernel: int,
        stride: int = 1,
        dilation: int = 1,
        depthwise: bool = False,
    ) -> None:
        super().__init__()
        self.depthwise = depthwise  # one filter per channel (in == out), groups = channels
        self.weight = nn.Parameter(torch.empty(out_max, 1 if depthwise else in_max, kernel))
        self.bias = nn.Parameter(torch.zeros(out_max))
        self.stride, self.dilation = stride, dilation
        self.padding = 0 if stride > 1 else dilation * (kernel - 1) // 2
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x: torch.Tensor, out_w: int) -> torch.Tensor:
        in_w = x.shape[1]
        return F.conv1d(
            x,
            self.weight[:out_w] if self.depthwise else self.weight[:out_w, :in_w],
            self.bias[:out_w],
            stride=self.stride,
            padding=self.padding,
            dilation=self.dilation,
            groups=in_w if self.depthwise else 1,
        )


class SlimLayerNorm(nn.Module):
    """LayerNorm over the last dimension, whatever prefix width the input has."""

    def __init__(self, dim_max: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim_max))
        self.bias = nn.Parameter(torch.zeros(dim_max))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = x.shape[-1]
        return F.layer_norm(x, (w,), self.weight[:w], self.bias[:w], self.eps)


class TierHeads(nn.Module):
    """One linear head per task per tier (Matryoshka: each tier's head reads its own prefix).

    ``extras`` are feature groups only some heads read: ``(dims per tier, head names)`` each,
    passed to :meth:`forward` in the same order (e.g. a detector only the risk head uses, or
    format features the type heads use). A head reads ``z`` and then every group naming it.
    """

    def __init__(
        self,
        dims: dict[str, int],
        head_sizes: dict[str, int],
        extras: Sequence[tuple[dict[str, int], Collection[str]]] = (),
    ) -> None:
        super().__init__()
        self.extras = [(dict(d), frozenset(names)) for d, names in extras]

        def width(tier: str, head: str) -> int:
            return dims[tier] + sum(d.get(tier, 0) for d, names in self.extras if head in names)

        self.heads = nn.ModuleDict(
            {
                tier: nn.ModuleDict(
                    {h: nn.Linear(width(tier, h), n) for h, n in head_sizes.items()}
                )
                for tier in dims
            }
        )

    def forward(
        self, z: torch.Tensor, tier: str, extras: Sequence[torch.Tensor | None] = ()
    ) -> dict[str, torch.Tensor]:
        heads: nn.ModuleDict = self.heads[tier]  # type: ignore[assignment]
        groups = [
            (x, names) for x, (_, names) in zip(extras, self.extras, strict=True) if x is not None
        ]
        if not groups:
            return {name: lin(z) for name, lin in heads.items()}
        out = {}
        for name, lin in heads.items():
            parts = [z, *(x for x, names in groups if name in names)]
            out[name] = lin(torch.cat(parts, dim=1) if len(parts) > 1 else z)
        return out


def slice_state_dict(
    full: dict[str, torch.Tensor], target: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """Cut every tensor of ``full`` to the shape of the same key in ``target`` (prefix slices)."""
    out: dict[str, torch.Tensor] = {}
    for key, ref in target.items():
        if key not in full:
            raise KeyError(f"tier slice: {key!r} is not in the full model")
        src = full[key]
        if src.dim() != ref.dim() or any(s < r for s, r in zip(src.shape, ref.shape)):
            raise ValueError(
                f"tier slice: {key!r} {tuple(src.shape)} cannot hold {tuple(ref.shape)}"
            )
        out[key] = src[tuple(slice(0, r) for r in ref.shape)].clone()
    return out
