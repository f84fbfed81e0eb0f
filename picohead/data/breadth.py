"""Breadth of producers per label: each sample's producer, the per-producer cap, the breadth table.

A sample's *producer* is the independent maker it comes from: the upstream project of its source
package (Debian binary or source package, PyPI or npm project), its git repository's project, or,
for generated formats, the generator (``gen:images``) unless the generator names its encoder in the
sample's provenance (``prov["producer"]``). Identity is ``picohead.data.producers.project_of``
(one owner of producer identity): ``deb:python3-pygments``, ``debsrc:pygments`` and
``pypi:Pygments`` are one producer, ``pygments``. A risk sample's producer is its host's.

``cap_producers`` keeps no producer above a share of a label's samples, per fine label (mime,
code_lang, text_lang); a label with fewer producers than ``1 / share`` cannot meet that cap, so it
keeps its data uncapped and is reported. ``breadth`` is the per-label table the dataset card shows
(samples and distinct producers per split, the top producer and its training share, floor flags).

What it does not do: decide splits or other caps (``picohead.data.build``), or resolve a Debian
binary package to its source package through apt (the names are normalised offline).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from functools import cache
from typing import Any

from picohead.data.producers import normalise, project_of

FINE_HEADS = ("mime", "code_lang", "text_lang")
SPLITS = ("train", "val", "test")


def producer_of(r: dict[str, Any]) -> str:
    """The producer of a stage or manifest record (see the module docstring)."""
    prov = r.get("prov") or {}
    if prov.get("producer"):
        return str(prov["producer"])
    return _producer(str(r["source"]), prov.get("project"))


@cache
def _producer(src: str, project: str | None) -> str:
    if src.startswith("risk:"):
        src = src[5:]
    kind, _, name = src.partition(":")
    if kind == "gen":
        return f"gen:{normalise(name)}"
    return project_of(src, project)


def _order(r: dict[str, Any]) -> int:
    return int(hashlib.sha256(("producer:" + r["id"]).encode()).hexdigest()[:12], 16)


def _allowed(sizes: list[int], share: float) -> int | None:
    """The largest per-producer count m with m <= share * sum(min(n, m)), or None when no m
    exists (fewer than 1 / share producers)."""
    sizes = sorted(sizes)
    if len(sizes) * share < 1 - 1e-9:
        return None
    best = None
    lo, hi = 1, max(sizes)
    while lo <= hi:  # m <= share * sum(min(n, m)) holds for every m up to the answer
        m = (lo + hi) // 2
        if m <= share * sum(min(n, m) for n in sizes) + 1e-9:
            best, lo = m, m + 1
        else:
            hi = m - 1
    return best


def _keeping(sizes: list[int], need: int) -> int:
    """The smallest per-producer count m with sum(min(n, m)) >= need (or all samples)."""
    need = min(need, sum(sizes))
    m = 1
    while sum(min(n, m) for n in sizes) < need:
        m = max(m + 1, int(m * 1.1))
    return m


def cap_producers(recs: list[dict[str, Any]], share: float, heads: tuple[str, ...] = FINE_HEADS,
                  exempt: Any = None, keep_at_least: int = 0
                  ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Records with no producer above ``share`` of any fine label's samples (the first records
    of each producer in a hash order are kept), and the labels that cannot meet the cap
    (``head=label`` -> their number of producers): a label with fewer than ``1 / share``
    producers keeps all its samples, and one the cap would leave under ``keep_at_least``
    samples is capped only down to that many (so no label is lost to the cap).
    ``exempt(record)``: records neither capped nor counted (e.g. planted risk samples).
    Capping one head changes another's counts, so the passes repeat until nothing moves."""
    exempt = exempt or (lambda r: False)
    keep = sorted(recs, key=_order)
    unmet: dict[str, int] = {}
    for _ in range(10):
        moved = False
        for head in heads:
            by_lab: dict[str, Counter[str]] = defaultdict(Counter)
            for r in keep:
                if head in r["labels"] and not exempt(r):
                    by_lab[str(r["labels"][head])][producer_of(r)] += 1
            limit: dict[str, int] = {}
            for lab, per in by_lab.items():
                m = _allowed(list(per.values()), share)
                if m is None:
                    unmet[f"{head}={lab}"] = len(per)
                    continue
                if sum(min(n, m) for n in per.values()) < keep_at_least:
                    m = max(m, _keeping(list(per.values()), keep_at_least))
                    unmet[f"{head}={lab}"] = len(per)
                if max(per.values()) > m:
                    limit[lab] = m
            if not limit:
                continue
            seen: Counter[tuple[str, str]] = Counter()
            nxt = []
            for r in keep:
                lab = str(r["labels"].get(head))
                if head in r["labels"] and lab in limit and not exempt(r):
                    k = (lab, producer_of(r))
                    if seen[k] >= limit[lab]:
                        moved = True
                        continue
                    seen[k] += 1
                nxt.append(r)
            keep = nxt
        if not moved:
            break
    # a label dropped under the cap of another head may have met it later: report what holds now
    return keep, unmet


def breadth(recs: list[dict[str, Any]], heads: tuple[str, ...] = FINE_HEADS, floor: int = 20,
            floor_large: int = 50, large: frozenset[str] | set[str] = frozenset(),
            share: float = 0.1) -> dict[str, dict[str, dict[str, Any]]]:
    """Per head and label: samples and distinct producers per split, the top training producer
    and its share of the label's training samples, the floor that applies and whether the label
    is under it, and whether the top share exceeds ``share``. Records need a ``split``."""
    samples: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    prods: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    train_by: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in recs:
        p = r.get("producer") or producer_of(r)
        for head in heads:
            if head not in r["labels"]:
                continue
            k = (head, str(r["labels"][head]))
            samples[k][r["split"]] += 1
            prods[k][r["split"]].add(p)
            if r["split"] == "train":
                train_by[k][p] += 1
    out: dict[str, dict[str, dict[str, Any]]] = {h: {} for h in heads}
    for (head, lab) in sorted(samples):
        k = (head, lab)
        allp = set().union(*prods[k].values())
        top, top_n = (train_by[k].most_common(1) or [("", 0)])[0]
        n_train = samples[k]["train"]
        fl = floor_large if head == "code_lang" and lab in large else floor
        top_share = round(top_n / n_train, 4) if n_train else 0.0
        out[head][lab] = {
            "samples": {s: samples[k][s] for s in SPLITS},
            "producers": {s: len(prods[k][s]) for s in SPLITS},
            "producers_total": len(allp), "top_producer": top, "top_share": top_share,
            "floor": fl, "under_floor": len(allp) < fl, "over_share": top_share > share + 1e-9}
    return out


def under_floor(table: dict[str, dict[str, dict[str, Any]]]) -> list[str]:
    """``head=label`` of every label under its producer floor."""
    return [f"{h}={lab}" for h, d in table.items() for lab, row in d.items() if row["under_floor"]]
