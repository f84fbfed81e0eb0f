"""benchmarks/ship_margin.py: the ship rule's mean from per-record outcomes, and a project
bootstrap of the difference that separates a real win from a tie."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import ship_margin  # noqa: E402


def _outcomes(right: dict[str, list[int]], truth: list[list[bool]], flags: list[list[bool]]
              ) -> dict[str, np.ndarray]:
    return {**{t: np.array(v, dtype=np.float64) for t, v in right.items()},
            "risk_truth": np.array(truth), "risk_flags": np.array(flags)}


def _case(b_extra: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, list[str]]]:
    n = 40
    projects = {t: [f"p{i % 20}" for i in range(n)] for t in (*ship_margin.SOFTMAX_TASKS, "risk")}
    truth = [[i % 6 == j for j in range(6)] for i in range(n)]
    a = _outcomes({t: [i % 2 for i in range(n)] for t in ship_margin.SOFTMAX_TASKS}, truth, truth)
    b_right = {t: [1 if i < b_extra else i % 2 for i in range(n)] for t in ship_margin.SOFTMAX_TASKS}
    b = _outcomes(b_right, truth, truth)
    return a, b, projects


def test_the_mean_is_the_ship_rules_figure() -> None:
    a, _, projects = _case(0)
    w = {t: np.ones((1, 40)) for t in projects}
    # accuracy 50 % on each softmax task, every flag found exactly: (3 x 50 + 100) / 4
    assert ship_margin.mean_figure(a, w)[0] == 62.5


def test_identical_runs_tie_and_a_better_one_wins_in_every_resample() -> None:
    a, b, projects = _case(0)
    tie = ship_margin.margin(a, a, projects, n=200)
    assert tie["difference"] == 0 and tie["b_higher_share"] == 0 and tie["p5"] == tie["p95"] == 0
    a, b, projects = _case(20)  # B right on 10 more of 40 records in every softmax task
    win = ship_margin.margin(a, b, projects, n=200)
    assert win["difference"] == 18.75 and win["mean_a"] == 62.5
    assert 0 < win["p5"] <= win["difference"] <= win["p95"] and win["b_higher_share"] == 1.0


def test_the_risk_term_is_the_wild_reports_macro_f1() -> None:
    """The bootstrap's vectorised macro F1 agrees with picohead.wild.metrics.risk_scores (what
    wild.py score reports and ship_rule.py ranks on) on the same rows."""
    from picohead.wild import metrics

    rng = np.random.default_rng(3)
    truth = rng.random((300, 6)) < 0.15
    flags = truth ^ (rng.random((300, 6)) < 0.08)  # some misses and false alarms
    flags[:, 3] = False  # a flag that never fires (disabled) counts as F1 0
    rows = [{"truth": [f for f, t in zip(ship_margin.FLAGS, tr) if t],
             "flags": [f for f, x in zip(ship_margin.FLAGS, fl) if x], "kind": "positive"}
            for tr, fl in zip(truth, flags)]
    want = metrics.risk_scores(rows, ship_margin.FLAGS)["macro_f1"]
    o = {t: np.zeros(300) for t in ship_margin.SOFTMAX_TASKS}
    o.update(risk_truth=truth, risk_flags=flags)
    w = {t: np.ones((1, 300)) for t in (*ship_margin.SOFTMAX_TASKS, "risk")}
    assert ship_margin.mean_figure(o, w)[0] == pytest.approx(100 * want / 4, abs=0.05)


def test_a_rows_worth_charges_confident_wrong_answers_only() -> None:
    """Rule 5's figure per record: right 1, confident-wrong -1, while an unknown, an absent head
    or a family fallback costs nothing; ``right_only`` reproduces the figures before the rule."""
    from picohead_runtime.decode import GENERIC_REASON

    rows = [{"truth": "a", "final": "a"}, {"truth": "a", "final": "b"},
            {"truth": "a", "final": "unknown"}, {"truth": "a", "final": "(absent)"},
            {"truth": "a", "final": "z", "reason": "below threshold" + GENERIC_REASON}]
    assert [ship_margin.worth(r) for r in rows] == [1, -1, 0, 0, 0]
    assert [ship_margin.worth(r, right_only=True) for r in rows] == [1, 0, 0, 0, 0]
