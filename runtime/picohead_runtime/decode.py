"""From probability tensors to final labels: thresholds, gates and top-k.

Everything that depends only on the spec (label tuples, per-label thresholds, gate parents, where
each head sits in the joined outputs) is computed once in :class:`Decoder`'s constructor.

Rules, per head in spec order (gates always point to an earlier head):
- scores are probabilities rounded to 6 decimals (float32 holds ~7 significant digits), and every
  threshold is compared with the score as shown, so a result never contradicts its own numbers;
- a gated head is absent unless its gate head is present and its *raw* (top-1) label is one of the
  gate's labels: a parent that is unsure (``unknown`` under its threshold) still routes the input
  to the child its top-1 names, and the child answers under its own threshold. (Gating on the
  final label switched children off whenever the parent hesitated: 19 of 800 English, German, …
  texts in the comparison lost their language because ``coarse`` said ``text`` at 0.56–0.95,
  under its 0.96 threshold.)
- a softmax head's final label is its top-1 label (ties go to the earlier label), or ``unknown``
  when the top-1 score is below that label's threshold (``label_thresholds``, else the head's
  ``threshold``), with a reason; with ``fallbacks`` the family's generic answer comes before
  ``unknown`` when the family's summed probability reaches ``fallback_threshold``;
- a multilabel head switches on every label whose score reaches its threshold; a disabled label
  (``disabled_labels``) has an infinite threshold and is listed in the result's ``disabled``;
- given the windows (the classifier passes them), content shorter than :data:`MIN_CONTENT` bytes
  gets its generic type from a head with ``fallbacks`` (``text/plain`` for text, else
  ``application/octet-stream``, where the head has that generic answer), with a reason: no format
  can be told from so few bytes, training never cuts excerpts that short (``crop_min`` 8), and the
  model's answers there are noise (content-v8 pro: one ``x`` is ``application/zlib`` at 1.00,
  ``0\n`` ``application/pkix-cert``; 75-88 % of all 0-3-byte inputs got a specific format,
  ``benchmarks/tiny_inputs.py``). Magika skips its model under 8 bytes for the same reason. The
  other heads keep the model's answers (the text language of a short word is trained on), and so
  do the risk flags, which must be learned (issue 23: a 12-byte phone number is a real flag);
- given the windows, a head with ``needs_letters`` (the natural-language head) answers ``unknown``
  with a reason for content without a single letter: ``{}``, ``[]``, ``42`` have no language.

Two paths give identical results: one file (pure Python on seven short lists: after an
onnxruntime call the CPU caches are cold, and a dozen small numpy calls then cost ~2x what they cost
warm) and batches (a few numpy calls for all heads at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any

import numpy as np

from picohead_runtime.results import UNKNOWN, HeadResult, MultilabelResult
from picohead_runtime.spec import ModelSpec
from picohead_runtime.windows import looks_text

HeadOut = HeadResult | MultilabelResult


# The end of the reason a head gives when it falls back to its family's generic answer (readers
# such as the wild suite's metrics tell a generic answer from a specific one by it).
GENERIC_REASON = "answering the generic type"
# Content (after whitespace stripping) shorter than this gets the generic type from the type
# heads that have one, whatever the model says (see the module docstring).
MIN_CONTENT = 8
NO_LETTERS_REASON = "the content holds no letter: it has no natural language"


def has_letter(window: bytes) -> bool:
    """Whether the window, read as UTF-8 (invalid bytes skipped), holds any Unicode letter."""
    return any(c.isalpha() for c in window.decode("utf-8", "ignore"))

SHORT_GENERIC = {True: "text/plain", False: "application/octet-stream"}  # by looks_text
SCORE_DIGITS = 6  # float32 carries ~7 significant digits; more would only be noise in JSON


_SCALE = 10.0**SCORE_DIGITS


def _rounded(p: np.ndarray) -> list[Any]:
    # numpy's round is rint(x * 1e6) / 1e6; the one-file path computes the same in Python
    return p.astype(np.float64).round(SCORE_DIGITS).tolist()


def top_k(p: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, values)`` of the ``k`` largest values along the last axis, best first, ties to
    the lowest index.

    A stable sort is exact but slow on big batches (~8 us a row for seven heads); ``k`` rounds of
    ``argmin`` (which returns the first minimum) give the same answer at a fraction of the cost.
    """
    neg = -p
    if k == 1:
        return neg.argmin(axis=-1)[..., None], p.max(axis=-1)[..., None]
    if p.shape[0] <= 4:
        order = neg.argsort(axis=-1, kind="stable")[..., :k]
        neg.sort(axis=-1)  # the same values, in the order ``order`` lists them
        return order, -neg[..., :k]
    order = np.empty((*p.shape[:-1], k), dtype=np.intp)
    values = np.empty((*p.shape[:-1], k), dtype=p.dtype)
    for j in range(k):
        idx = neg.argmin(axis=-1)[..., None]
        order[..., j : j + 1] = idx
        values[..., j] = -neg.min(axis=-1)
        np.put_along_axis(neg, idx, np.inf, axis=-1)
    return order, values


