"""Evaluate exported ONNX tiers on held-out data and write ``MODEL_CARD.md`` with plots.

The numbers come from the int8 ``.onnx`` files users run, not from the torch model: per head, tier
and class on the corpus's test split; on short inputs (text-language samples cut to ~50 bytes at a
character boundary; files under 256 bytes for MIME); risk flags on look-alike negatives; sizes
and latency per tier. Plots (PNG, needs matplotlib): accuracy vs latency per tier and family, and
confusion matrices for code and text language.

What it does not do: train or export (``picohead.pipeline`` runs those first).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from picohead.calibrate import MIN_F1
from picohead.dataset import WindowData
from picohead.evaluate import (
    evaluate_logits,
    file_metrics,
    headline,
    mean_headline,
    per_class_table,
)
from picohead_runtime import scoring
from picohead_runtime.spec import ModelSpec

log = logging.getLogger(__name__)


def short_text(data: WindowData, n_bytes: int = 50) -> WindowData:
    """Text-language samples cut to at most ``n_bytes`` at a UTF-8 character boundary."""
    has = data.label_mask.get("text_lang")
    if has is None or not has.any():
        return data.subset(np.zeros(0, dtype=np.int64))
    sub = data.subset(np.flatnonzero(has))
    windows = np.zeros((len(sub), n_bytes), dtype=np.uint8)
    lengths = np.zeros(len(sub), dtype=np.int64)
    for i in range(len(sub)):
        raw = sub.windows[i, : sub.lengths[i]].tobytes()[:n_bytes]
        cut = raw.decode("utf-8", errors="ignore").encode("utf-8")
        windows[i, : len(cut)] = np.frombuffer(cut, dtype=np.uint8)
        lengths[i] = len(cut)
    keep = np.flatnonzero(lengths > 0)
    sub.windows, sub.lengths = windows, lengths
    return sub.subset(keep)


def latency_ms(model: Any, length: int = 2048, runs: int = 300) -> float:
    """Median warm single-sample latency of a loaded file at ``length`` bytes (the exporter's
    measurement)."""
    x = np.random.default_rng(0).integers(0, 256, (1, length), dtype=np.uint8)
    sample = (x, np.array([length], dtype=np.int64))
    return scoring.latency_ms(model.session, model.output_names, sample, runs=runs)


def onnx_test_report(files: dict[str, Path], spec: ModelSpec, test: WindowData) -> dict[str, Any]:
    """Per tier: file size, latency, and metrics on the full test split and its short subsets.
    ``test`` holds labels indexed by ``spec``'s lists; each file is scored on its own lists, so a
    sample whose label a tier lacks is left out of that tier's head (not counted wrong)."""
    short = {"text_lang_50B": short_text(test)}
    small = np.flatnonzero(test.lengths < 256)
    short["files_under_256B"] = test.subset(small)

    out: dict[str, Any] = {}
    for tier, path in files.items():
        # each file scores on its own label lists (the tiers of a mixed bundle differ)
        tier_spec, model, full = file_metrics(path, test, spec)
        subsets = {
            k: evaluate_logits(tier_spec, scoring.file_logits(model, d.windows, d.lengths),
                               d.reindex(spec, tier_spec))
            if len(d)
            else {}
            for k, d in short.items()
        }
        one = scoring.open_file(path, threads=1)
        out[tier] = {
            "file": str(path),
            "bytes": path.stat().st_size,
            "latency_ms_2kb_1thread": latency_ms(one),
            "heads": full,
            "short": subsets,
            "mean_headline": mean_headline(full),
        }
    return out


def onnx_val_scores(files: dict[str, Path], val: WindowData) -> dict[str, Any]:
    """Per tier: its file's mean headline score on the validation split, the figure the recipe
    chooses families and the default tier by (the test split only reports). Each file's embedded
    (calibrated) thresholds apply, as in :func:`onnx_test_report`."""
    return {
        tier: {
            "file": str(path),
            "n": len(val),
            "mean_headline": mean_headline(file_metrics(path, val)[2]),
        }
        for tier, path in files.items()
    }


# -- added heads ----------------------------------------------------------------------------------
ADDED_BEGIN = "<!-- model-card:begin -->"
ADDED_END = "<!-- model-card:end -->"
ADDED_TITLE = "## Added heads"


def added_head_docs(root: Path) -> list[Path]:
    """``docs/*-head.md`` files under ``root`` that mark a block for the model card."""
    return [p for p in sorted((root / "docs").glob("*-head.md")) if ADDED_BEGIN in p.read_text()]


