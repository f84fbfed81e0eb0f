"""The wild benchmark: build the wild suite, then score picohead and the anchors on it in one run.

    # once: anchors (benchmarks/requirements.txt), guesslang (cd benchmarks/node && npm ci), the
    # programs that make wild files (apt-get install -y $(python benchmarks/wild.py apt-packages)),
    # and the git mirrors (python benchmarks/wild.py clone-list --mirrors MIRRORS | sh)
    python benchmarks/wild.py build --suite wild --cache cache-wild --mirrors MIRRORS
    python benchmarks/wild.py score --suite wild --split test --out benchmarks/results/wild.json

``build`` runs every source builder of ``picohead.wild.sources`` (a builder that fails is reported
by name and the build exits 2 unless ``--allow-missing`` names it), merges and splits the suite by
project, checks it is independent of the corpus (``picohead.data.producers``; with
``--corpus-manifest`` also by content hash) and writes ``card.json`` (samples and producers per
task and label, floors met or not). Projects already in ``benchmarks/wild_splits.json`` keep
their half there (``--splits``); only new ones are dealt, so adding a source or dropping a file
as corpus content does not move a project between halves. After a full build that is to be the
yardstick, copy ``SUITE/splits.json`` over it and commit it. ``score`` runs each tier of the model folder and every anchor on
the same records of one half (``dev`` for choices and calibration, ``test`` for every published
figure): accuracy of final answers, raw top-1, coverage, confident-wrong, per-class P/R/F1, the
text kinds, files under 256 bytes, risk per flag and look-alikes, whitespace/NUL padding, 0-16-byte
inputs and batch invariance; it writes ``--out`` (JSON) with a Markdown report beside it.
Anchors run in their own processes (``compare_worker.py``, ``node/guesslang_worker.js``) on the
suite's blob files; their answers are folded onto the suite's labels by ``wild_maps.py``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SPLITS_FILE = HERE / "wild_splits.json"  # project -> half of the last full build (see build)
sys.path.insert(0, str(HERE))
import wild_maps  # noqa: E402

from picohead.data.producers import (  # noqa: E402
    IndependenceError,
    check_independence,
    corpus_producers,
    wild_recipe_entries,
)
from picohead.wild import metrics  # noqa: E402
from picohead.wild.report import report_md  # noqa: E402
from picohead.wild.suite import (  # noqa: E402
    RISK_FLAGS,
    TASKS,
    finalise,
    load_suite,
    read_splits,
    write_manifest,
)

log = logging.getLogger("wild")
TIERS = ("tiny", "small", "base", "pro")
SHORT = 256
FLOORS = {"mime": 3000, "code_lang": 2000, "risk": 1500}
TEXT_FLOOR = 200  # per language and kind
ANCHORS = {
    "mime": ["magika", "libmagic"],
    "code_lang": ["guesslang", "pygments"],
    "text_lang": ["lingua-restricted", "fasttext-restricted", "langid-restricted"],
    "risk": ["detect-secrets"],
}
BUILDERS = ("formats", "programs", "code", "text", "risk")


# -- build ------------------------------------------------------------------------------------------
def build(args: argparse.Namespace) -> int:
    import importlib

    suite, cache, mirrors = Path(args.suite), Path(args.cache), Path(args.mirrors)
    try:
        pinned = read_splits(Path(args.splits)) if args.splits else None
        # read before the builders run (minutes), so a bad list fails at once
        corpus = corpus_producers(
            manifest=Path(args.corpus_manifest) if args.corpus_manifest else None,
            ids=[Path(p) for p in args.corpus_ids])
    except (OSError, ValueError) as e:
        print(f"wild build: {e}", file=sys.stderr)
        return 2
    suite.mkdir(parents=True, exist_ok=True)
    failed: dict[str, str] = {}
    for name in filter(None, args.builders.split(",")):  # '' re-finalises the stages on disk
        t0 = time.time()
        try:
            mod = importlib.import_module(f"picohead.wild.sources.{name}")
            mod.build(suite, cache=cache, mirrors=mirrors)
        except Exception as e:  # a builder's failure is reported by name, never swallowed
            failed[name] = f"{type(e).__name__}: {e}"
            log.error("builder %s failed: %s", name, failed[name])
        log.info("builder %s: %.0f s", name, time.time() - t0)
    recs = finalise(suite, pinned=pinned)
    shared = [r for r in recs if corpus.holds(r["id"])]
    if shared:  # the same bytes in a corpus build: dedup (the producer rule is checked below)
        drop = {r["id"] for r in shared}
        recs = [r for r in recs if r["id"] not in drop]
        write_manifest(suite, recs)
        log.warning("dropped %d wild samples whose content a corpus build holds", len(shared))
    try:
        check_independence(recs, corpus)
    except IndependenceError as e:
        print(f"wild build: {e}", file=sys.stderr)
        return 2
    card = suite_card(recs)
    projects = {r["project"] for r in recs}
    card["failed_builders"] = failed
    card["splits_pinned"] = ({"from": args.splits, "pinned": sum(p in pinned for p in projects),
                              "dealt": sum(p not in pinned for p in projects)}
                             if pinned is not None else None)
    card["dropped_as_corpus_content"] = (
        [{"producer": r["producer"], "path": r["prov"]["path"], "id": r["id"]} for r in shared]
        if args.corpus_manifest or args.corpus_ids else None)
    card["skipped_sources"] = [x for f in sorted((suite / ".stages").glob("*.skipped.json"))
                               for x in json.loads(f.read_text())]
    (suite / "card.json").write_text(json.dumps(card, indent=1, ensure_ascii=False))
    print(card_summary(card))
    allowed = set(filter(None, args.allow_missing.split(",")))
    skipped = [x for x in card["skipped_sources"] if x["producer"] not in allowed]
    if len(skipped) > args.max_skipped:
        print(f"wild build: {len(skipped)} pinned sources gave nothing (--max-skipped "
              f"{args.max_skipped}): " + "; ".join(f"{x['producer']}: {x['reason'][-120:]}"
                                                   for x in skipped[:10]), file=sys.stderr)
        return 2
    if set(failed) - allowed:
        print(f"wild build: builders failed: {', '.join(sorted(set(failed) - allowed))} "
              "(see the log; --allow-missing NAME to accept)", file=sys.stderr)
        return 2
    return 0


def suite_card(recs: list[dict[str, Any]]) -> dict[str, Any]:
    card: dict[str, Any] = {"samples": len(recs), "tasks": {}}
    for task in TASKS:
        rs = [r for r in recs if r["task"] == task]
        labels: dict[str, dict[str, Any]] = {}
        by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rs:
            keys = r["label"] if task == "risk" else [r["label"]]
            for k in keys or [f"({r['kind']})"]:
                by_label[k].append(r)
        for lab, xs in sorted(by_label.items()):
            labels[lab] = {"n": len(xs), "producers": len({x["project"] for x in xs}),
                           "dev": sum(x["split"] == "dev" for x in xs),
                           "test": sum(x["split"] == "test" for x in xs)}
            if task == "text_lang":
                labels[lab]["kinds"] = dict(Counter(x["kind"] for x in xs))
        card["tasks"][task] = {
            "n": len(rs), "labels": len(by_label), "producers": len({r["project"] for r in rs}),
            "under_256_bytes": sum(r["size"] < SHORT for r in rs),
            "splits": dict(Counter(r["split"] for r in rs)), "kinds": dict(Counter(
                str(r["kind"]) for r in rs)), "per_label": labels}
    return card


def card_summary(card: dict[str, Any]) -> str:
    lines = [f"wild suite: {card['samples']} samples"]
    for task, t in card["tasks"].items():
        floor = FLOORS.get(task)
        need = {"mime": 5, "code_lang": 5, "text_lang": 2}.get(task, 0)  # text: both halves
        few = [lab for lab, v in t["per_label"].items() if v["producers"] < need]
        lines.append(f"  {task}: {t['n']} samples, {t['labels']} labels, {t['producers']} producers"
                     f", {t['under_256_bytes']} under 256 B, splits {t['splits']}"
                     + (f" (floor {floor}: {'met' if t['n'] >= floor else 'MISSED'})"
                        if floor else "")
                     + (f"; {len(few)} labels with < {need} producers: {', '.join(few[:15])}"
                        if few else ""))
    return "\n".join(lines)


# -- score ------------------------------------------------------------------------------------------
def key(r: dict[str, Any]) -> str:
    """A record's key: the same bytes can be a sample of two tasks (``{}`` is risk and code)."""
    return f"{r['task']}:{r['id']}"


