"""Byte windows: the one implementation of "what the model sees" for training and inference.

A window is the first ``head`` bytes of the content followed by its last ``tail`` bytes. Content no
longer than ``head + tail`` is taken whole, so no byte is ever duplicated. Batches are right-padded
``uint8`` arrays plus an ``int64`` vector of lengths: a ``uint8`` cannot hold a pad id, so the
length, not a sentinel byte, says where the padding starts, and byte 0 stays an ordinary byte. The
models turn positions at or past the length into their own pad id (256) and mask them in pooling.

What it does: cut windows from bytes, read them from a file with two positioned reads (never the
whole file; never blocking on FIFOs or devices; not following symlinks unless asked), read them
from a stream (a pipe, stdin, a size-0 ``/proc`` file) within :data:`STREAM_LIMIT` bytes and
:data:`STREAM_SECONDS` seconds, and batch them. What it does not do: map read errors to result
statuses (``picohead_runtime.io`` does) or decide labels.

Streams: a pipe has no end to seek to, so the tail window is the last ``tail`` bytes *read*. The
reader keeps the head, then a rolling tail of at most ``tail`` bytes, and stops after
:data:`STREAM_LIMIT` bytes or :data:`STREAM_SECONDS` seconds in all, whichever comes first
(``cat /dev/zero | picohead classify -`` returns). A stream cut short says so
(:class:`StreamWindow` ``truncated``); its tail window is then the last bytes before the cut.
The time limit is checked between reads: a producer that writes nothing at all still blocks.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np

PAD_ID = 256  # the models' pad id; one past the last byte value
STREAM_LIMIT = 64 << 20  # bytes read from a stream before it is cut short (64 MiB)
STREAM_SECONDS = 60.0  # seconds spent reading one stream before it is cut short
_CHUNK = 1 << 16


def extract_window(data: bytes | bytearray | memoryview, head: int, tail: int) -> bytes:
    """The model's view of ``data``: all of it if short, else its first ``head`` + last ``tail`` bytes."""
    data = bytes(data)
    if len(data) <= head + tail:
        return data
    return data[:head] + (data[len(data) - tail :] if tail else b"")


class NotRegularFileError(OSError):
    """The path is a FIFO, socket or device: reading it could block or never end."""


