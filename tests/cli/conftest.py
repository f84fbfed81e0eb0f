"""Fixtures for the CLI tests: the runtime tests' toy model folder (exported once per session)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

import toy_models  # noqa: E402


@pytest.fixture(scope="session")
def model_dir(request: pytest.FixtureRequest) -> Path:
    """``toy-tiny-fp32.onnx`` and ``toy-small-fp32.onnx``; do not write into this folder."""
    return toy_models.toy_model_dir(toy_models.cache_root(request))
