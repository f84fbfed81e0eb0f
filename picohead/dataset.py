"""Data manifests -> in-memory window arrays, cached on disk.

A manifest is JSONL, one sample per line::

    {"id": "...", "path": "blobs/ab/ab12..." | "text": "..." | "b64": "...",
     "labels": {"coarse": "code", "code_lang": "rust", "risk": ["email"]},
     "source": "deb:rustc-src", "split": "train"}

``path`` is relative to the manifest's folder (or absolute). Any head may be missing from
``labels``; a label that the spec does not know is an error naming the line, head and label. Windows
are cut with :func:`picohead_runtime.windows.extract_window`, the same function the runtime uses.

What it does: parse, validate, cut windows, encode labels, cache the result as ``.npz`` keyed by
the manifest's content hash, the spec's labels and the window. What it does not do: build corpora
(``picohead.data``) or split them (splits arrive as separate manifests, made by source).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from picohead_runtime.errors import PicoheadError
from picohead_runtime.spec import ModelSpec, SpecError
from picohead_runtime.windows import extract_window

log = logging.getLogger(__name__)
CACHE_VERSION = 1


@dataclass
class WindowData:
    """Windows and labels of one manifest. ``labels[h]``: int32 ``[N]`` (-1 = missing) for softmax
    heads, float32 ``[N, K]`` for multilabel heads with ``label_mask[h]`` (bool ``[N]``)."""

    windows: np.ndarray  # uint8 [N, W], right-padded with zeros
    lengths: np.ndarray  # int64 [N]
    labels: dict[str, np.ndarray]
    label_mask: dict[str, np.ndarray]
    sources: np.ndarray  # str [N]
    ids: np.ndarray  # str [N]
    data_hash: str  # sha256 of the manifest bytes

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def subset(self, idx: np.ndarray) -> WindowData:
        return WindowData(
            windows=self.windows[idx],
            lengths=self.lengths[idx],
            labels={k: v[idx] for k, v in self.labels.items()},
            label_mask={k: v[idx] for k, v in self.label_mask.items()},
            sources=self.sources[idx],
            ids=self.ids[idx],
            data_hash=self.data_hash,
        )

    def reindex(self, source: ModelSpec, target: ModelSpec) -> WindowData:
        """These windows with their labels re-indexed from ``source``'s label lists (the spec they
        were loaded with) to ``target``'s, by name: the tiers of a bundle assembled from several
        runs differ in their lists (content-v14: tiny 147 MIME labels, the others 162). A sample
        whose label ``target``'s head lacks is masked out of that head; a head ``target`` lacks is
        dropped. Windows are shared, not copied."""
        labels: dict[str, np.ndarray] = {}
        mask: dict[str, np.ndarray] = {}
        src = {h.name: h for h in source.heads}
        for head in target.heads:
            old = src.get(head.name)
            if old is None or head.name not in self.labels:
                continue
            y, m = self.labels[head.name], self.label_mask[head.name].copy()
            where = {lab: i for i, lab in enumerate(head.labels)}
            if head.multilabel:
                out = np.zeros((len(self), len(head.labels)), dtype=np.float32)
                for j, lab in enumerate(old.labels):
                    if lab in where:
                        out[:, where[lab]] = y[:, j]
                    else:
                        m &= y[:, j] == 0  # a flag the target cannot answer: not scored there
            else:
                table = np.array([where.get(lab, -1) for lab in old.labels] + [-1], dtype=np.int32)
                out = table[y]  # -1 (missing) indexes the appended -1
                m &= out >= 0
            labels[head.name], mask[head.name] = out, m
        return WindowData(windows=self.windows, lengths=self.lengths, labels=labels,
                          label_mask=mask, sources=self.sources, ids=self.ids,
                          data_hash=self.data_hash)


class ManifestError(PicoheadError, ValueError):
    """A manifest line that cannot be used; the message names the file and line."""


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_content(rec: dict, base: Path, where: str) -> bytes:
    if "path" in rec:
        p = Path(rec["path"])
        p = p if p.is_absolute() else base / p
        try:
            return p.read_bytes()
        except OSError as e:
            raise ManifestError(f"{where}: cannot read {p}: {e.strerror or e}") from None
    if "text" in rec:
        return str(rec["text"]).encode("utf-8")
    if "b64" in rec:
        try:
            return base64.b64decode(rec["b64"], validate=True)
        except ValueError as e:
            raise ManifestError(f"{where}: bad base64 in 'b64' ({e})") from None
    raise ManifestError(f"{where}: needs one of 'path', 'text' or 'b64'")


def _cache_key(spec: ModelSpec, data_hash: str) -> str:
    labels = {h.name: [h.kind, list(h.labels)] for h in spec.heads}
    blob = json.dumps([CACHE_VERSION, data_hash, spec.window.to_dict(), labels], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def load_manifest(
    path: str | os.PathLike[str],
    spec: ModelSpec,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> WindowData:
    """Load a manifest into window arrays (from the cache when the same inputs were seen)."""
    path = Path(path)
    if not path.is_file():
        raise ManifestError(f"manifest {path} does not exist")
    data_hash = file_sha256(path)
    cache_file = None
    if cache_dir is not None:
        cache_file = Path(cache_dir) / f"{path.stem}-{_cache_key(spec, data_hash)}.npz"
        if cache_file.is_file():
            return _load_cache(cache_file, spec, data_hash)

    win = spec.window
    windows: list[bytes] = []
    sources: list[str] = []
    ids: list[str] = []
    raw_labels: list[dict] = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise ManifestError(f"{where}: not valid JSON ({e})") from None
            if not isinstance(rec, dict):
                raise ManifestError(f"{where}: each line must be a JSON object")
            content = read_content(rec, path.parent, where)
            windows.append(extract_window(content, win.head, win.tail, skip_nul=win.skip_nul))
            sources.append(str(rec.get("source", "")))
            ids.append(str(rec.get("id", f"{path.name}:{lineno}")))
            labels = rec.get("labels", {})
            if not isinstance(labels, dict):
                raise ManifestError(f"{where}: 'labels' must be an object head -> label")
            raw_labels.append((where, labels))  # type: ignore[arg-type]

    n = len(windows)
    out_labels: dict[str, np.ndarray] = {}
    out_mask: dict[str, np.ndarray] = {}
    for head in spec.heads:
        index = {lab: i for i, lab in enumerate(head.labels)}
        arr: np.ndarray = (
            np.zeros((n, len(head.labels)), dtype=np.float32)
            if head.multilabel
            else np.full(n, -1, dtype=np.int32)
        )
        mask = np.zeros(n, dtype=bool)
        for i, (where, labels) in enumerate(raw_labels):  # type: ignore[misc]
            if head.name not in labels or labels[head.name] is None:
                continue
            value = labels[head.name]
            values = value if head.multilabel else [value]
            if head.multilabel and not isinstance(value, list):
                raise ManifestError(f"{where}: head {head.name!r} is multilabel; give a list")
            for v in values:
                if v not in index:
                    raise SpecError(
                        f"{where}: head {head.name!r} has no label {v!r} "
                        f"(known: {', '.join(head.labels)}); fix the manifest or the spec"
                    )
                if head.multilabel:
                    arr[i, index[v]] = 1.0
                else:
                    arr[i] = index[v]
            mask[i] = True
        out_labels[head.name], out_mask[head.name] = arr, mask
    unknown = {k for _, labels in raw_labels for k in labels} - set(spec.head_names)  # type: ignore[misc]
    if unknown:
        log.warning("%s: ignoring labels for heads not in the spec: %s", path, sorted(unknown))

    buf = np.zeros((n, max(1, win.size)), dtype=np.uint8)
    lengths = np.zeros(n, dtype=np.int64)
    for i, w in enumerate(windows):
        buf[i, : len(w)] = np.frombuffer(w, dtype=np.uint8)
        lengths[i] = len(w)
    wd = WindowData(
        windows=buf,
        lengths=lengths,
        labels=out_labels,
        label_mask=out_mask,
        sources=np.array(sources, dtype=object),
        ids=np.array(ids, dtype=object),
        data_hash=data_hash,
    )
    if cache_file is not None:
        _save_cache(cache_file, wd)
    return wd


def _save_cache(cache_file: Path, wd: WindowData) -> None:
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, np.ndarray] = {
        "windows": wd.windows,
        "lengths": wd.lengths,
        "sources": np.array(wd.sources, dtype=str),
        "ids": np.array(wd.ids, dtype=str),
    }
    for k, v in wd.labels.items():
        arrays[f"label:{k}"] = v
        arrays[f"mask:{k}"] = wd.label_mask[k]
    # One temporary name per process: torchrun ranks may write the same cache at once.
    tmp = cache_file.with_name(f"{cache_file.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(cache_file)


def _load_cache(cache_file: Path, spec: ModelSpec, data_hash: str) -> WindowData:
    z = np.load(cache_file, allow_pickle=False)
    return WindowData(
        windows=z["windows"],
        lengths=z["lengths"],
        labels={h.name: z[f"label:{h.name}"] for h in spec.heads},
        label_mask={h.name: z[f"mask:{h.name}"] for h in spec.heads},
        sources=z["sources"].astype(object),
        ids=z["ids"].astype(object),
        data_hash=data_hash,
    )


def split_by_source(
    data: WindowData, val_fraction: float = 0.1, seed: int = 0
) -> tuple[WindowData, WindowData]:
    """Deterministic train/val split that keeps every source on one side (never splits a source)."""
    sources = sorted(set(data.sources.tolist()))
    if len(sources) < 2:
        raise ManifestError(
            "cannot hold out a validation split by source: all samples share one 'source'; "
            "pass --val MANIFEST"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(sources))
    n_val = max(1, int(round(len(sources) * val_fraction)))
    val_sources = {sources[i] for i in order[:n_val]}
    is_val = np.array([s in val_sources for s in data.sources], dtype=bool)
    return data.subset(np.flatnonzero(~is_val)), data.subset(np.flatnonzero(is_val))
