"""Threshold calibration: F1-optimal multilabel thresholds, coverage-bound softmax thresholds."""

import numpy as np

from picohead.calibrate import calibrate_head
from picohead_runtime.spec import HeadSpec


def test_multilabel_threshold_maximises_f1():
    rng = np.random.default_rng(0)
    y = (rng.random((2000, 2)) < 0.1).astype(np.float32)
    # positives score ~0.2, negatives ~0.05: 0.5 finds nothing, the best threshold is low
    probs = np.where(y > 0, 0.2, 0.05) + rng.normal(0, 0.02, y.shape)
    head = HeadSpec(name="risk", kind="multilabel", labels=("a", "b"), threshold=0.5)
    fields, report = calibrate_head(head, probs, y, min_coverage=0.97)
    for lab in ("a", "b"):
        assert 0.05 < fields["label_thresholds"][lab] <= 0.2
        assert report[lab]["f1"] > 0.9 and report[lab]["f1_at_0.5"] == 0.0


def test_multilabel_label_too_weak_on_validation_is_disabled():
    rng = np.random.default_rng(2)
    y = (rng.random((2000, 2)) < 0.1).astype(np.float32)
    probs = rng.random(y.shape)  # label b: noise, best F1 ~0.2
    probs[:, 0] = np.where(y[:, 0] > 0, 0.8, 0.1)  # label a: separable
    head = HeadSpec(name="risk", kind="multilabel", labels=("a", "b"), threshold=0.5)
    fields, report = calibrate_head(head, probs, y, min_coverage=0.97)
    assert fields["disabled_labels"] == ["b"]
    assert report["b"]["disabled"] and report["b"]["f1"] < 0.5
    assert "disabled" not in report["a"] and report["a"]["f1"] == 1.0
    fields, _ = calibrate_head(head, probs, y, min_coverage=0.97, min_f1=0.0)
    assert fields["disabled_labels"] == []


def test_multilabel_threshold_keeps_false_alarms_on_clean_rows_under_max_false():
    # 100 positives, half at 0.6 and half at 0.3; 900 clean rows, 20 look-alikes at 0.35
    pos = np.r_[np.full(50, 0.6), np.full(50, 0.3)]
    neg = np.r_[np.full(20, 0.35), np.full(880, 0.01)]
    probs = np.r_[pos, neg][:, None].astype(np.float32)
    y = np.r_[np.ones(100), np.zeros(900)][:, None].astype(np.float32)
    head = HeadSpec(name="risk", kind="multilabel", labels=("a",), threshold=0.5)
    free, _ = calibrate_head(head, probs, y, min_coverage=0.97)
    assert free["label_thresholds"]["a"] <= 0.3  # F1 0.91 there, 20 clean rows (2.2 %) flagged
    fields, report = calibrate_head(head, probs, y, min_coverage=0.97, max_false=0.01)
    assert 0.3 < fields["label_thresholds"]["a"] <= 0.6 and report["a"]["false_alarms"] == 0.0
    # no threshold meets an impossible bound: the one that fires least on clean rows
    fields, _ = calibrate_head(head, np.full_like(probs, 0.99), y, min_coverage=0.97,
                               max_false=0.0)
    assert fields["label_thresholds"]["a"] == 0.05  # all equal: the best F1 among them


def test_softmax_threshold_keeps_coverage_and_drops_unsure_errors():
    rng = np.random.default_rng(1)
    n = 1000
    y = rng.integers(0, 3, n)
    probs = np.full((n, 3), 0.05)
    probs[np.arange(n), y] = 0.9  # confident and right ...
    wrong = np.arange(n) < 20  # ... except 2 % unsure and wrong
    probs[wrong] = [0.4, 0.35, 0.25]
    y[wrong] = 2
    head = HeadSpec(name="kind", kind="softmax", labels=("a", "b", "c"))
    fields, report = calibrate_head(head, probs, y, min_coverage=0.97)
    assert 0.4 < fields["threshold"] <= 0.9
    row = next(r for r in report["tradeoff"] if r["threshold"] == report["chosen"])
    assert row["coverage"] >= 0.97 and row["accuracy_answered"] == 1.0
    assert report["overall_accuracy"] == 0.98