def picohead_rows(clf: Any, suite: Path, recs: list[dict[str, Any]],
                  robust: list[dict[str, Any]], tiny: list[dict[str, Any]]) -> dict[str, Any]:
    from picohead.wild import score

    t0 = time.time()
    answers = {key(r): a for r, a in zip(recs, score.predict(clf, suite, recs))}
    out: dict[str, Any] = {"model": clf.model_name, "tier": clf.tier, "answers": answers,
                           "labels": {h.name: list(h.labels) for h in clf.spec.heads}}
    base = {key(r): answers[key(r)] for r in robust}
    out["robustness"] = score.robustness(clf, suite, robust, base)
    out["batch"] = score.batch_invariance(clf, suite, robust)
    out["tiny_inputs"] = {"n": len(tiny), "flagged": sum(bool(answers[key(r)]["flags"])
                                                          for r in tiny if not r["label"])}
    out["seconds"] = round(time.time() - t0, 1)
    return out


def anchor_answers(tool: str, suite: Path, recs: list[dict[str, Any]], langs: list[str],
                   logf: Path) -> list[Any] | None:
    import compare

    try:
        w = compare.Worker(tool, compare.command(tool, None, langs), logf)
    except Exception as e:
        log.error("anchor %s did not start: %s", tool, e)
        return None
    preds: list[Any] = []
    try:
        for i in range(0, len(recs), 64):
            chunk = recs[i:i + 64]
            resp = w.ask({"op": "run", "task": chunk[0]["task"],
                          "items": [{"path": str((suite / r["path"]).resolve())} for r in chunk]})
            preds += [x["pred"] for x in resp["results"]]
    finally:
        w.close()
    return preds


