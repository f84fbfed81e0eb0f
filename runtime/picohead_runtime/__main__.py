"""``python -m picohead_runtime [flags] PATH...``: classify files (no subcommand word).

The same flags and implementation as ``picohead classify`` (see ``picohead_runtime.cli``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    from picohead_runtime.cli import guarded
    from picohead_runtime.cli import main as classify_main

    prog = (
        "python -m picohead_runtime"
        if argv is None and sys.argv[0].endswith("__main__.py")
        else None
    )
    sys.exit(guarded(classify_main, argv, prog or "picohead-runtime"))


if __name__ == "__main__":
    main()
