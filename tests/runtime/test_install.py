"""The runtime installs and runs without torch or onnx.

Fast: the declared dependencies are numpy and onnxruntime only, and a process in which importing
torch/onnx fails outright can still import the package, load a model, classify and run the CLI.
Slow: ``pip install ./runtime`` into a fresh venv installs neither torch nor onnx.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
import venv
from importlib import metadata
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
FORBIDDEN = ("torch", "onnx", "onnxscript", "click", "tqdm", "picohead", "picohead_exporters")


def test_declared_dependencies_are_numpy_and_onnxruntime_only():
    """As installed (the wheel's metadata), not counting the ``gpu`` extra."""
    required = [r for r in metadata.requires("picohead-runtime") or [] if "extra ==" not in r]
    names = sorted(re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower() for r in required)
    assert names == ["numpy", "onnxruntime"]
    text = (RUNTIME / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", text, re.M | re.S)
    assert deps and sorted(re.findall(r'"([a-z_-]+)', deps.group(1))) == ["numpy", "onnxruntime"]


BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys

    FORBIDDEN = {forbidden!r}

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in FORBIDDEN:
                raise ImportError(f"blocked import of {{name}}")
            return None

    sys.meta_path.insert(0, Block())
    """
)


def test_runtime_works_with_torch_and_onnx_blocked(model_dir, tmp_path):
    (tmp_path / "a.py").write_bytes(b"print('hi')\n")
    script = BLOCKER.format(forbidden=FORBIDDEN) + textwrap.dedent(
        f"""
        import io, json, sys
        import picohead_runtime
        from picohead_runtime import Classifier
        from picohead_runtime.cli import main
        from picohead_runtime.bench import main as bench_main
        clf = Classifier({str(model_dir)!r}, tier="tiny")
        r = clf.classify_path({str(tmp_path / "a.py")!r})
        assert r.ok, r
        code = main(["--model", {str(model_dir)!r}, "--jsonl", {str(tmp_path / "a.py")!r}])
        assert code == 0
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in {FORBIDDEN!r})
        print(json.dumps(loaded), file=sys.stderr)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PICOHEAD_MODEL"}
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stderr.strip().splitlines()[-1]) == []


def test_importing_the_package_is_light():
    """``import picohead_runtime.spec`` (what training imports) does not load onnxruntime."""
    code = "import sys, picohead_runtime.spec, picohead_runtime.windows; print('onnxruntime' in sys.modules)"
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert r.stdout.strip() == "False", r.stderr


@pytest.mark.slow
def test_pip_install_into_fresh_venv(tmp_path, model_dir):
    """Needs the package registry (numpy, onnxruntime); skipped when it cannot be reached."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(RUNTIME)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if r.returncode != 0 and ("connection" in r.stderr.lower() or "resolve" in r.stderr.lower()):
        pytest.skip(f"package registry unreachable: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr
    listed = subprocess.run(
        [str(py), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True
    )
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "picohead-runtime" in names and "onnxruntime" in names and "numpy" in names
    assert not names & {"torch", "onnx", "onnxscript", "click", "tqdm"}, names
    (tmp_path / "a.txt").write_bytes(b"hello\n")
    run = subprocess.run(
        [
            str(py),
            "-m",
            "picohead_runtime",
            "--model",
            str(model_dir),
            "--jsonl",
            str(tmp_path / "a.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "ok"
