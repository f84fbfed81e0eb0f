"""The mime-programs wild source: recipe, option expansion, checks, caching, missing programs."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from picohead.data.producers import corpus_producers, is_reserved_key
from picohead.wild.sources import programs as pg
from picohead.wild.suite import read_jsonl


def _recipe() -> dict:
    return pg.load_recipe()


def test_recipe_is_well_formed() -> None:
    r = _recipe()
    ids = []
    for name, p in r["programs"].items():
        assert p["apt"] and p["binaries"] and p["licence"], name
        for jb in p["jobs"]:
            assert set(jb) >= {"id", "label", "ext", "input", "n"}, jb
            assert ("cmd" in jb) != ("steps" in jb), jb["id"]
            assert "/" in jb["label"], jb["id"]
            ids.append(jb["id"])
            if jb["input"].startswith("job:"):
                assert jb["input"][4:] in ids, f"{jb['id']} refers to a later or unknown job"
            else:
                assert hasattr(pg.Inputs, "_" + jb["input"]), jb["input"]
    assert len(ids) == len(set(ids))


def test_producers_are_independent_of_the_corpus() -> None:
    cp = corpus_producers()
    for name in _recipe()["programs"]:
        key = f"program:{name}"
        assert not cp.owns(key, name), key
        assert not is_reserved_key(key), key


def test_required_packages() -> None:
    pkgs = pg.required_packages()
    assert pkgs == sorted(set(pkgs))
    assert {"sox", "imagemagick", "netpbm", "tcc", "freepats", "libsox-fmt-base"} <= set(pkgs)
    banned = {
        "ffmpeg",
        "libreoffice",
        "p7zip-full",
        "cpio",
        "binutils",
        "zstd",
        "gnupg",
        "groff",
        "ghostscript",
        "gimp",
        "openssl",
        "pandoc",
        "sqlite3",
        "gcc",
        "openssh-client",
    }
    assert not banned & set(pkgs)


def test_expand_option_and_render() -> None:
    assert pg.expand_option("-colors=16") == ["-colors", "16"]
    assert pg.expand_option("--padding=512") == ["--padding=512"]
    assert pg.expand_option("") == []
    assert pg.expand_option(["head", "-n", "5"]) == ["head", "-n", "5"]
    inp = pg.Input(Path("/x/in.txt"), "s", "CC0-1.0", "o", text="Ada <a@b>", args=("a=1", "b=2"))
    vals = {"q": ["-q", "5"], "lvl": ["9"]}
    argv = pg.render(
        ["t", "{q}", "-{lvl}", "{in}", "{out}", "{line}", "{args}"],
        vals,
        inp,
        {"in": "/x/in.txt", "out": "/o/out"},
    )
    assert argv == ["t", "-q", "5", "-9", "/x/in.txt", "/o/out", "Ada <a@b>", "a=1", "b=2"]


def test_expect_ok() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 20
    assert pg.expect_ok(png, ["hex:89504e47"])
    assert not pg.expect_ok(png, ["hex:ffd8ff"])
    assert pg.expect_ok(png, [])
    assert not pg.expect_ok(b"", [])
    assert pg.expect_ok(b"x" * 257 + b"ustar", ["at257:ustar"])
    assert pg.expect_ok(b"\0" * 510 + b"\x55\xaa", ["at510:hex:55aa"])
    assert pg.expect_ok(b"%!PS-Adobe-3.0", ["hex:00", "text:%!PS"])


def _mini_recipe(tmp_path: Path, progs: dict) -> Path:
    p = tmp_path / "programs.json"
    p.write_text(json.dumps({"programs": progs, "doc_packages": {}, "man_pages": {}}))
    return p


def test_missing_program_is_reported(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rp = _mini_recipe(
        tmp_path,
        {
            "nosuch": {
                "apt": "nosuch-tools",
                "binaries": ["picohead-no-such-binary"],
                "licence": "{input}",
                "jobs": [
                    {
                        "id": "x",
                        "label": "image/x-none",
                        "ext": "x",
                        "input": "text",
                        "n": 3,
                        "cmd": ["picohead-no-such-binary", "{in}"],
                    }
                ],
            }
        },
    )
    with caplog.at_level(logging.WARNING):
        out = pg.build(
            tmp_path / "suite", cache=tmp_path / "cache", mirrors=tmp_path, recipe_path=rp
        )
    assert out.name == "mime-programs.jsonl" and list(read_jsonl(out)) == []
    s = json.loads((tmp_path / "cache" / "programs" / "summary.json").read_text())
    assert s["missing"] == [
        {
            "program": "nosuch",
            "apt": "nosuch-tools",
            "binaries": ["picohead-no-such-binary"],
            "labels": ["image/x-none"],
        }
    ]
    assert "nosuch-tools" in caplog.text


@pytest.mark.skipif(
    shutil.which("lz4") is None and shutil.which("gzip") is None, reason="needs gzip or lz4"
)
def test_build_runs_caches_and_is_deterministic(tmp_path: Path) -> None:
    tool = "gzip" if shutil.which("gzip") else "lz4"
    magic = "hex:1f8b08" if tool == "gzip" else "hex:04224d18"
    rp = _mini_recipe(
        tmp_path,
        {
            tool: {
                "apt": tool,
                "binaries": [tool],
                "licence": "{input}",
                "jobs": [
                    {
                        "id": "c",
                        "label": "application/x-test",
                        "ext": "z",
                        "input": "sentence",
                        "n": 5,
                        "cmd": [tool, "-c", "-{lvl}", "{in}"],
                        "stdout": True,
                        "vary": {"lvl": ["1", "9"]},
                        "expect": [magic],
                    },
                    {
                        "id": "bad",
                        "label": "application/x-bad",
                        "ext": "z",
                        "input": "sentence",
                        "n": 2,
                        "cmd": [tool, "-c", "{in}"],
                        "stdout": True,
                        "expect": ["hex:ffff"],
                    },
                ],
            }
        },
    )
    kw = dict(cache=tmp_path / "cache", mirrors=tmp_path, recipe_path=rp)
    out = pg.build(tmp_path / "s1", **kw)
    recs = list(read_jsonl(out))
    assert 1 <= len(recs) <= 5
    for r in recs:
        assert r["label"] == "application/x-test" and r["producer"] == f"program:{tool}"
        assert r["prov"]["licence"] == "CC0-1.0" and r["prov"]["options"].startswith("lvl=")
        assert r["prov"]["version"].startswith(tool)
        assert len(r["prov"]["sha256"]) == 64
    s1 = json.loads((tmp_path / "cache" / "programs" / "summary.json").read_text())
    assert s1["runs"] >= 7 and s1["failed_jobs"]["bad"] == 2
    out2 = pg.build(tmp_path / "s2", **kw)
    s2 = json.loads((tmp_path / "cache" / "programs" / "summary.json").read_text())
    assert s2["runs"] == 0 and s2["cache_hits"] >= 7
    assert [r["id"] for r in read_jsonl(out2)] == [r["id"] for r in recs]


@pytest.mark.skipif(shutil.which("gzip") is None, reason="needs gzip")
def test_a_relative_cache_path_still_feeds_the_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each program runs in its own temporary folder: an input path relative to the caller's
    # folder made every job fail (and cached the failures) when --cache was relative
    job = {"id": "c", "label": "application/gzip", "ext": "gz", "input": "sentence", "n": 3,
           "cmd": ["gzip", "-c", "{in}"], "stdout": True, "expect": ["hex:1f8b08"]}
    rp = _mini_recipe(tmp_path, {"gzip": {"apt": "gzip", "binaries": ["gzip"],
                                          "licence": "{input}", "jobs": [job]}})
    monkeypatch.chdir(tmp_path)
    out = pg.build(Path("s"), cache=Path("cache"), mirrors=tmp_path, recipe_path=rp)
    assert len(list(read_jsonl(out))) == 3
    s = json.loads((tmp_path / "cache" / "programs" / "summary.json").read_text())
    assert not s["failed_jobs"]


@pytest.mark.skipif(shutil.which("touch") is None, reason="needs touch")
def test_an_empty_output_file_is_a_failure_not_a_cached_file(tmp_path: Path) -> None:
    # a program that exits 0 and leaves an empty output (enscript on a missing input did) made
    # nothing: it is counted failed and cached as a failure, not as an empty file made
    job = {"id": "e", "label": "text/plain", "ext": "txt", "input": "sentence", "n": 2,
           "cmd": ["touch", "{out}"]}
    rp = _mini_recipe(tmp_path, {"touch": {"apt": "coreutils", "binaries": ["touch"],
                                           "licence": "{input}", "jobs": [job]}})
    out = pg.build(tmp_path / "s", cache=tmp_path / "cache", mirrors=tmp_path, recipe_path=rp)
    assert list(read_jsonl(out)) == []
    s = json.loads((tmp_path / "cache" / "programs" / "summary.json").read_text())
    assert s["failed_jobs"]["e"] == 2
    made = [p for p in (tmp_path / "cache" / "programs" / "out").rglob("*") if p.is_file()]
    assert made and all(p.suffix == ".fail" for p in made)


def test_tiny_inputs_are_deterministic(tmp_path: Path) -> None:
    ins = pg.Inputs(tmp_path / "a", {}, lambda *a, **k: None)
    ins2 = pg.Inputs(tmp_path / "b", {}, lambda *a, **k: None)
    for kind in ("c", "wat", "abc", "dot", "svg", "pbm", "csv", "y4m", "certtpl", "wav16k"):
        a, b = ins.pool(kind), ins2.pool(kind)
        assert a and [x.sha for x in a] == [x.sha for x in b], kind
    assert all(x.path.read_bytes().startswith(b"P4") for x in ins.pool("pbm"))
    assert all(x.path.read_bytes().startswith(b"RIFF") for x in ins.pool("wav16k"))
