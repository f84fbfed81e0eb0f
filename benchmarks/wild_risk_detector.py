"""The corpus's risk detectors on one half of the wild suite: do the training labels cover the
secrets users have?

Every corpus sample's risk flags come from ``picohead.data.risk.detect`` (and the lines the build
plants). A secret the detector cannot read is labelled "no flag" wherever the corpus holds one, so
the model learns to miss it; a model seldom finds what its labels never name. This script runs
``detect`` on each risk record of a wild half and reports, per flag, precision and recall against
the suite's labels, the misses by the suite's template family, and the negatives (look-alikes,
0-16-byte inputs, clean hosts) it flags.

    python benchmarks/wild_risk_detector.py --suite W [--split dev] [--out results/x.json]

What it does not do: score a model (``wild.py score`` does), or change the detector. Read it on
dev: choosing detector forms on test would fit the labels to the yardstick.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from picohead.data.risk import detect  # noqa: E402
from picohead.wild.suite import RISK_FLAGS as FLAGS  # noqa: E402  (the suite's flags)
from picohead.wild.suite import blob, load_suite  # noqa: E402


def template_family(rec: dict[str, Any]) -> str:
    """The family of the template a risk record was planted with (``password_url/yaml`` ->
    ``password_url``)."""
    return str(rec.get("prov", {}).get("template", "?")).split("/")[0]


def check(suite: Path, split: str) -> dict[str, Any]:
    recs = load_suite(suite, task="risk", split=split)
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    missed: dict[str, Counter[str]] = {f: Counter() for f in FLAGS}
    negatives: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    for r in recs:
        found = set(detect(blob(suite, r)))
        truth = set(r["label"])
        for f in FLAGS:
            tp[f] += f in found and f in truth
            fp[f] += f in found and f not in truth
            if f in truth and f not in found:
                fn[f] += 1
                missed[f][template_family(r)] += 1
        if not truth:
            negatives[str(r.get("kind"))] += 1
            flagged[str(r.get("kind"))] += bool(found & set(FLAGS))
    per = {}
    for f in FLAGS:
        p = tp[f] / (tp[f] + fp[f]) if tp[f] + fp[f] else None
        rc = tp[f] / (tp[f] + fn[f]) if tp[f] + fn[f] else None
        per[f] = {"positives": tp[f] + fn[f], "tp": tp[f], "fp": fp[f], "fn": fn[f],
                  "precision": None if p is None else round(p, 3),
                  "recall": None if rc is None else round(rc, 3),
                  "missed_by_template": dict(missed[f].most_common())}
    return {"suite": str(suite), "split": split, "records": len(recs), "flags": per,
            "negatives_flagged": {k: {"n": n, "flagged": flagged[k]} for k, n in sorted(negatives.items())}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--split", default="dev", choices=("dev", "test"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    doc = check(args.suite, args.split)
    if not doc["records"]:
        print(f"wild_risk_detector: no {args.split} risk records in {args.suite}", file=sys.stderr)
        return 2
    for f, v in doc["flags"].items():
        print(f"{f:12s} precision {v['precision']}  recall {v['recall']}  (tp {v['tp']}, fp {v['fp']}, "
              f"fn {v['fn']})  missed: {v['missed_by_template']}")
    print("negatives flagged:", {k: f"{v['flagged']} of {v['n']}" for k, v in doc["negatives_flagged"].items()})
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
