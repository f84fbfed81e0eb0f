"""The engine-free core of scale-out: a picklable config, a per-process classifier cache, and one
batch call over paths or byte strings that returns plain columns.

Why a cache and not a classifier object: an onnxruntime ``InferenceSession`` cannot be pickled, and
engines ship work to other processes by pickling it. So adapters carry only a :class:`ScaleConfig`
(a few strings and ints), and every worker process builds its own :class:`Classifier` the first
time it sees that config, then reuses it for every later batch. A process that was forked after
the cache was filled starts with an empty cache (sessions do not survive ``fork`` safely).

What it does not do: import any engine, walk directories or write files.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from picohead_runtime.classifier import Classifier
from picohead_runtime.formats import format_jsonl
from picohead_runtime.io import READ_ERROR, ListingError
from picohead_runtime.results import HeadResult, Result, path_bytes, path_str
from picohead_runtime.spec import ModelSpec

PathLike = str | bytes | os.PathLike

# Columns every output table starts with, in order; then ``label_<head>`` per softmax head, then
# ``result`` (the full result as one JSON object, exactly what ``asdict()`` gives).
BASE_COLUMNS = ("path", "ok", "status", "model", "tier", "message")
RESULT_COLUMN = "result"


@dataclass(frozen=True)
class ScaleConfig:
    """Everything a worker needs to build its classifier; small, hashable and picklable.

    ``model``: an ``.onnx`` file or a model folder, made absolute here (engine workers run in
    other directories), or ``None`` for ``$PICOHEAD_MODEL`` / the bundled model *as each worker
    sees it*. ``threads``: batches in flight per worker process (``Classifier(threads=)``); keep 1
    and scale with workers.
    ``base_dir``: relative input paths are read from this folder but reported as given, so a
    scan's results do not depend on the engine's working directory. The other fields are passed
    to :class:`~picohead_runtime.Classifier` unchanged.
    """

    model: str | None = None
    tier: str | None = None
    device: str = "cpu"
    threads: int = 1
    batch_size: int = 64
    top_k: int = 3
    follow_symlinks: bool = False
    base_dir: str | None = None

    def __post_init__(self) -> None:
        if self.model is not None:
            object.__setattr__(self, "model", os.path.abspath(os.fspath(self.model)))
        if self.base_dir is not None:
            object.__setattr__(self, "base_dir", os.path.abspath(os.fspath(self.base_dir)))
        if self.threads < 1 or self.batch_size < 1 or self.top_k < 1:
            raise ValueError(
                f"threads, batch_size and top_k must be at least 1, got {self.threads}, "
                f"{self.batch_size}, {self.top_k}"
            )


# -- the per-process cache ------------------------------------------------------------------------
_lock = threading.Lock()
_cache: dict[ScaleConfig, Classifier] = {}
_cache_pid = os.getpid()


def classifier_for(config: ScaleConfig) -> Classifier:
    """This process's classifier for ``config``, created on first use and kept for the process."""
    global _cache_pid
    with _lock:
        if _cache_pid != os.getpid():  # a forked child: the parent's sessions are not ours
            _cache.clear()
            _cache_pid = os.getpid()
        clf = _cache.get(config)
        if clf is None:
            clf = Classifier(
                config.model,
                tier=config.tier,
                device=config.device,
                threads=config.threads,
                top_k=config.top_k,
                follow_symlinks=config.follow_symlinks,
                batch_size=config.batch_size,
            )
            _cache[config] = clf
        return clf


def cached_configs() -> list[ScaleConfig]:
    """The configs this process holds a classifier for (for tests and diagnostics)."""
    with _lock:
        return list(_cache) if _cache_pid == os.getpid() else []


def clear_cache() -> None:
    """Drop this process's classifiers (their sessions are freed when unreferenced)."""
    with _lock:
        for clf in _cache.values():
            clf.close()
        _cache.clear()


