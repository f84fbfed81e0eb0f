"""The wild suite on disk: sample records, the writer source builders use, the split, the manifest.

A suite folder holds ``blobs/`` (content-addressed, as the corpus store), one stage file per source
builder under ``.stages/<task>.jsonl`` and, once finalised, ``manifest.jsonl``, ``producers.json``,
``splits.json`` (every project's half) and ``card.json``. A record is one JSON line::

    {"id": sha256, "path": "blobs/ab/<sha>", "task": "mime" | "code_lang" | "text_lang" | "risk",
     "label": "image/png" | "rust" | "de" | ["password", ...], "kind": "sentence" | ... | null,
     "producer": "debsrc:libpng1.6", "project": "png", "size": 1234, "split": "dev" | "test",
     "prov": {"source", "version", "licence", "path", "sha256", ...}}

``label`` is a plain string (a list of flags for ``risk``, possibly empty) in the conventional
spelling (the model's own label where the model has the class). The split is by project: every
sample of a project is in the same half, chosen per task so that each label has projects in both
halves where it has two or more.

What it does not do: decide what a file is (the source builders label), or score anything.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picohead.data.producers import project_of
from picohead.data.store import BlobStore

TASKS = ("mime", "code_lang", "text_lang", "risk")
RISK_FLAGS = ("api_key", "jwt", "private_key", "password", "email", "phone")  # a risk label's flags, in report order
SPLITS = ("dev", "test")


@dataclass
class StageWriter:
    """Collects one source builder's records; ``close`` writes them atomically."""
    suite: Path
    task: str
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)  # sources that gave nothing
    _seen: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown wild task {self.task!r}; one of {', '.join(TASKS)}")
        self.store = BlobStore(self.suite)

    def add(self, data: bytes, label: str | list[str], *, producer: str, licence: str,
            path: str, version: str | None = None, project: str | None = None,
            kind: str | None = None, **prov: Any) -> dict[str, Any] | None:
        """Store one sample; None when the same content was already added (dedup by sha256)."""
        if self.task == "risk":
            if not isinstance(label, list) or not all(isinstance(x, str) for x in label):
                raise TypeError("a risk label is a list of flag names")
        elif not isinstance(label, str) or not label:
            raise TypeError(f"a {self.task} label is a non-empty string")
        if ":" not in producer:
            raise ValueError(f"producer key {producer!r} must be kind:name")
        sha, rel, orig = self.store.put(data)
        if sha in self._seen:
            return None
        self._seen.add(sha)
        rec: dict[str, Any] = {
            "id": sha, "path": rel, "task": self.task, "label": label, "kind": kind,
            "producer": producer, "project": project_of(producer, project),
            "size": len(data) if orig is None else orig,
            "prov": {"source": producer, "version": version, "licence": licence, "path": path,
                     "sha256": sha if orig is None else hashlib.sha256(data).hexdigest(),
                     **prov}}
        self.records.append(rec)
        return rec

    def skip(self, producer: str, reason: str) -> None:
        """Record a pinned source that could not be read (the build card lists it)."""
        self.skipped.append({"producer": producer, "reason": reason[-300:]})

    def close(self, name: str | None = None) -> Path:
        out = self.suite / ".stages" / f"{name or self.task}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        (out.parent / f"{out.stem}.skipped.json").write_text(json.dumps(self.skipped, indent=1))
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            for r in self.records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        os.replace(tmp, out)
        return out


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:12], 16)


def assign_splits(records: list[dict[str, Any]],
                  pinned: Mapping[str, str] | None = None) -> dict[str, str]:
    """project -> "dev" | "test". Projects are dealt per (task, label) in hash order, alternating
    and starting with test, so a label with two or more projects has some in each half; a project
    seen first under one label keeps its half everywhere.

    ``pinned`` (project -> half, an earlier build's ``splits.json``) keeps those projects in their
    half and deals only the others, counting the pinned ones: without it, which projects a label
    has decides the halves, so a source added, or a file dropped as corpus content, can move a
    project that earlier choices were made on into the test half."""
    by_label: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in records:
        lab = r["label"] if isinstance(r["label"], str) else (r["kind"] or "clean")
        by_label[(r["task"], lab)][r["project"]] += 1
    present = {r["project"] for r in records}
    bad = {h for h in (pinned or {}).values() if h not in SPLITS}
    if bad:
        raise ValueError(f"pinned splits name halves {sorted(bad)}; each is one of {SPLITS}")
    half: dict[str, str] = {p: h for p, h in (pinned or {}).items() if p in present}
    for key in sorted(by_label, key=lambda k: (len(by_label[k]), k)):
        projects = sorted(by_label[key], key=lambda p: _h(p))
        n = Counter(half[p] for p in projects if p in half)
        for p in projects:
            if p in half:
                continue
            half[p] = "test" if n["test"] <= n["dev"] else "dev"
            n[half[p]] += 1
    return half


def finalise(suite: Path, stages: Iterable[Path] | None = None,
             pinned: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Merge the stage files, drop content seen twice, split by project (``pinned``: see
    ``assign_splits``), write manifest.jsonl and ``splits.json`` (every project's half, the file
    a later build pins to)."""
    paths = sorted(stages) if stages is not None else sorted((suite / ".stages").glob("*.jsonl"))
    recs: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for p in paths:
        for r in read_jsonl(p):
            if (r["task"], r["id"]) in seen:
                continue
            seen.add((r["task"], r["id"]))
            recs.append(r)
    half = assign_splits(recs, pinned)
    for r in recs:
        r["split"] = half[r["project"]]
    recs.sort(key=lambda r: (r["task"], r["split"], r["producer"], r["id"]))
    write_manifest(suite, recs)
    write_splits(suite / "splits.json", half)
    return recs


def read_splits(path: Path) -> dict[str, str]:
    """A ``splits.json`` (project -> half); ValueError when it is not one."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read the pinned splits {path}: {e}") from e
    if not isinstance(d, dict) or not all(isinstance(k, str) and v in SPLITS
                                          for k, v in d.items()):
        raise ValueError(f"{path} is not a project -> \"dev\" | \"test\" object")
    return d


def write_splits(path: Path, half: Mapping[str, str]) -> None:
    """Write project -> half, sorted, atomically."""
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps(dict(sorted(half.items())), indent=0) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def write_manifest(suite: Path, recs: list[dict[str, Any]]) -> None:
    """Write ``manifest.jsonl`` atomically."""
    tmp = suite / "manifest.jsonl.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, suite / "manifest.jsonl")


def load_suite(suite: Path, *, task: str | None = None, split: str | None = None
               ) -> list[dict[str, Any]]:
    """The finalised records, optionally of one task and one half."""
    return [r for r in read_jsonl(suite / "manifest.jsonl")
            if (task is None or r["task"] == task) and (split is None or r["split"] == split)]


def blob(suite: Path, rec: dict[str, Any]) -> bytes:
    return (suite / rec["path"]).read_bytes()
