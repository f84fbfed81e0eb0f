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
    # Heads that also read a mean of the positional n-grams alone (empty: none; then the
    # positional n-grams reach the heads only through position_share of the shared mean).
    position_heads: tuple[str, ...] = ()
    # The local detector (off unless ``local_ngrams`` or ``shape_ngrams`` is set): per byte position,
    # the embeddings of the n-grams starting there are summed, passed through one ReLU layer and
    # max-pooled over the window, so one short pattern (a key prefix, an e-mail's shape) is not
    # diluted by thousands of ordinary n-grams the way the mean dilutes it. A tier with
    # ``local_hidden`` 0 has no detector.
    local_ngrams: tuple[int, ...] = ()  # raw-byte n-gram lengths of the detector
    shape_ngrams: tuple[int, ...] = ()  # n-gram lengths over byte classes (a-z, A-Z, 0-9 folded)
    # Token lengths (0: off): at the first byte of each token (a run of [A-Za-z0-9_-]), one more
    # detector n-gram that holds only the class of the byte before the token (whitespace, other
    # ASCII, a byte >= 128; the input's start reads as whitespace), the token's length up to this
    # cap and the class of the byte that ends it (or "at least the cap"): the length a provider
    # prefix needs (ghp_ + 36) in ~1,000 values, where the retired word 41-gram also hashed the
    # shape of whatever follows the token and let the detector learn whole lines by heart.
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
    # Context (empty: off): byte offsets after each position whose n-gram embeddings reach that
    # position's units through a projection of their own, so a unit can fire on a field name and
    # the value 8 or 16 bytes after it together (the detector's n-grams span at most 16 bytes, and
    # the password flag needs both: ``smtp_password: "..."`` against ``smtp_password: ${X}``).
    local_context: tuple[int, ...] = ()

    @property
    def local(self) -> bool:
        """Whether the model has a detector (some n-grams, and some tier with units)."""
        return self.detector_kinds and any(v > 0 for v in self.local_hidden.values())

    @property
    def detector_kinds(self) -> bool:
        """Whether any detector n-gram kind is set (the detector's settings then apply)."""
        return bool(self.local_ngrams or self.shape_ngrams or self.token_lengths)

    def validate(self, tiers: tuple[str, ...]) -> None:
        _table_rows(self.buckets, tiers, "buckets")
        _tier_map(self.dims, tiers, "dims")
        if not 0 <= self.position_share < 1 or self.positions < 0:
            raise SpecError("arch: positions must be >= 0 and position_share in [0, 1)")
        if self.position_heads and not self.positions:
            raise SpecError("arch.position_heads: needs positions > 0")
        if not self.ngrams or any(n < 1 or n > 16 for n in self.ngrams):
            raise SpecError("arch.ngrams: must be a non-empty list of n-gram lengths in 1..16")
        if any(n < 1 or n > 16 for n in (*self.local_ngrams, *self.shape_ngrams)):
            raise SpecError("arch.local_ngrams/shape_ngrams: n-gram lengths must be in 1..16")
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
        ctx = self.local_context
        if ctx and (not self.detector_kinds or len(set(ctx)) != len(ctx) or any(
                isinstance(o, bool) or not isinstance(o, int) or not 1 <= o <= 64 for o in ctx)):
            raise SpecError(f"arch.local_context: {list(ctx)!r} must be distinct byte offsets in "
                            "1..64, and needs the detector (local_ngrams, shape_ngrams or "
                            "token_lengths)")

    def detector_rows(self, tier: str) -> int:
        """The detector hash-table rows ``tier`` reads (a prefix of the table)."""
        return self.local_rows[tier] if self.local_rows else self.local_buckets


# Knobs that were tried and not adopted, and left the library (issue 25), with their "off" value and
# the trial that measured them. Files written while they existed (the bundled content-v7 models,
# older runs) carry them at that value, so a retired key is read only at its off value.
RETIRED_ARCH: dict[str, tuple[Any, str]] = {
    "position_split": (False, "position_rows_trial.json"),
    "position_rows": ({}, "position_rows_trial.json"),
    "position_sum": (False, "position_sum_trial.json"),
    "lower_ngrams": ([], "added, never trained in a recipe"),
    "word_ngrams": ([], "word_ngrams_trial.json"),
    # positional n-grams at more offsets (30, 38, 73, 257) and ending in the last bytes, also in
    # the shared mean: less MIME and code than the positional mean alone
    "position_offsets": ([], "position_heads_trial/README.md"),
    "tail_positions": (0, "position_heads_trial/README.md"),
    # the same offsets and tail in the positional mean only: small's MIME -3.3, no gain elsewhere
    "position_mean_offsets": ([], "position_mean_offsets_trial/README.md"),
    "position_mean_tail": (0, "position_mean_offsets_trial/README.md"),
    # format features: offset-keyed n-grams of the first bytes, max-pooled into the type heads
    **{
        key: (off, "content_v8/format_short_trial.md")
        for key, off in (
            ("format_ngrams", []),
            ("format_head", 0),
            ("format_offsets", []),
            ("format_tail", 0),
            ("format_rows", {}),
            ("format_dims", {}),
            ("format_units", {}),
            ("format_heads", []),
        )
    },
}


def _is_off(value: Any, off: Any) -> bool:
    """Whether ``value`` is a retired key's off value (False, 0 or an empty container)."""
    if isinstance(off, bool):
        return value is off
    if isinstance(off, int):
        return isinstance(value, int) and not isinstance(value, bool) and value == off
    return isinstance(value, (list, tuple, Mapping)) and len(value) == 0


def _drop_retired(arch: Mapping[str, Any]) -> dict[str, Any]:
    """``arch`` without the retired keys that hold their off value; any other value of one fails."""
    out = dict(arch)
    for key, (off, trial) in RETIRED_ARCH.items():
        if key not in out:
            continue
        value = out.pop(key)
        if not _is_off(value, off):
            raise SpecError(
                f"arch.{key}: retired (tried and not adopted: {trial}); only its off value "
                f"{off!r} is accepted, got {value!r}; remove the key"
            )
    return out


FamilyConfig = BytesConfig | SteadyConfig
_FAMILIES: dict[str, type[BytesConfig] | type[SteadyConfig]] = {
    "bytes": BytesConfig,
    "steady": SteadyConfig,
}


def config_from_spec(spec: ModelSpec) -> FamilyConfig:
    """Parse ``spec.arch`` for ``spec.family``; missing keys take the defaults (for 4 default tiers)."""
    cls = _FAMILIES[spec.family]
    arch = _drop_retired(spec.arch) if cls is SteadyConfig else dict(spec.arch)
    allowed = {f.name for f in fields(cls)}
    extra = sorted(set(arch) - allowed)
    if extra:
        raise SpecError(
            f"arch.{extra[0]}: unknown key for family {spec.family!r}; allowed: {', '.join(sorted(allowed))}"
        )
    kw: dict[str, Any] = {}
    for k, v in arch.items():
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
