"""Scoring ONNX graphs over arrays of windows: the one place that runs an exported (or
half-exported) picohead graph over many samples at once.

What it does: open a CPU session with the runtime's own session options (so gate figures and
latencies are what users get), open a finished model file through the runtime's loader
(:func:`picohead_runtime.model.load_model`, which checks the file against its metadata), run a
graph over ``windows``/``lengths`` arrays in batches of similar length (each batch trimmed to its
longest row; results in the input order), turn the probabilities into logits for metrics, and time
one warm call. Input and output names come from :mod:`picohead_runtime.model_meta`.

Used by the exporter's gates, calibration, the model card and the benchmarks. What it does not do:
read files, windows or manifests (the caller hands over arrays), decode results (``decode``) or
compute metrics (``picohead.evaluate``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from picohead_runtime.model import CPU_EP, LoadedModel, load_model, session_options
from picohead_runtime.model_meta import INPUT_BYTES, INPUT_LENGTHS, output_name
from picohead_runtime.spec import ModelSpec

Batch = tuple[np.ndarray, np.ndarray]
Predict = Callable[[np.ndarray, np.ndarray], Sequence[Any]]


def session(model: bytes | str | os.PathLike[str], *, threads: int = 1) -> ort.InferenceSession:
    """A CPU session for a serialized graph or a file, metadata or not (the exporter's gates run
    graphs before their metadata is written)."""
    src = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(src, session_options(threads), providers=[CPU_EP])


def open_file(path: str | os.PathLike[str], *, threads: int = 2) -> LoadedModel:
    """A finished model file on the CPU, checked against its embedded metadata."""
    return load_model(Path(path), device="cpu", threads=threads)


def output_names(spec: ModelSpec) -> list[str]:
    """The graph's output names, one per head in spec order."""
    return [output_name(h.name) for h in spec.heads]


def run(sess: Any, names: Sequence[str], windows: np.ndarray, lengths: np.ndarray) -> list[Any]:
    """One ``session.run`` of ``names`` on one batch."""
    return list(sess.run(list(names), {INPUT_BYTES: windows, INPUT_LENGTHS: lengths}))


def batched(
    fn: Predict, windows: np.ndarray, lengths: np.ndarray, n_outputs: int, *, batch_size: int = 64
) -> list[np.ndarray]:
    """``fn(windows, lengths)``'s ``n_outputs`` outputs for every row (float32, input order),
    batched by similar length and each batch trimmed to its longest row. ``fn`` is a session's
    run (:func:`run_batched`) or any reference with the same inputs (the exporter's torch model)."""
    order = np.argsort(lengths, kind="stable")
    parts: list[list[np.ndarray]] = [[] for _ in range(n_outputs)]
    for s in range(0, len(order), batch_size):
        idx = order[s : s + batch_size]
        width = max(1, int(lengths[idx].max()))
        outs = fn(np.ascontiguousarray(windows[idx, :width]), lengths[idx])
        for i, o in enumerate(outs):
            parts[i].append(np.asarray(o, dtype=np.float32))
    inv = np.empty(len(order), dtype=np.int64)
    inv[order] = np.arange(len(order))
    return [np.concatenate(p)[inv] for p in parts]


def run_batched(
    sess: Any,
    names: Sequence[str],
    windows: np.ndarray,
    lengths: np.ndarray,
    *,
    batch_size: int = 64,
) -> list[np.ndarray]:
    """Outputs ``names`` of ``sess`` for every row, as :func:`batched` batches them."""

    def fn(w: np.ndarray, n: np.ndarray) -> Sequence[np.ndarray]:
        return run(sess, names, w, n)

    return batched(fn, windows, lengths, len(names), batch_size=batch_size)


def to_logits(spec: ModelSpec, probs: Sequence[np.ndarray]) -> dict[str, np.ndarray]:
    """Per head, the probabilities a file outputs as logits (float64): ``log p`` for a softmax
    head, ``log(p / (1 - p))`` per label for a multilabel head. Metrics take logits."""
    out = {}
    for h, p in zip(spec.heads, probs):
        q = p.astype(np.float64).clip(1e-9, 1 - 1e-9)
        out[h.name] = np.log(q / (1 - q)) if h.multilabel else np.log(q)
    return out


def file_logits(
    model: LoadedModel, windows: np.ndarray, lengths: np.ndarray, *, batch_size: int = 256
) -> dict[str, np.ndarray]:
    """Per-head logits of a loaded file for every row (its embedded spec names the heads)."""
    spec = model.meta.spec
    probs = run_batched(
        model.session, model.output_names, windows, lengths, batch_size=batch_size
    )
    return to_logits(spec, probs)


def latency_ms(sess: Any, names: Sequence[str], sample: Batch, runs: int = 200) -> float:
    """Median wall time of one warm ``session.run`` on ``sample``, in milliseconds."""
    feed = {INPUT_BYTES: sample[0], INPUT_LENGTHS: sample[1]}
    names = list(names)
    for _ in range(max(5, runs // 10)):
        sess.run(names, feed)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(names, feed)
        times.append(time.perf_counter() - t)
    return float(np.median(times) * 1e3)
