"""Every trial result in benchmarks/results/ says how it was produced (issue 25): the commands and
config, and whether it can be rerun from what is committed (and why not)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
TRIALS = sorted(
    p
    for p in RESULTS.glob("*.json")
    if ("trial" in p.stem or "ablation" in p.stem or "contexts_val" in p.stem)
    and not p.stem.startswith("wild")
)


def test_there_are_trials():
    assert len(TRIALS) >= 10


@pytest.mark.parametrize("path", TRIALS, ids=lambda p: p.stem)
def test_trial_says_how_to_reproduce_it(path):
    d = json.loads(path.read_text())
    if "reproduce" not in d:  # a trial written with its commands at the top level
        assert d.get("commands"), f"{path.name}: no reproduce block and no commands"
        return
    r = d["reproduce"]
    assert isinstance(r["rerunnable"], bool) and r["commands"] and r["config"]
    if not r["rerunnable"]:
        assert r["why"], f"{path.name}: not rerunnable without saying why"
