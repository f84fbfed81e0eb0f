"""Failure tolerance of a corpus build: how much may fail before the build counts as degraded.

Two limits, both recipe settings. Per source kind (``max_failed_share``, e.g. ``{"debsrc": 0.3}``):
the share of the kind's recipe entries that failed (a source the mirror does not serve counts as
failed: the corpus lacks it all the same); generators are the kind ``gen`` (share of the generators
run). A kind the setting does not name tolerates no failure. Per label (``max_label_drop``): a
label whose sample count fell more than that share below the baseline's
(``picohead.data.baseline``), or disappeared, and a label the baseline had enough samples
to keep that this build dropped from its head (``lost``; no limit). ``judge`` returns the verdict that goes into the card;
``DegradedBuildError`` names what exceeded its tolerance (the CLI turns it into exit 2).

What it does not do: retry or repair failed sources, or decide what the baseline is.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from picohead_runtime.errors import PicoheadError


class DegradedBuildError(PicoheadError, RuntimeError):
    """A build's failures exceed its stated tolerance; ``verdict`` says which (the manifests and
    card are written all the same)."""

    def __init__(self, verdict: dict[str, Any]):
        self.verdict = verdict
        super().__init__(describe(verdict))


def judge(entries: list[dict[str, Any]], failures: dict[str, str], generators: list[str],
          missing: list[str], max_failed: dict[str, float], comparison: dict[str, Any],
          max_drop: float) -> dict[str, Any]:
    """The verdict: per kind entries, failed, share, limit, and whether it is over; the labels
    that fell more than ``max_drop`` below the baseline or disappeared; ``passed``."""
    total = Counter(e["kind"] for e in entries)
    failed = Counter(k.split(":", 1)[0] for k in failures)
    if generators:
        total["gen"] = len(generators)
        failed["gen"] = len({m.split(":", 1)[0] for m in missing})
    kinds = {}
    for kind in sorted(set(total) | set(failed)):
        n, f = total[kind], failed[kind]
        share = f / n if n else (1.0 if f else 0.0)
        limit = float(max_failed.get(kind, 0.0))
        kinds[kind] = {"entries": n, "failed": f, "share": round(share, 4), "limit": limit,
                       "over": share > limit + 1e-9}
    fell = {}
    for head, rows in comparison.get("labels", {}).items():
        for lab, row in rows.items():
            if row["before"] > 0 and row["now"] < (1 - max_drop) * row["before"]:
                fell[f"{head}={lab}"] = {"before": row["before"], "now": row["now"]}
    over = [k for k, v in kinds.items() if v["over"]]
    lost = list(comparison.get("lost", []))
    return {"passed": not over and not fell and not lost, "kinds": kinds, "kinds_over": over,
            "labels_fell": fell, "labels_lost": lost, "max_label_drop": max_drop,
            "baseline": comparison.get("baseline")}


def describe(verdict: dict[str, Any]) -> str:
    """One message naming every kind and label over its tolerance."""
    parts = []
    for k in verdict["kinds_over"]:
        v = verdict["kinds"][k]
        parts.append(f"{k}: {v['failed']} of {v['entries']} failed ({v['share']:.0%} > "
                     f"{v['limit']:.0%})")
    fell = verdict["labels_fell"]
    if fell:
        shown = ", ".join(f"{lab} {r['before']} -> {r['now']}" for lab, r in list(fell.items())[:30])
        more = f" and {len(fell) - 30} more" if len(fell) > 30 else ""
        parts.append(f"{len(fell)} labels fell more than {verdict['max_label_drop']:.0%} below "
                     f"the baseline {verdict['baseline']}: {shown}{more}")
    lost = verdict.get("labels_lost", [])
    if lost:
        parts.append(f"{len(lost)} labels the baseline {verdict['baseline']} kept were dropped "
                     f"for too few samples: {', '.join(lost)}")
    return "build degraded beyond its tolerance: " + "; ".join(parts)