def anchor_label(tool: str, task: str, pred: Any, langs: list[str]) -> Any:
    if pred is None:
        return None
    if tool == "magika":
        return wild_maps.magika_mime(pred["label"])
    if tool == "libmagic":
        return wild_maps.canonical_mime(pred)
    if tool == "pygments":
        return wild_maps.pygments_lang(pred)
    if tool == "guesslang":
        return wild_maps.guesslang_lang(pred)
    if tool == "detect-secrets":
        return wild_maps.detect_secrets_flags([t for t, _ in pred])
    ours = [c for c in (wild_maps.lang(p) for p in pred) if c in langs]  # restricted text tools
    return ours[0] if ours else None


def anchor_vocab(tool: str, task: str, langs: list[str], truths: set[str]) -> set[str]:
    if tool == "magika":
        return wild_maps.magika_vocab()
    if tool == "pygments":
        return wild_maps.PYGMENTS_VOCAB
    if tool == "guesslang":
        return wild_maps.GUESSLANG_VOCAB
    if tool == "libmagic":
        return truths  # libmagic names nearly every format; scored on all
    return set(langs)


def softmax_rows(task: str, recs: list[dict[str, Any]], labels: list[Any]) -> list[dict[str, Any]]:
    rows = []
    for r, lab in zip(recs, labels):
        reason = None
        if isinstance(lab, dict):  # picohead answer
            final, raw, reason = lab["final"], lab["raw"], lab.get("reason")
            if task == "mime":
                final, raw = wild_maps.canonical_mime(final), wild_maps.canonical_mime(raw)
        else:
            final = raw = lab
        truth = wild_maps.canonical_mime(r["label"]) if task == "mime" else r["label"]
        rows.append({"truth": truth, "final": final if final is not None else "(absent)",
                     "raw": raw, "reason": reason, "kind": r["kind"],
                     "short": r["size"] < SHORT})
    return rows


