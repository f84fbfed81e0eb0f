"""Yield of picohead/recipes/content/mime_v2.json without a corpus build: files and producers per label.

For every entry of the include file this reads the package the builder would read (a ``.deb``
from a download folder, ``apt-get download`` into it when missing; a Debian source package's
tarballs from the cache's ``debsrc/<name>/`` folder), streams the members of its data tarball,
and applies the entry's take rules exactly as ``picohead.data.harvest`` does (``Rule.matches_path``,
``gunzip``, ``Rule.matches_data``), each rule capped like the builder (its ``cap`` or the recipe's
``cap_per_source_label``). It prints, per MIME label, the files taken, the packages (producers)
that gave any, and the largest producer's share, and flags labels under ``min_per_split.train``
+ val + test or under 20 producers. ``--json`` writes the same as a file.

What it does not do: build, deduplicate by content, or count generator samples (their yield is
``per_generator`` in the recipe settings); a file taken by two rules counts for each.

    python benchmarks/mime_v2_counts.py --dl /work/corpus-run/cache/dl/deb \
        --debsrc /work/corpus-run/cache/dl/debsrc [--json out.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tarfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from picohead.data.harvest import MAX_READ, Rule  # noqa: E402
from picohead.data.recipe import load_recipe, reserved_path  # noqa: E402


def _deb_file(dl: Path, name: str) -> Path | None:
    hits = sorted(dl.glob(f"{name}_*.deb"))
    if hits:
        return hits[-1]
    r = subprocess.run(["apt-get", "download", name], cwd=dl, capture_output=True, timeout=600)
    hits = sorted(dl.glob(f"{name}_*.deb"))
    return hits[-1] if r.returncode == 0 and hits else None


def _deb_members(deb: Path):
    """(relative path, reader) of every regular file in a .deb's data tarball."""
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert p.stdout is not None
    with tarfile.open(fileobj=p.stdout, mode="r|*") as tf:
        for m in tf:
            if m.isfile():
                yield m.name.lstrip("./"), tf, m
    p.wait()


def _src_members(folder: Path):
    """Members of a source package's tarballs, named as ``dpkg-source -x`` lays them out."""
    for tb in sorted(folder.glob("*.tar.*")):
        if tb.name.endswith(".asc"):
            continue
        with tarfile.open(tb, mode="r|*") as tf:
            for m in tf:
                if not m.isfile():
                    continue
                parts = m.name.lstrip("./").split("/")
                rel = "/".join(parts if parts[0] == "debian" else parts[1:])
                yield rel, tf, m


def count_entry(entry: dict[str, Any], members, default_cap: int) -> dict[str, int]:
    """Files each label would get from one entry (rules capped like the builder)."""
    rules = [Rule(r) for r in entry["take"]]
    taken: Counter[int] = Counter()
    per_label: Counter[str] = Counter()
    for rel, tf, m in members:
        if reserved_path(rel) or m.size > MAX_READ:
            continue
        want = [i for i, r in enumerate(rules)
                if "mime" in r.d and taken[i] < (r.cap or default_cap) and r.matches_path(rel)]
        if not want:
            continue
        f = tf.extractfile(m)
        data = f.read() if f else b""
        for i in want:
            d = data
            if rules[i].d.get("gunzip") and rel.endswith(".gz"):
                try:
                    d = gzip.decompress(d)
                except (OSError, EOFError):
                    continue
            if rules[i].matches_data(d):
                taken[i] += 1
                per_label[rules[i].d["mime"]] += 1
    return dict(per_label)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dl", type=Path, required=True, help="folder of .deb files (downloads go here)")
    ap.add_argument("--debsrc", type=Path, help="the cache's debsrc folder (one folder a package)")
    ap.add_argument("--include", type=Path,
                    default=ROOT / "picohead" / "recipes" / "content" / "mime_v2.json")
    ap.add_argument("--json", type=Path, help="write the per-label table here")
    a = ap.parse_args(argv)
    recipe = load_recipe("content")
    default_cap = int(recipe.setting("cap_per_source_label", 700))
    mins = recipe.setting("min_per_split", {"train": 200, "val": 30, "test": 30})
    need = sum(int(v) for v in mins.values())
    entries = json.loads(a.include.read_text(encoding="utf-8"))["sources"]
    files: Counter[str] = Counter()
    by_pkg: dict[str, Counter[str]] = defaultdict(Counter)
    missing: list[str] = []
    for e in entries:
        if e["kind"] == "deb":
            deb = _deb_file(a.dl, e["name"])
            members = _deb_members(deb) if deb else None
        elif e["kind"] == "debsrc" and a.debsrc and (a.debsrc / e["name"]).is_dir():
            members = _src_members(a.debsrc / e["name"])
        else:
            members = None
        if members is None:
            missing.append(f"{e['kind']}:{e['name']}")
            continue
        for label, n in count_entry(e, members, default_cap).items():
            files[label] += n
            by_pkg[label][f"{e['kind']}:{e['name']}"] += n
    rows = []
    for label in sorted(files):
        pk = by_pkg[label]
        top, topn = pk.most_common(1)[0]
        rows.append({"label": label, "files": files[label], "producers": len(pk),
                     "top_producer": top, "top_share": round(topn / files[label], 3),
                     "under_min": files[label] < need, "under_20_producers": len(pk) < 20})
    print(f"{'label':44} {'files':>6} {'prod':>5} {'top%':>5}  flags")
    for r in rows:
        flags = " ".join(f for f, on in (("<min", r["under_min"]), ("<20prod", r["under_20_producers"]),
                                         (">10%", r["top_share"] > 0.10)) if on)
        print(f"{r['label']:44} {r['files']:6d} {r['producers']:5d} {100 * r['top_share']:5.1f}  {flags}")
    if missing:
        print(f"not found ({len(missing)}): {', '.join(missing)}")
    if a.json:
        a.json.write_text(json.dumps({"labels": rows, "missing": missing, "min_total": need},
                                     indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