def test_calibration_under_shift_chooses_threshold_and_fallback_on_held_out_rows():
    import numpy as np

    from picohead.calibrate import calibrate_under_shift, shift_outcomes
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "mime", "kind": "softmax",
                   "labels": ["application/zip", "application/epub+zip", "image/png"]}]})
    fam = {"application/zip": "application/zip", "application/epub+zip": "application/zip",
           "image/png": "application/octet-stream"}
    # epub rows the model is unsure of (epub 0.55, its zip family 0.9); confident png rows; unsure
    # png rows it calls epub at 0.6 (wrong; that family only 0.65)
    probs = [np.array([[0.35, 0.55, 0.1]] * 10 + [[0.0, 0.05, 0.95]] * 10
                      + [[0.05, 0.6, 0.35]] * 2, dtype=np.float32)]
    truth = ["application/epub+zip"] * 10 + ["image/png"] * 12
    same = str.__eq__
    new, rep = calibrate_under_shift(spec, "mime", probs, truth, same, fam.get,
                                     fallbacks={"application/epub+zip": "application/zip"},
                                     max_wrong=0.0)
    got = shift_outcomes(new, "mime", probs, truth, same, fam.get)
    assert got["wrong"] == 0.0  # the two wrong epub answers fall under the threshold
    assert got["right"] == round(100 * 10 / 22, 2)  # the confident pngs stay
    h = new.head("mime")
    assert 0.6 < h.threshold <= 0.95 and 0.65 < h.fallback_threshold <= 0.9 and h.fallbacks == {"application/epub+zip": "application/zip"}
    assert got["generic_right"] == round(100 * 10 / 22, 2)  # unsure epubs: zip, their family
    # without fallbacks the same bound leaves them unknown
    plain, _ = calibrate_under_shift(spec, "mime", probs, truth, same, fam.get, max_wrong=0.0)
    assert shift_outcomes(plain, "mime", probs, truth, same, fam.get)["generic_right"] == 0.0


def test_per_label_thresholds_keep_a_sure_label_and_silence_an_unsure_one():
    import numpy as np

    from picohead.calibrate import (
        calibrate_labels_under_shift,
        calibrate_under_shift,
        shift_outcomes,
    )
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "mime", "kind": "softmax", "threshold": 0.6,
                   "labels": ["image/gif", "image/png", "image/tiff", "image/bmp"]}]})
    # GIFs the model is right about at only 0.5; TIFF answers at 0.65 that are wrong half the
    # time (PNGs); confident PNGs; no row for BMP, which keeps its validation threshold (0.6)
    gif = [[0.5, 0.3, 0.2, 0.0]] * 40
    tiff = [[0.1, 0.25, 0.65, 0.0]] * 40
    png = [[0.0, 0.95, 0.05, 0.0]] * 40
    probs = [np.array(gif + tiff + png, dtype=np.float32)]
    truth = ["image/gif"] * 40 + ["image/tiff", "image/png"] * 20 + ["image/png"] * 40
    groups = [f"producer{i % 10}" for i in range(120)]
    same = str.__eq__
    one, _ = calibrate_under_shift(spec, "mime", probs, truth, same, lambda t: None,
                                   max_wrong=2.0)
    per, rep = calibrate_labels_under_shift(spec, "mime", probs, truth, same, lambda t: None,
                                            max_wrong=2.0, groups=groups)
    a = shift_outcomes(one, "mime", probs, truth, same, lambda t: None)
    b = shift_outcomes(per, "mime", probs, truth, same, lambda t: None)
    assert a["wrong"] <= 2.0 and b["wrong"] <= 2.0
    # one threshold must sit over the TIFFs' 0.65 and so over the GIFs' 0.5 too
    assert a["right"] == round(100 * 40 / 120, 2)
    # per label: the GIFs answered, the TIFF answers silenced, the PNGs kept
    assert b["right"] == round(100 * 80 / 120, 2)
    h = per.head("mime")
    assert h.threshold_for("image/gif") <= 0.5 < 0.65 < h.threshold_for("image/tiff")
    assert h.threshold_for("image/bmp") == 0.6 == h.threshold  # no evidence: its own threshold
    assert rep["chosen"]["estimate"] == "cross-fitted by producer"
    assert rep["chosen"]["estimated"]["wrong"] <= 2.0


def test_per_label_thresholds_shrink_a_label_with_few_rows_toward_the_head(monkeypatch):
    """SHRINK_GRID: a label's threshold is fitted on its own rows pooled with ``shrink``
    pseudo-rows of the whole head. Eight TIFF answers at 0.6, five of them right, take 0.6 alone;
    pooled with many rows of the head, where answers at 0.63 are wrong, they take the head's
    threshold instead. The chosen setting says which pooling it took."""
    import numpy as np

    import picohead.calibrate as cal
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "mime", "kind": "softmax", "threshold": 0.6,
                   "labels": ["image/gif", "image/png", "image/tiff"]}]})
    gif = [[0.7, 0.2, 0.1]] * 40  # right
    png = [[0.27, 0.63, 0.1]] * 40  # wrong: GIFs
    tiff = [[0.2, 0.2, 0.6]] * 8  # five right, three PNGs
    probs = [np.array(gif + png + tiff, dtype=np.float32)]
    truth = ["image/gif"] * 80 + ["image/tiff"] * 5 + ["image/png"] * 3

    def tiff_threshold(shrink: float) -> float:
        monkeypatch.setattr(cal, "SHRINK_GRID", (shrink,))
        per, rep = cal.calibrate_labels_under_shift(spec, "mime", probs, truth, str.__eq__,
                                                    lambda t: None, max_wrong=None)
        assert rep["chosen"]["shrink"] == shrink
        # the best setting without pooling is reported beside the choice (none in this grid)
        unpooled = rep["chosen"]["unpooled"]
        assert (unpooled["estimated"] == rep["chosen"]["estimated"]) if shrink == 0.0 \
            else unpooled is None
        h = per.head("mime")
        assert h.threshold_for("image/png") > 0.63  # its own 40 rows silence it either way
        return h.threshold_for("image/tiff")

    assert tiff_threshold(0.0) == 0.6
    assert tiff_threshold(1000.0) == 0.65


