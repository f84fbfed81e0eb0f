"""Score benchmarks/compare.py's raw run and write NAME.json, NAME.md and NAME.png.

Accuracy is over the task's main (stratified) inputs; "short" over its short inputs. An anchor is
scored only on inputs whose true label it can express (``compare_maps.py``); picohead is scored on
all inputs, and again on each anchor's subset for the ratios. Latency is per input (one call, file
read included), p50/p95 over inputs within a repeat, then the median over repeats; throughput is
inputs / summed call time (sequential, one thread). Ratios are anchor / picohead tier (above 1:
picohead is faster, smaller, lighter); accuracy differences are picohead minus anchor, in points.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
from pathlib import Path
from typing import Any

import compare_maps as maps

NAMES = {"magika": "Magika", "fasttext": "fastText lid.176 (lite)",
         "fasttext-restricted": "fastText lid.176 (lite), our languages only",
         "langid": "langid.py", "langid-restricted": "langid.py, our languages only",
         "pygments": "Pygments guess_lexer", "guesslang": "vscode-languagedetection (guesslang)",
         "detect-secrets": "detect-secrets (default plugins)",
         "detect-secrets-noentropy": "detect-secrets without the entropy plugins"}
TITLES = {"mime": "MIME type", "text_lang": "Text language", "code_lang": "Code language",
          "risk": "Risk flags (per file)"}
WINDOW = 1024  # risk labels cover the first and last 1 KiB (picohead.data.risk.window)


def _formats() -> dict[str, tuple[str, str, str]]:
    from picohead.data.labels import FORMATS

    return FORMATS


def _magika_groups() -> dict[str, str]:
    spec = importlib.util.find_spec("magika")
    root = Path(spec.origin).parent if spec and spec.origin else None
    if root is None:
        return {}
    kb = json.loads((root / "config" / "content_types_kb.min.json").read_text())
    cfg = json.loads(next((root / "models").glob("*/config.min.json")).read_text())
    return {lab: kb.get(lab, {}).get("group") or "unknown" for lab in cfg["target_labels_space"]}


# -- predictions in our labels -------------------------------------------------------------------
def normalize(task: str, tool: str, pred: Any, item: dict[str, Any], langs: set[str]) -> Any:
    if tool.startswith("picohead-"):
        if task == "risk":
            return sorted(pred or [])
        return dict(pred) if task == "mime" else (pred or {}).get(task)
    if tool == "magika":
        if pred is None:
            return {"mime": None, "coarse": None}
        return {"mime": maps.magika_mime(pred["label"], pred["group"]),
                "coarse": maps.magika_coarse(pred["label"], pred["group"], _formats())}
    if tool.startswith(("fasttext", "langid")):
        mapped = [maps.lang(c) for c in pred or []]
        if tool.endswith("-restricted"):
            mapped = [c for c in mapped if c in langs]
        return mapped[0] if mapped else None
    if tool == "pygments":
        return maps.pygments_lang(pred)
    if tool == "guesslang":
        return maps.GUESSLANG.get(pred[0]) if pred else None
    if tool.startswith("detect-secrets"):
        hits = [t for t, line in pred or [] if _in_window(item, line)]
        return maps.detect_secrets_flags(hits, entropy=tool == "detect-secrets")
    raise ValueError(tool)


def _in_window(item: dict[str, Any], line: int) -> bool:
    """Whether 1-based ``line`` of the item's file touches the labelled window."""
    if item["size"] <= 2 * WINDOW or "file" not in item:
        return True
    data = Path(item["file"]).read_bytes()
    start = 0
    for _ in range(line - 1):
        start = data.find(b"\n", start) + 1
        if start == 0:
            return True
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    return start < WINDOW or end > len(data) - WINDOW


def shared_labels(task: str, tool: str, spec: dict[str, Any]) -> set[str] | None:
    """Our labels the anchor can express (None: all of ours)."""
    if tool.startswith("picohead-") or task == "text_lang":
        return None
    if tool == "magika":
        return maps.magika_shared(_magika_groups(), _formats())[0]
    if tool == "pygments":
        return set(maps.PYGMENTS.values())
    if tool == "guesslang":
        return set(maps.GUESSLANG.values())
    if tool.startswith("detect-secrets"):
        return set(maps.DETECT_SECRETS_SHARED)
    raise ValueError(tool)


