"""Per-tier decision thresholds calibrated on the validation split, written into the ONNX file.

For each exported tier (the int8 file users run) and the validation manifest:

* multilabel heads: each label's threshold is the one that maximises that label's F1 on validation
  (a rare flag scored by a mean-pooled model rarely reaches 0.5, so 0.5 is a poor default); a
  label whose best F1 stays under ``min_f1`` is disabled instead (``disabled_labels``: the
  runtime never gives it and says so), since a flag that is wrong more often than right costs a
  user more than no flag (content-v7's tiny, which has no detector, flagged 21.9 % of the
  look-alike negatives at risk F1 0.24);
* softmax heads: one confidence threshold below which the runtime answers ``unknown``, chosen as
  the largest threshold that keeps at least ``min_coverage`` of validation samples answered, so
  the least confident answers, which carry most of the errors, become ``unknown``.

The accuracy/coverage trade-off at a grid of thresholds is returned for the model card. The
thresholds are written into the embedded spec of the file (``metadata_props``), which is where
the runtime reads them; weights and graph are untouched. What it does not do: temperature scaling
(the probabilities are left as the model computes them).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from picohead.dataset import WindowData
from picohead_runtime.model_meta import META_KEY, ModelMeta
from picohead_runtime.spec import HeadSpec, ModelSpec

GRID = np.round(np.arange(0.05, 0.96, 0.05), 2)
MIN_F1 = 0.5  # a multilabel label whose best validation F1 is below this is disabled
MIN_COVERAGE = 0.97  # softmax heads: the share of validation samples answered (not `unknown`)


# thresholds a flag may also take when it must stay quiet on some rows (calibrate_head's quiet)
QUIET_GRID = np.array([0.97, 0.99])


def _f1(pred: np.ndarray, truth: np.ndarray) -> float:
    tp = float((pred & truth).sum())
    denom = float(pred.sum() + truth.sum())
    return 2 * tp / denom if denom else 0.0


def calibrate_head(
    head: HeadSpec, probs: np.ndarray, y: np.ndarray, min_coverage: float, min_f1: float = MIN_F1,
    *, max_false: float | None = None, quiet: np.ndarray | None = None,
    quiet_probs: np.ndarray | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(new head fields, trade-off report) for one head from validation probabilities.

    ``max_false`` (multilabel only): a label's threshold must keep the share of rows without any
    flag that the label fires on at or under it (where no threshold does, the one that fires
    least), so a flag's best F1 is not bought with false alarms on the negatives.

    ``quiet`` (multilabel only): a mask of rows that no flag may fire on, such as inputs of 0-16
    bytes that carry no secret (issue 23: at most 0.1 % of them flagged). A threshold that fires
    on one of them is not eligible; where every threshold of the grid fires on one, the grid
    reaches 0.97 and 0.99 too, and a label that fires on one of them even at 0.99 is disabled
    (``report[label]["loud"]``).

    ``quiet_probs`` (multilabel only): the head's probabilities on more inputs that no flag may
    fire on, held to the same rule as the ``quiet`` rows but counted in no F1 and no false-alarm
    share (``benchmarks/wild_calibration.py`` passes every input of 0-3 bytes)."""
    if head.multilabel:
        truth = y > 0.5
        clean = ~truth.any(1)
        quiet = None if quiet is None or not quiet.any() else quiet & clean
        extra = None if quiet_probs is None or not len(quiet_probs) else quiet_probs
        thresholds, report, disabled = {}, {}, []
        for i, lab in enumerate(head.labels):
            if not truth[:, i].any():
                continue
            # the usual grid; 0.97 and 0.99 only for a flag that no threshold of it keeps quiet
            for grid in (GRID, np.concatenate((GRID, QUIET_GRID))):
                silent = np.array([
                    (quiet is None or not (probs[quiet, i] >= t).any())
                    and (extra is None or not (extra[:, i] >= t).any()) for t in grid])
                if silent.any():
                    break
            f1s = [_f1(probs[:, i] >= t, truth[:, i]) for t in grid]
            eligible = np.ones(len(grid), dtype=bool)
            fa = None
            if max_false is not None and clean.any():
                fa = np.array([float((probs[clean, i] >= t).mean()) for t in grid])
                eligible = fa <= max_false if (fa <= max_false).any() else fa == fa.min()
            loud = not silent.any()
            if quiet is not None or extra is not None:
                eligible = eligible & silent if (eligible & silent).any() else silent
            best = max(np.flatnonzero(eligible), key=lambda k: f1s[k]) if eligible.any() else \
                len(grid) - 1
            thresholds[lab] = float(grid[best])
            report[lab] = {
                "threshold": float(grid[best]),
                "f1": round(f1s[best], 4),
                "f1_at_0.5": round(_f1(probs[:, i] >= 0.5, truth[:, i]), 4),
            }
            if fa is not None:
                report[lab]["false_alarms"] = round(float(fa[best]), 4)
            if loud:
                report[lab]["loud"] = True
            if f1s[best] < min_f1 or loud:
                disabled.append(lab)
                report[lab]["disabled"] = True
        return {"label_thresholds": thresholds, "disabled_labels": disabled}, report
    conf = probs.max(1)
    correct = probs.argmax(1) == y
    rows = []
    chosen = 0.0
    for t in np.concatenate(([0.0], GRID)):
        answered = conf >= t
        cov = float(answered.mean())
        acc = float(correct[answered].mean()) if answered.any() else 1.0
        rows.append(
            {"threshold": float(t), "coverage": round(cov, 4), "accuracy_answered": round(acc, 4)}
        )
        if cov >= min_coverage:
            chosen = float(t)
    return {"threshold": chosen}, {
        "chosen": chosen,
        "overall_accuracy": round(float(correct.mean()), 4),
        "tradeoff": rows,
    }


