"""``picohead export``: compile a trained run's tiers with ``picohead_exporters``. Heavy imports
(torch, onnx) happen inside the command, so ``picohead --help`` stays fast. Exit codes: 0 ok, 1 a
gate failed (nothing written for that tier), 2 usage or runtime error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from picohead.options import tier_or_all, windows_cache


@click.command("export")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@tier_or_all
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder (default RUN_DIR/onnx); files are <name>-<tier>-<precision>.onnx.",
)
@click.option(
    "--precision",
    type=click.Choice(["int8", "fp16", "fp32"]),
    help="Weights/arithmetic (default: int8 for cpu, fp16 for cuda).",
)
@click.option("--target", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option(
    "--calib",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Manifest for the gates and metrics (default: the run's validation split).",
)
@windows_cache
@click.option("--latency-runs", type=int, default=200, show_default=True, help="0: skip.")
@click.option("--json", "as_json", is_flag=True, help="Print the reports as JSON.")
def export_cmd(
    run_dir: Path,
    tier: str,
    out_dir: Path | None,
    precision: str | None,
    target: str,
    calib: Path | None,
    cache_dir: Path,
    latency_runs: int,
    as_json: bool,
) -> None:
    """Compile a trained run's tiers into single-file ONNX models, gated on parity.

    Each tier is sliced, exported (dynamic batch and length), optimized, quantized and checked:
    fp32 vs torch max |Δprob| <= 1e-4; int8/fp16 vs fp32 top-1 agreement >= 99.5 % per head and
    accuracy drop <= 0.5 points on the validation set. A tier that misses a gate is not written
    and the command exits 1.
    """
    import logging

    from picohead.export import export_run
    from picohead_exporters.cli import format_table
    from picohead_exporters.errors import ExportError

    if precision is None:
        precision = "fp16" if target == "cuda" else "int8"
    if target == "cuda" and precision == "int8":
        raise click.UsageError("--target cuda writes fp16 or fp32 (int8 ops run on the CPU there)")
    # The quantizer's advice to run its pre-processing (which fails on conv+attention graphs).
    logging.getLogger().addFilter(lambda rec: "pre-processing" not in rec.getMessage())
    try:
        reports = export_run(
            run_dir,
            tiers=tier,
            out_dir=out_dir,
            precision=precision,
            target=target,
            calib=calib,
            cache_dir=cache_dir,
            latency_runs=latency_runs,
            raise_on_fail=False,
        )
    except (ExportError, ValueError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reports], indent=1))
    else:
        click.echo(format_table(reports))
        for r in reports:
            if r.path:
                click.echo(f"wrote {r.path}")
    failed = [r for r in reports if not r.ok]
    for r in failed:
        for f in r.failures:
            click.echo(f"gate failed: tier {r.tier}: {f}", err=True)
    sys.exit(1 if failed else 0)
