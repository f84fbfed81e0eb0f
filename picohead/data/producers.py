"""Who made a sample, and the rule that keeps the wild suite's makers apart from the corpus's.

Used from both sides: the wild suite's builder checks its samples against the corpus's producers
(``check_independence``), and the corpus builder refuses a recipe naming a producer of the wild
suite (``wild_producers``, read from ``picohead/recipes/wild/``).

A *producer* is the unit that decides independence: a source package, an upstream project, a
repository, an encoder program or one of the project's generators. Each has a key
``kind:name`` (``deb:libpng16-16``, ``debsrc:libpng1.6``, ``pypi:pillow``, ``npm:lodash``,
``git:owner/name``, ``program:sox``, ``gen:images``, ``ud:UD_German-PUD``) and a *project*: the
upstream project the key belongs to, normalised so that the Debian binary ``python3-pygments``,
the Debian source ``pygments`` and the PyPI ``Pygments`` are one project. Normalisation errs on the
side of calling two keys the same project: a false match only drops a wild source.

``corpus_producers`` lists what the content recipe (and the recipe of every added head) feeds the
corpus, plus the encoder programs and libraries its generators use; ``check_independence`` fails
when a wild sample shares a project or a content hash with the corpus, when dev and test share a
producer, or when a sample comes from a reserved source.

What it does not do: resolve a Debian binary package to its source package through apt (the rules
here are offline and deterministic; a wild recipe entry may name its ``project`` explicitly).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picohead.data.recipe import RESERVED_REPOS, is_reserved, load_recipe, reserved_repo_name
from picohead_runtime.errors import PicoheadError

# Encoders and libraries the corpus's generators (picohead/data/formats.py, risk.py) write with.
GENERATOR_PROJECTS = frozenset({
    "pillow", "fonttools", "sqlite", "cryptography", "python-docx", "openpyxl", "python-pptx",
    "odfpy", "xlwt", "fpdf2", "ffmpeg", "p7zip", "7zip", "cpio", "binutils", "zstd", "gnupg",
    "libreoffice", "openjdk", "brotli", "cpython", "zlib", "bzip2", "xz-utils", "tar",
    "picohead",
    # corpus v6 (picohead/data/program_formats.py)
    "exfatprogs", "util-linux", "squashfs-tools-ng", "nasm", "mingw-w64", "gnuplot", "ghostscript",
    "libjxl", "musepack-tools", "openimageio", "pandoc", "ezdxf"})
__all__ = ["RESERVED_REPOS", "CorpusProducers", "IndependenceError", "check_independence",
           "corpus_producers", "is_reserved_key", "normalise", "project_of", "reserved_repo",
           "wild_producers", "wild_recipe_entries", "wild_recipes"]
# Project names of the reserved repositories, so a copy under another name is caught too.
RESERVED_PROJECTS = frozenset({"linguist", "magika", "detect-secrets", "dockerfiles",
                               "lingua", "lingua-py", "lingua-rs", "lingua-go", "lingua-js"})

_DEB_PREFIX = re.compile(r"^(lib|python3?-|node-|ruby-|golang-(github|gopkg|golang)-[a-z0-9]+-|"
                         r"golang-|r-cran-|r-bioc-|elpa-|cl-|lua-|php-|perl-|fonts-|librust-)")
_DEB_SUFFIX = re.compile(r"(-(dev|doc|data|common|source|src|java|perl|cil|ocaml|ocaml-dev|"
                         r"clojure|bin|tools|utils|runtime|el|core|extra|examples|tests|"
                         r"testdata|html|all|dbg))+$")
# Names one upstream project goes by in different ecosystems.
ALIASES = {"golang": "go", "reoffice": "libreoffice", "python": "cpython", "nodejs": "node",
           "openjdk": "jdk", "erlang-otp": "erlang", "otp": "erlang"}
_VERSION = re.compile(r"[-.]?\d+(\.\d+)*[a-z]?$")


def normalise(name: str) -> str:
    """A package or project name with case, separators, Debian prefixes/suffixes and a trailing
    version taken off (``libpng1.6`` -> ``png``, ``python3-pygments`` -> ``pygments``)."""
    n = name.lower().strip()
    n = n[1:].replace("/", "-") if n.startswith("@") else n.rsplit("/", 1)[-1]
    n = re.sub(r"[_.\s]+", "-", n)
    for _ in range(3):
        m = _DEB_PREFIX.sub("", n)
        if m[:1].isdigit():  # golang-1.19-src: the prefix is the name
            m = n
        m = _DEB_SUFFIX.sub("", m)
        m = _VERSION.sub("", m) or m
        m = m.strip("-") or n
        if len(m) > 5 and m.endswith("lib") and not m.endswith("-lib"):
            m = m[:-3]  # fmtlib -> fmt (Debian source vs binary names)
        if m == n:
            break
        n = m
    return ALIASES.get(n, n)


def project_of(key: str, project: str | None = None) -> str:
    """The project a producer key belongs to (``project`` given by the recipe wins)."""
    if project:
        return normalise(project)
    kind, _, name = key.partition(":")
    if kind == "git":
        return normalise(name.split("/", 1)[-1])
    return normalise(name)


def reserved_repo(repo: str) -> bool:
    """True for a GitHub ``owner/name`` reserved for the independent checks (or a copy of one
    under another owner)."""
    if reserved_repo_name(repo):
        return True
    return normalise(repo.partition("/")[2]) in RESERVED_PROJECTS


def is_reserved_key(key: str) -> bool:
    kind, _, name = key.partition(":")
    if kind == "git":
        return reserved_repo(name)
    if kind in ("deb", "debsrc"):
        return is_reserved(name)
    return normalise(name) in RESERVED_PROJECTS


ID_PREFIX = 16  # hex digits of a sha256 kept in an id list: 64 bits, no collision in practice


def write_ids(corpus: Path, out: Path, kinds: Iterable[str]) -> int:
    """Write the hash prefixes of a built corpus's samples (every split and stage file) whose
    source kind is one of ``kinds`` (``git``, ``deb``, ...), sorted, one per line, gzipped;
    returns how many. For a trained model whose corpus another session cannot rebuild."""
    import gzip
    import json

    want = set(kinds)
    ids: set[str] = set()
    for path in [*sorted(corpus.glob("*.jsonl")), *sorted((corpus / ".stages").glob("*.jsonl"))]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                src = str(r.get("source", "")).removeprefix("risk:")
                if src.split(":", 1)[0] in want:
                    ids.add(r["id"][:ID_PREFIX])
    with gzip.open(out, "wt", encoding="ascii") as f:
        f.writelines(f"{i}\n" for i in sorted(ids))
    return len(ids)


def read_ids(path: Path) -> set[str]:
    """The hash prefixes of an id list (``write_ids``'s gzip file, or the same lines as plain
    text); ValueError on a line that is not one."""
    import gzip

    with open(path, "rb") as raw:
        packed = raw.read(2) == b"\x1f\x8b"
    try:
        with (gzip.open(path, "rt", encoding="ascii") if packed
              else open(path, encoding="ascii")) as f:
            ids = {line.strip() for line in f if line.strip()}
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as e:
        raise ValueError(f"{path}: not an id list ({type(e).__name__}: {e})") from e
    bad = [i for i in ids if len(i) != ID_PREFIX or any(c not in "0123456789abcdef" for c in i)]
    if bad:
        raise ValueError(f"{path}: {len(bad)} lines are no {ID_PREFIX}-digit hash prefix "
                         f"(e.g. {bad[0][:40]!r})")
    return ids


@dataclass
class CorpusProducers:
    """The corpus's producer keys and projects (and, when a built corpus is given, its hashes)."""
    keys: set[str] = field(default_factory=set)
    projects: set[str] = field(default_factory=set)
    shas: set[str] = field(default_factory=set)
    # Hash prefixes (ID_PREFIX hex digits) of content known only from an id list (read_ids):
    # the corpus a candidate model was trained on, when its build is not on this machine.
    prefixes: set[str] = field(default_factory=set)

    def holds(self, sha: str) -> bool:
        """True when the corpus holds content with this sha256 (or its id list its prefix)."""
        return sha in self.shas or sha[:ID_PREFIX] in self.prefixes

    def add(self, key: str, project: str | None = None) -> None:
        self.keys.add(key)
        self.projects.add(project_of(key, project))

    def owns(self, key: str, project: str | None = None) -> bool:
        """True when the key, its project or (for a repository) its owner feeds the corpus."""
        if key in self.keys or project_of(key, project) in self.projects:
            return True
        kind, _, name = key.partition(":")
        return kind == "git" and "/" in name and normalise(name.split("/")[0]) in self.projects

    def claims(self, key: str, project: str | None = None) -> bool:
        """True when the key or its project is one of these producers, or its project owns one
        of their repositories: ``owns`` seen from the other side (a corpus package of project
        ``docker`` and the wild suite's ``git:docker/awesome-compose`` are one producer)."""
        if key in self.keys or project_of(key, project) in self.projects:
            return True
        owners = {normalise(k[4:].split("/")[0]) for k in self.keys
                  if k.startswith("git:") and "/" in k}
        return project_of(key, project) in owners


