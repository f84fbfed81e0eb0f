"""Scale-out helpers: classify millions of files on Ray Data, Dask or Spark workers.

The core (:mod:`picohead_runtime.scale.batch`) imports no engine: a picklable
:class:`ScaleConfig` says which model to load, :func:`classifier_for` keeps one
:class:`~picohead_runtime.Classifier` per worker process (created lazily on first use: an
onnxruntime session cannot be pickled, so only the config ever travels), and
:func:`classify_batch` / :func:`result_columns` turn one batch of paths or byte strings into
plain columns that any dataframe engine can hold.

Engine adapters, each behind an optional extra, import their engine only when used:

- :mod:`picohead_runtime.scale.ray_adapter` (``picohead-runtime[ray]``): a callable class for
  ``Dataset.map_batches`` on an actor pool with fractional CPUs.
- :mod:`picohead_runtime.scale.dask_adapter` (``picohead-runtime[dask]``): ``map_partitions``
  over a dataframe of paths or of bytes.
- Spark needs no adapter: see ``docs/scaling.md`` for the ``mapInPandas`` recipe built on
  :func:`classify_batch`.

:mod:`picohead_runtime.scale.scan` walks directory trees and runs a whole scan on any engine
(what ``picohead scan`` calls).
"""

from __future__ import annotations

from picohead_runtime.scale.batch import (
    BASE_COLUMNS,
    ScaleConfig,
    aligned,
    classifier_for,
    classify_batch,
    clear_cache,
    output_columns,
    result_columns,
)

__all__ = [
    "BASE_COLUMNS",
    "ScaleConfig",
    "aligned",
    "classifier_for",
    "classify_batch",
    "clear_cache",
    "output_columns",
    "result_columns",
]
