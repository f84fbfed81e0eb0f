"""Fixtures for the scale-out tests: the runtime tests' toy model, and a small tree of files.

The model is the checked-in toy model every test uses (``model_dir``, ``tests/conftest.py``).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from picohead.testing import write_toy_corpus

N_FILES = 96


@pytest.fixture(scope="session")
def scale_model(model_dir: Path) -> Path:
    """The toy model folder (``toy-tiny-fp32.onnx``, ``toy-small-fp32.onnx``); do not write to it."""
    return model_dir


@pytest.fixture(scope="session")
def scale_config(scale_model: Path):
    from picohead_runtime.scale import ScaleConfig

    # a small batch size, so partitions and actors see several model calls each
    return ScaleConfig(model=str(scale_model), tier="tiny", batch_size=16)


@pytest.fixture(scope="session")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``N_FILES`` toy files in nested folders, plus an empty file, a symlink, a name that is not
    valid UTF-8 and a file with a newline in its name."""
    root = tmp_path_factory.mktemp("tree")
    corpus = write_toy_corpus(tmp_path_factory.mktemp("corpus"), n_train=N_FILES, n_eval=1)
    lines = (corpus / "train.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        folder = root / f"d{i % 3}" / f"e{i % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:03d}.txt").write_bytes(base64.b64decode(json.loads(line)["b64"]))
    (root / "empty.txt").write_bytes(b"")
    (root / "link.txt").symlink_to(root / "d0" / "e0" / "f000.txt")
    (root / "new\nline.py").write_bytes(b"def f():\n    return 1\n")
    os.close(os.open(os.fsencode(root) + b"/bad\xff.c", os.O_CREAT | os.O_WRONLY, 0o644))
    with open(os.fsencode(root) + b"/bad\xff.c", "wb") as f:
        f.write(b"#include <stdio.h>\nint main(void) { return 0; }\n")
    return root


@pytest.fixture(scope="session")
def tree_paths(tree: Path) -> list[str]:
    """Every path under ``tree`` in ``picohead scan`` order, plus one that does not exist."""
    from picohead_runtime.cli import expand

    return [*expand([str(tree)], recursive=True, follow_symlinks=False), str(tree / "missing")]


@pytest.fixture(scope="session")
def expected(scale_config, tree_paths: list[str]) -> list[str]:
    """The single-process answer: one JSONL line per path, from ``Classifier.classify_paths``
    with the same batch size (a different one can move a score in its 6th decimal)."""
    from picohead_runtime import Classifier
    from picohead_runtime.cli import format_jsonl

    clf = Classifier(scale_config.model, tier="tiny", batch_size=scale_config.batch_size)
    return [format_jsonl(r) for r in clf.classify_paths(tree_paths)]
