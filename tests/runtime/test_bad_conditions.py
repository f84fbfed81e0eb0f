"""The runtime under bad conditions (issue 24): endless streams, size-0 special files, unlistable
folders, non-bytes input, absurd metadata, telemetry, and help that tells the truth."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import onnxruntime as ort
import pytest
import toy_models

import picohead_runtime.model as model_mod
from picohead_runtime import Classifier, ModelError, SpecError
from picohead_runtime.cli import expand
from picohead_runtime.cli import main as classify_main
from picohead_runtime.io import EMPTY, OK, PERMISSION_DENIED, ListingError, read_path
from picohead_runtime.spec import MAX_LABELS, MAX_WINDOW_SIDE, ModelSpec
from picohead_runtime.windows import extract_window, read_stream, read_stream_chunks


# -- streams ------------------------------------------------------------------------------------------
def _endless(byte: bytes = b"\0"):
    chunk = byte * 4096
    return lambda n: chunk[:n]


def test_an_endless_stream_is_cut_at_the_limit_and_says_so():
    got = read_stream_chunks(_endless(), 16, 8, limit=100_000)
    assert got.truncated and got.read == 100_000
    assert got.window == b"\0" * 24
    assert "100,000" in (got.message or "")


def test_the_time_limit_cuts_a_slow_stream():
    got = read_stream_chunks(lambda n: b"x", 4, 4, limit=10**12, seconds=0.05)
    assert got.truncated and "s limit" in (got.message or "")


def test_a_short_pipe_reads_whole_and_keeps_the_rolling_tail():
    data = bytes(range(256)) * 1000
    r, w = os.pipe()
    with os.fdopen(w, "wb") as fw:
        fw.write(data[:60000])  # fits the pipe buffer
    with os.fdopen(r, "rb") as fr:
        got = read_stream(fr, 100, 50)
    assert not got.truncated and got.window == extract_window(data[:60000], 100, 50)
    got = read_stream(io.BytesIO(data), 100, 50)  # seekable: two reads
    assert got.window == extract_window(data, 100, 50) and not got.truncated


def test_classify_stream_of_an_endless_pipe_returns(model_dir):
    clf = Classifier(model_dir, tier="tiny", stream_limit=1 << 20)

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            b[:] = b"\0" * len(b)
            return len(b)

    r = clf.classify_stream(Endless(), path="-")
    assert r.ok and r.truncated and r.asdict()["truncated"] is True and r.message


def test_cat_dev_zero_into_classify_returns(model_dir):
    """The issue's case, end to end: an endless pipe into the CLI, under a timeout."""
    code = (
        f"cat /dev/zero | {sys.executable} -m picohead_runtime - --jsonl "
        f"--model {model_dir} --tier tiny --stream-limit 4000000"
    )
    p = subprocess.run(["bash", "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["ok"] and rec["truncated"] and "4,000,000" in rec["message"]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_size_zero_special_files_are_read_as_streams(tmp_path):
    assert os.stat("/proc/self/status").st_size == 0
    status, window, _ = read_path("/proc/self/status", 64, 64)
    assert status == OK and window and window.startswith(b"Name:")
    (tmp_path / "empty").write_bytes(b"")
    assert read_path(tmp_path / "empty", 64, 64)[0] == EMPTY


# -- walks ------------------------------------------------------------------------------------------
def _unlistable(monkeypatch, bad: Path) -> None:
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == os.fspath(bad):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unlistable_folder_yields_one_record(tmp_path, monkeypatch, model_dir, capsys):
    (tmp_path / "a.txt").write_text("hello")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "secret.txt").write_text("x")
    _unlistable(monkeypatch, locked)
    items = list(expand([str(tmp_path)], recursive=True, follow_symlinks=False))
    assert items[0] == str(tmp_path / "a.txt")
    assert items[1] == ListingError(str(locked), PERMISSION_DENIED, items[1].message)
    assert len(items) == 2
    clf = Classifier(model_dir, tier="tiny")
    results = list(clf.classify_paths(items))
    assert [r.status for r in results] == [OK, PERMISSION_DENIED]
    assert "cannot list" in results[1].message
    # the CLI: one record per path, and strict mode fails the gate
    args = ["-r", str(tmp_path), "--jsonl", "--model", str(model_dir), "--tier", "tiny"]
    assert classify_main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["status"] for x in lines] == [OK, PERMISSION_DENIED]
    assert classify_main([*args, "--strict"]) == 2
    assert "could not be read" in capsys.readouterr().err


def test_an_unlistable_top_folder_yields_its_record(tmp_path, monkeypatch, model_dir):
    _unlistable(monkeypatch, tmp_path)
    items = list(expand([str(tmp_path)], recursive=True, follow_symlinks=False))
    assert len(items) == 1 and isinstance(items[0], ListingError)