# Projects the corpus holds inside another producer (vendored copies), found by content-hash
# overlap between a corpus build and the wild suite: project -> the corpus producer shipping it.
VENDORED = {
    "jsx": "debsrc:rabbitmq-server",  # deps/jsx (Erlang JSON), byte-identical files
    "arocc": "pypi:ziglang",  # lib/compiler/aro (the Aro C compiler in Zig's library)
}


def corpus_producers(recipes: Iterable[str] = ("content",), manifest: Path | None = None,
                     ids: Iterable[Path] = ()) -> CorpusProducers:
    """Producers of the corpus the recipes build (and their vendored projects); with
    ``manifest`` (a built corpus's manifest file, or its folder: every split and stage file, so
    content the corpus dropped as a duplicate counts too) also its content hashes; with ``ids``
    (files of ``write_ids``) also those hash prefixes."""
    import json

    cp = CorpusProducers()
    for name in recipes:
        r = load_recipe(name)
        for e in r.entries:
            key = f"{e['kind']}:{e.get('repo') or e['name']}"
            cp.add(key, e.get("project"))
    for p in GENERATOR_PROJECTS:
        cp.add(f"program:{p}", p)
    for project, inside in VENDORED.items():
        cp.add(f"{inside.split(':')[0]}:{project}", project)
    for path in ids:
        cp.prefixes |= read_ids(Path(path))
    if manifest is None:
        return cp
    m = Path(manifest)
    files = ([*sorted(m.glob("*.jsonl")), *sorted((m / ".stages").glob("*.jsonl"))]
             if m.is_dir() else [m])
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                cp.shas.add(r["id"])
                src = str(r.get("source", ""))
                if src.startswith("risk:"):
                    src = src[5:]
                if ":" in src and not src.startswith("gen:"):
                    cp.add(src)
    return cp


