"""``picohead export`` and ``picohead inspect``. Heavy imports (torch, onnx) happen inside the
commands, so ``picohead --help`` stays fast. Exit codes: 0 ok, 1 a gate failed (nothing written for
that tier), 2 usage or runtime error."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click


def format_table(reports: list[Any]) -> str:
    """tier | size | nodes | parity | int8 agreement / drop | latency | status."""
    head = (
        f"{'tier':<8} {'prec':<5} {'size':>9} {'nodes':>6} {'fp32 |Δp|':>10} "
        f"{'min agree':>9} {'max drop':>8} {'ms@1thr':>8}  status"
    )
    lines = [head, "-" * len(head)]
    for r in reports:
        agree, drop = r.min_agreement, r.max_drop
        lines.append(
            f"{r.tier:<8} {r.precision:<5} {r.size_bytes / 1024:>7.1f}KB {r.nodes:>6} "
            f"{r.parity_max:>10.2e} "
            f"{'-' if agree is None else f'{100 * agree:.2f}%':>9} "
            f"{'-' if drop is None else f'{100 * drop:.2f}pt':>8} "
            f"{'-' if r.latency_ms is None else f'{r.latency_ms:.3f}':>8}  "
            + ("ok " + (r.quant_config or "") if r.ok else "FAILED (not written)")
        )
    return "\n".join(lines)


@click.command("export")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--tier",
    default="all",
    show_default=True,
    help="A tier of the run's spec (by default: tiny, small, base, pro), or 'all'.",
)
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
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("cache/windows"),
    show_default=True,
    help="Cache of preprocessed windows.",
)
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

    from picohead_exporters.errors import ExportError
    from picohead_exporters.export import export_run

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


@click.command("inspect")
@click.argument("model", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print everything as JSON.")
@click.option("--labels", "all_labels", is_flag=True, help="List every label of every head.")
def inspect_cmd(model: Path, as_json: bool, all_labels: bool) -> None:
    """Show an exported model's embedded spec, heads, labels, tier, sizes and metrics."""
    from picohead_exporters.errors import ExportError
    from picohead_exporters.inspect import format_inspect, inspect_model
    from picohead_runtime.spec import SpecError

    try:
        doc = inspect_model(model)
    except (ExportError, SpecError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(json.dumps(doc, indent=1) if as_json else format_inspect(doc, all_labels=all_labels))