def task_report(task: str, recs: list[dict[str, Any]], tiers: dict[str, dict[str, Any]],
                anchors: dict[str, list[Any]], langs: list[str]) -> dict[str, Any]:
    rep: dict[str, Any] = {"n": len(recs), "picohead": {}, "anchors": {}, "both": {}}
    if task == "risk":
        flags = list(RISK_FLAGS)
        for tier, t in tiers.items():
            rows = [{"truth": r["label"], "flags": t["answers"][key(r)]["flags"],
                     "kind": r["kind"]} for r in recs]
            rep["picohead"][tier] = metrics.risk_scores(rows, flags)
            rep["picohead"][tier]["disabled"] = t["answers"][key(recs[0])].get("disabled", [])
        for tool, preds in anchors.items():
            rows = [{"truth": [f for f in r["label"] if f in wild_maps.DETECT_SECRETS_FLAGS],
                     "flags": anchor_label(tool, task, p, langs) or [], "kind": r["kind"]}
                    for r, p in zip(recs, preds)]
            rep["anchors"][tool] = metrics.risk_scores(rows, wild_maps.DETECT_SECRETS_FLAGS)
        return rep
    truths = {wild_maps.canonical_mime(r["label"]) if task == "mime" else r["label"] for r in recs}
    model_vocab: set[str] = set()
    tier_rows = {tier: softmax_rows(task, recs, [t["answers"][key(r)] for r in recs])
                 for tier, t in tiers.items()}
    for tier, t in tiers.items():
        vocab = {wild_maps.canonical_mime(x) if task == "mime" else x
                 for x in t["labels"].get(task, [])}
        model_vocab = vocab
        rows = tier_rows[tier]
        d = metrics.softmax_scores(rows)
        d["in_model_vocab"] = metrics.softmax_scores(rows, vocab, per_class=False)
        d["labels_without_a_model_class"] = sorted(truths - vocab)
        if task == "text_lang":
            d["by_kind"] = metrics.by(rows, "kind")
        else:
            d["under_256_bytes"] = metrics.softmax_scores([x for x in rows if x["short"]],
                                                          per_class=False)
        rep["picohead"][tier] = d
    for tool, preds in anchors.items():
        labs = [anchor_label(tool, task, p, langs) for p in preds]
        rows = softmax_rows(task, recs, labs)
        vocab = anchor_vocab(tool, task, langs, truths)
        d = metrics.softmax_scores(rows, vocab)
        if task == "text_lang":
            d["by_kind"] = metrics.by(rows, "kind", vocab)
        else:
            d["under_256_bytes"] = metrics.softmax_scores([x for x in rows if x["short"]], vocab,
                                                          per_class=False)
        rep["anchors"][tool] = d
        shared = vocab & model_vocab
        both = {tool: metrics.softmax_scores(rows, shared, per_class=False),
                "labels": len(shared & truths)}
        for tier, prow in tier_rows.items():
            both[f"picohead-{tier}"] = metrics.softmax_scores(prow, shared, per_class=False)
        rep["both"][tool] = both
    return rep


def score(args: argparse.Namespace) -> int:
    suite = Path(args.suite)
    recs = load_suite(suite, split=args.split)
    if args.limit:
        recs = stratified_limit(recs, args.limit)
    if not recs:
        print(f"wild score: no {args.split} records in {suite}/manifest.jsonl", file=sys.stderr)
        return 2
    missing = [r for r in recs if not (suite / r["path"]).is_file()]
    if missing:
        print(f"wild score: {len(missing)} blobs of {suite}/manifest.jsonl are missing (first: "
              f"{missing[0]['path']}); rebuild the suite", file=sys.stderr)
        return 2
    by_task = {t: [r for r in recs if r["task"] == t] for t in TASKS}
    robust = robust_sample(recs, args.robust_n)
    tiny = [r for r in by_task["risk"] if r["kind"] == "tiny"]
    tiers = [t for t in args.tiers.split(",") if t]
    from picohead_runtime import Classifier, PicoheadError

    try:  # every tier loads before hours of scoring start
        clfs = {tier: Classifier(args.model, tier=tier) for tier in tiers}
    except PicoheadError as e:
        print(f"wild score: {e} (--tiers names the tiers to score)", file=sys.stderr)
        return 2
    ph: dict[str, dict[str, Any]] = {}
    for tier in tiers:
        log.info("picohead %s on %d records", tier, len(recs))
        ph[tier] = picohead_rows(clfs[tier], suite, recs, robust, tiny)
    langs = ph[tiers[-1]]["labels"].get("text_lang", []) if tiers else []
    out: dict[str, Any] = {
        "suite": str(suite), "split": args.split, "records": len(recs),
        "model": ph[tiers[-1]]["model"] if tiers else None, "tiers": tiers,
        "date": time.strftime("%Y-%m-%d %H:%M"), "command": " ".join(sys.argv),
        "tasks": {}, "robustness": {}, "anchors_skipped": {}}
    logdir = Path(args.out).with_suffix(".logs")
    logdir.mkdir(parents=True, exist_ok=True)
    for task in TASKS:
        rs = by_task[task]
        if not rs:
            continue
        anchors: dict[str, list[Any]] = {}
        for tool in (ANCHORS[task] if args.anchors else []):
            t0 = time.time()
            preds = anchor_answers(tool, suite, rs, langs, logdir / f"{tool}.log")
            if preds is None:
                out["anchors_skipped"][tool] = f"did not start (see {logdir}/{tool}.log)"
                continue
            anchors[tool] = preds
            log.info("anchor %s on %s: %.0f s", tool, task, time.time() - t0)
        out["tasks"][task] = task_report(task, rs, {t: ph[t] for t in tiers}, anchors, langs)
    for tier in tiers:
        out["robustness"][tier] = {"padding": ph[tier]["robustness"], "batch": ph[tier]["batch"],
                                   "tiny_inputs": ph[tier]["tiny_inputs"],
                                   "seconds": ph[tier]["seconds"]}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    Path(args.out).with_suffix(".md").write_text(report_md(out))
    plot(out, Path(args.out).with_suffix(".png"))
    print(report_md(out))
    return 0


