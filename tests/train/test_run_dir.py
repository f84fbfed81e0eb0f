"""The run folder's owner: file names, the recorded validation policy, strict settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from picohead.run import HOLD_OUT, RunDir, Validation, stale
from picohead.train_config import ConfigError, TrainConfig
from picohead_runtime.spec import ModelSpec


def _spec() -> ModelSpec:
    from picohead.testing import toy_spec

    return ModelSpec.from_dict(toy_spec("steady"))


def test_an_unknown_training_setting_names_the_key_and_the_file():
    with pytest.raises(ConfigError, match=r"train\.json.*'crop_pro'"):
        TrainConfig.from_dict({"steps": 3, "crop_pro": 0.5}, source="train.json")
    assert TrainConfig.from_dict({"steps": 3, "_comment": "why"}).steps == 3


def test_the_validation_policy_is_recorded_and_read_back(tmp_path):
    run = RunDir(tmp_path / "run")
    policy = Validation(seed=7)
    run.write_config(_spec(), TrainConfig(seed=7), {"validation": policy.record()})
    assert run.validation() == Validation(held_out=HOLD_OUT, seed=7)
    other = RunDir(tmp_path / "other")
    other.write_config(_spec(), TrainConfig(), {"validation": {"manifest": "v.jsonl"}})
    assert other.validation().manifest == "v.jsonl"


def test_a_run_from_before_the_record_gets_the_policy_of_its_time(tmp_path):
    run = RunDir(tmp_path)
    run.write_config(_spec(), TrainConfig(seed=3), {"train": "t.jsonl"})
    assert run.validation() == Validation(held_out=0.1, seed=3)
    run.write_config(_spec(), TrainConfig(), {"train": "t.jsonl", "val": "v.jsonl"})
    assert run.validation().manifest == "v.jsonl"


def test_a_run_config_with_an_unknown_key_is_refused(tmp_path):
    run = RunDir(tmp_path)
    run.write_config(_spec(), TrainConfig(), {})
    doc = json.loads(run.config.read_text())
    doc["train"]["crop_pro"] = 1
    run.config.write_text(json.dumps(doc))
    with pytest.raises(ConfigError, match="crop_pro"):
        run.read_config()


def test_stale(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert stale(a, b)
    a.write_text("x")
    assert not stale(a, b)  # a source that does not exist makes nothing stale


def test_a_recipe_plan_with_an_unknown_key_names_it(tmp_path):
    from picohead.pipeline import load_train_plan

    (tmp_path / "train.json").write_text(
        json.dumps({"families": {"steady": {"train": {"stepz": 1}}}})
    )
    with pytest.raises(ConfigError, match=r"train\.json.*'stepz'"):
        load_train_plan(str(tmp_path))
    (tmp_path / "train.json").write_text(json.dumps({"families": {"steady": {"archh": {}}}}))
    with pytest.raises(ConfigError, match="'archh'"):
        load_train_plan(str(tmp_path))


def test_the_shipped_recipe_plan_loads():
    from picohead.pipeline import load_train_plan

    # bytes won no tier on corpus v2 (benchmarks/results/content_v8/bytes_family_trial.md)
    assert set(load_train_plan("content")["families"]) == {"steady"}


@pytest.mark.parametrize(
    "flags", [["--steps", "10"], ["--spec", "x.json"], ["--resume"], ["--lr", "0.1"]]
)
def test_train_recipe_refuses_flags_it_would_ignore(flags, tmp_path):
    from picohead.cli import main

    (tmp_path / "x.json").write_text("{}")
    args = [a if a != "x.json" else str(tmp_path / "x.json") for a in flags]
    r = CliRunner().invoke(main, ["train", "--recipe", "content", *args])
    assert r.exit_code == 2 and "not used with --recipe" in r.output, r.output
