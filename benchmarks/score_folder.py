"""Score a folder of exported tier files on a corpus test split, as the recipe pipeline does.

    python benchmarks/score_folder.py runtime/picohead_runtime/models/content-v7 corpus OUT

Writes ``OUT/eval/onnx-test.json`` in the pipeline's format (``picohead.model_card.
onnx_test_report``: per tier and head, accuracy/F1, short-input slices, size, latency), so
``benchmarks/eval_summary.py NAME=OUT`` can put a shipped model beside a new run on the same test
split (e.g. after a corpus rebuild changed some labels). Each file's embedded thresholds are used.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from picohead.calibrate import embedded_spec
from picohead.dataset import load_manifest
from picohead.model_card import onnx_test_report
from picohead_runtime.spec import load_spec

TIERS = ("tiny", "small", "base", "pro")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folder", type=Path, help="a model folder holding <tier>.onnx files")
    ap.add_argument("corpus", type=Path, help="a corpus folder holding test.jsonl")
    ap.add_argument("out", type=Path)
    ap.add_argument("--cache", type=Path, default=Path("cache/windows"), help="window cache")
    args = ap.parse_args()
    files = {t: args.folder / f"{t}.onnx" for t in TIERS if (args.folder / f"{t}.onnx").is_file()}
    if not files:
        raise SystemExit(f"{args.folder}: no <tier>.onnx files")
    # the corpus's own label lists when it has them (a tier may lack labels the corpus holds);
    # each tier is then scored on its own lists (picohead.model_card.onnx_test_report)
    own = args.corpus / "spec.json"
    spec = load_spec(own) if own.is_file() else embedded_spec(files[max(files, key=TIERS.index)])
    test = load_manifest(args.corpus / "test.jsonl", spec, cache_dir=args.cache)
    scores = onnx_test_report(files, spec, test)
    (args.out / "eval").mkdir(parents=True, exist_ok=True)
    (args.out / "eval" / "onnx-test.json").write_text(json.dumps(scores, indent=1) + "\n")


if __name__ == "__main__":
    main()
