"""Take whole files out of pinned sources (git mirrors and registry packages) by path rules.

The code-language and format builders share this: an entry pins a source and lists ``take``
rules; each rule names a ``label`` and picks files by suffix (``ext``), exact base name (``names``),
path prefix (``under``) and excluded path substrings (``exclude``), capped per rule (``cap``) and
per entry (``cap`` on the entry). Entries::

    {"kind": "git", "repo": "owner/name", "commit": "<40 hex>", "licence": "MIT",
     "paths": ["src/"], "take": [{"label": "rust", "ext": [".rs"], "cap": 12}]}
    {"kind": "deb" | "debsrc" | "pypi" | "npm", "name": "...", "version": "..." | null,
     "sdist": false, "licence": "...", "take": [...]}

Unknown keys are rejected (``EntryError`` names the key and the entry). Selection is deterministic:
candidates are ordered by a hash of (entry, path) and the first ``cap`` that the task's validator
accepts are kept. A file is read whole (the suite store keeps the first and last 16 KiB of files over
256 KiB, as the corpus does).

What it does not do: decide what a file is beyond the rule's label and the validator the task
passes (the task modules own that), or fetch from the network itself (``picohead.data.fetch`` and
the mirror folder do).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from picohead.data.fetch import FetchError, fetch
from picohead.data.gitmirror import MirrorError, open_mirror
from picohead.data.harvest import walk_tree
from picohead.wild.suite import StageWriter

log = logging.getLogger(__name__)

ENTRY_KEYS = {"kind", "repo", "commit", "name", "version", "sdist", "licence", "project", "paths",
              "take", "cap", "note", "ci"}
RULE_KEYS = {"label", "ext", "names", "under", "exclude", "cap", "min_size", "max_size", "kind"}
MAX_READ = 64 * 1024 * 1024
SKIP_DIRS = ("/.git/", "/node_modules/", "/vendor/", "/third_party/", "/3rdparty/", "/dist/",
             "/build/", "/.github/")

Validator = Callable[[str, str, bytes], bool]  # (label, path, data) -> keep?


class EntryError(ValueError):
    pass


def producer_key(e: dict[str, Any]) -> str:
    return f"git:{e['repo']}" if e["kind"] == "git" else f"{e['kind']}:{e['name']}"


def check_entry(e: dict[str, Any], where: str) -> None:
    extra = set(e) - ENTRY_KEYS
    if extra:
        raise EntryError(f"{where}: unknown key(s) {sorted(extra)} in {producer_key(e)}")
    if e.get("kind") not in ("git", "deb", "debsrc", "pypi", "npm"):
        raise EntryError(f"{where}: kind must be git, deb, debsrc, pypi or npm, not {e.get('kind')!r}")
    if e["kind"] == "git" and not (e.get("repo") and e.get("commit")):
        raise EntryError(f"{where}: a git entry needs repo and commit")
    if e["kind"] != "git" and not e.get("name"):
        raise EntryError(f"{where}: a {e['kind']} entry needs name")
    if not e.get("licence"):
        raise EntryError(f"{where}: {producer_key(e)} has no licence")
    for r in e.get("take", []):
        bad = set(r) - RULE_KEYS
        if bad:
            raise EntryError(f"{where}: unknown rule key(s) {sorted(bad)} in {producer_key(e)}")
        if not r.get("label"):
            raise EntryError(f"{where}: a take rule of {producer_key(e)} has no label")


class Rule:
    def __init__(self, d: dict[str, Any]) -> None:
        self.label: str = d["label"]
        self.ext = tuple(x.lower() for x in d.get("ext", ()))
        self.names = frozenset(d.get("names", ()))
        self.under = tuple(d.get("under", ()))
        self.exclude = tuple(d.get("exclude", ()))
        self.cap = int(d.get("cap", 10**9))
        self.min_size = int(d.get("min_size", 1))
        self.max_size = int(d.get("max_size", MAX_READ))
        self.kind: str | None = d.get("kind")

    def matches(self, rel: str, size: int) -> bool:
        if not (self.min_size <= size <= self.max_size):
            return False
        low = rel.lower()
        base = rel.rsplit("/", 1)[-1]
        if self.under and not rel.startswith(self.under):
            return False
        if any(x in rel for x in self.exclude) or any(d in f"/{low}" for d in SKIP_DIRS):
            return False
        return base in self.names or (bool(self.ext) and low.endswith(self.ext))


def _order(key: str, rel: str) -> int:
    return int(hashlib.sha256(f"{key}\0{rel}".encode()).hexdigest()[:12], 16)


def _git_files(e: dict[str, Any], mirrors: Path) -> Iterator[tuple[str, int, Callable[[], bytes]]]:
    m = open_mirror(mirrors, e["repo"])
    rows = m.files(e["commit"], e.get("paths", ()))
    blobs: dict[str, bytes] = {}

    def reader(oid: str) -> Callable[[], bytes]:
        def read() -> bytes:
            if oid not in blobs:
                blobs.update(m.read([oid]))
            return blobs[oid]
        return read
    for rel, oid, size in rows:
        yield rel, size, reader(oid)


def _reader(p: Path) -> Callable[[], bytes]:
    def read() -> bytes:
        with open(p, "rb") as f:
            return f.read(MAX_READ)
    return read


def _tree_files(root: Path, paths: list[str]) -> Iterator[tuple[str, int, Callable[[], bytes]]]:
    for rel, p in walk_tree(root):
        if paths and not rel.startswith(tuple(paths)):
            continue
        yield rel, p.stat().st_size, _reader(p)


def take(entries: list[dict[str, Any]], w: StageWriter, *, cache: Path, mirrors: Path,
         validate: Validator, where: str) -> dict[str, int]:
    """Add the files the entries' rules pick to ``w``; returns samples added per producer.
    A source that cannot be read (no mirror, a registry failure) is logged and counted as 0."""
    added: dict[str, int] = {}
    for e in entries:
        check_entry(e, where)
        key = producer_key(e)
        try:
            if e["kind"] == "git":
                files = list(_git_files(e, mirrors))
                version = e["commit"]
            else:
                f = fetch(cache, e["kind"], e["name"], e.get("version"), sdist=bool(e.get("sdist")))
                files = list(_tree_files(f.root, e.get("paths", [])))
                version = f.version
        except (MirrorError, FetchError, OSError) as err:
            log.warning("%s: %s skipped: %s", where, key, err)
            w.skip(key, str(err))
            added[key] = 0
            continue
        rules = [Rule(r) for r in e.get("take", [])]
        per_rule = [0] * len(rules)
        total, entry_cap = 0, int(e.get("cap", 10**9))
        for rel, size, read in sorted(files, key=lambda t: _order(key, t[0])):
            if total >= entry_cap:
                break
            for i, r in enumerate(rules):
                if per_rule[i] >= r.cap or not r.matches(rel, size):
                    continue
                data = read()
                if not validate(r.label, rel, data):
                    continue
                rec = w.add(data, r.label, producer=key, licence=e["licence"], path=rel,
                            version=version, project=e.get("project"), kind=r.kind)
                if rec is not None:
                    per_rule[i] += 1
                    total += 1
                break
        added[key] = total
        log.info("%s: %s: %d files", where, key, total)
    return added
