"""Read files of a pinned commit out of a folder of bare git mirrors (the ``git`` source kind).

A recipe entry names ``repo`` (``owner/name``), ``commit`` (40 hex digits), ``paths`` (prefixes to
read, empty = the whole tree) and ``licence``. The builder never clones: it reads a mirror folder
given on the command line, in which ``owner+name`` (or ``owner+name/repo``, or ``owner+name.git``)
is a bare repository holding the pinned commit. A user with network fills it with the commands
``clone_commands`` prints, one shallow fetch of exactly the pinned commit per repository::

    git init -q --bare MIRRORS/OWNER+NAME &&
      git -C MIRRORS/OWNER+NAME fetch -q --depth 1 https://github.com/OWNER/NAME COMMIT

(``git clone --mirror https://github.com/OWNER/NAME MIRRORS/OWNER+NAME`` works too, with the
whole history).

What it does not do: fetch from the network, check out a work tree, or follow submodules or LFS
pointers (an LFS pointer is read as the small text file it is).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from picohead_runtime.errors import PicoheadError


class MirrorError(PicoheadError, RuntimeError):
    pass


@dataclass(frozen=True)
class Mirror:
    repo: str
    git_dir: Path

    def _git(self, *args: str, data: bytes | None = None, timeout: int = 600) -> bytes:
        try:
            p = subprocess.run(["git", "--git-dir", str(self.git_dir), *args], input=data,
                               capture_output=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise MirrorError(f"{self.repo}: git {args[0]}: {e}") from None
        if p.returncode != 0:
            raise MirrorError(f"{self.repo}: git {' '.join(args[:2])} failed: "
                              f"{p.stderr.decode(errors='replace').strip()[-300:]}")
        return p.stdout

    def resolve(self, commit: str | None) -> str:
        """The full commit id of ``commit`` (or of HEAD when None)."""
        return self._git("rev-parse", "--verify", f"{commit or 'HEAD'}^{{commit}}").decode().strip()

    def files(self, commit: str, paths: Iterable[str] = ()) -> list[tuple[str, str, int]]:
        """(path, blob id, size) of every regular file under ``paths`` at ``commit``. A blob the
        mirror lacks (a partial snapshot leaves out its largest files) is left out."""
        out = self._git("ls-tree", "-r", "-z", commit, "--", *paths)
        rows = []
        for item in out.split(b"\0"):
            if not item:
                continue
            meta, _, name = item.partition(b"\t")
            mode, kind, oid = meta.split()
            if kind != b"blob" or mode not in (b"100644", b"100755"):
                continue  # symlinks, submodules
            rows.append((name.decode("utf-8", "replace"), oid.decode()))
        if not rows:
            return []
        check = self._git("cat-file", "--batch-check",
                          data=("\n".join(o for _, o in rows) + "\n").encode())
        sizes: dict[str, int] = {}
        for line in check.decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "blob":
                sizes[parts[0]] = int(parts[2])
        return [(name, oid, sizes[oid]) for name, oid in rows if oid in sizes]

    def read(self, oids: list[str]) -> Iterator[tuple[str, bytes]]:
        """(blob id, bytes) for each id, through one ``cat-file --batch`` call."""
        if not oids:
            return
        out = self._git("cat-file", "--batch", data=("\n".join(oids) + "\n").encode(), timeout=1800)
        pos = 0
        for _ in oids:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].split()
            if len(header) < 3 or header[1] == b"missing":
                raise MirrorError(f"{self.repo}: blob {header[0].decode()} missing")
            size = int(header[2])
            yield header[0].decode(), out[nl + 1:nl + 1 + size]
            pos = nl + 1 + size + 1


def open_mirror(mirrors: Path, repo: str) -> Mirror:
    """The bare mirror of ``repo`` (``owner/name``) in ``mirrors``; MirrorError when absent."""
    base = repo.replace("/", "+")
    for cand in (mirrors / base / "repo", mirrors / base / "repo" / ".git", mirrors / base,
                 mirrors / f"{base}.git"):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return Mirror(repo, cand)
    raise MirrorError(f"no mirror of {repo} in {mirrors} (git clone --mirror "
                      f"https://github.com/{repo} {mirrors}/{base})")


def clone_commands(entries: Iterable[dict], mirrors: str = "MIRRORS") -> list[str]:
    """Shell lines that fill a mirror folder for the ``git`` entries of a recipe."""
    seen: dict[str, str] = {}
    for e in entries:
        if e.get("kind") == "git":
            seen.setdefault(e["repo"], e.get("commit", ""))
    out = []
    for r, c in sorted(seen.items()):
        d = f"{mirrors}/{r.replace('/', '+')}"
        out.append(f"git init -q --bare {d} && git -C {d} fetch -q --depth 1 "
                   f"https://github.com/{r} {c}")
    return out