def calibrate_spec(
    spec: ModelSpec,
    logits: dict[str, np.ndarray],
    val: WindowData,
    min_coverage: float = MIN_COVERAGE,
    min_f1: float = MIN_F1,
) -> tuple[ModelSpec, dict[str, Any]]:
    heads, report = [], {}
    for h in spec.heads:
        m = val.label_mask[h.name]
        if not m.any():
            heads.append(h)
            continue
        z = logits[h.name][m]
        probs = 1 / (1 + np.exp(-z)) if h.multilabel else np.exp(z - z.max(1, keepdims=True))
        if not h.multilabel:
            probs = probs / probs.sum(1, keepdims=True)
        fields, report[h.name] = calibrate_head(
            h, probs, val.labels[h.name][m], min_coverage, min_f1
        )
        heads.append(dataclasses.replace(h, **fields))  # fallbacks and the rest kept
    return spec.replace_heads(tuple(heads)), report


SHIFT_FALLBACK_GRID = (0.3, 0.5, 0.7, 0.9)
# What a right generic answer (application/zip for an ODT) is worth against a right specific one
# when choosing: at 1.0 the wild-dev choice answered generically almost always (content-v7-recipe
# on corpus v2, pro MIME: 11.0 % specific + 70.4 % generic right, 16.2 % wrong).
GENERIC_WORTH = 0.5


def row_outcomes(
    spec: ModelSpec, head: str, probs: list[np.ndarray], truth: list[str],
    same: Callable[[str, str], bool], family: Callable[[str], str | None],
) -> list[str]:
    """Each row's outcome for ``head`` (``right``, ``generic_right``, ``wrong`` or
    ``unanswered``: unknown or gated off), decoding ``probs`` (every head's outputs, in spec
    order) with ``spec``'s thresholds and fallbacks through the runtime's own decoder.
    ``same(answer, truth)`` compares labels (e.g. after folding synonyms); ``family(truth)`` is
    the generic answer that is right for ``truth`` (None: none is)."""
    from picohead_runtime.decode import Decoder

    h = spec.head(head)
    generic = set(h.generic_labels)
    out = []
    for row, t in zip(Decoder(spec, top_k=1).decode(probs), truth):
        a = row.get(head)
        label = getattr(a, "label", "unknown")
        if label == "unknown":
            out.append("unanswered")
        elif label in generic and label not in h.labels:
            out.append("generic_right" if label == family(t) else "wrong")
        elif same(label, t):
            out.append("right")
        elif label in generic and label == family(t):
            out.append("generic_right")
        else:
            out.append("wrong")
    return out


def shift_outcomes(
    spec: ModelSpec, head: str, probs: list[np.ndarray], truth: list[str],
    same: Callable[[str, str], bool], family: Callable[[str], str | None],
) -> dict[str, float]:
    """Shares (%) of rows a head answers right, answers with the right family's generic label,
    answers wrong, or leaves unknown/gated off (``row_outcomes``, counted)."""
    return _shares(row_outcomes(spec, head, probs, truth, same, family))


