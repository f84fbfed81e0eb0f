"""The private deb-src index is built once, under a lock, and retried (no network: apt stubbed)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from picohead.data import fetch


@pytest.fixture
def apt(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    monkeypatch.setattr(fetch, "_system_apt_uris",
                        lambda: [("http://deb.example/debian", "bookworm", "")])
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    return calls


def test_concurrent_builds_run_one_update(tmp_path: Path, apt: list, monkeypatch) -> None:
    def slow_update(cmd: list[str], cwd=None, timeout: int = 900) -> str:
        apt.append(cmd)
        time.sleep(0.2)
        return ""
    monkeypatch.setattr(fetch, "_run", slow_update)
    threads = [threading.Thread(target=fetch.ensure_src_index, args=(tmp_path,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(apt) == 1 and (tmp_path / "apt" / ".done").exists()
    assert "deb-src http://deb.example/debian bookworm main" in (
        tmp_path / "apt" / "sources.list").read_text()


def test_a_failed_update_is_retried_then_reported(tmp_path: Path, apt: list, monkeypatch) -> None:
    outcomes = iter([fetch.FetchError("Failed to stat InRelease"), None])

    def flaky(cmd: list[str], cwd=None, timeout: int = 900) -> str:
        apt.append(cmd)
        err = next(outcomes)
        if err:
            raise err
        return ""
    monkeypatch.setattr(fetch, "_run", flaky)
    fetch.ensure_src_index(tmp_path)
    assert len(apt) == 2 and (tmp_path / "apt" / ".done").exists()

    def broken(cmd: list[str], cwd=None, timeout: int = 900) -> str:
        raise fetch.FetchError("no route")
    monkeypatch.setattr(fetch, "_run", broken)
    other = tmp_path / "other"
    with pytest.raises(fetch.FetchError, match="after 3 tries"):
        fetch.ensure_src_index(other)
    assert not (other / "apt" / ".done").exists()


def test_apt_runs_unsandboxed_as_root(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fetch.os, "geteuid", lambda: 0)
    assert "APT::Sandbox::User=root" in fetch._apt_src_opts(tmp_path)
    monkeypatch.setattr(fetch.os, "geteuid", lambda: 1000)
    assert "APT::Sandbox::User=root" not in fetch._apt_src_opts(tmp_path)


def test_upstream_tarballs_are_fetched_one_by_one(tmp_path: Path, monkeypatch) -> None:
    import hashlib
    import io

    body = b"upstream tarball bytes"
    sha = hashlib.sha256(body).hexdigest()
    listing = (f"'http://m/p_1.dsc' p_1.dsc 10 SHA256:{'0' * 64}\n"
               f"'http://m/p_1.orig.tar.gz' p_1.orig.tar.gz {len(body)} SHA256:{sha}\n"
               f"'http://m/p_1-1.debian.tar.xz' p_1-1.debian.tar.xz 5 SHA256:{'1' * 64}\n")
    monkeypatch.setattr(fetch, "_run", lambda cmd, cwd=None, timeout=900: listing)
    got = []

    def urlopen(uri, timeout=0):
        got.append(uri)
        return io.BytesIO(body)
    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    fetch._download_upstream(tmp_path, "p", tmp_path)
    assert got == ["http://m/p_1.orig.tar.gz"]  # not the .dsc, not the Debian packaging
    assert fetch._source_tarballs(tmp_path) == [tmp_path / "p_1.orig.tar.gz"]
