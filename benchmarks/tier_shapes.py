"""Rows x dims of one steady tier: which table shape a size budget should buy, and the positional share.

Trains one single-tier steady model per shape on the content corpus (the recipe's steady arch and
training settings, 3,000 steps x 128, only the tier's buckets / dims / position_share replaced; a
tier of ``small``'s arch keeps small's risk detector), then reports the last in-training validation
check (the recipe's ``max_eval`` sample of the validation split). A single-tier run also shows what
the Matryoshka sharing costs: the joint run's tiny against tiny trained alone.

    python benchmarks/tier_shapes.py --runs runs-shapes              # every shape below
    python benchmarks/tier_shapes.py --shape tiny:1024x40:0.1         # one shape

Runs resume (a finished run is only read), so the table can be rebuilt from existing run folders.
Each tiny run takes ~1.5 min on one core, a small one (with its detector) ~6 min.
Writes benchmarks/results/tier_shapes.json and .md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from picohead.dataset import load_manifest
from picohead.pipeline import family_spec, load_train_plan
from picohead.train import TrainConfig, train
from picohead_runtime.spec import ModelSpec, load_spec

ROOT = Path(__file__).resolve().parents[1]
SHAPES = [  # tier-of-the-recipe : rows x dims : positional share
    "tiny:4096x10:0.25",  # content-v3's tiny (the same table size as the next four)
    "tiny:2048x20:0.25",
    "tiny:1024x40:0.25",
    "tiny:512x80:0.25",
    "tiny:1024x32:0.25",
    "tiny:4096x10:0",
    "tiny:1024x40:0.1",
    "tiny:2048x32:0.25",  # twice the table: over tiny's 64 KB budget
    "tiny:1024x32:0.1",  # content-v4's tiny (trained jointly it reached 82.6 / 95.3 here)
    "small:8192x16:0.25",  # content-v3's small
    "small:4096x32:0.25",
    "small:4096x32:0.1",  # content-v4's small
    "small:2048x48:0.1",  # a small whose dims leave room for a 40-dim tiny
]


def parse(shape: str) -> tuple[str, int, int, float]:
    tier, rd, share = shape.split(":")
    rows, dims = rd.split("x")
    return tier, int(rows), int(dims), float(share)


def single_tier_spec(base: ModelSpec, arch: dict, shape: str) -> ModelSpec:
    """The recipe's steady spec reduced to one tier named ``tiny`` with ``shape``'s table."""
    tier, rows, dims, share = parse(shape)
    d = family_spec(base, "steady", arch).to_dict()
    d["tiers"] = ["tiny"]
    for k, v in list(d["arch"].items()):
        if isinstance(v, dict) and tier in v:
            d["arch"][k] = {"tiny": v[tier]}
    d["arch"]["buckets"] = {"tiny": rows}
    d["arch"]["dims"] = {"tiny": dims}
    d["arch"]["position_share"] = share
    return ModelSpec.from_dict(d)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT / "corpus")
    ap.add_argument("--cache", type=Path, default=ROOT / "cache" / "windows")
    ap.add_argument("--runs", type=Path, default=ROOT / "runs-shapes")
    ap.add_argument("--shape", action="append", help="tier:ROWSxDIMS:SHARE (repeatable)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "tier_shapes")
    args = ap.parse_args()
    plan = load_train_plan("content")["families"]["steady"]
    base = load_spec(args.corpus / "spec.json")
    cfg = TrainConfig.from_dict(plan["train"])
    rows = []
    for shape in args.shape or SHAPES:
        spec = single_tier_spec(base, plan["arch"], shape)
        run = args.runs / shape.replace(":", "-")
        metrics = run / "metrics.jsonl"
        done = metrics.is_file() and any(
            json.loads(line)["step"] >= cfg.steps for line in metrics.read_text().splitlines()
        )
        t0 = time.time()
        if not done:
            tr = load_manifest(args.corpus / "train.jsonl", spec, cache_dir=args.cache)
            va = load_manifest(args.corpus / "val.jsonl", spec, cache_dir=args.cache)
            info = {"n_train": len(tr), "n_val": len(va), "train_sha256": tr.data_hash}
            train(spec, tr, va, run, cfg, resume=(run / "checkpoint.pt").exists(), data_info=info)
        last = json.loads(metrics.read_text().splitlines()[-1])
        rows.append(
            {
                "shape": shape,
                "step": last["step"],
                "train_samples_per_s": last["train_samples_per_s"],
                "val": {k: round(v, 4) for k, v in last["val"]["tiny"].items()},
                "seconds": round(time.time() - t0),
            }
        )
        print(json.dumps(rows[-1]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    heads = list(rows[0]["val"])
    md = [
        "Single-tier steady runs, 3,000 steps x 128, validation sample of the content corpus "
        "(accuracy %; risk: micro-F1).",
        "",
        "Command: `python benchmarks/tier_shapes.py`",
        "",
        "| tier arch : rows x dims : positional share | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for r in rows:
        cells = [f"{100 * r['val'][h]:.1f}" for h in heads]
        md.append(f"| {r['shape']} | " + " | ".join(cells) + " |")
    args.out.with_suffix(".md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
