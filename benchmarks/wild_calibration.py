"""Calibration under shift, measured: thresholds and generic fallbacks chosen on the wild suite's
dev half, scored on its test half, beside the shipped (in-corpus) thresholds and raw top-1.

    python benchmarks/wild_calibration.py --suite wild --out benchmarks/results/wild_calibration.json
    python benchmarks/wild_calibration.py --suite wild --write MODEL_COPY   # also write them

Every choice is made on the dev half. The report shows the half ``--report`` names: ``dev`` by
default, so that calibrating a candidate does not show the test outcomes of every setting it did
not take (the shipped model's test figures come from ``wild.py score --split test``, once, after
the choice); ``--report test`` shows them, for the record of a choice already made.

For each softmax task (mime, code_lang, text_lang) and tier, on the reported half: right / right generic
answer / wrong / unanswered (% of samples) for (a) the shipped file's thresholds, (b) raw top-1,
(c) one threshold chosen on dev (``picohead.calibrate.calibrate_under_shift``: the most useful
answers whose wrong answers stay at or under ``--max-wrong`` %, 2 by default, issue 23's target
for pro, on the tasks in ``--bound-tasks``, checked on the ``--bound-quantile`` percentile (0.9)
of the wrong share over dev's producers resampled with replacement, since a bound checked on
the estimate itself held on too few unseen producers (``results/bound_holdout/``); the other
tiers and tasks take the most useful answers net of the wrong ones),
(d) for MIME, (c) plus fallbacks to the family's generic type (``picohead.data.labels.
generic_mime``: application/zip for ZIP containers, text/plain for text, application/octet-stream
for other binaries; a type outside those tables, such as HEIC or RAR, takes the family its files
show in their bytes, ``generic_of_bytes``) with the family threshold chosen on dev, and the test
curve of (c); (e) a threshold per top-1 label refining (c)/(d)
(``picohead.calibrate.calibrate_labels_under_shift``: a label with too few dev rows keeps
(c)/(d)'s threshold), whose penalty for a wrong answer and pooling with the whole head's rows
(``SHRINK_GRID``) are chosen under the same rule on outcomes cross-fitted over dev's producers
(records, for text: one treebank a language; ``dev_per_label.unpooled``: the best setting without
pooling). ``--write``
writes (e) where its cross-fitted dev outcome ranks above (c)/(d)'s dev outcome by that rule
(``picohead.calibrate.shift_choice_key``), else (c)/(d); the report's last column says which.
Every decision goes through the runtime's decoder on the tier file's probabilities, so a written
model answers exactly what is reported. A head the model gates off counts as unanswered.

For the risk head, each flag's threshold is chosen on dev by the rule used on the validation
split (``picohead.calibrate.calibrate_head``: the flag's best F1, disabled under 0.5) among the
thresholds at which it fires on at most ``--max-false`` % (0.5 by default) of dev's rows without a
flag and on none of dev's 0-16-byte inputs without a secret nor of the 1,580 inputs of 0-3 bytes
``tiny_inputs.py`` enumerates (issue 23's target is 0.1 %; the shipped small flagged 3 of those
at the dev thresholds of 2026-12-07, and ship_rule.py's gate then chose by them; for that
the flag may also take 0.97 or 0.99, and a flag that fires on one of them even at 0.99 is
disabled): the best dev F1 alone bought recall with look-alikes (content-v7 pro: look-alikes flagged
7.7 -> 15.5 % on test for macro F1 0.61 -> 0.66), and the issue's target is 2 % overall. The
test report gives F1 per flag and the share of look-alikes, 0-16-byte inputs and clean hosts that
get a flag, at the in-corpus and at the dev-chosen thresholds.

``--corpus DIR`` also reports every setting on the corpus's validation split (what wild-dev
thresholds cost on content like the training data; content-v8's first per-label try pooled one
threshold over labels without dev rows and fell to 30.5 % pro MIME on the corpus test split).

``--write DIR``: copy the model folder to DIR and write the dev-chosen thresholds and fallbacks
into each tier's file (what content-v9 ships); a written tier over its size budget
(``picohead.pipeline.SIZE_BUDGET``: the recipe checks it before this metadata is added, up to
~8 KB; content-v9rc1's tiny went 64,029 -> 69,549 B) is named in the report and the exit
status is 1. What it does not do: change the given model.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tiny_inputs  # noqa: E402
import wild_maps  # noqa: E402

from picohead.calibrate import (  # noqa: E402
    BOUND_QUANTILE,
    MIN_COVERAGE,
    calibrate_head,
    calibrate_labels_under_shift,
    calibrate_under_shift,
    replace_head,
    shift_choice_key,
    shift_outcomes,
    write_thresholds,
)
from picohead.data.labels import generic_mime, generic_of_bytes  # noqa: E402
from picohead.pipeline import SIZE_BUDGET  # noqa: E402
from picohead.wild.metrics import risk_scores  # noqa: E402
from picohead.wild.score import TASK_HEAD  # noqa: E402
from picohead.wild.suite import RISK_FLAGS, TASKS, blob, load_suite  # noqa: E402
from picohead_runtime import scoring  # noqa: E402
from picohead_runtime.decode import Decoder  # noqa: E402
from picohead_runtime.model import resolve_model_path  # noqa: E402
from picohead_runtime.windows import batch_windows, extract_window  # noqa: E402

CURVE = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99)


def windows(suite: Path, recs: list[dict[str, Any]], window: Any) -> tuple[np.ndarray, np.ndarray]:
    """The runtime's windows of every record, read once and shared by every tier."""
    return batch_windows([extract_window(blob(suite, r), window.head, window.tail,
                                         skip_nul=window.skip_nul) for r in recs])


