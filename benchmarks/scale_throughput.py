"""Scale-out throughput (issue 8): files/s for one process vs Dask vs Ray Data on the same files.

Each engine runs the same ``picohead_runtime.scale.scan`` a user gets from ``picohead scan``:

- ``local, 1 thread``: one process, ``Classifier.classify_paths`` batch after batch;
- ``local, 2 threads``: one process, two batches in flight (``threads=2``);
- ``dask, 2 workers``: a ``LocalCluster`` of 2 single-threaded worker processes;
- ``ray, 2 actors``: Ray Data ``map_batches`` on 2 actors at 0.5 CPU each (``ray.init(num_cpus=2)``).

Timings: ``startup_s`` is starting the cluster (not paid by local runs); each run is then timed
from the first path to the last result row, repeated ``--repeats`` times (best and median
reported) after one untimed-for-the-best first run (``first_run_s``: worker processes load the
model on their first batch). Ray builds a new actor pool, and so loads the model again, in every run: its times
include that. Every run's JSONL is hashed: all engines must give identical bytes.

Models: ``--model PATH`` (file or folder), or by default the ``tiny`` and ``small`` tiers of the
content spec with random weights exported fp32 by ``picohead.export.export_tier`` (random weights
cost what trained ones do; int8's agreement gates reject random weights). Files: ``--files`` text
and binary files of 0.2-20 KB in a temporary folder (page cache warm after the first run).

    .venv/bin/python benchmarks/scale_throughput.py [--files 3000] [--repeats 2] [--model PATH]

Writes ``benchmarks/results/scale_throughput.{json,md}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("scale_throughput")


def export_content(tiers: list[str], out: Path) -> dict[str, Path]:
    """The content spec's ``tiers`` with random weights, fp32, as ``content-<tier>-fp32.onnx``."""
    import torch

    from picohead.export import export_tier
    from picohead.models import build_model
    from picohead_runtime.spec import load_spec

    spec = load_spec(ROOT / "picohead/recipes/content/spec.json")
    torch.manual_seed(0)
    model = build_model(spec).eval()
    paths = {}
    for tier in tiers:
        report = export_tier(model, spec, tier, out=out, precision="fp32", latency_runs=5)
        paths[tier] = Path(str(report.path))
    return paths


