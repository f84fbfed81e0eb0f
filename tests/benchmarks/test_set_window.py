"""benchmarks/set_window.py: a copy of a model folder with a NUL-skipping window answers NUL
padding as the unpadded content; the original folder is untouched; bad input is a clear error."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
REFERENCE = ROOT / "tests" / "runtime" / "data" / "reference"

import set_window  # noqa: E402


def test_the_copy_skips_nul_runs_and_the_original_does_not(tmp_path, capsys):
    from picohead_runtime import Classifier

    src = tmp_path / "src"
    src.mkdir()
    for f in REFERENCE.glob("toy-*.onnx"):
        (src / f.name).write_bytes(f.read_bytes())
    before = {f.name: f.read_bytes() for f in src.glob("*.onnx")}
    assert set_window.main([str(src), str(tmp_path / "out"), "--skip-nul", "64"]) == 0
    assert {f.name: f.read_bytes() for f in src.glob("*.onnx")} == before
    body = b"def f(x):\n    return x * 2\n" * 30
    for name in before:
        on, off = Classifier(tmp_path / "out" / name), Classifier(src / name)
        assert on.spec.window.skip_nul == 64 and off.spec.window.skip_nul == 0
        assert on.classify_bytes(b"\0" * 1024 + body).asdict() == on.classify_bytes(body).asdict()
        assert off.classify_bytes(b"\0" * 1024 + body).asdict() != off.classify_bytes(body).asdict()
    assert set_window.main([str(tmp_path / "none"), str(tmp_path / "o2"), "--skip-nul", "64"]) == 2
    assert "no model folder" in capsys.readouterr().err
