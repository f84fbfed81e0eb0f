"""The toy model every test that classifies runs on (runtime, CLI, scale, benchmarks).

``tests/runtime`` and ``benchmarks`` are on the import path through ``pythonpath`` in
``pyproject.toml``'s ``[tool.pytest.ini_options]``, so helpers (``toy_models``) and benchmark
scripts import by name; no test edits ``sys.path``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import toy_models


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``toy-tiny-fp32.onnx`` and ``toy-small-fp32.onnx``: a copy of the checked-in
    reference model (``tests/runtime/data/reference``, made by ``tests/runtime/make_reference.py``),
    shared by the session, so tests must not write into it; copy files to ``tmp_path``."""
    folder = tmp_path_factory.mktemp("toy-model")
    for tier in toy_models.TIERS:
        name = f"toy-{tier}-fp32.onnx"
        shutil.copyfile(toy_models.reference_dir() / name, folder / name)
    return folder
