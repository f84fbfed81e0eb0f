"""Expected yield of picohead/recipes/content/real_formats.json from package listings: files and
producers per MIME label, without unpacking anything.

For every ``deb`` entry of the include file this lists the package's data tarball
(``dpkg-deb -c`` of the ``.deb`` in the download folder; ``apt-get download`` into it when missing,
or a saved listing from ``--lists``) and applies the entry's take rules by path exactly as
``picohead.data.harvest`` does (``Rule.matches_path``, the reserved-path filter; empty files left
out), each rule capped at its ``cap`` (or the recipe's ``cap_per_source_label``). Files over
``MAX_READ`` count (the harvester reads their head), and are reported per label as ``big``.
It prints, per MIME label, the files the rules would take, the packages that give any, the largest
package's share, and the label's producers in the last corpus card (``--card``) for comparison.

What it does not do: check ``magic`` (a listing has no bytes, so a rule's magic prefix is assumed
to hold -- a file whose bytes do not start with it is dropped at build time, so these counts are an
upper bound), read ``inner`` zip members, deduplicate by content, or count generator samples.

    python benchmarks/real_formats_counts.py --dl /work/corpus-run/cache/dl/deb \
        [--lists DIR] [--card /work/corpus-v2/card.json] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from picohead.data.harvest import MAX_READ, Rule  # noqa: E402
from picohead.data.recipe import load_recipe, reserved_path  # noqa: E402


def parse_listing(text: str) -> list[tuple[str, int]]:
    """(relative path, size) of every regular file in ``dpkg-deb -c`` output."""
    out = []
    for line in text.splitlines():
        if not line.startswith("-"):
            continue  # directories, symlinks ("l"), hard links ("h")
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        path = parts[5]
        if " link to " in path:
            continue
        out.append((path[2:] if path.startswith("./") else path.lstrip("/"), int(parts[2])))
    return out


def listing(name: str, dl: Path, lists: Path | None) -> list[tuple[str, int]] | None:
    """The package's file list: a saved listing, else the .deb in ``dl`` (downloaded if absent)."""
    if lists is not None and (lists / f"{name}.txt").is_file():
        return parse_listing((lists / f"{name}.txt").read_text(encoding="utf-8"))
    hits = sorted(dl.glob(f"{name}_*.deb"))
    if not hits:
        subprocess.run(["apt-get", "download", "-q", name], cwd=dl, capture_output=True, timeout=600)
        hits = sorted(dl.glob(f"{name}_*.deb"))
    if not hits:
        return None
    r = subprocess.run(["dpkg-deb", "-c", str(hits[-1])], capture_output=True, text=True)
    return parse_listing(r.stdout) if r.returncode == 0 else None


def count_entry(entry: dict[str, Any], files: list[tuple[str, int]], default_cap: int
                ) -> dict[str, int]:
    """Files each MIME label would get from one entry by path (rules capped like the builder)."""
    rules = [Rule(r) for r in entry["take"] if "mime" in r]
    matched: Counter[int] = Counter()
    big: Counter[int] = Counter()
    for rel, size in files:
        if reserved_path(rel) or size == 0:
            continue
        for i, r in enumerate(rules):
            if r.matches_path(rel):
                matched[i] += 1
                big[i] += size > MAX_READ
    per_label: Counter[str] = Counter()
    for i, r in enumerate(rules):
        per_label[r.d["mime"]] += min(matched[i], r.cap or default_cap)
        per_label["big:" + r.d["mime"]] += min(big[i], r.cap or default_cap)
    return {k: v for k, v in per_label.items() if v}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dl", type=Path, required=True, help="folder of .deb files (downloads go here)")
    ap.add_argument("--lists", type=Path, help="folder of saved `dpkg-deb -c` listings, NAME.txt")
    ap.add_argument("--include", type=Path,
                    default=ROOT / "picohead" / "recipes" / "content" / "real_formats.json")
    ap.add_argument("--card", type=Path, help="a corpus card.json: show its producers per label")
    ap.add_argument("--json", type=Path, help="write the per-label table here")
    a = ap.parse_args(argv)
    recipe = load_recipe("content")
    default_cap = int(recipe.setting("cap_per_source_label", 700))
    entries = json.loads(a.include.read_text(encoding="utf-8"))["sources"]
    before: dict[str, Any] = {}
    if a.card:
        before = json.loads(a.card.read_text(encoding="utf-8")).get("producers", {}).get("mime", {})
    files: Counter[str] = Counter()
    by_pkg: dict[str, Counter[str]] = defaultdict(Counter)
    bigs: Counter[str] = Counter()
    missing: list[str] = []
    for e in entries:
        if e["kind"] != "deb":
            continue
        lst = listing(e["name"], a.dl, a.lists)
        if lst is None:
            missing.append(e["name"])
            continue
        for label, n in count_entry(e, lst, default_cap).items():
            if label.startswith("big:"):
                bigs[label[4:]] += n
                continue
            files[label] += n
            by_pkg[label][e["name"]] += n
    rows = []
    for label in sorted(files):
        pk = by_pkg[label]
        top, topn = pk.most_common(1)[0]
        rows.append({"label": label, "files": files[label], "packages": len(pk), "top": top,
                     "top_share": round(topn / files[label], 3), "big": bigs[label],
                     "card_producers": before.get(label, {}).get("producers_total")})
    print("magic prefixes are not checked (listings carry no bytes): file counts are upper bounds;")
    print(f"big = files over MAX_READ ({MAX_READ} bytes), of which the harvester reads the head only")
    print(f"{len(entries)} entries; packages per label = producers this include file adds")
    print(f"{'label':36} {'files':>6} {'big':>4} {'pkgs':>5} {'top%':>5} {'card':>5}  top package")
    for r in rows:
        card = "" if r["card_producers"] is None else str(r["card_producers"])
        print(f"{r['label']:36} {r['files']:6d} {r['big']:4d} {r['packages']:5d} {100 * r['top_share']:5.1f} "
              f"{card:>5}  {r['top']}")
    if missing:
        print(f"not found ({len(missing)}): {', '.join(missing)}")
    if a.json:
        a.json.write_text(json.dumps({"labels": rows, "missing": missing}, indent=1) + "\n",
                          encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
