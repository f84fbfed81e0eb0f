"""The ``steady`` family (byteSteady-style): hashed byte n-grams -> masked mean -> linear heads.

Every contiguous n-gram (for the configured n) is hashed with integer arithmetic that torch, numpy
and ONNX compute identically: a polynomial rolling hash modulo 2**31, mixed per n by a
multiply-shift whose top bits pick one of the tier's (power-of-two many) buckets. Values stay below
2**62, so int64 never overflows; the ONNX graph uses Mod/Div where training uses fast bit ops.
Tiers are nested twice: a tier hashes into the first ``buckets[tier]`` rows of one table and reads
the first ``dims[tier]`` columns, so tiny is a true prefix of pro.

Training sums rows as bucket counts times the table (no sort, no ``[B, N, D]`` tensor); export
switches to gather + matmul (``use_bag = False``), which exports cleanly. Both are the same sum.
What it does not do: tokenise (n-grams are over raw bytes) or read files.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from picohead.models.config import SteadyConfig
from picohead.models.nested import SlimLinear, TierHeads

MASK31 = 2**31 - 1  # hashes live in [0, 2**31)
BASE = 1_000_003  # odd multiplier of the rolling polynomial hash
MAX_N = 16
POS_KEY = 0x2545F491  # mixes an n-gram's offset into its positional hash


def _mult(n: int) -> int:
    """Odd per-n multiplier (< 2**31) for multiply-shift mixing, so equal hashes of different n part."""
    return (2_654_435_761 * (2 * n + 1)) & MASK31 | 1


def ngram_hashes(
    data: torch.Tensor,
    lengths: torch.Tensor,
    ngrams: tuple[int, ...],
    *,
    positions: int = 0,
    position_share: float = 0.0,
    exact_ops: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """31-bit hashes ``[B, N]`` (int64) of every n-gram, and float weights (0 for invalid ones).

    ``h_n = (h_{n-1} * BASE + byte + 1) mod 2**31``, then ``(h_n * mult_n) mod 2**31``. The n-grams
    starting in the first ``positions`` bytes are hashed a second time together with their offset
    (magic numbers live at fixed offsets); those weigh ``position_share`` of the mean in total, so
    a long file does not dilute them. With ``exact_ops`` the modulo is written as ``%`` (ONNX Mod)
    instead of ``&``; for these non-negative values both give the same bits (tested).
    """
    ids = data.long() + 1  # 1..256, so a zero byte still moves the hash
    pos = torch.arange(data.shape[1], device=data.device).unsqueeze(0)
    limit = lengths.unsqueeze(1)

    def wrap(x: torch.Tensor) -> torch.Tensor:
        return x % (MASK31 + 1) if exact_ops else x & MASK31

    h = ids
    out_h, out_mask, pos_h, pos_mask = [], [], [], []
    for n in range(1, max(ngrams) + 1):
        if n > 1:
            h = wrap(h[:, :-1] * BASE + ids[:, n - 1 :])
        if n in ngrams:
            out_h.append(wrap(h * _mult(n)))
            out_mask.append(pos[:, : h.shape[1]] <= (limit - n))
            if positions:
                head = h[:, :positions]
                p = pos[:, : head.shape[1]]
                pos_h.append(wrap(wrap(head + (p + 1) * POS_KEY) * _mult(n + MAX_N)))
                pos_mask.append(p <= (limit - n))
    hashes = torch.cat(out_h, dim=1)
    weights = torch.cat(out_mask, dim=1).to(torch.float32)
    if positions and position_share > 0:
        pw = torch.cat(pos_mask, dim=1).to(torch.float32)
        n_reg = weights.sum(1, keepdim=True)
        scale = (
            position_share / (1 - position_share) * n_reg / pw.sum(1, keepdim=True).clamp(min=1.0)
        )
        hashes = torch.cat((hashes, torch.cat(pos_h, dim=1)), dim=1)
        weights = torch.cat((weights, pw * scale), dim=1)
    return hashes, weights


def buckets_of(h: torch.Tensor, buckets: int, *, exact_ops: bool = False) -> torch.Tensor:
    """Multiply-shift reduction: the top ``log2(buckets)`` bits of a 31-bit hash."""
    shift = 31 - (buckets.bit_length() - 1)
    if exact_ops:
        # An int64 floor-division exports as a float32 Div (24-bit mantissa) that moves some hashes
        # into the next bucket; float64 holds every 31-bit hash exactly and /2**shift is exact.
        return torch.floor(h.to(torch.float64) / 2**shift).to(torch.int64)
    return h >> shift


def ngram_buckets_np(
    data: np.ndarray,
    lengths: np.ndarray,
    ngrams: tuple[int, ...],
    buckets: int,
    *,
    positions: int = 0,
    position_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The numpy twin of :func:`ngram_hashes` + :func:`buckets_of` (tests check bit equality)."""
    ids = data.astype(np.int64) + 1
    pos = np.arange(data.shape[1])[None, :]
    limit = lengths[:, None]
    shift = 31 - (buckets.bit_length() - 1)
    h = ids
    out_h, out_m, pos_h, pos_m = [], [], [], []
    for n in range(1, max(ngrams) + 1):
        if n > 1:
            h = (h[:, :-1] * BASE + ids[:, n - 1 :]) & MASK31
        if n in ngrams:
            out_h.append((h * _mult(n)) & MASK31)
            out_m.append(pos[:, : h.shape[1]] <= (limit - n))
            if positions:
                head = h[:, :positions]
                p = pos[:, : head.shape[1]]
                pos_h.append((((head + (p + 1) * POS_KEY) & MASK31) * _mult(n + MAX_N)) & MASK31)
                pos_m.append(p <= (limit - n))
    hashes = np.concatenate(out_h, axis=1)
    weights = np.concatenate(out_m, axis=1).astype(np.float32)
    if positions and position_share > 0:
        pw = np.concatenate(pos_m, axis=1).astype(np.float32)
        n_reg = weights.sum(1, keepdims=True)
        scale = (
            np.float32(position_share / (1 - position_share))
            * n_reg
            / np.maximum(pw.sum(1, keepdims=True), 1.0)
        )
        hashes = np.concatenate((hashes, np.concatenate(pos_h, axis=1)), axis=1)
        weights = np.concatenate((weights, pw * scale), axis=1)
    return hashes >> shift, weights


