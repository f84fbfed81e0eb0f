"""Yield of the short-text word lists: producers and samples per language, on the real packages.

    python benchmarks/word_counts.py --cache /work/corpus-run/cache [--words picohead/recipes/content/words.json]
        [--out benchmarks/results/word_counts.json]

Fetches every entry of the words recipe file through the builder's client and cache
(``picohead.data.fetch``), harvests it with the builder's rules into a temporary blob store and
reports, per ``text_lang`` label: the producers (packages) that gave samples, samples per producer,
the total, the share of one- and two-word samples, and the labels under two producers or under the
1,500-sample aim. It does not cap per label, dedup across producers or split; the build does.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from picohead.data.fetch import FetchError, fetch
from picohead.data.harvest import harvest
from picohead.data.recipe import check_recipe
from picohead.data.store import BlobStore

ROOT = Path(__file__).resolve().parents[1]
AIM = 1500


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--words", type=Path, default=ROOT / "picohead/recipes/content/words.json")
    ap.add_argument("--spec", type=Path, default=ROOT / "picohead/recipes/content/spec.json")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    data = json.loads(a.words.read_text(encoding="utf-8"))
    check_recipe({"sources": data["sources"]}, a.words)
    spec = json.loads(a.spec.read_text(encoding="utf-8"))
    labels = {h["name"]: set(h["labels"]) for h in spec["heads"]}
    per: dict[str, Counter[str]] = defaultdict(Counter)
    nwords: dict[str, Counter[int]] = defaultdict(Counter)
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = BlobStore(Path(tmp))
        for e in data["sources"]:
            src = f"{e['kind']}:{e['name']}"
            try:
                f = fetch(a.cache, e["kind"], e["name"], e.get("version"), sdist=bool(e.get("sdist")))
            except (FetchError, OSError) as err:
                failed[src] = str(err)[:200]
                continue
            for r in harvest(e, f.root, f.version, store, default_cap=800, cuts_per_file=0,
                             spec_labels=labels):
                lang = r["labels"]["text_lang"]
                per[lang][src] += 1
                text = (Path(tmp) / r["path"]).read_text(encoding="utf-8")
                nwords[lang][len(text.split()) if lang not in ("zh", "ja", "th") else 0] += 1
    rows = {}
    for lang in sorted(labels["text_lang"]):
        c = per.get(lang, Counter())
        n = sum(c.values())
        rows[lang] = {"producers": len(c), "samples": n, "per_producer": dict(sorted(c.items())),
                      "one_word": nwords[lang][1], "two_words": nwords[lang][2]}
    report = {"languages": rows, "failed": failed,
              "under_two_producers": [k for k, v in rows.items() if v["producers"] < 2],
              "under_aim": [k for k, v in rows.items() if v["samples"] < AIM],
              "total": sum(v["samples"] for v in rows.values())}
    print(f"{'lang':5} {'prod':>4} {'samples':>7}  producers")
    for lang, v in rows.items():
        print(f"{lang:5} {v['producers']:4d} {v['samples']:7d}  "
              + ", ".join(f"{p.split(':', 1)[1]}={n}" for p, n in v["per_producer"].items()))
    print(f"total {report['total']}; under 2 producers: {report['under_two_producers']}; "
          f"under {AIM}: {report['under_aim']}; failed: {sorted(failed)}")
    if a.out:
        a.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
