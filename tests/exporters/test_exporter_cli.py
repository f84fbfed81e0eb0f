"""``picohead export`` and ``picohead inspect`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner


@pytest.mark.parametrize("cmd", ["export", "inspect"])
def test_help_in_a_subprocess(cmd):
    out = subprocess.run(
        [sys.executable, "-m", "picohead", cmd, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Usage" in out.stdout and cmd in out.stdout


def test_top_level_help_does_not_import_torch():
    code = (
        "import sys; from click.testing import CliRunner; from picohead.cli import main; "
        "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0, r.output; "
        "assert 'export' in r.output and 'inspect' in r.output; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_inspect_prints_spec_heads_and_sizes(steady_tiny):
    from picohead.cli import main

    _, spec, report = steady_tiny
    r = CliRunner().invoke(main, ["inspect", report.path])
    assert r.exit_code == 0, r.output
    for word in ("tier tiny", "fp32", "steady", "risk", "multilabel", "api_key", "KB"):
        assert word in r.output
    r = CliRunner().invoke(main, ["inspect", report.path, "--json"])
    doc = json.loads(r.output)
    assert doc["tier"] == "tiny" and doc["self_contained"]
    assert [h["name"] for h in doc["heads"]] == list(spec.head_names)
    assert doc["inputs"]["bytes"] == ["batch", "length"]
    assert doc["spec"] == spec.to_dict()


def test_inspect_rejects_a_model_without_metadata(steady_tiny, tmp_path):
    import onnx

    from picohead.cli import main

    m = onnx.load(steady_tiny[2].path)
    del m.metadata_props[:]
    onnx.save(m, tmp_path / "bare.onnx")
    r = CliRunner().invoke(main, ["inspect", str(tmp_path / "bare.onnx")])
    assert r.exit_code == 2 and "not an exported picohead model" in r.output


def test_export_of_a_folder_that_is_no_run_is_exit_2(tmp_path):
    from picohead.cli import main

    r = CliRunner().invoke(main, ["export", str(tmp_path)])
    assert r.exit_code == 2 and "not a picohead run" in r.output


def test_export_cuda_int8_is_a_usage_error(tmp_path):
    from picohead.cli import main

    r = CliRunner().invoke(
        main, ["export", str(tmp_path), "--target", "cuda", "--precision", "int8"]
    )
    assert r.exit_code == 2


@pytest.mark.slow
def test_export_command_writes_files_and_prints_the_table(steady_run, tmp_path):
    from picohead.cli import main

    out = tmp_path / "onnx"
    r = CliRunner().invoke(
        main, ["export", str(steady_run), "--out", str(out), "--latency-runs", "10"]
    )
    assert r.exit_code == 0, r.output
    assert "tier" in r.output and "min agree" in r.output and "ok int8" in r.output
    assert sorted(p.name for p in out.iterdir()) == ["toy-small-int8.onnx", "toy-tiny-int8.onnx"]


@pytest.mark.slow
def test_export_command_exits_1_when_a_gate_fails(steady_run, tmp_path, monkeypatch):
    import picohead_exporters.verify as verify
    from picohead.cli import main

    monkeypatch.setattr(verify, "PARITY_TOL", 0.0)  # nothing is that exact
    out = tmp_path / "onnx"
    r = CliRunner().invoke(
        main,
        ["export", str(steady_run), "--tier", "tiny", "--out", str(out), "--latency-runs", "0"],
    )
    assert r.exit_code == 1, r.output
    assert "FAILED" in r.output and "gate failed" in r.output
    assert not out.exists() or not list(out.iterdir())