# -- metrics ------------------------------------------------------------------------------------------
def _acc(pairs: list[tuple[Any, Any]]) -> float | None:
    return sum(p == t for p, t in pairs) / len(pairs) if pairs else None


def softmax_scores(task: str, items: list[dict[str, Any]], preds: list[Any],
                   shared: set[str] | None, key: str | None = None) -> dict[str, Any]:
    def pick(x: Any) -> Any:
        return x.get(key) if key and isinstance(x, dict) else x

    keep = [(pick(p), pick(it["truth"]), it) for p, it in zip(preds, items)
            if pick(it["truth"]) is not None and (shared is None or pick(it["truth"]) in shared)]
    main = [(p, t) for p, t, it in keep if it["main"]]
    short = [(p, t) for p, t, it in keep if it["short"]]
    return {"n": len(main), "accuracy": _acc(main), "n_short": len(short),
            "accuracy_short": _acc(short)}


def risk_scores(items: list[dict[str, Any]], preds: list[list[str]], labels: list[str]
                ) -> dict[str, Any]:
    per: dict[str, Any] = {}
    tp_all = fp_all = fn_all = 0
    main = [(set(p), set(it["truth"]) & set(labels)) for p, it in zip(preds, items) if it["main"]]
    main = [(p & set(labels), t) for p, t in main]
    for lab in labels:
        tp = sum(lab in p and lab in t for p, t in main)
        fp = sum(lab in p and lab not in t for p, t in main)
        fn = sum(lab not in p and lab in t for p, t in main)
        tp_all, fp_all, fn_all = tp_all + tp, fp_all + fp, fn_all + fn
        per[lab] = _prf(tp, fp, fn)
    micro = _prf(tp_all, fp_all, fn_all)
    return {"n": len(main), "labels": labels, "per_label": per, "micro": micro,
            "accuracy": micro["f1"], "exact_match": _acc([(p, t) for p, t in main]),
            "n_short": 0, "accuracy_short": None}


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | int | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * p * r / (p + r) if p and r else (0.0 if tp + fp + fn else None)
    return {"precision": p, "recall": r, "f1": f, "support": tp + fn}


def latency(runs: list[list[dict[str, Any]]], items: list[dict[str, Any]], which: str
            ) -> dict[str, float]:
    per_rep = []
    for rep in runs:
        xs = [r for r, it in zip(rep, items) if it[which]]
        if not xs:
            return {}
        wall = sorted(r["wall_us"] for r in xs)
        cpu = sorted(r["cpu_us"] for r in xs)
        per_rep.append({"p50_ms": _q(wall, .5) / 1e3, "p95_ms": _q(wall, .95) / 1e3,
                        "mean_ms": sum(wall) / len(wall) / 1e3,
                        "cpu_p50_ms": _q(cpu, .5) / 1e3, "cpu_p95_ms": _q(cpu, .95) / 1e3,
                        "files_per_s": len(wall) / (sum(wall) / 1e6)})
    return {k: statistics.median(r[k] for r in per_rep) for k in per_rep[0]}


def _q(s: list[float], q: float) -> float:
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


