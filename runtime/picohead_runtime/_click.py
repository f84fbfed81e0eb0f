"""Click wrappers so the ``picohead`` group can list ``classify`` and ``bench``.

Each wrapper hands its arguments, untouched, to the argparse implementation in
``picohead_runtime.cli`` / ``picohead_runtime.bench``, so ``picohead classify`` and
``python -m picohead_runtime`` accept exactly the same flags. Only the ``picohead`` package (which
depends on click) imports this module; the runtime itself never needs click.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import click


class _PassThrough(click.Command):
    """A click command that keeps its raw arguments (``--help`` included) for argparse."""

    def __init__(
        self, name: str, run: Callable[[Sequence[str] | None, str], int], help: str
    ) -> None:
        super().__init__(name, help=help, add_help_option=False, callback=None)
        self._run = run

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["picohead_raw_args"] = list(args)
        return []

    def invoke(self, ctx: click.Context) -> Any:
        from picohead_runtime.cli import guarded, silence_stdout

        prog = f"{ctx.parent.info_name if ctx.parent else 'picohead'} {self.name}"
        code = guarded(self._run, ctx.meta.get("picohead_raw_args", []), prog)
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except (OSError, ValueError):  # already reported (exit 2) or a reader that left
            silence_stdout()
        ctx.exit(code)


def _classify(argv: Sequence[str] | None, prog: str) -> int:
    from picohead_runtime.cli import main

    return main(argv, prog=prog)


def _bench(argv: Sequence[str] | None, prog: str) -> int:
    from picohead_runtime.bench import main

    return main(argv, prog=prog)


classify_cmd = _PassThrough(
    "classify",
    _classify,
    "Classify files: every head's label, score and top-k (same as python -m picohead_runtime).",
)
bench_cmd = _PassThrough(
    "bench",
    _bench,
    "Measure warm per-file latency and files/s; exit 1 when a percentile exceeds --budget-ms.",
)
