"""Every command line under a full disk, a closed stdout and a closed stdin (issue 24): exit 2
with one line on stderr naming what failed, never a traceback; a closed stdin the command does
not read changes nothing. Also: bench never passes on nothing, --device auto prints no raw Python
warning, export --help names the tiers."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import onnxruntime as ort
import pytest

PY = shlex.quote(sys.executable)


def _commands(model_dir: Path, sample: Path) -> dict[str, str]:
    m = f"--model {shlex.quote(str(model_dir))} --tier tiny"
    s = shlex.quote(str(sample))
    return {
        "picohead classify": f"{PY} -m picohead classify {m} {s}",
        "python -m picohead_runtime": f"{PY} -m picohead_runtime {m} {s}",
        "picohead scan": f"{PY} -m picohead scan {m} {s} --no-progress",
        "picohead bench": f"{PY} -m picohead bench {m} --input {s} --iterations 3 --warmup 1",
    }


def _run(line: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("io") / "sample.py"
    p.write_text("def f(x):\n    return x + 1\n" * 20)
    return p


NAMES = ["picohead classify", "python -m picohead_runtime", "picohead scan", "picohead bench"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("name", NAMES)
def test_full_disk(name, model_dir, sample):
    p = _run(_commands(model_dir, sample)[name] + " > /dev/full")
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr
    (line,) = [x for x in p.stderr.splitlines() if "error" in x]
    assert "cannot write results" in line and "No space left on device" in line


@pytest.mark.parametrize("name", NAMES)
def test_closed_stdout(name, model_dir, sample):
    p = _run(_commands(model_dir, sample)[name] + " >&-")
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    (line,) = [x for x in p.stderr.splitlines() if "error" in x]
    assert "stdout is closed" in line


@pytest.mark.parametrize("name", NAMES)
def test_closed_stdin_not_read(name, model_dir, sample):
    p = _run(_commands(model_dir, sample)[name] + " <&-")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr and p.stdout


@pytest.mark.parametrize(
    "line",
    [
        "{py} -m picohead classify {m} -",
        "{py} -m picohead_runtime {m} -",
        "{py} -m picohead scan {m} -f -",
    ],
)
def test_closed_stdin_read(line, model_dir):
    m = f"--model {shlex.quote(str(model_dir))} --tier tiny"
    p = _run(line.format(py=PY, m=m) + " <&-")
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "stdin" in p.stderr


def test_bench_fails_when_nothing_was_timed(model_dir, tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "e").write_bytes(b"")
    m = f"--model {shlex.quote(str(model_dir))} --tier tiny --budget-ms 10"
    for target in (empty, folder):
        p = _run(f"{PY} -m picohead bench {m} --input {shlex.quote(str(target))}")
        assert p.returncode == 2 and "nothing to time" in p.stderr and "Traceback" not in p.stderr


def test_bench_unit_leaves_out_what_gives_no_model_call(model_dir, tmp_path):
    from picohead_runtime import Classifier
    from picohead_runtime.bench import NothingToTime, timeable

    (tmp_path / "ok").write_text("hello")
    clf = Classifier(model_dir, tier="tiny")
    assert timeable(clf, [str(tmp_path / "ok"), str(tmp_path / "gone")]) == [str(tmp_path / "ok")]
    with pytest.raises(NothingToTime):
        timeable(clf, [str(tmp_path / "gone")])


@pytest.mark.skipif(
    "CUDAExecutionProvider" in ort.get_available_providers(), reason="this machine has CUDA"
)
def test_device_auto_on_cpu_prints_one_clean_line(model_dir, sample):
    m = f"--model {shlex.quote(str(model_dir))} --tier tiny"
    p = _run(f"{PY} -m picohead classify {m} --device auto {shlex.quote(str(sample))}")
    assert p.returncode == 0
    assert p.stderr.strip().splitlines() == [
        "WARNING picohead_runtime: device='auto': no usable CUDA execution provider, running on "
        "the CPU"
    ]


def test_export_help_names_the_tiers():
    from click.testing import CliRunner

    from picohead.export_cli import export_cmd

    out = CliRunner().invoke(export_cmd, ["--help"]).output
    assert "tiny, small, base, pro" in " ".join(out.split())


def test_an_unexpected_error_is_one_line(monkeypatch, capsys):
    """The last safety net of every command line: one line, exit 2, no traceback."""
    from picohead_runtime.cli import describe_error, guarded

    def boom(argv, prog):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.delenv("PICOHEAD_DEBUG", raising=False)
    assert guarded(boom, [], "prog") == 2
    err = capsys.readouterr().err
    assert err.strip() == "prog: error: RuntimeError: boom (PICOHEAD_DEBUG=1 shows the traceback)"
    e = OSError(5, "Input/output error", "/some/file")
    assert describe_error(e) == "/some/file: Input/output error"
