"""Result types: what one classified file (or byte string) gives back.

A result always exists, whatever happened to the file: ``status`` says what happened and ``ok`` is
true exactly when the model ran (``status == "ok"``), in which case ``heads`` holds one entry per
head that was not gated off. A softmax head keeps the raw model answer beside the final one and the
reason they differ; a multilabel head lists the labels switched on and every label's score.

``asdict()`` gives plain JSON-ready data (the shape documented in the README). Head results are
plain (not frozen) slotted dataclasses because a frozen dataclass costs twice as much to build and a
scan builds seven per file; treat them as read-only.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "unknown"


@dataclass(slots=True)
class HeadResult:
    """A softmax head: the final ``label`` (``"unknown"`` below the threshold) and the raw answer."""

    label: str
    score: float  # probability of the raw top-1 label
    raw: str  # the model's top-1 label, before thresholds
    top_k: tuple[tuple[str, float], ...]  # (label, probability), best first
    reason: str | None = None  # why ``label`` differs from ``raw``; None when they agree

    @property
    def multilabel(self) -> bool:
        return False

    def asdict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "score": self.score,
            "raw": self.raw,
            "top_k": [[lab, p] for lab, p in self.top_k],
            "reason": self.reason,
        }


@dataclass(slots=True)
class MultilabelResult:
    """A multilabel head: the labels at or above their thresholds, and every label's score.

    ``disabled``: labels this model never gives (its spec's ``disabled_labels``: too weak on
    validation to be worth a flag); an empty ``labels`` then does not mean "none of them".
    """

    labels: tuple[str, ...]
    scores: dict[str, float]
    disabled: tuple[str, ...] = ()

    @property
    def multilabel(self) -> bool:
        return True

    def asdict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"labels": list(self.labels), "scores": dict(self.scores)}
        if self.disabled:  # only models with disabled labels carry the key
            d["disabled"] = list(self.disabled)
        return d


@dataclass(frozen=True, slots=True)
class Result:
    """One classified input. ``path`` is ``None`` for bytes and streams unless a name was given."""

    path: str | None
    status: str
    heads: dict[str, HeadResult | MultilabelResult] = field(default_factory=dict)
    tier: str = ""
    model: str = ""
    message: str | None = None  # what went wrong, when status is not ok/empty; or a note on ok
    truncated: bool = False  # a stream (or size-0 file) cut short at the reader's limit

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def label(self, head: str) -> str | None:
        """The final label of a softmax head, or None when it is absent (gated off, or not ok)."""
        h = self.heads.get(head)
        return h.label if isinstance(h, HeadResult) else None

    def asdict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path, "ok": self.ok, "status": self.status}
        if self.path is not None:
            raw = path_bytes(self.path)
            if raw is not None:  # the name is not valid UTF-8: give its exact bytes too
                d["path_b64"] = base64.b64encode(raw).decode("ascii")
        d["heads"] = {name: h.asdict() for name, h in self.heads.items()}
        d["tier"] = self.tier
        d["model"] = self.model
        if self.message is not None:
            d["message"] = self.message
        if self.truncated:  # only results cut short carry the key
            d["truncated"] = True
        return d


def path_str(path: str | bytes | os.PathLike[Any]) -> str:
    """A path as ``str``; undecodable bytes become surrogate escapes (``os.fsdecode``)."""
    return os.fsdecode(path)


def path_bytes(path: str) -> bytes | None:
    """The raw bytes of ``path`` when it is not valid UTF-8 (it holds surrogate escapes), else None."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return None
