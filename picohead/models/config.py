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


def _tier_map(
    value: Any, tiers: tuple[str, ...], key: str, *, allow_zero: bool = False
) -> dict[str, int]:
    kind = "non-negative" if allow_zero else "positive"
    if not isinstance(value, Mapping) or set(value) != set(tiers):
        raise SpecError(f"arch.{key}: must map every tier ({', '.join(tiers)}) to a {kind} integer")
    out = {t: value[t] for t in tiers}
    prev = 0
    for t in tiers:
        v = out[t]
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if allow_zero else 1):
            raise SpecError(f"arch.{key}.{t}: must be a {kind} integer, got {v!r}")
        if v < prev:
            raise SpecError(
                f"arch.{key}.{t}: tiers are nested, so {v} must be >= the previous tier's {prev}"
            )
        prev = v
    return out


def _table_rows(value: Any, tiers: tuple[str, ...], key: str) -> dict[str, int]:
    """:func:`_tier_map` of hash-table row counts, each a power of two in [2, 2**24]."""
    rows = _tier_map(value, tiers, key)
    for t, b in rows.items():
        if b & (b - 1) or b < 2 or b > 2**24:
            raise SpecError(f"arch.{key}.{t}: {b} must be a power of two in [2, 2**24]")
    return rows


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
    attn_depth: dict[str, int] = field(
        default_factory=lambda: {"tiny": 0, "small": 2, "base": 2, "pro": 2}
    )  # attention layers each tier runs (the first k of attn_layers). Tiny runs none: two
    # layers cost it ~0.3 ms and ~12 KB (issue 3's budgets: 0.3 ms, 64 KB); its conv trunk
    # (receptive field ~460 bytes) and mean/max/std pooling stay. An arch that sets attn_layers
    # but not attn_depth (every checkpoint written before this field) runs all layers everywhere.
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
        for t, d in _tier_map(self.attn_depth, tiers, "attn_depth", allow_zero=True).items():
            if d > self.attn_layers:
                raise SpecError(
                    f"arch.attn_depth.{t}: {d} must be <= attn_layers={self.attn_layers}"
                )


