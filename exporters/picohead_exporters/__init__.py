"""picohead_exporters: compile trained picohead tiers into single-file, verified ONNX models.

``export_module(module, spec, tier, reference=..., data=..., metrics=..., ...)`` exports one tier
given as a torch module (``picohead.export`` builds it from a trained model or run);
``inspect_model(path)`` reads a file's embedded metadata back. This package never imports
``picohead``; importing it does not import torch (the export functions import it when called).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from picohead_exporters.errors import ExportError, GateError

if TYPE_CHECKING:
    from picohead_exporters.export import ExportReport, export_module
    from picohead_exporters.inspect import inspect_model

_LAZY = {
    "ExportReport": "picohead_exporters.export",
    "export_module": "picohead_exporters.export",
    "inspect_model": "picohead_exporters.inspect",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'picohead_exporters' has no attribute {name!r}")


__all__ = ["ExportError", "GateError", "ExportReport", "export_module", "inspect_model"]
