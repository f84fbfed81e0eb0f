"""Training throughput of both families: samples/s for one full nested-width step on 2 KB windows.

A "full step" is what `picohead train` does: forward + backward + AdamW for every tier the step
trains (bytes: sandwich = largest + smallest + one middle tier; steady: all tiers, sharing the
n-gram hashes). Uses the default content spec and default architectures. Reports the median over
repeated timed steps after warm-up. Run:  python benchmarks/train_speed.py [--steps 8] [--batch 64]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from picohead.models import build_model, count_params
from picohead.train import pick_tiers
from picohead_runtime.spec import ModelSpec, load_spec

ROOT = Path(__file__).resolve().parents[1]


def bench(spec: ModelSpec, batch: int, steps: int, mode: str) -> dict:
    torch.manual_seed(0)
    model = build_model(spec).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.integers(0, 256, (batch, spec.window.size), dtype=np.uint8))
    lengths = torch.full((batch,), spec.window.size, dtype=torch.int64)
    times = []
    for i in range(steps + 2):
        t0 = time.perf_counter()
        prepared = model.prepare(x, lengths)
        loss = torch.zeros(())
        for tier in pick_tiers(model.tiers, mode, rng):
            for v in model(x, lengths, tier, prepared).values():
                loss = loss + v.float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i >= 2:
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    return {"family": spec.family, "tier_sampling": mode, "batch": batch, "window": spec.window.size,
            "params": count_params(model), "median_step_s": round(med, 4),
            "samples_per_s": round(batch / med, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/train_speed.json")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    base = load_spec(ROOT / "picohead/recipes/content/spec.json").to_dict()
    rows = []
    for family, mode in (("bytes", "sandwich"), ("steady", "all")):
        d = dict(base, family=family, arch={})
        rows.append(bench(ModelSpec.from_dict(d), args.batch, args.steps, mode))
        print(json.dumps(rows[-1]))
    doc = {"machine": {"cpu_count": torch.get_num_threads(), "platform": platform.platform(),
                       "torch": torch.__version__}, "results": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
