"""``picohead calibrate``: thresholds from a validation manifest, written into the file in place."""

import json
import shutil

from click.testing import CliRunner

from picohead.calibrate import embedded_spec
from picohead.cli import main
from picohead.testing import write_toy_corpus
from picohead_runtime import Classifier


def test_calibrate_writes_thresholds_and_disables_weak_flags(model_dir, tmp_path):
    corpus = write_toy_corpus(tmp_path / "corpus", n_train=10, n_eval=120)
    model = tmp_path / "tiny.onnx"
    shutil.copyfile(model_dir / "toy-tiny-fp32.onnx", model)
    report = tmp_path / "report.json"
    argv = ["calibrate", str(model), "--data", str(corpus), "--cache", str(tmp_path / "c")]
    r = CliRunner().invoke(main, [*argv, "--report", str(report)])
    assert r.exit_code == 0, r.output
    risk = json.loads(report.read_text())["tiny"]["report"]["risk"]
    spec = embedded_spec(model)
    weak = sorted(lab for lab, x in risk.items() if x["f1"] < 0.5)
    assert sorted(spec.head("risk").disabled_labels) == weak
    for lab, x in risk.items():
        assert spec.head("risk").label_thresholds[lab] == x["threshold"]
        assert (f"risk.{lab}: disabled" in r.output) == (lab in weak)
    assert (
        spec.head("kind").threshold
        == json.loads(report.read_text())["tiny"]["report"]["kind"]["chosen"]
    )
    # the runtime reads the new spec: disabled flags are listed and never on
    res = Classifier(model).classify_bytes(b"mail me: someone@example.com\n")
    assert list(res.heads["risk"].disabled) == [
        lab for lab in spec.head("risk").labels if lab in weak
    ]
    assert not set(res.heads["risk"].labels) & set(weak)
    # inspect shows them
    from picohead_exporters.inspect import format_inspect, inspect_model

    doc = inspect_model(model)
    shown = next(h for h in doc["heads"] if h["name"] == "risk")["disabled_labels"]
    assert sorted(shown) == weak
    assert ("disabled (too weak on validation)" in format_inspect(doc)) == bool(weak)
    # a floor of 0 disables nothing
    r = CliRunner().invoke(main, [*argv, "--min-f1", "0"])
    assert r.exit_code == 0 and embedded_spec(model).head("risk").disabled_labels == ()


def test_calibrate_errors_exit_2(model_dir, tmp_path):
    corpus = write_toy_corpus(tmp_path / "corpus", n_train=10, n_eval=20)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    r = CliRunner().invoke(main, ["calibrate", str(bad), "--data", str(corpus)])
    assert r.exit_code == 2 and "error:" in r.output
    model = tmp_path / "tiny.onnx"
    shutil.copyfile(model_dir / "toy-tiny-fp32.onnx", model)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "x", "labels": {"kind": "sound"}, "source": "s"}) + "\n")
    r = CliRunner().invoke(
        main, ["calibrate", str(model), "--data", str(other), "--cache", str(tmp_path / "c")]
    )
    assert r.exit_code == 2 and "sound" in r.output


def test_cli_defaults_are_the_library_defaults():
    from picohead.calibrate import MIN_COVERAGE, MIN_F1
    from picohead.train_cli import calibrate_cmd

    defaults = {p.name: p.default for p in calibrate_cmd.params}
    assert defaults["min_f1"] == MIN_F1 and defaults["min_coverage"] == MIN_COVERAGE
