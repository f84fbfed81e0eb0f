"""Headline figures of one or more pipeline evaluations side by side (for ablations).

Reads the ``eval/onnx-test.json`` that ``picohead train --recipe`` writes into a family's run
folder (int8 files, calibrated thresholds, the corpus's test split) and keeps, per tier: size,
latency, code / text / MIME accuracy, MIME on files < 256 B, text on 50-byte cuts, risk micro-F1
(all inputs and inputs < 256 B), per-flag F1 and the look-alike rate. It computes nothing new.

    python benchmarks/eval_summary.py NAME=RUN_DIR [NAME=RUN_DIR ...] --out results/x.json

``--torch NAME=REPORT`` adds a run that has no exported files (a family whose tiers all missed the
export gates) from its torch evaluation (``picohead eval RUN --json > REPORT``): per tier and
head, accuracy (micro-F1 for risk), fp32, no calibration.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def summary(scores: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for tier, s in scores.items():
        h, short = s["heads"], s["short"]
        risk = h["risk"]
        out[tier] = {
            "bytes": s["bytes"],
            "latency_ms_2kb_1thread": round(s["latency_ms_2kb_1thread"], 3),
            "code_lang": round(h["code_lang"]["accuracy"], 4),
            "text_lang": round(h["text_lang"]["accuracy"], 4),
            "mime": round(h["mime"]["accuracy"], 4),
            "mime_under_256B": round(short["files_under_256B"]["mime"]["accuracy"], 4),
            "text_lang_50B": round(short["text_lang_50B"]["text_lang"]["accuracy"], 4),
            "risk_micro_f1": round(risk["micro_f1"], 4),
            "risk_micro_f1_under_256B": round(short["files_under_256B"]["risk"]["micro_f1"], 4),
            "risk_n_under_256B": short["files_under_256B"]["risk"]["n"],
            "risk_f1": {k: round(v["f1"], 3) for k, v in risk["per_class"].items()},
            "lookalikes_flagged": round(risk["lookalikes_flagged"], 4),
            "binaries_flagged": risk.get("binaries_flagged"),
            "risk_precision": {k: round(v["precision"], 3) for k, v in risk["per_class"].items()},
            "mean_headline": round(s["mean_headline"], 4),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="NAME=RUN_DIR (its eval/onnx-test.json is read)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--note", default="")
    ap.add_argument(
        "--torch", action="append", default=[], help="NAME=REPORT (picohead eval --json)"
    )
    args = ap.parse_args()
    doc: dict[str, Any] = {"note": args.note, "runs": {}}
    for item in args.torch:
        name, _, report = item.partition("=")
        r = json.loads(Path(report).read_text())
        doc.setdefault("torch", {})[name] = {
            "report": report,
            "n_samples": r["n_samples"],
            "tiers": {
                tier: {
                    h: round(m.get("accuracy", m.get("micro_f1", 0.0)), 4) for h, m in hs.items()
                }
                for tier, hs in r["tiers"].items()
            },
        }
    for item in args.runs:
        name, _, run = item.partition("=")
        path = Path(run) / "eval" / "onnx-test.json"
        doc["runs"][name] = {"eval": str(path), "tiers": summary(json.loads(path.read_text()))}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    for name, r in doc["runs"].items():
        for tier, t in r["tiers"].items():
            print(name, tier, {k: v for k, v in t.items() if k != "risk_f1"}, t["risk_f1"])


if __name__ == "__main__":
    main()