def _pread_exact(fd: int, n: int, offset: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        chunk = os.pread(fd, n, offset)
        if not chunk:  # the file shrank while we read it
            break
        parts.append(chunk)
        n -= len(chunk)
        offset += len(chunk)
    return b"".join(parts)


@dataclass(frozen=True)
class StreamWindow:
    """The window read from a stream, and whether a limit cut the stream short."""

    window: bytes
    read: int  # bytes consumed from the stream
    truncated: bool = False  # stopped at a limit: the tail is of the first ``read`` bytes
    reason: str = ""  # which limit, in words, when truncated

    @property
    def message(self) -> str | None:
        if not self.truncated:
            return None
        return (
            f"stream cut short after {self.read:,} bytes ({self.reason}); the tail window is the "
            "last bytes read, not the end of the stream"
        )


def read_stream_chunks(
    read: Callable[[int], bytes | None],
    head: int,
    tail: int,
    *,
    limit: int = STREAM_LIMIT,
    seconds: float = STREAM_SECONDS,
) -> StreamWindow:
    """The window of the bytes that ``read(n)`` gives until it returns ``b""`` (or ``None``), or
    until ``limit`` bytes or ``seconds`` seconds: the head, then a rolling tail."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1 byte, got {limit}")
    deadline = time.monotonic() + seconds
    first = bytearray()
    buf = bytearray()
    total = 0
    while True:
        if total >= limit:
            return StreamWindow(_join(first, buf, tail), total, True, f"the {limit:,}-byte limit")
        if time.monotonic() > deadline:
            return StreamWindow(_join(first, buf, tail), total, True, f"the {seconds:g} s limit")
        want = head - len(first) if len(first) < head else _CHUNK
        chunk = read(min(want, limit - total))
        if chunk is None:  # a non-blocking stream with nothing ready: treat as the end
            break
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("a window needs a binary stream (open the file with 'rb')")
        if not chunk:
            break
        total += len(chunk)
        if len(first) < head:
            take = head - len(first)
            first += chunk[:take]
            chunk = chunk[take:]
        if chunk and tail:
            buf += chunk
            if len(buf) > max(2 * tail, _CHUNK):
                del buf[: len(buf) - tail]
    return StreamWindow(_join(first, buf, tail), total)


def _join(first: bytearray, buf: bytearray, tail: int) -> bytes:
    return bytes(first) + (bytes(buf[-tail:]) if tail else b"")


def read_stream(
    stream: IO[bytes],
    head: int,
    tail: int,
    *,
    limit: int = STREAM_LIMIT,
    seconds: float = STREAM_SECONDS,
) -> StreamWindow:
    """The window of a binary stream from its position: seek to the tail when the stream can,
    else read on within ``limit`` bytes and ``seconds`` seconds (see the module docstring)."""
    seekable = False
    try:
        seekable = stream.seekable()
    except (AttributeError, OSError, ValueError):
        pass
    if seekable:
        try:
            pos = stream.tell()
            end = stream.seek(0, os.SEEK_END)
            stream.seek(pos)
        except OSError:
            seekable = False
    if seekable and end - pos > head + tail:
        first = _read_exact(stream, head)
        stream.seek(end - tail)
        last = _read_exact(stream, tail) if tail else b""
        return StreamWindow(first + last, end - pos)
    return read_stream_chunks(stream.read, head, tail, limit=limit, seconds=seconds)


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        chunk = stream.read(n)
        if chunk is None:
            break
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("a window needs a binary stream (open the file with 'rb')")
        if not chunk:
            break
        parts.append(bytes(chunk))
        n -= len(chunk)
    return b"".join(parts)


def read_fd(
    fd: int, head: int, tail: int, *, limit: int = STREAM_LIMIT, seconds: float = STREAM_SECONDS
) -> StreamWindow:
    """The window of the regular file open on ``fd``: two positioned reads, or, when the file
    says its size is 0 (``/proc``, ``/sys`` and other synthetic files), read as a stream."""
    size = os.fstat(fd).st_size
    if size == 0:
        return read_stream_chunks(
            lambda n: os.read(fd, n), head, tail, limit=limit, seconds=seconds
        )
    window = read_window_fd(fd, head, tail)
    return StreamWindow(window, size)


def read_window_fd(fd: int, head: int, tail: int) -> bytes:
    """Read the window of the regular file open on ``fd`` with at most two positioned reads
    (a file that says its size is 0 gives ``b""``; :func:`read_fd` reads those)."""
    size = os.fstat(fd).st_size
    if size <= head + tail:
        data = _pread_exact(fd, size, 0)
        return data
    first = _pread_exact(fd, head, 0)
    last = _pread_exact(fd, tail, size - tail) if tail else b""
    return first + last


def open_regular(path: str | os.PathLike[str] | bytes, *, follow_symlinks: bool = False) -> int:
    """Open ``path`` read-only without blocking; raise unless it is a regular file.

    ``O_NONBLOCK`` makes opening a FIFO return at once; the ``fstat`` check then refuses it (and
    sockets and devices) before any read. Without ``follow_symlinks`` a symlink is refused with
    ``ELOOP`` (``O_NOFOLLOW``).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", os.fsdecode(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(0, "not a regular file", os.fsdecode(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_window(
    path: str | os.PathLike[str] | bytes, head: int, tail: int, *, follow_symlinks: bool = False
) -> bytes:
    """Read the window of the file at ``path``; raises ``OSError`` subclasses on failure."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        return read_window_fd(fd, head, tail)
    finally:
        os.close(fd)


def batch_windows(
    windows: Sequence[bytes], length: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Stack windows into ``(bytes uint8[B, L], lengths int64[B])``, right-padded with zeros.

    ``L`` is the longest window (at least 1) unless ``length`` is given.
    """
    lengths = np.fromiter((len(w) for w in windows), dtype=np.int64, count=len(windows))
    width = int(length if length is not None else max(1, int(lengths.max(initial=1))))
    if lengths.size and int(lengths.max()) > width:
        raise ValueError(f"a window of {int(lengths.max())} bytes does not fit length {width}")
    out = np.zeros((len(windows), width), dtype=np.uint8)
    for i, w in enumerate(windows):
        if w:
            out[i, : len(w)] = np.frombuffer(w, dtype=np.uint8)
    return out, lengths