def test_strict_is_on_with_fail_on(tmp_path, model_dir, capsys):
    base = ["--model", str(model_dir), "--tier", "tiny", str(tmp_path / "missing")]
    assert classify_main(base) == 0
    assert classify_main([*base, "--fail-on", "kind=code"]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "[not_found]" in err
    assert classify_main([*base, "--fail-on", "kind=code", "--no-strict"]) == 0


# -- API ----------------------------------------------------------------------------------------------
def test_non_bytes_input_raises_type_error(clf):
    for bad in (123, "text", None, [1, 2]):
        with pytest.raises(TypeError, match="bytes"):
            clf.classify_bytes(bad)
    with pytest.raises(TypeError, match="bytes"):
        list(clf.classify_many_bytes([b"ok", 5]))
    assert clf.classify_bytes(bytearray(b"x")).ok and clf.classify_bytes(memoryview(b"x")).ok


def _spec(**window):
    d = ModelSpec.from_dict(
        {"heads": [{"name": "a", "labels": ["x", "y"]}], "window": {"head": 8, "tail": 8}}
    ).to_dict()
    d["window"].update(window)
    return d


def test_spec_bounds():
    with pytest.raises(SpecError, match=r"my\.json: window\.head: .* over the"):
        ModelSpec.from_dict(_spec(head=MAX_WINDOW_SIDE + 1), source="my.json")
    d = _spec()
    d["heads"][0]["labels"] = [f"l{i}" for i in range(MAX_LABELS + 1)]
    with pytest.raises(SpecError, match="labels is over the"):
        ModelSpec.from_dict(d)


def test_a_model_with_an_absurd_window_is_one_line_error(tmp_path, tiny_path):
    def absurd(doc):
        doc["spec"]["window"]["head"] = 1 << 40

    bad = toy_models.rewrite_meta(tiny_path, tmp_path / "bad.onnx", absurd)
    with pytest.raises(ModelError) as e:
        Classifier(bad)
    msg = str(e.value)
    assert "bad.onnx" in msg and "window.head" in msg and "\n" not in msg
    p = subprocess.run(
        [sys.executable, "-m", "picohead_runtime", "--model", str(bad), str(tiny_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "bad.onnx" in p.stderr


# -- telemetry ------------------------------------------------------------------------------------
def test_telemetry_is_off_by_default(tiny_path, monkeypatch):
    calls = []
    monkeypatch.setattr(ort, "disable_telemetry_events", lambda: calls.append("off"))
    monkeypatch.setattr(ort, "enable_telemetry_events", lambda: calls.append("on"))
    monkeypatch.delenv(model_mod.ENV_TELEMETRY, raising=False)
    Classifier(tiny_path)
    assert calls == ["off"] and not model_mod.telemetry_enabled()
    monkeypatch.setenv(model_mod.ENV_TELEMETRY, "1")
    Classifier(tiny_path)
    assert calls == ["off", "on"]


def test_the_installed_onnxruntime_can_switch_telemetry_off():
    assert callable(getattr(ort, "disable_telemetry_events", None))


# -- help tells the truth ---------------------------------------------------------------------------
def test_tier_help_names_the_default_of_the_folder_loaded(model_dir, tmp_path, monkeypatch):
    from picohead_runtime.bench import build_parser as bench_parser
    from picohead_runtime.cli import build_parser

    monkeypatch.delenv(model_mod.ENV_MODEL, raising=False)
    bundled = model_mod.folder_default_tier(model_mod.default_model_dir())
    for make in (build_parser, bench_parser):
        assert f"default: {bundled}" in make("x", []).format_help().replace("\n", " ")
        text = make("x", ["--model", str(model_dir)]).format_help()
        assert "names no default_tier" in " ".join(text.split())
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.json").write_text('{"default_tier": "base"}')
    monkeypatch.setenv(model_mod.ENV_MODEL, str(folder))
    assert "default: base" in " ".join(build_parser("x", []).format_help().split())


# -- no absolute paths in the metadata ---------------------------------------------------------------
def test_exported_metadata_holds_no_absolute_paths(tiny_path, tmp_path):
    """(The exporter's ``portable_name`` is tested in tests/exporters/test_exporter_units.py.)"""
    meta = Classifier(tiny_path).meta

    def strings(o):
        if isinstance(o, dict):
            for v in o.values():
                yield from strings(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                yield from strings(v)
        elif isinstance(o, str):
            yield o

    doc = json.loads(meta.to_json())
    assert not [s for s in strings(doc) if os.path.isabs(s)]

    def drop_extra(d):  # the runtime does not depend on the exporter's notes
        d["extra"] = {}

    bare = toy_models.rewrite_meta(tiny_path, tmp_path / "bare.onnx", drop_extra)
    assert Classifier(bare).classify_bytes(b"hello").ok


@pytest.mark.parametrize("tier", ["tiny", "small", "base", "pro"])
def test_bundled_metadata_holds_no_absolute_paths(tier):
    from picohead_runtime.model import default_model_dir

    path = default_model_dir() / f"{tier}.onnx"
    if not path.exists():
        pytest.skip(f"no bundled {tier}")
    assert not [s for s in _meta_strings(json.loads(Classifier(path).meta.to_json()))
                if os.path.isabs(s)]


def _meta_strings(o):
    if isinstance(o, dict):
        for v in o.values():
            yield from _meta_strings(v)
    elif isinstance(o, (list, tuple)):
        for v in o:
            yield from _meta_strings(v)
    elif isinstance(o, str):
        yield o