def probabilities(model: Any, wins: tuple[np.ndarray, np.ndarray]) -> list[np.ndarray]:
    """Every head's output for every window (spec order), from the file's own session."""
    return scoring.run_batched(model.session, model.output_names, *wins, batch_size=256)


def truth_of(task: str, label: Any) -> Any:
    """A label as the report compares it: MIME names folded onto the suite's (``wild_maps``)."""
    return wild_maps.canonical_mime(label) if task == "mime" else label


def same_fn(task: str) -> Any:
    if task == "mime":
        return lambda a, t: wild_maps.canonical_mime(a) == t
    return lambda a, t: a == t


def family_fn(task: str, suite: Path, recs: list[dict[str, Any]]) -> Any:
    """The generic answer that is right for a true label: the family table's
    (``generic_mime``), and for a type the table cannot place (HEIC, RAR, DXF, ...: 55 of the
    suite's types) what most of that type's files show in their bytes (``generic_of_bytes``)."""
    if task != "mime":
        return lambda t: None
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for r in recs:
        t = wild_maps.canonical_mime(r["label"])
        if t is not None and generic_mime(t) is None:
            votes[t][generic_of_bytes(blob(suite, r))] += 1
    table = {t: c.most_common(1)[0][0] for t, c in votes.items()}
    return lambda t: generic_mime(t) or table.get(t)


def fallbacks_for(spec: Any) -> dict[str, str]:
    h = spec.head("mime")
    return {lab: g for lab in h.labels if (g := generic_mime(lab)) is not None and g != lab}


def fold_groups(task: str, recs: list[dict[str, Any]]) -> list[str]:
    """What the per-label calibration cross-fits by: the producer for MIME and code (many a
    label); the record for text, whose dev half has one producer (treebank) per language, so
    holding out producers would hold out whole labels."""
    return [r["id"] if task == "text_lang" else r["producer"] for r in recs]


def corpus_rows(corpus: Path, n: int) -> dict[str, list[dict[str, Any]]]:
    """Up to ``n`` rows of the corpus's validation split per task (those that carry the task's
    head label; a fixed seeded sample): in-corpus content, to show what thresholds chosen on
    wild-dev cost on files like the training data."""
    import random

    rows = [json.loads(line) for line in (corpus / "val.jsonl").read_text().splitlines() if line]
    out = {}
    for task in ("mime", "code_lang", "text_lang"):
        mine = [r for r in rows if r["labels"].get(TASK_HEAD[task])]
        out[task] = random.Random(0).sample(mine, min(n, len(mine)))
    return out