def _shares(outcomes: list[str]) -> dict[str, float]:
    n = dict.fromkeys(("right", "generic_right", "wrong", "unanswered"), 0)
    for o in outcomes:
        n[o] += 1
    total = max(1, len(outcomes))
    return {k: round(100 * v / total, 2) for k, v in n.items()}


def replace_head(spec: ModelSpec, head: HeadSpec) -> ModelSpec:
    """``spec`` with the head of ``head``'s name replaced by ``head``."""
    return spec.replace_heads(tuple(head if h.name == head.name else h for h in spec.heads))


def shift_choice_key(o: dict[str, float], max_wrong: float | None) -> tuple[bool, float]:
    """How the shift calibrations rank outcomes (% right / generic_right / wrong): those within
    ``max_wrong`` first, by their useful answers (a right generic one worth ``GENERIC_WORTH``);
    the rest (all, when ``max_wrong`` is None) by their useful answers net of the wrong ones.
    Where the outcome carries ``wrong_upper`` (``producer_upper``), the bound is checked on it
    rather than on the point estimate."""
    useful = o["right"] + GENERIC_WORTH * o["generic_right"]
    ok = max_wrong is not None and o.get("wrong_upper", o["wrong"]) <= max_wrong
    return ok, useful if ok else useful - o["wrong"]


# The wrong-answer bound is checked on this upper percentile of the wrong share over dev's
# producers resampled with replacement (``producer_upper``): held to 2 % on the point estimate,
# content-v14's pro MIME answered 1.94 % wrong on wild-dev and 3.4 % on wild-test, because a
# half of other producers differs from dev by more than the fit's own error
# (benchmarks/results/bound_holdout/).
BOUND_QUANTILE = 0.9
BOOTSTRAP_DRAWS = 400


def producer_resampled_means(values: np.ndarray, groups: list[str] | np.ndarray,
                             draws: int = BOOTSTRAP_DRAWS) -> np.ndarray:
    """The mean of ``values`` (one per row) over the rows of the producers (``groups``, one per
    row) drawn with replacement, ``draws`` times (seeded): ``[draws]``."""
    _, g = np.unique(np.asarray(groups), return_inverse=True)
    n_g = np.bincount(g).astype(np.float64)
    v_g = np.bincount(g, weights=np.asarray(values, dtype=np.float64), minlength=len(n_g))
    weights = np.random.default_rng(0).multinomial(len(n_g), np.full(len(n_g), 1 / len(n_g)),
                                                   size=draws).astype(np.float64)
    return np.asarray((weights @ v_g) / np.maximum(weights @ n_g, 1.0))


def producer_upper(wrong: np.ndarray, groups: list[str] | np.ndarray,
                   q: float = BOUND_QUANTILE, draws: int = BOOTSTRAP_DRAWS) -> float:
    """The ``q`` percentile (%) of the share of ``wrong`` rows when the producers are drawn with
    replacement (``producer_resampled_means``): how high the wrong share of a set of producers
    like these may go, for a bound meant to hold on producers not yet seen. Not a confidence
    bound on a fitted threshold's own error (cross-fitting is for that)."""
    return round(100 * float(np.quantile(producer_resampled_means(wrong, groups, draws), q)), 2)


def calibrate_under_shift(
    spec: ModelSpec, head: str, probs: list[np.ndarray], truth: list[str],
    same: Callable[[str, str], bool], family: Callable[[str], str | None],
    fallbacks: dict[str, str] | None = None, max_wrong: float | None = 2.0,
    groups: list[str] | None = None, bound_quantile: float | None = BOUND_QUANTILE,
) -> tuple[ModelSpec, dict[str, Any]]:
    """One threshold for ``head`` (replacing per-label ones) and, with ``fallbacks``, the
    family-mass threshold, chosen on a held-out set from producers unlike the training data
    (content-v8: the wild suite's dev half): the most useful answers
    whose wrong answers stay at or under ``max_wrong`` % of rows (a right generic answer counts
    ``GENERIC_WORTH`` of a right specific one); where no threshold keeps that bound (or
    ``max_wrong`` is None), the most useful answers net of the wrong ones. With ``groups`` (each
    row's producer) and ``bound_quantile``, the bound is checked on the ``producer_upper``
    percentile of the wrong share rather than on the share itself.
    Returns the new spec and the grid it chose from."""
    base = spec.head(head)
    upper = groups is not None and bound_quantile is not None and max_wrong is not None
    grid = []
    for t in np.concatenate(([0.0], GRID, [0.97, 0.99])):
        for f in (SHIFT_FALLBACK_GRID if fallbacks else (0.5,)):
            cand = replace_head(spec, dataclasses.replace(
                base, threshold=float(t), label_thresholds={}, fallbacks=dict(fallbacks or {}),
                fallback_threshold=float(f)))
            rows = row_outcomes(cand, head, probs, truth, same, family)
            o = {"threshold": float(t), "fallback_threshold": float(f), **_shares(rows)}
            if upper:
                o["wrong_upper"] = producer_upper(np.array([r == "wrong" for r in rows]),
                                                  groups or [], bound_quantile or 0.0)
            grid.append((cand, o))
    best = max(grid, key=lambda g: (*shift_choice_key(g[1], max_wrong), g[1]["right"],
                                    -g[1]["threshold"]))
    return best[0], {"chosen": best[1], "grid": [g[1] for g in grid]}