def added_heads_section(root: Path, docs: list[Path] | None = None) -> list[str]:
    """The card's optional "Added heads" section: each doc's block between ``ADDED_BEGIN`` and
    ``ADDED_END`` (heads trained with ``picohead add-head`` on this model's frozen trunk), linked to
    the doc. ``docs`` defaults to :func:`added_head_docs`; no docs, no section."""
    docs = added_head_docs(root) if docs is None else docs
    L: list[str] = []
    for p in docs:
        text = p.read_text(encoding="utf-8")
        if ADDED_BEGIN not in text:
            continue
        block = text.split(ADDED_BEGIN, 1)[1].split(ADDED_END, 1)[0].strip("\n")
        try:
            rel = p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = str(p)
        L += ["", block, "", f"Data, commands and what fails: [{rel}]({rel})."]
    if not L:
        return []
    return [
        "",
        ADDED_TITLE,
        "",
        "Heads trained afterwards with `picohead add-head` on this model's frozen trunk: not in the",
        "shipped files, and the heads above are unchanged. Figures from each head's own test split.",
        *L,
    ]


def update_added_heads(card: Path, docs: list[Path] | None = None) -> bool:
    """Rewrite the "Added heads" section of an existing card (it is the card's last section) from
    the docs (default: :func:`added_head_docs`), without regenerating the rest. Returns whether the
    file changed. ``write_model_card`` adds the section only when given ``added_heads``: a
    retrained model needs its added heads retrained before their figures can go on its card."""
    text = card.read_text(encoding="utf-8")
    head = text.split("\n" + ADDED_TITLE + "\n", 1)[0].rstrip("\n")
    new = "\n".join([head, *added_heads_section(card.parent, docs)]) + "\n"
    if new != text:
        card.write_text(new, encoding="utf-8")
        return True
    return False


# -- the card -------------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _plots(scores: dict[str, dict[str, Any]], spec: ModelSpec, out_dir: Path) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # [train] installs it; say so rather than write a card without plots
        log.warning(
            "matplotlib is not installed: MODEL_CARD.md gets no plots (pip install matplotlib)"
        )
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    made = []
    fig, ax = plt.subplots(figsize=(6, 4))
    for fam, tiers in scores.items():
        xs = [t["latency_ms_2kb_1thread"] for t in tiers.values()]
        ys = [t["mean_headline"] for t in tiers.values()]
        ax.plot(xs, ys, marker="o", label=fam)
        for name, x, y in zip(tiers, xs, ys):
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("latency per file, ms (2 KB window, 1 thread, int8 ONNX)")
    ax.set_ylabel("mean test score over heads")
    ax.set_title("accuracy vs latency per tier")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "accuracy_vs_latency.png", dpi=110)
    plt.close(fig)
    made.append("accuracy_vs_latency.png")
    best_fam = max(scores, key=lambda f: max(t["mean_headline"] for t in scores[f].values()))
    top = scores[best_fam][list(scores[best_fam])[-1]]
    for head in ("code_lang", "text_lang"):
        m = top["heads"].get(head)
        if not m:
            continue
        mat = np.array(m["matrix"], dtype=np.float64)
        keep = mat.sum(1) > 0
        mat = mat[keep][:, keep]
        labels = [lab for lab, k in zip(spec.head(head).labels, keep) if k]
        norm = mat / mat.sum(1, keepdims=True).clip(min=1)
        fig, ax = plt.subplots(figsize=(0.22 * len(labels) + 3, 0.22 * len(labels) + 2.5))
        ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
        ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_xlabel("predicted")
        ax.set_ylabel("true")
        ax.set_title(f"{head} confusion ({best_fam}, {list(scores[best_fam])[-1]}; row-normalised)")
        fig.tight_layout()
        name = f"confusion_{head}.png"
        fig.savefig(out_dir / name, dpi=110)
        plt.close(fig)
        made.append(name)
    return made


def _intro_section(
    spec: ModelSpec, corpus_card: dict[str, Any] | None, intro: str | None = None
) -> list[str]:
    """The title, where the figures come from (``intro`` replaces the recipe's sentence, for a
    bundle assembled from several runs), and the data."""
    L: list[str] = [f"# Model card: {spec.name}", ""]
    L += [
        intro
        or "Generated by `picohead train --recipe content` (see README). Every figure below is "
        "measured on\nthe corpus's **test split** (held out by source package/document) with the "
        "exported int8 ONNX\nfiles, not the torch model.",
        "",
    ]
    if corpus_card:
        splits = corpus_card.get("splits", {})
        L += [
            "## Data",
            "",
            f"{corpus_card.get('total', '?')} samples: "
            + ", ".join(f"{k} {v}" for k, v in sorted(splits.items()))
            + ". Sources, licences and "
            "per-label counts are in the corpus's `DATASET_CARD.md` (rebuilt by `picohead data build`).",
            "",
        ]
    return L


