"""Raw top-1 per true label on one half of the wild suite, for model folders side by side.

    python benchmarks/wild_raw.py --suite W --split dev --task mime A/bundle B/bundle \\
        [--labels L1,L2] [--out results/x.json]

For each model folder and tier, the share of the task's records (``mime``, ``code_lang`` or
``text_lang``) whose true label is the head's top-1 label, overall and per true label (MIME names
folded onto the suite's by ``wild_maps``), from each tier file's own onnxruntime session on the
runtime's windows. It is threshold-free: two trials calibrated differently are compared on what
their heads rank first, where ``wild.py score`` reports final answers at each file's thresholds.
With two model folders it also resamples the half's producers with replacement (paired: both
models on the same records) and prints the 5th-95th percentiles of the difference B - A per tier
and the share of resamples where B is ahead; that is the spread over producers, not over training
seeds (a second seed of A measures that).
With ``--task risk`` (multilabel) it reports, per flag and tier, the best F1 over every
threshold of the flag's score on the half's risk records (planted secrets, look-alikes, 0-16-byte
inputs and clean hosts), and the share of look-alikes flagged at that threshold: what the head
ranks, before the calibration's rules switch a flag off or raise its threshold.
What it does not do: choose thresholds or score anchors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from wild_calibration import probabilities, same_fn, truth_of, windows  # noqa: E402

from picohead.calibrate import producer_resampled_means  # noqa: E402
from picohead.wild.score import TASK_HEAD  # noqa: E402
from picohead.wild.suite import load_suite  # noqa: E402
from picohead_runtime import scoring  # noqa: E402
from picohead_runtime.model import resolve_model_path  # noqa: E402

TIERS = ("tiny", "small", "base", "pro")


def raw_top1(model_dir: str, tier: str, suite: Path, task: str, recs: list[dict[str, Any]]
             ) -> dict[str, Any]:
    """Overall and per-label raw top-1 accuracy (%) of one tier file on ``recs``."""
    model = scoring.open_file(resolve_model_path(model_dir, tier))
    spec = model.meta.spec
    head = TASK_HEAD[task]
    probs = probabilities(model, windows(suite, recs, spec.window))
    labels = spec.head(head).labels
    top = probs[spec.head_names.index(head)].argmax(axis=1)
    same = same_fn(task)
    n: Counter[str] = Counter()
    right: Counter[str] = Counter()
    hits = []  # per record, for the paired comparison of two models
    for r, k in zip(recs, top):
        t = truth_of(task, r["label"])
        hit = int(bool(same(labels[int(k)], t)))
        n[t] += 1
        right[t] += hit
        hits.append(hit)
    total = sum(n.values())
    return {"n": total, "hits": hits, "raw_top1": round(100 * sum(right.values()) / max(1, total), 2),
            "in_vocab": sorted({truth_of(task, lab) for lab in labels} & set(n)),
            "per_label": {t: {"n": n[t], "raw_top1": round(100 * right[t] / n[t], 1)}
                          for t in sorted(n)}}


def raw_risk(model_dir: str, tier: str, suite: Path, recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per flag: the best F1 over all thresholds of its score on ``recs`` (risk records), the
    threshold it is reached at, and the % of look-alikes flagged there."""
    model = scoring.open_file(resolve_model_path(model_dir, tier))
    spec = model.meta.spec
    head = TASK_HEAD["risk"]
    probs = probabilities(model, windows(suite, recs, spec.window))[spec.head_names.index(head)]
    look = np.array([r.get("kind") == "lookalike" for r in recs])
    out: dict[str, Any] = {"n": len(recs)}
    for j, flag in enumerate(spec.head(head).labels):
        truth = np.array([flag in r["label"] for r in recs])
        score = probs[:, j]
        best: dict[str, Any] = {"f1": 0.0, "threshold": None, "lookalikes_flagged": None}
        for t in np.unique(score):
            pred = score >= t
            f1 = 2 * int((pred & truth).sum()) / max(1, int(pred.sum()) + int(truth.sum()))
            if f1 > best["f1"]:
                best = {"f1": round(f1, 3), "threshold": round(float(t), 4),
                        "lookalikes_flagged": round(100 * float(pred[look].mean()), 2)
                        if look.any() else None}
        out[flag] = {**best, "positives": int(truth.sum())}
    return out


