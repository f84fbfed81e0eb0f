"""The misses and false alarms of one risk flag: which samples, and the lines that matter.

Runs an exported tier file (its embedded, calibrated thresholds) over a corpus split, or over a
half of the wild suite (``--suite``), and lists, for one flag, every labelled sample it misses and
every unlabelled sample it flags, with the score, the source and the lines of the window that
mention a secret-like name (or the first bytes when none does). On the wild suite it also counts
positives and misses per template family (``url``, ``password_field``, ...), the reading behind
a recipe change for a flag the model scores low. It scores nothing that
``benchmarks/split_scores.py`` or ``wild.py score`` does not.

    python benchmarks/risk_misses.py runs/content-steady/onnx/content-pro-int8.onnx \\
        --corpus corpus --split val --flag password --out results/password_misses.json
    python benchmarks/risk_misses.py MODEL/pro.onnx --suite W --split dev --flag password
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from picohead.dataset import load_manifest
from picohead_runtime import scoring

NAMES = re.compile(rb"(?i)pass|pwd|secret|cred|token|key|mail|phone|tel|jwt|auth")


def excerpt(raw: bytes, limit: int = 3) -> list[str]:
    """Up to ``limit`` lines naming a secret-like field, else the first 80 bytes."""
    lines = [ln.strip() for ln in raw.split(b"\n") if NAMES.search(ln)][:limit] or [raw[:80]]
    return [ln[:160].decode("utf-8", "backslashreplace") for ln in lines]


def _report(loaded: Any, flag: str, split: str, windows: np.ndarray, lengths: np.ndarray,
            truth: np.ndarray, sources: list[str], groups: list[str] | None = None
            ) -> dict[str, Any]:
    """Score ``windows`` with the tier file and list ``flag``'s misses and false alarms; with
    ``groups`` (one per row), count positives and misses per group too."""
    spec = loaded.meta.spec
    head = next(h for h in spec.heads if h.multilabel)
    j = head.labels.index(flag)  # ValueError names a flag the head does not have
    z = scoring.file_logits(loaded, windows, lengths)[head.name][:, j]
    p = 1 / (1 + np.exp(-z))
    thr = head.threshold_for(flag)
    on = p >= thr

    def rows(sel: np.ndarray) -> list[dict[str, Any]]:
        return [
            {
                "score": round(float(p[i]), 3),
                "source": sources[i],
                "lines": excerpt(windows[i, : lengths[i]].tobytes()),
            }
            for i in sel[np.argsort(p[sel])]
        ]

    doc: dict[str, Any] = {
        "split": split,
        "flag": flag,
        "threshold": thr,
        "positives": int(truth.sum()),
        "missed": rows(np.flatnonzero(truth & ~on)),
        "false_alarms": rows(np.flatnonzero(~truth & on)),
    }
    if groups is not None:
        by: dict[str, dict[str, Any]] = {}
        for g, t, o, score in zip(groups, truth, on, p):
            if t:
                d = by.setdefault(g, {"positives": 0, "missed": 0, "scores": []})
                d["positives"] += 1
                d["missed"] += int(not o)
                d["scores"].append(float(score))
        doc["by_template"] = {g: {"positives": d["positives"], "missed": d["missed"],
                                  "median_score": round(float(np.median(d["scores"])), 3)}
                              for g, d in sorted(by.items())}
    return doc


def misses(model: Path, corpus: Path, split: str, flag: str, cache: Path | None) -> dict[str, Any]:
    """``flag``'s misses and false alarms on a corpus split (rows that carry risk labels)."""
    loaded = scoring.open_file(model)
    spec = loaded.meta.spec
    head = next(h for h in spec.heads if h.multilabel)
    j = head.labels.index(flag)
    data = load_manifest(corpus / f"{split}.jsonl", spec, cache_dir=cache)
    data = data.subset(np.flatnonzero(data.label_mask[head.name]))
    truth = data.labels[head.name][:, j] > 0.5
    doc = _report(loaded, flag, split, data.windows, data.lengths, truth,
                  [str(x) for x in data.sources])
    return {"model": str(model), **doc}


def wild_misses(model: Path, suite: Path, split: str, flag: str) -> dict[str, Any]:
    """``flag``'s misses and false alarms on one half of the wild suite's risk records, with
    positives and misses per template family."""
    from wild_calibration import windows as wild_windows
    from wild_risk_detector import template_family

    from picohead.wild.suite import load_suite

    loaded = scoring.open_file(model)
    recs = load_suite(suite, task="risk", split=split)
    if not recs:
        raise ValueError(f"{suite} has no {split} risk records")
    wins, lengths = wild_windows(suite, recs, loaded.meta.spec.window)
    truth = np.array([flag in r["label"] for r in recs])
    families = [template_family(r) for r in recs]
    doc = _report(loaded, flag, split, wins, lengths, truth,
                  [f"{r['producer']} {f}" for r, f in zip(recs, families)], families)
    return {"model": str(model), "suite": str(suite), **doc}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", type=Path, help="an exported tier file (.onnx)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--corpus", type=Path, help="a built corpus folder")
    src.add_argument("--suite", type=Path, help="a built wild suite (its risk records)")
    ap.add_argument("--split", default=None, choices=("train", "val", "test", "dev"),
                    help="corpus: train/val/test (default val); suite: dev/test (default dev)")
    ap.add_argument("--flag", required=True, help="a label of the model's multilabel head")
    ap.add_argument("--cache", type=Path, default=None, help="window cache (cache/windows)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.suite is not None:
        if args.split not in (None, "dev", "test"):
            ap.error("--suite takes --split dev or test")
        doc = wild_misses(args.model, args.suite, args.split or "dev", args.flag)
    else:
        if args.split == "dev":
            ap.error("--corpus takes --split train, val or test")
        doc = misses(args.model, args.corpus, args.split or "val", args.flag, args.cache)
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(
        f"{doc['flag']} on {doc['split']}: {doc['positives']} labelled, "
        f"{len(doc['missed'])} missed, {len(doc['false_alarms'])} false alarms "
        f"(threshold {doc['threshold']})"
    )
    for kind in ("missed", "false_alarms"):
        for r in doc[kind]:
            print(f"{kind:12s} {r['score']:.3f} {r['source'][:32]:32s} {r['lines'][0][:110]}")
    for g, d in doc.get("by_template", {}).items():
        print(f"template {g:28s} {d['missed']:3d} of {d['positives']:3d} missed, median score "
              f"{d['median_score']:.3f}")


if __name__ == "__main__":
    main()
