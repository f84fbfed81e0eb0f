"""``Classifier``: the one entry class. Load a model once, classify bytes, files and streams.

One onnxruntime session per classifier, created at construction and shared by every call, so a
classifier is safe to share across threads (``InferenceSession.run`` is thread-safe and decoding
is pure). Files are read with :func:`picohead_runtime.io.read_path`: only the head and tail windows,
never blocking on FIFOs or devices, never following symlinks unless ``follow_symlinks=True``, never
writing. A file that cannot be read gives a result with a status, never an exception.

What it does not do: walk directories (the CLI does) or print anything.
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import IO, Any

import numpy as np

from picohead_runtime.decode import Decoder
from picohead_runtime.io import EMPTY, OK, READ_ERROR, ListingError, read_path
from picohead_runtime.model import (
    ModelError,
    load_model,
    resolve_model_path,
)
from picohead_runtime.model_meta import INPUT_BYTES, INPUT_LENGTHS, ModelMeta
from picohead_runtime.results import Result, path_str
from picohead_runtime.spec import ModelSpec
from picohead_runtime.windows import STREAM_LIMIT, batch_windows, extract_window, read_stream

PathLike = str | bytes | os.PathLike
_VERSIONED = re.compile(r"^.+-v\d+$")


class Classifier:
    """Classify content with an exported picohead model.

    ``model``: an ``.onnx`` file, a folder holding ``<tier>.onnx`` files, or ``None`` for
    ``$PICOHEAD_MODEL`` or else the model bundled in this package. ``tier``: which tier to load from
    a folder (the folder's ``model.json`` default, else ``"small"``); for a file, its own tier (an explicit ``tier`` must match it).
    ``device``: ``"cpu"``, ``"cuda"`` (an error without a usable GPU) or ``"auto"`` (CUDA when
    available, else the CPU with a warning). ``threads``: how many batches :meth:`classify_paths`
    and :meth:`classify_many_bytes` read and run at once, each model call on one core (the
    session's onnxruntime intra-op threads are ``intra_op_threads``, default 1: these models are
    too small for one call to gain from a second core, and idle intra-op workers spinning beside
    concurrent calls cost more than they give; measured with the bundled tiny tier on 2 cores:
    9.5k files/s with 2 single-threaded calls in flight, 6.2k with 2 intra-op threads each).
    ``top_k``: raw labels kept per head.
    ``batch_size``: files read per chunk in :meth:`classify_paths` (default 32 on CPU, 1024 on
    CUDA). A chunk's windows are padded to fixed widths (powers of two from 64 up to the full
    window) and run as one call per width, so short files are not padded to 2 KB, and a file's
    answer does not depend on the files batched with it (the int8 files keep int8 weights and float
    activations; scores can differ in the last float digits, labels do not).
    ``stream_limit``: bytes read from a stream (a pipe, or a file whose size says 0, like
    ``/proc/self/status``) before it is cut short; such a result is ``ok`` with ``truncated``
    set and a ``message`` (see ``picohead_runtime.windows``).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        tier: str | None = None,
        device: str = "cpu",
        threads: int = 1,
        *,
        top_k: int = 3,
        follow_symlinks: bool = False,
        batch_size: int | None = None,
        intra_op_threads: int = 1,
        stream_limit: int = STREAM_LIMIT,
    ) -> None:
        if threads < 1:
            raise ModelError(f"threads must be at least 1, got {threads}")
        if stream_limit < 1:
            raise ValueError(f"stream_limit must be at least 1 byte, got {stream_limit}")
        self.stream_limit = stream_limit
        path = resolve_model_path(model, tier, device)
        self._model = load_model(path, device=device, threads=intra_op_threads)
        meta = self._model.meta
        if tier is not None and meta.tier != tier:
            raise ModelError(
                f"{path}: this file holds tier {meta.tier!r}, not the requested {tier!r}; "
                "pass the model folder to choose a tier, or drop the tier argument"
            )
        self.device = "cuda" if "CUDAExecutionProvider" in self._model.providers else "cpu"
        self.threads = threads
        self.follow_symlinks = follow_symlinks
        if batch_size is None:
            batch_size = 1024 if self.device == "cuda" else 32
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self._decoder = Decoder(meta.spec, top_k=top_k)
        self._head, self._tail = meta.spec.window.head, meta.spec.window.tail
        self._skip_nul = meta.spec.window.skip_nul
        self._full = max(1, meta.spec.window.size)
        self._run = self._model.session.run
        self._outputs = list(self._model.output_names)
        parent = path.parent.name
        self.model_name = parent if _VERSIONED.match(parent) else meta.spec.name
        self.tier = meta.tier
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        # One full-window call, so the first real file does not pay for buffer allocation.
        self._one(None, b" " * max(1, meta.spec.window.size))

    # -- what is loaded -------------------------------------------------------------------------
    @property
    def spec(self) -> ModelSpec:
        return self._model.meta.spec

    @property
    def meta(self) -> ModelMeta:
        return self._model.meta

    @property
    def model_path(self) -> str:
        return str(self._model.path)

    @property
    def providers(self) -> tuple[str, ...]:
        return self._model.providers

    def __repr__(self) -> str:
        return (
            f"Classifier(model={self.model_path!r}, tier={self.tier!r}, device={self.device!r}, "
            f"threads={self.threads})"
        )

    # -- single inputs ----------------------------------------------------------------------------
    def classify_bytes(
        self, data: bytes | bytearray | memoryview, *, path: str | None = None
    ) -> Result:
        """Classify in-memory content (only its window is used); ``TypeError`` unless bytes."""
        return self._one(path, extract_window(_check_bytes(data), self._head, self._tail,
                                              skip_nul=self._skip_nul))

    def classify_path(self, path: PathLike | ListingError) -> Result:
        """Classify one file; problems reading it become the result's status."""
        if isinstance(path, ListingError):
            return self._status(path.path, path.status, path.message)
        status, window, message = self._read(path)
        if status != OK:
            return self._status(path_str(path), status, message)
        assert window is not None
        return self._one(path_str(path), window, message)

    def classify_stream(self, stream: IO[bytes], *, path: str | None = None) -> Result:
        """Classify a binary stream from its current position (seeks to the end when it can;
        a pipe is read within ``stream_limit`` bytes, and the result says when it was cut)."""
        try:
            got = read_stream(stream, self._head, self._tail, limit=self.stream_limit,
                              skip_nul=self._skip_nul)
        except OSError as e:
            return self._status(path, READ_ERROR, e.strerror or str(e))
        return self._one(path, got.window, got.message)

    # -- many inputs --------------------------------------------------------------------------------
    def classify_paths(self, paths: Iterable[PathLike | ListingError]) -> Iterator[Result]:
        """Classify any iterable of paths lazily, in order, ``batch_size`` files per model call.

        With ``threads > 1`` up to ``threads`` batches are read and run concurrently.
        """
        return self._pipelined(self._batch, _chunks(iter(paths), self.batch_size))

    def classify_many_bytes(self, items: Iterable[bytes]) -> Iterator[Result]:
        """Like :meth:`classify_paths` for in-memory contents (results have no path);
        ``TypeError`` for an item that is not bytes."""
        checked = (_check_bytes(b) for b in items)
        return self._pipelined(self._bytes_batch, _chunks(checked, self.batch_size))

    # -- internals ------------------------------------------------------------------------------------
    def _pipelined(
        self, work: Callable[[list[Any]], list[Result]], batches: Iterator[list[Any]]
    ) -> Iterator[Result]:
        """Results of ``work`` over ``batches``, in order, with up to ``threads`` in flight
        (onnxruntime releases the GIL while it runs, so the calls use separate cores)."""
        if self.threads <= 1:
            for batch in batches:
                yield from work(batch)
            return
        pool = self._executor()
        pending: deque[Any] = deque()
        for batch in batches:
            pending.append(pool.submit(work, batch))
            if len(pending) > self.threads:  # one queued beyond the workers: no idle gap
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()

    def _bytes_batch(self, batch: list[bytes]) -> list[Result]:
        return self._run_windows(
            [None] * len(batch),
            [extract_window(b, self._head, self._tail, skip_nul=self._skip_nul) for b in batch],
        )

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="picohead")
            return self._pool

    def _status(self, path: str | None, status: str, message: str | None) -> Result:
        return Result(
            path=path, status=status, tier=self.tier, model=self.model_name, message=message
        )

    def _read(self, path: PathLike) -> tuple[str, bytes | None, str | None]:
        return read_path(
            path,
            self._head,
            self._tail,
            follow_symlinks=self.follow_symlinks,
            stream_limit=self.stream_limit,
            skip_nul=self._skip_nul,
        )

    def _one(self, path: str | None, window: bytes, note: str | None = None) -> Result:
        n = len(window)
        if n == 0:
            return self._status(path, EMPTY, None)
        width = self._width(n)
        if width == n:
            x = np.frombuffer(window, dtype=np.uint8).reshape(1, n)
        else:
            x = np.zeros((1, width), dtype=np.uint8)
            x[0, :n] = np.frombuffer(window, dtype=np.uint8)
        probs = self._run(self._outputs, {INPUT_BYTES: x, INPUT_LENGTHS: np.array([n], np.int64)})
        return Result(
            path=path,
            status=OK,
            heads=self._decoder.decode(probs, [window])[0],
            tier=self.tier,
            model=self.model_name,
            message=note,
            truncated=note is not None,
        )

    def _batch(self, batch: list[PathLike | ListingError]) -> list[Result]:
        names: list[str | None] = []
        windows: list[bytes | None] = []
        results: list[Result | None] = []
        notes: dict[int, str] = {}
        for i, p in enumerate(batch):
            if isinstance(p, ListingError):  # a folder a walk could not list: its own record
                names.append(p.path)
                windows.append(None)
                results.append(self._status(p.path, p.status, p.message))
                continue
            name = path_str(p)
            status, window, message = self._read(p)
            names.append(name)
            windows.append(window)
            results.append(None if status == OK else self._status(name, status, message))
            if status == OK and message:
                notes[i] = message
        return self._fill(names, windows, results, notes)

    def _run_windows(self, names: list[str | None], windows: list[bytes]) -> list[Result]:
        results: list[Result | None] = [
            None if w else self._status(n, EMPTY, None) for n, w in zip(names, windows)
        ]
        return self._fill(names, list(windows), results)

    def _fill(
        self,
        names: list[str | None],
        windows: list[bytes | None],
        results: list[Result | None],
        notes: dict[int, str] | None = None,
    ) -> list[Result]:
        notes = notes or {}
        todo = [i for i, r in enumerate(results) if r is None]
        if not todo:
            return results  # type: ignore[return-value]
        by_width: dict[int, list[int]] = {}
        for i in todo:
            by_width.setdefault(self._width(len(windows[i] or b"")), []).append(i)
        for width in sorted(by_width):
            part = by_width[width]
            x, n = batch_windows([windows[i] or b"" for i in part], width)
            probs = self._run(self._outputs, {INPUT_BYTES: x, INPUT_LENGTHS: n})
            for i, heads in zip(
                part, self._decoder.decode(probs, [windows[i] or b"" for i in part])
            ):
                results[i] = Result(
                    path=names[i],
                    status=OK,
                    heads=heads,
                    tier=self.tier,
                    model=self.model_name,
                    message=notes.get(i),
                    truncated=i in notes,
                )
        return results  # type: ignore[return-value]

    def _width(self, n: int) -> int:
        """The padded width for a window of ``n`` bytes: the next power of two from 64, capped at
        the full window. Every call pads a window to the same width, alone or in any batch, so a
        file's result does not depend on its neighbours (for fp32 graphs, bit for bit)."""
        full = self._full
        if n >= full:
            return full
        return min(full, max(64, 1 << (n - 1).bit_length()))

    def close(self) -> None:
        """Stop the worker threads of :meth:`classify_paths` (the session stays usable)."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def __enter__(self) -> Classifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _chunks(it: Iterator[Any], n: int) -> Iterator[list[Any]]:
    while True:
        chunk = list(islice(it, n))
        if not chunk:
            return
        yield chunk


def _check_bytes(data: Any) -> bytes | bytearray | memoryview:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"content must be bytes, bytearray or memoryview, not {type(data).__name__} "
            "(for a path use classify_path, for an open file classify_stream)"
        )
    return data


def read_stream_window(stream: IO[bytes], head: int, tail: int, *, skip_nul: int = 0) -> bytes:
    """The window of a binary stream from its position (``picohead_runtime.windows.read_stream``
    without the report: a pipe is cut short at ``STREAM_LIMIT`` bytes)."""
    return read_stream(stream, head, tail, skip_nul=skip_nul).window