def write_files(root: Path, n: int, seed: int = 0) -> list[str]:
    """``n`` files: 3/4 text-like (printable ASCII lines), 1/4 binary, 0.2-20 KB each."""
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        folder = root / f"{i % 16:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        size = int(rng.integers(200, 20_000))
        if i % 4 == 3:
            data = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        else:
            data = rng.integers(32, 127, size, dtype=np.uint8)
            data[rng.integers(0, size, size // 60)] = 10
            data = data.tobytes()
        p = folder / f"f{i:06d}.{'bin' if i % 4 == 3 else 'txt'}"
        p.write_bytes(data)
        paths.append(str(p))
    return paths


def run_scan(paths: list[str], config: Any, engine: str, **kw: Any) -> tuple[float, str, int]:
    """(seconds, sha256 of the JSONL, ok count) for one scan."""
    from picohead_runtime.scale.scan import scan

    h = hashlib.sha256()
    n_ok = 0
    t0 = time.perf_counter()
    for cols in scan(iter(paths), config, engine=engine, **kw):
        for line in cols["result"]:
            h.update(line.encode() + b"\n")
        n_ok += sum(bool(x) for x in cols["ok"])
    return time.perf_counter() - t0, h.hexdigest(), n_ok


def bench_model(model: Path, paths: list[str], repeats: int, batch: int) -> list[dict[str, Any]]:
    from picohead_runtime.scale import ScaleConfig, classifier_for

    rows: list[dict[str, Any]] = []

    def record(name: str, startup: float | None, cfg: Any, engine: str, **kw: Any) -> None:
        load = os.getloadavg()[0]
        first, digest, n_ok = run_scan(paths, cfg, engine, **kw)  # workers load the model here
        times, digests = [], {digest}
        for _ in range(repeats):
            s, digest, n_ok = run_scan(paths, cfg, engine, **kw)
            times.append(s)
            digests.add(digest)
        best, med = min(times), statistics.median(times)
        rows.append(
            {
                "engine": name,
                "startup_s": None if startup is None else round(startup, 2),
                "first_run_s": round(first, 3),
                "best_s": round(best, 3),
                "median_s": round(med, 3),
                "files_per_s_best": round(len(paths) / best, 1),
                "files_per_s_median": round(len(paths) / med, 1),
                "ok": n_ok,
                "sha256": sorted(digests)[0] if len(digests) == 1 else sorted(digests),
                "loadavg_1m_before": round(load, 2),
            }
        )
        log.info("%s: %s", model.name, rows[-1])

    one = ScaleConfig(model=str(model), batch_size=batch, threads=1)
    two = ScaleConfig(model=str(model), batch_size=batch, threads=2)
    classifier_for(one)
    classifier_for(two)
    record("local, 1 thread", None, one, "local")
    record("local, 2 threads", None, two, "local")

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        log.warning("dask.distributed is not installed: skipping dask")
    else:
        t0 = time.perf_counter()
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            startup = time.perf_counter() - t0
            record("dask, 2 workers", startup, one, "dask", address=client.scheduler.address)

    try:
        import ray
    except ImportError:
        log.warning("ray is not installed: skipping ray")
    else:
        t0 = time.perf_counter()
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            configure_logging=False,
        )
        startup = time.perf_counter() - t0
        try:
            record("ray, 2 actors x 0.5 CPU", startup, one, "ray", workers=2)
        finally:
            ray.shutdown()
    return rows


def loads(results: list[dict[str, Any]]) -> str:
    vals = [r["loadavg_1m_before"] for m in results for r in m["rows"]]
    return f"{min(vals):.1f}-{max(vals):.1f}" if vals else "unknown"


def identical_note(results: list[dict[str, Any]]) -> str:
    digests = {str(r["sha256"]) for m in results for r in m["rows"] if "1 thread" in r["engine"]}
    same = all(str(r["sha256"]) == str(m["rows"][0]["sha256"]) for m in results for r in m["rows"])
    if same and digests:
        return (
            "Every run of every engine wrote byte-identical JSONL: partitions are cut at "
            "multiples of the batch size, so each model call sees the same files as in one process."
        )
    return "Some runs differ from the single-process output: see the sha256 values in the JSON."


def markdown(doc: dict[str, Any]) -> str:
    lines = [
        "# Scale-out throughput: one process vs Dask vs Ray Data",
        "",
        f"{doc['files']} files ({doc['total_mb']} MB, 0.2-20 KB each), batch size {doc['batch_size']}, "
        f"{doc['machine']['cpus']} CPUs ({doc['machine']['processor'] or doc['machine']['machine']}), "
        f"Python {doc['machine']['python']}. Best of {doc['repeats']} runs (median in brackets). "
        "Startup is paid once per cluster and is not in the run times; the first run (workers load "
        "the model) is shown apart.",
        "",
    ]
    for m in doc["models"]:
        lines += [
            f"## {m['model']} ({m['size_kb']} KB)",
            "",
            "| engine | files/s | run s | first run s | startup s | identical output |",
            "|---|---:|---:|---:|---:|:-:|",
        ]
        ref = m["rows"][0]["sha256"]
        for r in m["rows"]:
            same = "yes" if r["sha256"] == ref else "NO"
            start = "-" if r["startup_s"] is None else f"{r['startup_s']:.1f}"
            lines.append(
                f"| {r['engine']} | {r['files_per_s_best']:,.0f} ({r['files_per_s_median']:,.0f}) "
                f"| {r['best_s']:.2f} | {r['first_run_s']:.2f} | {start} | {same} |"
            )
        lines.append("")
    lines += ["## Notes", "", *[f"- {n}" for n in doc["notes"]], ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, action="append", help="model file(s) (repeatable)")
    ap.add_argument("--tiers", default="tiny,small", help="tiers to export when no --model")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/scale_throughput.json")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    for name in ("distributed", "ray", "picohead_exporters", "torch"):
        logging.getLogger(name).setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory(prefix="picohead-scale-") as tmp:
        tmpdir = Path(tmp)
        models = args.model or list(
            export_content(args.tiers.split(","), tmpdir / "models").values()
        )
        paths = write_files(tmpdir / "files", args.files)
        total = sum(os.path.getsize(p) for p in paths)
        results = []
        for model in models:
            rows = bench_model(Path(model), paths, args.repeats, args.batch_size)
            results.append(
                {
                    "model": Path(model).name,
                    "size_kb": round(os.path.getsize(model) / 1024),
                    "rows": rows,
                }
            )

    doc = {
        "benchmark": "scale_throughput",
        "files": args.files,
        "total_mb": round(total / 1e6, 1),
        "batch_size": args.batch_size,
        "repeats": args.repeats,
        "machine": {
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "processor": platform.processor(),
            "python": platform.python_version(),
        },
        "models": results,
        "notes": [
            "Measured on a 2-core machine shared with other jobs (data builds, training); the "
            f"1-minute load average before each engine's runs was {loads(results)}. With 2 "
            "cores, no engine can beat 2x one process, and worker processes compete with the "
            "driver (listing files, collecting results) and with everything else running.",
            "Dask and Ray add per-partition scheduling, pickling of paths and result rows, and "
            "inter-process transfers on top of the model; what they buy is more machines.",
            "Ray creates its actor pool, and loads the model in each actor, on every scan: that "
            "cost is inside the Ray run times.",
            identical_note(results),
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(doc))
    print(markdown(doc))


if __name__ == "__main__":
    main()
