"""Softmax metrics: raw accuracy, per-class scores, and what the runtime answers under thresholds."""

import numpy as np

from picohead.evaluate import softmax_metrics
from picohead_runtime.spec import HeadSpec


def test_softmax_metrics_report_accuracy_and_thresholded_coverage():
    head = HeadSpec(
        name="kind",
        kind="softmax",
        labels=("a", "b", "c"),
        threshold=0.6,
        label_thresholds={"c": 0.9},
    )
    probs = np.array(
        [
            [0.9, 0.05, 0.05],  # a, right, answered
            [0.5, 0.3, 0.2],  # a, right, under 0.6: unknown
            [0.1, 0.8, 0.1],  # b, wrong (truth c), answered
            [0.1, 0.1, 0.8],  # c, right, under c's own 0.9: unknown
            [0.02, 0.02, 0.96],  # c, right, answered
        ]
    )
    y = np.array([0, 0, 2, 2, 2])
    m = softmax_metrics(head, np.log(probs), y)
    assert m["n"] == 5 and m["accuracy"] == 0.8
    assert m["coverage"] == 0.6  # three of five answered
    assert m["accuracy_answered"] == round(2 / 3, 4)
    assert m["per_class"]["c"] == {"precision": 1.0, "recall": 0.6667, "f1": 0.8, "support": 3}
    assert m["confusions"] == [["c", "b", 1]]
    assert np.array(m["matrix"]).sum() == 5
