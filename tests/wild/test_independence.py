"""The wild suite's independence rule: a leaked producer, leaked content or a shared project fails."""

from __future__ import annotations

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
    import json

    cp = corpus_producers()
    assert cp.owns("git:talentdeficit/jsx") and cp.owns("git:Vexu/arocc")  # vendored copies
    (tmp_path / ".stages").mkdir()
    (tmp_path / "train.jsonl").write_text(json.dumps({"id": "a" * 64, "source": "deb:x"}) + "\n")
    (tmp_path / ".stages" / "gen.jsonl").write_text(
        json.dumps({"id": "b" * 64, "source": "gen:archives"}) + "\n")  # dropped as a duplicate
    cp = corpus_producers(manifest=tmp_path)
    assert {"a" * 64, "b" * 64} <= cp.shas and cp.owns("deb:x")