class SteadyModel(nn.Module):
    family = "steady"

    def __init__(self, cfg: SteadyConfig, head_sizes: dict[str, int]) -> None:
        super().__init__()
        self.cfg = cfg
        self.use_bag = True
        rows, dim = max(cfg.buckets.values()), max(cfg.dims.values())
        self.table = nn.Parameter(torch.randn(rows, dim) * 0.1)
        if cfg.hidden:
            self.hidden = SlimLinear(dim, cfg.hidden)
            head_dims = {t: cfg.hidden for t in cfg.dims}
        else:
            head_dims = dict(cfg.dims)
        self.heads = TierHeads(head_dims, head_sizes)

    @property
    def tiers(self) -> tuple[str, ...]:
        return tuple(self.cfg.dims)

    def features(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        prepared: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Mean n-gram embedding for ``tier``; ``prepared`` (from :meth:`prepare`) reuses hashes."""
        cfg = self.cfg
        exact = not self.use_bag
        h, weights = prepared if prepared is not None else self.prepare(data, lengths)
        rows = cfg.buckets[tier]
        idx = buckets_of(h, rows, exact_ops=exact)
        table = self.table[:rows, : cfg.dims[tier]]
        weights = weights.to(table.dtype)
        cnt = weights.sum(1, keepdim=True).clamp(min=1.0)
        if self.use_bag:
            # Training: per-row bucket counts times the table; no sort, no [B, N, D] tensor.
            counts = torch.zeros(h.shape[0], rows, dtype=table.dtype, device=h.device)
            total = counts.scatter_add_(1, idx, weights) @ table
        else:
            # float64 sum: ~12k weighted rows (positional ones weigh ~40x) lose ~1e-4 in float32
            # with this summation order; the training path above sums per bucket first.
            emb = F.embedding(idx, table).to(torch.float64)
            total = (
                torch.matmul(weights.to(torch.float64).unsqueeze(1), emb).squeeze(1).to(table.dtype)
            )
        z = total / cnt
        if cfg.hidden:
            z = F.gelu(self.hidden(z, cfg.hidden))
        return z

    def forward(
        self,
        data: torch.Tensor,
        lengths: torch.Tensor,
        tier: str,
        prepared: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> dict[str, torch.Tensor]:
        return self.heads(self.features(data, lengths, tier, prepared), tier)

    def prepare(
        self, data: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Tier-independent n-gram hashes, computed once per batch in training."""
        cfg = self.cfg
        return ngram_hashes(
            data,
            lengths,
            cfg.ngrams,
            positions=cfg.positions,
            position_share=cfg.position_share,
            exact_ops=not self.use_bag,
        )
