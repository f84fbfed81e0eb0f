"""The model spec: which heads a model has, their labels and gates, its input window and tiers.

A spec is plain JSON, parsed into frozen dataclasses. It is the single schema shared by training
(which writes it into every checkpoint) and the runtime (which reads it back from every exported
ONNX file's metadata), so it lives here, in the torch-free package.

What it does: parse and validate a spec, with errors that name the bad key and say how to fix it;
serialise it back to JSON. What it does not do: describe the architecture in detail. The ``arch``
mapping is carried through untouched and validated by the model family that owns it
(``picohead.models``), because the runtime never needs it.

Labels are plain strings checked against each head's own label list; there is no closed enum, so a
user's custom model with new labels loads like the default one.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picohead_runtime.errors import PicoheadError

SCHEMA_VERSION = 1
HEAD_KINDS = ("softmax", "multilabel")
FAMILIES = ("bytes", "steady")
DEFAULT_TIERS = ("tiny", "small", "base", "pro")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# Sane bounds, so that a corrupt or hostile spec (say, inside a downloaded model file) fails with
# a message instead of a MemoryError: the runtime allocates a full window per call.
MAX_WINDOW_SIDE = 1 << 20  # bytes in window.head, and in window.tail (1 MiB each)
MAX_LABELS = 4096  # labels per head
MAX_HEADS = 64
MAX_TIERS = 16


class SpecError(PicoheadError, ValueError):
    """A spec that cannot be used; the message names the key and says how to fix it."""


@dataclass(frozen=True)
class Gate:
    """Decode a head only when another (softmax) head's final label is one of ``labels``."""

    head: str
    labels: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"head": self.head, "labels": list(self.labels)}


@dataclass(frozen=True)
class HeadSpec:
    """One classification head.

    ``threshold`` means: for a softmax head, the minimum top-1 probability below which the final
    label is ``unknown`` (0 disables it); for a multilabel head, the default probability at which a
    label is switched on. ``label_thresholds`` overrides it per label (calibration writes these).
    ``disabled_labels`` (multilabel heads only) are labels this model does not answer: never
    switched on, their scores still reported. Calibration writes them for a label whose best
    validation F1 is too low to be worth a flag (e.g. the risk flags of a tier without a detector).
    ``fallbacks`` (softmax heads only) maps a label to the generic answer of its family (for MIME
    e.g. ``image/x-tga`` -> ``application/octet-stream``, ``application/epub+zip`` ->
    ``application/zip``): when the top-1 score is under its threshold and the family's summed
    probability (every label mapped to that generic, and the generic itself when it is a label)
    reaches ``fallback_threshold``, the head answers the generic label instead of ``unknown``.
    A generic label need not be one of the head's labels (``application/octet-stream``).
    ``needs_letters`` (softmax heads only): the head answers only for content that holds a letter
    (any Unicode letter); for content without one it answers ``unknown`` and says why. A natural
    language head sets it: ``{}``, ``[]`` or ``42`` have no language, and a model that never saw
    a label for them picks one anyway (content-v9 pro: ``{}`` -> ``ko`` at 0.95).
    """

    name: str
    kind: str
    labels: tuple[str, ...]
    gate: Gate | None = None
    weight: float = 1.0
    threshold: float = 0.0
    label_thresholds: Mapping[str, float] = field(default_factory=dict)
    disabled_labels: tuple[str, ...] = ()
    fallbacks: Mapping[str, str] = field(default_factory=dict)
    fallback_threshold: float = 0.5
    needs_letters: bool = False

    @property
    def multilabel(self) -> bool:
        return self.kind == "multilabel"

    @property
    def generic_labels(self) -> tuple[str, ...]:
        """The generic answers ``fallbacks`` can give, in first-seen order."""
        return tuple(dict.fromkeys(self.fallbacks.values()))

    def index(self, label: str) -> int:
        """Index of ``label`` in this head; a clear error for an unknown label."""
        try:
            return self.labels.index(label)
        except ValueError:
            raise SpecError(
                f"head {self.name!r} has no label {label!r}; its labels are: "
                + ", ".join(self.labels)
            ) from None

    def threshold_for(self, label: str) -> float:
        """The score at which ``label`` is given; ``inf`` for a disabled label (never given)."""
        if label in self.disabled_labels:
            return math.inf
        return float(self.label_thresholds.get(label, self.threshold))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind, "labels": list(self.labels)}
        if self.gate is not None:
            d["gate"] = self.gate.to_dict()
        if self.weight != 1.0:
            d["weight"] = self.weight
        d["threshold"] = self.threshold
        if self.label_thresholds:
            d["label_thresholds"] = dict(self.label_thresholds)
        if self.disabled_labels:
            d["disabled_labels"] = list(self.disabled_labels)
        if self.fallbacks:  # written per family (generic -> members): each generic once
            d["fallbacks"] = {
                g: [k for k, v in self.fallbacks.items() if v == g] for g in self.generic_labels
            }
            d["fallback_threshold"] = self.fallback_threshold
        if self.needs_letters:
            d["needs_letters"] = True
        return d


