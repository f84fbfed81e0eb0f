"""The wild suite's records, split and figures, on hand-made samples (no network)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from picohead.data.gitmirror import MirrorError, clone_commands, open_mirror
from picohead.wild import metrics
from picohead.wild.suite import StageWriter, assign_splits, finalise, load_suite, read_splits


def test_writer_dedups_checks_labels_and_finalise_splits_by_project(tmp_path: Path) -> None:
    w = StageWriter(tmp_path, "code_lang")
    for proj in ["alpha", "beta", "gamma", "delta"]:
        for j in range(3):
            assert w.add(f"{proj} {j}".encode(), "go", producer=f"git:o/{proj}", licence="MIT",
                         path=f"f{j}.go") is not None
    assert w.add(b"alpha 0", "go", producer="git:o/other", licence="MIT", path="x.go") is None
    with pytest.raises(TypeError):
        w.add(b"x", ["go"], producer="git:o/p", licence="MIT", path="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        w.add(b"y", "go", producer="nokind", licence="MIT", path="y")
    w.close()
    recs = finalise(tmp_path)
    assert len(recs) == 12 and {r["split"] for r in recs} == {"dev", "test"}
    halves: dict[str, set[str]] = {}
    for r in recs:
        halves.setdefault(r["project"], set()).add(r["split"])
    assert all(len(s) == 1 for s in halves.values())  # a project lives in one half
    assert len(load_suite(tmp_path, task="code_lang", split="test")) == 6
    r = recs[0]
    assert (tmp_path / r["path"]).read_bytes().decode().split()[0] == r["project"]
    assert r["prov"]["sha256"] == r["id"] and r["prov"]["licence"] == "MIT"


def test_a_single_producer_label_goes_to_test() -> None:
    recs = [{"task": "text_lang", "label": "bn", "kind": "sentence", "project": "ud-bengali"}]
    assert assign_splits(recs) == {"ud-bengali": "test"}


def test_pinned_projects_keep_their_half_when_a_label_gains_projects(tmp_path: Path) -> None:
    def recs(names: list[str]) -> list[dict]:
        return [{"task": "code_lang", "label": "go", "kind": None, "project": n} for n in names]

    first = assign_splits(recs(["alpha", "beta", "gamma", "delta"]))
    grown = recs(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"])
    moved = assign_splits(grown)
    assert any(moved[p] != h for p, h in first.items())  # dealt afresh, some project moves
    kept = assign_splits(grown, first)
    assert all(kept[p] == h for p, h in first.items())
    assert set(kept.values()) == {"dev", "test"} and set(kept) == {r["project"] for r in grown}
    assert assign_splits(recs(["alpha"]), {"alpha": "dev", "gone": "test"}) == {"alpha": "dev"}
    with pytest.raises(ValueError, match="halves"):
        assign_splits(recs(["alpha"]), {"alpha": "train"})
    w = StageWriter(tmp_path, "code_lang")  # finalise writes the file a later build pins to
    for i, proj in enumerate(["alpha", "beta", "gamma"]):
        w.add(f"{proj}".encode(), "go", producer=f"git:o/{proj}", licence="MIT", path=f"{i}.go")
    w.close()
    out = finalise(tmp_path, pinned={"alpha": "dev"})
    written = read_splits(tmp_path / "splits.json")
    assert written == {r["project"]: r["split"] for r in out} and written["alpha"] == "dev"
    (tmp_path / "bad.json").write_text('{"alpha": "train"}')
    with pytest.raises(ValueError, match="not a project"):
        read_splits(tmp_path / "bad.json")


def test_softmax_scores_by_hand() -> None:
    rows = [{"truth": "a", "final": "a", "raw": "a"}, {"truth": "a", "final": "unknown", "raw": "a"},
            {"truth": "b", "final": "a", "raw": "a"}, {"truth": "c", "final": "(absent)", "raw": None}]
    d = metrics.softmax_scores(rows)
    assert d["accuracy"] == 25.0 and d["raw_top1"] == 50.0
    assert d["coverage"] == 50.0 and d["confident_wrong"] == 25.0
    assert d["per_class"]["a"] == {"n": 2, "precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert metrics.softmax_scores(rows, vocab={"a", "b"}, per_class=False)["n"] == 3


def test_the_report_shows_generic_answers_apart_from_wrong_ones() -> None:
    from picohead.data.labels import generic_mime
    from picohead.wild.report import report_md
    from picohead_runtime.decode import GENERIC_REASON

    generic = generic_mime("image/x-tga")
    rows = [{"truth": "image/png", "final": "image/png", "raw": "image/png", "short": False},
            {"truth": "image/x-tga", "final": generic, "raw": "image/png", "short": False,
             "reason": f"score 0.4 ...; its family scores 0.9, {GENERIC_REASON}"},
            {"truth": "image/gif", "final": "image/png", "raw": "image/png", "short": True}]
    d = metrics.softmax_scores(rows)
    d["by_kind"], d["under_256_bytes"] = {}, metrics.softmax_scores(rows[2:], per_class=False)
    out = {"split": "test", "model": "m", "records": 3, "command": "c", "date": "d",
           "tasks": {"mime": {"n": 3, "picohead": {"pro": d}, "anchors": {}, "both": {}}},
           "robustness": {"pro": {"padding": {"1 KB newlines": {"share": 0.0}},
                                  "batch": {"flipped": 0, "n": 3, "max_score_diff": 0.0},
                                  "tiny_inputs": {"flagged": 0, "n": 1}}},
           "anchors_skipped": {}}
    md = report_md(out)
    row = next(x for x in md.splitlines() if x.startswith("| picohead pro"))
    assert row.split(" | ")[1:6] == ["33.3 %", "33.3 %", "100.0 %", "33.3 %", "33.3 %"]

def test_risk_scores_by_hand() -> None:
    rows = [{"truth": ["jwt"], "flags": ["jwt"], "kind": "positive"},
            {"truth": ["password"], "flags": [], "kind": "positive"},
            {"truth": [], "flags": ["api_key"], "kind": "lookalike"},
            {"truth": [], "flags": [], "kind": "lookalike"},
            {"truth": [], "flags": [], "kind": "tiny"}]
    d = metrics.risk_scores(rows, ["jwt", "password", "api_key"])
    assert d["per_flag"]["jwt"]["f1"] == 1.0 and d["per_flag"]["password"]["recall"] == 0.0
    assert d["negatives_flagged"]["lookalike"] == {"n": 2, "flagged": 1, "share": 50.0}
    assert d["negatives_flagged"]["tiny"]["share"] == 0.0


def test_git_mirror_reads_a_pinned_commit(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()

    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(work), *a], check=True, capture_output=True,
                              text=True).stdout.strip()
    git("init", "-q")
    (work / "src").mkdir()
    (work / "src" / "a.go").write_text("package a\n")
    (work / "README").write_text("hi\n")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
    commit = git("rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--mirror", str(work), str(mirrors / "o+r")], check=True)
    m = open_mirror(mirrors, "o/r")
    assert m.resolve(None) == commit
    rows = m.files(commit, ["src/"])
    assert [r[0] for r in rows] == ["src/a.go"]
    assert dict(m.read([rows[0][1]])) == {rows[0][1]: b"package a\n"}
    with pytest.raises(MirrorError, match="git clone --mirror"):
        open_mirror(mirrors, "o/absent")
    assert clone_commands([{"kind": "git", "repo": "o/r", "commit": commit}], "M") == [
        f"git init -q --bare M/o+r && git -C M/o+r fetch -q --depth 1 https://github.com/o/r "
        f"{commit}"]
    # the printed command works: a shallow fetch of the pinned commit is enough to read it
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "init", "-q", "--bare", str(shallow / "o+r")], check=True)
    subprocess.run(["git", "-C", str(shallow / "o+r"), "fetch", "-q", "--depth", "1",
                    f"file://{work}", commit], check=True)
    m2 = open_mirror(shallow, "o/r")
    assert [r[0] for r in m2.files(commit)] == ["README", "src/a.go"]


def test_the_card_block_is_put_once_and_survives_a_regeneration() -> None:
    from picohead.wild.report import CARD_BEGIN, CARD_END, keep_block, put_block

    card = "# Model card\n\nintro\n\n## Data\n\nrows\n"
    block = f"{CARD_BEGIN}\n## Wild\n\nfigures\n{CARD_END}\n"
    once = put_block(card, block)
    assert once.index(CARD_BEGIN) < once.index("## Data") and once.count(CARD_BEGIN) == 1
    newer = f"{CARD_BEGIN}\n## Wild\n\nnew figures\n{CARD_END}\n"
    twice = put_block(once, newer)
    assert "new figures" in twice and twice.count(CARD_BEGIN) == 1
    regenerated = keep_block(twice, card.replace("rows", "other rows"))
    assert "new figures" in regenerated and "other rows" in regenerated
