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
