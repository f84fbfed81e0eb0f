"""Markdown from a wild benchmark result (``benchmarks/wild.py score``): the full report, and the
short section the README and MODEL_CARD carry.

What it does not do: compute figures (``picohead.wild.metrics``) or run anything.
"""

from __future__ import annotations

from typing import Any

from picohead.wild.suite import RISK_FLAGS

CARD_BEGIN = "<!-- wild:begin (benchmarks/wild.py card) -->"
CARD_END = "<!-- wild:end -->"


def _f(x: Any) -> str:
    return "—" if x is None else (f"{x:.1f}" if isinstance(x, float) else str(x))


def _f2(x: Any) -> str:
    return "—" if x is None else f"{x:.2f}"


def report_md(out: dict[str, Any]) -> str:
    L = [f"# Wild suite, {out['split']} half: {out['model']} beside the anchors", "",
         f"{out['records']} records; `{out['command']}` ({out['date']}).", "",
         "*Generic answers*: the head was unsure and answered its family's generic type "
         "(`application/octet-stream`, `text/plain`, `application/zip`, ...) instead of a wrong "
         "specific one; they are neither right nor confident-wrong here.", ""]
    for task, rep in out["tasks"].items():
        L += [f"## {task} ({rep['n']} samples)", ""]
        if task == "risk":
            L += ["| tool | " + " | ".join(f"F1 {f}" for f in
                  RISK_FLAGS)
                  + " | weakest | look-alikes flagged | clean flagged | tiny flagged |",
                  "|---" * 11 + "|"]
            for name, d in [*((f"picohead {t}", v) for t, v in rep["picohead"].items()),
                            *rep["anchors"].items()]:
                pf = d["per_flag"]
                neg = d["negatives_flagged"]
                L.append(f"| {name} | " + " | ".join(
                    _f2(pf[f]["f1"]) if f in pf else "—" for f in
                    RISK_FLAGS)
                    + f" | {_f2(d['weakest_f1'])} | {_f(neg.get('lookalike', {}).get('share'))} % "
                    f"| {_f(neg.get('clean', {}).get('share'))} % "
                    f"| {_f(neg.get('tiny', {}).get('share'))} % |")
            L.append("")
            continue
        L += ["| tool | accuracy | raw top-1 | coverage | generic answers | confident-wrong "
              "| scored on |", "|---|---|---|---|---|---|---|"]
        for t, d in rep["picohead"].items():
            L.append(f"| picohead {t} | {_f(d['accuracy'])} % | {_f(d['raw_top1'])} % | "
                     f"{_f(d['coverage'])} % | {_f(d.get('generic_answers'))} % | "
                     f"{_f(d['confident_wrong'])} % | all {d['n']} |")
        for tool, d in rep["anchors"].items():
            L.append(f"| {tool} | {_f(d['accuracy'])} % | — | {_f(d['coverage'])} % | — | "
                     f"{_f(d['confident_wrong'])} % | {d['n']} it can name |")
        if rep["both"]:
            L += ["", "On the labels both tools output:", "",
                  "| anchor | labels | samples | anchor | " + " | ".join(
                      f"picohead {t}" for t in rep["picohead"]) + " |",
                  "|---" * (4 + len(rep["picohead"])) + "|"]
            for tool, b in rep["both"].items():
                L.append(f"| {tool} | {b['labels']} | {b[tool]['n']} | {_f(b[tool]['accuracy'])} % | "
                         + " | ".join(f"{_f(b[f'picohead-{t}']['accuracy'])} %"
                                      for t in rep["picohead"]) + " |")
        if task == "text_lang":
            kinds = sorted({k for d in rep["picohead"].values() for k in d["by_kind"]})
            L += ["", "| tool | " + " | ".join(kinds) + " |", "|---" * (1 + len(kinds)) + "|"]
            for name, d in [*((f"picohead {t}", v) for t, v in rep["picohead"].items()),
                            *rep["anchors"].items()]:
                L.append(f"| {name} | " + " | ".join(
                    f"{_f(d['by_kind'].get(k, {}).get('accuracy'))} %" for k in kinds) + " |")
        else:
            L += ["", "Files under 256 bytes: " + ", ".join(
                f"picohead {t} {_f(d['under_256_bytes']['accuracy'])} % (n={d['under_256_bytes']['n']})"
                for t, d in rep["picohead"].items()) + "; " + ", ".join(
                f"{tool} {_f(d['under_256_bytes']['accuracy'])} %"
                for tool, d in rep["anchors"].items())]
        last = list(rep["picohead"].values())[-1]
        L += ["", "Top confusions (last tier): " + "; ".join(
            f"{t} → {p} ×{c}" for t, p, c in last["confusions"][:10]), ""]
    L += ["## Robustness", "", "| tier | " + " | ".join(
        next(iter(out["robustness"].values()))["padding"]) + " | batch flips | max score diff "
          "| 0–16-byte inputs flagged |", "|---" * 8 + "|"]
    for t, r in out["robustness"].items():
        L.append(f"| {t} | " + " | ".join(
            f"{_f(100 * v['share'] if v['share'] is not None else None)} %"
            for v in r["padding"].values())
            + f" | {r['batch']['flipped']} of {r['batch']['n']} | {r['batch']['max_score_diff']} "
            f"| {r['tiny_inputs']['flagged']} of {r['tiny_inputs']['n']} |")
    if out["anchors_skipped"]:
        L += ["", "Anchors that could not run: " + "; ".join(
            f"{k}: {v}" for k, v in out["anchors_skipped"].items())]
    return "\n".join(L) + "\n"