class _Head:
    """Everything decoding needs about one head, precomputed from the spec."""

    __slots__ = (
        "name",
        "labels",
        "multilabel",
        "thresholds",
        "thr_list",
        "gate",
        "gate_labels",
        "disabled",
        "index",
        "slot",
        "k",
        "start",
        "end",
        "fb_of",
        "fb_members",
        "fb_thr",
    )

    def __init__(self, spec: ModelSpec, i: int) -> None:
        h = spec.heads[i]
        self.name = h.name
        self.labels = h.labels
        self.multilabel = h.multilabel
        # float64, exactly as written in the spec: compared with rounded float64 scores
        self.thr_list = [h.threshold_for(lab) for lab in h.labels]
        self.thresholds = np.array(self.thr_list, dtype=np.float64)
        self.index = i  # position in the model's outputs
        self.gate = h.gate.head if h.gate is not None else None
        self.gate_labels = frozenset(h.gate.labels) if h.gate is not None else frozenset()
        self.disabled = tuple(lab for lab in h.labels if lab in h.disabled_labels)  # label order
        self.slot = 0  # softmax: row in the gathered [heads, labels] block
        self.k = 0  # softmax: top-k kept (at most the label count)
        self.start = self.end = 0  # multilabel: span in the joined multilabel block
        # softmax fallbacks: label index -> generic answer; generic -> the label indices whose
        # probabilities make up its family (the generic itself too when it is a label)
        self.fb_of = {h.labels.index(k): v for k, v in h.fallbacks.items()}
        members: dict[str, list[int]] = {}
        generics = set(h.generic_labels)
        for j, lab in enumerate(h.labels):
            g = h.fallbacks.get(lab, lab if lab in generics else None)
            if g is not None:
                members.setdefault(g, []).append(j)
        self.fb_members = {g: np.array(v, dtype=np.intp) for g, v in members.items()}
        self.fb_thr = h.fallback_threshold

    def below(self, j: int, score: float, t: float, row: np.ndarray) -> tuple[str, str]:
        """Final label and reason when label ``j``'s ``score`` is under its threshold ``t``:
        the family's generic answer when the family's summed probability (``row``: this head's
        probabilities) reaches the fallback threshold, else ``unknown``."""
        raw = self.labels[j]
        why = f"score {score:.3f} is below the threshold {t:.3f} for {raw!r}"
        g = self.fb_of.get(j)
        if g is None:
            return UNKNOWN, why
        mass = round(float(row[self.fb_members[g]].astype(np.float64).sum()) * _SCALE) / _SCALE
        if mass >= self.fb_thr:
            return g, f"{why}; its family {g!r} scores {mass:.3f}, {GENERIC_REASON}"
        return UNKNOWN, f"{why}, and its family {g!r} only {mass:.3f}"


