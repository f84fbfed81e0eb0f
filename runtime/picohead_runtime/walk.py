"""Walking the paths a command is given: arguments in order, folders listed recursively and sorted.

Shared by ``classify`` (``picohead_runtime.cli``) and ``scan`` (``picohead_runtime.scale.scan``).
Every path given or met yields exactly one item: a path to classify, or a
:class:`~picohead_runtime.io.ListingError` for a folder that could not be listed. What it does not
do: open or read files (``picohead_runtime.io``), or follow symlinks unless asked.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Iterator

from picohead_runtime.formats import human_path
from picohead_runtime.io import ListingError

log = logging.getLogger("picohead_runtime")
STDIN = "-"  # the argument that reads stdin; never walked


def expand(
    paths: Iterable[str], *, recursive: bool, follow_symlinks: bool
) -> Iterator[str | ListingError]:
    """Arguments in order; with ``recursive``, each folder's files (sorted). Symlinks are not
    followed unless asked; a symlinked folder is then listed itself (its result says why). A
    folder that cannot be listed is a :class:`~picohead_runtime.io.ListingError`, so every path
    given or met yields exactly one result."""
    for arg in paths:
        if recursive and arg != STDIN and _is_dir(arg, follow_symlinks):
            yield from _walk(arg, follow_symlinks)
        else:
            yield arg


def _is_dir(path: str, follow: bool) -> bool:
    try:
        st = os.stat(path, follow_symlinks=follow)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode)


def _walk(top: str, follow: bool) -> Iterator[str | ListingError]:
    failed: list[ListingError] = []

    def onerror(e: OSError) -> None:  # called inside os.walk's next(), before it moves on
        path = os.fsdecode(e.filename) if e.filename is not None else top
        log.warning("cannot list %s: %s", human_path(path), e.strerror)
        failed.append(ListingError.from_error(e, path))

    for dirpath, dirs, files in os.walk(top, onerror=onerror, followlinks=follow):
        yield from failed
        failed.clear()
        dirs.sort()
        names = list(files)
        if not follow:  # report symlinked folders (as not followed) instead of skipping silently
            names += [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]
        for name in sorted(names):
            yield os.path.join(dirpath, name)
    yield from failed
