"""How sure is a ship-rule win? A producer bootstrap of the dev-mean difference of two model folders.

``benchmarks/ship_rule.py`` ranks two candidates on one tier by the mean of four wild-dev figures
(MIME, code-language and text-language right minus confident-wrong answers, rule 5; 100 x the
risk head's macro F1). ``--right-only`` counts right answers alone, as the rule did up to
content-v18; the output says which (``figures``), and the rule checks it. A win by a
fraction of a point can be noise: content-v12's small won by 0.47 points on dev and lost on
test. This script scores both folders' tier files on the dev half through the runtime, exactly as
``wild.py score`` does (the same answers, the same folding of MIME names, the same risk metric),
then resamples the half's projects (the unit the halves are split by) with replacement and
reports the difference of the mean (B minus A) on the full half, its 5th and 95th percentiles,
and the share of resamples in which B ranks higher.

    python benchmarks/ship_margin.py --suite W --tier small A_FOLDER B_FOLDER [--n 1000] [--out F]

``ship_rule.py --margin TIER=OUT`` reads the output (rule 4, since 2026-12-06): a challenger that
leads the shipped folder (A) wins a tier only if the 5th percentile is above 0.

What it does not do: choose (the ship rule does), score the test half, or score anchors.
Robustness gates are ``ship_rule.py``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from wild import softmax_rows  # noqa: E402

from picohead.wild.metrics import NO_ANSWER, is_generic  # noqa: E402
from picohead.wild.score import predict  # noqa: E402
from picohead.wild.suite import RISK_FLAGS as FLAGS  # noqa: E402  (the suite's flags, in its order)
from picohead.wild.suite import load_suite  # noqa: E402
from picohead_runtime import Classifier  # noqa: E402

SOFTMAX_TASKS = ("mime", "code_lang", "text_lang")


def worth(row: dict[str, Any], right_only: bool = False) -> float:
    """A softmax row's share in the rule's figure: 1 right, -1 confident-wrong (0 with
    ``right_only``), 0 unanswered or a family fallback (``picohead.wild.metrics``' definitions)."""
    if row["final"] == row["truth"]:
        return 1.0
    if right_only or row["final"] in NO_ANSWER or is_generic(row):
        return 0.0
    return -1.0


def outcomes(model: str, tier: str, suite: Path, recs: dict[str, list[dict[str, Any]]],
             right_only: bool = False) -> dict[str, np.ndarray]:
    """Per record: its ``worth`` for the softmax tasks; for risk, [records, flags] arrays of
    truth and flags raised."""
    clf = Classifier(model, tier=tier)
    out: dict[str, np.ndarray] = {}
    for task in SOFTMAX_TASKS:
        rows = softmax_rows(task, recs[task], predict(clf, suite, recs[task]))
        out[task] = np.array([worth(r, right_only) for r in rows], dtype=np.float64)
    answers = predict(clf, suite, recs["risk"])
    out["risk_truth"] = np.array([[f in r["label"] for f in FLAGS] for r in recs["risk"]])
    out["risk_flags"] = np.array([[f in a["flags"] for f in FLAGS] for a in answers])
    return out


def mean_figure(o: dict[str, np.ndarray], w: dict[str, np.ndarray]) -> np.ndarray:
    """The ship rule's mean for each resample: ``w[task]`` is [resamples, records] weights."""
    acc = [100 * (w[t] @ o[t]) / np.maximum(w[t].sum(axis=1), 1e-9) for t in SOFTMAX_TASKS]
    truth, flags = o["risk_truth"], o["risk_flags"]
    tp = w["risk"] @ (truth & flags)
    fp = w["risk"] @ (~truth & flags)
    fn = w["risk"] @ (truth & ~flags)
    f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1e-9), 0.0)
    has = (w["risk"] @ truth) > 0  # flags with positives in the resample (risk_scores' rule)
    macro = (f1 * has).sum(axis=1) / np.maximum(has.sum(axis=1), 1)
    return (sum(acc) + 100 * macro) / 4


def margin(a: dict[str, np.ndarray], b: dict[str, np.ndarray],
           projects: dict[str, list[str]], n: int, seed: int = 0) -> dict[str, Any]:
    """The difference B - A of the mean on the full half and over ``n`` project resamples."""
    names = sorted({p for ps in projects.values() for p in ps})
    index = {p: i for i, p in enumerate(names)}
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(names), np.full(len(names), 1 / len(names)), size=n)
    full = np.ones((1, len(names)))
    w_full, w_boot = {}, {}
    for task, ps in projects.items():
        col = np.array([index[p] for p in ps], dtype=np.intp)
        w_full[task], w_boot[task] = full[:, col], draws[:, col].astype(np.float64)
    mean_a, mean_b = float(mean_figure(a, w_full)[0]), float(mean_figure(b, w_full)[0])
    d = mean_figure(b, w_boot) - mean_figure(a, w_boot)
    return {"difference": round(mean_b - mean_a, 2),
            "p5": round(float(np.percentile(d, 5)), 2), "p95": round(float(np.percentile(d, 95)), 2),
            "b_higher_share": round(float((d > 0).mean()), 3), "resamples": n,
            "projects": len(names), "mean_a": round(mean_a, 2), "mean_b": round(mean_b, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="model folder A (list the shipped one first)")
    ap.add_argument("b", help="model folder B")
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--tier", required=True)
    ap.add_argument("--split", default="dev", choices=("dev",))
    ap.add_argument("--n", type=int, default=1000, help="resamples")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--right-only", action="store_true",
                    help="right answers alone, not net of wrong ones (as ship_rule --right-only)")
    args = ap.parse_args(argv)
    recs = {t: load_suite(args.suite, task=t, split=args.split) for t in (*SOFTMAX_TASKS, "risk")}
    if not all(recs.values()):
        print(f"ship_margin: {args.suite} has no {args.split} records for every task", file=sys.stderr)
        return 2
    projects = {t: [str(r.get("project") or r["producer"]) for r in rs] for t, rs in recs.items()}
    doc = {"a": args.a, "b": args.b, "tier": args.tier, "split": args.split,
           "figures": "right" if args.right_only else "right minus wrong",
           **margin(outcomes(args.a, args.tier, args.suite, recs, args.right_only),
                    outcomes(args.b, args.tier, args.suite, recs, args.right_only),
                    projects, args.n)}
    print(json.dumps(doc))
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