class Decoder:
    """Decode the model's per-head probabilities into per-row head results.

    All heads are handled with a few numpy calls per batch, not per head: the outputs are joined
    along the label axis once, softmax heads are gathered into one padded ``[B, heads, labels]``
    block for one top-k, multilabel heads are compared with one threshold vector. Only building
    the result objects is per row, in one loop that skips gated-off heads before doing any work.
    """

    def __init__(self, spec: ModelSpec, *, top_k: int = 3) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        self.spec = spec
        self.top_k = top_k
        self.heads = tuple(_Head(spec, i) for i in range(len(spec.heads)))
        sizes = [len(h.labels) for h in self.heads]
        offsets = np.cumsum([0, *sizes])
        total = int(offsets[-1])  # index ``total`` is the pad column (probability -1)
        soft = [h for h in self.heads if not h.multilabel]
        width = max((len(h.labels) for h in soft), default=1)
        gather = np.full((len(soft), width), total, dtype=np.intp)
        multi_idx: list[np.ndarray] = []
        multi_thr: list[np.ndarray] = []
        n_multi = 0
        for i, h in enumerate(self.heads):
            span = np.arange(offsets[i], offsets[i + 1], dtype=np.intp)
            if h.multilabel:
                h.start, h.end = n_multi, n_multi + len(span)
                n_multi += len(span)
                multi_idx.append(span)
                multi_thr.append(h.thresholds)
            else:
                h.slot = soft.index(h)
                h.k = min(top_k, len(span))
                gather[h.slot, : len(span)] = span
        self._has_soft = bool(soft)
        self._gather = gather
        self._k = min(top_k, width)
        self._multi_idx = np.concatenate(multi_idx) if multi_idx else None
        self._multi_thr = np.concatenate(multi_thr)[None, :] if multi_thr else None
        self._pad = np.full((1, 1), -1.0, dtype=np.float32)
        self._letters = tuple(h.name for h in spec.heads if h.needs_letters)

    def decode(
        self, probs: Sequence[np.ndarray], windows: Sequence[bytes] | None = None
    ) -> list[dict[str, HeadOut]]:
        """``probs[i]`` is head ``i``'s ``float32[B, n_labels]``; one dict of results per row.
        ``windows``: the rows' windows, for the rule on content under :data:`MIN_CONTENT` bytes
        (without them, as in calibration on probabilities alone, the rule is not applied)."""
        if not probs:
            return []
        n = probs[0].shape[0]
        if n == 1:
            return [self.decode_one(probs, windows[0] if windows is not None else None)]
        pad = self._pad
        if pad.shape[0] < n:  # grown once per larger batch; a plain attribute swap is thread-safe
            pad = self._pad = np.full((n, 1), -1.0, dtype=np.float32)
        cat = np.concatenate([*probs, pad[:n]], axis=1)
        empty: list[list[Any]] = [[]] * n
        order_l, top_l, on_l, ml_l = empty, empty, empty, empty
        if self._has_soft:
            order, values = top_k(cat[:, self._gather], self._k)  # [B, heads, k]
            order_l, top_l = order.tolist(), _rounded(values)
        if self._multi_idx is not None and self._multi_thr is not None:
            ml = cat[:, self._multi_idx].astype(np.float64).round(SCORE_DIGITS)
            on_l, ml_l = (ml >= self._multi_thr).tolist(), ml.tolist()

        rows: list[dict[str, HeadOut]] = []
        heads = self.heads
        for r, (orders, tops, ons, mls) in enumerate(zip(order_l, top_l, on_l, ml_l)):
            row: dict[str, HeadOut] = {}
            for h in heads:
                if h.gate is not None:
                    parent = row.get(h.gate)
                    if parent is None or parent.raw not in h.gate_labels:  # type: ignore[union-attr]
                        continue  # gated off: absent
                labels = h.labels
                if h.multilabel:
                    s, e = h.start, h.end
                    row[h.name] = MultilabelResult(
                        tuple(compress(labels, ons[s:e])), dict(zip(labels, mls[s:e])), h.disabled
                    )
                    continue
                idx, ps = orders[h.slot], tops[h.slot]
                if h.k < len(idx):
                    idx, ps = idx[: h.k], ps[: h.k]
                raw = labels[idx[0]]
                score = ps[0]
                t = h.thr_list[idx[0]]
                reason: str | None
                if score < t:
                    label, reason = h.below(idx[0], score, t, probs[h.index][r])
                else:
                    label, reason = raw, None
                # positional: the cheapest construction (this runs heads x files times)
                row[h.name] = HeadResult(
                    label, score, raw, tuple(zip(map(labels.__getitem__, idx), ps)), reason
                )
            rows.append(row)
        if windows is not None:
            for row, w in zip(rows, windows):
                if len(w) < MIN_CONTENT:
                    self._short(row, w)
                if self._letters:
                    self._no_letters(row, w)
        return rows

    def decode_one(
        self, probs: Sequence[np.ndarray], window: bytes | None = None
    ) -> dict[str, HeadOut]:
        """The one-row case of :meth:`decode`, in plain Python (same results, bit for bit)."""
        row: dict[str, HeadOut] = {}
        scale = _SCALE
        for h in self.heads:
            if h.gate is not None:
                parent = row.get(h.gate)
                if parent is None or parent.raw not in h.gate_labels:  # type: ignore[union-attr]
                    continue  # gated off: absent
            labels = h.labels
            vals = probs[h.index][0].tolist()
            if h.multilabel:
                sc = [round(v * scale) / scale for v in vals]
                on = [x >= t for x, t in zip(sc, h.thr_list)]
                row[h.name] = MultilabelResult(
                    tuple(compress(labels, on)), dict(zip(labels, sc)), h.disabled
                )
                continue
            if h.k == 1:
                idx = [max(range(len(vals)), key=vals.__getitem__)]  # first maximum
            else:  # a stable sort: ties keep label order
                idx = sorted(range(len(vals)), key=vals.__getitem__, reverse=True)[: h.k]
            ps = [round(vals[j] * scale) / scale for j in idx]
            raw = labels[idx[0]]
            score = ps[0]
            t = h.thr_list[idx[0]]
            reason: str | None
            if score < t:
                label, reason = h.below(idx[0], score, t, probs[h.index][0])
            else:
                label, reason = raw, None
            row[h.name] = HeadResult(
                label, score, raw, tuple(zip(map(labels.__getitem__, idx), ps)), reason
            )
        if window is not None:
            if len(window) < MIN_CONTENT:
                self._short(row, window)
            if self._letters:
                self._no_letters(row, window)
        return row

    def _no_letters(self, row: dict[str, HeadOut], window: bytes) -> None:
        """Heads with ``needs_letters`` answer ``unknown`` for content without a letter."""
        present = [n for n in self._letters if isinstance(row.get(n), HeadResult)]
        if not present or has_letter(window):
            return
        for n in present:
            a = row[n]
            assert isinstance(a, HeadResult)
            if a.label != UNKNOWN:
                row[n] = HeadResult(UNKNOWN, a.score, a.raw, a.top_k, NO_LETTERS_REASON)

    def _short(self, row: dict[str, HeadOut], window: bytes) -> None:
        """Content under MIN_CONTENT bytes: each head with that generic answer gives it."""
        generic = SHORT_GENERIC[looks_text(window)]
        n = len(window)
        why = (
            f"only {n} byte{'' if n == 1 else 's'} of content (whitespace stripped): too few to "
            f"tell a format from (the model reads {MIN_CONTENT} or more); {GENERIC_REASON}"
        )
        for h in self.heads:
            a = row.get(h.name)
            if not isinstance(a, HeadResult) or generic not in h.fb_members or a.label == generic:
                continue
            row[h.name] = HeadResult(generic, a.score, a.raw, a.top_k, why)