def test_per_label_thresholds_leave_a_label_no_held_out_row_is_truly_of():
    """A label whose rows can only be wrong (the held-out set holds no file of its type, as wild
    MIME holds no text/plain file) keeps its threshold instead of being silenced; once a row of
    its type is there, it is fitted like any other."""
    import numpy as np

    from picohead.calibrate import calibrate_labels_under_shift
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "mime", "kind": "softmax", "threshold": 0.6,
                   "labels": ["text/plain", "image/png", "image/gif"]}]})
    gif = [[0.0, 0.05, 0.95]] * 40  # right
    plain = [[0.9, 0.1, 0.0]] * 20  # top-1 text/plain on PNGs: wrong
    probs = [np.array(gif + plain, dtype=np.float32)]
    truth = ["image/gif"] * 40 + ["image/png"] * 20
    per, rep = calibrate_labels_under_shift(spec, "mime", probs, truth, str.__eq__, lambda t: None,
                                            max_wrong=None)
    assert per.head("mime").threshold_for("text/plain") == 0.6  # kept, not silenced
    assert rep["chosen"]["unheld_labels"] == 1  # text/plain (PNG and GIF are held)
    truth[-1] = "text/plain"  # one plain-text file among them: now it is judged, and silenced
    per, rep = calibrate_labels_under_shift(spec, "mime", probs, truth, str.__eq__, lambda t: None,
                                            max_wrong=None)
    assert per.head("mime").threshold_for("text/plain") > 0.9
    assert rep["chosen"]["unheld_labels"] == 0


def _phone_jwt_head():
    """A multilabel risk head with the flags phone and jwt."""
    from picohead_runtime.spec import ModelSpec

    return ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "risk", "kind": "multilabel", "threshold": 0.5,
                   "labels": ["phone", "jwt"]}]}).head("risk")


def test_a_flag_stays_quiet_on_rows_that_must_carry_none():
    """calibrate_head(quiet=...): a flag whose best-F1 threshold fires on a short input without
    a secret takes a threshold over it (the grid reaches 0.99 for this), and a flag that fires
    on one even at 0.99 is disabled; without quiet rows the choice is as before."""
    import numpy as np

    from picohead.calibrate import calibrate_head

    head = _phone_jwt_head()
    # 40 phones at 0.99+, 40 JWTs at 0.8; a short non-phone at 0.96 (phone) and one at 0.995 (jwt)
    probs = np.array([[0.999, 0.0]] * 40 + [[0.0, 0.8]] * 40 + [[0.96, 0.0], [0.0, 0.995]]
                     + [[0.0, 0.0]] * 400, dtype=np.float32)
    y = np.zeros((len(probs), 2), dtype=np.float32)
    y[:40, 0] = 1
    y[40:80, 1] = 1
    quiet = np.zeros(len(probs), dtype=bool)
    quiet[80:82] = True
    before, _ = calibrate_head(head, probs, y, 0.9, max_false=0.005)
    assert before["label_thresholds"]["phone"] < 0.96 and not before["disabled_labels"]
    after, rep = calibrate_head(head, probs, y, 0.9, max_false=0.005, quiet=quiet)
    assert 0.96 < after["label_thresholds"]["phone"] <= 0.99 and rep["phone"]["f1"] == 1.0
    assert after["disabled_labels"] == ["jwt"] and rep["jwt"]["loud"]
    quiet[81] = False  # the loud row gone: jwt keeps its best threshold
    again, _ = calibrate_head(head, probs, y, 0.9, max_false=0.005, quiet=quiet)
    assert again["disabled_labels"] == [] and again["label_thresholds"]["jwt"] <= 0.8
    # a flag quiet on those rows keeps the usual grid, even where its false alarms on other
    # rows exceed max_false at every threshold of it (0.97 would fire least, and is not offered)
    noisy = probs.copy()
    noisy[100:110, 1] = 0.96  # ten clean rows with a JWT score over the whole grid
    base, _ = calibrate_head(head, noisy, y, 0.9, max_false=0.005)
    same, _ = calibrate_head(head, noisy, y, 0.9, max_false=0.005, quiet=quiet)
    assert same["label_thresholds"]["jwt"] == base["label_thresholds"]["jwt"] <= 0.95


