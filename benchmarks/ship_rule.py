"""Choose per tier which candidate model ships, by the project's ship rule, from files on wild-dev.

The rule (content-v9's and content-v10's choices, `benchmarks/results/content_v9/ship.md`):

1. Size: a tier file over its budget (``picohead.pipeline.SIZE_BUDGET``, calibration metadata
   included) is out.
2. Robustness first, one target at a time, in this order: risk flags on dev's 0-16-byte inputs
   at most 0.1 %, on the 1,580 enumerated 0-3-byte inputs (`tiny_inputs.py`) at most 0.1 %,
   whitespace padding (the suite's leading newlines, leading whitespace and trailing newlines)
   changing at most 1 % of answers, no answer that depends on the batch. Where at least one
   candidate meets a target, the ones that miss it are out; where none meets it, the target does
   not decide.
3. Among the candidates left, the higher mean of four dev figures wins: MIME, code-language and
   text-language accuracy (every record counts; an ``unknown`` or a generic answer is wrong) and
   100 x the risk head's macro F1. A tie keeps the earlier candidate (list the shipped one first).
4. A margin (settled on 2026-12-06, before content-v13rc1's dev figures were read): where a
   challenger leads the shipped candidate (the first listed) and the shipped one is still in, the
   challenger wins only if the 5th percentile of the project bootstrap of the difference
   (``benchmarks/ship_margin.py``, shipped folder as A, the challenger as B, this tier) is above
   0; otherwise the shipped one stays. content-v12's small won by 0.47 points on dev with a 5th
   percentile of -0.62 and lost on every figure on test. ``--margin TIER=JSON`` gives that file
   per tier; a tier where a challenger leads and no margin is given is an error, unless
   ``--no-margin`` (to reproduce the choices made before the rule: content-v9 to content-v12).
5. Wrong answers are charged (settled on 2026-12-07, before any content-v19 candidate was
   scored): each softmax figure in the mean of rule 3 is right minus confident-wrong (% of
   records; an ``unknown`` or a family fallback costs nothing beyond not being right), the
   utility the dev calibration already maximizes on tiers without a wrong-answer bound.
   content-v18's base won on right answers alone (+0.95) while its MIME wrong rose 2.81 -> 4.68 %
   and code wrong 2.56 -> 5.61 % on dev (5.8 -> 8.5 % and 5.8 -> 8.3 % on test); net of them it
   trails by 0.10. ``--right-only`` ranks on right answers alone, as content-v9 to content-v18
   were chosen; ``ship_margin.py`` takes the same flag so that the two agree.

Each candidate is ``NAME=DEV_JSON:TINY_JSON:MODEL_DIR``: the output of ``wild.py score --split dev``
for that model folder, a ``tiny_inputs.py`` output that holds the folder (under the same path as
given here), and the folder itself (for the file sizes). It prints one table per tier and the
choice, and writes them as JSON with ``--out``.

What it does not do: score anything (it reads the scores), look at the test half, or say why a
candidate wins beyond the figures it ranks on.

    python benchmarks/ship_rule.py "shipped=dev_shipped.json:tiny.json:runtime/picohead_runtime/models/content-v10" \
        "rc1=dev_rc1.json:tiny.json:cal" --margin small=margin_small.json --out ship_rule.json
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from picohead.pipeline import SIZE_BUDGET  # noqa: E402

TIERS = ("tiny", "small", "base", "pro")
PADDING = ("lead_newlines_1k", "lead_whitespace_8k", "trail_newlines_4k")
TINY_MAX, PADDING_MAX = 0.1, 1.0  # percent
GATES = ("dev_0_16_bytes", "enumerated_0_3_bytes", "padding", "batch")
NET, RIGHT = "right minus wrong", "right"  # rule 5's figures, and the ones before it


@dataclass
class Row:
    """One candidate's figures on one tier."""

    candidate: str
    size: int
    over_budget: bool
    mime: float
    mime_raw: float
    mime_generic: float
    mime_wrong: float
    code: float
    code_wrong: float
    text: float
    text_wrong: float
    risk_macro_f1: float
    lookalikes_flagged: float
    dev_tiny_flagged: int
    dev_tiny_n: int
    enumerated_flagged: int
    enumerated_n: int
    padding_changed: float
    batch_flipped: int
    mean: float
    gates: dict[str, bool]


