"""End-to-end runtime speed (issue 4): warm single-file latency and batched files/s.

For each model: the bare ``session.run`` on a full window (the model's own cost), ``classify_bytes``
on the same window (plus decoding), ``classify_path`` on real files (open + two preads + run +
decode: what a user's call costs; p50/p95/p99 over ``--calls`` warm calls, 1 thread), and batched
``classify_paths`` throughput from the page cache (files/s, and CPU ms per file, which a busy
shared machine does not distort). Targets: tiny tier p50 <= 0.3 ms single file; >= 5,000 files/s
batched on 2 cores (i.e. <= 0.4 CPU ms per file).

Models: ``--model PATH`` (a file or folder, e.g. the bundled model), or, by default, the tiny tier of
each family's default config with random weights on the content spec, exported fp32 -> int8 with the
exporter's first int8 setting (needs torch and picohead_exporters; random weights cost what trained
ones do).

    .venv/bin/python benchmarks/runtime_latency.py [--model PATH] [--tier tiny] [--input DIR]

Writes ``benchmarks/results/runtime_latency_<what>.json`` (``--out``): ``<what>`` is the model
folder and tier when ``--model`` is given (e.g. ``content-v3-tiny``), else ``default-configs``, so
measuring one does not overwrite the other. Exits 0; the CI gate is ``picohead bench --budget-ms``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def export_random_tiny(family: str, tier: str, out_dir: Path) -> Path:
    """The default-config ``tier`` of ``family`` with random weights, int8, as ``<tier>.onnx``."""
    import onnx
    import torch

    from picohead.export import tier_graph
    from picohead.models import build_model
    from picohead.models.config import with_full_arch
    from picohead_exporters import quantize
    from picohead_runtime.model_meta import META_KEY, ModelMeta
    from picohead_runtime.spec import ModelSpec, load_spec

    d = load_spec(ROOT / "picohead/recipes/content/spec.json").to_dict()
    d["family"], d["arch"] = family, {}
    spec = with_full_arch(ModelSpec.from_dict(d))
    torch.manual_seed(0)
    model = build_model(spec).eval()
    q = quantize.quantize_int8(tier_graph(model, spec, tier), quantize.INT8_LADDER[0])
    meta = ModelMeta(spec=spec, tier=tier, precision="int8", picohead_version="bench")
    onnx.helper.set_model_props(q, {META_KEY: meta.to_prop()})
    folder = out_dir / f"random-{family}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{tier}.onnx"
    onnx.save(q, str(path))
    return path


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q, method="inverted_cdf"))


def timed(fn, n: int) -> list[float]:
    clock = time.perf_counter_ns
    out = []
    for _ in range(n):
        t0 = clock()
        fn()
        out.append((clock() - t0) / 1e6)
    return out


def measure(model: Path, tier: str | None, files: list[str], calls: int) -> dict:
    from picohead_runtime import Classifier

    clf = Classifier(model, tier=tier, threads=1)
    spec = clf.spec
    full = spec.window.size
    rng = np.random.default_rng(0)
    window = rng.integers(32, 127, size=full, dtype=np.uint8).tobytes()
    x = np.frombuffer(window, dtype=np.uint8).reshape(1, -1)
    n = np.array([full], dtype=np.int64)
    sess = clf._model.session  # the bare model cost, for the breakdown only
    names = list(clf._model.output_names)

    def run_only():
        sess.run(names, {"bytes": x, "lengths": n})

    row: dict = {
        "model": str(clf.model_path),
        "tier": clf.tier,
        "family": spec.family,
        "window": full,
        "size_bytes": os.path.getsize(clf.model_path),
    }
    for name, fn in (
        ("session_run_2kb", run_only),
        ("classify_bytes_2kb", lambda: clf.classify_bytes(window)),
    ):
        timed(fn, 200)
        ms = timed(fn, calls)
        row[f"{name}_p50_ms"] = statistics.median(ms)

    it = iter(range(1 << 62))

    def one_file():
        clf.classify_path(files[next(it) % len(files)])

    timed(one_file, 200)
    c0 = time.process_time()
    ms = timed(one_file, calls)
    row.update(
        file_p50_ms=pct(ms, 50),
        file_p95_ms=pct(ms, 95),
        file_p99_ms=pct(ms, 99),
        file_mean_ms=statistics.fmean(ms),
        file_cpu_ms=(time.process_time() - c0) / calls * 1e3,
    )
    # Batched, from the page cache. Wall-clock files/s depends on what else runs on the machine;
    # CPU ms per file (process time, all threads) does not, so both are reported.
    many = files * max(1, 6000 // len(files))
    for threads, batch in ((1, 16), (1, 64), (2, 16), (2, 64)):
        c = Classifier(model, tier=tier, threads=threads, batch_size=batch)
        with c:
            list(c.classify_paths(many[: 2 * batch]))  # warm up
            best, cpu = 0.0, float("inf")
            for _ in range(2):
                t0, c0 = time.perf_counter(), time.process_time()
                k = sum(1 for _ in c.classify_paths(many))
                best = max(best, k / (time.perf_counter() - t0))
                cpu = min(cpu, (time.process_time() - c0) / k * 1e3)
        row[f"batched_t{threads}_b{batch}_files_per_s"] = best
        row[f"batched_t{threads}_b{batch}_cpu_ms_per_file"] = cpu
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", action="append", default=[], help="model file or folder (repeat)")
    ap.add_argument("--tier", default="tiny")
    ap.add_argument("--families", nargs="+", default=["steady", "bytes"])
    ap.add_argument("--input", help="folder of files to classify (default: synthetic mix)")
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--out", help="results file (default: results/runtime_latency_<what>.json)")
    args = ap.parse_args()

    from picohead_runtime.bench import collect_inputs, write_synthetic

    with tempfile.TemporaryDirectory(prefix="picohead-rt-bench-") as tmp:
        tmpdir = Path(tmp)
        if args.input:
            files = collect_inputs(args.input, 5000)
        else:
            (tmpdir / "inputs").mkdir()
            files = write_synthetic(tmpdir / "inputs", n=256)
        models = [Path(m) for m in args.model] or [
            export_random_tiny(f, args.tier, tmpdir) for f in args.families
        ]
        load0 = os.getloadavg()
        rows = []
        for m in models:
            row = measure(m, args.tier if m.is_dir() else None, files, args.calls)
            row["source"] = "given" if args.model else "random init, default config, int8"
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    doc = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, {platform.python_version()}",
        "loadavg_start": load0,
        "loadavg_end": os.getloadavg(),
        "files": len(files),
        "calls": args.calls,
        "targets": {"file_p50_ms": 0.3, "batched_files_per_s": 5000},
        "rows": rows,
    }
    if args.out:
        out = Path(args.out)
    else:
        what = (
            "-".join(
                f"{Path(m).resolve().name if Path(m).is_dir() else Path(m).stem}-{args.tier}"
                for m in args.model
            )
            if args.model
            else "default-configs"
        )
        out = ROOT / f"benchmarks/results/runtime_latency_{what}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    for r in rows:
        print(
            f"{r['family']:<7} {r['tier']:<5} session.run {r['session_run_2kb_p50_ms']:.3f} ms | "
            f"classify_bytes {r['classify_bytes_2kb_p50_ms']:.3f} ms | file p50 "
            f"{r['file_p50_ms']:.3f} p95 {r['file_p95_ms']:.3f} p99 {r['file_p99_ms']:.3f} ms "
            f"(cpu {r['file_cpu_ms']:.3f} ms) | batched b16: "
            f"{r['batched_t1_b16_files_per_s']:,.0f} files/s 1 thread, "
            f"{r['batched_t2_b16_files_per_s']:,.0f} 2 threads "
            f"(b64: {r['batched_t1_b64_files_per_s']:,.0f} / {r['batched_t2_b64_files_per_s']:,.0f}); "
            f"cpu {r['batched_t1_b16_cpu_ms_per_file']:.3f} ms/file "
            f"(b64 {r['batched_t1_b64_cpu_ms_per_file']:.3f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