# -- one batch --------------------------------------------------------------------------------------
def classify_batch(
    config: ScaleConfig,
    *,
    paths: Sequence[PathLike | ListingError | None] | None = None,
    data: Sequence[bytes | bytearray | memoryview | None] | None = None,
    names: Sequence[PathLike | None] | None = None,
) -> list[Result]:
    """Classify one batch of ``paths`` (files read on this worker) or of ``data`` (contents).

    Results come back in input order, one per item, never an exception for a bad file. With
    ``data``, ``names`` (optional, same length) become the results' ``path``. A ``None`` path or
    content (a null in a dataframe) gives a ``read_error`` result; a
    :class:`~picohead_runtime.io.ListingError` (a folder a walk could not list) its own status.
    """
    if (paths is None) == (data is None):
        raise TypeError("classify_batch needs exactly one of paths= or data=")
    clf = classifier_for(config)
    if paths is not None:
        shown = [
            None if p is None else p.path if isinstance(p, ListingError) else path_str(p)
            for p in paths
        ]
        present: list[PathLike | ListingError] = []
        for p, name in zip(paths, shown):
            if isinstance(p, ListingError):
                present.append(p)
            elif name is not None:
                base = config.base_dir
                present.append(os.path.join(base, name) if base is not None else name)
        return _merge(clf, shown, clf.classify_paths(present), "no path (null)")
    assert data is not None
    if names is not None and len(names) != len(data):
        raise ValueError(f"names has {len(names)} items but data has {len(data)}")
    labels = [None if n is None else path_str(n) for n in names] if names else [None] * len(data)
    got = clf.classify_many_bytes([bytes(d) for d in data if d is not None])
    missing = [d is None for d in data]
    return _merge(clf, labels, got, "no content (null)", missing=missing)


def _merge(
    clf: Classifier,
    names: Sequence[str | None],
    got: Iterable[Result],
    null_message: str,
    *,
    missing: Sequence[bool] | None = None,
) -> list[Result]:
    """Results for ``names`` in order: the next of ``got`` (renamed to its name) for each item,
    a ``read_error`` for each missing one (a ``None`` name, or ``missing[i]``)."""
    it = iter(got)
    out: list[Result] = []
    for i, name in enumerate(names):
        absent = missing[i] if missing is not None else name is None
        if absent:
            out.append(
                Result(
                    path=name,
                    status=READ_ERROR,
                    tier=clf.tier,
                    model=clf.model_name,
                    message=null_message,
                )
            )
            continue
        r = next(it)
        out.append(r if name is None or r.path == name else replace(r, path=name))
    return out


def aligned(rows: int, batch_size: int) -> int:
    """``rows`` rounded up to a multiple of ``batch_size``.

    The runtime pads each model call to its longest window, so a file's scores can move in the
    6th decimal with the company it is batched with. Partitions whose sizes are multiples of the
    batch size are cut into exactly the model calls one process makes over the same list, so
    every engine gives byte-identical results to ``Classifier.classify_paths``.
    """
    return max(1, -(-rows // batch_size)) * batch_size


# -- results as columns -------------------------------------------------------------------------------
def label_heads(spec: ModelSpec) -> list[str]:
    """Softmax heads, which get a ``label_<head>`` column (multilabel heads live in ``result``)."""
    return [h.name for h in spec.heads if not h.multilabel]


def output_columns(spec: ModelSpec) -> list[str]:
    """Column names of :func:`result_columns` for a model with ``spec``, in order."""
    return [*BASE_COLUMNS, *(f"label_{h}" for h in label_heads(spec)), RESULT_COLUMN]


def display_path(path: str | None) -> str | None:
    """``path`` as valid UTF-8 text (undecodable bytes become U+FFFD; ``result`` keeps them)."""
    if path is None or path_bytes(path) is None:
        return path
    return os.fsencode(path).decode("utf-8", "replace")


def result_json(result: Result) -> str:
    """One result as one line of JSON, byte for byte what ``picohead classify --jsonl`` writes."""
    return format_jsonl(result)


def result_columns(results: Sequence[Result], spec: ModelSpec) -> dict[str, list[Any]]:
    """Results as plain columns (str, bool or None): see :data:`BASE_COLUMNS`."""
    heads = label_heads(spec)
    cols: dict[str, list[Any]] = {c: [] for c in output_columns(spec)}
    for r in results:
        cols["path"].append(display_path(r.path))
        cols["ok"].append(r.ok)
        cols["status"].append(r.status)
        cols["model"].append(r.model)
        cols["tier"].append(r.tier)
        cols["message"].append(r.message)
        for h in heads:
            hr = r.heads.get(h)
            cols[f"label_{h}"].append(hr.label if isinstance(hr, HeadResult) else None)
        cols[RESULT_COLUMN].append(result_json(r))
    return cols
