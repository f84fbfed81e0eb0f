"""Fetch and unpack registry packages into the cache, with the machine's ordinary clients.

- ``deb``: ``apt-get download NAME=VERSION`` then ``dpkg-deb -x`` (no installation).
- ``debsrc``: ``apt-get source --download-only`` through a private sources list and state dir under
  the cache (built from the system's own apt source URIs), then the upstream tarball is unpacked.
- ``pypi``: ``pip download --no-deps`` (a wheel, or the sdist when the entry says ``sdist``).
- ``npm``: ``npm pack NAME@VERSION``.
- ``debdesc``: Debian's translated package descriptions (see ``fetch_debdesc``).
- ``git``: the files of a pinned commit of a public repository, read from a folder of bare git
  mirrors given by the caller (``picohead.data.gitmirror``; never from the network) and written
  out as a tree so the same harvest rules apply.

A pinned version that the registry no longer serves falls back to the current one, with a warning;
the version actually used is what provenance records. Everything is cached: a finished unpack leaves
a ``.done`` marker holding the version, so reruns do no network work.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from picohead_runtime.errors import PicoheadError

log = logging.getLogger(__name__)


class FetchError(PicoheadError, RuntimeError):
    pass


@dataclass(frozen=True)
class Fetched:
    root: Path  # unpacked tree
    version: str
    archive: Path | None  # the downloaded file itself (a .deb is also a format sample)


def _run(cmd: list[str], cwd: Path | None = None, timeout: int = 900) -> str:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise FetchError(f"{' '.join(cmd)}: {e}") from None
    if p.returncode != 0:
        raise FetchError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-400:]}")
    return p.stdout


DONE = ".done"  # marker file of a finished unpack, holding the version


def unpacked_root(cache: Path, kind: str, name: str, commit: str | None = None) -> Path:
    """Where a recipe entry's tree is unpacked under ``cache`` (finished when it holds ``.done``):
    ``x/<kind>/<name>`` (npm scopes ``/`` -> ``__``; git ``x/git/<owner>+<repo>@<commit[:12]>``).
    The one owner of that layout: the fetchers write there and the builder reads there."""
    if kind == "git":
        return cache / "x" / "git" / f"{name.replace('/', '+')}@{(commit or '')[:12]}"
    return cache / "x" / kind / (name.replace("/", "__") if kind == "npm" else name)


def is_unpacked(root: Path) -> bool:
    """True when the tree under ``root`` was unpacked to the end (its ``.done`` marker)."""
    return (root / DONE).exists()


def _done(dest: Path) -> str | None:
    m = dest / DONE
    return m.read_text().strip() if m.exists() else None


def _mark(dest: Path, version: str) -> None:
    (dest / DONE).write_text(version)


def _safe_extract_tar(path: Path, dest: Path) -> None:
    with tarfile.open(path) as tf:
        members = [m for m in tf.getmembers() if (m.isfile() or m.isdir())
                   and not m.name.startswith("/") and ".." not in Path(m.name).parts]
        tf.extractall(dest, members=members, filter="data")


def _safe_extract_zip(path: Path, dest: Path) -> None:
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if info.is_dir() or info.filename.startswith("/") or ".." in Path(info.filename).parts:
                continue
            zf.extract(info, dest)


def unpack(path: Path, dest: Path) -> None:
    name = path.name
    if name.endswith((".zip", ".whl", ".jar")):
        _safe_extract_zip(path, dest)
    elif re.search(r"\.(tar(\.(gz|bz2|xz|zst|lzma))?|tgz)$", name):
        if name.endswith(".zst"):
            tmp = path.with_suffix("")
            _run(["zstd", "-d", "-f", "-q", str(path), "-o", str(tmp)])
            _safe_extract_tar(tmp, dest)
            tmp.unlink()
        else:
            _safe_extract_tar(path, dest)
    else:
        raise FetchError(f"do not know how to unpack {path}")


# -- deb ------------------------------------------------------------------------------------------
def fetch_deb(cache: Path, name: str, version: str | None) -> Fetched:
    dest = unpacked_root(cache, "deb", name)
    v = _done(dest)
    dl = cache / "dl" / "deb"
    if v is not None:
        debs = sorted(dl.glob(f"{name}_*.deb"))
        return Fetched(dest, v, debs[-1] if debs else None)
    dl.mkdir(parents=True, exist_ok=True)
    try:
        _run(["apt-get", "download", f"{name}={version}" if version else name], cwd=dl)
    except FetchError:
        if not version:
            raise
        log.warning("deb %s=%s not served any more; taking the current version", name, version)
        _run(["apt-get", "download", name], cwd=dl)
    debs = sorted(dl.glob(f"{name}_*.deb"), key=lambda p: p.stat().st_mtime)
    if not debs:
        raise FetchError(f"apt-get download {name} left no .deb")
    deb = debs[-1]
    real = _run(["dpkg-deb", "-f", str(deb), "Version"]).strip()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    _run(["dpkg-deb", "-x", str(deb), str(dest)])
    _mark(dest, real)
    return Fetched(dest, real, deb)


# -- Debian source packages through a private sources list --------------------------------------
def _apt_src_opts(cache: Path) -> list[str]:
    base = cache.resolve() / "apt"
    return ["-o", f"Dir::Etc::SourceList={base / 'sources.list'}",
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", f"Dir::State::Lists={base / 'lists'}",
            "-o", f"Dir::Cache={base / 'cache'}",
            "-o", "Debug::NoLocking=1",
            # as root, apt downloads as the _apt user, who cannot write the cache's folders
            # (every `apt-get source` failed with "pkgAcquire::Run (13: Permission denied)")
            *(["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else [])]


def _system_apt_uris() -> list[tuple[str, str, str]]:
    """(uri, suite, signed_by) from the system's deb822 or one-line apt sources."""
    out: list[tuple[str, str, str]] = []
    for p in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for stanza in p.read_text().split("\n\n"):
            f: dict[str, str] = {}
            for line in stanza.splitlines():
                if ":" in line and not line.startswith("#"):
                    k, _, val = line.partition(":")
                    f[k.strip().lower()] = val.strip()
            if "deb" not in f.get("types", "").split() or "main" not in f.get("components", ""):
                continue
            for uri in f.get("uris", "").split():
                for suite in f.get("suites", "").split():
                    out.append((uri, suite, f.get("signed-by", "")))
    legacy = Path("/etc/apt/sources.list")
    if legacy.exists():
        for line in legacy.read_text().splitlines():
            m = re.match(r"deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+.*main", line)
            if m:
                out.append((m.group(2), m.group(3), ""))
    return out


