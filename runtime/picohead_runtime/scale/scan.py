"""A whole scan: list the files, classify them on one engine, write JSONL or Parquet.

``local`` runs in this process (no extra dependency); ``dask`` and ``ray`` start a local cluster
with ``workers`` single-threaded worker processes, or join a running one (``address``). Every
engine runs the same batch function (:func:`~picohead_runtime.scale.classify_batch`) and the
results come back in input order, so the output does not depend on the engine.

What it does not do: distribute the listing or the writing. Both happen here, on the driver; that
is fine up to tens of millions of files. Beyond, build the Dataset/DataFrame of paths on the
cluster and write with the engine's own writers (``Dataset.write_parquet``,
``DataFrame.to_parquet``) using the adapters directly.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import IO, Any

from picohead_runtime.errors import OutputError
from picohead_runtime.io import ListingError
from picohead_runtime.scale.batch import (
    RESULT_COLUMN,
    ScaleConfig,
    aligned,
    classifier_for,
    classify_batch,
    output_columns,
    result_columns,
)
from picohead_runtime.walk import expand

log = logging.getLogger(__name__)

ENGINES = ("local", "dask", "ray")
FORMATS = ("jsonl", "parquet")
Columns = dict[str, list[Any]]


# -- what to scan -----------------------------------------------------------------------------------
def read_path_list(stream: IO[bytes]) -> Iterator[str]:
    """Paths from a list, one per line (any bytes; blank lines skipped)."""
    for line in stream:
        line = line.rstrip(b"\r\n") if line.endswith(b"\n") else line
        if line:
            yield os.fsdecode(line)


Input = str | ListingError  # a path, or a folder a walk could not list (it gets its own record)


def iter_inputs(
    roots: Sequence[str], *, path_lists: Sequence[IO[bytes]] = (), follow_symlinks: bool = False
) -> Iterator[Input]:
    """Files under each root (folders walked recursively, sorted), then each list's paths."""
    yield from expand(roots, recursive=True, follow_symlinks=follow_symlinks)
    for stream in path_lists:
        yield from read_path_list(stream)