@dataclass(frozen=True)
class SteadyConfig:
    """The ``steady`` family: hashed byte n-grams, averaged, read by per-tier linear heads."""

    ngrams: tuple[int, ...] = (1, 2, 3, 4, 6, 8)  # n-gram lengths hashed from the raw bytes
    # Few rows, many dims: at one table size, 1024 x 40 beat 4096 x 10 by ~10 points of code
    # language (benchmarks/results/tier_shapes.md); dims must not shrink from tier to tier.
    buckets: dict[str, int] = field(
        default_factory=lambda: {"tiny": 1024, "small": 4096, "base": 8192, "pro": 32768}
    )  # hash-table rows per tier (a tier hashes into the first k rows)
    dims: dict[str, int] = field(
        default_factory=lambda: {"tiny": 32, "small": 32, "base": 48, "pro": 48}
    )  # embedding dims per tier (a Matryoshka prefix of the full embedding)
    hidden: int = 0  # 0: linear heads on the mean (byteSteady); >0: a GELU layer this wide first
    positions: int = 16  # n-grams starting in the first k bytes are also hashed with their offset
    position_share: float = 0.1  # total weight of those positional n-grams in the mean
    # Two means instead of one: the plain n-grams' and the positional n-grams' (side by side, so
    # the heads read 2 x dims features and each head learns its own mix: MIME leans on magic
    # bytes at fixed offsets, the language heads on the plain n-grams). position_share is then
    # unused. Needs positions > 0 and hidden == 0.
    position_split: bool = False
    # With position_split: hash-table rows per tier for the positional n-grams alone (a table of
    # their own, so they stop sharing rows with the plain n-grams); empty: they share the table.
    position_rows: dict[str, int] = field(default_factory=dict)
    # With position_split: the heads read the sum of the two means (dims features, as without
    # the split) instead of both side by side (2 x dims): half the head weights, one shared mix.
    position_sum: bool = False
    # The local detector (off unless ``local_ngrams`` or ``shape_ngrams`` is set): per byte position,
    # the embeddings of the n-grams starting there are summed, passed through one ReLU layer and
    # max-pooled over the window, so one short pattern (a key prefix, an e-mail's shape) is not
    # diluted by thousands of ordinary n-grams the way the mean dilutes it. A tier with
    # ``local_hidden`` 0 has no detector.
    local_ngrams: tuple[int, ...] = ()  # raw-byte n-gram lengths of the detector
    shape_ngrams: tuple[int, ...] = ()  # n-gram lengths over byte classes (a-z, A-Z, 0-9 folded)
    # raw-byte n-gram lengths over the input with A-Z folded to a-z: ``Pwd =`` reads as ``pwd =``,
    # so a field name's spelling in another case needs no training sample of its own
    lower_ngrams: tuple[int, ...] = ()
    # n-gram lengths over word classes ([A-Za-z0-9_-] one class, whitespace one, every other
    # ASCII byte one, bytes >= 128 one), each starting one byte *before* its position (the input's
    # start and end count as whitespace): at the first byte of a token, the 22-gram holds the byte
    # before it, the token's length if below 21 and the byte after it (AWS's 20-character key
    # ids), the 41-gram a run of 40 token bytes (ghp_ / npm_ tokens), so a provider prefix in the
    # raw n-grams and the length of the token it opens meet in one position's sum.
    word_ngrams: tuple[int, ...] = ()
    # Token lengths (0: off): at the first byte of each token (a run of [A-Za-z0-9_-]), one more
    # detector n-gram that holds only the class of the byte before the token (whitespace, other
    # ASCII, a byte >= 128; the input's start reads as whitespace), the token's length up to this
    # cap and the class of the byte that ends it (or "at least the cap"): the length a provider
    # prefix needs (ghp_ + 36) in ~1,000 values, where a word 41-gram also hashes the shape of
    # whatever follows the token and lets the detector learn whole lines by heart.
    token_lengths: int = 0
    local_buckets: int = 4096  # detector hash-table rows (shared by all tiers; a power of two)
    # Detector rows per tier instead (each a power of two; empty: local_buckets for every tier):
    # a tier hashes into the first local_rows[tier] rows, as the mean's tiers do with buckets, so
    # base/pro can have a table with fewer collisions than small's size budget allows.
    local_rows: dict[str, int] = field(default_factory=dict)
    local_dims: dict[str, int] = field(
        default_factory=lambda: {"tiny": 8, "small": 8, "base": 16, "pro": 16}
    )  # detector embedding dims per tier
    local_hidden: dict[str, int] = field(
        default_factory=lambda: {"tiny": 16, "small": 24, "base": 32, "pro": 48}
    )  # max-pooled detector units per tier (0: this tier has no detector)
    local_heads: tuple[str, ...] = ()  # heads that read the detector (empty: every head)

    @property
    def local(self) -> bool:
        """Whether the model has a detector (some n-grams, and some tier with units)."""
        return self.detector_kinds and any(v > 0 for v in self.local_hidden.values())

    @property
    def detector_kinds(self) -> bool:
        """Whether any detector n-gram kind is set (the detector's settings then apply)."""
        return bool(
            self.local_ngrams
            or self.shape_ngrams
            or self.lower_ngrams
            or self.word_ngrams
            or self.token_lengths
        )

    def validate(self, tiers: tuple[str, ...]) -> None:
        _table_rows(self.buckets, tiers, "buckets")
        _tier_map(self.dims, tiers, "dims")
        if not 0 <= self.position_share < 1 or self.positions < 0:
            raise SpecError("arch: positions must be >= 0 and position_share in [0, 1)")
        if not isinstance(self.position_split, bool):
            raise SpecError("arch.position_split: must be true or false")
        if self.position_split and (self.positions < 1 or self.hidden):
            raise SpecError("arch.position_split: needs positions >= 1 and hidden 0")
        if not isinstance(self.position_sum, bool):
            raise SpecError("arch.position_sum: must be true or false")
        if self.position_sum and not self.position_split:
            raise SpecError("arch.position_sum: needs position_split")
        if self.position_rows:
            if not self.position_split:
                raise SpecError("arch.position_rows: needs position_split")
            _table_rows(self.position_rows, tiers, "position_rows")
        if not self.ngrams or any(n < 1 or n > 16 for n in self.ngrams):
            raise SpecError("arch.ngrams: must be a non-empty list of n-gram lengths in 1..16")
        if any(
            n < 1 or n > 16 for n in (*self.local_ngrams, *self.shape_ngrams, *self.lower_ngrams)
        ):
            raise SpecError(
                "arch.local_ngrams/shape_ngrams/lower_ngrams: n-gram lengths must be in 1..16"
            )
        if any(n < 2 or n > 64 for n in self.word_ngrams):
            raise SpecError("arch.word_ngrams: n-gram lengths must be in 2..64")
        cap = self.token_lengths
        if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= 255:
            raise SpecError(f"arch.token_lengths: {cap!r} must be an integer in 0..255 (0: off)")
        if self.detector_kinds:
            b = self.local_buckets
            if isinstance(b, bool) or not isinstance(b, int) or b & (b - 1) or not 2 <= b <= 2**24:
                raise SpecError(f"arch.local_buckets: {b!r} must be a power of two in [2, 2**24]")
            _tier_map(self.local_dims, tiers, "local_dims")
            _tier_map(self.local_hidden, tiers, "local_hidden", allow_zero=True)
            if self.local_rows:
                _table_rows(self.local_rows, tiers, "local_rows")

    def detector_rows(self, tier: str) -> int:
        """The detector hash-table rows ``tier`` reads (a prefix of the table)."""
        return self.local_rows[tier] if self.local_rows else self.local_buckets


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
    if cls is BytesConfig and "attn_depth" not in kw:
        default_tiers = set(BytesConfig().attn_depth)
        if "attn_layers" in kw or set(spec.tiers) != default_tiers:
            # An explicit layer count (or custom tiers) without per-tier depths: every tier runs
            # every layer, as before attn_depth existed (keeps older checkpoints' functions).
            layers = kw.get("attn_layers", BytesConfig.attn_layers)
            kw["attn_depth"] = {t: layers for t in spec.tiers}
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