def wild_recipes() -> dict[str, dict[str, Any]]:
    """The wild suite's recipe files (``picohead/recipes/wild/*.json``) by stem."""
    import json
    from importlib import resources

    root = Path(str(resources.files("picohead") / "recipes" / "wild"))
    return {f.stem: json.loads(f.read_text(encoding="utf-8")) for f in sorted(root.glob("*.json"))}


def wild_recipe_entries() -> dict[str, list[dict[str, Any]]]:
    """Every pinned source entry (``sources`` and risk ``hosts``) of each wild recipe, by stem."""
    return {stem: [e for e in [*d.get("sources", []), *d.get("hosts", [])] if isinstance(e, dict)]
            for stem, d in wild_recipes().items()}


def wild_producers() -> CorpusProducers:
    """The producers the wild suite's recipes pin (``picohead/recipes/wild/*.json``): a corpus
    recipe must name none of them, and a built corpus drops content the wild manifest holds."""
    wp = CorpusProducers()
    for entries in wild_recipe_entries().values():
        for e in entries:
            key = f"git:{e['repo']}" if e.get("kind") == "git" else f"{e['kind']}:{e['name']}"
            wp.add(key, e.get("project"))
    for d in wild_recipes().values():
        for part in ("programs", "doc_packages", "man_pages"):  # programs.json
            for name in d.get(part, {}) if isinstance(d.get(part), dict) else ():
                wp.add(f"program:{name}", name)
    return wp


class IndependenceError(PicoheadError, ValueError):
    """The wild suite shares a producer or content with the corpus, or dev with test."""


def check_independence(records: list[dict[str, Any]], corpus: CorpusProducers) -> None:
    """Raise IndependenceError naming every violation (at most 20 lines of them)."""
    bad: list[str] = []
    split_of: dict[str, set[str]] = defaultdict(set)
    for r in records:
        key, proj = r["producer"], r.get("project")
        if key.startswith("gen:"):
            bad.append(f"{r['id'][:12]}: made by the project's own generator {key}")
        if corpus.owns(key, proj):
            bad.append(f"{r['id'][:12]}: producer {key} (project {project_of(key, proj)}) "
                       "also feeds the corpus")
        if corpus.holds(r["id"]):
            bad.append(f"{r['id'][:12]}: the same content is in the corpus")
        if is_reserved_key(key):
            bad.append(f"{r['id'][:12]}: producer {key} is a reserved source")
        if "split" in r:
            split_of[project_of(key, proj)].add(r["split"])
    for proj, splits in split_of.items():
        if len(splits) > 1:
            bad.append(f"project {proj} is in both {' and '.join(sorted(splits))}")
    if bad:
        more = f"\n... and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise IndependenceError(f"{len(bad)} independence violations:\n" + "\n".join(bad[:20]) + more)
