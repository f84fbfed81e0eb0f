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
