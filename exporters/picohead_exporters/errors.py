"""Exceptions of the compiler (torch-free, so the CLI can catch them without importing torch)."""

from __future__ import annotations

from typing import Any

from picohead_runtime.errors import PicoheadError


class ExportError(PicoheadError, RuntimeError):
    """The export could not be done (bad input, exporter failure); CLI exit code 2."""


class GateError(ExportError):
    """An exported model missed a parity/accuracy gate; nothing was written; CLI exit code 1."""

    def __init__(self, message: str, report: Any = None) -> None:
        super().__init__(message)
        self.report = report