def calibrate_task(spec: Any, task: str, P: dict[str, Any], T: dict[str, list[str]],
                   fam: Any, max_wrong: float | None, groups: list[str],
                   corpus: tuple[list[np.ndarray], list[str]] | None = None,
                   bound_quantile: float | None = BOUND_QUANTILE,
                   ) -> tuple[dict[str, Any], Any]:
    """The report row of one task and tier (test outcomes of the shipped, raw, one dev-chosen
    threshold and per-label dev-chosen settings, and the curve of the one threshold) and the spec
    to write: the per-label head where its cross-fitted dev outcome ranks above the one
    threshold's dev outcome (``shift_choice_key``), else the one threshold."""
    head, same = TASK_HEAD[task], same_fn(task)

    def reported(sp: Any) -> dict[str, float]:
        return shift_outcomes(sp, head, P["report"], T["report"], same, fam)

    def with_head(sp: Any, **fields: Any) -> Any:
        return replace_head(sp, dataclasses.replace(sp.head(head), **fields))

    fallbacks = fallbacks_for(spec) if task == "mime" else None
    bq = {"groups": groups, "bound_quantile": bound_quantile}
    plain, rep = calibrate_under_shift(spec, head, P["dev"], T["dev"], same, fam,
                                       max_wrong=max_wrong, **bq)
    row = {"shipped": reported(spec), "raw": reported(with_head(spec, threshold=0.0,
                                                                label_thresholds={})),
           "dev_threshold": rep["chosen"], "dev_chosen": reported(plain)}
    final = plain
    if task == "mime":
        final, rep_fb = calibrate_under_shift(spec, head, P["dev"], T["dev"], same, fam,
                                              fallbacks=fallbacks, max_wrong=max_wrong, **bq)
        row["dev_fallback"] = rep_fb["chosen"]
        row["dev_chosen_fallback"] = reported(final)
    row["curve"] = {str(t): reported(with_head(final, threshold=t)) for t in CURVE}
    # refines the one-threshold choice: a label without dev evidence keeps its threshold
    per_label, rep_l = calibrate_labels_under_shift(
        final, head, P["dev"], T["dev"], same, fam,
        fallbacks=fallbacks, max_wrong=max_wrong, **bq)
    row["dev_per_label"] = rep_l["chosen"]
    # every (penalty, pooling, fallback threshold) candidate's cross-fitted dev estimate: why a
    # bound tier took one threshold over per-label ones (content-v10rc1 pro) reads off without a rerun
    row["dev_per_label_grid"] = rep_l["grid"]
    row["dev_chosen_per_label"] = reported(per_label)
    # written: per-label thresholds where their cross-fitted dev outcome beats the one threshold's
    one = row.get("dev_fallback", row["dev_threshold"])
    pick = shift_choice_key(rep_l["chosen"]["estimated"], max_wrong) > shift_choice_key(
        one, max_wrong)
    row["written"] = "per_label" if pick else "one_threshold"
    if corpus is not None:  # the same settings on the corpus's validation split
        Pc, Tc = corpus
        row["corpus_val"] = {name: shift_outcomes(sp, head, Pc, Tc, same, fam) for name, sp in
                             (("shipped", spec), ("one_threshold", final),
                              ("per_label", per_label))}
    return row, per_label if pick else final


