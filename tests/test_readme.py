"""Every shell command in README.md's code blocks runs here (issue 24), so a wrong example fails
CI: each ``bash`` block line (and each ``- run:`` line of a CI snippet), split at top-level
``&&``, runs with ``bash -c`` in a sandbox folder holding the files the examples name, with this
environment's ``picohead`` and ``python`` first on PATH. It must exit 0, or 1 when it carries a
check that may fail by design (``--fail-on``, ``--budget-ms``), and never print a traceback.
Also: ``.ci/run`` runs exactly the README's test command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEST_COMMAND = 'pip install torch==2.13.0 && pip install -e ./runtime -e ".[test]" && pytest'

# Commands that cannot run here, each with why. A command is skipped when it starts with one of
# these; every entry must still match a README command (checked below), so the list cannot rot.
SKIP: dict[str, str] = {
    "pip install": "installs packages from the network (.ci/run runs the test command's install)",
    ".venv/bin/pip install": "installs packages from the network",
    "(cd benchmarks/node && npm ci)": "installs node packages from the network",
    "pytest": "the test suite itself (.ci/run runs it)",
    "python3 -m venv /tmp/rt-venv": "installs packages from the network into a new venv",
    "/tmp/rt-venv/bin/pip install": "installs packages from the network into the venv above",
    "/tmp/rt-venv/bin/python -m pytest": "the runtime tests in the venv above",
    "apt-get install": "installs system packages (root, network)",
    "python -m picohead data build": "downloads the corpus sources (network, ~20 minutes)",
    ".venv/bin/python benchmarks/compare.py": "needs a built corpus and the anchors' models",
    "python -m picohead train": "long training on a corpus (the train/eval tests run a toy one)",
    "python -m picohead eval runs/mine": "needs runs/mine from the long training above",
    "python -m picohead export runs/mine": "needs runs/mine from the long training above",
    "python -m picohead inspect models/": "needs the export of runs/mine above",
    "python -m picohead calibrate runs/mine": "needs the export of runs/mine above",
    "picohead scan /data --engine ray --address auto": "joins a running Ray cluster",
}


def readme_commands(text: str) -> list[str]:
    """Shell commands of the README's code blocks, in order."""
    out: list[str] = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S):
        for raw in body.splitlines():
            line = raw.strip()
            if lang == "yaml":
                m = re.match(r"-\s*run:\s*(.+)", line)
                if not m:
                    continue
                line = m.group(1)
            elif lang not in ("bash", "sh", "shell", "console"):
                continue
            line = re.sub(r"\s+#\s.*$", "", line).strip()  # a trailing comment
            if not line or line.startswith("#"):
                continue
            out.extend(_split_and(line))
    return out


def _split_and(line: str) -> list[str]:
    """``a && b`` into ``a``, ``b`` (not inside parentheses or quotes)."""
    parts, depth, quote, cur = [], 0, "", ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif line.startswith("&&", i) and depth == 0:
            parts.append(cur.strip())
            cur, i = "", i + 2
            continue
        cur += c
        i += 1
    parts.append(cur.strip())
    return [p for p in parts if p]


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))


def _skip_reason(cmd: str) -> str | None:
    for prefix, why in SKIP.items():
        if cmd.startswith(prefix):
            return why
    return None


def test_readme_has_commands_and_the_skip_list_is_alive():
    assert len(COMMANDS) > 20
    for prefix in SKIP:
        assert any(_skip_reason(c) and c.startswith(prefix) for c in COMMANDS), (
            f"SKIP entry {prefix!r} matches no README command: remove it"
        )
    assert any(_skip_reason(c) is None for c in COMMANDS)


def test_ci_runs_exactly_the_readme_test_command():
    assert TEST_COMMAND in README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST_COMMAND in ci


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with every file and folder the README's examples name."""
    box = tmp_path_factory.mktemp("readme")
    code = "def main():\n    return 42\n\n\nif __name__ == '__main__':\n    main()\n"
    (box / "setup.py").write_text("from setuptools import setup\n\nsetup(name='demo')\n")
    (box / "logo.png").write_bytes(
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89"
        + bytes(range(256))
    )
    (box / "notes.txt").write_text("Some notes about the project, in plain English.\n" * 5)
    (box / "main.rs").write_text('fn main() {\n    println!("hello");\n}\n')
    (box / "blob").write_bytes(b"#!/bin/sh\necho hello\n")
    for folder in ("src", "repo", "samples", "tests/fixtures"):
        d = box / folder
        d.mkdir(parents=True)
        (d / "app.py").write_text(code)
        (d / "README.md").write_text("# Demo\n\nA small demo project.\n")
    (box / "runtime").symlink_to(ROOT / "runtime")
    return box


def _env() -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.pop("PICOHEAD_MODEL", None)
    return env


@pytest.mark.parametrize("cmd", COMMANDS)
def test_readme_command_runs(cmd, sandbox):
    why = _skip_reason(cmd)
    if why:
        pytest.skip(why)
    assert shutil.which("picohead", path=_env()["PATH"]), "picohead is not installed"
    p = subprocess.run(
        ["bash", "-c", cmd],
        cwd=sandbox,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    allowed = {0, 1} if ("--fail-on" in cmd or "--budget-ms" in cmd) else {0}
    assert p.returncode in allowed, f"{cmd!r} exited {p.returncode}:\n{p.stderr[-2000:]}"
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