# Per-label thresholds under shift: a label needs this many held-out rows whose top-1 it is to
# get a threshold of its own (fewer: it keeps the one it has); each candidate weighs a wrong
# answer ``penalty`` times a right one, and the bound then picks the penalty.
PER_LABEL_MIN_ROWS = 8
PENALTY_GRID = (1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0)
# How many pseudo-rows of the whole head a label's own rows are pooled with when its threshold is
# fitted: 0 fits each label on its rows alone; the larger, the nearer every label's threshold is
# to the one the head as a whole would take. Chosen with the penalty, cross-fitted.
SHRINK_GRID = (0.0, 8.0, 32.0, 128.0)


def calibrate_labels_under_shift(
    spec: ModelSpec, head: str, probs: list[np.ndarray], truth: list[str],
    same: Callable[[str, str], bool], family: Callable[[str], str | None],
    fallbacks: dict[str, str] | None = None, max_wrong: float | None = 2.0,
    groups: list[str] | None = None, bound_quantile: float | None = BOUND_QUANTILE,
) -> tuple[ModelSpec, dict[str, Any]]:
    """Like :func:`calibrate_under_shift`, but a threshold per top-1 label: a model unsure of
    unseen producers is not unsure alike on every label (content-v8 pro on wild-test: top-1 right
    on 59 of 59 GIFs and 31 of 31 ZIPs, yet one head threshold held to 2 % wrong left 59 % and
    100 % of them unanswered).

    For a penalty ``p`` and fallback threshold, each label with at least ``PER_LABEL_MIN_ROWS``
    rows whose top-1 it is gets the threshold that maximises, over those rows, right +
    ``GENERIC_WORTH`` x right-generic - ``p`` x wrong (a row under the threshold takes its
    fallback outcome; ties go to the threshold nearest the label's own). A label with fewer rows
    keeps the threshold ``spec`` gives it (the validation split's, or that of the one-threshold
    choice this refines, as ``benchmarks/wild_calibration.py`` passes): its few rows are no
    evidence for it, and one threshold pooled over them (content-v8 pro: 1.0, from the many rows of types
    the model has no label for) silenced every label the held-out set lacks, the code MIME types
    among them (pro MIME on the corpus test split 30.5 %). Thresholds judged on the rows they
    were fitted on look better than they are (content-v8 pro MIME: 1.8 % wrong on dev, 6.9 % on
    test), so with ``groups`` (each row's producer) the penalty and fallback threshold are
    chosen on two-fold cross-fitted outcomes (fit on one half of the producers, judge on the
    other, and back), by ``shift_choice_key``; the thresholds are then fitted on every row.

    A label's rows are pooled with ``shrink`` pseudo-rows of the whole head (its mean value per
    threshold), ``shrink`` chosen from ``SHRINK_GRID`` with the penalty: a label fitted on a few
    dozen rows of a few producers overfits them (content-v11 pro code on wild-dev: 88.6 % right
    in sample, 80.3 % cross-fitted), and pooling pulls its threshold toward the head's.
    ``SHRINK_GRID`` holds 0, so the unpooled fit stays a candidate.

    With ``groups`` and ``bound_quantile``, the bound is checked on the ``producer_upper``
    percentile of the cross-fitted wrong share (``wrong_upper`` in the estimate).

    A label that no held-out row is truly of keeps its threshold too: its rows can only show its
    wrong answers, never a right one, so a fit would always silence it (content-v11 pro on
    wild-dev, which holds no file whose type is text/plain: the threshold of text/plain went to
    1.0, and ``print(1)`` was answered ``unknown``)."""
    base = spec.head(head)
    hi = spec.head_names.index(head)
    grid = np.concatenate(([0.0], GRID, [0.97, 0.99, 1.0]))
    open_spec = replace_head(spec, dataclasses.replace(
        base, threshold=0.0, label_thresholds={}, fallbacks={}))
    answered = row_outcomes(open_spec, head, probs, truth, same, family)
    top = probs[hi].argmax(axis=1)
    score = np.round(probs[hi].max(axis=1).astype(np.float64), 6)  # as the decoder shows it
    at = score[:, None] >= grid[None, :]  # [rows, thresholds]: answered specifically
    own = np.array([base.threshold_for(lab) for lab in base.labels])
    at_own = score >= own[top]  # answered at the label's own (validation) threshold
    own_k = np.abs(grid[None, :] - own[:, None]).argmin(axis=1)  # nearest grid point, per label
    kinds = ("right", "generic_right", "wrong", "unanswered")
    ans = np.array([kinds.index(o) for o in answered])
    if groups is not None:
        import hashlib

        fold = np.array([int(hashlib.sha256(g.encode()).hexdigest()[:8], 16) % 2 for g in groups])
        folds = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in (0, 1)]
    else:
        folds = []
    everyone = np.arange(len(truth))

    truths = set(truth)
    held = np.array([any(same(lab, t) for t in truths) for lab in base.labels])  # truly of it

    def fit(rows: np.ndarray, value: np.ndarray, shrink: float) -> dict[int, int]:
        chosen = {}
        pooled = shrink * value[rows].mean(axis=0) if len(rows) else 0.0
        for j in np.unique(top[rows]):
            mine = rows[top[rows] == j]
            if len(mine) < PER_LABEL_MIN_ROWS or not held[j]:
                continue
            v = value[mine].sum(axis=0) + pooled
            best = np.flatnonzero(v >= v.max() - 1e-9)
            chosen[int(j)] = int(best[np.abs(best - own_k[j]).argmin()])
        return chosen

    def judge(rows: np.ndarray, chosen: dict[int, int], below: np.ndarray) -> np.ndarray:
        """Each of ``rows``' outcome (an index into ``kinds``) under ``chosen``."""
        k = np.array([chosen.get(int(j), -1) for j in top[rows]], dtype=np.intp)
        fitted = k >= 0
        answer = np.where(fitted, at[rows, np.maximum(k, 0)], at_own[rows])
        return np.where(answer, ans[rows], below[rows])

    upper = groups is not None and bound_quantile is not None and max_wrong is not None
    group_of = np.asarray(groups if groups is not None else [""] * len(truth))

    candidates = []
    for f in (SHIFT_FALLBACK_GRID if fallbacks else (0.5,)):
        closed = replace_head(spec, dataclasses.replace(
            base, threshold=1.0, label_thresholds={}, fallbacks=dict(fallbacks or {}),
            fallback_threshold=float(f)))
        below = np.array([kinds.index(o) for o in
                          row_outcomes(closed, head, probs, truth, same, family)])
        for pen in PENALTY_GRID:
            worth = np.array([1.0, GENERIC_WORTH, -pen, 0.0])
            value = np.where(at, worth[ans][:, None], worth[below][:, None])
            for m in SHRINK_GRID:
                parts = [(held, judge(held, fit(fitted, value, m), below))
                         for fitted, held in folds] if folds else \
                    [(everyone, judge(everyone, fit(everyone, value, m), below))]
                rows = np.concatenate([r for r, _ in parts])
                codes = np.concatenate([c for _, c in parts])
                counts = np.bincount(codes, minlength=4)
                est = {k: round(100 * float(c) / max(1, len(truth)), 2)
                       for k, c in zip(kinds, counts)}
                if upper:
                    est["wrong_upper"] = producer_upper(codes == kinds.index("wrong"),
                                                        group_of[rows], bound_quantile or 0.0)
                candidates.append(({"penalty": pen, "shrink": m, "fallback_threshold": float(f)},
                                   value, est))

    def rank(c: tuple[dict[str, float], np.ndarray, dict[str, float]]) -> tuple[Any, ...]:
        return (*shift_choice_key(c[2], max_wrong), c[2]["right"], c[0]["penalty"],
                -c[0]["shrink"])

    setting, value, est = max(candidates, key=rank)
    # what the rule took before pooling (shrink 0), for the report
    unpooled = max((c for c in candidates if c[0]["shrink"] == 0.0), key=rank, default=None)
    chosen = fit(everyone, value, setting["shrink"])
    final = replace_head(spec, dataclasses.replace(
        base, label_thresholds={**base.label_thresholds,
                                **{base.labels[j]: float(grid[k]) for j, k in sorted(chosen.items())}},
        fallbacks=dict(fallbacks or {}), fallback_threshold=setting["fallback_threshold"]))
    report = {**setting, "threshold": base.threshold, "label_thresholds": len(chosen),
              "unheld_labels": int((~held).sum()),
              "estimate": "cross-fitted by producer" if folds else "fitted rows",
              "estimated": est, **shift_outcomes(final, head, probs, truth, same, family),
              "unpooled": unpooled and {**unpooled[0], "estimated": unpooled[2]}}
    return final, {"chosen": report,
                   "grid": [{**c[0], "estimated": c[2]} for c in candidates]}


