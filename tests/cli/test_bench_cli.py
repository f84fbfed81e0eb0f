"""``picohead bench``: measures, prints p50/p95/p99 and files/s, and gates on a latency budget."""

import json
import subprocess
import sys

import pytest

from picohead_runtime.bench import main, percentile

FAST = ["--iterations", "50", "--warmup", "5"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv], prog="picohead bench")
    out, err = capsys.readouterr()
    return code, out, err


def test_within_budget_json(model_dir, capsys):
    code, out, _ = _run(
        capsys, "--model", model_dir, "--tier", "tiny", "--budget-ms", "10000", "--json", *FAST
    )
    assert code == 0
    (row,) = json.loads(out)["results"]
    assert row["tier"] == "tiny" and row["within_budget"] is True and row["calls"] == 50
    assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"] <= row["max_ms"]
    assert row["files_per_s"] > 0 and row["batched_files_per_s"] > 0


def test_over_budget_exits_1(model_dir, capsys):
    code, out, err = _run(
        capsys,
        "--model",
        model_dir,
        "--tier",
        "tiny",
        "--budget-ms",
        "0.000001",
        "--percentile",
        "50",
        *FAST,
    )
    assert code == 1
    assert "OVER" in out and "p50" in out and "over budget" in err


def test_all_tiers_with_input_folder(model_dir, tmp_path, capsys):
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_bytes(b"hello world\n" * (i * 50 + 1))
    (tmp_path / "empty").write_bytes(b"")
    code, out, _ = _run(
        capsys, "--model", model_dir, "--all-tiers", "--input", tmp_path, "--json", *FAST
    )
    assert code == 0
    rows = json.loads(out)["results"]
    assert [r["tier"] for r in rows] == ["tiny", "small"]
    assert all(r["files"] == 5 for r in rows)  # empty files are skipped


def test_single_input_file_and_table(model_dir, tmp_path, capsys):
    f = tmp_path / "one.py"
    f.write_bytes(b"import os\n")
    code, out, _ = _run(capsys, "--model", model_dir, "--input", f, *FAST)
    assert code == 0
    header, row = out.splitlines()
    assert header.split()[:4] == ["tier", "p50", "ms", "p95"] and row.startswith("small")


@pytest.mark.parametrize(
    "argv", [["--tier", "tiny", "--all-tiers"], ["--percentile", "0"], ["--budget-ms", "-1"]]
)
def test_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2


def test_errors_exit_2(model_dir, tmp_path, capsys):
    assert _run(capsys, "--model", model_dir, "--input", tmp_path / "none", *FAST)[0] == 2
    assert _run(capsys, "--model", tmp_path / "nope.onnx", *FAST)[0] == 2
    code, _, err = _run(capsys, "--model", model_dir / "toy-tiny-fp32.onnx", "--all-tiers", *FAST)
    assert code == 2 and "model folder" in err


def test_percentile_nearest_rank():
    xs = [float(i) for i in range(1, 101)]
    assert (
        percentile(xs, 50) == 50.0 and percentile(xs, 95) == 95.0 and percentile(xs, 100) == 100.0
    )
    assert percentile([3.0], 99) == 3.0


def test_picohead_bench_exit_code(model_dir):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "picohead",
            "bench",
            "--model",
            str(model_dir),
            "--tier",
            "tiny",
            "--budget-ms",
            "0.000001",
            *FAST,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 1, r.stderr
    assert "p50 ms" in r.stdout