def test_extra_quiet_inputs_hold_a_flag_without_counting_in_its_f1():
    """calibrate_head(quiet_probs=...): probabilities of inputs outside the rows (every input of
    0-3 bytes) that no flag may fire on: the same rule as quiet rows, but they add no negative to
    the false-alarm share and no row to the F1."""
    import numpy as np

    from picohead.calibrate import calibrate_head

    head = _phone_jwt_head()
    probs = np.array([[0.999, 0.0]] * 40 + [[0.0, 0.8]] * 40 + [[0.0, 0.0]] * 400,
                     dtype=np.float32)
    y = np.zeros((len(probs), 2), dtype=np.float32)
    y[:40, 0] = 1
    y[40:80, 1] = 1
    before, _ = calibrate_head(head, probs, y, 0.9, max_false=0.005)
    extra = np.array([[0.96, 0.0], [0.0, 0.995], [0.1, 0.1]], dtype=np.float32)
    after, rep = calibrate_head(head, probs, y, 0.9, max_false=0.005, quiet_probs=extra)
    assert before["label_thresholds"]["phone"] < 0.96 < after["label_thresholds"]["phone"]
    assert rep["phone"]["f1"] == 1.0  # the extra inputs are no rows of the F1
    assert after["disabled_labels"] == ["jwt"] and rep["jwt"]["loud"]
    # inputs no threshold fires on change nothing
    same, _ = calibrate_head(head, probs, y, 0.9, max_false=0.005,
                             quiet_probs=np.zeros((5, 2), dtype=np.float32))
    assert same == before


def test_producer_upper_is_the_bootstrap_percentile_of_the_wrong_share():
    import numpy as np

    from picohead.calibrate import producer_upper

    # every producer alike: every resample has the same share
    assert producer_upper(np.array([1, 0, 0, 0] * 25), [f"p{i // 4}" for i in range(100)]) == 25.0
    # the wrong answers all from one of ten producers: the share is 10 % on the whole set, and
    # a resample that draws that producer twice or more shows 20 % or more
    wrong = np.array([1] * 10 + [0] * 90)
    groups = [f"p{i // 10}" for i in range(100)]
    up = producer_upper(wrong, groups, q=0.9)
    assert 20.0 <= up <= 40.0
    assert producer_upper(wrong, groups, q=0.5) <= up
    assert producer_upper(wrong, groups, q=0.9) == up  # seeded


def test_the_bound_is_checked_on_the_producer_upper_percentile():
    """A threshold whose wrong answers sit at the bound on the whole set, but all come from one
    producer, does not keep the bound once it is checked on the bootstrap percentile: the choice
    moves to a stricter threshold (the point estimate, bound_quantile=None, keeps the old one)."""
    import numpy as np

    from picohead.calibrate import calibrate_under_shift, shift_outcomes
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict({
        "name": "t", "family": "steady", "tiers": ["tiny"], "window": {"head": 8, "tail": 8},
        "arch": {"buckets": {"tiny": 16}, "dims": {"tiny": 4}, "ngrams": [1]},
        "heads": [{"name": "mime", "kind": "softmax", "labels": ["image/gif", "image/png"]}]})
    # 98 sure right GIFs from 49 producers; 2 wrong PNG answers at 0.7, both from producer p0;
    # 50 right PNG answers at 0.7 from the same producers
    probs = [np.array([[0.95, 0.05]] * 98 + [[0.3, 0.7]] * 52, dtype=np.float32)]
    truth = ["image/gif"] * 98 + ["image/gif"] * 2 + ["image/png"] * 50
    groups = [f"p{i // 2}" for i in range(98)] + ["p0", "p0"] + [f"p{i}" for i in range(50)]
    same = str.__eq__

    def fam(_t: str) -> None:
        return None

    point, _ = calibrate_under_shift(spec, "mime", probs, truth, same, fam, max_wrong=1.5,
                                     groups=groups, bound_quantile=None)
    upper, rep = calibrate_under_shift(spec, "mime", probs, truth, same, fam, max_wrong=1.5,
                                       groups=groups, bound_quantile=0.9)
    assert shift_outcomes(point, "mime", probs, truth, same, fam)["wrong"] == round(200 / 150, 2)
    assert point.head("mime").threshold <= 0.7  # 1.33 % <= 1.5: the PNG answers stay
    # checked on the 90th percentile they do not
    assert rep["chosen"]["wrong_upper"] <= 1.5
    assert shift_outcomes(upper, "mime", probs, truth, same, fam)["wrong"] == 0.0
    assert upper.head("mime").threshold > 0.7
