"""``picohead scan``: classify a directory tree or a list of paths on one machine or a cluster.

A thin click wrapper over :mod:`picohead_runtime.scale.scan`: check flags, load the model once on
the driver (to fail fast and to learn the output columns), stream result chunks from the engine to
a JSONL or Parquet writer, print a one-line JSON summary on stderr. Exit codes: 0 done, 2 a usage
or runtime error (bad flags, no model, an engine that is not installed, results that cannot be
written, a path list that cannot be read), with one line on stderr. A file that cannot be read is
a result with a status, never an error.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import IO, NoReturn

import click

from picohead.options import shared
from picohead_runtime import options as shared_options

ENGINES = ("local", "dask", "ray")


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "-f",
    "--from-file",
    "path_lists",
    multiple=True,
    metavar="FILE",
    help="a file listing paths, one per line ('-' reads stdin); repeatable",
)
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="local",
    show_default=True,
    help="where to run: this process, a Dask cluster or Ray Data",
)
@click.option("-o", "--out", default="-", show_default=True, help="output file ('-' is stdout)")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "parquet"]),
    default=None,
    help="output format (default: parquet for a .parquet file, else jsonl)",
)
@shared(shared_options.MODEL)
@shared(shared_options.TIER)
@shared(shared_options.DEVICE)
@shared(shared_options.THREADS)
@shared(shared_options.TOP_K)
@shared(shared_options.BATCH_SIZE, default=64, help="files per model call (default 64)")
@shared(shared_options.FOLLOW_SYMLINKS)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="dask: worker processes; ray: actors",
)
@click.option("--address", default=None, help="join a running Dask scheduler or Ray cluster")
@click.option(
    "--cpus-per-worker",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="ray: CPUs each actor reserves (default 0.5, so read tasks still get a CPU)",
)
@click.option("--no-progress", is_flag=True, help="never show the progress bar")
@click.pass_context
def scan_cmd(
    ctx: click.Context,
    paths: tuple[str, ...],
    path_lists: tuple[str, ...],
    engine: str,
    out: str,
    fmt: str | None,
    model: str | None,
    tier: str | None,
    device: str,
    threads: int,
    top_k: int,
    batch_size: int,
    follow_symlinks: bool,
    workers: int,
    address: str | None,
    cpus_per_worker: float | None,
    no_progress: bool,
) -> None:
    """Classify every file under PATHS (folders are walked) and in --from-file lists.

    \b
    picohead scan src/ --out results.jsonl
    find /data -type f | picohead scan -f - --engine dask --workers 8 -o results.parquet
    picohead scan /mnt/shared --engine ray --address auto -o results.parquet
    """
    if not paths and not path_lists:
        raise click.UsageError("nothing to scan: give PATHS or --from-file")
    if "-" in paths:
        raise click.UsageError("'-' is not a path here; use --from-file - to read paths from stdin")
    if fmt is None:
        fmt = "parquet" if out.endswith((".parquet", ".pq")) else "jsonl"
    if fmt == "parquet" and out == "-":
        raise click.UsageError("Parquet cannot go to stdout: pass --out FILE.parquet")
    if engine == "local" and (address or cpus_per_worker):
        raise click.UsageError("--address and --cpus-per-worker are for --engine dask or ray")
    if engine == "dask" and cpus_per_worker:
        raise click.UsageError("--cpus-per-worker is for --engine ray")

    from tqdm import tqdm

    from picohead_runtime.cli import silence_stdout
    from picohead_runtime.errors import OutputError, PicoheadError
    from picohead_runtime.scale import ScaleConfig, classifier_for
    from picohead_runtime.scale.scan import iter_inputs, open_writer, scan, summary

    def fail(message: str) -> NoReturn:
        click.echo(f"picohead scan: error: {message}", err=True)
        ctx.exit(2)

    lists = _open_lists(path_lists, fail)
    try:
        config = ScaleConfig(
            model=model,
            tier=tier,
            device=device,
            threads=threads,
            batch_size=batch_size,
            top_k=top_k,
            follow_symlinks=follow_symlinks,
            base_dir=os.getcwd(),
        )
        classifier_for(config)  # fail here, before any cluster starts, when the model is bad
        writer = open_writer(fmt, out, config, sys.stdout)
    except (PicoheadError, ImportError, OSError, ValueError) as e:  # ValueError: ScaleConfig
        fail(str(e))

    show = not no_progress and sys.stderr.isatty()
    n = n_ok = 0
    t0 = time.perf_counter()
    try:
        inputs = iter_inputs(list(paths), path_lists=lists, follow_symlinks=follow_symlinks)
        chunks = scan(
            inputs,
            config,
            engine=engine,
            workers=workers,
            address=address,
            cpus_per_worker=cpus_per_worker,
        )
        with tqdm(unit="file", disable=not show, file=sys.stderr) as bar:
            for cols in chunks:
                writer.write(cols)
                n += len(cols["ok"])
                n_ok += sum(bool(x) for x in cols["ok"])
                bar.update(len(cols["ok"]))
        writer.close()
    except ImportError as e:
        fail(str(e))
    except BrokenPipeError:  # `| head`: stop quietly
        silence_stdout()
        ctx.exit(0)
    except OutputError as e:
        silence_stdout()
        fail(str(e))
    except OSError as e:  # a path list that fails while it is read
        fail(f"cannot read a path list: {e.strerror or e}")
    click.echo(summary(n, n_ok, time.perf_counter() - t0, engine), err=True)


def _open_lists(names: tuple[str, ...], fail: Callable[[str], NoReturn]) -> list[IO[bytes]]:
    """The --from-file streams; '-' is stdin (an error when stdin is closed)."""
    out: list[IO[bytes]] = []
    for name in names:
        if name == "-":
            stream = getattr(sys.stdin, "buffer", None) if sys.stdin is not None else None
            if stream is None:
                fail("cannot read the path list from stdin: it is closed")
            out.append(stream)
            continue
        try:
            out.append(open(name, "rb"))  # noqa: SIM115 (read to the end by the scan)
        except OSError as e:
            fail(f"cannot read the path list {name}: {e.strerror or e}")
    return out