def row(name: str, dev: dict[str, Any], tiny: dict[str, Any], model: Path, tier: str,
        right_only: bool = False) -> Row:
    """One candidate's figures; its mean is rule 3's (rule 5's net figures unless ``right_only``)."""
    t = dev["tasks"]
    m, c, x = (t[k]["picohead"][tier] for k in ("mime", "code_lang", "text_lang"))
    r = t["risk"]["picohead"][tier]
    neg = r["negatives_flagged"]
    rob = dev["robustness"][tier]
    pad = max(rob["padding"][k]["share"] * 100 for k in PADDING)
    en = tiny["models"][str(model)][tier]
    size = (model / f"{tier}.onnx").stat().st_size
    charge = 0.0 if right_only else 1.0
    mean = (sum(h["accuracy"] - charge * h["confident_wrong"] for h in (m, c, x))
            + 100 * r["macro_f1"]) / 4
    gates = {"dev_0_16_bytes": 100 * neg["tiny"]["flagged"] / max(1, neg["tiny"]["n"]) <= TINY_MAX,
             "enumerated_0_3_bytes": en["share"] <= TINY_MAX,
             "padding": pad <= PADDING_MAX, "batch": rob["batch"]["flipped"] == 0}
    return Row(name, size, size > SIZE_BUDGET.get(tier, 1 << 62), m["accuracy"], m["raw_top1"],
               m["generic_answers"], m["confident_wrong"], c["accuracy"], c["confident_wrong"],
               x["accuracy"], x["confident_wrong"],
               r["macro_f1"], neg["lookalike"]["share"], neg["tiny"]["flagged"], neg["tiny"]["n"],
               en["flagged"], en["inputs"], round(pad, 2), rob["batch"]["flipped"], round(mean, 2),
               gates)


class MarginError(ValueError):
    """A challenger leads the shipped candidate and no fitting ship_margin result was given."""


def margin_for(margin: dict[str, Any] | None, tier: str, shipped: Path, leader: Path,
               figures: str = NET) -> float:
    """The 5th percentile of ship_margin's result for (shipped, leader) on ``tier``, computed on
    the same ``figures`` (results written before rule 5 are on right answers); the lead is above
    the noise when it is above 0."""
    if margin is None:
        raise MarginError(f"{tier}: a challenger ({leader}) leads the shipped candidate ({shipped}); "
                          f"give benchmarks/ship_margin.py's result with --margin {tier}=JSON "
                          "(or --no-margin to reproduce a choice made before the rule)")
    pair = (Path(str(margin.get("a"))).resolve(), Path(str(margin.get("b"))).resolve())
    if margin.get("tier") != tier or pair != (shipped.resolve(), leader.resolve()):
        raise MarginError(f"{tier}: the margin given is for tier {margin.get('tier')}, "
                          f"A={margin.get('a')}, B={margin.get('b')}; the rule needs tier {tier}, "
                          f"A={shipped} (shipped), B={leader}")
    if margin.get("figures", RIGHT) != figures:
        raise MarginError(f"{tier}: the margin given is on {margin.get('figures', RIGHT)!r} figures, "
                          f"the rule ranks on {figures!r} (ship_margin.py and ship_rule.py take "
                          "--right-only together)")
    return float(margin["p5"])


def choose(rows: list[Row], margin: dict[str, Any] | None = None, folders: list[Path] | None = None,
           tier: str = "", use_margin: bool = False, figures: str = NET
           ) -> tuple[str | None, list[str]]:
    """The winner's name and, in order, why the others went out. With ``use_margin``, a
    challenger that leads the shipped candidate (``rows[0]``, from ``folders[0]``) must clear the
    margin (rule 4); ``MarginError`` when no fitting margin is given."""
    left = [r for r in rows if not r.over_budget]
    why = [f"{r.candidate}: over the size budget ({r.size:,} B)" for r in rows if r.over_budget]
    for g in GATES:
        meet = [r for r in left if r.gates[g]]
        if meet and len(meet) < len(left):
            why += [f"{r.candidate}: misses {g} where another meets it" for r in left
                    if not r.gates[g]]
            left = meet
    if not left:
        return None, why
    best = max(left, key=lambda r: (r.mean, -left.index(r)))
    shipped = rows[0]
    if use_margin and folders and best is not shipped and shipped in left:
        p5 = margin_for(margin, tier, folders[0], folders[rows.index(best)], figures)
        if p5 <= 0:
            why.append(f"{best.candidate}: dev mean higher ({best.mean} > {shipped.mean}) but not "
                       f"above the noise (project bootstrap 5th percentile {p5} <= 0)")
            why += [f"{r.candidate}: lower dev mean than {best.candidate} ({r.mean} < {best.mean})"
                    for r in left if r is not shipped and r is not best]
            return shipped.candidate, why
        why.append(f"{shipped.candidate}: lower dev mean ({shipped.mean} < {best.mean}), the lead "
                   f"above the noise (project bootstrap 5th percentile {p5} > 0)")
        why += [f"{r.candidate}: lower dev mean ({r.mean} < {best.mean})" for r in left
                if r is not best and r is not shipped]
        return best.candidate, why
    why += [f"{r.candidate}: lower dev mean ({r.mean} < {best.mean})" for r in left if r is not best]
    return best.candidate, why


