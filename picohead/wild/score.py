"""Run a model (each tier of a model folder) over wild-suite records: answers, robustness, batches.

``predict`` gives one row per record and tier: the task head's final label, raw top-1, its score
and the reason they differ; for ``risk`` the flags given and every flag's score. A head that the
model gates off for that input is ``"(absent)"`` (no answer: wrong and not covered). ``robustness``
reruns the records under the padding attacks of ``PERTURBATIONS`` and counts answers that change;
``batch_invariance`` compares each input classified alone against the same input inside one
batch of all of them. Torch-free: it uses only the runtime's ``Classifier``.

What it does not do: compute accuracy or any other figure (``picohead.wild.metrics``), or run
other tools (the benchmark script does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from picohead.wild.suite import blob
from picohead_runtime import Classifier
from picohead_runtime.results import HeadResult, MultilabelResult, Result

ABSENT = "(absent)"
TASK_HEAD = {"mime": "mime", "code_lang": "code_lang", "text_lang": "text_lang", "risk": "risk"}

PERTURBATIONS: dict[str, Callable[[bytes], bytes]] = {
    "lead_newlines_1k": lambda b: b"\n" * 1024 + b,
    "lead_whitespace_8k": lambda b: (b" \t\n\r" * 2048) + b,
    "trail_newlines_4k": lambda b: b + b"\n" * 4096,
    "lead_nul_1k": lambda b: b"\0" * 1024 + b,
}


def answer(task: str, r: Result) -> dict[str, Any]:
    """The fields of one result that the metrics read."""
    h = r.heads.get(TASK_HEAD[task])
    if task == "risk":
        if isinstance(h, MultilabelResult):
            return {"flags": list(h.labels), "scores": dict(h.scores), "disabled": list(h.disabled)}
        return {"flags": [], "scores": {}, "disabled": [], "status": r.status}
    if isinstance(h, HeadResult):
        return {"final": h.label, "raw": h.raw, "score": round(float(h.score), 4),
                "reason": h.reason}
    return {"final": ABSENT, "raw": None, "score": None, "reason": r.status}


def label_of(task: str, a: dict[str, Any]) -> Any:
    return sorted(a["flags"]) if task == "risk" else a["final"]


def predict(clf: Classifier, suite: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One answer per record (in the records' order), each input classified alone."""
    out = []
    for rec in records:
        r = clf.classify_bytes(blob(suite, rec))
        out.append({"id": rec["id"], **answer(rec["task"], r)})
    return out


def robustness(clf: Classifier, suite: Path, records: list[dict[str, Any]],
               base: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per perturbation: how many task answers change against ``base`` ("task:id" -> answer)."""
    out: dict[str, dict[str, Any]] = {}
    for name, f in PERTURBATIONS.items():
        changed, n = 0, 0
        examples: list[dict[str, Any]] = []
        for rec in records:
            a = answer(rec["task"], clf.classify_bytes(f(blob(suite, rec))))
            n += 1
            before = label_of(rec["task"], base[f"{rec['task']}:{rec['id']}"])
            after = label_of(rec["task"], a)
            if before != after:
                changed += 1
                if len(examples) < 5:
                    examples.append({"id": rec["id"], "task": rec["task"], "truth": rec["label"],
                                     "before": before, "after": after})
        out[name] = {"n": n, "changed": changed, "share": changed / n if n else None,
                     "examples": examples}
    return out


def batch_invariance(clf: Classifier, suite: Path, records: list[dict[str, Any]]
                     ) -> dict[str, Any]:
    """Each input alone vs inside one batch of all of them: label flips and the largest score
    difference over every head's reported scores."""
    data = [blob(suite, r) for r in records]
    alone = [clf.classify_bytes(d) for d in data]
    together = list(clf.classify_many_bytes(data))
    flips, worst = 0, 0.0
    examples: list[str] = []
    for rec, a, b in zip(records, alone, together):
        flipped = False
        for name, ha in a.heads.items():
            hb = b.heads.get(name)
            if isinstance(ha, HeadResult) and isinstance(hb, HeadResult):
                flipped |= ha.label != hb.label
                worst = max(worst, abs(ha.score - hb.score))
            elif isinstance(ha, MultilabelResult) and isinstance(hb, MultilabelResult):
                flipped |= ha.labels != hb.labels
                for k, v in ha.scores.items():
                    worst = max(worst, abs(v - hb.scores.get(k, v)))
            else:
                flipped = True
        if set(a.heads) != set(b.heads):
            flipped = True
        if flipped:
            flips += 1
            if len(examples) < 5:
                examples.append(rec["id"])
    return {"n": len(records), "batch": clf.batch_size, "flipped": flips,
            "max_score_diff": round(worst, 4), "examples": examples}
