"""Host files: which files of a pinned repository may carry a plant, read and screened.

A file is a host when its syntax family is known (``family_of``), its size is within
``MIN_HOST``..``MAX_HOST``, it is UTF-8 text without ``\r`` and the screen finds nothing in it.
What it does not do: fetch repositories (``open_mirror`` reads the mirror folder) or plant.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from picohead.data.gitmirror import Mirror, open_mirror
from picohead.wild.sources.risk.screen import detect

MAX_HOST = 256 * 1024
MIN_HOST = 80

# -- syntax families ------------------------------------------------------------------------------
_EXT = {
    "yml": "yaml", "yaml": "yaml", "ini": "ini", "cfg": "ini", "conf": "ini", "cnf": "ini",
    "env": "env", "toml": "toml", "json": "json", "xml": "xml", "csproj": "xml", "xlf": "xml",
    "config": "xml", "properties": "properties", "csv": "csv", "sh": "shell", "bash": "shell",
    "py": "python", "js": "js", "mjs": "js", "cjs": "js", "jsx": "js", "ts": "ts", "tsx": "ts",
    "go": "go", "java": "java", "kt": "kotlin", "kts": "kotlin", "rs": "rust", "rb": "ruby",
    "rake": "ruby", "php": "php", "cs": "csharp", "c": "c", "h": "c", "sql": "sql", "tf": "hcl",
    "hcl": "hcl", "md": "md", "markdown": "md", "log": "log", "txt": "text", "rst": "text",
    "html": "html", "twig": "html", "erb": "html", "cshtml": "html", "razor": "html",
    "css": "css", "scss": "css"}
SKIP_NAMES = re.compile(r"(^|/)(package-lock\.json|yarn\.lock|composer\.lock|Cargo\.lock|"
                        r"go\.sum|[^/]*\.min\.(js|css)|LICEN[CS]E[^/]*|COPYING[^/]*)$", re.I)


def family_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    low = name.lower()
    if SKIP_NAMES.search(path):
        return None
    if low.startswith("dockerfile") or low.endswith(".dockerfile") or low == "containerfile":
        return "docker"
    if low.startswith(".env") or low.endswith(".env") or re.match(r"env\.\w+$", low):
        return "env"
    if low in ("gemfile", "rakefile"):
        return "ruby"
    if low in ("makefile",):
        return None
    if "." not in name.lstrip("."):
        return None
    return _EXT.get(low.rsplit(".", 1)[-1])


# -- hosts -----------------------------------------------------------------------------------------
@dataclass
class Host:
    producer: str
    project: str | None
    licence: str
    commit: str
    path: str
    fam: str
    text: str


def _files(m: Mirror, commit: str, paths: list[str]) -> list[tuple[str, str, int]]:
    """``Mirror.files``, skipping blobs a partial mirror lacks (``ls-tree -l`` says ``BAD``)."""
    try:
        return m.files(commit, paths)
    except ValueError:
        pass
    out = m._git("ls-tree", "-r", "-l", "-z", commit, "--", *paths)
    rows = []
    for item in out.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        parts = meta.split()
        if len(parts) == 4 and parts[1] == b"blob" and parts[3].isdigit() and \
                parts[0] in (b"100644", b"100755"):
            rows.append((name.decode("utf-8", "replace"), parts[2].decode(), int(parts[3])))
    return rows


def read_hosts(entry: dict[str, Any], mirrors: Path) -> list[Host]:
    """The screened host files of one recipe entry (text, known family, nothing sensitive)."""
    m = open_mirror(mirrors, entry["repo"])
    commit = m.resolve(entry["commit"])
    rows = [(p, oid) for p, oid, size in _files(m, commit, entry.get("paths") or [])
            if MIN_HOST <= size <= MAX_HOST and family_of(p)]
    by_oid = dict(m.read([oid for _, oid in rows]))
    out = []
    for p, oid in rows:
        data = by_oid[oid]
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" in text or detect(text):
            continue
        out.append(Host(f"git:{entry['repo']}", entry.get("project"), entry["licence"], commit,
                        p, family_of(p) or "text", text))
    return out


def _spread(hosts: list[Host], rng: random.Random) -> list[Host]:
    """Hosts ordered round-robin over families, so one repository's samples vary in syntax."""
    fams: dict[str, list[Host]] = defaultdict(list)
    for h in hosts:
        fams[h.fam].append(h)
    for v in fams.values():
        rng.shuffle(v)
    order = sorted(fams)
    rng.shuffle(order)
    out: list[Host] = []
    while any(fams.values()):
        for f in order:
            if fams[f]:
                out.append(fams[f].pop())
    return out
