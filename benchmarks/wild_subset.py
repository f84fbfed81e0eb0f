"""The records of partly built wild suites that the full suite would put in one half.

    python benchmarks/wild_subset.py --suite WILD_NC --suite WILD_CODE_PART --half dev --out SUB

A session that cannot fetch every pinned repository builds the suite in parts (for example every
task but code, and code from a few of its repositories). Each part splits its own projects into
dev and test (``picohead.wild.suite.assign_splits``), and those halves differ from the full
suite's: projects are dealt per label in hash order, so which projects a label has decides the
split, and a project that is both a code and a risk host keeps one half everywhere. Choosing on a
part's own dev half can therefore look at records the full suite keeps for test.

This predicts the full suite's halves instead: it deals the parts' own records plus one record
per pinned entry and take rule of the code recipes (``picohead/recipes/wild/code_*.json``, whose
files the parts may lack) with the suite's own ``assign_splits``, and keeps the records that
fall in ``--half`` in that prediction, whatever their part said. The prediction is exact for every
label the parts hold all projects of; for code labels it assumes every take rule of every pinned
code entry yields files (a rule that yields none in the full build can move other projects).
Projects in the committed ``benchmarks/wild_splits.json`` keep the half it gives them, as in
the full build. ``SUB`` is a suite folder (``manifest.jsonl`` with every record in ``--half``, ``card.json``, and
the parts' ``blobs`` linked) that ``benchmarks/wild.py score --suite SUB --split HALF`` reads.

What it does not do: build or fetch anything, or stand in for the full suite's report (figures on
a subset are for choosing between models, and say so).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from wild import SPLITS_FILE

from picohead.data.producers import project_of, wild_recipes
from picohead.wild.suite import assign_splits, read_splits, write_manifest


def code_plan() -> list[dict[str, Any]]:
    """One record (task, label, project) per pinned code entry and take rule."""
    out = []
    for stem, d in wild_recipes().items():
        if not stem.startswith("code"):
            continue
        for e in d.get("sources", []):
            key = f"git:{e['repo']}" if e.get("kind") == "git" else f"{e['kind']}:{e['name']}"
            project = project_of(key, e.get("project"))
            for t in e.get("take", []):
                out.append({"task": "code_lang", "label": t.get("label") or t.get("code"),
                            "project": project, "kind": None})
    return out


def subset(parts: list[list[dict[str, Any]]], half: str,
           pinned: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The records of ``parts`` that the predicted full split puts in ``half`` (their split set
    to it); ``pinned``: the full build's pinned halves (``wild.py build --splits``)."""
    plan = [{k: r[k] for k in ("task", "label", "kind", "project")} for p in parts for r in p]
    predicted = assign_splits(plan + code_plan(), pinned)
    return [{**r, "split": half} for p in parts for r in p if predicted[r["project"]] == half]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="append", required=True, help="a built (partial) suite")
    ap.add_argument("--half", choices=("dev", "test"), default="dev")
    ap.add_argument("--out", required=True, help="folder to write (a suite folder)")
    ap.add_argument("--splits", default=str(SPLITS_FILE) if SPLITS_FILE.is_file() else "",
                    help="the pinned halves the full build keeps (default: the committed "
                         "benchmarks/wild_splits.json when present; '' for none)")
    args = ap.parse_args()
    try:
        pinned = read_splits(Path(args.splits)) if args.splits else None
    except ValueError as e:
        print(f"wild_subset: {e}", file=sys.stderr)
        return 2
    parts = []
    for s in args.suite:
        m = Path(s) / "manifest.jsonl"
        if not m.is_file():
            print(f"wild_subset: {s} holds no manifest.jsonl (build it with wild.py build)",
                  file=sys.stderr)
            return 2
        parts.append([json.loads(line) for line in m.read_text(encoding="utf-8").splitlines()])
    keep = subset(parts, args.half, pinned)
    out = Path(args.out)
    (out / "blobs").mkdir(parents=True, exist_ok=True)
    kept = {(r["task"], r["id"]) for r in keep}
    for s, p in zip(args.suite, parts):  # link every kept record's blob into SUB/blobs
        for r in p:
            if (r["task"], r["id"]) in kept:
                dst = out / r["path"]
                dst.parent.mkdir(parents=True, exist_ok=True)
                if not dst.exists():
                    os.symlink((Path(s) / r["path"]).resolve(), dst)
    write_manifest(out, keep)
    counts = Counter(r["task"] for r in keep)
    moved = Counter(r["task"] for p in parts for r in p if r["split"] != args.half
                    and (r["task"], r["id"]) in kept)
    left = Counter(r["task"] for p in parts for r in p if r["split"] == args.half
                   and (r["task"], r["id"]) not in kept)
    (out / "card.json").write_text(json.dumps(
        {"subset_of": args.suite, "half": args.half, "records": dict(counts),
         "other_half_in_their_part": dict(moved), "left_out_this_half_in_their_part": dict(left)},
        indent=1) + "\n")
    print(f"{out}: {dict(counts)} in {args.half}; of them in the other half of their part: "
          f"{dict(moved)}; left out though in {args.half} in their part: {dict(left)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
