"""Whitespace-stripped windows: padding changes no window, and every way of reading content
(bytes, a file, a seekable stream, a pipe in random chunks) gives the same window."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from picohead_runtime import windows
from picohead_runtime.windows import (
    MAX_STRIP,
    extract_window,
    read_stream,
    read_stream_chunks,
    read_window,
)

WS = st.sampled_from([b" ", b"\t", b"\n", b"\r\n", b"\x0c", b"\x0b"])
ws_run = st.lists(WS, max_size=40).map(b"".join)
core = st.binary(max_size=3000)


def chunked(data: bytes, sizes: list[int]):
    pos, i = 0, 0

    def read(n: int) -> bytes:
        nonlocal pos, i
        k = min(n, sizes[i % len(sizes)] if sizes else n)
        i += 1
        out = data[pos:pos + k]
        pos += len(out)
        return out
    return read


def all_ways(data: bytes, head: int, tail: int, tmp: Path, sizes: list[int]) -> list[bytes]:
    p = tmp / "f.bin"
    p.write_bytes(data)
    return [extract_window(data, head, tail), read_window(p, head, tail),
            read_stream(io.BytesIO(data), head, tail).window,
            read_stream_chunks(chunked(data, sizes), head, tail).window]


@settings(max_examples=300, deadline=None)
@given(lead=ws_run, body=core, trail=ws_run, head=st.integers(0, 1200), tail=st.integers(0, 1200),
       sizes=st.lists(st.integers(1, 700), max_size=5))
def test_every_reader_gives_the_same_window(tmp_path_factory, lead, body, trail, head, tail,
                                            sizes):
    data = lead + body + trail
    got = all_ways(data, head, tail, tmp_path_factory.mktemp("w"), sizes)
    assert got[1:] == got[:1] * 3


@settings(max_examples=200, deadline=None)
@given(body=st.binary(min_size=1, max_size=3000), pad=st.integers(1, 65536),
       kind=st.sampled_from([b"\n", b" ", b"\t", b" \t\r\n"]))
def test_padding_changes_no_window(body, pad, kind):
    body = body.strip(windows.WHITESPACE) or b"x"
    padded = (kind * pad)[:pad]
    base = extract_window(body, 1024, 1024)
    assert extract_window(padded + body, 1024, 1024) == base
    assert extract_window(body + padded, 1024, 1024) == base
    assert extract_window(body + b"\n", 1024, 1024) == base  # a final newline is whitespace too
    assert extract_window(padded + body + padded + b"\n", 1024, 1024) == base


def test_the_stripping_rules_by_hand():
    assert extract_window(b"\n\n  def f():\n    pass\n\n\n", 1024, 1024) == b"def f():\n    pass"
    assert extract_window(b"ls   \t \n", 1024, 1024) == b"ls"
    assert extract_window(b"\n" * 5000, 1024, 1024) == b"\n"  # all whitespace: still a window
    assert extract_window(b"   ", 1024, 1024) == b" "
    assert extract_window(b"", 1024, 1024) == b""
    assert extract_window(b"a" * 3000 + b"\n" * 4096, 4, 4) == b"aaaaaaaa"
    assert extract_window(b"ab \n cd\n", 1024, 1024) == b"ab \n cd"  # inner whitespace stays


def test_stripping_is_bounded(tmp_path):
    huge = b" " * (3 * MAX_STRIP) + b"x"
    w = extract_window(huge, 16, 16)
    assert w == b" " * 16 + b"               x"  # only MAX_STRIP bytes are stripped at the front
    p = tmp_path / "huge.txt"
    p.write_bytes(huge)
    assert read_window(p, 16, 16) == w
    calls = []

    def pread(n: int, off: int) -> bytes:
        calls.append(n)
        return huge[off:off + n]
    assert windows.window_from_reader(pread, len(huge), 16, 16) == w
    assert sum(calls) <= 2 * MAX_STRIP + 64  # never the whole content


def test_an_endless_whitespace_pipe_is_cut_at_the_limit():
    got = read_stream_chunks(lambda n: b"\n" * n, 1024, 1024, limit=5 * MAX_STRIP)
    assert got.truncated and got.window  # bounded, and still a window


@pytest.mark.skipif(not hasattr(os, "pipe"), reason="needs os.pipe")
def test_a_real_pipe_matches_bytes():
    data = b"\n" * 5000 + b"#!/bin/sh\necho hi\n" * 300 + b"\n" * 9000
    assert len(data) < 60000  # fits the pipe's buffer: written whole before it is read
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as f:
        got = windows.read_stream_chunks(f.read, 1024, 1024).window
    assert got == extract_window(data, 1024, 1024)


# -- leading NUL runs (a model's spec.window.skip_nul) --------------------------------------------
NUL_RUN = st.sampled_from([0, 1, 8, 63, 64, 65, 200, 1024, 5000])


@settings(max_examples=300, deadline=None)
@given(lead=ws_run, nuls=NUL_RUN, body=st.binary(max_size=600), trail=ws_run,
       skip=st.sampled_from([1, 64, 100]), head=st.integers(0, 700), tail=st.integers(0, 700),
       sizes=st.lists(st.integers(1, 700), max_size=5))
def test_every_reader_skips_the_same_nul_run(tmp_path_factory, lead, nuls, body, trail, skip,
                                             head, tail, sizes):
    data = lead + b"\0" * nuls + body + trail
    p = tmp_path_factory.mktemp("n") / "f.bin"
    p.write_bytes(data)
    got = [extract_window(data, head, tail, skip_nul=skip),
           read_window(p, head, tail, skip_nul=skip),
           read_stream(io.BytesIO(data), head, tail, skip_nul=skip).window,
           read_stream_chunks(chunked(data, sizes), head, tail, skip_nul=skip).window]
    assert got[1:] == got[:1] * 3


@settings(max_examples=100, deadline=None)
@given(body=st.binary(min_size=1, max_size=3000), pad=st.integers(64, 65536))
def test_nul_padding_changes_no_window_when_the_model_skips_it(body, pad):
    body = body.strip(windows.WHITESPACE).lstrip(b"\0") or b"x"
    base = extract_window(body, 1024, 1024, skip_nul=64)
    assert extract_window(b"\0" * pad + body, 1024, 1024, skip_nul=64) == base
    assert extract_window(b"\n\n" + b"\0" * pad + body, 1024, 1024, skip_nul=64) == base
    assert extract_window(b"\0" * pad + body + b"\n" * pad, 1024, 1024, skip_nul=64) == base
    nothing_else = extract_window(b"\0" * pad, 1024, 1024, skip_nul=64)
    assert extract_window(b"\0" * pad + b" \n" * pad, 1024, 1024, skip_nul=64) == nothing_else
    # off (every model trained before skip_nul): the padding is content, as it always was
    assert extract_window(b"\0" * pad + body, 1024, 1024)[:64] == b"\0" * 64


def test_the_nul_rules_by_hand(tmp_path):
    assert extract_window(b"\0" * 100 + b"CD001", 1024, 1024, skip_nul=64) == b"CD001"
    assert extract_window(b"\0" * 63 + b"x", 1024, 1024, skip_nul=64) == b"\0" * 63 + b"x"
    assert extract_window(b"\0\0\0\x1cftypisom", 1024, 1024, skip_nul=64) == b"\0\0\0\x1cftypisom"
    # nothing but NULs: nothing follows the run, so it stays (an all-zero file is not empty),
    # and trailing whitespace does not count as something (it cannot change the window either)
    assert extract_window(b"\0" * 5000, 8, 8, skip_nul=64) == b"\0" * 16
    assert extract_window(b"\0" * 5000 + b"\n" * 4096, 8, 8, skip_nul=64) == b"\0" * 16
    assert extract_window(b"\0" * 5000 + b"\n x\n", 8, 8, skip_nul=64) == b"\n x"
    # bounded: at most MAX_STRIP NUL bytes are skipped, and the reader never reads it all
    huge = b"\0" * (3 * MAX_STRIP) + b"x"
    w = extract_window(huge, 16, 16, skip_nul=64)
    assert w == b"\0" * 16 + b"\0" * 15 + b"x"
    calls = []

    def pread(n: int, off: int) -> bytes:
        calls.append(n)
        return huge[off:off + n]
    assert windows.window_from_reader(pread, len(huge), 16, 16, skip_nul=64) == w
    assert sum(calls) <= 2 * MAX_STRIP + 64


def test_the_window_spec_carries_skip_nul_and_earlier_specs_read_back_unchanged():
    from picohead_runtime.spec import ModelSpec, SpecError

    base = {"name": "m", "heads": [{"name": "kind", "kind": "softmax", "labels": ["a", "b"]}]}
    old = ModelSpec.from_dict({**base, "window": {"head": 512, "tail": 512}})
    assert old.window.skip_nul == 0 and "skip_nul" not in old.to_dict()["window"]
    new = ModelSpec.from_dict({**base, "window": {"head": 512, "tail": 512, "skip_nul": 64}})
    assert new.window.skip_nul == 64
    assert ModelSpec.from_dict(new.to_dict()).window == new.window
    for bad in (-1, "64", True):
        with pytest.raises(SpecError, match="skip_nul"):
            ModelSpec.from_dict({**base, "window": {"head": 512, "tail": 512, "skip_nul": bad}})
    with pytest.raises(SpecError):
        ModelSpec.from_dict({**base, "window": {"head": 512, "skip_nuls": 64}})