def _meta(onnx_path: Path) -> ModelMeta:
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    props = {p.key: p.value for p in model.metadata_props}
    return ModelMeta.from_json(props[META_KEY], source=str(onnx_path))


def embedded_spec(onnx_path: Path) -> ModelSpec:
    return _meta(onnx_path).spec


def rule(min_coverage: float = MIN_COVERAGE, min_f1: float = MIN_F1) -> dict[str, float]:
    """The settings a calibration ran with, as written into each calibrated file."""
    return {"min_coverage": float(min_coverage), "min_f1": float(min_f1)}


def calibrated_rule(onnx_path: Path) -> dict[str, float] | None:
    """The rule ``onnx_path`` was calibrated with; None when it never was, or by a picohead that
    did not record it (before disabled labels existed)."""
    found = _meta(onnx_path).extra.get("calibration_rule")
    return dict(found) if isinstance(found, dict) else None


def rewrite_meta(onnx_path: Path, edit: Callable[[ModelMeta], ModelMeta]) -> None:
    """Replace the picohead metadata of the ONNX file at ``onnx_path`` with ``edit`` of it
    (weights and graph untouched; written to a temporary file, then moved over)."""
    import onnx

    model = onnx.load(str(onnx_path))
    props = {p.key: p for p in model.metadata_props}
    if META_KEY not in props:
        raise ValueError(f"{onnx_path}: no picohead metadata")
    props[META_KEY].value = edit(ModelMeta.from_json(props[META_KEY].value,
                                                     source=str(onnx_path))).to_prop()
    tmp = onnx_path.with_suffix(".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(onnx_path)


def write_thresholds(
    onnx_path: Path, spec: ModelSpec, settings: dict[str, Any] | None = None,
    source: str = "validation split",
) -> None:
    """Replace the embedded spec's thresholds (and note the calibration: ``source`` names the data
    they were chosen on) in the ONNX metadata."""

    def edit(meta: ModelMeta) -> ModelMeta:
        if meta.spec.head_names != spec.head_names:
            raise ValueError(f"{onnx_path}: calibrated spec has other heads than the file")
        # The thresholds live in the spec; the file only notes where they came from and the rule
        # (the whole accuracy/coverage curve, ~9 KB, is the run's eval/calibration.json; tiers
        # have budgets).
        extra = {**meta.extra, "calibration": source}
        if settings is not None:
            extra["calibration_rule"] = settings
        return dataclasses.replace(meta, spec=spec, extra=extra)

    rewrite_meta(onnx_path, edit)


def calibrate_files(
    files: dict[str, Path],
    val: WindowData,
    min_coverage: float = MIN_COVERAGE,
    min_f1: float = MIN_F1,
) -> dict[str, Any]:
    """Calibrate every tier's file in place (from its own embedded spec); tier -> head -> report."""
    from picohead_runtime import scoring

    out = {}
    for tier, path in files.items():
        model = scoring.open_file(path)
        spec = model.meta.spec
        logits = scoring.file_logits(model, val.windows, val.lengths)
        new_spec, report = calibrate_spec(spec, logits, val, min_coverage, min_f1)
        write_thresholds(path, new_spec, rule(min_coverage, min_f1))
        out[tier] = {"report": report, "spec": json.loads(new_spec.to_json())}
    return out
