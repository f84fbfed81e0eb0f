"""Which runtime test modules may need the training side, and the names that make up that side.

The runtime tests run with only the runtime and test dependencies installed (``pip install -e
runtime pytest hypothesis pytest-timeout``). A module that imports torch, onnx or ``picohead`` at
module level must be listed in :data:`NEEDS_TRAINING` with the reason: ``conftest.py`` then reports
it as skipped where those packages are absent, and ``test_torch_free.py`` fails when a module that
is not listed imports one of them (or a listed one no longer does). Tests that need torch inside a
function call ``pytest.importorskip`` there.
"""

from __future__ import annotations

import importlib.util

# top-level package names the runtime tests must not need at import time
TRAINING_PACKAGES = ("torch", "onnx", "onnxscript", "picohead", "picohead_exporters")

# module file name -> why it needs the picohead package
NEEDS_TRAINING: dict[str, str] = {}


def training_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "picohead"))