def plot(out: dict[str, Any], path: Path) -> None:
    """One panel per task: picohead's tiers and the anchors on the same records."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib missing: no %s (pip install -r benchmarks/requirements.txt)", path)
        return
    tasks = list(out["tasks"])
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.2 * len(tasks), 3.6), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        rep = out["tasks"][task]
        if task == "risk":
            names = [f"picohead {t}" for t in rep["picohead"]] + list(rep["anchors"])
            vals = [d["macro_f1"] or 0 for d in [*rep["picohead"].values(),
                                                 *rep["anchors"].values()]]
            ax.set_ylabel("macro F1 over flags")
        else:
            names = [f"picohead {t}" for t in rep["picohead"]] + list(rep["anchors"])
            vals = [(d["accuracy"] or 0) / 100 for d in [*rep["picohead"].values(),
                                                         *rep["anchors"].values()]]
            ax.set_ylabel("accuracy (each tool on the labels it has)")
        colors = ["#3b6ea8"] * len(rep["picohead"]) + ["#999999"] * len(rep["anchors"])
        ax.bar(range(len(vals)), vals, color=colors)
        ax.set_xticks(range(len(vals)), names, rotation=60, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"{task} (wild-{out['split']}, n={rep['n']})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def stratified_limit(recs: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` records per task, spread over labels (deterministic)."""
    out = []
    for task in TASKS:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in recs:
            if r["task"] == task:
                groups[json.dumps(r["label"]) + str(r["kind"])].append(r)
        picked: list[dict[str, Any]] = []
        while len(picked) < limit and any(groups.values()):
            for k in sorted(groups):
                if groups[k] and len(picked) < limit:
                    picked.append(groups[k].pop(0))
        out += picked
    return out


