"""`picohead train --recipe`: the command passes its folders to the pipeline (no pipeline run)."""

import json
from pathlib import Path

from click.testing import CliRunner

import picohead.pipeline
from picohead.train_cli import train_cmd


def _calls(monkeypatch):
    calls = []

    def fake(name, **kw):
        calls.append((name, kw))
        return {"choice": {}}

    monkeypatch.setattr(picohead.pipeline, "run_recipe", fake)
    return calls


def test_recipe_uses_the_cache_it_is_given(monkeypatch, tmp_path):
    calls = _calls(monkeypatch)
    res = CliRunner().invoke(train_cmd, ["--recipe", "content", "--cache", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == {"choice": {}}
    ((name, kw),) = calls
    assert name == "content" and kw["cache"] == tmp_path / "c"
    assert kw["corpus"] == Path("corpus") and kw["runs"] == Path("runs")


def test_recipe_cache_defaults_to_the_cache_root(monkeypatch):
    calls = _calls(monkeypatch)
    res = CliRunner().invoke(train_cmd, ["--recipe", "content"])
    assert res.exit_code == 0, res.output
    assert calls[0][1]["cache"] == Path("cache")  # not the windows cache, cache/windows
