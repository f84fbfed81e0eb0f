"""picohead: train, compile and run tiny multi-head byte-level content classifiers.

This package holds data recipes, the two model families, training, evaluation and the click CLI.
Importing it never imports torch: the modules that need torch import it themselves, and only the
``train``/``export`` extras install it. The torch-free runtime lives in ``picohead_runtime``.
"""

from picohead_runtime.spec import HeadSpec, ModelSpec, SpecError, load_spec

__version__ = "0.1.0"
__all__ = ["HeadSpec", "ModelSpec", "SpecError", "load_spec", "__version__"]
