"""Fixtures for the runtime tests: one exported toy model folder per session."""

from __future__ import annotations

from pathlib import Path

import pytest
import toy_models


@pytest.fixture(scope="session")
def model_dir(request: pytest.FixtureRequest) -> Path:
    """A folder with ``toy-tiny-fp32.onnx`` and ``toy-small-fp32.onnx`` (random toy model).

    Tests must not write into it (it is cached across sessions); copy files to ``tmp_path``.
    """
    return toy_models.toy_model_dir(toy_models.cache_root(request))


@pytest.fixture(scope="session")
def tiny_path(model_dir: Path) -> Path:
    return model_dir / "toy-tiny-fp32.onnx"


@pytest.fixture(scope="session")
def clf(model_dir: Path):
    from picohead_runtime import Classifier

    return Classifier(model_dir, tier="tiny")
