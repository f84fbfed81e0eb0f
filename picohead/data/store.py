"""Content-addressed blob store and the per-stage record files a build writes.

A blob is a sample's raw bytes under ``blobs/<sha[:2]>/<sha>``. Content over ``BIG`` bytes is
stored as its first and last ``KEEP`` bytes (the model reads at most 1 KiB from each end), and the
record keeps ``orig_size``. A *record* is one JSON line: id, path, labels, source, group (the unit
that decides the split) and provenance. Each stage writes its records to ``.stages/<name>.jsonl``
atomically, so a rerun skips finished stages.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

BIG = 256 * 1024
KEEP = 16 * 1024


def truncate(data: bytes) -> tuple[bytes, int | None]:
    """The bytes to store and the original size when they were cut (else None)."""
    if len(data) > BIG:
        return data[:KEEP] + data[-KEEP:], len(data)
    return data, None


class BlobStore:
    """Writes blobs under ``root/blobs`` (thread-safe, idempotent)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def put(self, data: bytes) -> tuple[str, str, int | None]:
        """Store ``data``; return (sha256 of what is stored, relative path, orig_size)."""
        stored, orig = truncate(data)
        sha = hashlib.sha256(stored).hexdigest()
        rel = f"blobs/{sha[:2]}/{sha}"
        p = self.root / rel
        if not p.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(f"{sha}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(stored)
            os.replace(tmp, p)
        return sha, rel, orig

    def record(self, data: bytes, labels: dict[str, Any], *, source: str, group: str,
               prov: dict[str, Any]) -> dict[str, Any]:
        """Store ``data`` and return its record."""
        sha, rel, orig = self.put(data)
        rec: dict[str, Any] = {"id": sha, "path": rel, "labels": labels, "source": source,
                               "group": group, "prov": prov}
        if orig is not None:
            rec["orig_size"] = orig
        return rec


def stage_path(out: Path, name: str) -> Path:
    safe = name.replace("/", "_").replace(":", "_").replace("@", "_")
    return Path(out) / ".stages" / f"{safe}.jsonl"


def stage_done(out: Path, name: str) -> bool:
    return stage_path(out, name).exists()


def write_stage(out: Path, name: str, records: Iterable[dict[str, Any]]) -> int:
    p = stage_path(out, name)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    os.replace(tmp, p)
    return n


def read_stages(out: Path) -> Iterator[dict[str, Any]]:
    d = Path(out) / ".stages"
    for p in sorted(d.glob("*.jsonl")):
        with p.open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)