def _shipped_section(scores: dict[str, dict[str, Any]], choice: dict[str, Any], unexported: list[str]) -> list[str]:
    """The shipped tiers, and the families none of whose tiers passed the export gates."""
    L: list[str] = []
    L += [
        "## Shipped tiers",
        "",
        "| tier | family | file size | latency (2 KB, 1 thread) | mean test score |",
        "|---|---|---|---|---|",
    ]
    for tier, c in choice.items():
        s = scores[c["family"]][tier]
        L.append(
            f"| {tier} | {c['family']} | {s['bytes'] / 1024:.0f} KB | {s['latency_ms_2kb_1thread']:.3f} ms "
            f"| {_pct(s['mean_headline'])} |"
        )
    for fam in unexported:
        L += [
            "",
            f"Family `{fam}` was trained but none of its tiers passed the export gates (parity and "
            "int8 agreement); the reasons are in its run's `onnx/export.json`.",
        ]
    return L


def _family_sections(spec: ModelSpec, scores: dict[str, dict[str, Any]]) -> list[str]:
    """Per family: accuracy per head and tier, what the runtime answers, short inputs."""
    L: list[str] = []
    heads = [h.name for h in spec.heads]
    for fam, tiers in scores.items():
        L += [
            "",
            f"## Family `{fam}`: accuracy per head and tier (test split, %)",
            "",
            "Accuracy for softmax heads, micro-F1 for the risk head; macro-F1 in brackets.",
            "",
            "| head | " + " | ".join(tiers) + " |",
            "|---|" + "---|" * len(tiers),
        ]
        for h in heads:
            cells = []
            for t in tiers.values():
                m = t["heads"].get(h)
                cells.append(f"{_pct(headline(m))} ({_pct(m['macro_f1'])})" if m else "–")
            L.append(f"| {h} | " + " | ".join(cells) + " |")
        answered = [
            h for h in heads if all("coverage" in t["heads"].get(h, {}) for t in tiers.values())
        ]
        if answered:
            L += [
                "",
                "What the runtime answers under the calibrated thresholds (below them a head says "
                "`unknown`): coverage, then accuracy of the answers given, test split, %.",
                "",
                "| head | " + " | ".join(tiers) + " |",
                "|---|" + "---|" * len(tiers),
            ]
            for h in answered:
                cells = [
                    f"{_pct(t['heads'][h]['coverage'])} / {_pct(t['heads'][h]['accuracy_answered'])}"
                    for t in tiers.values()
                ]
                L.append(f"| {h} | " + " | ".join(cells) + " |")
        L += [
            "",
            "Short inputs:",
            "",
            "| subset | head | " + " | ".join(tiers) + " |",
            "|---|---|" + "---|" * len(tiers),
        ]
        for subset, head in (
            ("text_lang_50B", "text_lang"),
            ("files_under_256B", "mime"),
            ("files_under_256B", "risk"),
        ):
            cells = []
            for t in tiers.values():
                m = t["short"].get(subset, {}).get(head)
                cells.append(f"{_pct(headline(m))} (n={m['n']})" if m else "–")
            L.append(f"| {subset} | {head} | " + " | ".join(cells) + " |")
    return L


def _per_class_sections(spec: ModelSpec, scores: dict[str, dict[str, Any]], choice: dict[str, Any]) -> list[str]:
    """Per head, per-class figures of the shipped largest tier (risk: false alarms too)."""
    L: list[str] = []
    heads = [h.name for h in spec.heads]
    best = choice.get(spec.tiers[-1])
    if best:
        top = scores[best["family"]][spec.tiers[-1]]["heads"]
        for h in heads:
            m = top.get(h)
            if not m:
                continue
            L += ["", f"## Per class: {h} ({best['family']}, {spec.tiers[-1]})", ""]
            L += per_class_table(m, confusions=8)
            if "negatives_flagged" in m:
                L += [
                    "",
                    f"Samples without any risk flag that were flagged: {_pct(m['negatives_flagged'])} %",
                ]
                if "lookalikes_flagged" in m:
                    L += [
                        "",
                        f"Look-alike negatives (UUIDs, hashes, base64, placeholders and example "
                        f"keys planted by the generator; {m['lookalikes']} samples) that were "
                        f"flagged: {_pct(m['lookalikes_flagged'])} % (target <= 5 %)",
                    ]
                if "binaries_flagged" in m:
                    L += [
                        "",
                        f"Binary files without a secret in their window ({m['binaries']} "
                        f"samples: images, executables, archives, fonts, ...) that were flagged: "
                        f"{_pct(m['binaries_flagged'])} %",
                    ]
    return L