# -- the whole report ----------------------------------------------------------------------------
def score(raw: dict[str, Any]) -> dict[str, Any]:
    spec, langs = raw["spec"], set(raw["langs"])
    risk_labels = next(h["labels"] for h in spec["heads"] if h["name"] == "risk")
    out: dict[str, Any] = {}
    for task, items in raw["tasks"].items():
        tools = list(raw["task_tools"][task])
        preds = dict(raw["preds"][task])
        timings = dict(raw["timings"][task])
        if "detect-secrets" in preds:  # same scan, entropy findings dropped
            preds["detect-secrets-noentropy"] = preds["detect-secrets"]
            timings["detect-secrets-noentropy"] = timings["detect-secrets"]
            tools.append("detect-secrets-noentropy")
        rows: dict[str, Any] = {}
        norm = {t: [normalize(task, t, p, it, langs) for p, it in zip(preds[t], items)]
                for t in tools}
        for tool in tools:
            proc = "detect-secrets" if tool == "detect-secrets-noentropy" else tool
            shared = shared_labels(task, tool, spec)
            if task == "risk":
                s = risk_scores(items, norm[tool], sorted(shared) if shared else risk_labels)
            else:
                s = softmax_scores(task, items, norm[tool], shared,
                                   "mime" if task == "mime" else None)
                if task == "mime":
                    cs = maps.magika_shared(_magika_groups(), _formats())[1] \
                        if tool == "magika" else None
                    c = softmax_scores(task, items, norm[tool], cs, "coarse")
                    s.update({"coarse_n": c["n"], "coarse_accuracy": c["accuracy"],
                              "coarse_accuracy_short": c["accuracy_short"]})
            loads = raw["load_runs"].get(proc, [])
            s.update({
                "tool": tool, "name": NAMES.get(tool, tool),
                "version": loads[0]["version"] if loads else None,
                "shared_labels": sorted(shared) if shared is not None else "all",
                "latency": latency(timings[tool], items, "main"),
                "latency_short": latency(timings[tool], items, "short")
                if task == "text_lang" else {},
                "size_bytes": loads[0]["size_bytes"] if loads else None,
                "load_ms": _med(loads, "load_ms"), "load_cpu_ms": _med(loads, "load_cpu_ms"),
                "spawn_ms": _med(loads, "spawn_ms"), "rss_after_load_mb": _med(loads, "rss_mb"),
                "peak_rss_mb": raw["maxrss_mb"].get(proc),
                "batch_files_per_s": _batch_rate(raw.get("batch", {}).get(task, {}).get(proc)),
                "peak_rss_after_batch_mb": raw.get("maxrss_batch_mb", {}).get(proc),
            })
            s["top_confusions"] = confusions(items, norm[tool], shared, task)
            rows[tool] = s
        tiers = [t for t in tools if t.startswith("picohead-")]
        for tool in tools:
            if tool.startswith("picohead-"):
                continue
            a, shared = rows[tool], shared_labels(task, tool, spec)
            vs = {}
            for t in tiers:
                if task == "risk":
                    same = risk_scores(items, norm[t], sorted(shared or risk_labels))
                else:
                    same = softmax_scores(task, items, norm[t], shared,
                                          "mime" if task == "mime" else None)
                vs[t] = {"picohead_accuracy": same["accuracy"],
                         "picohead_accuracy_short": same["accuracy_short"],
                         "accuracy_diff_points": _diff(same["accuracy"], a["accuracy"]),
                         "accuracy_short_diff_points": _diff(same["accuracy_short"],
                                                             a["accuracy_short"]),
                         **_ratios(a, rows[t])}
            a["vs_picohead"] = vs
        out[task] = {"n_items": len(items), "n_main": sum(it["main"] for it in items),
                     "n_short": sum(it["short"] for it in items), "tools": rows}
    return out


def confusions(items: list[dict[str, Any]], preds: list[Any], shared: set[str] | None,
               task: str, top: int = 12) -> list[list[Any]]:
    """The most frequent (truth, prediction, count) errors on the main inputs."""
    from collections import Counter

    c: Counter[tuple[str, str]] = Counter()
    for p, it in zip(preds, items):
        if not it["main"]:
            continue
        t = it["truth"]
        if task == "mime":
            t, p = t["mime"], (p or {}).get("mime")
        if task == "risk":
            t = [x for x in t if shared is None or x in shared]
            t, p = ",".join(t) or "-", ",".join(p or []) or "-"
        elif shared is not None and t not in shared:
            continue
        if p != t:
            c[(str(t), str(p))] += 1
    return [[t, p, n] for (t, p), n in c.most_common(top)]


def _batch_rate(runs: list[dict[str, Any]] | None) -> float | None:
    """Median files/s of the tool's own batch API over the task's files (None: no batch API)."""
    if not runs:
        return None
    return statistics.median(r["n"] / (r["wall_us"] / 1e6) for r in runs if r["wall_us"] > 0)


def _med(xs: list[dict[str, Any]], k: str) -> float | None:
    vals = [x[k] for x in xs if x.get(k) is not None]
    return statistics.median(vals) if vals else None


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(100 * (a - b), 2)


def _ratios(a: dict[str, Any], t: dict[str, Any]) -> dict[str, float | None]:
    def r(x: float | None, y: float | None) -> float | None:
        return None if not x or not y else round(x / y, 2)

    la, lt = a["latency"], t["latency"]
    return {"latency_p50_ratio": r(la.get("p50_ms"), lt.get("p50_ms")),
            "latency_p95_ratio": r(la.get("p95_ms"), lt.get("p95_ms")),
            "cpu_p50_ratio": r(la.get("cpu_p50_ms"), lt.get("cpu_p50_ms")),
            "throughput_ratio": r(la.get("files_per_s"), lt.get("files_per_s")),
            "size_ratio": r(a["size_bytes"], t["size_bytes"]),
            "load_ratio": r(a["load_ms"], t["load_ms"]),
            "peak_rss_ratio": r(a["peak_rss_mb"], t["peak_rss_mb"])}


