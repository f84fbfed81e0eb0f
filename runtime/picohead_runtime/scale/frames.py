"""pandas in, pandas out: the one batch function that Dask partitions, Ray batches and Spark's
``mapInPandas`` all call.

:class:`FrameClassifier` is a small picklable callable holding a :class:`ScaleConfig` and which
column to read. Calling it on a pandas DataFrame classifies that column (file paths read on the
worker, or file contents as bytes) and returns a DataFrame of result columns with the same index.
Pickling it never carries an onnxruntime session: the session lives in the per-process cache of
:mod:`picohead_runtime.scale.batch`, which the pickle does not reach.

What it does not do: import pandas at import time (pandas comes with the engines, not the runtime).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from picohead_runtime.scale.batch import (
    ScaleConfig,
    classifier_for,
    classify_batch,
    output_columns,
    result_columns,
)

if TYPE_CHECKING:
    import pandas as pd

INPUTS = ("paths", "bytes")


class FrameClassifier:
    """Classify one pandas DataFrame: ``frame[column]`` holds paths (``input="paths"``, str or
    bytes from ``os.fsencode``) or contents (``input="bytes"``, with an optional ``name_column``
    that becomes the results' ``path``). Defaults: column ``"path"`` for paths, ``"bytes"`` for
    contents (the names Ray's ``read_binary_files(include_paths=True)`` uses)."""

    def __init__(
        self,
        config: ScaleConfig,
        *,
        input: str = "paths",
        column: str | None = None,
        name_column: str | None = None,
    ) -> None:
        if input not in INPUTS:
            raise ValueError(f"input must be one of {', '.join(INPUTS)}, got {input!r}")
        if input == "paths" and name_column is not None:
            raise ValueError("name_column is for input='bytes'; paths name their own results")
        self.config = config
        self.input = input
        self.column = column or ("path" if input == "paths" else "bytes")
        self.name_column = name_column

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(input={self.input!r}, column={self.column!r}, "
            f"model={self.config.model!r}, tier={self.config.tier!r})"
        )

    def __getstate__(self) -> dict[str, Any]:
        # Only plain settings travel; say so explicitly so a later attribute cannot sneak a
        # session into the pickle.
        return {
            "config": self.config,
            "input": self.input,
            "column": self.column,
            "name_column": self.name_column,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def columns(self) -> list[str]:
        """Output column names (loads this process's classifier to read the model's heads)."""
        return output_columns(classifier_for(self.config).spec)

    def ddl_schema(self) -> str:
        """The output schema as a Spark DDL string, for ``mapInPandas(fn, schema=...)``."""
        return ", ".join(f"`{c}` {'boolean' if c == 'ok' else 'string'}" for c in self.columns())

    def map_frames(self, frames: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        """Each frame classified in turn: the function for Spark's ``mapInPandas``."""
        for frame in frames:
            yield self(frame)

    def empty(self) -> pd.DataFrame:
        """A zero-row output frame with the right columns and dtypes (Dask's ``meta``)."""
        return _frame({c: [] for c in self.columns()}, None)

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        if self.column not in frame.columns:
            raise KeyError(
                f"no column {self.column!r} in this batch (columns: {', '.join(map(str, frame.columns))}); "
                f"pass column= to say which column holds the {self.input}"
            )
        values = [_none(v) for v in frame[self.column].tolist()]
        if self.input == "paths":
            bad = [v for v in values if not isinstance(v, (str, bytes, os.PathLike, type(None)))]
            if bad:
                raise TypeError(
                    f"path column {self.column!r} holds {type(bad[0]).__name__}, not str"
                )
            results = classify_batch(self.config, paths=values)
        else:
            names = None
            if self.name_column is not None:
                names = [_none(v) for v in frame[self.name_column].tolist()]
            results = classify_batch(self.config, data=values, names=names)
        spec = classifier_for(self.config).spec
        return _frame(result_columns(results, spec), frame.index)


def _none(v: Any) -> Any:
    """Missing values in pandas columns (None, NaN, pd.NA) as None."""
    if v is None:
        return None
    if isinstance(v, float) and v != v:
        return None
    if type(v).__name__ == "NAType":
        return None
    return v


def _frame(cols: dict[str, list[Any]], index: Any) -> pd.DataFrame:
    """Result columns as a DataFrame with fixed dtypes: ``ok`` bool, the rest object (str/None),
    so every partition and the Dask ``meta`` agree whatever pandas infers for strings."""
    import pandas as pd

    data = {
        c: pd.Series(v, dtype=bool if c == "ok" else object, index=index) for c, v in cols.items()
    }
    return pd.DataFrame(data, index=index)
