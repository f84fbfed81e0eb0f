"""The ``bytes`` family: byte embedding -> strided conv stem -> dilated conv blocks -> rotary
self-attention -> masked [mean, max, std] pooling -> per-tier linear heads.

All widths are nested, so a tier is the first ``k`` channels of every layer and costs the compute
of a ``k``-channel model. Pads never leak: byte ids at or past a row's length become pad id 256
(a zero embedding), down-sampled positions past ``ceil(length / stride)`` are zeroed after every
block, excluded from attention keys and from pooling, so a row's output does not depend on how
much padding its batch added. Rotary angles are computed from positions at run time (no tables).

What it does not do: read files (``picohead_runtime.windows``) or decode probabilities.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from picohead.models.config import BytesConfig
from picohead.models.nested import SlimConv1d, SlimLayerNorm, SlimLinear, TierHeads
from picohead_runtime.windows import PAD_ID

_NEG = -1e4  # additive mask value; finite so fully-masked rows stay finite


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class ConvBlock(nn.Module):
    """Depthwise-separable residual conv block: depthwise (dilated) conv, pointwise mix, LN, GELU."""

    def __init__(self, width: int, kernel: int, dilation: int) -> None:
        super().__init__()
        self.dw = SlimConv1d(width, width, kernel, dilation=dilation, depthwise=True)
        self.pw = SlimLinear(width, width)
        self.norm = SlimLayerNorm(width)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # x: [B, C, L]; mask: [B, 1, L]. Masking after the depthwise conv keeps pads at zero.
        c = x.shape[1]
        y = (self.dw(x, c) * mask).transpose(1, 2)
        y = F.gelu(self.norm(self.pw(y, c))).transpose(1, 2)
        return (x + y) * mask


class AttentionBlock(nn.Module):
    def __init__(self, width: int, head_dim: int, ffn_mult: int) -> None:
        super().__init__()
        self.head_dim = head_dim
        self.norm1 = SlimLayerNorm(width)
        self.qkv = nn.ModuleList([SlimLinear(width, width) for _ in range(3)])
        self.out = SlimLinear(width, width)
        self.norm2 = SlimLayerNorm(width)
        self.ffn_in = SlimLinear(width, width * ffn_mult)
        self.ffn_out = SlimLinear(width * ffn_mult, width)
        self.ffn_mult = ffn_mult

    def forward(
        self, x: torch.Tensor, key_bias: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
    ) -> torch.Tensor:
        # x: [B, L, C]; key_bias: [B, 1, 1, L]; cos/sin: [L, head_dim/2]
        b, n, c = x.shape
        h = c // self.head_dim
        y = self.norm1(x)
        q, k, v = (lin(y, c).reshape(b, n, h, self.head_dim).transpose(1, 2) for lin in self.qkv)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (self.head_dim**-0.5) + key_bias
        att = torch.matmul(torch.softmax(scores, dim=-1), v)
        x = x + self.out(att.transpose(1, 2).reshape(b, n, c), c)
        y = self.ffn_in(self.norm2(x), c * self.ffn_mult)
        return x + self.ffn_out(F.gelu(y), c)


class BytesModel(nn.Module):
    family = "bytes"

    def __init__(self, cfg: BytesConfig, head_sizes: dict[str, int]) -> None:
        super().__init__()
        self.cfg = cfg
        wmax = max(cfg.widths.values())
        emax = max(cfg.embed_dim(t) for t in cfg.widths)
        self.embed = nn.Embedding(PAD_ID + 1, emax, padding_idx=PAD_ID)
        self.stem = SlimConv1d(emax, wmax, cfg.stride, stride=cfg.stride)
        self.stem_norm = SlimLayerNorm(wmax)
        self.convs = nn.ModuleList([ConvBlock(wmax, cfg.kernel, d) for d in cfg.dilations])
        self.attn = nn.ModuleList(
            [AttentionBlock(wmax, cfg.head_dim, cfg.ffn_mult) for _ in range(cfg.attn_layers)]
        )
        self.final_norm = SlimLayerNorm(wmax)
        self.pool_norm = SlimLayerNorm(3 * wmax)
        self.heads = TierHeads({t: 3 * w for t, w in cfg.widths.items()}, head_sizes)
        inv = cfg.rope_base ** (
            -torch.arange(0, cfg.head_dim, 2, dtype=torch.float32) / cfg.head_dim
        )
        self.register_buffer("inv_freq", inv, persistent=False)

    @property
    def tiers(self) -> tuple[str, ...]:
        return tuple(self.cfg.widths)

    def features(self, data: torch.Tensor, lengths: torch.Tensor, tier: str) -> torch.Tensor:
        """The pooled representation ``[B, 3 * width]``, interleaved (mean, max, std) per channel."""
        cfg = self.cfg
        w, e = cfg.widths[tier], cfg.embed_dim(tier)
        pos = torch.arange(data.shape[1], device=data.device)
        valid = pos.unsqueeze(0) < lengths.unsqueeze(1)
        ids = torch.where(valid, data.long(), torch.full_like(data, PAD_ID, dtype=torch.long))
        x = self.embed.weight[:, :e][ids]  # [B, L, e]; the pad row is zero
        # Right-pad by stride-1 zeros (= pad embeddings) so the last partial group is kept.
        x = F.pad(x.transpose(1, 2), (0, cfg.stride - 1))
        x = self.stem(x, w)  # [B, w, ceil(L/stride)]
        n = x.shape[2]
        count = torch.div(lengths + (cfg.stride - 1), cfg.stride, rounding_mode="floor")
        mask = (torch.arange(n, device=data.device).unsqueeze(0) < count.unsqueeze(1)).to(x.dtype)
        m3 = mask.unsqueeze(1)  # [B, 1, n]
        x = F.gelu(self.stem_norm(x.transpose(1, 2))).transpose(1, 2) * m3
        for block in self.convs:
            x = block(x, m3)
        x = x.transpose(1, 2)  # [B, n, w]
        depth = cfg.attn_depth[tier]  # this tier runs the first `depth` attention layers
        if depth:
            inv_freq: torch.Tensor = self.inv_freq  # type: ignore[assignment]
            ang = torch.arange(n, device=data.device, dtype=x.dtype).unsqueeze(1) * inv_freq
            cos, sin = ang.cos(), ang.sin()
            key_bias = ((1.0 - mask) * _NEG).reshape(mask.shape[0], 1, 1, n)
            for blk in self.attn[:depth]:
                x = blk(x, key_bias, cos, sin) * mask.unsqueeze(2)
        x = self.final_norm(x) * mask.unsqueeze(2)
        # Masked statistics with matmuls (ORT's ReduceMean over a long axis is slow).
        cnt = mask.sum(1, keepdim=True).clamp(min=1.0)  # [B, 1]
        m_row = mask.unsqueeze(1)  # [B, 1, n]
        mean = torch.matmul(m_row, x).squeeze(1) / cnt
        sq = torch.matmul(m_row, x * x).squeeze(1) / cnt
        std = torch.sqrt(torch.relu(sq - mean * mean) + 1e-5)
        mx = (x + ((mask - 1.0) * -_NEG).unsqueeze(2)).amax(dim=1)
        pooled = torch.stack((mean, mx, std), dim=2).reshape(x.shape[0], 3 * w)
        return self.pool_norm(pooled)

    def prepare(self, data: torch.Tensor, lengths: torch.Tensor) -> None:
        """Nothing is shared across tiers here (each tier runs its own slim trunk)."""
        return None

    def forward(
        self, data: torch.Tensor, lengths: torch.Tensor, tier: str, prepared: None = None
    ) -> dict[str, torch.Tensor]:
        return self.heads(self.features(data, lengths, tier), tier)
