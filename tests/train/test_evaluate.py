"""Softmax metrics: raw accuracy, per-class scores, and what the runtime answers under thresholds;
multilabel metrics with their false-alarm slices."""

import numpy as np

from picohead.evaluate import multilabel_metrics, softmax_metrics
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


def test_multilabel_metrics_report_lookalike_and_binary_false_alarms():
    head = HeadSpec(name="risk", kind="multilabel", labels=("key", "mail"), threshold=0.5)
    probs = np.array(
        [
            [0.9, 0.1],  # key, right
            [0.1, 0.1],  # negative look-alike, quiet
            [0.7, 0.1],  # negative look-alike, flagged
            [0.8, 0.1],  # negative binary, flagged
            [0.1, 0.1],  # negative binary, quiet
            [0.1, 0.2],  # negative binary, quiet
            [0.1, 0.9],  # binary holding an e-mail address, found: not a false alarm
        ]
    )
    y = np.array([[1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 1]], dtype=np.float32)
    look = np.array([False, True, True, False, False, False, False])
    binary = np.array([False, False, False, True, True, True, True])
    m = multilabel_metrics(head, np.log(probs / (1 - probs)), y, look, binary)
    assert m["lookalikes"] == 2 and m["lookalikes_flagged"] == 0.5
    assert m["binaries"] == 3 and m["binaries_flagged"] == round(1 / 3, 4)
    assert m["negatives_flagged"] == 0.4  # 2 of the 5 negatives
    assert m["per_class"]["key"]["precision"] == round(1 / 3, 4)
    assert "binaries" not in multilabel_metrics(head, np.log(probs / (1 - probs)), y, look)


def test_reindex_maps_labels_by_name_for_a_tier_with_other_lists():
    """The tiers of a bundle assembled from several runs differ in their label lists (content-v14:
    tiny 147 MIME labels, the others 162): a test split loaded with one list is re-indexed to each
    file's own, and a sample whose label the tier lacks leaves that head (score_folder.py crashed
    on content-v14's tiny before)."""
    from picohead.dataset import WindowData
    from picohead_runtime.spec import ModelSpec

    def spec(kinds: tuple[str, ...], flags: tuple[str, ...]) -> ModelSpec:
        return ModelSpec(name="m", heads=(
            HeadSpec(name="kind", kind="softmax", labels=kinds),
            HeadSpec(name="risk", kind="multilabel", labels=flags)))

    wide = spec(("a", "b", "c"), ("key", "mail"))
    narrow = spec(("c", "a"), ("mail",))
    data = WindowData(
        windows=np.zeros((4, 8), dtype=np.uint8), lengths=np.full(4, 8),
        labels={"kind": np.array([0, 1, 2, -1], dtype=np.int32),
                "risk": np.array([[1, 0], [0, 1], [0, 0], [0, 0]], dtype=np.float32)},
        label_mask={"kind": np.array([True, True, True, False]), "risk": np.ones(4, dtype=bool)},
        sources=np.array(["s"] * 4, dtype=object), ids=np.array(list("wxyz"), dtype=object),
        data_hash="h")
    out = data.reindex(wide, narrow)
    assert out.labels["kind"].tolist() == [1, -1, 0, -1]  # a -> 1, b -> none, c -> 0
    assert out.label_mask["kind"].tolist() == [True, False, True, False]
    assert out.labels["risk"].tolist() == [[0], [1], [0], [0]]
    assert out.label_mask["risk"].tolist() == [False, True, True, True]  # its key is not scored
    assert data.reindex(wide, wide).labels["kind"].tolist() == [0, 1, 2, -1]
    m = softmax_metrics(narrow.heads[0], np.log(np.array([[0.1, 0.9], [0.9, 0.1]])),
                        out.labels["kind"][out.label_mask["kind"]])
    assert m["n"] == 2 and m["accuracy"] == 1.0
