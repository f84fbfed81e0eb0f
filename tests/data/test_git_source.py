"""The corpus's ``git`` source kind and its separation from the wild suite (no network)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from picohead.data.build import check_wild_independence, wild_hashes
from picohead.data.fetch import FetchError, fetch
from picohead.data.harvest import harvest
from picohead.data.recipe import Recipe, RecipeError, check_reserved, load_recipe
from picohead.data.store import BlobStore


def make_mirror(tmp: Path, files: dict[str, bytes]) -> tuple[Path, str]:
    work = tmp / "work"
    work.mkdir()
    for rel, data in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)

    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(work), *a], check=True, capture_output=True,
                              text=True).stdout.strip()
    git("init", "-q")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one")
    commit = git("rev-parse", "HEAD")
    mirrors = tmp / "mirrors"
    subprocess.run(["git", "clone", "-q", "--mirror", str(work), str(mirrors / "someone+proj")],
                   check=True)
    return mirrors, commit


def test_a_git_entry_is_harvested_from_the_mirror_folder(tmp_path: Path) -> None:
    code = b"fn main() {\n    let x = 1;\n    println!(\"{}\", x + 41);\n}\n" * 3
    mirrors, commit = make_mirror(tmp_path, {"src/main.rs": code, "README.md": b"# proj\n"})
    f = fetch(tmp_path / "cache", "git", "someone/proj", None, mirrors=mirrors, commit=commit,
              paths=["src/"])
    assert f.version == commit and (f.root / "src" / "main.rs").read_bytes() == code
    assert not (f.root / "README.md").exists()
    entry = {"kind": "git", "name": "someone/proj", "repo": "someone/proj", "commit": commit,
             "licence": "MIT", "take": [{"code": "rust", "ext": [".rs"]}]}
    recs = harvest(entry, f.root, f.version, BlobStore(tmp_path / "out"), default_cap=10,
                   cuts_per_file=0, spec_labels={"code_lang": {"rust"}})
    assert [r["labels"]["code_lang"] for r in recs] == ["rust"]
    assert recs[0]["source"] == "git:someone/proj" and recs[0]["prov"]["version"] == commit
    with pytest.raises(FetchError, match="--mirrors"):
        fetch(tmp_path / "cache2", "git", "someone/proj", None, commit=commit)


def test_git_entries_need_a_commit_and_reserved_repositories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="reserved"):
        check_reserved([{"kind": "git", "name": "TheAlgorithms/Python",
                         "repo": "TheAlgorithms/Python"}])
    with pytest.raises(RecipeError, match="reserved"):
        check_reserved([{"kind": "git", "name": "exercism/rust", "repo": "exercism/rust"}])
    (tmp_path / "recipe.json").write_text(json.dumps({"sources": [
        {"kind": "git", "name": "o/p", "repo": "o/p", "licence": "MIT", "take": []}]}))
    with pytest.raises(RecipeError, match="pinned commit"):
        load_recipe(str(tmp_path))


def test_a_recipe_naming_a_wild_producer_is_refused(tmp_path: Path) -> None:
    check_wild_independence(load_recipe("content"))  # the shipped recipe is clean
    leaked = Recipe("leak", tmp_path, {"sources": [
        {"kind": "git", "name": "UniversalDependencies/UD_German-PUD", "commit": "0" * 40,
         "licence": "CC-BY-SA-3.0", "take": []},
        {"kind": "pypi", "name": "puremagic", "licence": "MIT", "take": []}]})
    with pytest.raises(RecipeError, match="producers of the wild suite.*UD_German-PUD"):
        check_wild_independence(leaked)
    # a package whose project owns a repository the wild suite pins (docker/awesome-compose)
    owner = Recipe("owner", tmp_path, {"sources": [
        {"kind": "deb", "name": "golang-github-docker-docker-dev", "licence": "see package",
         "take": []}]})
    with pytest.raises(RecipeError, match="golang-github-docker-docker-dev"):
        check_wild_independence(owner)


def test_a_build_drops_stage_records_whose_producer_the_wild_suite_claims() -> None:
    from picohead.data.build import _drop_wild_producers

    recs = [{"id": "a" * 64, "source": "deb:golang-github-docker-docker-dev", "producer": "docker"},
            {"id": "b" * 64, "source": "risk:deb:golang-github-docker-docker-dev",
             "producer": "docker"},
            {"id": "c" * 64, "source": "deb:zlib1g-dev", "producer": "zlib"},
            {"id": "d" * 64, "source": "gen:crypto", "producer": "gen:crypto"}]
    kept, dropped = _drop_wild_producers(recs)
    assert [r["id"][0] for r in kept] == ["c", "d"]
    assert dropped == {"deb:golang-github-docker-docker-dev": 2}


def test_wild_hashes_read_a_wild_manifest(tmp_path: Path) -> None:
    m = tmp_path / "manifest.jsonl"
    m.write_text(json.dumps({"id": "a" * 64}) + "\n" + json.dumps({"id": "b" * 64}) + "\n")
    assert wild_hashes(m) == {"a" * 64, "b" * 64} and wild_hashes(None) == set()
