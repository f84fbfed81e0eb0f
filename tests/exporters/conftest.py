"""Fixtures for the exporter tests: toy models (random or briefly trained) and their exports.

Exports take seconds each (dynamo tracing, ORT sessions), so models are built once per module or
session; anything beyond one export per fixture is in ``@pytest.mark.slow`` tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from exporter_helpers import random_model

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")


@pytest.fixture(scope="module")
def steady_tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, Any]:
    """A random toy steady model, its spec and the fp32 export report of its tiny tier."""
    from picohead.export import export_tier

    model, spec = random_model("steady")
    out = tmp_path_factory.mktemp("steady-tiny")
    report = export_tier(model, spec, "tiny", out=out, precision="fp32", latency_runs=5)
    return model, spec, report


@pytest.fixture(scope="session")
def toy_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from picohead.testing import write_toy_corpus

    return write_toy_corpus(tmp_path_factory.mktemp("toy-corpus"))


@pytest.fixture(scope="session")
def steady_run(toy_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A briefly trained toy steady run (a few seconds), with the corpus's val.jsonl."""
    from picohead.dataset import load_manifest
    from picohead.train import TrainConfig, train
    from picohead_runtime.spec import load_spec

    spec = load_spec(toy_corpus / "spec-steady.json")
    tr = load_manifest(toy_corpus / "train.jsonl", spec)
    va = load_manifest(toy_corpus / "val.jsonl", spec)
    out = tmp_path_factory.mktemp("runs") / "steady"
    info = {
        "train": str(toy_corpus / "train.jsonl"),
        "train_sha256": tr.data_hash,
        "val": str(toy_corpus / "val.jsonl"),
    }
    cfg = TrainConfig(steps=200, batch_size=32, eval_every=100, seed=0)
    train(spec, tr, va, out, cfg, data_info=info, progress=False)
    return out
