"""Dask: classify a dask DataFrame of paths or bytes with ``map_partitions``.

>>> from picohead_runtime.scale import ScaleConfig
>>> from picohead_runtime.scale.dask_adapter import classify_dataframe, paths_dataframe
>>> cfg = ScaleConfig(model="models/content-v1", tier="small")        # doctest: +SKIP
>>> out = classify_dataframe(paths_dataframe(paths, chunksize=4096), cfg)  # doctest: +SKIP
>>> out.to_parquet("results/")                                         # doctest: +SKIP

Each partition is one call of :class:`~picohead_runtime.scale.frames.FrameClassifier` on a worker;
the worker process builds its classifier on the first partition and reuses it (the session is
never pickled). Use processes, one thread each (``LocalCluster(n_workers=N, threads_per_worker=1)``)
and ``ScaleConfig(threads=1)``: inference holds the GIL between model calls.

Bytes columns: Dask converts object columns to pyarrow strings by default, which mangles bytes.
Build dataframes that hold file contents under ``dask.config.set({"dataframe.convert-string":
False})`` (:func:`bytes_dataframe` does). Paths travel as ``os.fsencode`` bytes for the same
reason: a file name that is not valid UTF-8 cannot be an arrow string.

Needs ``pip install 'picohead-runtime[dask]'``; dask is imported only when these functions run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from picohead_runtime.scale.batch import ScaleConfig
from picohead_runtime.scale.frames import FrameClassifier

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd


def _dask() -> Any:
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "the Dask adapter needs dask: pip install 'picohead-runtime[dask]'"
        ) from e
    return dask


def classify_dataframe(
    ddf: dd.DataFrame,
    config: ScaleConfig,
    *,
    input: str = "paths",
    column: str | None = None,
    name_column: str | None = None,
) -> dd.DataFrame:
    """A lazy dask DataFrame of result columns, one row per row of ``ddf`` (same index)."""
    _dask()
    fn = FrameClassifier(config, input=input, column=column, name_column=name_column)
    return ddf.map_partitions(fn, meta=fn.empty())


def paths_dataframe(
    paths: Sequence[str | bytes | os.PathLike],
    *,
    npartitions: int | None = None,
    chunksize: int | None = None,
) -> dd.DataFrame:
    """A dask DataFrame with one ``path`` column (``os.fsencode`` bytes), cut into ``npartitions``
    or into partitions of ``chunksize`` rows. A ``chunksize`` that is a multiple of the config's
    ``batch_size`` gives model calls, and so scores, identical to one process classifying the
    same list (see :func:`picohead_runtime.scale.batch.aligned`)."""
    import pandas as pd

    frame = pd.DataFrame({"path": pd.Series([os.fsencode(p) for p in paths], dtype=object)})
    return _from_pandas(frame, npartitions, chunksize)


def bytes_dataframe(
    data: Sequence[bytes],
    *,
    names: Sequence[str] | None = None,
    npartitions: int | None = None,
    chunksize: int | None = None,
) -> dd.DataFrame:
    """A dask DataFrame with a ``bytes`` column (and ``name`` when given), left as raw bytes."""
    import pandas as pd

    cols: dict[str, Any] = {"bytes": pd.Series(list(data), dtype=object)}
    if names is not None:
        cols["name"] = pd.Series(list(names), dtype=object)
    return _from_pandas(pd.DataFrame(cols), npartitions, chunksize)


def _from_pandas(
    frame: pd.DataFrame, npartitions: int | None, chunksize: int | None
) -> dd.DataFrame:
    if (npartitions is None) == (chunksize is None):
        raise TypeError("pass exactly one of npartitions= or chunksize=")
    dask = _dask()
    import dask.dataframe as dd

    with dask.config.set({"dataframe.convert-string": False}):
        if chunksize is not None:
            return dd.from_pandas(frame, chunksize=max(1, chunksize), sort=False)
        n = max(1, min(npartitions or 1, len(frame) or 1))
        return dd.from_pandas(frame, npartitions=n, sort=False)


def iter_partitions(
    ddf: dd.DataFrame, client: Any, *, in_flight: int | None = None
) -> Iterator[pd.DataFrame]:
    """Computed partitions of ``ddf`` in order, at most ``in_flight`` at once on the cluster
    (default: twice the number of workers), so a huge scan streams instead of piling up."""
    parts = ddf.to_delayed()
    if in_flight is None:
        in_flight = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    pending: list[Any] = []
    for part in parts:
        pending.append(client.compute(part))
        if len(pending) >= in_flight:
            yield pending.pop(0).result()
    for fut in pending:
        yield fut.result()
