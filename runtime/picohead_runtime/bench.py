"""``picohead bench``: warm end-to-end latency per file, and a latency budget for CI.

What it measures: for each tier, after warming the session up, ``classify_path`` on each input
file in turn (open + read the windows + run + decode: everything a user's call costs), timed one
call at a time; then batched throughput through ``classify_paths``. It prints p50/p95/p99, files/s
single and batched, and exits 1 when the chosen percentile exceeds ``--budget-ms``.

Inputs: ``--input`` (a file or a folder, read recursively, at most ``--max-files``); without it, a
fixed synthetic set (short and long text, code, binary-looking bytes) is written to a temporary
folder and removed afterwards. Files that give no model call (empty, unreadable) are left out of
the timing; when none is left, nothing was timed and the run fails (exit 2): a latency gate never
passes on nothing. Exit codes: 0 within budget (or no budget), 1 over budget, 2 usage, model or
I/O error (nothing to time, results that cannot be written), with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from picohead_runtime.cli import Output, add_model_args, fail, silence_stdout, tier_help
from picohead_runtime.errors import OutputError, PicoheadError
from picohead_runtime.model import ModelError, resolve_model_path
from picohead_runtime.options import BATCH_SIZE, add_to_parser
from picohead_runtime.options import positive as _positive
from picohead_runtime.spec import SpecError

log = logging.getLogger("picohead_runtime.bench")


class NothingToTime(PicoheadError):
    """No input gives a model call (all empty or unreadable): exit 2, never a passing gate."""


def build_parser(
    prog: str | None = None, argv: Sequence[str] | None = None
) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Measure warm per-file latency (read windows + infer) and files/s; exit 1 "
        "when the chosen percentile exceeds --budget-ms.",
        epilog="Exit codes: 0 within budget, 1 over budget, 2 usage, model or I/O error "
        "(including nothing to time: every input empty or unreadable).",
    )
    add_model_args(p)
    tiers = p.add_mutually_exclusive_group()
    tiers.add_argument(
        "--tier", help=tier_help(argv).replace("model tier to load", "tier to measure")
    )
    tiers.add_argument(
        "--all-tiers", action="store_true", help="measure every tier found in the model folder"
    )
    p.add_argument("--input", metavar="PATH|DIR", help="files to classify (default: synthetic)")
    p.add_argument("--budget-ms", type=float, metavar="X", help="latency budget per file, in ms")
    p.add_argument(
        "--percentile", type=float, default=95.0, metavar="P", help="percentile gated (95)"
    )
    p.add_argument(
        "--iterations", type=_positive, default=2000, metavar="N", help="timed calls per tier"
    )
    p.add_argument("--warmup", type=_positive, default=200, metavar="N", help="untimed calls first")
    p.add_argument(
        "--max-files", type=_positive, default=2000, metavar="N", help="files taken from --input"
    )
    add_to_parser(p, BATCH_SIZE)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    return p


# -- inputs -------------------------------------------------------------------------------------------
def collect_inputs(path: str, limit: int) -> list[str]:
    if os.path.isfile(path):
        if os.path.getsize(path) == 0:
            raise NothingToTime(f"--input {path}: the file is empty; nothing to time")
        return [path]
    if not os.path.isdir(path):
        raise FileNotFoundError(f"--input {path}: no such file or folder")
    files: list[str] = []
    for dirpath, dirs, names in os.walk(path):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(dirpath, name)
            if os.path.isfile(full) and not os.path.islink(full) and os.path.getsize(full) > 0:
                files.append(full)
                if len(files) >= limit:
                    return files
    if not files:
        raise NothingToTime(f"--input {path}: no non-empty regular files found; nothing to time")
    return files


def timeable(clf: Any, files: Sequence[str]) -> list[str]:
    """The files whose classification runs the model (``ok``); :class:`NothingToTime` if none."""
    keep = [f for f in files if clf.classify_path(f).ok]
    if not keep:
        raise NothingToTime(
            f"none of the {len(files)} input file(s) gives a model call (all empty or "
            "unreadable); nothing to time"
        )
    if len(keep) < len(files):
        log.warning("left out %d input file(s) that give no model call", len(files) - len(keep))
    return keep


def write_synthetic(folder: Path, n: int = 64, seed: int = 0) -> list[str]:
    """A fixed mix: code, prose, JSON, binary with magic numbers; 40 B to 256 KB."""
    rng = random.Random(seed)
    words = "the of and to in is that for it as was with be by on not this are or from".split()
    code = [
        b"def f(x):\n    return x + 1\n",
        b"#include <stdio.h>\nint main(void) { return 0; }\n",
        b"function g(a) { return a * 2; }\n",
        b'fn main() { println!("hi"); }\n',
    ]
    out = []
    for i in range(n):
        size = rng.choice([40, 200, 1000, 2048, 8192, 65536, 262144])
        kind = i % 4
        if kind == 0:
            unit = rng.choice(code)
        elif kind == 1:
            unit = (" ".join(rng.choice(words) for _ in range(12)) + ".\n").encode()
        elif kind == 2:
            unit = json.dumps({"id": i, "name": "x" * (i % 7), "ok": True}).encode() + b"\n"
        else:
            unit = b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(256))
        data = (unit * (size // len(unit) + 1))[:size]
        p = folder / f"sample-{i:03d}"
        p.write_bytes(data)
        out.append(str(p))
    return out


# -- measuring ----------------------------------------------------------------------------------------
def percentile(sorted_ms: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_ms:
        return float("nan")
    rank = math.ceil(q / 100.0 * len(sorted_ms) - 1e-9)  # the smallest value with >= q% at or below
    k = max(0, min(len(sorted_ms) - 1, rank - 1))
    return sorted_ms[k]


def measure(
    clf: Any, files: Sequence[str], *, iterations: int, warmup: int, pct: float = 95.0
) -> dict[str, Any]:
    classify = clf.classify_path
    for i in range(warmup):
        classify(files[i % len(files)])
    lat_ns = []
    clock = time.perf_counter_ns
    t_start = clock()
    for i in range(iterations):
        f = files[i % len(files)]
        t0 = clock()
        classify(f)
        lat_ns.append(clock() - t0)
    single_s = (clock() - t_start) / 1e9
    ms = sorted(x / 1e6 for x in lat_ns)

    batched_files = list(files) * max(1, -(-max(iterations, 2 * clf.batch_size) // len(files)))
    tb = time.perf_counter()
    n = sum(1 for _ in clf.classify_paths(batched_files))
    batched_s = time.perf_counter() - tb
    return {
        f"p{pct:g}_ms": percentile(ms, pct),
        "files": len(files),
        "calls": iterations,
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "mean_ms": sum(ms) / len(ms),
        "max_ms": ms[-1],
        "files_per_s": iterations / single_s,
        "batched_files_per_s": n / batched_s,
        "batch_size": clf.batch_size,
    }


def tiers_to_measure(args: argparse.Namespace) -> list[str | None]:
    if not args.all_tiers:
        return [args.tier]
    model = args.model or os.environ.get("PICOHEAD_MODEL")
    folder = Path(model) if model else resolve_model_path(None, None).parent
    if not folder.is_dir():
        raise ModelError(f"--all-tiers needs a model folder; {folder} is a file")
    from picohead_runtime.classifier import Classifier

    # the spec inside any tier's file lists every tier; keep the ones present in the folder
    any_file = sorted(folder.glob("*.onnx"))
    if not any_file:
        raise ModelError(f"{folder}: no .onnx files")
    spec = Classifier(any_file[0], device="cpu").spec
    found: list[str | None] = []
    for t in spec.tiers:
        try:
            resolve_model_path(folder, t, args.device)
        except ModelError:
            continue
        found.append(t)
    return found


def format_table(rows: list[dict[str, Any]], pct: float) -> str:
    head = (
        f"{'tier':<8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'files/s':>10}"
        f"{'batched/s':>11}  budget"
    )
    lines = [head]
    for r in rows:
        verdict = "-"
        if r.get("budget_ms") is not None:
            word = "ok" if r["within_budget"] else "OVER"
            verdict = f"p{pct:g} {r[f'p{pct:g}_ms']:.3f} vs {r['budget_ms']:g} ms: {word}"
        lines.append(
            f"{r['tier']:<8}{r['p50_ms']:>9.3f}{r['p95_ms']:>9.3f}{r['p99_ms']:>9.3f}"
            f"{r['files_per_s']:>10,.0f}{r['batched_files_per_s']:>11,.0f}  {verdict}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = build_parser(prog, argv)
    args = parser.parse_args(argv)
    if not 0 < args.percentile <= 100:
        parser.error(f"--percentile must be in (0, 100], got {args.percentile:g}")
    if args.budget_ms is not None and args.budget_ms <= 0:
        parser.error(f"--budget-ms must be positive, got {args.budget_ms:g}")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        out = Output(sys.stdout)
    except OutputError as e:  # before minutes of timing, not after
        return fail(parser.prog, str(e))

    from picohead_runtime.classifier import Classifier

    tmp: tempfile.TemporaryDirectory[str] | None = None
    try:
        if args.input:
            files = collect_inputs(args.input, args.max_files)
        else:
            tmp = tempfile.TemporaryDirectory(prefix="picohead-bench-")
            files = write_synthetic(Path(tmp.name))
        rows = []
        for tier in tiers_to_measure(args):
            clf = Classifier(
                args.model,
                tier=tier,
                device=args.device,
                threads=args.threads,
                batch_size=args.batch_size,
            )
            with clf:
                timed = timeable(clf, files)
                row = {
                    "tier": clf.tier,
                    "model": clf.model_path,
                    "device": clf.device,
                    "threads": args.threads,
                }
                row.update(
                    measure(
                        clf,
                        timed,
                        iterations=args.iterations,
                        warmup=args.warmup,
                        pct=args.percentile,
                    )
                )
            key = f"p{args.percentile:g}_ms"
            if args.budget_ms is not None:
                row["budget_ms"] = args.budget_ms
                row["percentile"] = args.percentile
                row["within_budget"] = row[key] <= args.budget_ms
            rows.append(row)
    except (ModelError, SpecError, FileNotFoundError, NothingToTime) as e:
        return fail(parser.prog, str(e))
    except OSError as e:  # the synthetic inputs could not be written (a full /tmp, ...)
        return fail(parser.prog, f"cannot prepare the inputs: {e.strerror or e}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    if not rows:
        return fail(parser.prog, "no tier found to measure; nothing was timed")
    try:
        out.write(
            (
                json.dumps({"results": rows}, indent=1)
                if args.json
                else format_table(rows, args.percentile)
            )
            + "\n"
        )
        out.flush()
    except BrokenPipeError:
        silence_stdout()
    except OutputError as e:
        silence_stdout()
        return fail(parser.prog, str(e))
    over = [r["tier"] for r in rows if r.get("within_budget") is False]
    if over:
        print(
            f"over budget: p{args.percentile:g} > {args.budget_ms:g} ms for tier(s) "
            + ", ".join(over),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    from picohead_runtime.cli import guarded

    sys.exit(guarded(main, None, "python -m picohead_runtime.bench"))
