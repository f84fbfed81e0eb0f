"""Every command answers --help in a fresh process (catches import errors and torch at import)."""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from picohead.cli import COMMANDS

ENTRY_POINTS = [
    ["-m", "picohead", "--help"],
    *[["-m", "picohead", name, "--help"] for name in sorted(COMMANDS)],
    ["-m", "picohead_runtime", "--help"],
    ["-m", "picohead_runtime.bench", "--help"],
]


def _run(args):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def helps():
    with ThreadPoolExecutor(4) as pool:
        return dict(zip(map(tuple, ENTRY_POINTS), pool.map(_run, ENTRY_POINTS)))


@pytest.mark.parametrize("args", ENTRY_POINTS, ids=lambda a: " ".join(a[1:]))
def test_help(helps, args):
    r = helps[tuple(args)]
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower()


def test_runtime_help_matches_picohead_classify(helps):
    """One implementation: the same flags under both names."""
    a = helps[("-m", "picohead", "classify", "--help")].stdout
    b = helps[("-m", "picohead_runtime", "--help")].stdout
    flags = [
        "--jsonl",
        "--json",
        "--tier",
        "--model",
        "--device",
        "--threads",
        "--top-k",
        "--fail-on",
        "-r",
    ]
    for flag in flags:
        assert flag in a and flag in b
    assert a.split("options:")[1] == b.split("options:")[1]


def test_scan_shares_classifys_option_definitions():
    """The seven options scan shares with classify come from one table: same flag, same meaning
    (scan only sets its own --batch-size default)."""
    pytest.importorskip("click")
    from picohead.scan_cli import scan_cmd
    from picohead_runtime.options import BATCH_SIZE, SHARED

    params = {p.opts[-1]: p for p in scan_cmd.params if p.opts[-1].startswith("--")}
    for opt in SHARED:
        assert opt.flag in params, opt.flag
        if opt is not BATCH_SIZE:
            assert params[opt.flag].help == opt.help, opt.flag
