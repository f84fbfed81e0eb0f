"""benchmarks/candidates/*: every committed candidate loads in the runtime, answers every head on
every tier, and carries what the next session needs to calibrate it (README, corpus id list)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from picohead.data.producers import read_ids
from picohead_runtime import Classifier

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = sorted(p for p in (ROOT / "benchmarks" / "candidates").glob("*") if p.is_dir())


@pytest.mark.parametrize("folder", CANDIDATES, ids=lambda p: p.name)
def test_a_candidate_loads_and_answers(folder: Path) -> None:
    assert (folder / "README.md").is_file()
    assert len(read_ids(folder / "corpus_git_ids.txt.gz")) > 1000
    # the tiers the candidate bundled (a tier over its budget is left out, as content-v16rc1's tiny)
    tiers = json.loads((folder / "model.json").read_text())["tiers"]
    assert tiers and set(tiers) <= {"tiny", "small", "base", "pro"}
    for tier in tiers:
        clf = Classifier(folder, tier=tier)
        code, png, empty = clf.classify_many_bytes(
            [b"def f(x):\n    return x + 1\n", b"\x89PNG\r\n\x1a\n" + bytes(64), b""])
        assert set(code.heads) >= {"coarse", "mime", "code_lang", "risk"}
        assert set(png.heads) >= {"coarse", "mime", "risk"} and empty.status == "empty"


def test_the_shipped_models_corpus_ids_are_kept() -> None:
    """content-v9's small/base/pro were trained on a corpus whose git part a session scoring them
    may not be able to fetch; the wild build drops those samples by this list (--corpus-ids)."""
    ids = read_ids(ROOT / "benchmarks" / "results" / "content_v9" / "corpus_git_ids.txt.gz")
    assert len(ids) > 7000 and all(len(i) == 16 for i in list(ids)[:100])


def test_the_shipped_pros_registry_ids_are_kept() -> None:
    """content-v13's pro (content-v13rc1): its corpus's registry part as an id list, so a session
    scoring it against a new candidate dedups the wild suite without a ~50-minute registry build."""
    ids = read_ids(ROOT / "benchmarks" / "candidates" / "content-v13rc1" / "corpus_registry_ids.txt.gz")
    assert len(ids) > 200_000
