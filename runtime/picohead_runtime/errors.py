"""The root of every picohead error, and the command line's own errors.

Every exception class picohead defines derives from :class:`PicoheadError`, so a caller (a command,
a service) can catch picohead's failures in one clause and let everything else through. The
concrete classes keep the builtin bases they always had (``SpecError`` is still a ``ValueError``,
``ModelError`` a ``RuntimeError``), so existing ``except`` clauses keep working. What it does not
hold: I/O problems of single files, which are statuses on results (``picohead_runtime.io``), not
exceptions.
"""

from __future__ import annotations


class PicoheadError(Exception):
    """Root of picohead's exceptions (runtime, training, export, corpus building)."""


class UsageError(PicoheadError):
    """A flag value that argparse cannot check by itself; exit code 2."""


class OutputError(PicoheadError):
    """Results could not be written (a full disk, a closed stdout); exit code 2."""


class InputError(PicoheadError):
    """stdin could not be read (closed, or failing); exit code 2."""
