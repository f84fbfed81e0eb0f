"""Evaluation of a trained run: per head and per tier accuracy, macro-F1, per-class
precision/recall/F1 and the most frequent confusions, as JSON and Markdown.

Each head is scored on the samples that carry its label, from the raw (ungated, unthresholded)
prediction, so every tier's numbers are comparable. Multilabel heads report per-label P/R/F1 and
micro/macro F1 at each label's threshold. What it does not do: calibrate thresholds or plot.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from picohead.dataset import WindowData
from picohead_runtime.spec import HeadSpec, ModelSpec


def _prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def softmax_metrics(
    head: HeadSpec, logits: np.ndarray, y: np.ndarray, top_confusions: int = 15
) -> dict[str, Any]:
    pred = logits.argmax(-1)
    n = len(y)
    per_class: dict[str, Any] = {}
    f1s = []
    for i, lab in enumerate(head.labels):
        tp = float(((pred == i) & (y == i)).sum())
        fp = float(((pred == i) & (y != i)).sum())
        fn = float(((pred != i) & (y == i)).sum())
        support = int((y == i).sum())
        p, r, f = _prf(tp, fp, fn)
        per_class[lab] = {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f, 4),
            "support": support,
        }
        if support:
            f1s.append(f)
    # what the runtime answers: ``unknown`` below the calibrated threshold of the top-1 label
    e = np.exp(logits - logits.max(-1, keepdims=True))
    top1 = e.max(-1) / e.sum(-1)
    answered = top1 >= np.array([head.threshold_for(lab) for lab in head.labels])[pred] - 1e-9
    k = len(head.labels)
    matrix = np.bincount(y.astype(np.int64) * k + pred, minlength=k * k).reshape(k, k)
    conf = Counter(
        (head.labels[a], head.labels[b]) for a, b in zip(y.tolist(), pred.tolist()) if a != b
    )
    return {
        "n": n,
        "accuracy": round(float((pred == y).mean()) if n else 0.0, 4),
        "macro_f1": round(float(np.mean(f1s)) if f1s else 0.0, 4),
        "coverage": round(float(answered.mean()) if n else 0.0, 4),
        "accuracy_answered": round(
            float((pred == y)[answered].mean()) if answered.any() else 0.0, 4
        ),
        "per_class": per_class,
        "confusions": [[t, p, c] for (t, p), c in conf.most_common(top_confusions)],
        "matrix": matrix.tolist(),  # rows: true label, columns: predicted (label order of the head)
    }


def multilabel_metrics(
    head: HeadSpec,
    logits: np.ndarray,
    y: np.ndarray,
    lookalike: np.ndarray | None = None,
    binary: np.ndarray | None = None,
) -> dict[str, Any]:
    """Per-label and micro/macro F1; ``lookalike`` marks generated negatives that carry a
    look-alike (UUIDs, hashes, placeholders) whose false-alarm rate is reported on its own, and
    ``binary`` the binary files (images, executables, archives, ...), whose false-alarm rate a
    file scanner meets on every directory it walks."""
    probs = 1 / (1 + np.exp(-logits))
    thr = np.array([head.threshold_for(lab) for lab in head.labels])
    pred = probs >= thr
    truth = y > 0.5
    per_class: dict[str, Any] = {}
    f1s = []
    for i, lab in enumerate(head.labels):
        tp = float((pred[:, i] & truth[:, i]).sum())
        fp = float((pred[:, i] & ~truth[:, i]).sum())
        fn = float((~pred[:, i] & truth[:, i]).sum())
        p, r, f = _prf(tp, fp, fn)
        per_class[lab] = {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f, 4),
            "support": int(truth[:, i].sum()),
        }
        if truth[:, i].any():
            f1s.append(f)
    tp, fp, fn = (
        float((pred & truth).sum()),
        float((pred & ~truth).sum()),
        float((~pred & truth).sum()),
    )
    negatives = ~truth.any(1)
    extra: dict[str, Any] = {}
    if lookalike is not None and (negatives & lookalike).any():
        sel = negatives & lookalike
        extra = {
            "lookalikes": int(sel.sum()),
            "lookalikes_flagged": round(float(pred[sel].any(1).mean()), 4),
        }
    if binary is not None and (negatives & binary).any():
        sel = negatives & binary
        extra["binaries"] = int(sel.sum())
        extra["binaries_flagged"] = round(float(pred[sel].any(1).mean()), 4)
    return {
        "n": int(len(y)),
        "micro_f1": round(_prf(tp, fp, fn)[2], 4),
        "macro_f1": round(float(np.mean(f1s)) if f1s else 0.0, 4),
        "exact_match": round(float((pred == truth).all(1).mean()) if len(y) else 0.0, 4),
        "negatives_flagged": round(
            float(pred[negatives].any(1).mean()) if negatives.any() else 0.0, 4
        ),
        **extra,
        "per_class": per_class,
    }


def _is_label(spec: ModelSpec, data: WindowData, head: str, label: str) -> np.ndarray:
    """Samples whose ``head`` label is ``label`` (all False when the spec lacks either)."""
    h = next((h for h in spec.heads if h.name == head and not h.multilabel), None)
    if h is None or label not in h.labels or head not in data.labels:
        return np.zeros(len(data), dtype=bool)
    return np.asarray(data.labels[head] == h.labels.index(label))


def evaluate_logits(
    spec: ModelSpec, logits: dict[str, np.ndarray], data: WindowData
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    binary = _is_label(spec, data, "modality", "binary")
    for h in spec.heads:
        m = data.label_mask[h.name]
        if not m.any():
            continue
        y = data.labels[h.name][m]
        if h.multilabel:
            # the corpus's risk generator names its samples' sources "risk:<host source>"
            lookalike = np.char.startswith(data.sources[m].astype(str), "risk:")
            out[h.name] = multilabel_metrics(h, logits[h.name][m], y, lookalike, binary[m])
        else:
            out[h.name] = softmax_metrics(h, logits[h.name][m], y)
    return out


def evaluate_run(
    model: Any,
    spec: ModelSpec,
    data: WindowData,
    tiers: list[str] | None = None,
    batch_size: int = 256,
) -> dict[str, Any]:
    """Metrics per tier and head for a torch model (see :func:`picohead.train.predict`)."""
    from picohead.train import predict  # torch lives there

    report: dict[str, Any] = {"n_samples": len(data), "data_sha256": data.data_hash, "tiers": {}}
    for tier in tiers or list(spec.tiers):
        logits = predict(model, data, tier, batch_size=batch_size)
        report["tiers"][tier] = evaluate_logits(spec, logits, data)
    return report


def headline(m: dict[str, Any]) -> float:
    return float(m.get("accuracy", m.get("micro_f1", 0.0)))


def per_class_table(m: dict[str, Any], confusions: int = 10) -> list[str]:
    """Markdown lines: one row per label with support, then the most frequent confusions."""
    lines = ["| label | precision | recall | F1 | support |", "|---|---|---|---|---|"]
    for lab, c in m["per_class"].items():
        if c["support"]:
            lines.append(
                f"| {lab} | {c['precision']:.3f} | {c['recall']:.3f} | {c['f1']:.3f} | {c['support']} |"
            )
    if m.get("confusions"):
        lines += [
            "",
            "Most frequent confusions (true → predicted: count): "
            + ", ".join(f"{a} → {b}: {c}" for a, b, c in m["confusions"][:confusions]),
        ]
    return lines


def to_markdown(report: dict[str, Any], title: str = "Evaluation") -> str:
    tiers = list(report["tiers"])
    heads: list[str] = []
    for t in tiers:
        heads += [h for h in report["tiers"][t] if h not in heads]
    lines = [
        f"# {title}",
        "",
        f"{report['n_samples']} samples (manifest sha256 {report['data_sha256'][:12]}).",
        "",
    ]
    lines += ["Accuracy (micro-F1 for multilabel heads) / macro-F1 per head and tier:", ""]
    lines += ["| head | " + " | ".join(tiers) + " |", "|---|" + "---|" * len(tiers)]
    for h in heads:
        cells = []
        for t in tiers:
            m = report["tiers"][t].get(h)
            cells.append(f"{headline(m):.3f} / {m['macro_f1']:.3f}" if m else "–")
        lines.append(f"| {h} | " + " | ".join(cells) + " |")
    big = tiers[-1]
    for h in heads:
        m = report["tiers"][big].get(h)
        if not m:
            continue
        lines += ["", f"## {h} ({big} tier), per class", ""] + per_class_table(m)
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], out_dir: Path, name: str = "eval") -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    j, md = out_dir / f"{name}.json", out_dir / f"{name}.md"
    j.write_text(json.dumps(report, indent=1) + "\n")
    md.write_text(to_markdown(report))
    return j, md


def compact_metrics(
    spec: ModelSpec,
    probs: Sequence[np.ndarray],
    labels: Mapping[str, np.ndarray],
    masks: Mapping[str, np.ndarray],
) -> dict[str, Any]:
    """Compact validation metrics per head from probabilities (an exported file's outputs):
    accuracy or micro-F1, macro-F1, n; what the exporter writes into each file's metadata."""
    out: dict[str, Any] = {}
    for h, p in zip(spec.heads, probs):
        m = masks[h.name]
        if not m.any():
            continue
        if h.multilabel:
            q = np.clip(p[m].astype(np.float64), 1e-12, 1 - 1e-12)
            full = multilabel_metrics(h, np.log(q / (1 - q)), labels[h.name][m])
            out[h.name] = {k: full[k] for k in ("n", "micro_f1", "macro_f1", "exact_match")}
        else:
            full = softmax_metrics(h, p[m], labels[h.name][m])
            out[h.name] = {k: full[k] for k in ("n", "accuracy", "macro_f1")}
    return out


def file_metrics(path: Path, data: WindowData, data_spec: ModelSpec | None = None
                 ) -> tuple[ModelSpec, Any, dict[str, Any]]:
    """An exported file's embedded spec (its calibrated thresholds), the loaded file
    (:class:`picohead_runtime.model.LoadedModel`), and its per-head metrics on ``data``. With
    ``data_spec`` (the spec ``data`` was loaded with), labels are re-indexed to the file's own
    lists first (:meth:`WindowData.reindex`); without it, ``data`` must use the file's lists."""
    from picohead_runtime import scoring

    model = scoring.open_file(path)
    spec = model.meta.spec
    if data_spec is not None:
        data = data.reindex(data_spec, spec)
    logits = scoring.file_logits(model, data.windows, data.lengths)
    return spec, model, evaluate_logits(spec, logits, data)


def mean_headline(metrics: dict[str, Any]) -> float:
    """The mean of every head's headline score: what the recipe chooses families by."""
    return float(np.mean([headline(m) for m in metrics.values()]))
