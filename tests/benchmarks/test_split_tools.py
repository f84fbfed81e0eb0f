"""benchmarks/split_scores.py and risk_misses.py on the toy model: their counts match the runtime."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import risk_misses  # noqa: E402
import split_scores  # noqa: E402
import toy_models  # noqa: E402

from picohead.testing import write_toy_corpus  # noqa: E402


@pytest.fixture(scope="module")
def toy(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    model = toy_models.toy_model_dir(toy_models.cache_root(request)) / "toy-tiny-fp32.onnx"
    corpus = write_toy_corpus(tmp_path_factory.mktemp("corpus"), n_train=5, n_eval=80)
    return model, corpus


@pytest.mark.parametrize("all_on", [False, True])
@pytest.mark.parametrize("flag", ["email", "api_key"])
def test_misses_are_what_the_runtime_does_not_flag(toy, tmp_path, flag, all_on):
    from picohead_runtime import Classifier

    model, corpus = toy
    if all_on:  # threshold 0: every label on, so no misses and every clean sample a false alarm

        def zero(doc):
            doc["spec"]["heads"][2]["threshold"] = 0.0

        model = toy_models.rewrite_meta(model, tmp_path / "on.onnx", zero)
    doc = risk_misses.misses(model, corpus, "val", flag, tmp_path / "c")
    clf = Classifier(model)
    labelled = flagged_clean = 0
    missed = []
    for line in (corpus / "val.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if "risk" not in rec["labels"]:  # no risk label: not scored for the flag
            continue
        on = flag in clf.classify_bytes(base64.b64decode(rec["b64"])).heads["risk"].labels
        if flag in rec["labels"]["risk"]:
            labelled += 1
            if not on:
                missed.append(rec["source"])
        elif on:
            flagged_clean += 1
    assert doc["positives"] == labelled
    assert sorted(r["source"] for r in doc["missed"]) == sorted(missed)
    assert len(doc["false_alarms"]) == flagged_clean
    assert labelled > 0 and (flagged_clean > 0 if all_on else missed)  # both sides exercised
    with pytest.raises(ValueError):
        risk_misses.misses(model, corpus, "val", "no_such_flag", tmp_path / "c")


def test_split_scores_reads_the_exported_files(toy, tmp_path):
    model, corpus = toy
    run = tmp_path / "run"
    (run / "onnx").mkdir(parents=True)
    exported = [{"tier": "tiny", "ok": True, "path": str(model)}, {"tier": "pro", "ok": False}]
    (run / "onnx" / "export.json").write_text(json.dumps(exported))
    scores = split_scores.run_scores(run, corpus, "val", tmp_path / "c")
    assert list(scores) == ["tiny"]  # a tier that missed its gates has no file
    row = scores["tiny"]
    heads = [row[h] for h in ("kind", "lang", "risk")]
    assert row["mean"] == pytest.approx(sum(heads) / 3, abs=0.01)
    assert 0 <= row["f1_email"] <= 1 and all(0 <= v <= 100 for v in heads)
