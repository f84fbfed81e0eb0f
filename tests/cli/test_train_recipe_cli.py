"""`picohead train --recipe`: the command passes its folders to the pipeline (no pipeline run)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import picohead.data.requirements as requirements
import picohead.pipeline
from picohead.train_cli import train_cmd


def _calls(monkeypatch, missing=requirements.Missing()):
    monkeypatch.setattr(requirements, "missing", lambda: missing)
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


def test_recipe_writes_the_card_where_it_is_told(monkeypatch, tmp_path):
    calls = _calls(monkeypatch)
    bundle, card = tmp_path / "bundle", tmp_path / "scratch" / "CARD.md"
    res = CliRunner().invoke(train_cmd, ["--recipe", "content", "--bundle", str(bundle)])
    assert res.exit_code == 0, res.output
    assert calls[-1][1]["card"] == Path("MODEL_CARD.md")  # the project's card by default
    res = CliRunner().invoke(
        train_cmd, ["--recipe", "content", "--bundle", str(bundle), "--card", str(card)]
    )
    assert res.exit_code == 0, res.output
    assert calls[-1][1]["card"] == card and calls[-1][1]["bundle"] == bundle
    res = CliRunner().invoke(train_cmd, ["--recipe", "content"])
    assert calls[-1][1]["card"] is None  # no bundle, no card


def test_card_without_a_recipe_is_a_usage_error(tmp_path):
    res = CliRunner().invoke(train_cmd, ["--out", str(tmp_path / "r"), "--card", "x.md"])
    assert res.exit_code == 2 and "--card" in res.output


LACKING = requirements.Missing(python=("python-docx",), programs=("ffmpeg", "soffice"))


def test_recipe_refuses_to_start_without_its_encoders(monkeypatch, tmp_path):
    calls = _calls(monkeypatch, LACKING)
    res = CliRunner().invoke(train_cmd, ["--recipe", "content", "--data", str(tmp_path)])
    assert res.exit_code == 2 and not calls
    line = res.output.strip()
    assert "\n" not in line and "Traceback" not in line
    for word in (
        "python-docx",
        "ffmpeg",
        "soffice",
        "apt-get install",
        "libreoffice-writer-nogui",
        ".[data]",
        "--allow-missing-encoders",
    ):
        assert word in line


def test_recipe_goes_on_when_told_to(monkeypatch, tmp_path):
    calls = _calls(monkeypatch, LACKING)
    args = ["--recipe", "content", "--data", str(tmp_path), "--allow-missing-encoders"]
    res = CliRunner().invoke(train_cmd, args)
    assert res.exit_code == 0 and len(calls) == 1
    assert "warning" in res.output and "ffmpeg" in res.output


def test_recipe_with_a_built_corpus_needs_no_encoders(monkeypatch, tmp_path):
    (tmp_path / "train.jsonl").write_text("")
    calls = _calls(monkeypatch, LACKING)
    res = CliRunner().invoke(train_cmd, ["--recipe", "content", "--data", str(tmp_path)])
    assert res.exit_code == 0 and len(calls) == 1


def test_missing_lists_what_this_machine_lacks(monkeypatch):
    monkeypatch.setattr(requirements.shutil, "which",
                        lambda p, path=None: None if p == "7z" else "/bin/x")
    real = requirements.importlib.util.find_spec
    monkeypatch.setattr(
        requirements.importlib.util,
        "find_spec",
        lambda m: None if m == "odf" else real("json"),
    )
    got = requirements.missing()
    assert got.programs == ("7z",) and got.python == ("odfpy",)
    assert "p7zip-full" in got.message()


def test_requirements_cover_the_data_extra_and_the_encoders():
    """Every package of the [data] extra and every program formats.py and program_formats.py
    run is checked."""
    import re

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    root = Path(__file__).resolve().parents[2]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["data"]
    names = {re.split(r"[<>=\[ ]", x)[0].lower() for x in extra}
    assert names == {p.lower() for p in requirements.PYTHON_PACKAGES.values()}
    used: set[str] = set()
    for name in ("formats.py", "program_formats.py"):
        src = (root / "picohead" / "data" / name).read_text()
        used |= set(re.findall(r'shutil\.which\("([\w.+-]+)"', src))
        used |= set(re.findall(r'(?:subprocess\.run|_run)\(\["([\w.+-]+)"', src))
        used |= set(re.findall(r'_missing\(\["([\w.+-]+)"', src))
    from picohead.data.formats import ELF_TARGETS
    from picohead.data.program_formats import DISK_WRITERS, MEDIA_MORE2

    used |= {f"{t}-gcc" for t in ELF_TARGETS}  # looked up by name pattern, not a literal
    used |= {w[0] for w in (*DISK_WRITERS, *MEDIA_MORE2)}  # table entries
    assert {"nasm", "gnuplot", "gs", "pandoc", "mkfs.exfat", "cjxl"} <= used  # the scan sees them
    assert used <= set(requirements.PROGRAMS), used - set(requirements.PROGRAMS)