def write(raw: dict[str, Any], out_dir: Path, name: str, cmd: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    scores = score(raw)
    info = dict(raw["info"], command=cmd)
    doc = {"info": info, "tasks": scores,
           "mappings": {"magika_mime": maps.MAGIKA_MIME, "pygments": maps.PYGMENTS,
                        "guesslang": maps.GUESSLANG, "detect_secrets": maps.DETECT_SECRETS,
                        "lang_aliases": maps.LANG_ALIASES}}
    paths = [out_dir / f"{name}.json", out_dir / f"{name}.md", out_dir / f"{name}.png"]
    if raw["info"].get("save_predictions"):
        paths.append(out_dir / f"{name}-predictions.jsonl")
        with open(paths[-1], "w") as f:
            for task, items in raw["tasks"].items():
                for i, it in enumerate(items):
                    row = {"task": task, "id": it["id"], "truth": it["truth"], "main": it["main"],
                           "short": it["short"], "size": it["size"],
                           "preds": {t: p[i] for t, p in raw["preds"][task].items()}}
                    f.write(json.dumps(row) + "\n")
    paths[0].write_text(json.dumps(doc, indent=1, default=float) + "\n")
    paths[1].write_text(markdown(info, scores))
    plot(scores, paths[2], info)
    return paths


# -- markdown and plot --------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def _label(row: dict[str, Any]) -> str:
    return row["tool"].replace("picohead-", "picohead ") if row["tool"].startswith(
        "picohead-") else row["name"]


def markdown(info: dict[str, Any], scores: dict[str, Any]) -> str:
    la = info["loadavg_1min_samples"]
    lines = [f"**{info['note']}**", ""] if info.get("note") else []
    lines += [
        f"Run {info['started']} – {info['finished']} on {info['cpus']} CPUs; 1-minute load "
        f"average during the run min/median/max {la['min']:.1f}/{la['median']:.1f}/{la['max']:.1f}"
        f" ({la['n']} samples). Model: {info['model']}. {info['repeats']} interleaved repeats, "
        "medians reported; one thread per tool; latency per input including the file read.",
        "", f"Command: `{info['command']}`", ""]
    if info.get("failed_tools"):
        lines += ["Failed during the run (left out): " + "; ".join(
            f"{k} ({v})" for k, v in info["failed_tools"].items()), ""]
    if info.get("skipped_tools"):
        lines += ["Skipped: " + "; ".join(f"{k} ({v})" for k, v in info["skipped_tools"].items()),
                  ""]
    lines += headline(scores) + [""]
    for task, s in scores.items():
        short = {"mime": "files < 256 B", "code_lang": "files < 256 B",
                 "text_lang": "cut to ≤ 50 B", "risk": "–"}[task]
        metric = "micro-F1" if task == "risk" else "accuracy %"
        lines += [f"### {TITLES[task]} ({s['n_main']} inputs; short: {short})", ""]
        head = f"| tool | labels scored | n | {metric} | short |"
        if task == "mime":
            head += " coarse % |"
        head += (" p50 ms | p95 ms | CPU p50 ms | files/s | batched files/s | model MB | load ms |"
                 " peak RSS MB |")
        lines += [head, "|" + "---|" * (head.count("|") - 1)]
        for row in s["tools"].values():
            lat = row["latency"]
            shared = row["shared_labels"]
            cells = [_label(row), "all" if shared == "all" else f"{len(shared)} shared",
                     str(row["n"]), _pct(row["accuracy"]), _pct(row["accuracy_short"])]
            if task == "mime":
                cells.append(_pct(row.get("coarse_accuracy")))
            cells += [_num(lat.get("p50_ms"), "{:.3f}"), _num(lat.get("p95_ms"), "{:.3f}"),
                      _num(lat.get("cpu_p50_ms"), "{:.3f}"), _num(lat.get("files_per_s"), "{:.0f}"),
                      _num(row["batch_files_per_s"], "{:.0f}"),
                      _num(row["size_bytes"] / 2**20 if row["size_bytes"] else None),
                      _num(row["load_ms"], "{:.0f}"), _num(row["peak_rss_mb"], "{:.0f}")]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "Each anchor against each picohead tier on the anchor's labels "
                  "(accuracy: picohead − anchor in points; others: anchor ÷ picohead):", "",
                  "| anchor | tier | Δ acc | Δ short | p50 × | CPU p50 × | size × | load × | "
                  "peak RSS × |", "|---|---|---|---|---|---|---|---|---|"]
        for row in s["tools"].values():
            for tier, v in row.get("vs_picohead", {}).items():
                lines.append("| " + " | ".join([
                    _label(row), tier.replace("picohead-", ""),
                    _num(v["accuracy_diff_points"], "{:+.1f}"),
                    _num(v["accuracy_short_diff_points"], "{:+.1f}"),
                    _num(v["latency_p50_ratio"], "{:.1f}"), _num(v["cpu_p50_ratio"], "{:.1f}"),
                    _num(v["size_ratio"], "{:.1f}"), _num(v["load_ratio"], "{:.1f}"),
                    _num(v["peak_rss_ratio"], "{:.1f}")]) + " |")
        lines.append("")
    return "\n".join(lines)


