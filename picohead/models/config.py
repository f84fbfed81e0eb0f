"""Architecture configs: one frozen dataclass per model family, parsed from ``spec.arch``.

Each field has a comment saying what it controls. The config is stored (as the spec's ``arch``
mapping) in every checkpoint and every exported model, so a run is always rebuilt with the
architecture it was trained with, never with command-line flags. Tiers are nested: every tier's
widths must be no larger than the next tier's, and the last tier is the full model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from picohead_runtime.spec import ModelSpec, SpecError


def _tier_map(value: Any, tiers: tuple[str, ...], key: str) -> dict[str, int]:
    if not isinstance(value, Mapping) or set(value) != set(tiers):
        raise SpecError(
            f"arch.{key}: must map every tier ({', '.join(tiers)}) to a positive integer"
        )
    out = {t: value[t] for t in tiers}
    prev = 0
    for t in tiers:
        v = out[t]
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise SpecError(f"arch.{key}.{t}: must be a positive integer, got {v!r}")
        if v < prev:
            raise SpecError(
                f"arch.{key}.{t}: tiers are nested, so {v} must be >= the previous tier's {prev}"
            )
        prev = v
    return out


@dataclass(frozen=True)
class BytesConfig:
    """The ``bytes`` family: byte CNN + rotary attention + statistical pooling, nested widths."""

    widths: dict[str, int] = field(
        default_factory=lambda: {"tiny": 32, "small": 64, "base": 96, "pro": 160}
    )  # trunk channels per tier; each tier is the first k channels of every layer
    embed_ratio: float = 0.5  # byte-embedding dims = width * embed_ratio (per tier)
    stride: int = 16  # the stem conv down-samples by this: 2 KB window -> 128 attention positions
    kernel: int = 5  # kernel of the depthwise-separable conv blocks after the stem
    dilations: tuple[int, ...] = (1, 2, 4)  # one conv block per entry; growing receptive field
    attn_layers: int = 2  # bidirectional pre-norm self-attention layers
    head_dim: int = 16  # per attention head; heads per tier = width // head_dim
    ffn_mult: int = 2  # attention-block MLP hidden = width * ffn_mult
    rope_base: float = 10000.0  # rotary frequency base; angles are computed from positions

    def embed_dim(self, tier: str) -> int:
        return max(4, int(round(self.widths[tier] * self.embed_ratio)))

    def validate(self, tiers: tuple[str, ...]) -> None:
        _tier_map(self.widths, tiers, "widths")
        for t, w in self.widths.items():
            if w % self.head_dim:
                raise SpecError(
                    f"arch.widths.{t}: {w} must be a multiple of head_dim={self.head_dim}"
                )
        if self.stride < 1 or self.kernel < 1 or self.attn_layers < 0:
            raise SpecError("arch: stride and kernel must be >= 1 and attn_layers >= 0")


@dataclass(frozen=True)
class SteadyConfig:
    """The ``steady`` family: hashed byte n-grams, averaged, read by per-tier linear heads."""

    ngrams: tuple[int, ...] = (1, 2, 3, 4, 6, 8)  # n-gram lengths hashed from the raw bytes
    buckets: dict[str, int] = field(
        default_factory=lambda: {"tiny": 4096, "small": 8192, "base": 16384, "pro": 32768}
    )  # hash-table rows per tier (a tier hashes into the first k rows)
    dims: dict[str, int] = field(
        default_factory=lambda: {"tiny": 12, "small": 16, "base": 24, "pro": 48}
    )  # embedding dims per tier (a Matryoshka prefix of the full embedding)
    hidden: int = 0  # 0: linear heads on the mean (byteSteady); >0: a GELU layer this wide first
    positions: int = 16  # n-grams starting in the first k bytes are also hashed with their offset
    position_share: float = 0.25  # total weight of those positional n-grams in the mean

    def validate(self, tiers: tuple[str, ...]) -> None:
        for t, b in _tier_map(self.buckets, tiers, "buckets").items():
            if b & (b - 1) or b < 2 or b > 2**24:
                raise SpecError(f"arch.buckets.{t}: {b} must be a power of two in [2, 2**24]")
        _tier_map(self.dims, tiers, "dims")
        if not 0 <= self.position_share < 1 or self.positions < 0:
            raise SpecError("arch: positions must be >= 0 and position_share in [0, 1)")
        if not self.ngrams or any(n < 1 or n > 16 for n in self.ngrams):
            raise SpecError("arch.ngrams: must be a non-empty list of n-gram lengths in 1..16")


FamilyConfig = BytesConfig | SteadyConfig
_FAMILIES: dict[str, type[BytesConfig] | type[SteadyConfig]] = {
    "bytes": BytesConfig,
    "steady": SteadyConfig,
}


def config_from_spec(spec: ModelSpec) -> FamilyConfig:
    """Parse ``spec.arch`` for ``spec.family``; missing keys take the defaults (for 4 default tiers)."""
    cls = _FAMILIES[spec.family]
    allowed = {f.name for f in fields(cls)}
    extra = sorted(set(spec.arch) - allowed)
    if extra:
        raise SpecError(
            f"arch.{extra[0]}: unknown key for family {spec.family!r}; allowed: {', '.join(sorted(allowed))}"
        )
    kw: dict[str, Any] = {}
    for k, v in spec.arch.items():
        kw[k] = tuple(v) if isinstance(v, list) else (dict(v) if isinstance(v, Mapping) else v)
    cfg = cls(**kw)
    cfg.validate(spec.tiers)
    return cfg


def config_to_arch(cfg: FamilyConfig) -> dict[str, Any]:
    """JSON-ready ``arch`` mapping (tuples become lists)."""
    d = asdict(cfg)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def with_full_arch(spec: ModelSpec) -> ModelSpec:
    """The spec with every architecture default written out, so the checkpoint is self-describing."""
    d = spec.to_dict()
    d["arch"] = config_to_arch(config_from_spec(spec))
    return ModelSpec.from_dict(d)
