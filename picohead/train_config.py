"""Training settings: one dataclass, stored in every run's ``config.json``, JSON both ways.

Torch-free, so the run folder (:mod:`picohead.run`) and the command line read and check settings
without loading torch. What it does not do: train (:mod:`picohead.train`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from picohead_runtime.errors import PicoheadError

# The hashed-n-gram table learns best with a much larger step (byteSteady used SGD at 0.1).
DEFAULT_LR = {"bytes": 3e-3, "steady": 3e-2}


class ConfigError(PicoheadError, ValueError):
    """A config or recipe file with a key nobody reads, or a value of the wrong kind; the message
    names the key and the file."""


def check_keys(doc: Mapping[str, Any], known: Iterable[str], source: str) -> None:
    """Raise :class:`ConfigError` for the first key of ``doc`` not in ``known`` (keys starting
    with ``_`` are comments and pass)."""
    if not isinstance(doc, Mapping):
        raise ConfigError(f"{source}: expected a JSON object, got {type(doc).__name__}")
    allowed = set(known)
    for key in doc:
        if key not in allowed and not str(key).startswith("_"):
            raise ConfigError(
                f"{source}: unknown key {key!r} (known: {', '.join(sorted(allowed))})"
            )


@dataclass
class TrainConfig:
    """Training settings (the architecture lives in the spec's ``arch``)."""

    steps: int = 2000  # optimizer steps (``epochs`` overrides it when set)
    epochs: float | None = None  # passes over the training set
    batch_size: int = 64
    lr: float | None = None  # peak learning rate (None: the family's default, see DEFAULT_LR)
    weight_decay: float = 0.01
    warmup: int = 100  # linear warmup steps, then cosine decay to lr * min_lr_ratio
    min_lr_ratio: float = 0.05
    clip: float = 1.0  # gradient-norm clipping
    seed: int = 0
    eval_every: int = 200  # validate every N steps
    patience: int = 6  # stop after this many validations without improvement (0: never)
    max_eval: int = 4000  # validation samples used during training (full set in `picohead eval`)
    tier_sampling: str = "sandwich"  # "sandwich" (largest + smallest + one random) or "all"
    # Loss weight per tier (tiers not named: 1.0), e.g. {"tiny": 2.0} to favour the smallest tier
    # where the tiers share one table; multiplies the tier's head losses and its distillation.
    tier_weights: dict[str, float] = field(default_factory=dict)
    distill: float = 0.0  # weight of distillation from the largest tier (0: off)
    distill_temperature: float = 2.0
    threads: int = 0  # torch intra-op threads (0: torch's default)
    # Short-input augmentation: this share of each batch is cut to crop_min..crop_max bytes (half at
    # offset 0, keeping every label but the risk flags, whose evidence may be cut away; half at a
    # random offset, keeping only the language heads, which a random excerpt still answers).
    crop_prob: float = 0.0
    crop_min: int = 8
    crop_max: int = 256
    # Short inputs: this share of each batch becomes a 0..short_max-byte input (a few random
    # bytes, punctuation and whitespace, or the row's own first or some middle bytes) that only
    # the ``crop_relabel`` heads are trained on, relabelled from its bytes (no flag without
    # evidence: a phone number that survives the cut keeps its flag). Every other head is unset,
    # so the short inputs teach "no evidence, no flag" without teaching any type or language.
    short_prob: float = 0.0
    short_max: int = 16
    # Labels of the made-up short inputs (random bytes, punctuation, whitespace; not those cut
    # from a row) for single-label heads: "module:function" called as f(bytes) -> {head: label}
    # (heads it leaves out stay unset), e.g. "picohead.data.labels:short_input_labels" (text
    # bytes are coarse text, modality text, text/plain). Empty: every head but the
    # ``crop_relabel`` ones stays unset.
    short_labels: str = ""
    # Multilabel heads whose crops are relabelled instead of dropped: head name -> "module:function"
    # called as f(excerpt_bytes, positive_label_names) -> the excerpt's label names, or None to
    # leave the row unlabelled (e.g. {"risk": "picohead.data.risk:relabel_excerpt"}).
    crop_relabel: dict[str, str] = field(default_factory=dict)
    # Multilabel heads whose flagged rows are rewritten before cropping: head name ->
    # "module:function" called as f(window_bytes, positive_label_names, random.Random) -> bytes of
    # the same length, on an ``augment_prob`` share of those rows (e.g. {"risk":
    # "picohead.data.risk:refresh_secrets"}: fresh random bodies for the planted secrets each time
    # a sample is drawn, so longer training cannot memorise the training keys).
    augment: dict[str, str] = field(default_factory=dict)
    augment_prob: float = 1.0
    # Multilabel heads into whose rows without a flag something is planted: head name ->
    # "module:function" called as f(window_bytes, positive_label_names, random.Random) -> (bytes
    # of the same length, the new label names) or None to leave the row, on a ``plant_prob``
    # share of those rows (e.g. {"risk": "picohead.data.risk:plant_secret"}: fresh secrets and
    # look-alikes under shared names in any host, so the head learns values, not field names).
    plant: dict[str, str] = field(default_factory=dict)
    plant_prob: float = 0.0

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, source: str = "training settings") -> TrainConfig:
        """The settings in ``d``; a key that is no field is an error naming it and ``source``
        (a misspelt setting would otherwise do nothing, silently)."""
        check_keys(d, {f.name for f in fields(cls)}, source)
        return cls(**{k: v for k, v in d.items() if not k.startswith("_")})

    def total_steps(self, n_train: int, world_size: int = 1) -> int:
        if self.epochs is not None:
            return max(1, math.ceil(self.epochs * n_train / (self.batch_size * world_size)))
        return self.steps
