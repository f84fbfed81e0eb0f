"""Reading a file's window safely, with every failure mapped to a result status.

What it does: open a path without blocking and without following symlinks (unless asked), refuse
anything that is not a regular file, read only the head and tail windows (two positioned reads,
never the whole file; a file whose size says 0, such as ``/proc/self/status``, is read as a stream
within ``picohead_runtime.windows.STREAM_LIMIT``) and turn each ``OSError`` into one of the
statuses a result can carry. It never writes anything. What it does not do: decide labels (``picohead_runtime.decode``) or run the
model (``picohead_runtime.classifier``).

A scan of a million files must never die on one, so :func:`read_path` does not raise for I/O
problems; it returns ``(status, window, message)``.
"""

from __future__ import annotations

import errno
import os
import stat
from enum import Enum
from typing import NamedTuple

from picohead_runtime.windows import STREAM_LIMIT, NotRegularFileError, open_regular, read_fd


class Status(str, Enum):
    """Every status a result can carry; ``ok`` is the only one with predictions. A ``str``: each
    member equals, prints and serialises (JSON, Parquet) as its plain string value."""

    OK = "ok"
    EMPTY = "empty"
    NOT_FOUND = "not_found"
    PERMISSION_DENIED = "permission_denied"
    IS_DIRECTORY = "is_directory"
    NOT_REGULAR_FILE = "not_regular_file"
    READ_ERROR = "read_error"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


OK = Status.OK
EMPTY = Status.EMPTY
NOT_FOUND = Status.NOT_FOUND
PERMISSION_DENIED = Status.PERMISSION_DENIED
IS_DIRECTORY = Status.IS_DIRECTORY
NOT_REGULAR_FILE = Status.NOT_REGULAR_FILE
READ_ERROR = Status.READ_ERROR
STATUSES = tuple(Status)
# The statuses of a path that could not be read at all (the CLI's --strict fails on these);
# ``empty`` and ``not_regular_file`` (FIFOs, devices, unfollowed symlinks) are read as intended.
UNREAD = (NOT_FOUND, PERMISSION_DENIED, IS_DIRECTORY, READ_ERROR)


class ListingError(NamedTuple):
    """A folder that could not be listed while walking a tree: it gets a result of its own
    (``status`` from :func:`status_for_error`), so a walk yields one record per path it met."""

    path: str
    status: str
    message: str

    @classmethod
    def from_error(cls, e: OSError, path: str) -> ListingError:
        status, message = status_for_error(e, path)
        if status == NOT_REGULAR_FILE:
            status = READ_ERROR
        return cls(path, status, f"cannot list this folder: {message}")


PathLike = str | bytes | os.PathLike


def read_path(
    path: PathLike,
    head: int,
    tail: int,
    *,
    follow_symlinks: bool = False,
    stream_limit: int = STREAM_LIMIT,
    skip_nul: int = 0,
) -> tuple[str, bytes | None, str | None]:
    """``(status, window, message)`` for ``path``; ``window`` is set only when status is ``ok``
    (its ``message`` is then None, or says that a size-0 file was cut short at ``stream_limit``)."""
    try:
        fd = open_regular(path, follow_symlinks=follow_symlinks)
    except OSError as e:
        status, message = status_for_error(e, path, follow_symlinks=follow_symlinks)
        return status, None, message
    try:
        got = read_fd(fd, head, tail, limit=stream_limit, skip_nul=skip_nul)
    except OSError as e:  # EIO on a bad disk, EISDIR on odd filesystems, EAGAIN, ...
        status, message = status_for_error(e, path, follow_symlinks=follow_symlinks)
        return status, None, message
    finally:
        os.close(fd)
    if not got.window:
        return EMPTY, None, None
    return OK, got.window, got.message


def status_for_error(
    e: OSError, path: PathLike, *, follow_symlinks: bool = False
) -> tuple[str, str]:
    """Map an ``OSError`` from opening or reading ``path`` to ``(status, message)``."""
    reason = e.strerror or str(e) or type(e).__name__
    if isinstance(e, NotRegularFileError):
        return NOT_REGULAR_FILE, _kind_message(path)
    if isinstance(e, IsADirectoryError) or e.errno == errno.EISDIR:
        return IS_DIRECTORY, "is a directory"
    if isinstance(e, FileNotFoundError) or e.errno in (errno.ENOENT, errno.ENOTDIR):
        return NOT_FOUND, reason
    if isinstance(e, PermissionError) or e.errno in (errno.EACCES, errno.EPERM):
        return PERMISSION_DENIED, reason
    if e.errno == errno.ELOOP:
        # O_NOFOLLOW reports every symlink as ELOOP; a real loop only when following.
        if not follow_symlinks and _is_symlink(path):
            return NOT_REGULAR_FILE, "is a symbolic link (not followed; use --follow-symlinks)"
        return READ_ERROR, "too many levels of symbolic links"
    if e.errno in (errno.ENXIO, errno.ENODEV):  # a socket or a device without a driver
        return NOT_REGULAR_FILE, reason
    return READ_ERROR, reason


def _is_symlink(path: PathLike) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _kind_message(path: PathLike) -> str:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "not a regular file"
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return f"is {name}, not a regular file"
    return "not a regular file"
