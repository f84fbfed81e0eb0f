"""picohead-runtime: classify content with exported picohead models, using only numpy and onnxruntime.

>>> from picohead_runtime import Classifier
>>> clf = Classifier("path/to/content-v1", tier="tiny")     # doctest: +SKIP
>>> clf.classify_path("setup.py").asdict()                  # doctest: +SKIP

This package never imports torch or onnx. Names are loaded lazily, so that training code importing
``picohead_runtime.spec`` does not pay for importing onnxruntime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Classifier": "picohead_runtime.classifier",
    "STATUSES": "picohead_runtime.io",
    "Status": "picohead_runtime.io",
    "PicoheadError": "picohead_runtime.errors",
    "ENV_MODEL": "picohead_runtime.model",
    "ModelError": "picohead_runtime.model",
    "bundled_models": "picohead_runtime.model",
    "UNKNOWN": "picohead_runtime.results",
    "HeadResult": "picohead_runtime.results",
    "MultilabelResult": "picohead_runtime.results",
    "Result": "picohead_runtime.results",
    "ModelSpec": "picohead_runtime.spec",
    "SpecError": "picohead_runtime.spec",
}

if TYPE_CHECKING:
    from picohead_runtime.classifier import Classifier
    from picohead_runtime.errors import PicoheadError
    from picohead_runtime.io import STATUSES, Status
    from picohead_runtime.model import ENV_MODEL, ModelError, bundled_models
    from picohead_runtime.results import UNKNOWN, HeadResult, MultilabelResult, Result
    from picohead_runtime.spec import ModelSpec, SpecError


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'picohead_runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "ENV_MODEL",
    "STATUSES",
    "UNKNOWN",
    "Classifier",
    "HeadResult",
    "ModelError",
    "ModelSpec",
    "MultilabelResult",
    "PicoheadError",
    "Result",
    "SpecError",
    "Status",
    "__version__",
    "bundled_models",
]
