"""Fixtures for the runtime tests (``model_dir`` comes from ``tests/conftest.py``), and modules that
need the training side reported as skipped where it is not installed (``torch_free.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch_free


class _NeedsTraining(pytest.Module):
    """A test module that imports the picohead package at module level: collected as one skip."""

    reason = ""

    def collect(self):  # type: ignore[override]
        pytest.skip(self.reason, allow_module_level=True)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    reason = torch_free.NEEDS_TRAINING.get(module_path.name)
    if reason is None or torch_free.training_installed():
        return None
    module = _NeedsTraining.from_parent(parent, path=module_path)
    module.reason = f"{module_path.name} needs torch and picohead: {reason}"
    return module


@pytest.fixture(scope="session")
def tiny_path(model_dir: Path) -> Path:
    return model_dir / "toy-tiny-fp32.onnx"


@pytest.fixture(scope="session")
def clf(model_dir: Path):
    from picohead_runtime import Classifier

    return Classifier(model_dir, tier="tiny")