# -- engines ----------------------------------------------------------------------------------------
def _chunks(items: Iterable[Any], n: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(islice(it, n)):
        yield chunk


def _frame_columns(frame: Any) -> Columns:
    return {c: frame[c].tolist() for c in frame.columns}


def scan_local(
    paths: Iterable[Input], config: ScaleConfig, *, chunk: int = 1024
) -> Iterator[Columns]:
    """Classify in this process, about ``chunk`` files at a time, streaming."""
    spec = classifier_for(config).spec
    for part in _chunks(paths, aligned(chunk, config.batch_size)):
        yield result_columns(classify_batch(config, paths=part), spec)


def _partition_rows(n: int, workers: int, most: int, batch_size: int) -> int:
    """Rows per partition: at least 4 partitions per worker (to balance the tail), at most
    ``most`` rows each, always a multiple of ``batch_size`` (results identical to one process)."""
    return aligned(min(most, -(-n // (4 * workers))), batch_size)


def scan_dask(
    paths: Sequence[str],
    config: ScaleConfig,
    *,
    workers: int = 2,
    address: str | None = None,
    per_partition: int = 4096,
) -> Iterator[Columns]:
    """Classify on a Dask cluster: ``address`` to join one, else a local one with ``workers``
    single-threaded worker processes (closed at the end)."""
    from picohead_runtime.scale.dask_adapter import (
        classify_dataframe,
        iter_partitions,
        paths_dataframe,
    )

    if not paths:
        return
    with _dask_client(workers, address) as client:
        rows = _partition_rows(len(paths), workers, per_partition, config.batch_size)
        ddf = paths_dataframe(paths, chunksize=rows)
        for frame in iter_partitions(classify_dataframe(ddf, config), client):
            yield _frame_columns(frame)


@contextmanager
def _dask_client(workers: int, address: str | None) -> Iterator[Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ImportError(
            "--engine dask needs dask.distributed: pip install 'picohead-runtime[dask]'"
        ) from e
    if address:
        with Client(address) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # a free port: never clash with another cluster
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def scan_ray(
    paths: Sequence[str],
    config: ScaleConfig,
    *,
    workers: int = 2,
    address: str | None = None,
    cpus_per_worker: float | None = None,
    per_block: int = 4096,
) -> Iterator[Columns]:
    """Classify on Ray Data with ``workers`` actors: ``address`` to join a cluster, else a local
    one with ``os.cpu_count()`` CPUs (Ray is shut down at the end only if this call started it)."""
    from picohead_runtime.scale.ray_adapter import (
        DEFAULT_CPUS_PER_ACTOR,
        classify_dataset,
        paths_dataset,
    )

    if not paths:
        return
    import ray

    started = False
    if not ray.is_initialized():
        ray.init(
            address=address,
            num_cpus=None if address else os.cpu_count(),
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            configure_logging=False,
        )
        started = True
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True  # results in input order, like the others
        ctx.enable_progress_bars = False
        rows = _partition_rows(len(paths), workers, per_block, config.batch_size)
        out = classify_dataset(
            paths_dataset(paths, block_size=rows),
            config,
            actors=min(workers, -(-len(paths) // rows)),  # no idle actors for a short list
            cpus_per_actor=cpus_per_worker or DEFAULT_CPUS_PER_ACTOR,
            batch_size=rows,
        )
        for frame in out.iter_batches(batch_format="pandas", batch_size=None):
            yield _frame_columns(frame)
    finally:
        if started:
            ray.shutdown()


def scan(
    paths: Iterable[Input],
    config: ScaleConfig,
    *,
    engine: str = "local",
    workers: int = 2,
    address: str | None = None,
    cpus_per_worker: float | None = None,
) -> Iterator[Columns]:
    """Result columns for ``paths``, in input order, chunk by chunk, from ``engine``.

    On dask and ray, folders that could not be listed come first, as one chunk of their own (the
    engines take plain path strings); the files follow in input order."""
    if engine == "local":
        yield from scan_local(paths, config)
        return
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    items = list(paths)
    unlisted = [p for p in items if isinstance(p, ListingError)]
    files = [p for p in items if not isinstance(p, ListingError)]
    if unlisted:
        yield result_columns(classify_batch(config, paths=unlisted), classifier_for(config).spec)
    if engine == "dask":
        yield from scan_dask(files, config, workers=workers, address=address)
    elif engine == "ray":
        yield from scan_ray(
            files, config, workers=workers, address=address, cpus_per_worker=cpus_per_worker
        )
    else:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")


# -- writing ------------------------------------------------------------------------------------------
class JsonlWriter:
    """One JSON result per line (exactly ``picohead classify --jsonl`` lines)."""

    def __init__(self, stream: IO[str], *, owned: bool = False) -> None:
        self.stream = stream
        self.owned = owned  # close the stream at the end (a file we opened, not stdout)

    def write(self, cols: Columns) -> None:
        try:
            for line in cols[RESULT_COLUMN]:
                self.stream.write(line + "\n")
            self.stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot write results to {self._name()}: {_reason(e)}") from None

    def _name(self) -> str:
        return str(getattr(self.stream, "name", "the output")) if self.owned else "stdout"

    def close(self) -> None:
        try:
            if self.owned:
                self.stream.close()
            else:
                self.stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot write results to {self._name()}: {_reason(e)}") from None


class ParquetWriter:
    """One Parquet file: the result columns (``ok`` bool, the rest strings; null where absent)."""

    def __init__(self, path: str, columns: Sequence[str]) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as e:
            raise ImportError("Parquet output needs pyarrow: pip install pyarrow") from e
        self._pa = pa
        self.path = path
        self.schema = pa.schema([(c, pa.bool_() if c == "ok" else pa.string()) for c in columns])
        self._writer = pq.ParquetWriter(path, self.schema)

    def write(self, cols: Columns) -> None:
        if cols and cols[next(iter(cols))]:
            try:
                self._writer.write_table(self._pa.Table.from_pydict(cols, schema=self.schema))
            except OSError as e:
                raise OutputError(f"cannot write results to {self.path}: {_reason(e)}") from None

    def close(self) -> None:
        try:
            self._writer.close()
        except OSError as e:
            raise OutputError(f"cannot write results to {self.path}: {_reason(e)}") from None


def _reason(e: BaseException) -> str:
    return e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__


def open_writer(fmt: str, out: str, config: ScaleConfig, stdout: IO[str] | None) -> Any:
    """A writer for ``fmt`` to ``out`` (``-`` is stdout, JSONL only); :class:`OutputError` when
    stdout is closed."""
    if fmt == "jsonl":
        if out == "-":
            if stdout is None:
                raise OutputError("cannot write results: stdout is closed (or pass --out FILE)")
            return JsonlWriter(stdout)
        return JsonlWriter(open(out, "w", encoding="utf-8"), owned=True)  # noqa: SIM115
    if fmt == "parquet":
        if out == "-":
            raise ValueError("Parquet cannot go to stdout: pass --out FILE.parquet")
        return ParquetWriter(out, output_columns(classifier_for(config).spec))
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def summary(n: int, n_ok: int, seconds: float, engine: str) -> str:
    rate = n / seconds if seconds > 0 else 0.0
    return json.dumps(
        {
            "files": n,
            "ok": n_ok,
            "seconds": round(seconds, 3),
            "files_per_s": round(rate, 1),
            "engine": engine,
        }
    )
