"""The last good build of a corpus, and how a new build's label counts compare with it.

A build that passes its failure tolerance (``picohead.data.tolerance``) copies its card to
``OUT/last_good_card.json``; the next build into the same folder compares each label's sample
count (train + val + test) with it. Without that file, a committed ``expected_counts.json`` beside
the recipe (the ``per_head`` block of a good build's card) is the baseline, so a build on a fresh
machine is checked too. The comparison lists per label the count before and now, the change, and
the labels that appeared or disappeared; it goes into the dataset card.

What it does not do: judge the changes (``picohead.data.tolerance`` does), or write the baseline of
a degraded build (a build that only passed with ``--allow-degraded`` is not a good build).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LAST_GOOD = "last_good_card.json"
EXPECTED = "expected_counts.json"


def load_baseline(out: Path, recipe_root: Path | None) -> tuple[dict[str, Any] | None, str | None]:
    """The baseline's ``per_head`` counts and where they came from (None, None without one)."""
    for p in (Path(out) / LAST_GOOD, (Path(recipe_root) / EXPECTED) if recipe_root else None):
        if p is not None and p.is_file():
            data = json.loads(p.read_text(encoding="utf-8"))
            return data.get("per_head", {}), str(p)
    return None, None


def _total(c: Any) -> int:
    return sum(c.values()) if isinstance(c, dict) else int(c)


def compare(per_head: dict[str, dict[str, Any]], before: dict[str, dict[str, Any]] | None,
            source: str | None, dropped: dict[str, dict[str, str]] | None = None,
            mins: dict[str, int] | None = None) -> dict[str, Any]:
    """Per head and label: ``before``, ``now``, ``delta`` and ``change`` (delta / before), the
    labels that ``appeared`` (no samples before) and ``disappeared`` (no samples now), and those
    ``lost``: dropped from their head by this build (``dropped``, head -> label -> why) although
    the baseline's counts met every split minimum of ``mins``, so the baseline's model had them
    (content-dockerfile went 202 -> 199 training samples, under 200, and left two heads while its
    total fell 2 %, which the per-label drop limit does not see)."""
    if before is None:
        return {"baseline": None, "labels": {}, "appeared": [], "disappeared": [], "lost": []}
    labels: dict[str, dict[str, dict[str, Any]]] = {}
    appeared, disappeared = [], []
    for head in sorted(set(per_head) | set(before)):
        now_h, was_h = per_head.get(head, {}), before.get(head, {})
        rows = {}
        for lab in sorted(set(now_h) | set(was_h)):
            now, was = _total(now_h.get(lab, 0)), _total(was_h.get(lab, 0))
            rows[lab] = {"before": was, "now": now, "delta": now - was,
                         "change": round((now - was) / was, 4) if was else None}
            if was == 0 and now > 0:
                appeared.append(f"{head}={lab}")
            elif was > 0 and now == 0:
                disappeared.append(f"{head}={lab}")
        labels[head] = rows
    lost: list[str] = []
    for head, d in (dropped or {}).items():
        for lab in d:
            was_counts = before.get(head, {}).get(lab)
            if isinstance(was_counts, dict) and mins and all(
                    int(was_counts.get(s, 0)) >= n for s, n in mins.items()):
                lost.append(f"{head}={lab}")
    return {"baseline": source, "labels": labels, "appeared": appeared,
            "disappeared": disappeared, "lost": sorted(lost)}


def save_last_good(out: Path, card: dict[str, Any]) -> Path:
    """Write ``card`` as the folder's last good build; returns the file."""
    p = Path(out) / LAST_GOOD
    p.write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return p
