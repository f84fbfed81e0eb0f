"""Licence-text corpus for a ``licence`` head (``picohead data licence``), from registry data only.

Sources, all fetched with :mod:`picohead.data.fetch` (the corpus builder's clients and cache):

- ``common-licenses``: the full texts in ``/usr/share/common-licenses`` of Debian's ``base-files``
  package (label = file name; symlinks skipped). They are the reference texts, so their group is
  always in ``train``.
- ``dep5``: machine-readable Debian ``copyright`` files (DEP-5) of the binary packages
  (``usr/share/doc/*/copyright``) and of the source packages (``debian/copyright`` in the
  ``.debian.tar.*``). Every ``License:`` field with a body gives one sample: the body, de-indented
  (``" ."`` lines become blank), without the short-name line; the label is the short name,
  normalised.
- ``upstream``: top-level ``LICENSE``/``LICENCE``/``COPYING`` files of source packages, npm
  tarballs and PyPI wheels, labelled by the licence the package declares (DEP-5 ``Files: *``,
  ``package.json`` ``license``, wheel ``License-Expression`` or a single ``License ::``
  classifier). A declaration is not proof of what one file holds, so an upstream file is kept only
  when its text carries the label's signature phrase (:data:`SIGNATURES`); the rest are counted.

Every text gives its whole self plus head cuts (``cuts`` bytes, on a line end) when it is
clearly longer. Labels: :func:`normalise` maps SPDX-ish and Debian spellings onto one name
(``GPL-2+``, ``GPL-2.0-or-later`` -> ``GPL-2``; ``Expat`` -> ``MIT``); compound expressions
(``or``/``and``/``,``), exception variants (``with``) and vague names (``other``, ``custom``) are
dropped. Samples are deduplicated on their whitespace-collapsed text (first group in name order
keeps it), capped per (group, label) and per label, split train/val/test by group (the Debian
*source* package, so binary packages of one source stay together; ``npm:``/``pypi:`` names
otherwise), and labels without ``min_per_split`` samples in every split are dropped and recorded.

Output (``--out``): ``blobs/``, ``train.jsonl``/``val.jsonl``/``test.jsonl`` (the manifest format
of :mod:`picohead.dataset`), ``provenance.jsonl`` (package, kind, version, the package's declared
licence, path, origin, cut), ``head.json`` (the recipe's head minus dropped labels), ``card.json``
and ``DATASET_CARD.md``.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import subprocess
import tarfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from picohead.data.fetch import FetchError, fetch, is_unpacked, unpacked_root
from picohead.data.recipe import RecipeError, check_keys, load_recipe
from picohead.data.store import BlobStore
from picohead_runtime.spec import HEAD_KEYS

log = logging.getLogger(__name__)

SPLITS = ("train", "val", "test")
LICENCE_FILE = re.compile(r"^(licen[cs]e|copying|unlicense)([-._].*)?$", re.I)
VAGUE = {"other", "custom", "unknown", "permissive", "free", "public", "see-license",
         "none", "proprietary", "non-free", "bsd", "bsd-like", "mit-like", "gpl", "lgpl",
         "gpl-any", "lgpl-any", "license", "unlicensed"}


# -- DEP-5 -----------------------------------------------------------------------------------
def parse_deb822(text: str) -> list[dict[str, str]]:
    """Paragraphs of a deb822 file as ``{field (lower case): value}``; continuation lines are kept
    with their leading space, comments (``#``) dropped."""
    paras: list[dict[str, str]] = []
    cur: dict[str, str] = {}
    last = None
    for line in text.splitlines():
        if not line.strip():
            if cur:
                paras.append(cur)
            cur, last = {}, None
            continue
        if line.startswith("#"):
            continue
        if line[0] in " \t":
            if last is not None:
                cur[last] += "\n" + line
            continue
        k, sep, v = line.partition(":")
        if not sep:
            continue  # not deb822; ignore the line
        last = k.strip().lower()
        cur[last] = v.strip()
    if cur:
        paras.append(cur)
    return paras


def is_dep5(text: str) -> bool:
    head = text.lstrip()[:300].lower()
    return head.startswith("format:") and "copyright-format" in head.split("\n", 1)[0]


def licence_body(value: str) -> tuple[str, str]:
    """(short name, de-indented body) of a ``License:`` field value."""
    first, _, rest = value.partition("\n")
    lines = []
    for line in rest.split("\n"):
        s = line[1:] if line[:1] in (" ", "\t") else line
        lines.append("" if s.strip() == "." else s.rstrip())
    return first.strip(), "\n".join(lines).strip("\n")


@dataclass
class Dep5:
    files_star: str | None  # licence of ``Files: *`` (the package's licence), if any
    bodies: list[tuple[str, str]] = field(default_factory=list)  # (short name, body)


def parse_dep5(text: str) -> Dep5 | None:
    """The licence paragraphs of a DEP-5 copyright file (``None`` when it is not DEP-5)."""
    if not is_dep5(text):
        return None
    star = None
    bodies = []
    for p in parse_deb822(text)[1:]:
        if "license" not in p:
            continue
        name, body = licence_body(p["license"])
        if p.get("files", "").split() and p["files"].split()[0] == "*" and star is None:
            star = name
        if body.strip():
            bodies.append((name, body))
    return Dep5(star, bodies)


# -- labels ----------------------------------------------------------------------------------
_GNU = re.compile(r"^(a|l)?gpl-?v?(\d(?:\.\d)?)?(?:\.0)?(\+|-or-later|-only)?$")
ALIASES = {
    "expat": "MIT", "mit": "MIT", "x11": "X11", "isc": "ISC", "zlib": "Zlib",
    "apache-2": "Apache-2.0", "apache-2.0": "Apache-2.0", "apache": None,
    "bsd-2-clause": "BSD-2-clause", "bsd-2": "BSD-2-clause", "bsd-2-clause-freebsd": "BSD-2-clause",
    "bsd-3-clause": "BSD-3-clause", "bsd-3": "BSD-3-clause", "bsd-4-clause": "BSD-4-clause",
    "mpl-2.0": "MPL-2.0", "mpl-2": "MPL-2.0", "mpl-1.1": "MPL-1.1",
    "artistic": "Artistic", "artistic-1": "Artistic", "artistic-1.0": "Artistic",
    "artistic-1.0-perl": "Artistic", "perl": "Artistic", "artistic-2.0": "Artistic-2.0",
    "public-domain": "public-domain", "publicdomain": "public-domain",
    "cc0": "CC0-1.0", "cc0-1.0": "CC0-1.0", "bsl-1.0": "BSL-1.0", "boost-1.0": "BSL-1.0",
    "ofl-1.1": "OFL-1.1", "sil-ofl-1.1": "OFL-1.1", "psf-2": "PSF-2.0", "psf-2.0": "PSF-2.0",
    "python": "PSF-2.0", "unicode-dfs-2016": "Unicode", "unicode": "Unicode", "curl": "curl",
    "unlicense": "Unlicense", "wtfpl": "WTFPL", "cc-by-4.0": "CC-BY-4.0",
    "cc-by-sa-4.0": "CC-BY-SA-4.0", "cc-by-sa-3.0": "CC-BY-SA-3.0", "gfdl-1.2": "GFDL-1.2",
    "gfdl-1.3": "GFDL-1.3", "gfdl-1.2+": "GFDL-1.2", "gfdl-1.3+": "GFDL-1.3",
    "ftl": "FTL", "libpng": "Libpng", "ijg": "IJG", "epl-1.0": "EPL-1.0", "epl-2.0": "EPL-2.0",
    "cddl-1.0": "CDDL-1.0", "0bsd": "0BSD", "bsd-0-clause": "0BSD", "epl-1": "EPL-1.0",
    "cc-by-3.0": "CC-BY-3.0", "fsfullr": "FSFULLR", "fsfap": "FSFAP", "fsful": "FSFUL",
}


def normalise(name: str) -> tuple[str | None, str]:
    """(label, why): the closed-set name of a licence short name, or ``None`` and the reason."""
    n = name.strip().strip(",;").lower().replace("_", "-")
    n = re.sub(r"\s+", " ", n)
    if not n:
        return None, "empty"
    if re.search(r"\s(with|exception)\s|\swith$|exception", n):
        return None, "exception variant"
    if re.search(r"\s(or|and)\s|,|\||&|/", n):
        return None, "compound expression"
    if n in VAGUE:
        return None, "vague name"
    n = n.replace(" ", "-")
    m = _GNU.match(n)
    if m:
        fam = {"a": "AGPL", "l": "LGPL", None: "GPL"}[m.group(1)]
        ver = m.group(2)
        if ver is None:
            return None, "vague name"
        if ver in ("2.0", "3.0", "1.0"):
            ver = ver[0]
        if fam == "LGPL" and ver == "2":
            return "LGPL-2", ""
        return f"{fam}-{ver}", ""
    if n in ALIASES:
        lab = ALIASES[n]
        return (lab, "") if lab else (None, "vague name")
    n2 = re.sub(r"\+$|-or-later$|-only$", "", n)
    if n2 != n and n2 in ALIASES and ALIASES[n2]:
        return ALIASES[n2], ""
    return name.strip(), ""  # an unmapped name is kept as is; the head spec decides


def normalise_expression(expr: str) -> str | None:
    """A package's declared licence as one label, when it is a single name."""
    lab, _ = normalise(expr)
    return lab


# A phrase every text of the label carries (checked on upstream files only; case-insensitive).
SIGNATURES: dict[str, str] = {
    "GPL-2": r"GNU GENERAL PUBLIC LICENSE\s+Version 2,",
    "GPL-3": r"GNU GENERAL PUBLIC LICENSE\s+Version 3,",
    "LGPL-2": r"GNU LIBRARY GENERAL PUBLIC LICENSE\s+Version 2,",
    "LGPL-2.1": r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 2\.1,",
    "LGPL-3": r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3,",
    "AGPL-3": r"GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3,",
    "Apache-2.0": r"Apache License,?\s+Version 2\.0",
    "MPL-2.0": r"Mozilla Public License,?\s+(version|v\.?)\s*2\.0",
    "MIT": r"Permission is hereby granted, free of charge",
    "ISC": r"Permission to use, copy, modify,? and(/or)? distribute this software for any",
    "BSD-3-clause": r"Redistribution and use in source and binary forms(?s:.*)(Neither the name|names of (its|the) contributors)",
    "BSD-2-clause": r"Redistribution and use in source and binary forms",
    "Zlib": r"altered source versions must be plainly marked",
    "Artistic": r"The \"?Artistic License",
    "BSL-1.0": r"Boost Software License",
    "PSF-2.0": r"PYTHON SOFTWARE FOUNDATION LICENSE",
    "Unlicense": r"This is free and unencumbered software",
}
_NOT = {"BSD-2-clause": r"Neither the name|names of (its|the) contributors|advertising materials",
        "GPL-2": r"LESSER|LIBRARY", "GPL-3": r"LESSER|AFFERO"}


def signature_ok(label: str, text: str) -> bool:
    sig = SIGNATURES.get(label)
    if sig is None or not re.search(sig, text, re.I):
        return False
    neg = _NOT.get(label)
    return not (neg and re.search(neg, text[:4000], re.I))


# -- samples ---------------------------------------------------------------------------------
def cuts(text: str, sizes: Iterable[int]) -> Iterator[tuple[str, str]]:
    """(cut name, text): the whole text, then a head cut per size (ending on a line end) when the
    text is at least 1.5x that size."""
    yield "whole", text
    b = text.encode("utf-8")
    for n in sizes:
        if len(b) < 1.5 * n:
            continue
        head = b[:n].decode("utf-8", "ignore")
        nl = head.rfind("\n")
        if nl > n // 2:
            head = head[:nl]
        yield f"head{n}", head.rstrip()


def dedup_key(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


@dataclass
class Text:
    """One licence text found in a package, before labels are checked."""

    name: str  # the declared short name (raw)
    text: str
    group: str  # split unit (source package)
    source: str  # manifest 'source', e.g. deb:zlib1g
    prov: dict[str, Any]  # package, kind, version, licence, path, origin


# -- harvesting ------------------------------------------------------------------------------
def _read(p: Path, limit: int = 1 << 20) -> str | None:
    try:
        b = p.read_bytes()[:limit]
    except OSError:
        return None
    if b"\0" in b[:4096]:
        return None
    return b.decode("utf-8", "replace")


def deb_source_name(deb: Path | None, fallback: str) -> str:
    if deb is None or not deb.exists():
        return fallback
    try:
        out = subprocess.run(["dpkg-deb", "-f", str(deb), "Source"], capture_output=True,
                             text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return fallback
    return out.split()[0] if out else fallback


def from_dep5(text: str, *, group: str, source: str, prov: dict[str, Any],
              stats: Counter[str]) -> Iterator[Text]:
    d = parse_dep5(text)
    if d is None:
        stats["copyright files not DEP-5"] += 1
        return
    stats["copyright files DEP-5"] += 1
    pkg_lic = d.files_star or "?"
    for name, body in d.bodies:
        yield Text(name, body, group, source,
                   {**prov, "licence": pkg_lic, "origin": "dep5", "short_name": name})


COMMON_NAMES = {"BSD": "BSD-3-clause"}


def harvest_common_licenses(root: Path, version: str) -> Iterator[Text]:
    d = root / "usr" / "share" / "common-licenses"
    for p in sorted(d.iterdir()) if d.is_dir() else []:
        if p.is_symlink() or not p.is_file():
            continue
        t = _read(p)
        if t:  # Debian's "BSD" file is the 3-clause text of the Regents of the University of California
            yield Text(COMMON_NAMES.get(p.name, p.name), t, "src:base-files", "deb:base-files",
                       {"package": "base-files", "kind": "deb", "version": version,
                        "licence": "GPL-2+", "path": str(p.relative_to(root)),
                        "origin": "common-licenses"})


def harvest_deb(root: Path, name: str, version: str, deb: Path | None,
                stats: Counter[str]) -> Iterator[Text]:
    group = "src:" + deb_source_name(deb, name)
    for p in sorted((root / "usr" / "share" / "doc").glob("*/copyright")):
        if p.is_symlink():
            continue
        t = _read(p)
        if t:
            yield from from_dep5(t, group=group, source=f"deb:{name}", stats=stats, prov={
                "package": name, "kind": "deb", "version": version,
                "path": str(p.relative_to(root))})


def _debian_copyright(dl: Path, root: Path) -> tuple[str, str] | None:
    """(text, path) of ``debian/copyright`` from a source package's debian tarball (or tree)."""
    for t in sorted(dl.glob("*.debian.tar.*")):
        try:
            with tarfile.open(t) as tf:
                f = tf.extractfile("debian/copyright")
                if f is not None:
                    return io.TextIOWrapper(f, "utf-8", "replace").read(), "debian/copyright"
        except (tarfile.TarError, KeyError, OSError):
            continue
    for p in sorted(root.glob("*/debian/copyright")):  # native package
        text = _read(p)
        if text:
            return text, str(p.relative_to(root))
    return None


def upstream_files(root: Path, depth: int) -> Iterator[Path]:
    """Licence files at most ``depth`` folders below ``root`` (sorted, no symlinks)."""
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if len(rel.parts) > depth + 1 or p.is_symlink() or not p.is_file():
            continue
        if LICENCE_FILE.match(p.name) and not p.name.endswith((".py", ".js", ".json", ".ts")):
            yield p


def harvest_upstream(root: Path, declared: str | None, *, group: str, source: str,
                     prov: dict[str, Any], depth: int, stats: Counter[str]) -> Iterator[Text]:
    label = normalise_expression(declared) if declared else None
    for p in upstream_files(root, depth):
        stats["upstream files"] += 1
        if label is None:
            stats["upstream files: package licence not one name"] += 1
            continue
        t = _read(p)
        if not t:
            continue
        if not signature_ok(label, t):
            stats["upstream files: text lacks the declared licence's signature"] += 1
            continue
        stats["upstream files kept"] += 1
        yield Text(label, t, group, source, {**prov, "licence": declared, "origin": "upstream",
                                             "path": str(p.relative_to(root))})


def _npm_licence(root: Path) -> str | None:
    for pj in sorted(root.glob("*/package.json")):
        try:
            lic = json.loads(pj.read_text(encoding="utf-8")).get("license")
        except (OSError, ValueError):
            return None
        return lic if isinstance(lic, str) else None
    return None


def _pypi_licence(root: Path) -> str | None:
    for meta in sorted(root.glob("*.dist-info/METADATA")) + sorted(root.glob("*/PKG-INFO")):
        t = _read(meta) or ""
        hdr = t.split("\n\n", 1)[0]
        m = re.search(r"^License-Expression:\s*(.+)$", hdr, re.M)
        if m:
            return m.group(1).strip()
        cls = re.findall(r"^Classifier:\s*License :: OSI Approved :: (.+)$", hdr, re.M)
        names = {"MIT License": "MIT", "BSD License": None, "Apache Software License":
                 "Apache-2.0", "ISC License (ISCL)": "ISC", "Mozilla Public License 2.0 (MPL 2.0)":
                 "MPL-2.0", "Python Software Foundation License": "PSF-2.0"}
        mapped = {names.get(c.strip()) for c in cls}
        if len(mapped) == 1 and None not in mapped:
            return mapped.pop()
        m = re.search(r"^License:\s*(\S+)\s*$", hdr, re.M)  # one-word License field
        if m:
            return m.group(1)
    return None


def harvest_entry(cache: Path, e: dict[str, Any], stats: Counter[str],
                  offline: bool = False) -> list[Text]:
    """The licence texts of one recipe entry. Entries of the licence recipe itself (``extra``) are
    fetched under ``cache/licence`` so that they never change the content corpus's cache."""
    kind, name = e["kind"], e["name"]
    if e.get("extra"):
        cache = cache / "licence"
    if offline and not is_unpacked(unpacked_root(cache, kind, name, e.get("commit"))):
        stats["packages not in the cache (offline)"] += 1
        return []
    f = fetch(cache, kind, name, e.get("version"), sdist=bool(e.get("sdist")))
    prov = {"package": name, "kind": kind, "version": f.version}
    if kind == "deb":
        if name == "base-files":
            return list(harvest_common_licenses(f.root, f.version))
        return list(harvest_deb(f.root, name, f.version, f.archive, stats))
    if kind == "debsrc":
        group, out = f"src:{name}", []
        cr = _debian_copyright(cache.resolve() / "dl" / "debsrc" / name, f.root)
        declared = None
        if cr is not None:
            out += list(from_dep5(cr[0], group=group, source=f"debsrc:{name}", stats=stats,
                                  prov={**prov, "path": cr[1]}))
            d = parse_dep5(cr[0])
            declared = d.files_star if d else None
        out += list(harvest_upstream(f.root, declared, group=group, source=f"debsrc:{name}",
                                     prov=prov, depth=1, stats=stats))
        return out
    if kind == "npm":
        return list(harvest_upstream(f.root, _npm_licence(f.root), group=f"npm:{name}",
                                     source=f"npm:{name}", prov=prov, depth=1, stats=stats))
    if kind == "pypi":
        return list(harvest_upstream(f.root, _pypi_licence(f.root), group=f"pypi:{name}",
                                     source=f"pypi:{name}", prov=prov, depth=2, stats=stats))
    return []


# -- labelling, dedup, caps, split --------------------------------------------------------------
def _h(s: str) -> int:
    return int(hashlib.sha256(s.encode()).hexdigest()[:12], 16)


def make_samples(texts: list[Text], allowed: list[str], cut_sizes: list[int]
                 ) -> tuple[list[dict[str, Any]], Counter[str], dict[str, str]]:
    """Label, cut and dedup ``texts``: (samples, label counts dropped, why per dropped name)."""
    dropped: Counter[str] = Counter()
    why: dict[str, str] = {}
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for t in sorted(texts, key=lambda t: (t.group, t.source, t.prov.get("path", ""), t.name)):
        lab, reason = normalise(t.name)
        if lab is None or lab not in allowed:
            key = t.name.strip() if lab is None else lab
            dropped[key] += 1
            why[key] = reason or "not in the head spec"
            continue
        for cut, text in cuts(t.text, cut_sizes):
            if len(text.strip()) < 40:
                continue
            k = dedup_key(text)
            if k in seen:
                continue
            seen.add(k)
            out.append({"text": text, "label": lab, "group": t.group, "source": t.source,
                        "prov": {**t.prov, "cut": cut}, "key": k})
    return out, dropped, why


def cap(samples: list[dict[str, Any]], per_group_label: int, per_label: int
        ) -> list[dict[str, Any]]:
    """Deterministic caps (order by hash of the dedup key)."""
    by_gl: Counter[tuple[str, str]] = Counter()
    by_l: Counter[str] = Counter()
    kept = []
    for s in sorted(samples, key=lambda s: _h(s["key"])):
        gl = (s["group"], s["label"])
        if by_gl[gl] >= per_group_label or by_l[s["label"]] >= per_label:
            continue
        by_gl[gl] += 1
        by_l[s["label"]] += 1
        kept.append(s)
    return kept


def split_groups(samples: list[dict[str, Any]], mins: dict[str, int],
                 fractions: tuple[int, int] = (70, 85), train_groups: Iterable[str] = ()
                 ) -> dict[str, str]:
    """Group -> split: by hash, then whole train groups move to val/test (rarest label first) until
    every label has ``mins`` samples there, while train keeps 60 % of the label."""
    forced = set(train_groups)
    split_of: dict[str, str] = {}
    for s in samples:
        g = s["group"]
        if g not in split_of:
            x = _h("split:" + g) % 100
            split_of[g] = ("train" if g in forced or x < fractions[0]
                           else "val" if x < fractions[1] else "test")
    gc: dict[str, Counter[str]] = defaultdict(Counter)
    for s in samples:
        gc[s["label"]][s["group"]] += 1
    for lab in sorted(gc, key=lambda k: (sum(gc[k].values()), k)):
        c = gc[lab]
        total = sum(c.values())
        for want in ("test", "val"):
            have = sum(n for g, n in c.items() if split_of[g] == want)
            cands = sorted((g for g in c if split_of[g] == "train" and g not in forced),
                           key=lambda g: _h(want + g))
            while have < mins[want] and cands:
                g = cands.pop()
                if sum(n for h, n in c.items() if split_of[h] == "train") - c[g] < 0.6 * total:
                    continue
                split_of[g] = want
                have += c[g]
    return split_of


# -- the build -------------------------------------------------------------------------------
# The keys the licence recipe, its settings, its extra packages and its head file may hold (what
# the build reads); "_comment"-style keys pass everywhere.
LICENCE_KEYS = frozenset({"name", "version", "spec", "packages_from", "extra", "settings"})
LICENCE_SETTINGS = frozenset({"cuts", "cap_per_group_label", "cap_per_label", "min_per_split",
                              "train_groups"})
EXTRA_KEYS = frozenset({"kind", "name", "version"})


def load_licence_recipe(name_or_path: str = "licence") -> tuple[Path, dict[str, Any]]:
    """The recipe's folder and its checked ``recipe.json`` (RecipeError naming an unknown key)."""
    p = Path(name_or_path)
    root = p.parent if p.is_file() else p if p.is_dir() else \
        Path(str(resources.files("picohead") / "recipes" / name_or_path))
    f = root / "recipe.json"
    rec = json.loads(f.read_text(encoding="utf-8"))
    check_keys(rec, LICENCE_KEYS, "", f)
    check_keys(rec.get("settings", {}), LICENCE_SETTINGS, "settings", f)
    extra = rec.get("extra", [])
    if not isinstance(extra, list):
        raise RecipeError(f"{f}: extra must be a list of package entries")
    for i, e in enumerate(extra):
        check_keys(e, EXTRA_KEYS, f"extra[{i}]", f)
    return root, rec


def load_head(root: Path, rec: dict[str, Any]) -> dict[str, Any]:
    """The recipe's head file (a head object, as ``picohead add-head`` reads it)."""
    f = root / rec.get("spec", "head.json")
    head = json.loads(f.read_text(encoding="utf-8"))
    check_keys(head, HEAD_KEYS, "", f)
    return head


def recipe_entries(rec: dict[str, Any]) -> list[dict[str, Any]]:
    """The packages to read: the named recipe's registry entries plus the extra ones."""
    entries: list[dict[str, Any]] = []
    if rec.get("packages_from"):
        entries += [e for e in load_recipe(rec["packages_from"]).entries
                    if e.get("kind") in ("deb", "debsrc", "npm", "pypi")]
    entries += rec.get("extra", [])
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for e in entries:
        k = (e["kind"], e["name"])
        if k not in seen:
            seen.add(k)
            d: dict[str, Any] = {k2: e[k2] for k2 in ("kind", "name", "version", "sdist") if k2 in e}
            if e in rec.get("extra", []):
                d["extra"] = True
            out.append(d)
    return out


def build_licence(out: Path, cache: Path, *, recipe: str = "licence", offline: bool = False,
                  texts: list[Text] | None = None) -> dict[str, Any]:
    """Build the licence corpus in ``out``; ``texts`` replaces harvesting (tests)."""
    root, rec = load_licence_recipe(recipe)
    head = load_head(root, rec)
    st = rec.get("settings", {})
    mins = st.get("min_per_split", {"train": 20, "val": 5, "test": 5})
    stats: Counter[str] = Counter()
    failures: dict[str, str] = {}
    if texts is None:
        texts = []
        for e in recipe_entries(rec):
            try:
                texts += harvest_entry(cache, e, stats, offline=offline)
            except (FetchError, OSError, ValueError) as err:
                failures[f"{e['kind']}:{e['name']}"] = str(err)[:300]
                log.warning("%s:%s failed: %s", e["kind"], e["name"], err)
    stats["texts found"] = len(texts)
    samples, dropped_names, why = make_samples(texts, head["labels"], st.get("cuts", [256, 1024]))
    stats["samples after dedup"] = len(samples)
    samples = cap(samples, st.get("cap_per_group_label", 12), st.get("cap_per_label", 400))
    forced = st.get("train_groups", ["src:base-files"])
    split_of = split_groups(samples, mins, train_groups=forced)
    counts: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    for s in samples:
        s["split"] = split_of[s["group"]]
        counts[s["split"]][s["label"]] += 1
    dropped: dict[str, str] = {}
    for lab in head["labels"]:
        c = {sp: counts[sp][lab] for sp in SPLITS}
        if any(c[sp] < mins[sp] for sp in SPLITS):
            dropped[lab] = "not enough samples: " + ", ".join(
                f"{sp} {c[sp]} < {mins[sp]}" for sp in SPLITS if c[sp] < mins[sp])
    samples = [s for s in samples if s["label"] not in dropped]
    labels = [lab for lab in head["labels"] if lab not in dropped]

    out.mkdir(parents=True, exist_ok=True)
    store = BlobStore(out)
    samples.sort(key=lambda s: (s["split"], s["source"], s["key"]))
    files = {sp: (out / f"{sp}.jsonl").open("w", encoding="utf-8") for sp in SPLITS}
    with (out / "provenance.jsonl").open("w", encoding="utf-8") as prov:
        for s in samples:
            sha, rel, _ = store.put(s["text"].encode("utf-8"))
            m = {"id": sha, "path": rel, "labels": {head["name"]: s["label"]},
                 "source": s["source"], "split": s["split"]}
            files[s["split"]].write(json.dumps(m, ensure_ascii=False) + "\n")
            prov.write(json.dumps({"id": sha, "sha256": sha, "source": s["source"],
                                   "group": s["group"], "split": s["split"], "label": s["label"],
                                   "bytes": len(s["text"].encode("utf-8")), **s["prov"]},
                                  ensure_ascii=False) + "\n")
    for f in files.values():
        f.close()
    (out / "head.json").write_text(json.dumps({**head, "labels": labels}, indent=1) + "\n")
    final: dict[str, Counter[str]] = {sp: Counter() for sp in SPLITS}
    groups: dict[str, set[str]] = {sp: set() for sp in SPLITS}
    origins: dict[str, Counter[str]] = {sp: Counter() for sp in SPLITS}
    for s in samples:
        final[s["split"]][s["label"]] += 1
        groups[s["split"]].add(s["group"])
        origins[s["split"]][s["prov"]["origin"]] += 1
    card = {
        "recipe": rec.get("name", "licence"), "recipe_version": rec.get("version"),
        "total": len(samples), "splits": {sp: sum(final[sp].values()) for sp in SPLITS},
        "groups": {sp: len(groups[sp]) for sp in SPLITS},
        "labels": {lab: {sp: final[sp][lab] for sp in SPLITS} for lab in labels},
        "origins": {sp: dict(origins[sp]) for sp in SPLITS},
        "dropped_labels": dropped,
        "dropped_names": {k: {"n": n, "why": why[k]} for k, n in dropped_names.most_common()},
        "stats": dict(stats), "failures": failures,
        "settings": {"min_per_split": mins, "cuts": st.get("cuts", [256, 1024]),
                     "cap_per_group_label": st.get("cap_per_group_label", 12),
                     "cap_per_label": st.get("cap_per_label", 400), "train_groups": forced},
    }
    (out / "card.json").write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n")
    (out / "DATASET_CARD.md").write_text(card_md(card), encoding="utf-8")
    return card


def card_md(card: dict[str, Any]) -> str:
    L = [f"# Licence dataset ({card['recipe']} recipe v{card['recipe_version']})", "",
         f"{card['total']} samples: " + ", ".join(f"{sp} {card['splits'][sp]} "
                                                  f"({card['groups'][sp]} packages)"
                                                  for sp in SPLITS) + ".", "",
         "| label | train | val | test |", "|---|---|---|---|"]
    for lab, c in card["labels"].items():
        L.append(f"| {lab} | {c['train']} | {c['val']} | {c['test']} |")
    L += ["", "Samples by origin: " + "; ".join(
        f"{sp}: " + ", ".join(f"{k} {v}" for k, v in sorted(card["origins"][sp].items()))
        for sp in SPLITS), "", "Dropped labels (head spec, too few samples): "
        + (", ".join(f"`{k}` ({v})" for k, v in card["dropped_labels"].items()) or "none"), "",
        "Licence names dropped before splitting (texts): " + (", ".join(
            f"`{k}` {v['n']} ({v['why']})" for k, v in list(card["dropped_names"].items())[:40])
            or "none"), "",
        "Harvest: " + ", ".join(f"{k} {v}" for k, v in sorted(card["stats"].items())), "",
        "Fetch failures: " + (", ".join(sorted(card["failures"])) or "none"), ""]
    return "\n".join(L)
