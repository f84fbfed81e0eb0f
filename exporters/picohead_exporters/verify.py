"""Running exported graphs and the gates an export must pass.

Gates (constants below, also written into every report):

- fp32 parity: the fp32 ONNX graph against the torch model, max |Δprob| <= ``PARITY_TOL`` on real
  inputs at two batch sizes (1 and up to 16) and two lengths (1 byte and the full window), plus
  the validation set at its natural lengths.
- quantized vs fp32 (int8, fp16): per head, top-1 agreement >= ``MIN_AGREEMENT`` and accuracy
  drop <= ``MAX_ACC_DROP``. Both are measured on the samples labelled for the head (a gated head's
  output on other samples is never shown to users); for a multilabel head "top-1" means every
  per-label on/off decision at the head's thresholds, and accuracy is micro-F1.

Sessions, batched runs and latency come from :mod:`picohead_runtime.scoring` (the runtime's own
session options and graph names). What it does not do: build or change graphs, or compute the
metadata's validation metrics (the caller hands those over as a function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from picohead_runtime import scoring
from picohead_runtime.spec import HeadSpec, ModelSpec

PARITY_TOL = 1e-4
MIN_AGREEMENT = 0.995
MAX_ACC_DROP = 0.005  # 0.5 accuracy points

Batch = scoring.Batch
Predict = scoring.Predict


def ort_predict(sess: Any, output_names: Sequence[str]) -> Predict:
    def run(data: np.ndarray, lengths: np.ndarray) -> Sequence[np.ndarray]:
        return scoring.run(sess, output_names, data, lengths)

    return run


def predict_all(
    fn: Predict, windows: np.ndarray, lengths: np.ndarray, n_heads: int, batch_size: int = 64
) -> list[np.ndarray]:
    """Outputs of ``fn`` (the torch reference, or a session through :func:`ort_predict`) for
    every row, batched by similar length (:func:`picohead_runtime.scoring.batched`)."""
    return scoring.batched(fn, windows, lengths, n_heads, batch_size=batch_size)


def parity_cases(windows: np.ndarray, lengths: np.ndarray, full: int) -> dict[str, Batch]:
    """Batches of real inputs: batch 1 and up to 16, each cut to 1 byte and padded to ``full``."""
    n = len(lengths)
    big = min(16, n)
    # The longest rows, so the "full window" cases really fill the window.
    longest = np.argsort(-lengths, kind="stable")
    cases: dict[str, Batch] = {}
    for b, idx in ((1, longest[:1]), (big, longest[:big])):
        w = np.zeros((b, full), dtype=np.uint8)
        width = min(full, windows.shape[1])
        w[:, :width] = windows[idx, :width]
        cases[f"batch{b}-len{full}"] = (w, np.minimum(lengths[idx], full).astype(np.int64))
        one = np.ascontiguousarray(w[:, :1])
        cases[f"batch{b}-len1"] = (one, np.minimum(lengths[idx], 1).astype(np.int64))
    return cases


def max_abs_diff(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    return float(max(np.max(np.abs(x - y)) if x.size else 0.0 for x, y in zip(a, b)))


def decisions(head: HeadSpec, probs: np.ndarray) -> np.ndarray:
    """Top-1 index for a softmax head; on/off per label (at its threshold) for a multilabel head."""
    if head.multilabel:
        thr = np.array([head.threshold_for(lab) for lab in head.labels], dtype=np.float32)
        return probs >= thr
    return probs.argmax(-1)


def head_score(head: HeadSpec, probs: np.ndarray, y: np.ndarray) -> float:
    """Accuracy (softmax) or micro-F1 (multilabel) of ``probs`` against labels ``y``."""
    pred = decisions(head, probs)
    if not head.multilabel:
        return float((pred == y).mean()) if len(y) else 0.0
    truth = y > 0.5
    tp = float((pred & truth).sum())
    denom = float(pred.sum() + truth.sum())
    return 2 * tp / denom if denom else 1.0


def compare_heads(
    spec: ModelSpec,
    ref: Sequence[np.ndarray],
    new: Sequence[np.ndarray],
    labels: Mapping[str, np.ndarray] | None,
    masks: Mapping[str, np.ndarray] | None,
) -> dict[str, dict[str, Any]]:
    """Per head: agreement of ``new`` with ``ref`` and, with labels, both scores and the drop."""
    out: dict[str, dict[str, Any]] = {}
    for h, r, q in zip(spec.heads, ref, new):
        m = masks[h.name] if masks is not None else np.ones(len(r), dtype=bool)
        if not m.any():  # no labelled sample: agreement over every sample
            m = np.ones(len(r), dtype=bool)
            has_labels = False
        else:
            has_labels = labels is not None
        dr, dq = decisions(h, r[m]), decisions(h, q[m])
        agree = (dr == dq).all(-1) if h.multilabel else dr == dq
        row: dict[str, Any] = {
            "n": int(m.sum()),
            "agreement": float(agree.mean()) if agree.size else 1.0,
            "max_abs_diff": float(np.abs(r[m] - q[m]).max()) if m.any() else 0.0,
        }
        if has_labels and labels is not None:
            y = labels[h.name][m]
            row["score_ref"] = head_score(h, r[m], y)
            row["score"] = head_score(h, q[m], y)
            row["drop"] = row["score_ref"] - row["score"]
        out[h.name] = row
    return out


def failed_heads(heads: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The names of the heads that fail a gate of :func:`gate_failures`, in order."""
    return [n for n, row in heads.items() if gate_failures({n: row}, "")]


def gate_failures(heads: Mapping[str, Mapping[str, Any]], what: str) -> list[str]:
    fails = []
    for name, row in heads.items():
        if row["agreement"] < MIN_AGREEMENT:
            fails.append(
                f"{what}: head {name!r} top-1 agreement with fp32 {row['agreement']:.4f} "
                f"< {MIN_AGREEMENT} on {row['n']} samples"
            )
        if row.get("drop", 0.0) > MAX_ACC_DROP:
            fails.append(
                f"{what}: head {name!r} accuracy drop {100 * row['drop']:.2f} points "
                f"> {100 * MAX_ACC_DROP:.1f} ({row['score_ref']:.4f} -> {row['score']:.4f})"
            )
    return fails