def paired_bootstrap(a: list[int], b: list[int], producers: list[str], draws: int = 2000
                     ) -> dict[str, float]:
    """B - A in raw top-1 points with the producers drawn with replacement (seeded,
    ``picohead.calibrate.producer_resampled_means``): the mean difference, its 5th and 95th
    percentiles and the share of draws where B is ahead."""
    import numpy as np

    d = np.asarray(b, np.float64) - np.asarray(a, np.float64)
    diff = 100 * producer_resampled_means(d, producers, draws)
    return {"diff": round(100 * float(d.mean()), 2),
            "p5": round(float(np.quantile(diff, 0.05)), 2),
            "p95": round(float(np.quantile(diff, 0.95)), 2),
            "b_ahead": round(float((diff > 0).mean()), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--suite", required=True)
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--task", choices=tuple(TASK_HEAD), default="mime")
    ap.add_argument("--tiers", default=",".join(TIERS))
    ap.add_argument("--labels", default="", help="comma-separated true labels to print")
    ap.add_argument("--out", default=None, help="write everything as JSON here")
    a = ap.parse_args(argv)
    suite = Path(a.suite)
    tiers = a.tiers.split(",")
    from picohead_runtime import PicoheadError

    try:  # a missing tier is named before minutes of scoring start
        for m in a.models:
            for t in tiers:
                resolve_model_path(m, t)
    except PicoheadError as e:
        print(f"wild_raw: {e} (--tiers names the tiers to compare)", file=sys.stderr)
        return 2
    recs = load_suite(suite, task=a.task, split=a.split)
    if a.task == "risk":
        return _report_risk(a, suite, tiers, recs)
    res = {m: {t: raw_top1(m, t, suite, a.task, recs) for t in tiers} for m in a.models}
    print(f"{a.task}, wild {a.split} ({len(recs)} records): raw top-1 %, " + " | ".join(a.models))
    for t in tiers:
        print(f"  {t:5} " + " | ".join(f"{res[m][t]['raw_top1']:6.2f}" for m in a.models))
    hits = {m: {t: r.pop("hits") for t, r in by_tier.items()} for m, by_tier in res.items()}
    paired = {}
    if len(a.models) == 2:
        A, B = a.models
        for t in tiers:
            paired[t] = paired_bootstrap(hits[A][t], hits[B][t], [r["producer"] for r in recs])
            p = paired[t]
            print(f"  {t:5} B - A {p['diff']:+.2f} (producer bootstrap 5th-95th {p['p5']:+.2f} "
                  f"to {p['p95']:+.2f}; B ahead in {100 * p['b_ahead']:.1f} %)")
    for lab in filter(None, a.labels.split(",")):
        cells = []
        for m in a.models:
            cells.append(" ".join(f"{res[m][t]['per_label'].get(lab, {}).get('raw_top1', '-')}"
                                  for t in tiers))
        n = res[a.models[0]][tiers[0]]["per_label"].get(lab, {}).get("n", 0)
        print(f"  {lab} (n={n}): " + " | ".join(cells))
    if a.out:
        Path(a.out).write_text(json.dumps({"suite": str(suite), "split": a.split, "task": a.task,
                                           "command": " ".join(sys.argv), "models": res,
                                           "paired": paired},
                                          indent=1) + "\n")
    return 0


def _report_risk(a: argparse.Namespace, suite: Path, tiers: list[str],
                 recs: list[dict[str, Any]]) -> int:
    res = {m: {t: raw_risk(m, t, suite, recs) for t in tiers} for m in a.models}
    flags = [k for k in res[a.models[0]][tiers[0]] if k != "n"]
    print(f"risk, wild {a.split} ({len(recs)} records): best F1 per flag over every threshold "
          "(look-alikes flagged there, %), " + " | ".join(a.models))
    for t in tiers:
        for f in flags:
            cells = [f"{res[m][t][f]['f1']:.3f} ({res[m][t][f]['lookalikes_flagged']})"
                     for m in a.models]
            print(f"  {t:5} {f:12} " + " | ".join(cells))
    if a.out:
        Path(a.out).write_text(json.dumps({"suite": str(suite), "split": a.split, "task": "risk",
                                           "command": " ".join(sys.argv), "models": res},
                                          indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