def headline(scores: dict[str, Any]) -> list[str]:
    """One compact table over all tasks (the one quoted in the top-level README)."""
    lines = ["| task | tool | scored on | accuracy % (risk: micro-F1) | short % | p50 ms | "
             "CPU p50 ms | model MB | peak RSS MB |", "|---|---|---|---|---|---|---|---|---|"]
    for task, s in scores.items():
        for row in s["tools"].values():
            lat = row["latency"]
            shared = row["shared_labels"]
            lines.append("| " + " | ".join([
                TITLES[task].split(" (")[0], _label(row),
                f"{row['n']}" + ("" if shared == "all" else f" ({len(shared)} labels)"),
                _pct(row["accuracy"]), _pct(row["accuracy_short"]),
                _num(lat.get("p50_ms"), "{:.2f}"), _num(lat.get("cpu_p50_ms"), "{:.2f}"),
                _num(row["size_bytes"] / 2**20 if row["size_bytes"] else None),
                _num(row["peak_rss_mb"], "{:.0f}")]) + " |")
    return lines


def plot(scores: dict[str, Any], path: Path, info: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 2 if len(scores) > 1 else 1
    nrows = (len(scores) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(6.4 * cols, 4.6 * nrows), squeeze=False)
    for ax in axes.flat[len(scores):]:
        ax.axis("off")
    for ax, (task, s) in zip(axes.flat, scores.items()):
        rows = s["tools"]
        tiers = [r for t, r in rows.items() if t.startswith("picohead-")]
        xs = [r["latency"].get("p50_ms") for r in tiers]
        ys = [r["accuracy"] for r in tiers]
        if tiers and all(x is not None and y is not None for x, y in zip(xs, ys)):
            ax.plot(xs, [100 * y for y in ys], "o-", color="C0", label="picohead (all labels)")
            for r, x, y in zip(tiers, xs, ys):
                ax.annotate(r["tool"].split("-", 1)[1], (x, 100 * y), fontsize=7,
                            textcoords="offset points", xytext=(3, 3))
        for i, r in enumerate(r for r in rows.values() if "vs_picohead" in r):
            x, y = r["latency"].get("p50_ms"), r["accuracy"]
            if x is None or y is None:
                continue
            ax.plot([x], [100 * y], "s", color=f"C{i + 1}", label=_label(r))
            same = [(rows[k]["latency"].get("p50_ms"), v["picohead_accuracy"])
                    for k, v in r["vs_picohead"].items() if v["picohead_accuracy"] is not None]
            if same and r["shared_labels"] != "all":
                ax.plot([a for a, _ in same], [100 * b for _, b in same], ":", color=f"C{i + 1}",
                        alpha=.6, label=f"picohead on {r['tool']}'s labels")
        ax.set_xscale("log")
        ax.set_xlabel("p50 latency per input, ms (log)")
        ax.set_ylabel("micro-F1 %" if task == "risk" else "accuracy %")
        ax.set_title(TITLES[task], fontsize=10)
        ax.grid(alpha=.3, which="both")
        ax.legend(fontsize=6)
    la = info["loadavg_1min_samples"]
    fig.suptitle(f"picohead vs anchors, {info['started'][:10]}, {info['cpus']} CPUs, load "
                 f"{la['median']:.1f} (median), model {info['model']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