@dataclass(frozen=True)
class WindowSpec:
    """Bytes read from a file: the first ``head`` and the last ``tail`` (no overlap), after
    whitespace is stripped from both ends and, when ``skip_nul`` is set, a leading run of at
    least that many NUL bytes is skipped too (``picohead_runtime.windows``). ``skip_nul`` is 0
    (off) for every model trained before it existed: a model is run with the windows it was
    trained on."""

    head: int = 1024
    tail: int = 1024
    skip_nul: int = 0

    @property
    def size(self) -> int:
        return self.head + self.tail

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"head": self.head, "tail": self.tail}
        if self.skip_nul:  # absent when off, so the specs of earlier models read back unchanged
            out["skip_nul"] = self.skip_nul
        return out


@dataclass(frozen=True)
class ModelSpec:
    """Everything needed to build, train, export and decode one multi-head model."""

    name: str
    heads: tuple[HeadSpec, ...]
    window: WindowSpec = WindowSpec()
    family: str = "bytes"
    tiers: tuple[str, ...] = DEFAULT_TIERS
    arch: Mapping[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    # -- lookups -----------------------------------------------------------------------------
    @property
    def head_names(self) -> tuple[str, ...]:
        return tuple(h.name for h in self.heads)

    def head(self, name: str) -> HeadSpec:
        for h in self.heads:
            if h.name == name:
                return h
        raise SpecError(f"no head named {name!r}; heads are: {', '.join(self.head_names)}")

    def check_tier(self, tier: str) -> str:
        if tier not in self.tiers:
            raise SpecError(f"unknown tier {tier!r}; this model has tiers: {', '.join(self.tiers)}")
        return tier

    # -- (de)serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "name": self.name,
            "family": self.family,
            "window": self.window.to_dict(),
            "tiers": list(self.tiers),
            "heads": [h.to_dict() for h in self.heads],
            "arch": dict(self.arch),
        }

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, text: str, *, source: str = "spec") -> ModelSpec:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SpecError(f"{source}: not valid JSON ({e})") from None
        return cls.from_dict(data, source=source)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "spec") -> ModelSpec:
        return _parse_spec(data, source)

    def replace_heads(self, heads: tuple[HeadSpec, ...]) -> ModelSpec:
        """A copy with other heads (validated again)."""
        d = self.to_dict()
        d["heads"] = [h.to_dict() for h in heads]
        return ModelSpec.from_dict(d)


