"""benchmarks/split_scores.py and risk_misses.py on the toy model: their counts match the runtime."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import risk_misses  # benchmarks/ is on pytest's pythonpath (pyproject.toml)
import split_scores
import toy_models

from picohead.testing import write_toy_corpus


@pytest.fixture(scope="module")
def toy(model_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    model = model_dir / "toy-tiny-fp32.onnx"
    corpus = write_toy_corpus(tmp_path_factory.mktemp("corpus"), n_train=5, n_eval=80)
    return model, corpus


@pytest.mark.parametrize("all_on", [False, True])
@pytest.mark.parametrize("flag", ["email", "api_key"])
def test_misses_are_what_the_runtime_does_not_flag(toy, tmp_path, flag, all_on):
    from picohead_runtime import Classifier

    model, corpus = toy
    records = [json.loads(line) for line in (corpus / "val.jsonl").read_text().splitlines()]
    if all_on:  # threshold 0: every label on, so no misses and every clean sample a false alarm
        threshold = 0.0
    else:  # between two labelled samples' scores: some are missed, whatever the random weights
        clf = Classifier(model)
        scores = sorted(
            clf.classify_bytes(base64.b64decode(r["b64"])).heads["risk"].scores[flag]
            for r in records
            if flag in r["labels"].get("risk", [])
        )
        # the widest gap, so batching's last-bit differences cannot put a sample on either side
        gap, i = max((b - a, i) for i, (a, b) in enumerate(zip(scores, scores[1:])))
        assert gap > 1e-5, scores
        threshold = (scores[i] + scores[i + 1]) / 2

    def set_threshold(doc):
        doc["spec"]["heads"][2]["threshold"] = threshold

    model = toy_models.rewrite_meta(model, tmp_path / "t.onnx", set_threshold)
    doc = risk_misses.misses(model, corpus, "val", flag, tmp_path / "c")
    clf = Classifier(model)
    labelled = flagged_clean = 0
    missed = []
    for rec in records:
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


def test_misses_on_a_wild_half_count_by_template(toy, tmp_path):
    """--suite: the wild suite's risk records of one half, with positives and misses per template
    family. At threshold 0 every record is flagged: no miss, every unlabelled record an alarm;
    at 1.0 none is: every positive missed."""
    model, _ = toy
    suite = tmp_path / "suite"
    (suite / "blobs").mkdir(parents=True)
    rows = [("a", b"admin_email: ana@mail.de\n", ["email"], "email_field/yaml", "dev"),
            ("b", b"Maintainer: Jan <jan@web.de>\n", ["email"], "email_line/md", "dev"),
            ("c", b"contact: ops@corp.example\n", [], "lookalike_example_email/yaml", "dev"),
            ("d", b"admin_email: ana@mail.de\n", ["email"], "email_field/yaml", "test")]
    with (suite / "manifest.jsonl").open("w") as f:
        for rid, data, label, template, split in rows:
            (suite / "blobs" / rid).write_bytes(data)
            f.write(json.dumps({"id": rid, "path": f"blobs/{rid}", "task": "risk", "label": label,
                                "kind": "positive" if label else "lookalike", "producer": "git:o/r",
                                "split": split, "prov": {"template": template}}) + "\n")
    for threshold, missed, alarms in ((0.0, 0, 1), (1.0, 2, 0)):
        def set_threshold(doc, t=threshold):
            doc["spec"]["heads"][2]["threshold"] = t
            doc["spec"]["heads"][2]["label_thresholds"] = {}

        m = toy_models.rewrite_meta(model, tmp_path / f"t{threshold}.onnx", set_threshold)
        doc = risk_misses.wild_misses(m, suite, "dev", "email")
        assert doc["positives"] == 2 and len(doc["missed"]) == missed
        assert len(doc["false_alarms"]) == alarms
        assert {g: d["missed"] for g, d in doc["by_template"].items()} == \
            {"email_field": missed // 2, "email_line": missed // 2}
    with pytest.raises(ValueError):
        risk_misses.wild_misses(model, suite, "dev", "no_such_flag")
