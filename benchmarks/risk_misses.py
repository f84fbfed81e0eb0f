"""The misses and false alarms of one risk flag: which samples, and the lines that matter.

Runs an exported tier file (its embedded, calibrated thresholds) over a corpus split and lists,
for one flag, every labelled sample it misses and every unlabelled sample it flags, with the
score, the source and the lines of the window that mention a secret-like name (or the first
bytes when none does). It is the reading behind the failure modes in the README's targets table;
it scores nothing that ``benchmarks/split_scores.py`` does not.

    python benchmarks/risk_misses.py runs/content-steady/onnx/content-pro-int8.onnx \\
        --corpus corpus --split val --flag password --out results/password_misses.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from picohead.dataset import load_manifest
from picohead_runtime import scoring

NAMES = re.compile(rb"(?i)pass|pwd|secret|cred|token|key|mail|phone|tel|jwt|auth")


def excerpt(raw: bytes, limit: int = 3) -> list[str]:
    """Up to ``limit`` lines naming a secret-like field, else the first 80 bytes."""
    lines = [ln.strip() for ln in raw.split(b"\n") if NAMES.search(ln)][:limit] or [raw[:80]]
    return [ln[:160].decode("utf-8", "backslashreplace") for ln in lines]


def misses(model: Path, corpus: Path, split: str, flag: str, cache: Path | None) -> dict[str, Any]:
    loaded = scoring.open_file(model)
    spec = loaded.meta.spec
    head = next(h for h in spec.heads if h.multilabel)
    j = head.labels.index(flag)  # ValueError names a flag the head does not have
    data = load_manifest(corpus / f"{split}.jsonl", spec, cache_dir=cache)
    data = data.subset(np.flatnonzero(data.label_mask[head.name]))
    z = scoring.file_logits(loaded, data.windows, data.lengths)[head.name][:, j]
    p = 1 / (1 + np.exp(-z))
    thr = head.threshold_for(flag)
    truth = data.labels[head.name][:, j] > 0.5
    on = p >= thr

    def rows(sel: np.ndarray) -> list[dict[str, Any]]:
        return [
            {
                "score": round(float(p[i]), 3),
                "source": str(data.sources[i]),
                "lines": excerpt(data.windows[i, : data.lengths[i]].tobytes()),
            }
            for i in sel[np.argsort(p[sel])]
        ]

    return {
        "model": str(model),
        "split": split,
        "flag": flag,
        "threshold": thr,
        "positives": int(truth.sum()),
        "missed": rows(np.flatnonzero(truth & ~on)),
        "false_alarms": rows(np.flatnonzero(~truth & on)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", type=Path, help="an exported tier file (.onnx)")
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--split", default="val", choices=("train", "val", "test"))
    ap.add_argument("--flag", required=True, help="a label of the model's multilabel head")
    ap.add_argument("--cache", type=Path, default=None, help="window cache (cache/windows)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    doc = misses(args.model, args.corpus, args.split, args.flag, args.cache)
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(
        f"{doc['flag']} on {doc['split']}: {doc['positives']} labelled, "
        f"{len(doc['missed'])} missed, {len(doc['false_alarms'])} false alarms "
        f"(threshold {doc['threshold']})"
    )
    for kind in ("missed", "false_alarms"):
        for r in doc[kind]:
            print(f"{kind:12s} {r['score']:.3f} {r['source'][:32]:32s} {r['lines'][0][:110]}")


if __name__ == "__main__":
    main()
