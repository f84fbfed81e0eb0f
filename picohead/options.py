"""Command-line options shared by several ``picohead`` commands: one definition each, so a name
means one thing everywhere. Importing this module imports click only."""

from __future__ import annotations

from pathlib import Path

import click

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
