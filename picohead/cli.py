"""The ``picohead`` command line: a thin click group that loads each subcommand lazily.

Subcommands live next to the code they drive and are imported only when used, so ``picohead
--help`` stays fast and never imports torch. This module (and the command functions) own every exit
code: 0 success, 1 a check failed, 2 a usage or runtime error. An exception that no command turned
into its own message still ends as one line on stderr and exit 2, never a traceback
(``PICOHEAD_DEBUG=1`` shows it).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import Any

import click

# name -> "module:attribute"; each module must not import torch at import time.
COMMANDS: dict[str, str] = {
    "train": "picohead.train_cli:train_cmd",
    "eval": "picohead.train_cli:eval_cmd",
    "add-head": "picohead.train_cli:add_head_cmd",
    "calibrate": "picohead.train_cli:calibrate_cmd",
    "data": "picohead.data.cli:data",
    "classify": "picohead_runtime._click:classify_cmd",
    "bench": "picohead_runtime._click:bench_cmd",
    "export": "picohead.export_cli:export_cmd",
    "inspect": "picohead_exporters.cli:inspect_cmd",
    "scan": "picohead.scan_cli:scan_cmd",
}


class LazyGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main (which handles usage errors, ``--help``, EPIPE) with a last safety net."""
        from picohead_runtime.cli import describe_error, silence_stdout

        try:
            return super().main(*args, **kwargs)
        except Exception as e:  # standalone mode re-raises what click does not know
            if os.environ.get("PICOHEAD_DEBUG") or kwargs.get("standalone_mode") is False:
                raise
            if isinstance(e, OSError):
                silence_stdout()
            name = kwargs.get("prog_name") or "picohead"
            try:
                print(
                    f"{name}: error: {describe_error(e)} (PICOHEAD_DEBUG=1 shows the traceback)",
                    file=sys.stderr,
                )
            except (OSError, ValueError, AttributeError):
                pass
            sys.exit(2)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module, _, attr = COMMANDS[cmd_name].partition(":")
            cmd = getattr(importlib.import_module(module), attr)
            assert isinstance(cmd, click.Command)
            return cmd
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="picohead")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-vv for debug).")
def main(verbose: int) -> None:
    """Train, compile and run tiny multi-head byte-level content classifiers."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
