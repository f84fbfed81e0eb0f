"""``picohead inspect``, and the table ``picohead export`` prints (the command itself is
``picohead.export_cli``: it reads a run folder, which this package knows nothing of). Heavy imports
(onnx) happen inside the command, so ``picohead --help`` stays fast. Exit code 2 on a file that
cannot be read."""

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