def _best_anchor(rep: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    best = None
    for tool, b in rep.get("both", {}).items():
        acc = b[tool]["accuracy"]
        if acc is not None and (best is None or acc > best[1][best[0]]["accuracy"]):
            best = (tool, b)
    return best


def headline(out: dict[str, Any], corpus: dict[str, Any] | None = None) -> str:
    """The README's headline table: every head and tier on wild-test, the best anchor on the labels
    both output (same records, same run), and the corpus test split beside it (``corpus``: the
    model card's scores, tier -> head -> {"accuracy"|"micro_f1"})."""
    tiers = out["tiers"]
    L = ["| head | tier | wild-test accuracy | raw top-1 | coverage | confident-wrong | "
         "on labels both output: picohead / best anchor | corpus test split |",
         "|---|---|---|---|---|---|---|---|"]
    for task in ("mime", "code_lang", "text_lang"):
        rep = out["tasks"].get(task)
        if rep is None:
            continue
        best = _best_anchor(rep)
        for t in tiers:
            d = rep["picohead"][t]
            both = (f"{_f(best[1][f'picohead-{t}']['accuracy'])} % / {best[0]} "
                    f"{_f(best[1][best[0]]['accuracy'])} % ({best[1][best[0]]['n']} samples)"
                    if best else "—")
            c = (corpus or {}).get(t, {}).get(task, {}).get("accuracy")
            L.append(f"| {task} | {t} | {_f(d['accuracy'])} % | {_f(d['raw_top1'])} % | "
                     f"{_f(d['coverage'])} % | {_f(d['confident_wrong'])} % | {both} | "
                     f"{_f(100 * c) if c is not None else '—'} % |")
    rep = out["tasks"].get("risk")
    if rep is not None:
        ds = rep["anchors"].get("detect-secrets")
        for t in tiers:
            d = rep["picohead"][t]
            neg = d["negatives_flagged"]
            c = (corpus or {}).get(t, {}).get("risk", {}).get("micro_f1")
            L.append(f"| risk | {t} | weakest flag F1 {_f2(d['weakest_f1'])}, macro "
                     f"{_f2(d['macro_f1'])} | — | look-alikes flagged "
                     f"{_f(neg.get('lookalike', {}).get('share'))} % | 0–16 B flagged "
                     f"{_f(neg.get('tiny', {}).get('share'))} % | detect-secrets macro F1 "
                     f"{_f2(ds['macro_f1']) if ds else '—'} (its 4 flags) | micro-F1 "
                     f"{_f2(c)} |")
    return "\n".join(L) + "\n"


def card_block(out: dict[str, Any], corpus: dict[str, Any] | None = None) -> str:
    """The MODEL_CARD's wild section, between markers so a regenerated card keeps it."""
    rob = out["robustness"]
    tiers = out["tiers"]
    pad = next(iter(rob.values()))["padding"]
    L = [CARD_BEGIN, f"## Wild suite ({out['split']} half): content from producers the corpus "
         "never saw", "",
         f"{out['records']} samples of the wild suite's {out['split']} half "
         f"({out['date']}; `{out['command']}`), picohead and the anchors on the same records in "
         "one run; the full report is `benchmarks/results/wild.md`. *Accuracy* counts every "
         "sample (an `unknown` or an absent head is wrong); *confident-wrong* is the share "
         "answered with a wrong label above the head's threshold.", "",
         headline(out, corpus), "",
         "Robustness (share of answers that change; batch: each input alone vs in one batch):", "",
         "| tier | " + " | ".join(pad) + " | batch-dependent answers | max score difference |",
         "|---" * (3 + len(pad)) + "|"]
    for t in tiers:
        r = rob[t]
        L.append(f"| {t} | " + " | ".join(
            f"{_f(100 * v['share']) if v['share'] is not None else '—'} %"
            for v in r["padding"].values())
            + f" | {r['batch']['flipped']} of {r['batch']['n']} | {r['batch']['max_score_diff']} |")
    L += ["", CARD_END]
    return "\n".join(L) + "\n"


def keep_block(old: str, new: str) -> str:
    """``new`` with the wild block of ``old`` in the same place (after the first section's
    intro) when ``new`` has none."""
    if CARD_BEGIN not in old or CARD_BEGIN in new:
        return new
    block = old[old.index(CARD_BEGIN):old.index(CARD_END) + len(CARD_END)]
    return put_block(new, block)


def put_block(text: str, block: str) -> str:
    """``text`` with ``block`` replacing its wild block, or inserted before its first ``## ``."""
    if CARD_BEGIN in text:
        a, b = text.index(CARD_BEGIN), text.index(CARD_END) + len(CARD_END)
        return text[:a] + block.strip() + text[b:]
    i = text.find("\n## ")
    if i < 0:
        return text.rstrip() + "\n\n" + block
    return text[:i + 1] + block.strip() + "\n\n" + text[i + 1:]