_INDEX_LOCK = threading.Lock()
UPDATE_TRIES = 3


def ensure_src_index(cache: Path) -> None:
    """Build the private deb-src index once: under a lock (threads of this build and other
    processes on the same cache wait for the first), retried, marked done only on success.
    Two workers running ``apt-get update`` on one lists folder at once (locking is off for the
    download-only calls) left a half-written index and 85 failed source packages."""
    base = cache / "apt"
    if (base / ".done").exists():
        return
    base.mkdir(parents=True, exist_ok=True)
    with _INDEX_LOCK, open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if (base / ".done").exists():  # another worker built it while this one waited
                return
            _build_src_index(cache, base)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build_src_index(cache: Path, base: Path) -> None:
    (base / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (base / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    lines = []
    for uri, suite, signed in _system_apt_uris():
        if "security" in uri or suite.endswith("-updates"):
            continue
        opt = f"[signed-by={signed}] " if signed else ""
        lines.append(f"deb-src {opt}{uri} {suite} main")
    if not lines:
        raise FetchError("no Debian apt source found in /etc/apt to derive deb-src lines from")
    (base / "sources.list").write_text("\n".join(lines) + "\n")
    for attempt in range(1, UPDATE_TRIES + 1):
        try:
            _run(["apt-get", *_apt_src_opts(cache), "update"], timeout=900)
            break
        except FetchError as e:
            if attempt == UPDATE_TRIES:
                raise FetchError(f"the deb-src index could not be built after {attempt} tries: "
                                 f"{e}") from None
            log.warning("apt-get update failed (try %d of %d), retrying: %s", attempt,
                        UPDATE_TRIES, e)
            shutil.rmtree(base / "lists", ignore_errors=True)
            (base / "lists" / "partial").mkdir(parents=True, exist_ok=True)
            time.sleep(2 * attempt)
    (base / ".done").write_text("ok")


def fetch_debsrc(cache: Path, name: str, version: str | None) -> Fetched:
    dest = unpacked_root(cache, "debsrc", name)
    v = _done(dest)
    if v is not None:
        return Fetched(dest, v, None)
    ensure_src_index(cache)
    dl = cache / "dl" / "debsrc" / name
    dl.mkdir(parents=True, exist_ok=True)
    spec = f"{name}={version}" if version else name
    try:
        _run(["apt-get", *_apt_src_opts(cache), "source", "--download-only", spec], cwd=dl)
    except FetchError as e:
        if not _source_tarballs(dl):  # apt stops at the first missing file: fetch the upstream
            _download_upstream(cache, spec, dl)
        if _source_tarballs(dl):  # e.g. the .debian.tar.xz is gone (404) but the upstream is here
            log.warning("source %s: %s; using the upstream tarball", name, str(e)[-200:])
        elif not version:
            raise
        else:
            log.warning("source %s=%s not served any more; taking the current version", name,
                        version)
            _run(["apt-get", *_apt_src_opts(cache), "source", "--download-only", name], cwd=dl)
    dscs = sorted(dl.glob("*.dsc"))
    real = version or ""
    if dscs:
        for line in dscs[-1].read_text(errors="replace").splitlines():
            if line.startswith("Version:"):
                real = line.split(":", 1)[1].strip()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    tars = _source_tarballs(dl)
    for t in tars:
        unpack(t, dest)
    _mark(dest, real)
    return Fetched(dest, real, None)


def _download_upstream(cache: Path, spec: str, dl: Path) -> None:
    """Download a source package's upstream tarballs one by one (the URIs and SHA-256 sums apt
    prints), skipping files the mirror no longer serves; a hash mismatch is an error."""
    import hashlib
    import urllib.request

    try:
        out = _run(["apt-get", *_apt_src_opts(cache), "source", "--print-uris", spec], cwd=dl)
    except FetchError:
        return
    for m in re.finditer(r"'(\S+)' (\S+) \d+ SHA256:([0-9a-f]{64})", out):
        uri, fname, sha = m.groups()
        if ".tar." not in fname or ".debian.tar." in fname:
            continue
        try:
            with urllib.request.urlopen(uri, timeout=300) as r:
                data = r.read()
        except OSError as e:
            log.warning("source %s: %s not served: %s", spec, fname, e)
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            raise FetchError(f"source {spec}: {fname} does not match the SHA-256 apt lists")
        (dl / fname).write_bytes(data)


def _source_tarballs(dl: Path) -> list[Path]:
    """The upstream tarballs ``apt-get source`` left in ``dl`` (the whole source if native)."""
    tars = [p for p in sorted(dl.iterdir()) if ".orig" in p.name and ".tar." in p.name
            and not p.name.endswith(".asc")]
    if not tars:  # native package
        tars = [p for p in sorted(dl.iterdir()) if ".tar." in p.name and not p.name.endswith(".asc")
                and ".debian.tar." not in p.name]
    return tars


def fetch_debdesc(cache: Path, name: str, languages: list[str]) -> Fetched:
    """Debian's package-description translations (``Translation-<lang>`` indexes).

    Fetched by ``apt-get update`` with ``Acquire::Languages`` into a private state dir, and
    decompressed with apt's own ``apt-helper cat-file`` into ``locale/<lang>/Translation``.
    """
    dest = unpacked_root(cache, "debdesc", name)
    v = _done(dest)
    if v is not None:
        return Fetched(dest, v, None)
    base = cache / "apt-desc"
    (base / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (base / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    lines = []
    for uri, suite, signed in _system_apt_uris():
        if "security" in uri or suite.endswith("-updates"):
            continue
        opt = f"[signed-by={signed}] " if signed else ""
        lines.append(f"deb {opt}{uri} {suite} main")
    (base / "sources.list").write_text("\n".join(lines) + "\n")
    opts = ["-o", f"Dir::Etc::SourceList={base / 'sources.list'}",
            "-o", "Dir::Etc::SourceParts=/dev/null", "-o", f"Dir::State::Lists={base / 'lists'}",
            "-o", f"Dir::Cache={base / 'cache'}", "-o", "Debug::NoLocking=1",
            "-o", f"Acquire::Languages={','.join(languages)}"]
    _run(["apt-get", *opts, "update"], timeout=1200)
    if dest.exists():
        shutil.rmtree(dest)
    helper = "/usr/lib/apt/apt-helper"
    for f in sorted((base / "lists").glob("*_i18n_Translation-*")):
        lang = f.name.split("Translation-", 1)[1].split(".")[0].replace("%5f", "_")
        out = dest / "locale" / lang / "Translation"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_run([helper, "cat-file", str(f)], timeout=600))
    _mark(dest, "bookworm")
    return Fetched(dest, "bookworm", None)


# -- PyPI / npm -------------------------------------------------------------------------------------
def fetch_pypi(cache: Path, name: str, version: str | None, sdist: bool = False) -> Fetched:
    dest = unpacked_root(cache, "pypi", name)
    v = _done(dest)
    if v is not None:
        return Fetched(dest, v, None)
    dl = cache / "dl" / "pypi" / name
    dl.mkdir(parents=True, exist_ok=True)
    req = f"{name}=={version}" if version else name
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(dl), req]
    # wheels need no build step; sdists (for C, C# or Objective-C sources) prepare metadata
    cmd += ["--no-binary", name] if sdist else ["--only-binary", ":all:"]
    _run(cmd)
    files = sorted(p for p in dl.iterdir() if p.is_file())
    if not files:
        raise FetchError(f"pip download {req} left nothing")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in files:
        unpack(f, dest)
    _mark(dest, version or files[0].name)
    return Fetched(dest, version or files[0].name, files[0])


def fetch_npm(cache: Path, name: str, version: str | None) -> Fetched:
    safe = name.replace("/", "__")
    dest = unpacked_root(cache, "npm", name)
    v = _done(dest)
    if v is not None:
        return Fetched(dest, v, None)
    dl = cache / "dl" / "npm" / safe
    dl.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, npm_config_cache=str(cache / "npm-cache"))
    spec = f"{name}@{version}" if version else name
    try:
        p = subprocess.run(["npm", "pack", spec, "--silent"], cwd=dl, capture_output=True,
                           text=True, timeout=600, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise FetchError(f"npm pack {spec}: {e}") from None
    if p.returncode != 0:
        raise FetchError(f"npm pack {spec} failed: {p.stderr.strip()[-400:]}")
    tgzs = sorted(dl.glob("*.tgz"))
    if not tgzs:
        raise FetchError(f"npm pack {spec} left no tarball")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    unpack(tgzs[-1], dest)
    real = version or tgzs[-1].stem.rsplit("-", 1)[-1]
    _mark(dest, real)
    return Fetched(dest, real, tgzs[-1])


def fetch_git(cache: Path, mirrors: Path | None, repo: str, commit: str,
              paths: list[str] | None = None) -> Fetched:
    """The files under ``paths`` of ``repo`` at ``commit``, unpacked under the cache."""
    from picohead.data.gitmirror import MirrorError, open_mirror

    dest = unpacked_root(cache, "git", repo, commit)
    if _done(dest) is not None:
        return Fetched(dest, commit, None)
    if mirrors is None:
        raise FetchError(f"git:{repo} needs --mirrors (a folder of git mirrors; see "
                         "`python benchmarks/wild.py clone-list` for the commands that fill one)")
    try:
        m = open_mirror(Path(mirrors), repo)
        full = m.resolve(commit)
        rows = m.files(full, paths or [])
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        by_oid: dict[str, list[str]] = {}
        for rel, oid, _size in rows:
            by_oid.setdefault(oid, []).append(rel)
        for oid, data in m.read(list(by_oid)):
            for rel in by_oid[oid]:
                out = (dest / rel).resolve()
                if not out.is_relative_to(dest.resolve()):
                    continue  # a path that climbs out of the tree
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
    except MirrorError as e:
        raise FetchError(str(e)) from None
    _mark(dest, full)
    return Fetched(dest, full, None)


def fetch(cache: Path, kind: str, name: str, version: str | None, *, sdist: bool = False,
          languages: list[str] | None = None, mirrors: Path | None = None,
          commit: str | None = None, paths: list[str] | None = None) -> Fetched:
    cache = cache.resolve()
    if kind == "git":
        if not commit:
            raise FetchError(f"git:{name} has no pinned commit")
        return fetch_git(cache, mirrors, name, commit, paths)
    if kind == "debdesc":
        return fetch_debdesc(cache, name, languages or [])
    if kind == "deb":
        return fetch_deb(cache, name, version)
    if kind == "debsrc":
        return fetch_debsrc(cache, name, version)
    if kind == "pypi":
        return fetch_pypi(cache, name, version, sdist=sdist)
    if kind == "npm":
        return fetch_npm(cache, name, version)
    raise FetchError(f"unknown source kind {kind!r}; use deb, debsrc, pypi, npm or git")
