"""Every benchmark script answers --help in a fresh process: an import error or a renamed helper
in a script nobody ran this week shows here, not in the session that needs the script."""
from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
# Modules other scripts import; they have no command line of their own.
LIBRARIES = {"compare_maps.py", "compare_report.py", "wild_maps.py"}
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name not in LIBRARIES)


def _help(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / name), "--help"], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def helps() -> dict[str, subprocess.CompletedProcess[str]]:
    with ThreadPoolExecutor(4) as pool:
        return dict(zip(SCRIPTS, pool.map(_help, SCRIPTS)))


@pytest.mark.parametrize("name", SCRIPTS)
def test_help(helps: dict[str, subprocess.CompletedProcess[str]], name: str) -> None:
    r = helps[name]
    assert r.returncode == 0 and "usage" in r.stdout.lower(), r.stderr[-2000:]


def test_the_library_modules_are_still_libraries() -> None:
    assert LIBRARIES <= {p.name for p in BENCH.glob("*.py")}  # a renamed one leaves this list
