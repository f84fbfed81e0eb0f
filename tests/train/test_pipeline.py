"""`picohead train --recipe`: train -> export -> ONNX test eval -> per-tier choice -> bundle + card."""

import json
from pathlib import Path

import pytest
import toy_models

from picohead.pipeline import run_recipe
from picohead.testing import toy_spec, write_toy_corpus


@pytest.mark.slow
def test_recipe_end_to_end(tmp_path):
    corpus = write_toy_corpus(tmp_path / "corpus", n_train=400, n_eval=120)
    recipe = tmp_path / "toy"
    recipe.mkdir()
    (recipe / "spec.json").write_text(json.dumps(toy_spec("steady")))
    (recipe / "train.json").write_text(
        json.dumps(
            {
                "families": {
                    "steady": {
                        "arch": toy_spec("steady")["arch"],
                        "train": {"steps": 150, "batch_size": 32, "eval_every": 75},
                    },
                    # a second family: the two train, export and evaluate in parallel processes
                    "bytes": {
                        "arch": toy_spec("bytes")["arch"],
                        "train": {"steps": 60, "batch_size": 32, "eval_every": 60},
                    },
                }
            }
        )
    )
    bundle, card = tmp_path / "bundle", tmp_path / "MODEL_CARD.md"
    result = run_recipe(
        str(recipe), corpus=corpus, runs=tmp_path / "runs", bundle=bundle, card=card
    )
    reports = json.loads((tmp_path / "runs" / "toy-steady" / "onnx" / "export.json").read_text())
    # a tier is shipped exactly when its export passed the parity/quantization gates
    assert set(result["choice"]) == {r["tier"] for r in reports if r["ok"]} != set()
    for tier in result["choice"]:
        assert (bundle / f"{tier}.onnx").is_file()
    text = card.read_text()
    assert "| kind |" in text and "Shipped tiers" in text
    scores = json.loads((tmp_path / "runs" / "toy-steady" / "eval" / "onnx-test.json").read_text())
    assert all(s["heads"]["kind"]["accuracy"] > 0.85 for s in scores.values())
    assert set(result["families"]) == {"steady", "bytes"}
    assert (tmp_path / "runs" / "toy-bytes" / "eval" / "onnx-test.json").is_file()
    # the choice reads the validation scores; the test split only reports
    val = {
        fam: json.loads((tmp_path / "runs" / f"toy-{fam}" / "eval" / "onnx-val.json").read_text())
        for fam in ("steady", "bytes")
    }
    for tier, c in result["choice"].items():
        assert c["val_mean_headline"] == max(
            v[tier]["mean_headline"] for v in val.values() if tier in v
        )
        assert c["val_mean_headline"] == val[c["family"]][tier]["mean_headline"]
    model = json.loads((bundle / "model.json").read_text())
    assert model["default_tier"] == max(
        result["choice"], key=lambda t: result["choice"][t]["val_mean_headline"]
    )
    # a second run resumes: nothing is retrained and the same choice comes back
    again = run_recipe(str(recipe), corpus=corpus, runs=tmp_path / "runs")
    assert again["choice"] == result["choice"]
    # ... without recalibrating, unless a file was calibrated under another rule (an older
    # picohead recorded none): then the run recalibrates and records the current rule
    from picohead.calibrate import calibrated_rule, rule

    calib = tmp_path / "runs" / "toy-steady" / "eval" / "calibration.json"
    first = calib.stat().st_mtime_ns
    steady_files = [r["path"] for r in reports if r["ok"]]
    assert all(calibrated_rule(Path(f)) == rule() for f in steady_files)
    run_recipe(str(recipe), corpus=corpus, runs=tmp_path / "runs")
    assert calib.stat().st_mtime_ns == first

    def forget(doc):
        doc["extra"].pop("calibration_rule")

    old_file = Path(steady_files[0])
    toy_models.rewrite_meta(old_file, old_file, forget)
    assert calibrated_rule(old_file) is None
    run_recipe(str(recipe), corpus=corpus, runs=tmp_path / "runs")
    assert calib.stat().st_mtime_ns != first and calibrated_rule(old_file) == rule()
