"""The runtime tests import without torch, onnx or picohead (``torch_free.py``).

Every module under ``tests/runtime`` is imported in a fresh interpreter where those packages cannot
be imported; exactly the modules listed in ``torch_free.NEEDS_TRAINING`` may fail, and only for
that reason. The full check is the documented run in a venv with only the runtime and test
dependencies (README, "Testing").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import torch_free

HERE = Path(__file__).resolve().parent

_PROBE = textwrap.dedent(
    """
    import importlib, importlib.abc, json, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"blocked: {name}")
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, Block())
    failed = {}
    for module in sys.argv[2:]:
        try:
            importlib.import_module(module)
        except ImportError as e:
            failed[module] = str(e)
    print(json.dumps(failed))
    """
)


def test_runtime_test_modules_import_without_the_training_side() -> None:
    modules = sorted(p.stem for p in HERE.glob("*.py"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(torch_free.TRAINING_PACKAGES), *modules],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    failed = json.loads(out.strip().splitlines()[-1])
    listed = {Path(name).stem for name in torch_free.NEEDS_TRAINING}
    unexpected = {m: e for m, e in failed.items() if m not in listed}
    assert not unexpected, (
        f"these runtime test modules import the training side at module level: {unexpected}; "
        "import it inside the test (pytest.importorskip) or list the module in "
        "tests/runtime/torch_free.py NEEDS_TRAINING with the reason"
    )
    stale = listed - set(failed)
    assert not stale, f"{sorted(stale)} import without the training side: drop them from NEEDS_TRAINING"
    assert all(e.startswith("blocked: ") for e in failed.values()), failed
