"""Byte windows: the one implementation of "what the model sees" for training and inference.

A window is the first ``head`` bytes of the content followed by its last ``tail`` bytes, taken after
leading and trailing whitespace (``WHITESPACE``) is stripped (content that is all whitespace leaves
one ``\n``, or one space when it has no newline, so it still has a window), at most
:data:`MAX_STRIP` bytes from each end, so the work stays bounded on huge or endless whitespace.
Keeping one trailing newline instead (most text files end with one) was tried and lost: 3-4 % of
the wild suite's answers still changed under 4 KB of trailing newlines, for the same accuracy
(``benchmarks/results/window_strip_trial.json``). Padding a file with up to
``MAX_STRIP`` bytes of whitespace at either end therefore changes no window (Magika issues #1335,
#1342, #1344 are this attack; content-v7 changed 78 % of its wild-suite answers under 1 KB of
leading newlines). Content no longer than ``head + tail`` after stripping is taken whole, so no byte
is ever duplicated.

NUL padding: a model whose spec sets ``window.skip_nul`` (``WindowSpec.skip_nul``, a number of
bytes) also skips a run of at least that many NUL bytes that follows the leading whitespace,
at most :data:`MAX_STRIP` bytes, when any byte follows the run (content that is nothing but NULs
keeps them). 1 KB of leading NULs changed 60-77 % of content-v18's wild-suite answers; no format
begins with 64 NULs for a reason a model could use (disk and ISO images show only zeros in their
first KB, and a PICT file's 512-byte zero header carries nothing), so the run carries no
information the model loses, and what follows it becomes visible. Models trained before the key
have it at 0 and see NULs as content, as they were trained to. Batches are right-padded
``uint8`` arrays plus an ``int64`` vector of lengths: a ``uint8`` cannot hold a pad id, so the
length, not a sentinel byte, says where the padding starts, and byte 0 stays an ordinary byte. The
models turn positions at or past the length into their own pad id (256) and mask them in pooling.

What it does: cut windows from bytes, read them from a file with positioned reads (the whitespace
at each end and the two windows, never the whole file; never blocking on FIFOs or devices; not
following symlinks unless asked), tell text from binary content (:func:`looks_text`), read them from a stream (a pipe, stdin, a size-0 ``/proc`` file) within :data:`STREAM_LIMIT` bytes and
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

from picohead_runtime.errors import PicoheadError

PAD_ID = 256  # the models' pad id; one past the last byte value
STREAM_LIMIT = 64 << 20  # bytes read from a stream before it is cut short (64 MiB)
STREAM_SECONDS = 60.0  # seconds spent reading one stream before it is cut short
_CHUNK = 1 << 16
WHITESPACE = b" \t\n\r\x0b\x0c"
MAX_STRIP = 1 << 20  # bytes of whitespace stripped at most from each end (1 MiB)


def _nul_skip(run: int, followed: bool, skip_nul: int) -> int:
    """How many bytes of a leading NUL run of ``run`` bytes (counted up to :data:`MAX_STRIP`) are
    skipped: all of them when ``skip_nul`` is set, the run is at least that long and content that
    is not trailing whitespace follows it; else none (content that is nothing but NULs keeps
    them, so trailing whitespace cannot change its window either)."""
    return run if skip_nul and run >= skip_nul and followed else 0


def _strip(data: bytes, skip_nul: int = 0) -> tuple[int, int, bytes]:
    """(start, end, suffix): the content is ``data[start:end] + suffix`` (see the module docstring)."""
    n = len(data)
    if n and data[0] not in WHITESPACE and data[-1] not in WHITESPACE and not (
            skip_nul and data[0] == 0):
        return 0, n, b""  # the common case: nothing to strip, no slice copied
    lead = min(n, MAX_STRIP)
    start = lead - len(data[:lead].lstrip(WHITESPACE))
    room = min(n - start, MAX_STRIP)
    end = n - (room - len(data[n - room :].rstrip(WHITESPACE))) if room else n
    if skip_nul and start < end and data[start] == 0:
        bound = min(end, start + MAX_STRIP)
        run = (bound - start) - len(data[start:bound].lstrip(b"\0"))
        start += _nul_skip(run, start + run < end, skip_nul)
    empty = start == end and n > 0
    return start, end, _suffix(b"\n" in data[end:], empty and b"\n" in data[:start], empty)


def looks_text(data: bytes) -> bool:
    """UTF-8 without NUL bytes in the first 8 KiB (a multibyte character cut at the end is fine):
    the one text test of the project (the corpus harvester, the generic type of a file's bytes and
    the decoder's rule for content too short for the model)."""
    head = data[:8192]
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:
            return False
    return True


def _suffix(trailing_newline: bool, leading_newline: bool, empty: bool) -> bytes:
    """What the stripped runs leave: nothing, except for content that was all whitespace: one
    newline (if it held one) or one space, so it still has a window."""
    if empty:
        return b"\n" if trailing_newline or leading_newline else b" "
    return b""


def _cut(core: bytes, suffix: bytes, head: int, tail: int) -> bytes:
    body = core + suffix
    if len(body) <= head + tail:
        return body
    return body[:head] + (body[len(body) - tail :] if tail else b"")


def extract_window(data: bytes | bytearray | memoryview, head: int, tail: int, *,
                   skip_nul: int = 0) -> bytes:
    """The model's view of ``data``: whitespace stripped from both ends (bounded, see the module
    docstring; with ``skip_nul``, a leading NUL run of at least that many bytes too), then all of
    it if short, else its first ``head`` + last ``tail`` bytes."""
    data = bytes(data)
    start, end, suffix = _strip(data, skip_nul)
    return _cut(data[start:end], suffix, head, tail)


def window_from_reader(pread: Callable[[int, int], bytes], size: int, head: int, tail: int, *,
                       skip_nul: int = 0) -> bytes:
    """The window of content of ``size`` bytes readable at any offset with ``pread(n, offset)``:
    the same bytes as :func:`extract_window` of the whole content. The first read at each end is
    the window itself (``head`` bytes, ``tail`` bytes), so a file without whitespace at its ends
    costs the same two reads as ever; whitespace is then skipped in 4 KiB steps, at most
    :data:`MAX_STRIP` bytes at each end."""
    seen: dict[tuple[int, int], bytes] = {}

    def cached(n: int, offset: int) -> bytes:
        for (o, _n), got in list(seen.items()):
            if o <= offset and offset + n <= o + len(got):
                return got[offset - o : offset - o + n]
            if offset < o < offset + n <= o + len(got):  # only the front is missing: read it
                front = _pread_exact_with(pread, o - offset, offset)
                seen[(offset, o - offset)] = front
                return front + got[: offset + n - o]
        got = _pread_exact_with(pread, n, offset)
        seen[(offset, n)] = got
        return got

    start, lead_newline = 0, False
    lead_end = min(size, MAX_STRIP)
    step = max(1, head)
    while start < lead_end:
        chunk = cached(min(step, lead_end - start), start)
        step = 4096
        if not chunk:
            break
        kept = chunk.lstrip(WHITESPACE)
        lead_newline |= b"\n" in chunk[: len(chunk) - len(kept)]
        start += len(chunk) - len(kept)
        if kept:
            break
    floor = max(start, size - MAX_STRIP)
    end, saw_newline = size, False
    step = max(1, tail)
    while end > floor:
        n = min(step, end - floor)
        step = 4096
        chunk = cached(n, end - n)
        if not chunk:
            break
        kept = chunk.rstrip(WHITESPACE)
        saw_newline |= b"\n" in chunk[len(kept) :]
        end -= len(chunk) - len(kept)
        if kept:
            break
    end = max(end, start)
    if skip_nul and start < end:
        bound, pos = min(end, start + MAX_STRIP), start
        while pos < bound:
            chunk = cached(min(4096, bound - pos), pos)
            if not chunk:
                break
            kept = chunk.lstrip(b"\0")
            pos += len(chunk) - len(kept)
            if kept:
                break
        start += _nul_skip(pos - start, pos < end, skip_nul)
    empty = start == end and size > 0
    suffix = _suffix(saw_newline, empty and lead_newline, empty)
    core_len = end - start
    if core_len + len(suffix) <= head + tail:
        return cached(core_len, start) + suffix
    first = cached(min(head, core_len), start)
    need = max(0, tail - len(suffix))
    last = (cached(need, end - need) if need else b"") + suffix
    return first + (last[len(last) - tail :] if tail else b"")


def _pread_exact_with(pread: Callable[[int, int], bytes], n: int, offset: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        chunk = pread(n, offset)
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
        offset += len(chunk)
    return b"".join(parts)


class NotRegularFileError(PicoheadError, OSError):
    """The path is a FIFO, socket or device: reading it could block or never end."""


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
    skip_nul: int = 0,
) -> StreamWindow:
    """The window of the bytes that ``read(n)`` gives until it returns ``b""`` (or ``None``), or
    until ``limit`` bytes or ``seconds`` seconds: leading whitespace skipped (at most
    :data:`MAX_STRIP`), the head, then a rolling tail long enough to strip the trailing whitespace;
    the same window as :func:`extract_window` of the bytes read."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1 byte, got {limit}")
    deadline = time.monotonic() + seconds
    keep = tail + MAX_STRIP  # the rolling tail: the tail window plus a trailing run to strip
    first = bytearray()
    buf = bytearray()
    total, lead_left, lead_newline, in_lead, dropped = 0, MAX_STRIP, False, True, False
    nuls = -1 if skip_nul else None  # the leading NUL run counted so far (-1: not reached yet)
    pend: bytearray | None = None  # whitespace after a long run, until it is known to be trailing
    reason = ""
    while True:
        if total >= limit:
            reason = f"the {limit:,}-byte limit"
            break
        if time.monotonic() > deadline:
            reason = f"the {seconds:g} s limit"
            break
        chunk = read(min(_CHUNK, limit - total))
        if chunk is None:  # a non-blocking stream with nothing ready: treat as the end
            break
        if not isinstance(chunk, (bytes, bytearray)):
            raise TypeError("a window needs a binary stream (open the file with 'rb')")
        if not chunk:
            break
        total += len(chunk)
        chunk = bytes(chunk)
        if in_lead:
            n = min(len(chunk), lead_left)
            skipped = n - len(chunk[:n].lstrip(WHITESPACE))
            lead_newline |= b"\n" in chunk[:skipped]
            lead_left -= skipped
            chunk = chunk[skipped:]
            if not chunk and lead_left > 0:
                continue
            in_lead = False
        if nuls is not None and chunk:
            if nuls < 0:
                nuls = 0
            if pend is None:  # inside the run
                n = min(len(chunk), MAX_STRIP - nuls)
                run = n - len(chunk[:n].lstrip(b"\0"))
                nuls += run
                chunk = chunk[run:]
                if not chunk:  # the run goes on (or reached MAX_STRIP at this chunk's end)
                    continue
                if nuls < skip_nul:  # too short to skip, whatever follows
                    chunk, nuls = b"\0" * nuls + chunk, None
                else:
                    pend = bytearray()
            if pend is not None:  # a long run: skipped once content other than whitespace follows
                ws = len(chunk) - len(chunk.lstrip(WHITESPACE))
                pend += chunk[:ws]
                chunk = chunk[ws:]
                if not chunk and len(pend) <= MAX_STRIP:  # may yet be trailing whitespace
                    continue
                chunk, nuls, pend = bytes(pend) + chunk, None, None
        if len(first) < head:
            take = head - len(first)
            first += chunk[:take]
            chunk = chunk[take:]
        if chunk:
            buf += chunk
            if len(buf) > keep + _CHUNK:
                del buf[: len(buf) - keep]
                dropped = True
    if nuls is not None and nuls > 0:  # the content ended inside its leading NUL run (or in
        kept = b"\0" * nuls + bytes(pend or b"")  # whitespace after it): nothing followed, so
        first, buf = bytearray(kept[:head]), bytearray(kept[head:])  # it stays (<= 2 MiB)
    window = _stream_window(bytes(first), bytes(buf), dropped, lead_newline, total, head, tail)
    return StreamWindow(window, total, bool(reason), reason)


def _stream_window(first: bytes, buf: bytes, dropped: bool, lead_newline: bool, total: int,
                   head: int, tail: int) -> bytes:
    content = first + buf  # the whole content after the leading run, unless ``dropped``
    room = min(len(content), MAX_STRIP)
    end = len(content) - (room - len(content[len(content) - room :].rstrip(WHITESPACE)))
    empty = end == 0 and not dropped and total > 0
    suffix = _suffix(b"\n" in content[end:], empty and lead_newline, empty)
    if not dropped:
        return _cut(content[:end], suffix, head, tail)
    body_tail = content[:end] + suffix
    return first + (body_tail[len(body_tail) - tail :] if tail else b"")


def read_stream(
    stream: IO[bytes],
    head: int,
    tail: int,
    *,
    limit: int = STREAM_LIMIT,
    seconds: float = STREAM_SECONDS,
    skip_nul: int = 0,
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
    if seekable:

        def pread(n: int, offset: int) -> bytes:
            stream.seek(pos + offset)
            return _read_exact(stream, n)

        window = window_from_reader(pread, end - pos, head, tail, skip_nul=skip_nul)
        stream.seek(end)
        return StreamWindow(window, end - pos)
    return read_stream_chunks(stream.read, head, tail, limit=limit, seconds=seconds,
                              skip_nul=skip_nul)


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
    fd: int, head: int, tail: int, *, limit: int = STREAM_LIMIT, seconds: float = STREAM_SECONDS,
    skip_nul: int = 0,
) -> StreamWindow:
    """The window of the regular file open on ``fd``: positioned reads, or, when the file
    says its size is 0 (``/proc``, ``/sys`` and other synthetic files), read as a stream."""
    size = os.fstat(fd).st_size
    if size == 0:
        return read_stream_chunks(
            lambda n: os.read(fd, n), head, tail, limit=limit, seconds=seconds, skip_nul=skip_nul
        )
    window = read_window_fd(fd, head, tail, skip_nul=skip_nul)
    return StreamWindow(window, size)


def read_window_fd(fd: int, head: int, tail: int, *, skip_nul: int = 0) -> bytes:
    """Read the window of the regular file open on ``fd`` with positioned reads (the whitespace at
    each end in 4 KiB steps, then the two windows); a file that says its size is 0 gives ``b""``
    (:func:`read_fd` reads those)."""
    size = os.fstat(fd).st_size
    return window_from_reader(lambda n, offset: os.pread(fd, n, offset), size, head, tail,
                              skip_nul=skip_nul)


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
    path: str | os.PathLike[str] | bytes, head: int, tail: int, *, follow_symlinks: bool = False,
    skip_nul: int = 0,
) -> bytes:
    """Read the window of the file at ``path``; raises ``OSError`` subclasses on failure."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        return read_window_fd(fd, head, tail, skip_nul=skip_nul)
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
