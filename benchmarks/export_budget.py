"""Size and latency budgets of exported tiers (issue 3), for the default configs of both families.

For each family (default ``arch`` from ``picohead/models/config.py``) and tier, with a content-like
spec (7 heads; ``picohead/recipes/content/spec.json``): export the tier (random init unless ``--run``
gives trained runs), quantize to int8 with the exporter's first setting, embed the real metadata
and measure the single file's size and the warm single-sample latency at a full window (2 KB) on one
thread (median of ``--runs`` calls, repeated ``--repeats`` times; the median of the repeats is
reported with the spread, because this machine is shared). Budgets: tiny <= 64 KB, small <= 192 KB,
base <= 512 KB, pro <= 2 MB; tiny <= 0.3 ms, pro <= 3 ms.

    .venv/bin/python benchmarks/export_budget.py [--families bytes steady] [--variants]

Writes ``benchmarks/results/export_budget.json`` and ``.md``; exits 1 when a budget is missed.
Gates are not applied here (random weights); ``picohead export`` applies them to trained runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from picohead.pipeline import SIZE_BUDGET

ROOT = Path(__file__).resolve().parent.parent
LATENCY_BUDGET_MS = {"tiny": 0.3, "pro": 3.0}


def measure(blob: bytes, names: list[str], full: int, runs: int, repeats: int) -> dict:
    from picohead_runtime import scoring

    sess = scoring.session(blob, threads=1)
    rng = np.random.default_rng(0)
    sample = (
        rng.integers(0, 256, size=(1, full), dtype=np.uint8),
        np.array([full], dtype=np.int64),
    )
    meds = [scoring.latency_ms(sess, names, sample, runs) for _ in range(repeats)]
    return {
        "latency_ms": float(np.median(meds)),
        "latency_ms_min": float(min(meds)),
        "latency_ms_max": float(max(meds)),
    }


def with_meta(model, spec, tier: str, precision: str) -> bytes:
    import onnx

    from picohead_runtime.model_meta import META_KEY, ModelMeta

    meta = ModelMeta(spec=spec, tier=tier, precision=precision, picohead_version="bench")
    m = onnx.ModelProto.FromString(model.SerializeToString())
    onnx.helper.set_model_props(m, {META_KEY: meta.to_prop()})
    return m.SerializeToString()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default=str(ROOT / "picohead/recipes/content/spec.json"))
    ap.add_argument("--families", nargs="+", default=["bytes", "steady"])
    ap.add_argument("--tiers", nargs="+", default=None)
    ap.add_argument("--run", action="append", default=[], help="trained run dir (per family)")
    ap.add_argument(
        "--arch",
        action="append",
        default=[],
        metavar="FAMILY=JSON",
        help='override arch keys, e.g. bytes=\'{"widths": {"tiny": 16, ...}}\' (proposals)',
    )
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--variants",
        action="store_true",
        help="measure every int8 setting of the exporter's ladder (+ ConvInteger for bytes)",
    )
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/export_budget"))
    args = ap.parse_args()

    import torch

    from picohead.export import tier_graph
    from picohead.models import build_model, count_params
    from picohead.models.config import with_full_arch
    from picohead.train import load_model
    from picohead_exporters import graph, quantize
    from picohead_runtime.model_meta import output_name
    from picohead_runtime.spec import ModelSpec, load_spec

    torch.set_num_threads(1)
    base = load_spec(args.spec)
    overrides = {}
    for item in args.arch:
        fam, _, text = item.partition("=")
        overrides[fam] = json.loads(text)
    runs = {}
    for r in args.run:
        model, spec = load_model(Path(r))
        runs[spec.family] = (model, spec)
    rows = []
    load0 = os.getloadavg()
    for family in args.families:
        if family in runs:
            model, spec = runs[family]
            source = "trained run"
        else:
            d = base.to_dict()
            d["family"], d["arch"] = family, overrides.get(family, {})
            spec = with_full_arch(ModelSpec.from_dict(d))
            torch.manual_seed(0)
            model = build_model(spec).eval()
            source = "random init, " + (
                f"arch overrides {json.dumps(d['arch'])}" if d["arch"] else "default config"
            )
        names = [output_name(h.name) for h in spec.heads]
        full = spec.window.size
        variants = [quantize.INT8_LADDER[0]]
        if args.variants:
            variants = list(quantize.INT8_LADDER)
            if family == "bytes":
                variants.append(
                    quantize.Int8Config(
                        "int8-conv-integer", weight_only=("GatherND",), conv_integer=True
                    )
                )
        for tier in args.tiers or list(spec.tiers):
            t0 = time.perf_counter()
            fp32 = tier_graph(model, spec, tier)
            info32 = graph.describe(fp32)
            row32 = {
                "family": family,
                "tier": tier,
                "precision": "fp32",
                "source": source,
                "parameters": info32["parameters"],
                "nodes": info32["nodes"],
                "size_bytes": len(with_meta(fp32, spec, tier, "fp32")),
                "slow_reductions": info32["slow_reductions"],
                **measure(
                    with_meta(fp32, spec, tier, "fp32"), names, full, args.runs, args.repeats
                ),
            }
            rows.append(row32)
            for cfg in variants:
                q = quantize.quantize_int8(fp32, cfg)
                blob = with_meta(q, spec, tier, "int8")
                info = graph.describe(q)
                row = {
                    "family": family,
                    "tier": tier,
                    "precision": cfg.name,
                    "source": source,
                    "parameters": info32["parameters"],
                    "nodes": info["nodes"],
                    "size_bytes": len(blob),
                    "slow_reductions": info["slow_reductions"],
                    **measure(blob, names, full, args.runs, args.repeats),
                }
                rows.append(row)
            print(
                f"{family:<7} {tier:<6} done in {time.perf_counter() - t0:.1f}s "
                f"(torch params of the full model {count_params(model):,})",
                file=sys.stderr,
            )

    misses = []
    for r in rows:
        if r["precision"] != "int8":  # the budget applies to the exporter's first int8 setting
            continue
        if r["size_bytes"] > SIZE_BUDGET.get(r["tier"], 1 << 62):
            misses.append(
                f"{r['family']} {r['tier']}: {r['size_bytes'] / 1024:.1f} KB > "
                f"{SIZE_BUDGET[r['tier']] / 1024:.0f} KB"
            )
        if r["latency_ms"] > LATENCY_BUDGET_MS.get(r["tier"], 1e9):
            misses.append(
                f"{r['family']} {r['tier']}: {r['latency_ms']:.3f} ms > "
                f"{LATENCY_BUDGET_MS[r['tier']]} ms"
            )
    doc = {
        "spec": args.spec,
        "window": full,
        "threads": 1,
        "runs": args.runs,
        "repeats": args.repeats,
        "machine": f"{platform.machine()} {os.cpu_count()} cpus",
        "loadavg_start": load0,
        "loadavg_end": os.getloadavg(),
        "budgets": {"size_bytes": SIZE_BUDGET, "latency_ms": LATENCY_BUDGET_MS},
        "rows": rows,
        "misses": misses,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = [
        "# Export budgets (int8, single file, 1 thread, 2 KB window)",
        "",
        f"Load average {load0[0]:.1f} at start, {doc['loadavg_end'][0]:.1f} at end "
        f"(shared {os.cpu_count()}-core machine); latency = median of {args.repeats} medians "
        f"of {args.runs} warm calls [min-max].",
        "",
        "| family | tier | precision | params | nodes | size | budget | latency ms | budget |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        sb = SIZE_BUDGET.get(r["tier"])
        lb = LATENCY_BUDGET_MS.get(r["tier"])
        lines.append(
            f"| {r['family']} | {r['tier']} | {r['precision']} | {r['parameters']:,} | "
            f"{r['nodes']} | {r['size_bytes'] / 1024:.1f} KB | "
            f"{f'{sb // 1024} KB' if sb else '-'} | "
            f"{r['latency_ms']:.3f} [{r['latency_ms_min']:.3f}-{r['latency_ms_max']:.3f}] | "
            f"{lb if lb else '-'} |"
        )
    lines += ["", "Budget misses (int8): " + ("; ".join(misses) if misses else "none")]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