def risk_rows(spec: Any, probs: list[np.ndarray], recs: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """The runtime decoder's flags for every risk record, as ``metrics.risk_scores`` reads them."""
    rows = []
    for row, r in zip(Decoder(spec, top_k=1).decode(probs), recs):
        a = row.get("risk")
        rows.append({"truth": list(r["label"]), "flags": list(getattr(a, "labels", ())),
                     "kind": r.get("kind")})
    return rows


def calibrate_flags(spec: Any, P: dict[str, Any], recs: dict[str, list[dict[str, Any]]],
                    max_false: float, tiny: np.ndarray | None = None) -> tuple[dict[str, Any], Any]:
    """The risk head's per-flag thresholds chosen on wild-dev by the same rule as on validation
    (``calibrate_head``: each flag's best F1, a flag under ``MIN_F1`` disabled) among those that
    flag at most ``max_false`` % of the dev rows without a flag (look-alikes, 0-16-byte inputs,
    clean hosts) and fire on none of dev's 0-16-byte inputs without a secret nor on ``tiny`` (the
    risk head's probabilities on every input of 0-3 bytes, ``tiny_inputs.inputs``), and the test
    figures (per-flag F1, negatives flagged by kind) of the shipped and the dev-chosen ones."""
    h = spec.head("risk")
    i = spec.head_names.index("risk")
    y = np.array([[lab in r["label"] for lab in h.labels] for r in recs["dev"]], dtype=np.float32)
    # issue 23: no flag on 0-16-byte inputs without a secret (at most 0.1 %): dev's are quiet rows
    quiet = np.array([r.get("kind") == "tiny" and not r["label"] for r in recs["dev"]])
    fields, rep = calibrate_head(h, P["dev"][i], y, MIN_COVERAGE, max_false=max_false / 100,
                                 quiet=quiet, quiet_probs=tiny)
    final = replace_head(spec, dataclasses.replace(h, **fields))
    row = {"shipped": risk_scores(risk_rows(spec, P["report"], recs["report"]), h.labels),
           "dev_flags": rep,
           "dev_chosen": risk_scores(risk_rows(final, P["report"], recs["report"]), h.labels)}
    return row, final


def _quantile(v: str) -> float | None:
    if v == "none":
        return None
    q = float(v)
    if not 0.5 <= q < 1.0:
        raise argparse.ArgumentTypeError("a percentile in [0.5, 1) or 'none'")
    return q


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--model", default=None, help="model folder (default: the bundled model)")
    ap.add_argument("--tiers", default="tiny,small,base,pro")
    ap.add_argument("--report", choices=("dev", "test"), default="dev",
                    help="the half the report shows (choices are always made on dev)")
    ap.add_argument("--max-wrong", type=float, default=2.0)
    ap.add_argument("--bound-tiers", default="pro",
                    help="tiers held to --max-wrong; the others take the most useful answers net "
                    "of the wrong ones (issue 23's 2 %% bound is for pro: at it tiny answered "
                    "27.5 %% of wild-test texts right where its raw top-1 is 63.7 %%)")
    ap.add_argument("--bound-tasks", default="mime,code_lang",
                    help="tasks the bound applies to on --bound-tiers (text_lang is not: held to "
                    "2 %% on wild-dev with per-label thresholds, content-v8 pro answered 50.0 %% "
                    "of dev texts right (1.5 %% wrong) instead of 71.1 %% (10.4 %% wrong): short "
                    "snippets carry the wrong answers and a threshold cannot tell their length)")
    ap.add_argument("--bound-quantile", type=_quantile, default=BOUND_QUANTILE,
                    help="check --max-wrong on this percentile of the wrong share over dev's "
                    "producers resampled with replacement ('none': on the share itself, as "
                    "content-v14 was calibrated; benchmarks/bound_holdout.py compares them)")
    ap.add_argument("--max-false", type=float, default=0.5,
                    help="risk: %% of dev rows without a flag that one flag may fire on")
    ap.add_argument("--corpus", default=None, help="corpus folder: also report every setting "
                    "on --corpus-rows rows of its validation split per task (not used to choose)")
    ap.add_argument("--corpus-rows", type=int, default=3000)
    ap.add_argument("--out", default=str(HERE / "results" / "wild_calibration.json"))
    ap.add_argument("--write", default=None, help="copy the model here with the dev-chosen "
                    "thresholds and fallbacks written into every tier")
    args = ap.parse_args()
    suite = Path(args.suite)
    tiers = args.tiers.split(",")
    bound_tiers = set(args.bound_tiers.split(","))
    bound_tasks = set(args.bound_tasks.split(","))
    from picohead_runtime import PicoheadError

    try:  # bad arguments are named before minutes of scoring start
        files = {t: resolve_model_path(args.model, t) for t in tiers}
    except PicoheadError as e:
        print(f"wild_calibration: {e} (--tiers names the tiers to calibrate)", file=sys.stderr)
        return 2
    if not (suite / "manifest.jsonl").is_file():
        print(f"wild_calibration: {suite} is no built wild suite (no manifest.jsonl)",
              file=sys.stderr)
        return 2
    if args.corpus and not (Path(args.corpus) / "val.jsonl").is_file():
        print(f"wild_calibration: {args.corpus} is no built corpus (no val.jsonl)",
              file=sys.stderr)
        return 2
    out: dict[str, Any] = {"command": " ".join(sys.argv), "reported_on": args.report,
                           "max_wrong": args.max_wrong,
                           "bound_tiers": sorted(bound_tiers),
                           "bound_tasks": sorted(bound_tasks),
                           "bound_quantile": args.bound_quantile,
                           "max_false": args.max_false,
                           "tasks": {}}
    chosen_specs: dict[str, Any] = {}
    splits = ("dev",) if args.report == "dev" else ("dev", "test")
    data = {task: {sp: load_suite(suite, task=task, split=sp) for sp in splits} for task in TASKS}
    truth = {task: {sp: [truth_of(task, r["label"]) for r in recs] for sp, recs in d.items()}
             for task, d in data.items()}
    for by_split in (*data.values(), *truth.values()):  # "report": the half the report shows
        by_split["report"] = by_split[args.report]
    fams = {task: family_fn(task, suite, [r for sp in splits for r in data[task][sp]])
            for task in TASKS}
    wins: dict[str, dict[str, Any]] = {}
    crows = corpus_rows(Path(args.corpus), args.corpus_rows) if args.corpus else {}
    cwins: dict[str, Any] = {}
    tiny_wins: tuple[np.ndarray, np.ndarray] | None = None
    for tier in tiers:
        model = scoring.open_file(files[tier])
        spec = model.meta.spec
        for task in TASKS:
            if TASK_HEAD[task] not in spec.head_names:
                continue
            if task not in wins:  # every tier of a model reads the same window
                wins[task] = {sp: windows(suite, data[task][sp], spec.window) for sp in splits}
            P = {sp: probabilities(model, w) for sp, w in wins[task].items()}
            P["report"] = P[args.report]
            if task == "risk":
                if tiny_wins is None:  # every tier of a model reads the same window
                    tiny_wins = batch_windows([extract_window(b, spec.window.head, spec.window.tail,
                                                              skip_nul=spec.window.skip_nul)
                                               for b in tiny_inputs.inputs()])
                tiny = probabilities(model, tiny_wins)
                row, final = calibrate_flags(spec, P, data[task], args.max_false,
                                             tiny[spec.head_names.index("risk")])
            else:
                bound = args.max_wrong if tier in bound_tiers and task in bound_tasks else None
                cor = None
                if task in crows:
                    if task not in cwins:
                        cwins[task] = windows(Path(args.corpus), crows[task], spec.window)
                    cor = (probabilities(model, cwins[task]),
                           [truth_of(task, r["labels"][TASK_HEAD[task]]) for r in crows[task]])
                row, final = calibrate_task(spec, task, P, truth[task], fams[task], bound,
                                            fold_groups(task, data[task]["dev"]), cor,
                                            args.bound_quantile)
            d = out["tasks"].setdefault(task, {"dev": len(data[task]["dev"]),
                                               "reported": len(data[task]["report"]),
                                               "tiers": {}})
            d["tiers"][tier] = row
            chosen_specs[tier] = replace_head(chosen_specs.get(tier, spec),
                                              final.head(TASK_HEAD[task]))
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    if args.write:
        dst = Path(args.write)
        src = Path(files[tiers[0]]).parent
        shutil.copytree(src, dst, dirs_exist_ok=True)
        for tier, sp in chosen_specs.items():
            write_thresholds(dst / Path(files[tier]).name, sp,
                             {"calibration": "wild-dev", "max_false": args.max_false,
                              "max_wrong": args.max_wrong if tier in bound_tiers else None,
                              "bound_tasks": sorted(bound_tasks)},
                             source="validation split; " + ", ".join(
                                 TASK_HEAD[t] for t in out["tasks"]) + " on the wild suite's "
                             "dev half")
        # The recipe checks each tier's size budget before these thresholds (and fallbacks) are
        # in its metadata, which adds up to ~8 KB: a tier that no longer fits is said, and exit 1.
        over = {t: (dst / Path(files[t]).name).stat().st_size for t in chosen_specs
                if (dst / Path(files[t]).name).stat().st_size > SIZE_BUDGET.get(t, 1 << 62)}
        out["written_over_budget"] = over
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    L = [f"Wild-{args.report}, % of samples: right / right generic / wrong / unanswered"
         + (" (the half every choice was made on)." if args.report == "dev" else "."), "",
         "| task | tier | shipped | raw top-1 | dev threshold | at it | + fallbacks (t, f) | at "
         "them | per label (penalty, pooling, labels, f) | at them | written |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]

    def f4(x: dict[str, float]) -> str:
        return f"{x['right']} / {x['generic_right']} / {x['wrong']} / {x['unanswered']}"

    for task, d in out["tasks"].items():
        if task == "risk":
            continue
        for tier, x in d["tiers"].items():
            fb = x.get("dev_fallback")
            pl = x["dev_per_label"]
            L.append(f"| {task} | {tier} | {f4(x['shipped'])} | {f4(x['raw'])} | "
                     f"{x['dev_threshold']['threshold']} | {f4(x['dev_chosen'])} | "
                     + (f"{fb['threshold']}, {fb['fallback_threshold']} | "
                        f"{f4(x['dev_chosen_fallback'])} |" if fb else "- | - |")
                     + f" {pl['penalty']}, {pl['shrink']}, {pl['label_thresholds']}, "
                     f"{pl['fallback_threshold'] if fb else '-'} | "
                     f"{f4(x['dev_chosen_per_label'])} | {x['written']} |")
    L += ["", f"Accuracy against coverage on wild-{args.report}: the head's one threshold (with MIME's "
          "generic fallbacks) swept over the thresholds below, as right % / answered % (answered: "
          "right, right generic or wrong; the rest is unknown). The shipped point is the "
          "`shipped` column above.", "",
          "| task | tier | " + " | ".join(f"t={t}" for t in CURVE) + " |",
          "|---|---|" + "---|" * len(CURVE)]
    for task, d in out["tasks"].items():
        if task == "risk":
            continue
        for tier, x in d["tiers"].items():
            L.append(f"| {task} | {tier} | " + " | ".join(
                f"{c['right']} / {round(100 - c['unanswered'], 2)}"
                for c in (x["curve"][str(t)] for t in CURVE)) + " |")
    if crows:
        L += ["", f"The same settings on the corpus's validation split ({args.corpus_rows} rows a "
              "task at most; in-corpus content, not used to choose): right / right generic / "
              "wrong / unanswered.", "",
              "| task | tier | shipped | one threshold | per label | written |",
              "|---|---|---|---|---|---|"]
        for task, d in out["tasks"].items():
            for tier, x in d["tiers"].items():
                c = x.get("corpus_val")
                if c:
                    L.append(f"| {task} | {tier} | {f4(c['shipped'])} | {f4(c['one_threshold'])}"
                             f" | {f4(c['per_label'])} | {x['written']} |")
    if "risk" in out["tasks"]:
        L += ["", f"Risk on wild-{args.report}, F1 per flag and negatives flagged (look-alikes / 0-16 B "
              "inputs / clean hosts, %): in-corpus thresholds -> flags chosen on wild-dev "
              "(a flag under F1 0.5 there is disabled: -).", "",
              "| tier | " + " | ".join(RISK_FLAGS) + " | macro F1 | look-alikes | 0-16 B | clean |",
              "|---|" + "---|" * (len(RISK_FLAGS) + 4)]
        def fl(r: dict[str, Any], f: str) -> str:
            v = r["per_flag"].get(f)
            return "-" if v is None or (v["precision"] == 0 and v["recall"] == 0) else str(v["f1"])

        def neg(r: dict[str, Any], k: str) -> str:
            return str(r["negatives_flagged"].get(k, {}).get("share"))

        for tier, x in out["tasks"]["risk"]["tiers"].items():
            a, b = x["shipped"], x["dev_chosen"]
            L.append(f"| {tier} | " + " | ".join(f"{fl(a, f)} -> {fl(b, f)}" for f in RISK_FLAGS)
                     + f" | {a['macro_f1']} -> {b['macro_f1']} | "
                     + " | ".join(f"{neg(a, k)} -> {neg(b, k)}" for k in ("lookalike", "tiny",
                                                                         "clean")) + " |")
    over = out.get("written_over_budget") or {}
    for t, size in over.items():
        L += ["", f"**{t} is over its size budget once written: {size:,} B > "
              f"{SIZE_BUDGET[t]:,} B** (not shippable as written)."]
    md = "\n".join(L) + "\n"
    Path(args.out).with_suffix(".md").write_text(md)
    print(md)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
