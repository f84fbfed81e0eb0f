"""Command-line options shared by several ``picohead`` commands: one definition each, so a name
means one thing everywhere. The options ``scan`` shares with ``classify`` come from the runtime's
table (``picohead_runtime.options``) through :func:`shared`. Importing this module imports click
and that table only (no numpy, no onnxruntime, no torch)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from picohead_runtime.options import SharedOption

# --cache of the commands that read manifests (eval, export, add-head, calibrate); train's own
# --cache also names the recipe's cache root.
windows_cache = click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("cache/windows"),
    show_default=True,
    help="Cache of preprocessed windows.",
)

# --tier of the commands that work on a trained run (eval, export).
tier_or_all = click.option(
    "--tier",
    default="all",
    show_default=True,
    help="A tier of the run's spec (by default: tiny, small, base, pro), or 'all'.",
)


def shared(opt: SharedOption, **overrides: Any) -> Callable[[Any], Any]:
    """A click option from the runtime's definition of ``opt`` (the flag, its meaning, its type);
    ``overrides`` set what a command changes (``default``, ``show_default``)."""
    kw: dict[str, Any] = {"help": opt.help}
    if opt.kind == "flag":
        kw["is_flag"] = True
    elif opt.kind == "positive":
        kw["type"] = click.IntRange(min=1)
        kw["default"] = opt.default
    elif opt.kind == "choice":
        kw["type"] = click.Choice(list(opt.choices))
        kw["default"] = opt.default
    else:
        kw["default"] = opt.default
    if opt.metavar and opt.kind != "flag":
        kw["metavar"] = opt.metavar
    kw.update(overrides)
    return click.option(opt.flag, opt.dest, **kw)
