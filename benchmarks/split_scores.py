"""Per tier x head, per risk flag and on 50-byte text cuts: exported runs scored on one corpus split.

``picohead train --recipe`` keeps only the mean headline score of the validation split
(``eval/onnx-val.json``, what it chooses by) and reports the test split in full; a trial is judged
on validation, so this scores any split of a corpus with the run's int8 files (their embedded,
calibrated thresholds) head by head. It computes what ``picohead.model_card`` computes, on the
split you name.

    python benchmarks/split_scores.py NAME=RUN_DIR [NAME=RUN_DIR ...] --corpus corpus \\
        --split val --out results/x.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from picohead.calibrate import embedded_spec
from picohead.dataset import load_manifest
from picohead.evaluate import evaluate_logits, file_metrics, headline, mean_headline
from picohead.model_card import short_text
from picohead.run import RunDir
from picohead_runtime import scoring


def run_scores(run: Path, corpus: Path, split: str, cache: Path | None) -> dict[str, Any]:
    """Tier -> {head: accuracy or micro-F1 (%), mean, f1_<flag>, text_lang_50B}."""
    exported = json.loads(RunDir(run).export_report.read_text())
    files = {r["tier"]: Path(r["path"]) for r in exported if r["ok"] and r["path"]}
    if not files:
        raise SystemExit(f"{run}: no exported tier (onnx/export.json)")
    data = load_manifest(
        corpus / f"{split}.jsonl", embedded_spec(next(iter(files.values()))), cache_dir=cache
    )
    cuts = short_text(data)
    out: dict[str, Any] = {}
    for tier, path in files.items():
        spec, loaded, metrics = file_metrics(path, data)
        row: dict[str, Any] = {h: round(headline(m) * 100, 2) for h, m in metrics.items()}
        row["mean"] = round(mean_headline(metrics) * 100, 2)
        for head in spec.heads:
            if head.multilabel and head.name in metrics:
                for lab, c in metrics[head.name]["per_class"].items():
                    if c.get("support"):
                        row[f"f1_{lab}"] = round(c["f1"], 3)
                if "lookalikes_flagged" in metrics[head.name]:
                    row["lookalikes_flagged"] = metrics[head.name]["lookalikes_flagged"]
        if len(cuts) and "text_lang" in spec.head_names:
            m50 = evaluate_logits(spec, scoring.file_logits(loaded, cuts.windows, cuts.lengths), cuts)
            row["text_lang_50B"] = round(headline(m50["text_lang"]) * 100, 2)
        out[tier] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="NAME=RUN_DIR (its onnx/export.json lists the files)")
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--split", default="val", choices=("train", "val", "test"))
    ap.add_argument("--cache", type=Path, default=None, help="window cache (cache/windows)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    doc: dict[str, Any] = {"note": args.note, "split": args.split, "runs": {}}
    for item in args.runs:
        name, _, run = item.partition("=")
        doc["runs"][name] = {
            "run": run,
            "tiers": run_scores(Path(run), args.corpus, args.split, args.cache),
        }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    names = list(doc["runs"])
    tiers = list(next(iter(doc["runs"].values()))["tiers"])
    for tier in tiers:
        print(f"== {tier} ({args.split})")
        keys = list(doc["runs"][names[0]]["tiers"][tier])
        print("".ljust(20) + "".join(n[-14:].rjust(15) for n in names))
        for k in keys:
            vals = [str(doc["runs"][n]["tiers"].get(tier, {}).get(k, "-")) for n in names]
            print(k.ljust(20) + "".join(v.rjust(15) for v in vals))


if __name__ == "__main__":
    main()
