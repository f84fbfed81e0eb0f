"""MODEL_CARD.md for a bundled model folder whose tiers were scored by ``score_folder.py``.

``picohead train --recipe`` writes the card of the run it bundles. A bundle assembled from tiers
of several runs (content-v9: tiny from content-v8's run, small/base/pro from a later one, chosen
per tier on wild-dev) has no such run; this writes its card from the folder's files and a
``score_folder.py`` report of those tiers on a corpus test split, with the same sections
(``picohead.model_card.write_model_card``), the folder's ``choice.json`` run per tier in the
intro, and the existing wild-suite block kept (``benchmarks/wild.py card`` rewrites that one).

    python benchmarks/score_folder.py SCORED_FOLDER corpus OUT
    python benchmarks/bundle_card.py --folder runtime/picohead_runtime/models/content-v9 \\
        --scores OUT/eval/onnx-test.json --corpus corpus --note "how the scored files were set"

What it does not do: score anything (the figures are the report's), or know the runs'
validation-split calibration curves (the card has no calibration section).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from picohead.calibrate import embedded_spec
from picohead.model_card import write_model_card

HERE = Path(__file__).resolve().parent
TIERS = ("tiny", "small", "base", "pro")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--folder", type=Path, required=True, help="the bundled model folder")
    ap.add_argument("--scores", type=Path, required=True, help="score_folder.py's onnx-test.json")
    ap.add_argument("--corpus", type=Path, required=True, help="the scored corpus (its card.json)")
    ap.add_argument("--note", default="", help="how the scored files' thresholds were set")
    ap.add_argument("--card", type=Path, default=HERE.parent / "MODEL_CARD.md")
    args = ap.parse_args()
    scores = json.loads(args.scores.read_text())
    tiers = [t for t in TIERS if (args.folder / f"{t}.onnx").is_file()]
    if missing := [t for t in tiers if t not in scores]:
        ap.error(f"{args.scores} has no scores for tier(s) {', '.join(missing)}")
    spec = embedded_spec(args.folder / f"{tiers[-1]}.onnx")
    runs = json.loads((args.folder / "choice.json").read_text()).get("tiers", {})
    choice = {t: {"family": "steady", "file": f"{t}.onnx", "bytes": scores[t]["bytes"],
                  "mean_headline": scores[t]["mean_headline"]} for t in tiers}
    # a run is named by the first word of its note ("content-v16rc1 (the recipe ...); shipped ...")
    names = {str(runs.get(t, {}).get("run", "")).split(" ", 1)[0] for t in tiers}
    intro = "\n".join([
        f"{args.folder.name}: a bundle whose tiers come from "
        f"{len(names)} trained run(s), chosen per tier on the "
        "wild suite's dev half:",
        "",
        *[f"- **{t}**: {runs.get(t, {}).get('run', 'not named in choice.json')}" for t in tiers],
        "",
        "The wild block below is measured on the wild suite's test half at the shipped (wild-dev) "
        "thresholds. Every figure after it is on the corpus's **test split** (held out by source "
        f"package/document) with the int8 ONNX files: {args.note or 'their embedded thresholds'} "
        f"(`benchmarks/score_folder.py`, then `benchmarks/bundle_card.py`).",
    ])
    corpus_card = (json.loads((args.corpus / "card.json").read_text())
                   if (args.corpus / "card.json").is_file() else None)
    write_model_card(args.card, spec=spec, scores={"steady": {t: scores[t] for t in tiers}},
                     choice=choice, corpus_card=corpus_card, intro=intro)
    print(f"wrote {args.card} and {args.card.parent / 'docs' / 'model_card_scores.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
