"""Figures from answers: accuracy, raw top-1, coverage, confident-wrong, per-class P/R/F1, risk.

Softmax tasks (``mime``, ``code_lang``, ``text_lang``) take rows ``{"truth", "final", "raw"}``:
``final`` is the answer after thresholds (``"unknown"`` below them, ``"(absent)"`` when gated off),
``raw`` the top-1 before them. *Accuracy* is ``final == truth`` over all rows; *raw* is
``raw == truth``; *coverage* the share with a real answer; *confident-wrong* the share answered
with a wrong label (above the head's threshold). ``vocab`` restricts rows to truths the tool can
express at all. The risk task takes rows ``{"truth": [...], "flags": [...], "kind"}`` and gives
per-flag precision/recall/F1 over files and the share of negatives of each kind that get a flag.

What it does not do: map anchor vocabularies (the benchmark's maps do) or read files.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from picohead_runtime.decode import GENERIC_REASON

NO_ANSWER = ("unknown", "(absent)", None)


def _pct(a: int, b: int) -> float | None:
    return round(100.0 * a / b, 2) if b else None


def is_generic(row: dict[str, Any]) -> bool:
    """A family fallback (``application/zip`` for an unsure ODT, see ``HeadSpec.fallbacks``): the
    runtime's reason says so. Such an answer is neither right nor confident-wrong here; whether
    its family is right is ``benchmarks/wild_calibration.py``'s right-generic / wrong split."""
    return (row.get("reason") or "").endswith(GENERIC_REASON)


def softmax_scores(rows: list[dict[str, Any]], vocab: Iterable[str] | None = None,
                   per_class: bool = True) -> dict[str, Any]:
    if vocab is not None:
        v = set(vocab)
        rows = [r for r in rows if r["truth"] in v]
    n = len(rows)
    right = sum(r["final"] == r["truth"] for r in rows)
    raw = sum(r.get("raw") == r["truth"] for r in rows)
    answered = [r for r in rows if r["final"] not in NO_ANSWER]
    generic = [r for r in answered if r["final"] != r["truth"] and is_generic(r)]
    wrong = sum(r["final"] != r["truth"] for r in answered) - len(generic)
    out: dict[str, Any] = {"n": n, "accuracy": _pct(right, n), "raw_top1": _pct(raw, n),
                           "coverage": _pct(len(answered), n),
                           "confident_wrong": _pct(wrong, n),
                           "generic_answers": _pct(len(generic), n),
                           "accuracy_when_answered": _pct(right, len(answered))}
    if per_class:
        out["per_class"] = per_class_prf(rows)
        out["confusions"] = [[t, p, c] for (t, p), c in Counter(
            (r["truth"], r["final"]) for r in rows if r["final"] != r["truth"]).most_common(15)]
    return out


def per_class_prf(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    tp: Counter[str] = Counter()
    pred: Counter[str] = Counter()
    true: Counter[str] = Counter()
    for r in rows:
        true[r["truth"]] += 1
        if r["final"] not in NO_ANSWER:
            pred[r["final"]] += 1
        if r["final"] == r["truth"]:
            tp[r["truth"]] += 1
    out = {}
    for c in sorted(true):
        p = tp[c] / pred[c] if pred[c] else 0.0
        rc = tp[c] / true[c]
        f = 2 * p * rc / (p + rc) if p + rc else 0.0
        out[c] = {"n": true[c], "precision": round(p, 3), "recall": round(rc, 3),
                  "f1": round(f, 3)}
    return out


def by(rows: list[dict[str, Any]], key: str, vocab: Iterable[str] | None = None
       ) -> dict[str, Any]:
    """softmax_scores per value of ``key`` (e.g. the text kind), without per-class tables."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key))].append(r)
    return {k: softmax_scores(v, vocab, per_class=False) for k, v in sorted(groups.items())}


def risk_scores(rows: list[dict[str, Any]], flags: Iterable[str]) -> dict[str, Any]:
    flags = list(flags)
    per: dict[str, Any] = {}
    for f in flags:
        tp = sum(f in r["truth"] and f in r["flags"] for r in rows)
        fp = sum(f not in r["truth"] and f in r["flags"] for r in rows)
        fn = sum(f in r["truth"] and f not in r["flags"] for r in rows)
        p = tp / (tp + fp) if tp + fp else 0.0
        rc = tp / (tp + fn) if tp + fn else 0.0
        per[f] = {"positives": tp + fn, "precision": round(p, 3), "recall": round(rc, 3),
                  "f1": round(2 * p * rc / (p + rc), 3) if p + rc else 0.0}
    neg: dict[str, Any] = {}
    for kind in sorted({str(r.get("kind")) for r in rows}):
        ks = [r for r in rows if str(r.get("kind")) == kind and not r["truth"]]
        if ks:
            hit = sum(bool(set(r["flags"]) & set(flags)) for r in ks)
            neg[kind] = {"n": len(ks), "flagged": hit, "share": _pct(hit, len(ks))}
    f1s = [v["f1"] for v in per.values() if v["positives"]]
    exact = sum(set(r["flags"]) & set(flags) == set(r["truth"]) & set(flags) for r in rows)
    return {"n": len(rows), "per_flag": per, "weakest_f1": min(f1s) if f1s else None,
            "macro_f1": round(sum(f1s) / len(f1s), 3) if f1s else None,
            "exact_match": _pct(exact, len(rows)), "negatives_flagged": neg}
