"""Byte windows: the one implementation of "what the model sees" for training and inference.

A window is the first ``head`` bytes of the content followed by its last ``tail`` bytes. Content no
longer than ``head + tail`` is taken whole, so no byte is ever duplicated. Batches are right-padded
``uint8`` arrays plus an ``int64`` vector of lengths: a ``uint8`` cannot hold a pad id, so the
length, not a sentinel byte, says where the padding starts, and byte 0 stays an ordinary byte. The
models turn positions at or past the length into their own pad id (256) and mask them in pooling.

What it does: cut windows from bytes, read them from a file with two positioned reads (never the
whole file; never blocking on FIFOs or devices; not following symlinks unless asked), and batch
them. What it does not do: map read errors to result statuses (``picohead_runtime.io`` does) or
decide labels.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

import numpy as np

PAD_ID = 256  # the models' pad id; one past the last byte value


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


def read_window_fd(fd: int, head: int, tail: int) -> bytes:
    """Read the window of the regular file open on ``fd`` with at most two positioned reads."""
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
