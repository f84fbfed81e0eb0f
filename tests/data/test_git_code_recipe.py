"""The content recipe's git entries (``git_code.json``): pinned, licensed, apart from the wild suite,
not reserved; the clone list and the count script read them (no network)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

from click.testing import CliRunner

from picohead.data.cli import data
from picohead.data.producers import (
    CorpusProducers,
    reserved_repo,
    wild_producers,
    wild_recipe_entries,
)
from picohead.data.recipe import check_reserved

ROOT = Path(str(resources.files("picohead") / "recipes" / "content"))
# Repositories the wild suite's F# set keeps for itself (not yet in its recipe files).
WILD_FSHARP = {"fscheck/FsCheck", "fsprojects/Argu", "demystifyfp/FsToolkit.ErrorHandling",
               "haf/expecto", "SaturnFramework/Saturn"}
NEW_LABELS = ("dart", "fsharp", "julia", "vbnet")


def git_entries() -> list[dict]:
    d = json.loads((ROOT / "git_code.json").read_text(encoding="utf-8"))
    assert d["notes"], "git_code.json describes what it adds for the dataset card"
    return d["sources"]


def test_every_git_entry_is_pinned_licensed_and_labelled() -> None:
    spec = json.loads((ROOT / "spec.json").read_text(encoding="utf-8"))
    code_labels = set(next(h for h in spec["heads"] if h["name"] == "code_lang")["labels"])
    entries = git_entries()
    repos = [e["repo"] for e in entries]
    assert len(repos) == len(set(repos)), "a repository appears twice"
    for e in entries:
        assert e["kind"] == "git" and e["name"] == e["repo"] and re.fullmatch(r"[^/\s]+/[^/\s]+", e["repo"])
        assert re.fullmatch(r"[0-9a-f]{40}", e["commit"]), e["repo"]
        assert e["licence"] and e["licence"].upper() not in ("NONE", "UNKNOWN", "NOASSERTION"), e["repo"]
        for rule in e["take"]:
            assert rule["code"] in code_labels, (e["repo"], rule["code"])
            assert rule.get("ext") or rule.get("name") or rule.get("name_re"), e["repo"]
            assert 0 < rule["cap"] <= 100, e["repo"]
    per_label = Counter(r["code"] for e in entries for r in e["take"])
    for label in NEW_LABELS:
        assert per_label[label] >= 15, (label, per_label[label])


def test_no_git_entry_is_reserved_or_a_wild_producer() -> None:
    entries = git_entries()
    check_reserved(entries)  # raises on a reserved repository
    wp = wild_producers()
    mine = CorpusProducers()
    for e in entries:
        assert not reserved_repo(e["repo"]), e["repo"]
        assert e["repo"] not in WILD_FSHARP, e["repo"]
        assert not wp.owns(f"git:{e['repo']}", e.get("project")), e["repo"]
        mine.add(f"git:{e['repo']}", e.get("project"))
    for r in WILD_FSHARP:
        assert not mine.owns(f"git:{r}"), r
    # The other direction: no wild source becomes owned by the corpus through these entries.
    for stem, wild in wild_recipe_entries().items():
        for w in wild:
            key = f"git:{w['repo']}" if w.get("kind") == "git" else f"{w['kind']}:{w['name']}"
            assert not mine.owns(key, w.get("project")), (stem, key)


def test_clone_list_prints_one_pinned_fetch_per_repository(tmp_path: Path) -> None:
    (tmp_path / "recipe.json").write_text(json.dumps({"sources": [
        {"kind": "git", "name": "o/p", "repo": "o/p", "commit": "a" * 40, "licence": "MIT",
         "take": [{"code": "go", "ext": [".go"]}]}]}))
    res = CliRunner().invoke(data, ["clone-list", "--recipe", str(tmp_path), "--mirrors", "M"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [
        "git init -q --bare M/o+p && git -C M/o+p fetch -q --depth 1 https://github.com/o/p " + "a" * 40]
    res = CliRunner().invoke(data, ["clone-list", "--mirrors", "M"])
    assert res.exit_code == 0 and len(res.output.splitlines()) >= len(git_entries())


def test_count_script_applies_take_rules_and_caps(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(  # the sibling test module's mirror maker
        "git_source_helpers", Path(__file__).with_name("test_git_source.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    make_mirror = mod.make_mirror

    files = {f"src/m{i}.jl": f"f{i}(x) = x + {i}\n".encode() for i in range(5)}
    files["vendor/skip.jl"] = b"g(x) = x\n"
    files["src/bin.jl"] = b"\0\1\2binary"
    files["README.md"] = b"# r\n"
    mirrors, commit = make_mirror(tmp_path, files)
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "recipe.json").write_text(json.dumps({"sources": [
        {"kind": "git", "name": "someone/proj", "repo": "someone/proj", "commit": commit,
         "licence": "MIT", "take": [{"code": "julia", "ext": [".jl"], "cap": 10,
                                     "exclude": ["vendor/"]}]}]}))
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "git_code_counts.py"
    out = subprocess.run([sys.executable, str(script), "--mirrors", str(mirrors), "--recipe",
                          str(tmp_path / "r"), "--read", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)["labels"]
    assert table == {"julia": {"repos": 1, "matched": 6, "taken": 5}}  # vendor/ out, binary dropped
