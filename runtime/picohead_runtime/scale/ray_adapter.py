"""Ray Data: classify a Dataset of paths or bytes on an actor pool with ``map_batches``.

>>> import ray
>>> from picohead_runtime.scale import ScaleConfig
>>> from picohead_runtime.scale.ray_adapter import classify_dataset, paths_dataset
>>> ray.init(num_cpus=2)                                                    # doctest: +SKIP
>>> cfg = ScaleConfig(model="models/content-v1", tier="small")              # doctest: +SKIP
>>> out = classify_dataset(paths_dataset(paths), cfg, actors=2)            # doctest: +SKIP
>>> out.write_parquet("results/")                                           # doctest: +SKIP

Contents instead of paths: ``ray.data.read_binary_files(root, include_paths=True)`` gives
``bytes`` and ``path`` columns; pass ``input="bytes", name_column="path"`` (this reads whole
files; paths mode reads only the head and tail windows, so prefer it on a shared file system).

Each actor builds its classifier once (in its constructor) and keeps it for every batch; only a
:class:`~picohead_runtime.scale.ScaleConfig` is pickled. Actors ask for a *fraction* of a CPU
(``cpus_per_actor=0.5`` by default): with ``num_cpus=2``, two actors asking for a whole CPU each
leave nothing for the read tasks that feed them, and the pipeline waits forever. A fraction is a
scheduling promise only; inference still uses one core per actor (``ScaleConfig(threads=1)``).

Needs ``pip install 'picohead-runtime[ray]'``; ray is imported only when these functions run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from picohead_runtime.scale.batch import ScaleConfig, aligned, classifier_for
from picohead_runtime.scale.frames import FrameClassifier

if TYPE_CHECKING:
    import ray.data

DEFAULT_CPUS_PER_ACTOR = 0.5


def _ray_data() -> Any:
    try:
        import ray.data
    except ImportError as e:
        raise ImportError("the Ray adapter needs ray: pip install 'picohead-runtime[ray]'") from e
    return ray.data


class RayClassifier(FrameClassifier):
    """The callable class for ``Dataset.map_batches(RayClassifier, batch_format="pandas", ...)``.

    Constructor keywords are :class:`FrameClassifier`'s; the model is loaded in the constructor,
    that is once per actor, before the first batch arrives.
    """

    def __init__(
        self,
        config: ScaleConfig,
        *,
        input: str = "paths",
        column: str | None = None,
        name_column: str | None = None,
    ) -> None:
        super().__init__(config, input=input, column=column, name_column=name_column)
        classifier_for(config)


def classify_dataset(
    ds: ray.data.Dataset,
    config: ScaleConfig,
    *,
    input: str = "paths",
    column: str | None = None,
    name_column: str | None = None,
    actors: int = 2,
    cpus_per_actor: float = DEFAULT_CPUS_PER_ACTOR,
    batch_size: int | None = None,
) -> ray.data.Dataset:
    """A lazy Dataset of result columns: ``actors`` actors, ``cpus_per_actor`` CPUs each,
    ``batch_size`` rows per call (default: about 512, a multiple of the config's batch size)."""
    ray_data = _ray_data()
    if actors < 1:
        raise ValueError(f"actors must be at least 1, got {actors}")
    if not 0 < cpus_per_actor:
        raise ValueError(f"cpus_per_actor must be positive, got {cpus_per_actor}")
    return ds.map_batches(
        RayClassifier,
        fn_constructor_kwargs={
            "config": config,
            "input": input,
            "column": column,
            "name_column": name_column,
        },
        batch_format="pandas",
        batch_size=batch_size or aligned(512, config.batch_size),
        compute=ray_data.ActorPoolStrategy(size=actors),
        num_cpus=cpus_per_actor,
    )


def paths_dataset(
    paths: Sequence[str | bytes | os.PathLike], *, block_size: int | None = None
) -> ray.data.Dataset:
    """A Dataset with one ``path`` column (``os.fsencode`` bytes: any file name survives), in
    blocks of ``block_size`` rows (default: Ray decides). Blocks and ``batch_size`` that are
    multiples of the config's batch size give results identical to one process (see
    :func:`picohead_runtime.scale.batch.aligned`)."""
    ray_data = _ray_data()
    import pandas as pd

    encoded = [os.fsencode(p) for p in paths]
    if block_size is None:
        return ray_data.from_items([{"path": p} for p in encoded])
    step = max(1, block_size)
    frames = [
        pd.DataFrame({"path": pd.Series(encoded[i : i + step], dtype=object)})
        for i in range(0, len(encoded), step)
    ]
    return ray_data.from_pandas(frames or [pd.DataFrame({"path": pd.Series([], dtype=object)})])
