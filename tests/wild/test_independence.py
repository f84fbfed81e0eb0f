"""The wild suite's independence rule: a leaked producer, leaked content or a shared project fails."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from picohead.data.producers import (
    CorpusProducers,
    IndependenceError,
    check_independence,
    corpus_producers,
    is_reserved_key,
    normalise,
    project_of,
    reserved_repo,
)


def rec(producer: str, sid: str, split: str = "test", project: str | None = None) -> dict:
    return {"id": sid * 64, "producer": producer, "project": project_of(producer, project),
            "split": split, "task": "code_lang", "label": "go", "kind": None}


def test_normalise_ties_debian_binary_source_and_pypi_names() -> None:
    assert normalise("python3-pygments") == normalise("Pygments") == "pygments"
    assert normalise("libfmt-dev") == normalise("fmtlib") == "fmt"
    assert normalise("libpng1.6") == normalise("libpng16-16") == "png"
    assert project_of("git:someone/Pygments") == "pygments"


def test_the_real_corpus_owns_its_recipe_packages_and_generators() -> None:
    cp = corpus_producers()
    assert cp.owns("deb:golang-1.19-src")
    assert cp.owns("git:golang/go")  # the same upstream project under its repository
    assert cp.owns("git:LibreOffice/core")
    assert cp.owns("pypi:pygments")  # the recipe has PyPI Pygments and Debian python3-pygments
    assert cp.owns("program:ffmpeg") and cp.owns("program:libreoffice")
    assert not cp.owns("git:UniversalDependencies/UD_German-PUD")


def test_a_clean_suite_passes() -> None:
    cp = CorpusProducers()
    cp.add("deb:golang-1.19-src")
    check_independence([rec("git:a/alpha", "a"), rec("git:b/beta", "b", "dev")], cp)


def test_a_deliberately_leaked_producer_fails() -> None:
    cp = corpus_producers()
    leaked = rec("deb:golang-1.19-src", "c")
    with pytest.raises(IndependenceError, match="golang-1.19-src.*also feeds the corpus"):
        check_independence([rec("git:a/alpha", "a"), leaked], cp)


def test_leaked_content_fails_even_from_a_new_producer() -> None:
    cp = CorpusProducers(shas={"d" * 64})
    with pytest.raises(IndependenceError, match="same content is in the corpus"):
        check_independence([rec("git:new/project", "d")], cp)


def test_a_project_in_both_halves_fails() -> None:
    with pytest.raises(IndependenceError, match="both dev and test"):
        check_independence([rec("git:a/alpha", "a", "dev"), rec("git:a/alpha", "b", "test")],
                           CorpusProducers())


def test_generators_and_reserved_sources_never_make_wild_samples() -> None:
    with pytest.raises(IndependenceError, match="generator"):
        check_independence([rec("gen:images", "e")], CorpusProducers())
    for repo in ("github-linguist/linguist", "TheAlgorithms/Python", "exercism/rust",
                 "mdn/content", "google/magika", "corkami/pocs", "pemistahl/lingua-py",
                 "Yelp/detect-secrets", "jessfraz/dockerfiles", "someone/linguist"):
        assert reserved_repo(repo), repo
    assert is_reserved_key("deb:gnome-shell") and is_reserved_key("debsrc:groff")
    assert not reserved_repo("UniversalDependencies/UD_German-PUD")
    with pytest.raises(IndependenceError, match="reserved"):
        check_independence([rec("git:exercism/python", "f")], CorpusProducers())


def test_vendored_projects_and_a_corpus_folder_count(tmp_path) -> None:
    cp = corpus_producers()
    assert cp.owns("git:talentdeficit/jsx") and cp.owns("git:Vexu/arocc")  # vendored copies
    (tmp_path / ".stages").mkdir()
    (tmp_path / "train.jsonl").write_text(json.dumps({"id": "a" * 64, "source": "deb:x"}) + "\n")
    (tmp_path / ".stages" / "gen.jsonl").write_text(
        json.dumps({"id": "b" * 64, "source": "gen:archives"}) + "\n")  # dropped as a duplicate
    cp = corpus_producers(manifest=tmp_path)
    assert {"a" * 64, "b" * 64} <= cp.shas and cp.owns("deb:x")


def test_an_id_list_stands_in_for_a_corpus_build(tmp_path: Path) -> None:
    from picohead.data.producers import ID_PREFIX, read_ids, write_ids

    corpus = tmp_path / "corpus"
    (corpus / ".stages").mkdir(parents=True)
    (corpus / "train.jsonl").write_text(
        json.dumps({"id": "a" * 64, "source": "git:o/r"}) + "\n"
        + json.dumps({"id": "c" * 64, "source": "deb:x"}) + "\n")
    (corpus / ".stages" / "src.jsonl").write_text(
        json.dumps({"id": "b" * 64, "source": "risk:git:o/r"}) + "\n")
    ids = tmp_path / "ids.txt.gz"
    assert write_ids(corpus, ids, ["git"]) == 2  # the git samples, risk hosts included
    assert read_ids(ids) == {"a" * ID_PREFIX, "b" * ID_PREFIX}
    cp = corpus_producers(ids=[ids])
    assert cp.holds("a" * 64) and cp.holds("b" * 64) and not cp.holds("c" * 64)
    with pytest.raises(IndependenceError, match="same content"):
        check_independence([{"id": "a" * 64, "producer": "git:p/q", "split": "dev"}], cp)
    with gzip.open(tmp_path / "bad.gz", "wt") as f:
        f.write("not-a-hash\n")
    with pytest.raises(ValueError, match="hash prefix"):
        read_ids(tmp_path / "bad.gz")
    # the same lines as plain text (a list written by hand) read alike; binary junk is named
    (tmp_path / "plain.txt").write_text(f"{'a' * ID_PREFIX}\n\n{'b' * ID_PREFIX}\n")
    assert read_ids(tmp_path / "plain.txt") == {"a" * ID_PREFIX, "b" * ID_PREFIX}
    (tmp_path / "junk").write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(ValueError, match="not an id list"):
        read_ids(tmp_path / "junk")


def test_claims_is_owns_seen_from_the_other_side() -> None:
    wild = CorpusProducers()
    wild.add("git:docker/awesome-compose", "awesome-compose")
    corpus = CorpusProducers()
    corpus.add("deb:golang-github-docker-docker-dev")
    # the wild repository is owned by the corpus's project docker, and the corpus's package is
    # claimed by the wild suite's repository owner: one rule, either side
    assert corpus.owns("git:docker/awesome-compose")
    assert wild.claims("deb:golang-github-docker-docker-dev")
    assert wild.claims("git:docker/awesome-compose") and not wild.claims("deb:zlib1g-dev")
