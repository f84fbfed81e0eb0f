"""Detector precision and recall on the corpus's own risk generator: are generator and detectors
consistent?

Generates ``--n`` samples per flag (``risk.MAKERS``, each value written by ``risk.assignment`` in a
random host syntax, or planted bare by ``risk.plant_secret``'s line forms), as many look-alike
negatives (``risk.lookalike``), every provider token format and every negative kind, and the
0-16-byte inputs (``risk.tiny`` negatives and ``risk.tiny_positive``). Reports per flag the
detector's precision and recall against the generator's labels, recall per token format, the
false-positive rate per look-alike kind, and the share of 0-16-byte negatives flagged (must be 0).
Uses no wild-suite data; deterministic for a given ``--seed``.

    python benchmarks/risk_corpus_check.py --n 500 --out /tmp/risk_check.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

from picohead.data import risk
from picohead.data.risk import negatives, tokens

LANGS = (None, "python", "javascript", "go", "java", "csharp", "rust", "php", "shell", "yaml",
         "toml", "json", "xml", "c", "sql", "perl", "kotlin", "ruby")


def run(n: int, seed: int) -> dict:
    rng = random.Random(seed)
    kinds = risk.available_kinds()
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    misses: dict[str, list[str]] = defaultdict(list)

    def score(line: str, truth: set[str]) -> set[str]:
        got = set(risk.detect(line.encode("utf-8")))
        for k in risk.RISKS:
            if k in got and k in truth:
                tp[k] += 1
            elif k in got:
                fp[k] += 1
                if len(misses[f"fp:{k}"]) < 5:
                    misses[f"fp:{k}"].append(line[:160])
            elif k in truth:
                fn[k] += 1
                if len(misses[f"fn:{k}"]) < 5:
                    misses[f"fn:{k}"].append(line[:160])
        return got

    # flags written in host syntaxes (the corpus build's path)
    for kind in kinds:
        for _ in range(n):
            key, value = risk.MAKERS[kind](rng)
            line = risk.assignment(rng.choice(LANGS), key, value, rng)
            truth = {kind}
            if kind == "phone" and not any(s[0] == "phone" for s in risk.spans(line.encode())):
                continue  # national formats under other names: the generator's label, no detector
            score(line, truth)
    # every provider format
    per_format: dict[str, dict[str, int]] = {}
    for fmt in tokens.FORMATS:
        hit = 0
        for _ in range(max(20, n // 10)):
            line = risk.assignment(rng.choice(LANGS), fmt.var, fmt.make(rng), rng)
            hit += "api_key" in score(line, {"api_key"})
        per_format[fmt.name] = {"n": max(20, n // 10), "detected": hit}
    # look-alikes by kind
    neg_kinds: Counter[str] = Counter()
    neg_flagged: Counter[str] = Counter()
    for _ in range(n * 2):
        key, value = risk.lookalike(rng)
        line = risk.assignment(rng.choice(LANGS), key, value, rng)
        neg_kinds[key] += 1
        neg_flagged[key] += bool(score(line, set()))
    # tiny inputs
    tiny_kind: Counter[str] = Counter()
    tiny_flagged: Counter[str] = Counter()
    for _ in range(n * 2):
        kind, data = negatives.tiny(rng)
        tiny_kind[kind] += 1
        got = risk.detect(data)
        tiny_flagged[kind] += bool(got)
    tiny_pos = Counter()
    for _ in range(n):
        flag, data = negatives.tiny_positive(rng)
        tiny_pos[(flag, flag in risk.detect(data))] += 1
    flags = {}
    for k in risk.RISKS:
        p = tp[k] / (tp[k] + fp[k]) if tp[k] + fp[k] else None
        r = tp[k] / (tp[k] + fn[k]) if tp[k] + fn[k] else None
        flags[k] = {"tp": tp[k], "fp": fp[k], "fn": fn[k], "precision": p, "recall": r}
    n_tiny = sum(tiny_kind.values())
    return {
        "seed": seed, "n": n, "flags": flags, "formats": per_format,
        "lookalikes": {k: {"n": neg_kinds[k], "flagged": neg_flagged[k]} for k in sorted(neg_kinds)},
        "lookalikes_flagged_share": sum(neg_flagged.values()) / max(1, sum(neg_kinds.values())),
        "tiny": {k: {"n": tiny_kind[k], "flagged": tiny_flagged[k]} for k in sorted(tiny_kind)},
        "tiny_flagged_share": sum(tiny_flagged.values()) / max(1, n_tiny),
        "tiny_positive": {f"{f}:{'detected' if d else 'missed'}": c for (f, d), c in sorted(tiny_pos.items())},
        "examples": dict(misses),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500, help="samples per flag (default 500)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="write the report as JSON here")
    a = ap.parse_args(argv)
    rep = run(a.n, a.seed)
    for k, v in rep["flags"].items():
        p = "-" if v["precision"] is None else f"{v['precision']:.3f}"
        r = "-" if v["recall"] is None else f"{v['recall']:.3f}"
        print(f"{k:12s} precision {p}  recall {r}  (tp {v['tp']}, fp {v['fp']}, fn {v['fn']})")
    weak = {k: v for k, v in rep["formats"].items() if v["detected"] < v["n"]}
    print(f"token formats: {len(rep['formats'])}, fully detected {len(rep['formats']) - len(weak)}; "
          f"partial: {weak or 'none'}")
    print(f"look-alikes flagged: {rep['lookalikes_flagged_share']:.4f} "
          f"({ {k: v for k, v in rep['lookalikes'].items() if v['flagged']} or 'none'})")
    print(f"0-16-byte negatives flagged: {rep['tiny_flagged_share']:.4f} over {sum(v['n'] for v in rep['tiny'].values())}")
    print(f"0-16-byte positives: {rep['tiny_positive']}")
    for k, ex in rep["examples"].items():
        print(k, ex[:3])
    if a.out:
        a.out.write_text(json.dumps(rep, indent=1, ensure_ascii=False))
    return 0 if rep["tiny_flagged_share"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
