"""GPU check: does the CUDA execution provider work, and how many files/s does it give?

Run on a machine with an NVIDIA GPU and ``pip install './runtime[gpu]'`` (onnxruntime-gpu instead of
onnxruntime). For each batch size it measures:

- ``infer``: windows already in memory (``classify_many_bytes``): model + decoding throughput;
- ``files``: ``classify_paths`` over files in the page cache (reads included), with ``--threads``
  batches in flight so reading overlaps inference;

and the same on the CPU for comparison. Models: ``--model`` (a ``--target cuda`` fp16/fp32 export,
or a folder with ``<tier>.cuda.onnx``); without it, the default-config ``--tier`` of ``--family``
with random weights is exported to fp32 (needs torch and picohead_exporters).

    python benchmarks/gpu_check.py [--model PATH] [--tier small] [--batch-sizes 256 1024 4096]

Prints one JSON document (and writes ``--out`` if given). Exit codes: 0 measured; 2 no usable CUDA
provider (the message says why), so a CI job on a GPU runner can use it as a smoke test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def export_random(family: str, tier: str, folder: Path) -> Path:
    """Default-config ``tier`` of ``family``, random weights, fp32 (the ``--target cuda`` graph)."""
    import onnx
    import torch

    from picohead.export import tier_graph
    from picohead.models import build_model
    from picohead.models.config import with_full_arch
    from picohead_runtime.model_meta import META_KEY, ModelMeta
    from picohead_runtime.spec import ModelSpec, load_spec

    d = load_spec(ROOT / "picohead/recipes/content/spec.json").to_dict()
    d["family"], d["arch"] = family, {}
    spec = with_full_arch(ModelSpec.from_dict(d))
    torch.manual_seed(0)
    g = tier_graph(build_model(spec).eval(), spec, tier)
    meta = ModelMeta(spec=spec, tier=tier, precision="fp32", target="cuda", picohead_version="gpu")
    onnx.helper.set_model_props(g, {META_KEY: meta.to_prop()})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{tier}.cuda.onnx"
    onnx.save(g, str(path))
    return path


def throughput(fn, n_items: int, repeats: int = 3) -> float:
    fn()  # warm-up (CUDA kernels, arena growth)
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = max(best, n_items / (time.perf_counter() - t0))
    return best


def run(
    model: Path,
    tier: str | None,
    device: str,
    batch_sizes: list[int],
    threads: int,
    windows: list[bytes],
    files: list[str],
) -> list[dict]:
    from picohead_runtime import Classifier

    rows = []
    for bs in batch_sizes:
        clf = Classifier(model, tier=tier, device=device, threads=threads, batch_size=bs)
        with clf:
            infer = throughput(
                lambda c=clf: sum(1 for _ in c.classify_many_bytes(windows)), len(windows)
            )
            from_files = throughput(
                lambda c=clf: sum(1 for _ in c.classify_paths(files)), len(files)
            )
        rows.append(
            {
                "device": clf.device,
                "providers": list(clf.providers),
                "batch_size": bs,
                "threads": threads,
                "infer_files_per_s": infer,
                "files_per_s": from_files,
                "model": clf.model_path,
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="model file or folder (default: random fp32 export)")
    ap.add_argument("--tier", default="small")
    ap.add_argument("--family", default="bytes", choices=["bytes", "steady"])
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--n", type=int, default=20000, help="windows / files per measurement")
    ap.add_argument("--threads", type=int, default=4, help="batches in flight (and CPU threads)")
    ap.add_argument("--no-cpu", action="store_true", help="skip the CPU comparison")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()

    import onnxruntime as ort

    from picohead_runtime import ModelError
    from picohead_runtime.bench import write_synthetic

    available = ort.get_available_providers()
    doc: dict = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
        "onnxruntime": ort.__version__,
        "providers_available": available,
    }
    with tempfile.TemporaryDirectory(prefix="picohead-gpu-") as tmp:
        tmpdir = Path(tmp)
        model = (
            Path(args.model) if args.model else export_random(args.family, args.tier, tmpdir / "m")
        )
        tier = args.tier if model.is_dir() else None
        (tmpdir / "in").mkdir()
        base = write_synthetic(tmpdir / "in", n=512)
        files = (base * (args.n // len(base) + 1))[: args.n]
        rng = np.random.default_rng(0)
        windows = [
            rng.integers(0, 256, int(k), dtype=np.uint8).tobytes()
            for k in rng.integers(1, 2049, size=args.n)
        ]
        try:
            doc["cuda"] = run(model, tier, "cuda", args.batch_sizes, args.threads, windows, files)
        except ModelError as e:
            doc["cuda_error"] = str(e)
            print(f"gpu_check: no usable CUDA provider: {e}", file=sys.stderr)
        if not args.no_cpu:
            doc["cpu"] = run(
                model,
                tier,
                "cpu",
                [256],
                min(args.threads, os.cpu_count() or 1),
                windows[:5000],
                files[:5000],
            )
    text = json.dumps(doc, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 2 if "cuda_error" in doc else 0


if __name__ == "__main__":
    sys.exit(main())
