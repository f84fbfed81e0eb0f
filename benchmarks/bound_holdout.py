"""Does a wrong-answer bound chosen on some producers hold on others? A dev-only check of how
``wild_calibration.py`` enforces ``--max-wrong``.

    python benchmarks/bound_holdout.py --suite wild --out benchmarks/results/bound_holdout/pro.json

The wild suite's dev half is split by producer into two halves ``--splits`` times (seeded; a
producer's half is drawn from a hash of its name and the split's number). Each time the first
half calibrates the tier's head exactly as ``wild_calibration.calibrate_task`` does (one threshold
with MIME's generic fallbacks, then per-label thresholds cross-fitted over the first half's
producers, the better written) with the bound checked on the point estimate of the wrong share
(``none``, how content-v14 was calibrated) or on an upper percentile of it over that half's
producers resampled with replacement (``picohead.calibrate.producer_upper``), and the second half,
whose producers the calibration never saw, shows what the written thresholds answer. The report
gives, per method, how often the second half's wrong share stays within the bound, its mean and
worst, and the mean right (+ half of right-generic) answers it costs.

What it does not do: look at the test half, or say how the bound behaves on the whole dev half
(each calibration here sees half of dev's producers, so its estimates are noisier than the
shipped calibration's; the hold rates are a conservative reading).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import wild_calibration as wc  # noqa: E402

from picohead.calibrate import GENERIC_WORTH, shift_outcomes  # noqa: E402
from picohead.wild.score import TASK_HEAD  # noqa: E402
from picohead.wild.suite import load_suite  # noqa: E402
from picohead_runtime import scoring  # noqa: E402
from picohead_runtime.model import resolve_model_path  # noqa: E402


def half_of(producer: str, split: int) -> int:
    return int(hashlib.sha256(f"{split}:{producer}".encode()).hexdigest()[:8], 16) % 2


def method_name(q: float | None) -> str:
    return "point" if q is None else f"upper{int(round(100 * q))}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--model", default=None, help="model folder (default: the bundled model)")
    ap.add_argument("--tiers", default="pro")
    ap.add_argument("--tasks", default="mime,code_lang")
    ap.add_argument("--max-wrong", type=float, default=2.0)
    ap.add_argument("--quantiles", default="none,0.8,0.9,0.95",
                    help="methods: 'none' (the point estimate) or percentiles of the bootstrap")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    suite = Path(args.suite)
    qs = [None if q == "none" else float(q) for q in args.quantiles.split(",")]
    out: dict[str, Any] = {"command": " ".join(sys.argv), "max_wrong": args.max_wrong,
                           "splits": args.splits, "results": {}}
    t0 = time.time()
    for tier in args.tiers.split(","):
        model = scoring.open_file(resolve_model_path(args.model, tier))
        spec = model.meta.spec
        for task in args.tasks.split(","):
            recs = load_suite(suite, task=task, split="dev")
            truth = [wc.truth_of(task, r["label"]) for r in recs]
            fam = wc.family_fn(task, suite, recs)
            probs = wc.probabilities(model, wc.windows(suite, recs, spec.window))
            groups = wc.fold_groups(task, recs)
            head, same = TASK_HEAD[task], wc.same_fn(task)
            runs: dict[str, list[dict[str, Any]]] = {method_name(q): [] for q in qs}
            for k in range(args.splits):
                side = np.array([half_of(r["producer"], k) for r in recs])
                a, b = np.flatnonzero(side == 0), np.flatnonzero(side == 1)
                if not len(a) or not len(b):  # a split that leaves a half empty says nothing
                    continue
                P = {"dev": [p[a] for p in probs], "report": [p[b] for p in probs]}
                T = {"dev": [truth[i] for i in a], "report": [truth[i] for i in b]}
                for q in qs:
                    row, final = wc.calibrate_task(spec, task, P, T, fam, args.max_wrong,
                                                   [groups[i] for i in a], None, q)
                    held = shift_outcomes(final, head, P["report"], T["report"], same, fam)
                    runs[method_name(q)].append({
                        "split": k, "calibrated_rows": len(a), "held_out_rows": len(b),
                        "written": row["written"], "held_out": held})
                print(f"{tier} {task} split {k}: " + ", ".join(
                    f"{m} {v[-1]['held_out']['wrong']}" for m, v in runs.items())
                    + f" ({time.time() - t0:.0f} s)", file=sys.stderr)
            summary = {}
            for m, v in runs.items():
                if not v:
                    continue
                wrong = np.array([x["held_out"]["wrong"] for x in v])
                useful = np.array([x["held_out"]["right"]
                                   + GENERIC_WORTH * x["held_out"]["generic_right"] for x in v])
                summary[m] = {"held": int((wrong <= args.max_wrong).sum()), "of": len(v),
                              "wrong_mean": round(float(wrong.mean()), 2),
                              "wrong_max": round(float(wrong.max()), 2),
                              "right_mean": round(float(np.mean(
                                  [x["held_out"]["right"] for x in v])), 2),
                              "useful_mean": round(float(useful.mean()), 2)}
            out["results"].setdefault(tier, {})[task] = {"dev_rows": len(recs),
                                                         "producers": len(set(groups)),
                                                         "summary": summary, "runs": runs}
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    L = [f"Bound of {args.max_wrong} % wrong, calibrated on one half of wild-dev's producers and "
         f"read on the other, {args.splits} splits: held (splits within the bound) / mean wrong "
         "/ worst wrong / mean right / mean useful (right + half of right-generic), % of the "
         "held-out half's samples.", "",
         "| tier | task | method | held | wrong mean | wrong max | right mean | useful mean |",
         "|---|---|---|---|---|---|---|---|"]
    for tier, d in out["results"].items():
        for task, x in d.items():
            for m, s in x["summary"].items():
                L.append(f"| {tier} | {task} | {m} | {s['held']}/{s['of']} | {s['wrong_mean']} "
                         f"| {s['wrong_max']} | {s['right_mean']} | {s['useful_mean']} |")
    md = "\n".join(L) + "\n"
    Path(args.out).with_suffix(".md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
