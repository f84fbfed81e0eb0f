"""Failure tolerance and the comparison with the last good build, through ``picohead data build``.

The recipes here hold generated formats only (no cache needed) and, where a build must fail, a
git entry with no mirror folder (it fails offline at once)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from picohead.data.baseline import LAST_GOOD, compare
from picohead.data.cli import data
from picohead.data.tolerance import describe, judge

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "picohead" / "recipes" / "content" / "spec.json"
GIT = {"kind": "git", "name": "someone/tool", "repo": "someone/tool", "commit": "0" * 40,
       "licence": "MIT", "paths": ["src"], "take": [{"ext": [".py"], "code": "python"}]}


def _recipe(tmp: Path, sources: list[dict], **settings: object) -> Path:
    rdir = tmp / "recipe"
    rdir.mkdir(exist_ok=True)
    shutil.copy(SPEC, rdir / "spec.json")
    base = {"per_format": 6, "risk_per_label": 0, "generators": ["svg", "sqlite"],
            "min_groups_per_label": 0, "min_per_split": {"train": 0, "val": 0, "test": 0},
            "max_failed_share": {"git": 0.05}}
    (rdir / "recipe.json").write_text(json.dumps(
        {"name": "tiny", "version": 1, "settings": {**base, **settings}, "sources": sources}))
    return rdir


def _run(rdir: Path, out: Path, *extra: str):
    return CliRunner().invoke(data, ["build", "--recipe", str(rdir), "--out", str(out),
                                     "--cache", str(out.parent / "cache"), "--jobs", "1", *extra])


def test_failed_kind_over_tolerance_exits_2_and_names_it(tmp_path: Path) -> None:
    rdir, out = _recipe(tmp_path, [GIT]), tmp_path / "out"
    r = _run(rdir, out)
    assert r.exit_code == 2, r.output
    assert "git: 1 of 1 failed" in r.output
    card = json.loads((out / "card.json").read_text())  # written all the same
    assert card["tolerance"]["kinds_over"] == ["git"] and (out / "train.jsonl").is_file()
    assert not (out / LAST_GOOD).exists()
    r = _run(rdir, out, "--allow-degraded")
    assert r.exit_code == 0, r.output
    assert not (out / LAST_GOOD).exists()  # a degraded build is not a good one


def test_failures_within_tolerance_pass_and_become_the_last_good_build(tmp_path: Path) -> None:
    rdir, out = _recipe(tmp_path, [GIT], max_failed_share={"git": 1.0}), tmp_path / "out"
    r = _run(rdir, out)
    assert r.exit_code == 0, r.output
    good = json.loads((out / LAST_GOOD).read_text())
    assert good["tolerance"]["passed"] and good["comparison"]["baseline"] is None
    for s in ("train", "val", "test"):
        for line in (out / f"{s}.jsonl").read_text().splitlines():
            assert json.loads(line)["producer"].startswith("gen:")


def test_label_below_the_last_good_build_exits_2_and_the_card_compares(tmp_path: Path) -> None:
    rdir, out = _recipe(tmp_path, []), tmp_path / "out"
    assert _run(rdir, out).exit_code == 0
    good = json.loads((out / LAST_GOOD).read_text())
    svg = good["per_head"]["mime"]["image/svg+xml"]
    svg["train"] += 100  # the last good build had many more
    good["per_head"]["mime"]["image/x-gone"] = {"train": 5, "val": 0, "test": 0}
    (out / LAST_GOOD).write_text(json.dumps(good))
    r = _run(rdir, out)
    assert r.exit_code == 2, r.output
    assert "mime=image/svg+xml" in r.output and "mime=image/x-gone 5 -> 0" in r.output
    card = json.loads((out / "card.json").read_text())
    row = card["comparison"]["labels"]["mime"]["image/svg+xml"]
    assert row["delta"] == -100 and row["before"] == row["now"] + 100
    assert card["comparison"]["disappeared"] == ["mime=image/x-gone"]
    md = (out / "DATASET_CARD.md").read_text()
    assert "Compared with the last good build" in md and "image/x-gone" in md


def test_compare_lists_appeared_and_disappeared() -> None:
    now = {"mime": {"a": {"train": 8, "val": 1, "test": 1}, "new": {"train": 3}}}
    before = {"mime": {"a": {"train": 16, "val": 2, "test": 2}, "old": {"train": 4}}}
    c = compare(now, before, "x")
    assert c["labels"]["mime"]["a"] == {"before": 20, "now": 10, "delta": -10, "change": -0.5}
    assert c["appeared"] == ["mime=new"] and c["disappeared"] == ["mime=old"]
    assert compare(now, None, None)["baseline"] is None


def test_a_label_dropped_under_the_split_minimum_that_the_baseline_kept_fails_the_build() -> None:
    mins = {"train": 200, "val": 30, "test": 30}
    before = {"code_lang": {"dockerfile": {"train": 202, "val": 30, "test": 32},
                            "thin": {"train": 50, "val": 5, "test": 5}}}
    now = {"code_lang": {"dockerfile": {"train": 199, "val": 30, "test": 30},
                         "thin": {"train": 48, "val": 5, "test": 5}}}
    dropped = {"code_lang": {"dockerfile": "not enough real samples: train 199 < 200",
                             "thin": "not enough real samples: train 48 < 200"}}
    c = compare(now, before, "x", dropped, mins)
    assert c["lost"] == ["code_lang=dockerfile"]  # 'thin' was too thin for the baseline too
    v = judge([], {}, [], [], {}, c, 0.2)
    assert not v["labels_fell"] and v["labels_lost"] == ["code_lang=dockerfile"]
    assert not v["passed"] and "code_lang=dockerfile" in describe(v)
    assert judge([], {}, [], [], {}, compare(now, before, "x"), 0.2)["passed"]


def test_judge_per_kind_shares_and_unlisted_kinds_tolerate_nothing() -> None:
    entries = [{"kind": "deb"}] * 10 + [{"kind": "npm"}] * 2
    v = judge(entries, {"deb:a": "x", "npm:b": "y"}, ["svg"], [], {"deb": 0.1}, {}, 0.2)
    assert v["kinds"]["deb"]["share"] == 0.1 and not v["kinds"]["deb"]["over"]
    assert v["kinds_over"] == ["npm"] and not v["passed"]
    v = judge(entries, {}, ["svg", "av"], ["av: ffmpeg missing"], {"gen": 0.5}, {}, 0.2)
    assert v["kinds"]["gen"] == {"entries": 2, "failed": 1, "share": 0.5, "limit": 0.5,
                                 "over": False}
    assert v["passed"]
