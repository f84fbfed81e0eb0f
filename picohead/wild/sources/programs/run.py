"""Running programs: ``Runner`` (timeouts, nice, a cache of outputs and failures) and one task.

The cache is keyed by the program's package version, the job's argv template and the input hash,
so a rerun runs nothing. What it does not do: check an output's signature (``jobs.expect_ok``) or
decide which inputs and options a task gets (the build draws them).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from picohead.wild.sources.programs.inputs import EPOCH, Input, _sha
from picohead.wild.sources.programs.jobs import render

log = logging.getLogger(__name__)

TIMEOUT = 60
WORKERS = 2
MAX_OUT = 16 * 1024 * 1024


class Runner:
    """Runs argv with timeouts, nice and a cache keyed by (version, argv template, input hashes)."""

    def __init__(self, cache: Path, versions: dict[str, str]):
        self.cache = cache
        self.versions = versions
        cache.mkdir(parents=True, exist_ok=True)
        self.ran = 0
        self.hits = 0

    def cached(self, key: str) -> tuple[bool, bytes | None]:
        p = self.cache / key[:2] / key
        if p.with_suffix(".fail").exists():
            return True, None
        if p.exists():
            return True, p.read_bytes()
        return False, None

    def store(self, key: str, data: bytes | None) -> None:
        p = self.cache / key[:2] / key
        p.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            p.with_suffix(".fail").write_text("")
        else:
            tmp = p.with_suffix(f".{os.getpid()}.{threading_id()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, p)

    def __call__(
        self,
        prog: str,
        argv: list[str],
        *,
        stdout: bool = False,
        key_extra: str = "",
        steps: list[list[str]] | None = None,
        out: Path | None = None,
        cwd: str | None = None,
        stdin: Path | None = None,
        out_glob: str | None = None,
        tmp: Path | None = None,
        ok_rc: tuple[int, ...] = (0,),
    ) -> bytes | None:
        # the key is the job's template (paths as IN/OUT/TMP) when given, else the argv itself
        key = _sha(json.dumps([self.versions.get(prog, ""), key_extra or (steps or argv)]).encode())
        hit, data = self.cached(key)
        if hit:
            self.hits += 1
            return data
        data = None
        own_tmp = tmp is None
        tmpdir = Path(tempfile.mkdtemp(prefix="pw-")) if own_tmp else tmp
        assert tmpdir is not None
        try:
            data = self._exec(steps or [argv], stdout, out, cwd, stdin, out_glob, tmpdir, ok_rc)
        finally:
            if own_tmp:
                shutil.rmtree(tmpdir, ignore_errors=True)
        self.ran += 1
        self.store(key, data)
        return data

    def _exec(
        self,
        steps: list[list[str]],
        stdout: bool,
        out: Path | None,
        cwd: str | None,
        stdin: Path | None,
        out_glob: str | None,
        tmp: Path,
        ok_rc: tuple[int, ...],
    ) -> bytes | None:
        env = {
            **os.environ,
            "LC_ALL": "C.UTF-8",
            "SOURCE_DATE_EPOCH": str(EPOCH),
            "HOME": str(tmp),
            "TZ": "UTC",
            "MAGICK_THREAD_LIMIT": "1",
            "OMP_NUM_THREADS": "1",
        }
        res = b""
        for argv in steps:
            try:
                fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
                try:
                    p = subprocess.run(
                        ["nice", "-n", "10", *argv],
                        stdin=fin,
                        capture_output=True,
                        timeout=TIMEOUT,
                        cwd=cwd or tmp,
                        env=env,
                    )
                finally:
                    if stdin:
                        fin.close()  # type: ignore[union-attr]
            except (OSError, subprocess.TimeoutExpired) as e:
                log.debug("%s: %s", argv[0], e)
                return None
            if p.returncode not in ok_rc:
                log.debug(
                    "%s failed (%d): %s",
                    " ".join(argv),
                    p.returncode,
                    p.stderr.decode(errors="replace")[-300:],
                )
                return None
            res = p.stdout
        if stdout:
            return res if res else None
        # an empty output is no output: enscript, given a missing input, writes an empty file and
        # exits 0, and such files were cached as made (24 wild files lost to a relative --cache)
        if out_glob:
            hits = sorted(glob.glob(str(tmp / out_glob)))
            hits = [h for h in hits if Path(h).is_file() and not h.endswith(".in")]
            return (Path(hits[0]).read_bytes()[:MAX_OUT] or None) if hits else None
        if out is not None and out.is_file():
            return out.read_bytes()[:MAX_OUT] or None
        return None


def threading_id() -> int:
    import threading

    return threading.get_ident()


def package_versions(pkgs: list[str]) -> dict[str, str]:
    """apt package -> installed version (dpkg-query), absent packages left out."""
    try:
        p = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Package} ${Version}\n", *pkgs],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return dict(line.split(" ", 1) for line in p.stdout.splitlines() if " " in line)


def run_task(
    runner: Runner,
    name: str,
    job: dict[str, Any],
    t: tuple[int, Input, dict[str, list[str]], str],
) -> tuple[int, Input, str, bytes | None]:
    """Run one drawn task of ``job`` (program ``name``) in its own temporary folder."""
    i, inp, vals, shown = t
    tmp = Path(tempfile.mkdtemp(prefix="pw-"))
    try:
        src = inp.path
        if job.get("copy_in"):
            src = tmp / ("in" + "".join(inp.path.suffixes[-1:]) or ".bin")
            shutil.copyfile(inp.path, src)
        ext = job["ext"]
        out = tmp / ("out." + ext if ext else "out")
        paths = {"in": str(src), "out": str(out), "tmp": str(tmp)}
        steps = [
            render(s, vals, inp, paths, job.get("glob_args", False))
            for s in (job.get("steps") or [job["cmd"]])
        ]
        tmpl = [
            render(s, vals, inp, {"in": "IN", "out": "OUT", "tmp": "TMP"})
            for s in (job.get("steps") or [job["cmd"]])
        ]
        cwd = render([job["cwd"]], vals, inp, paths)[0] if job.get("cwd") else None
        data = runner(
            name,
            [],
            steps=steps,
            key_extra=f"{job['id']}.{job['ext']}:{inp.sha}:{i}:{json.dumps(tmpl)}",
            stdout=job.get("stdout", False),
            out=out,
            cwd=cwd,
            stdin=inp.path if job.get("stdin") else None,
            out_glob=job.get("out_glob"),
            tmp=tmp,
            ok_rc=tuple(job.get("ok_rc", [0])),
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return i, inp, shown, data