def table(tier: str, rows: list[Row], winner: str | None) -> list[str]:
    L = [f"### {tier}", "", "| candidate | MIME right / generic / wrong (raw) | code right / wrong | "
         "text right / wrong | risk macro F1 | "
         "look-alikes | 0-16 B flagged (dev) | 0-3 B flagged | padding changed | batch flips | "
         "size | mean |", "|" + "---|" * 12]
    for r in rows:
        mark = "**" if r.candidate == winner else ""
        L.append(f"| {mark}{r.candidate}{mark} | {r.mime:.2f} / {r.mime_generic:.2f} / "
                 f"{r.mime_wrong:.2f} ({r.mime_raw:.2f}) | {r.code:.2f} / {r.code_wrong:.2f} | "
                 f"{r.text:.2f} / {r.text_wrong:.2f} | "
                 f"{r.risk_macro_f1:.3f} | {r.lookalikes_flagged:.2f} % | {r.dev_tiny_flagged} of "
                 f"{r.dev_tiny_n} | {r.enumerated_flagged} of {r.enumerated_n} | "
                 f"{r.padding_changed:.2f} % | {r.batch_flipped} | {r.size:,} B"
                 f"{' (over)' if r.over_budget else ''} | {r.mean:.2f} |")
    return L


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidates", nargs="+", help="NAME=DEV_JSON:TINY_JSON:MODEL_DIR")
    ap.add_argument("--tiers", default=",".join(TIERS))
    ap.add_argument("--out", default=None, help="write the tables and choices as JSON")
    ap.add_argument("--margin", action="append", default=[], metavar="TIER=JSON",
                    help="benchmarks/ship_margin.py's result for a tier (shipped as A, the "
                         "challenger as B); needed where a challenger leads (rule 4)")
    ap.add_argument("--no-margin", action="store_true",
                    help="rank by the dev mean alone, as the choices before rule 4 did")
    ap.add_argument("--right-only", action="store_true",
                    help="rank on right answers alone, not net of wrong ones (rule 5), as the "
                         "choices up to content-v18 did")
    a = ap.parse_args(argv)
    margins: dict[str, dict[str, Any]] = {}
    for spec in a.margin:
        tier, _, path = spec.partition("=")
        if tier not in TIERS or not path:
            ap.error(f"not TIER=JSON with a tier of {', '.join(TIERS)}: {spec}")
        try:
            margins[tier] = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as e:
            print(f"ship_rule: margin {spec}: {e}", file=sys.stderr)
            return 2
    cands = []
    for spec in a.candidates:
        name, _, rest = spec.partition("=")
        parts = rest.split(":")
        if not name or len(parts) != 3:
            ap.error(f"not NAME=DEV_JSON:TINY_JSON:MODEL_DIR: {spec}")
        try:
            dev, tiny = (json.loads(Path(p).read_text()) for p in parts[:2])
        except (OSError, json.JSONDecodeError) as e:
            print(f"ship_rule: {name}: {e}", file=sys.stderr)
            return 2
        cands.append((name, dev, tiny, Path(parts[2])))
    result: dict[str, Any] = {}
    figures = RIGHT if a.right_only else NET
    for tier in a.tiers.split(","):
        have = [c for c in cands if tier in c[1]["robustness"] and (c[3] / f"{tier}.onnx").exists()]
        lacking = [f"{n} ({m})" for n, _, t, m in have if tier not in t["models"].get(str(m), {})]
        if lacking:
            print(f"ship_rule: the tiny-input results have no {tier} tier for {', '.join(lacking)}"
                  f" (run benchmarks/tiny_inputs.py with --tiers ... {tier}, or leave {tier} out "
                  "with --tiers)", file=sys.stderr)
            return 2
        rows = [row(n, d, t, m, tier, a.right_only) for n, d, t, m in have]
        if not rows:
            continue
        try:
            winner, why = choose(rows, margins.get(tier), [m for *_, m in have], tier,
                                 use_margin=not a.no_margin, figures=figures)
        except MarginError as e:
            print(f"ship_rule: {e}", file=sys.stderr)
            return 2
        print("\n".join(table(tier, rows, winner) + ["", f"choice: {winner}"]
                        + [f"- {w}" for w in why] + [""]))
        result[tier] = {"choice": winner, "why": why, "rows": [asdict(r) for r in rows],
                        "figures": figures,
                        "margin": None if a.no_margin else margins.get(tier)}
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
