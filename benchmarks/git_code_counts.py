"""Count what a recipe's ``git`` entries yield from a mirror folder, without building a corpus.

For every ``git`` entry of the recipe (``picohead/recipes/content`` and its include files by
default) it lists the files of the pinned commit in the mirror folder (``picohead.data.gitmirror``),
applies the entry's ``take`` rules by path (``Rule.matches_path``, the reserved-path filter the
harvester applies) and reports, per ``code`` label, how many repositories feed it, how many files
match and how many the rule caps let through (at most ``cap`` per rule). With ``--read`` it also
reads the files it would take and drops those the harvester would not keep as text (binary bytes,
empty files), so the count is what harvesting yields before any window cuts.

What it does not do: fetch mirrors (see ``python -m picohead data clone-list``), write a corpus, or
deduplicate content across repositories (the builder does that by hash).

    python benchmarks/git_code_counts.py --mirrors /work/.mirror [--recipe content] [--read] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


def entry_counts(entry: dict[str, Any], mirrors: Path, read: bool = False) -> dict[str, Any]:
    """Matched and taken file counts of one git entry, by code label."""
    from picohead.data.gitmirror import open_mirror
    from picohead.data.harvest import Rule
    from picohead.data.recipe import reserved_path
    from picohead_runtime.windows import looks_text

    m = open_mirror(mirrors, entry["repo"])
    rows = [r for r in m.files(m.resolve(entry["commit"]), entry.get("paths") or [])
            if not reserved_path(r[0])]
    out: dict[str, Any] = {}
    for rd in entry["take"]:
        rule = Rule(rd)
        label = rd.get("code") or rd.get("text") or rd.get("format") or "?"
        hits = [r for r in rows if rule.matches_path(r[0]) and r[2] > 0]
        cap = rule.cap or 700
        taken = hits
        if read:
            rng = random.Random(entry["repo"])
            pool = hits[:]
            rng.shuffle(pool)
            pool = pool[: cap * 2]
            data = dict(m.read([o for _, o, _ in pool]))
            taken = [r for r in pool if looks_text(data[r[1]])]
        c = out.setdefault(label, {"matched": 0, "taken": 0})
        c["matched"] += len(hits)
        c["taken"] += min(len(taken), cap)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of bare mirrors (owner+name)")
    ap.add_argument("--recipe", default="content", help="recipe name or folder")
    ap.add_argument("--read", action="store_true", help="read the taken files and keep text only")
    ap.add_argument("--json", action="store_true", help="print the per-label table as JSON")
    a = ap.parse_args(argv)

    from picohead.data.gitmirror import MirrorError
    from picohead.data.recipe import load_recipe

    entries = [e for e in load_recipe(a.recipe).entries if e["kind"] == "git"]
    labels: dict[str, dict[str, Any]] = defaultdict(lambda: {"repos": 0, "matched": 0, "taken": 0})
    missing: list[str] = []
    for e in entries:
        try:
            counts = entry_counts(e, a.mirrors, read=a.read)
        except MirrorError as err:
            missing.append(f"{e['repo']}: {err}")
            continue
        for label, c in counts.items():
            row = labels[label]
            row["repos"] += c["taken"] > 0
            row["matched"] += c["matched"]
            row["taken"] += c["taken"]
    table = dict(sorted(labels.items()))
    if a.json:
        print(json.dumps({"entries": len(entries), "labels": table, "missing": missing}, indent=1))
    else:
        print(f"{'label':<12} {'repos':>5} {'matched':>8} {'taken':>6}")
        for label, row in table.items():
            print(f"{label:<12} {row['repos']:>5} {row['matched']:>8} {row['taken']:>6}")
        print(f"{len(entries)} git entries, {len(missing)} without a mirror")
        for line in missing:
            print(f"  missing {line}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
