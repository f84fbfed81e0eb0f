"""Figures of docs/licence-head.md: the added ``licence`` head's exported tiers on the licence test
split, and the old heads of the same files against the base run's files.

    python benchmarks/licence_head.py --run runs-licence/steady-licence \
        --base runs/content-steady --data runs-licence/data-v1 \
        --other corpus-v1/test.jsonl --out docs/licence-head.json

Per tier (the int8 ONNX files users run; ``--precision fp32`` with ``--run-onnx``/``--base-onnx``
compares fp32 exports instead): accuracy, macro-F1 and per-class scores on the test
split, accuracy by sample origin (Debian copyright paragraph, upstream file, common-licenses) and by
cut (whole text, first 1024 or 256 bytes). Old heads: top-1 agreement and max |delta prob| of every
old head between the new file and the base run's file of the same tier, on the licence test split
plus ``--n-other`` samples of ``--other`` (the int8 export quantizes each file on its own, so the
torch weights are bit-identical but the files need not be).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from picohead.dataset import load_manifest
from picohead.evaluate import evaluate_logits
from picohead_runtime import scoring
from picohead_runtime.spec import ModelSpec


def _files(folder: Path, precision: str) -> dict[str, Path]:
    """tier -> ``<folder>/<name>-<tier>-<precision>.onnx``, in tier order."""
    out = {}
    for tier in ("tiny", "small", "base", "pro"):
        hits = sorted(folder.glob(f"*-{tier}-{precision}.onnx"))
        if hits:
            out[tier] = hits[0]
    return out


def _subset_manifest(src: Path, n: int, dest: Path) -> Path:
    lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip()]
    rng = np.random.default_rng(0)
    keep = sorted(rng.choice(len(lines), size=min(n, len(lines)), replace=False))
    out = []
    for i in keep:
        r = json.loads(lines[i])
        if "path" in r and not Path(r["path"]).is_absolute():
            r["path"] = str((src.parent / r["path"]).resolve())
        out.append(json.dumps(r))
    dest.write_text("\n".join(out) + "\n")
    return dest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True, help="licence dataset folder")
    ap.add_argument("--other", type=Path, help="a content test manifest for the old heads")
    ap.add_argument("--n-other", type=int, default=1000)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--precision", default="int8", help="which files: int8 | fp32 | fp16")
    ap.add_argument("--run-onnx", type=Path, help="folder of the new run's files (RUN/onnx)")
    ap.add_argument("--base-onnx", type=Path, help="folder of the base run's files (BASE/onnx)")
    a = ap.parse_args()

    new_files = _files(a.run_onnx or a.run / "onnx", a.precision)
    base_files = _files(a.base_onnx or a.base / "onnx", a.precision)
    head = json.loads((a.data / "head.json").read_text())
    test_path = a.data / "test.jsonl"
    prov = {json.loads(x)["id"]: json.loads(x) for x in
            (a.data / "provenance.jsonl").read_text().splitlines()}
    report: dict = {"run": str(a.run), "base": str(a.base), "test": str(test_path),
                    "precision": a.precision, "tiers": {}}
    other = None
    if a.other:
        other = _subset_manifest(a.other, a.n_other, a.out.with_suffix(".other.jsonl"))
    for tier, path in new_files.items():
        sess = scoring.open_file(path)
        spec = sess.meta.spec
        only = ModelSpec.from_dict({**spec.to_dict(), "heads": [head]})
        test = load_manifest(test_path, only, cache_dir=a.cache)
        logits = scoring.file_logits(sess, test.windows, test.lengths)
        m = evaluate_logits(only, {"licence": logits["licence"]}, test)["licence"]
        pred = logits["licence"].argmax(1)
        y = test.labels["licence"]
        by: dict[str, dict[str, list[int]]] = {"origin": defaultdict(list), "cut": defaultdict(list)}
        for i, sid in enumerate(test.ids):
            p = prov[str(sid)]
            by["origin"][p["origin"]].append(int(pred[i] == y[i]))
            by["cut"][p["cut"]].append(int(pred[i] == y[i]))
        entry = {
            "file": str(path), "bytes": path.stat().st_size,
            "licence": {k: v for k, v in m.items() if k != "matrix"},
            "by": {k: {g: {"n": len(v), "accuracy": round(float(np.mean(v)), 4)}
                       for g, v in sorted(d.items())} for k, d in by.items()},
        }
        if tier in base_files:
            old = scoring.open_file(base_files[tier])
            old_spec = old.meta.spec
            sets = [test_path] + ([other] if other else [])
            loaded = [load_manifest(mp, spec, cache_dir=a.cache) for mp in sets]
            outs = [
                (
                    scoring.file_logits(sess, d.windows, d.lengths),
                    scoring.file_logits(old, d.windows, d.lengths),
                )
                for d in loaded
            ]
            agree: dict[str, dict[str, float]] = {}
            for h in old_spec.heads:
                n_same = n_all = 0
                dmax = 0.0
                for lo_n, lo_o in outs:
                    lo_new, lo_old = lo_n[h.name], lo_o[h.name]
                    pn, po = np.exp(lo_new), np.exp(lo_old)
                    if h.multilabel:
                        pn, po = 1 / (1 + np.exp(-lo_new)), 1 / (1 + np.exp(-lo_old))
                        n_same += int(((pn > 0.5) == (po > 0.5)).sum())
                        n_all += pn.size
                    else:
                        n_same += int((pn.argmax(1) == po.argmax(1)).sum())
                        n_all += len(pn)
                    dmax = max(dmax, float(np.abs(pn - po).max()))
                agree[h.name] = {"agreement": round(n_same / max(1, n_all), 5),
                                 "max_abs_dprob": dmax}
            entry["old_heads_vs_base"] = agree
            entry["base_file"] = str(base_files[tier])
        report["tiers"][tier] = entry
        print(tier, f"licence acc {m['accuracy']:.3f} macro-F1 {m['macro_f1']:.3f}",
              json.dumps(entry.get("old_heads_vs_base", {})))
    a.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