def robust_sample(recs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` records per task for the padding and batch checks (not the tiny inputs)."""
    return stratified_limit([r for r in recs if r["kind"] != "tiny"], n)


# -- CI slice -------------------------------------------------------------------------------------
SLICE_TIERS = ("tiny", "pro")
SLICE_TOLERANCE = 2.0  # points: a task's accuracy (or a padding share) may move this far


def ci_entries() -> dict[str, list[dict[str, Any]]]:
    """The wild recipes' entries marked ``"ci": true`` (registry sources pip/npm can fetch), by
    recipe file."""
    out = {stem: [e for e in es if e.get("ci")] for stem, es in wild_recipe_entries().items()}
    return {stem: es for stem, es in out.items() if es}


def slice_figures(suite: Path, recs: list[dict[str, Any]], model: str | None) -> dict[str, Any]:
    from picohead.wild import score
    from picohead_runtime import Classifier

    figs: dict[str, Any] = {}
    for tier in SLICE_TIERS:
        clf = Classifier(model, tier=tier)
        ans = {key(r): a for r, a in zip(recs, score.predict(clf, suite, recs))}
        per: dict[str, Any] = {}
        for task in sorted({r["task"] for r in recs}):
            rs = [r for r in recs if r["task"] == task]
            rows = softmax_rows(task, rs, [ans[key(r)] for r in rs])
            per[task] = metrics.softmax_scores(rows, per_class=False)["accuracy"]
        rob = score.robustness(clf, suite, recs, ans)
        figs[tier] = {"accuracy": per,
                      "padding_changed": {k: round(100 * v["share"], 2) for k, v in rob.items()},
                      "batch_flips": score.batch_invariance(clf, suite, recs)["flipped"]}
    return figs


def ci_slice(args: argparse.Namespace) -> int:
    """Rebuild the CI slice from the registries and compare it with the committed reference."""
    from picohead.wild.sources import code, formats
    from picohead.wild.sources.files import take
    from picohead.wild.suite import StageWriter

    suite, cache = Path(args.suite), Path(args.cache)
    builders = {"code": ("code_lang", code.looks_handwritten),
                "formats": ("mime", formats.valid_format)}
    for stem, entries in ci_entries().items():
        task, validate = builders[stem.split("_")[0]]
        w = StageWriter(suite, task)
        added = take(entries, w, cache=cache, mirrors=suite / "no-mirrors", validate=validate,
                     where=f"{stem}.json")
        empty = [k for k, n in added.items() if n == 0]
        if empty:
            print(f"wild slice: nothing read from {', '.join(empty)} (network or registry "
                  "failure; see the log)", file=sys.stderr)
            return 2
        w.close(f"{task}-{stem}")
    recs = finalise(suite)
    ref_path = Path(args.reference)
    if args.write:
        figs = slice_figures(suite, recs, args.model)
        ref = {"comment": "Reference figures of the wild suite's CI slice (benchmarks/wild.py "
                          "slice --write); tests/wild/test_ci_slice.py fails when a task's "
                          f"accuracy drops or a padding share rises by more than "
                          f"{SLICE_TOLERANCE} points, or batch flips rise.",
               "model": args.model or "bundled", "records": {r["id"]: [r["task"], r["label"],
                                                                       r["producer"]]
                                                             for r in recs}, "figures": figs}
        ref_path.write_text(json.dumps(ref, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {ref_path}: {len(recs)} records")
        return 0
    ref = json.loads(ref_path.read_text(encoding="utf-8"))
    missing = sorted(set(ref["records"]) - {r["id"] for r in recs})
    if missing:
        print(f"wild slice: {len(missing)} reference records were not rebuilt (the registry "
              f"served other content?): {', '.join(m[:12] for m in missing[:5])}", file=sys.stderr)
        return 2
    recs = [r for r in recs if r["id"] in ref["records"]]
    figs = slice_figures(suite, recs, args.model)
    bad = []
    for tier, f in figs.items():
        rf = ref["figures"][tier]
        for task, acc in f["accuracy"].items():
            if acc < rf["accuracy"][task] - SLICE_TOLERANCE:
                bad.append(f"{tier} {task} accuracy {acc} % < reference {rf['accuracy'][task]} %")
        for k, v in f["padding_changed"].items():
            if v > rf["padding_changed"][k] + SLICE_TOLERANCE:
                bad.append(f"{tier} {k}: {v} % of answers change (reference "
                           f"{rf['padding_changed'][k]} %)")
        if f["batch_flips"] > rf["batch_flips"]:
            bad.append(f"{tier}: {f['batch_flips']} batch-dependent answers (reference "
                       f"{rf['batch_flips']})")
    print(json.dumps({t: {"accuracy": f["accuracy"], "padding_changed": f["padding_changed"],
                          "batch_flips": f["batch_flips"]} for t, f in figs.items()}))
    if bad:
        print("wild slice: regression beyond the tolerance:\n  " + "\n  ".join(bad),
              file=sys.stderr)
        return 1
    return 0


def card(args: argparse.Namespace) -> int:
    """Write the wild block of MODEL_CARD.md from a ``score`` result."""
    from picohead.wild.report import card_block, put_block

    out = json.loads(Path(args.results).read_text(encoding="utf-8"))
    if out["split"] != "test":
        print("wild card: published figures come from the test half", file=sys.stderr)
        return 2
    scores = Path(args.scores)
    corpus = (json.loads(scores.read_text())["scores"].get("steady", {}) if scores.exists()
              else {})
    corpus = {t: v.get("heads", {}) for t, v in corpus.items()}
    p = Path(args.card)
    p.write_text(put_block(p.read_text(encoding="utf-8"), card_block(out, corpus)))
    print(f"wrote the wild block of {p}")
    return 0


def label_map(args: argparse.Namespace) -> int:
    """docs/label_map.md: every MIME label of the suite and of the model, the Magika labels and the
    ``file --mime-type`` names folded onto it (``wild_maps``), and how many wild files carry it."""
    import importlib.resources as ir

    from tiny_inputs import folder_tiers

    from picohead_runtime import Classifier
    from picohead_runtime.model import default_model_dir

    folder = Path(args.model) if args.model else default_model_dir()
    # a bundle's tiers may come from different runs, with different label lists
    tiers = {t: {wild_maps.canonical_mime(x)
                 for x in Classifier(folder, tier=t).spec.head("mime").labels}
             for t in (folder_tiers(folder) if folder.is_dir() else ["tiny"])}
    model = set().union(*tiers.values())
    per_tier = ", ".join(f"{t} {len(v)}" for t, v in tiers.items())
    spec = json.loads((HERE.parent / "picohead" / "recipes" / "content" / "spec.json").read_text())
    corpus = {wild_maps.canonical_mime(x) for h in spec["heads"] if h["name"] == "mime"
              for x in h["labels"]}
    counts: Counter[str] = Counter()
    suite = Path(args.suite) if args.suite else None
    if suite and suite.suffix == ".json":  # a suite's card (build writes card.json)
        for lab, row in json.loads(suite.read_text())["tasks"]["mime"]["per_label"].items():
            counts[wild_maps.canonical_mime(lab) or ""] += row["n"]
    elif suite and (suite / "manifest.jsonl").exists():
        counts.update(wild_maps.canonical_mime(r["label"]) or "" for r in load_suite(suite, task="mime"))
    cfg = json.loads((ir.files("magika") / "models" / "standard_v3_3" / "config.min.json")
                     .read_text(encoding="utf-8"))
    magika: dict[str, list[str]] = defaultdict(list)
    for lab in cfg["target_labels_space"]:
        m = wild_maps.magika_mime(lab)
        if m:
            magika[m].append(lab)
    synonyms: dict[str, list[str]] = defaultdict(list)
    for k, v in wild_maps.SYNONYMS.items():
        synonyms[v].append(k)
    labels = sorted(model | corpus | set(counts) | set(magika))
    L = ["# MIME labels: picohead, Magika and `file --mime-type` in one table", "",
         "Generated by `python benchmarks/wild.py labels` from `benchmarks/wild_maps.py` (the "
         "mapping every wild-suite comparison uses; synonyms are folded the same way for every "
         "tool) and the bundled model's label list. *wild files*: samples of that type in the "
         "wild suite (both halves).", "",
         f"{len(labels)} labels; the bundled model has {len(model)} in its tiers ({per_tier}; "
         "'yes' below: in any tier), the content recipe's spec "
         f"(the next model's head) {len(corpus)}, the suite {len(counts)}, "
         f"Magika's standard_v3_3 maps onto {len(magika)}.", "",
         "| label | in the bundled model | in the content spec | Magika labels | other names "
         "folded onto it (libmagic, IANA, shared-mime-info) | wild files |",
         "|---|---|---|---|---|---|"]
    for lab in labels:
        L.append(f"| `{lab}` | {'yes' if lab in model else ''} | {'yes' if lab in corpus else ''} | "
                 f"{', '.join(sorted(magika.get(lab, [])))} | "
                 f"{', '.join(f'`{x}`' for x in sorted(synonyms.get(lab, [])))} | "
                 f"{counts.get(lab, '')} |")
    Path(args.out).write_text("\n".join(L) + "\n")
    print(f"wrote {args.out}: {len(labels)} labels")
    return 0


def clone_list(args: argparse.Namespace) -> int:
    from picohead.data.gitmirror import clone_commands

    entries = [e for es in wild_recipe_entries().values() for e in es]
    print("\n".join(clone_commands(entries, args.mirrors)))
    return 0


def corpus_ids(args: argparse.Namespace) -> int:
    from picohead.data.producers import write_ids

    corpus = Path(args.corpus)
    if not (corpus / "train.jsonl").is_file() and not any((corpus / ".stages").glob("*.jsonl")):
        print(f"wild corpus-ids: {corpus} is no corpus build (no train.jsonl, no stage files)",
              file=sys.stderr)
        return 2
    n = write_ids(corpus, Path(args.out), [k for k in args.kinds.split(",") if k])
    print(f"wrote {args.out}: {n} hash prefixes")
    return 0


def apt_packages(args: argparse.Namespace) -> int:
    from picohead.wild.sources import programs

    print(" ".join(programs.required_packages()))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", action="store_true", help="log progress")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the suite (cached)")
    b.add_argument("--suite", required=True)
    b.add_argument("--cache", required=True, help="registry downloads and program outputs")
    b.add_argument("--mirrors", required=True, help="folder of bare git mirrors (clone-list)")
    b.add_argument("--builders", default=",".join(BUILDERS),
                   help="source builders to run (comma-separated); '' runs none and only merges, "
                        "dedups and splits the stages already in --suite (for example against a "
                        "corpus built after them)")
    b.add_argument("--allow-missing", default="",
                   help="builders or producer keys whose failure is accepted (comma-separated)")
    b.add_argument("--max-skipped", type=int, default=0,
                   help="pinned sources that may give nothing before the build fails")
    b.add_argument("--corpus-manifest", default=None,
                   help="a built corpus (its folder, or one manifest file): wild samples with the "
                        "same content are dropped; without it only producers are checked")
    b.add_argument("--splits", default=str(SPLITS_FILE) if SPLITS_FILE.is_file() else "",
                   help="project -> half file to keep (default: the committed "
                        "benchmarks/wild_splits.json when present; '' deals every project "
                        "afresh); the build writes SUITE/splits.json")
    b.add_argument("--corpus-ids", action="append", default=[],
                   help="an id list (corpus-ids) of a corpus not on this machine: wild samples "
                        "whose hash prefix it holds are dropped too (repeatable)")
    ci = sub.add_parser("corpus-ids", help="write the hash prefixes of a built corpus's samples")
    ci.add_argument("--corpus", required=True,
                    help="a corpus folder: built, or a build's finished stages (a build stopped "
                         "after its source and risk stages holds every real file it would)")
    ci.add_argument("--kinds", default="git",
                    help="source kinds whose samples are listed (comma-separated; default git: "
                         "the part a session without its mirrors cannot rebuild)")
    ci.add_argument("--out", required=True, help="gzipped id list to write")
    s = sub.add_parser("score", help="score picohead and the anchors on one half")
    s.add_argument("--suite", required=True)
    s.add_argument("--model", default=None, help="model folder (default: the bundled one)")
    s.add_argument("--split", choices=("dev", "test"), default="test")
    s.add_argument("--tiers", default=",".join(TIERS))
    s.add_argument("--no-anchors", dest="anchors", action="store_false")
    s.add_argument("--limit", type=int, default=0, help="records per task (0: all)")
    s.add_argument("--robust-n", type=int, default=300, help="records per task for padding/batch")
    s.add_argument("--out", default=str(HERE / "results" / "wild.json"))
    c = sub.add_parser("clone-list", help="git clone lines that fill a mirror folder")
    c.add_argument("--mirrors", default="MIRRORS")
    sub.add_parser("apt-packages", help="the apt packages the program-made files need")
    cd = sub.add_parser("card", help="write the wild block of MODEL_CARD.md from a result")
    cd.add_argument("--results", default=str(HERE / "results" / "wild.json"))
    cd.add_argument("--card", default=str(HERE.parent / "MODEL_CARD.md"))
    cd.add_argument("--scores", default=str(HERE.parent / "docs" / "model_card_scores.json"),
                    help="the card's corpus test-split scores, shown beside")
    lm = sub.add_parser("labels", help="write docs/label_map.md (MIME labels of every tool)")
    lm.add_argument("--suite", default=None,
                    help="a built suite or its card (JSON), for the file counts")
    lm.add_argument("--model", default=None)
    lm.add_argument("--out", default=str(HERE.parent / "docs" / "label_map.md"))
    sl = sub.add_parser("slice", help="rebuild the CI slice from the registries and check it")
    sl.add_argument("--suite", required=True, help="an empty folder for the slice")
    sl.add_argument("--cache", required=True)
    sl.add_argument("--model", default=None)
    sl.add_argument("--reference", default=str(HERE.parent / "tests" / "wild" / "ci_slice.json"))
    sl.add_argument("--write", action="store_true", help="write the reference instead")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.v else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    run = {"build": build, "score": score, "clone-list": clone_list, "corpus-ids": corpus_ids,
           "apt-packages": apt_packages, "slice": ci_slice, "card": card,
           "labels": label_map}[args.cmd]
    try:
        return run(args)
    except BrokenPipeError:  # the reader went away (| head): nothing of ours failed
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
