"""From probability tensors to final labels: thresholds, gates and top-k.

Everything that depends only on the spec (label tuples, per-label threshold vectors, gate parents)
is computed once in :class:`Decoder`'s constructor, so decoding a batch is a few numpy calls per head
plus building the result objects.

Rules, per head in spec order (gates always point to an earlier head):
- a gated head is absent unless its gate head is present and its *final* label is one of the gate's
  labels (so an ``unknown`` parent switches its children off);
- a softmax head's final label is its top-1 label, or ``unknown`` when the top-1 probability is below
  that label's threshold (``label_thresholds``, else the head's ``threshold``), with a reason;
- a multilabel head switches on every label whose probability reaches its threshold.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from picohead_runtime.results import UNKNOWN, HeadResult, MultilabelResult
from picohead_runtime.spec import ModelSpec

HeadOut = HeadResult | MultilabelResult


SCORE_DIGITS = 6  # float32 carries ~7 significant digits; more would only be noise in JSON


def _rounded(p: np.ndarray) -> list[list[float]]:
    return np.round(p.astype(np.float64), SCORE_DIGITS).tolist()


class _Head:
    __slots__ = ("name", "labels", "multilabel", "thresholds", "thr_list", "gate", "gate_labels")

    def __init__(self, spec: ModelSpec, i: int) -> None:
        h = spec.heads[i]
        self.name = h.name
        self.labels = h.labels
        self.multilabel = h.multilabel
        self.thresholds = np.array([h.threshold_for(lab) for lab in h.labels], dtype=np.float32)
        self.thr_list = self.thresholds.tolist()
        self.gate = h.gate.head if h.gate is not None else None
        self.gate_labels = frozenset(h.gate.labels) if h.gate is not None else frozenset()


class Decoder:
    """Decode the model's per-head probabilities into per-row head results."""

    def __init__(self, spec: ModelSpec, *, top_k: int = 3) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        self.spec = spec
        self.top_k = top_k
        self.heads = tuple(_Head(spec, i) for i in range(len(spec.heads)))

    def decode(self, probs: Sequence[np.ndarray]) -> list[dict[str, HeadOut]]:
        """``probs[i]`` is head ``i``'s ``float32[B, n_labels]``; one dict of results per row."""
        n = probs[0].shape[0] if probs else 0
        rows: list[dict[str, HeadOut]] = [{} for _ in range(n)]
        for head, p in zip(self.heads, probs):
            if head.multilabel:
                self._multilabel(head, p, rows)
            else:
                self._softmax(head, p, rows)
        return rows

    def _softmax(self, head: _Head, p: np.ndarray, rows: list[dict[str, HeadOut]]) -> None:
        k = min(self.top_k, p.shape[1])
        if k == 1:
            order = p.argmax(axis=1)[:, None]
        else:
            order = np.argsort(-p, axis=1, kind="stable")[:, :k]
        top_p = _rounded(np.take_along_axis(p, order, axis=1))
        order_l = order.tolist()
        labels, thr, gate, gate_labels, name = (
            head.labels,
            head.thr_list,
            head.gate,
            head.gate_labels,
            head.name,
        )
        for row, idx, ps in zip(rows, order_l, top_p):
            if gate is not None:
                parent = row.get(gate)
                if parent is None or parent.label not in gate_labels:  # type: ignore[union-attr]
                    continue
            top = idx[0]
            raw = labels[top]
            score = ps[0]
            t = thr[top]
            if score < t:
                label, reason = (
                    UNKNOWN,
                    f"score {score:.3f} is below the threshold {t:.3f} for {raw!r}",
                )
            else:
                label, reason = raw, None
            row[name] = HeadResult(
                label=label,
                score=score,
                raw=raw,
                top_k=tuple((labels[j], q) for j, q in zip(idx, ps)),
                reason=reason,
            )

    def _multilabel(self, head: _Head, p: np.ndarray, rows: list[dict[str, HeadOut]]) -> None:
        on = (p >= head.thresholds[None, :]).tolist()
        scores = _rounded(p)
        labels, gate, gate_labels, name = head.labels, head.gate, head.gate_labels, head.name
        for row, flags, ps in zip(rows, on, scores):
            if gate is not None:
                parent = row.get(gate)
                if parent is None or parent.label not in gate_labels:  # type: ignore[union-attr]
                    continue
            row[name] = MultilabelResult(
                labels=tuple(lab for lab, f in zip(labels, flags) if f),
                scores=dict(zip(labels, ps)),
            )