def _calibration_section(calibration: dict[str, Any] | None) -> list[str]:
    """Thresholds per tier and head, from each shipped file's calibration."""
    L: list[str] = []
    if calibration:
        L += [
            "",
            "## Calibration (validation split)",
            "",
            "Softmax heads answer `unknown` below a per-head confidence threshold chosen to keep 97 % of",
            "validation samples answered; each risk flag has the threshold that maximises its F1 on",
            "validation. Both are stored in each tier's file and applied by the runtime. A flag whose",
            f"best validation F1 stays under {MIN_F1} is disabled in that tier: the runtime never gives",
            "it and lists it as `disabled` in the result (`n/a` in the text output).",
            "",
            "| tier | head | threshold | coverage | accuracy answered | accuracy overall |",
            "|---|---|---|---|---|---|",
        ]
        for tier, cal in calibration.items():
            for head, r in cal["report"].items():
                if "tradeoff" in r:
                    row = next(x for x in r["tradeoff"] if x["threshold"] == r["chosen"])
                    L.append(
                        f"| {tier} | {head} | {r['chosen']:.2f} | {_pct(row['coverage'])} | "
                        f"{_pct(row['accuracy_answered'])} | {_pct(r['overall_accuracy'])} |"
                    )
        L += [
            "",
            "| tier | flag | threshold | F1 at 0.5 | F1 calibrated (validation) |",
            "|---|---|---|---|---|",
        ]
        for tier, cal in calibration.items():
            for _head, r in cal["report"].items():
                if "tradeoff" not in r:
                    for lab, x in r.items():
                        thr = "disabled" if x.get("disabled") else f"{x['threshold']:.2f}"
                        L.append(
                            f"| {tier} | {lab} | {thr} | {x['f1_at_0.5']:.3f} | {x['f1']:.3f} |"
                        )
    return L


def write_model_card(
    out: Path,
    *,
    spec: ModelSpec,
    scores: dict[str, dict[str, Any]],  # family -> tier -> onnx_test_report entry
    choice: dict[str, Any],
    corpus_card: dict[str, Any] | None = None,
    extra_sections: list[str] | None = None,
    plots_dir: Path | None = None,
    calibration: dict[str, Any]
    | None = None,  # tier -> calibrate_files() entry of the shipped file
    added_heads: list[Path] | None = None,
    intro: str | None = None,
) -> None:
    """Write ``out`` (MODEL_CARD.md) and ``docs/model_card_scores.json`` beside it, section by
    section; a ``<!-- wild:begin ... -->`` block of an existing card is kept. ``intro`` replaces
    the paragraph that says how the figures were made."""
    unexported = [f for f, tiers in scores.items() if not tiers]
    scores = {f: tiers for f, tiers in scores.items() if tiers}
    plots = _plots(scores, spec, plots_dir or out.parent / "docs")
    rel = (plots_dir or out.parent / "docs").relative_to(out.parent) if plots else None
    L = _intro_section(spec, corpus_card, intro)
    L += _shipped_section(scores, choice, unexported)
    L += _family_sections(spec, scores)
    if plots:
        L += ["", "## Plots", ""] + [f"![{p}]({rel}/{p})" for p in plots]
    L += _per_class_sections(spec, scores, choice)
    L += _calibration_section(calibration)
    L += extra_sections or []
    # only when asked: an added head's figures belong to the trunk it was trained on
    L += added_heads_section(out.parent, added_heads) if added_heads else []
    text = "\n".join(L) + "\n"
    if out.exists():  # the wild-suite block (benchmarks/wild.py card) survives a regeneration
        from picohead.wild.report import keep_block

        text = keep_block(out.read_text(encoding="utf-8"), text)
    out.write_text(text)
    (out.parent / "docs").mkdir(exist_ok=True)
    (out.parent / "docs" / "model_card_scores.json").write_text(
        json.dumps(
            {
                "choice": choice,
                "scores": {
                    f: {t: {k: v for k, v in s.items() if k != "file"} for t, s in ts.items()}
                    for f, ts in scores.items()
                },
            },
            indent=1,
        )
        + "\n"
    )
