"""Two wild-suite score results side by side: the headline figures per task and tier.

    python benchmarks/wild_diff.py BEFORE.json AFTER.json [--out results/x.md]

Reads what ``benchmarks/wild.py score`` wrote (same suite and split, else it refuses) and prints,
per tier, MIME / code / text accuracy (raw top-1, confident-wrong), text accuracy per length, and
risk weakest / macro F1 with the look-alike and 0-16-byte flag shares. What it does not do: score
anything (both files come from runs of ``wild.py score``) or test significance.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def headline(res: dict[str, Any], tier: str) -> dict[str, Any]:
    t = res["tasks"]
    out: dict[str, Any] = {}
    for task in ("mime", "code_lang", "text_lang"):
        p = t.get(task, {}).get("picohead", {}).get(tier)
        if p:
            out[task] = f"{p['accuracy']} ({p['raw_top1']} / {p['confident_wrong']})"
    p = t.get("text_lang", {}).get("picohead", {}).get(tier, {})
    if "by_kind" in p:
        out["text by length"] = ", ".join(f"{k} {v.get('accuracy')}"
                                          for k, v in sorted(p["by_kind"].items()))
    r = t.get("risk", {}).get("picohead", {}).get(tier)
    if r:
        neg = r["negatives_flagged"]
        out["risk"] = (f"{r['weakest_f1']} / {r['macro_f1']}; look-alikes {neg['lookalike']['share']}"
                       f" %, tiny {neg['tiny']['share']} %")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--out")
    args = ap.parse_args()
    a, b = (json.loads(Path(p).read_text()) for p in (args.before, args.after))
    if (a["split"], a["records"]) != (b["split"], b["records"]):
        print(f"wild_diff: different halves or suites ({a['split']} {a['records']} vs "
              f"{b['split']} {b['records']} records)", file=sys.stderr)
        return 2
    L = [f"Wild suite, {a['split']} half ({a['records']} records): {a['model']} -> {b['model']}. "
         "Accuracy % (raw top-1 / confident-wrong); risk: weakest / macro F1.", "",
         "| tier | field | before | after |", "|---|---|---|---|"]
    for tier in b["tiers"]:
        ha, hb = headline(a, tier), headline(b, tier)
        for k in hb:
            L.append(f"| {tier} | {k} | {ha.get(k, '-')} | {hb[k]} |")
    md = "\n".join(L) + "\n"
    if args.out:
        Path(args.out).write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