def load_spec(path: str | Path) -> ModelSpec:
    """Read and validate a spec JSON file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise SpecError(f"cannot read spec file {p}: {e.strerror or e}") from None
    return ModelSpec.from_json(text, source=str(p))


# -- parsing ------------------------------------------------------------------------------------
def _fail(source: str, key: str, msg: str) -> SpecError:
    return SpecError(f"{source}: {key}: {msg}")


def _require(d: Mapping[str, Any], key: str, where: str, source: str) -> Any:
    if key not in d:
        raise _fail(source, f"{where}.{key}" if where else key, "missing; add it")
    return d[key]


def _check_keys(d: Mapping[str, Any], allowed: set[str], where: str, source: str) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise _fail(
            source,
            f"{where}.{extra[0]}" if where else extra[0],
            f"unknown key; allowed keys are: {', '.join(sorted(allowed))}",
        )


def _prob(value: Any, key: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(source, key, f"must be a number in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise _fail(source, key, f"must be in [0, 1], got {value!r}")
    return float(value)


# The keys a head object may hold (a spec's heads, a head file for ``picohead add-head``).
HEAD_KEYS = frozenset(
    {"name", "kind", "labels", "gate", "weight", "threshold", "label_thresholds", "disabled_labels",
     "fallbacks", "fallback_threshold", "needs_letters"}
)


def _parse_head(d: Any, i: int, source: str) -> HeadSpec:
    where = f"heads[{i}]"
    if not isinstance(d, Mapping):
        raise _fail(source, where, "must be an object with name, kind and labels")
    _check_keys(d, set(HEAD_KEYS), where, source)
    name = _require(d, "name", where, source)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise _fail(
            source, f"{where}.name", f"{name!r} must match [a-z][a-z0-9_]* (e.g. 'code_lang')"
        )
    where = f"heads[{i}] ({name})"
    kind = d.get("kind", "softmax")
    if kind not in HEAD_KINDS:
        raise _fail(source, f"{where}.kind", f"{kind!r} is not one of {', '.join(HEAD_KINDS)}")
    labels = _require(d, "labels", where, source)
    if not isinstance(labels, list) or not all(isinstance(x, str) and x for x in labels):
        raise _fail(source, f"{where}.labels", "must be a list of non-empty strings")
    if len(labels) < (1 if kind == "multilabel" else 2):
        raise _fail(source, f"{where}.labels", "a softmax head needs at least 2 labels")
    if len(labels) > MAX_LABELS:
        raise _fail(
            source, f"{where}.labels", f"{len(labels)} labels is over the {MAX_LABELS} limit"
        )
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise _fail(source, f"{where}.labels", f"duplicate labels: {', '.join(dup)}")
    if "unknown" in labels:
        raise _fail(
            source,
            f"{where}.labels",
            "'unknown' is reserved for below-threshold answers; rename it",
        )
    gate = None
    if d.get("gate") is not None:
        g = d["gate"]
        if not isinstance(g, Mapping) or "head" not in g or "labels" not in g:
            raise _fail(
                source, f"{where}.gate", 'must look like {"head": "coarse", "labels": ["code"]}'
            )
        _check_keys(g, {"head", "labels"}, f"{where}.gate", source)
        gl = g["labels"]
        if isinstance(gl, str):
            gl = [gl]
        if not isinstance(gl, list) or not gl or not all(isinstance(x, str) for x in gl):
            raise _fail(source, f"{where}.gate.labels", "must be a non-empty list of label strings")
        gate = Gate(head=str(g["head"]), labels=tuple(gl))
    weight = d.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
        raise _fail(source, f"{where}.weight", f"must be a non-negative number, got {weight!r}")
    default_thr = 0.5 if kind == "multilabel" else 0.0
    threshold = _prob(d.get("threshold", default_thr), f"{where}.threshold", source)
    lt = d.get("label_thresholds") or {}
    if not isinstance(lt, Mapping):
        raise _fail(source, f"{where}.label_thresholds", "must map label -> probability")
    for k, v in lt.items():
        if k not in labels:
            raise _fail(source, f"{where}.label_thresholds.{k}", "is not one of this head's labels")
        _prob(v, f"{where}.label_thresholds.{k}", source)
    disabled = d.get("disabled_labels") or []
    if not isinstance(disabled, list) or not all(isinstance(x, str) for x in disabled):
        raise _fail(source, f"{where}.disabled_labels", "must be a list of label strings")
    if disabled and kind != "multilabel":
        raise _fail(
            source,
            f"{where}.disabled_labels",
            "only a multilabel head can disable labels (a softmax head answers 'unknown' "
            "under its threshold instead)",
        )
    for k in disabled:
        if k not in labels:
            raise _fail(
                source, f"{where}.disabled_labels", f"{k!r} is not one of this head's labels"
            )
    fallbacks = _fallback_members(d.get("fallbacks") or {}, f"{where}.fallbacks", source)
    if fallbacks and kind != "softmax":
        raise _fail(source, f"{where}.fallbacks", "only a softmax head falls back to generic labels")
    for k, v in fallbacks.items():
        if k not in labels:
            raise _fail(source, f"{where}.fallbacks.{k}", "is not one of this head's labels")
        if v == "unknown" or v == k:
            raise _fail(source, f"{where}.fallbacks.{k}", f"{v!r} cannot be a generic answer")
    fb_thr = _prob(d.get("fallback_threshold", 0.5), f"{where}.fallback_threshold", source)
    needs_letters = d.get("needs_letters", False)
    if not isinstance(needs_letters, bool):
        raise _fail(source, f"{where}.needs_letters", f"must be true or false, got {needs_letters!r}")
    if needs_letters and kind != "softmax":
        raise _fail(source, f"{where}.needs_letters", "only a softmax head answers 'unknown'")
    return HeadSpec(
        name=name,
        kind=kind,
        labels=tuple(labels),
        gate=gate,
        weight=float(weight),
        threshold=threshold,
        label_thresholds={k: float(v) for k, v in lt.items()},
        disabled_labels=tuple(dict.fromkeys(disabled)),
        fallbacks={str(k): str(v) for k, v in fallbacks.items()},
        fallback_threshold=fb_thr,
        needs_letters=needs_letters,
    )


def _fallback_members(value: Any, where: str, source: str) -> dict[str, str]:
    """label -> generic from a spec's ``fallbacks``: ``{generic: [label, ...]}`` (how specs are
    written) or ``{label: generic}`` (files written before 2026-12-03)."""
    if not isinstance(value, Mapping):
        raise _fail(source, where, "must map generic label -> its labels")
    if all(isinstance(v, str) and v for v in value.values()):
        return {str(k): v for k, v in value.items()}
    out: dict[str, str] = {}
    for generic, members in value.items():
        if not (isinstance(generic, str) and generic and isinstance(members, list)):
            raise _fail(source, f"{where}.{generic}", "must list the labels of this generic label")
        for k in members:
            if not isinstance(k, str) or k in out:
                raise _fail(source, f"{where}.{generic}", f"{k!r}: a label string, once")
            out[k] = generic
    return out


def _parse_spec(data: Any, source: str) -> ModelSpec:
    if not isinstance(data, Mapping):
        raise SpecError(f"{source}: the spec must be a JSON object")
    _check_keys(
        data, {"schema_version", "name", "family", "window", "tiers", "heads", "arch"}, "", source
    )
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise _fail(
            source,
            "schema_version",
            f"is {version!r}, this picohead reads version {SCHEMA_VERSION}; "
            "upgrade picohead or re-export the model",
        )
    name = data.get("name", "model")
    if not isinstance(name, str) or not name:
        raise _fail(source, "name", "must be a non-empty string")
    family = data.get("family", "bytes")
    if family not in FAMILIES:
        raise _fail(source, "family", f"{family!r} is not one of {', '.join(FAMILIES)}")

    w = data.get("window", {})
    if not isinstance(w, Mapping):
        raise _fail(source, "window", 'must look like {"head": 1024, "tail": 1024}')
    _check_keys(w, {"head", "tail", "skip_nul"}, "window", source)
    wh, wt, wn = w.get("head", 1024), w.get("tail", 1024), w.get("skip_nul", 0)
    for k, v in (("head", wh), ("tail", wt), ("skip_nul", wn)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise _fail(source, f"window.{k}", f"must be a non-negative integer, got {v!r}")
        if v > MAX_WINDOW_SIDE:
            raise _fail(source, f"window.{k}", f"{v} bytes is over the {MAX_WINDOW_SIDE} limit")
    if wh + wt < 1:
        raise _fail(source, "window", "head + tail must be at least 1 byte")

    tiers = data.get("tiers", list(DEFAULT_TIERS))
    if (
        not isinstance(tiers, list)
        or not tiers
        or not all(isinstance(t, str) and _NAME_RE.match(t) for t in tiers)
        or len(set(tiers)) != len(tiers)
    ):
        raise _fail(source, "tiers", "must be a non-empty list of distinct names, smallest first")
    if len(tiers) > MAX_TIERS:
        raise _fail(source, "tiers", f"{len(tiers)} tiers is over the {MAX_TIERS} limit")

    heads_raw = _require(data, "heads", "", source)
    if not isinstance(heads_raw, list) or not heads_raw:
        raise _fail(source, "heads", "must be a non-empty list of head objects")
    if len(heads_raw) > MAX_HEADS:
        raise _fail(source, "heads", f"{len(heads_raw)} heads is over the {MAX_HEADS} limit")
    heads = tuple(_parse_head(h, i, source) for i, h in enumerate(heads_raw))
    seen: dict[str, HeadSpec] = {}
    for i, h in enumerate(heads):
        if h.name in seen:
            raise _fail(source, f"heads[{i}].name", f"duplicate head name {h.name!r}")
        if h.gate is not None:
            gh = seen.get(h.gate.head)
            if gh is None:
                raise _fail(
                    source,
                    f"heads[{i}] ({h.name}).gate.head",
                    f"{h.gate.head!r} must name a head declared before this one "
                    f"(declared so far: {', '.join(seen) or 'none'})",
                )
            if gh.multilabel:
                raise _fail(source, f"heads[{i}] ({h.name}).gate.head", "must be a softmax head")
            for gl in h.gate.labels:
                if gl not in gh.labels:
                    raise _fail(
                        source,
                        f"heads[{i}] ({h.name}).gate.labels",
                        f"{gl!r} is not a label of head {gh.name!r}",
                    )
        seen[h.name] = h

    arch = data.get("arch", {})
    if not isinstance(arch, Mapping):
        raise _fail(source, "arch", "must be an object (the family's architecture settings)")
    return ModelSpec(
        name=name,
        heads=heads,
        window=WindowSpec(head=wh, tail=wt, skip_nul=wn),
        family=family,
        tiers=tuple(tiers),
        arch=dict(arch),
        schema_version=SCHEMA_VERSION,
    )
