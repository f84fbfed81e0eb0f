"""Decoding rules on hand-made probabilities: thresholds, gates, top-k, multilabel, asdict."""

import json
from pathlib import Path

import numpy as np
import pytest
import toy_models
from hypothesis import given, settings
from hypothesis import strategies as st

from picohead_runtime.decode import Decoder
from picohead_runtime.results import HeadResult, MultilabelResult, Result
from picohead_runtime.spec import ModelSpec, load_spec

# read from the source tree, not through the picohead package (the runtime tests run without it)
ROOT = Path(__file__).resolve().parents[2]
CONTENT_SPEC = load_spec(ROOT / "picohead" / "recipes" / "content" / "spec.json")


def _spec(**head_overrides):
    d = toy_models.toy_spec()
    for h in d["heads"]:
        h.update(head_overrides.get(h["name"], {}))
    return ModelSpec.from_dict(d)


def _probs(kind, lang, risk):
    return [np.array(x, dtype=np.float32) for x in (kind, lang, risk)]


def test_softmax_top1_topk_and_gate_on():
    dec = Decoder(_spec(), top_k=2)
    (row,) = dec.decode(_probs([[0.7, 0.2, 0.1]], [[0.1, 0.3, 0.6]], [[0.9, 0.2]]))
    kind = row["kind"]
    assert isinstance(kind, HeadResult)
    assert (kind.label, kind.raw, kind.reason) == ("code", "code", None)
    assert kind.score == pytest.approx(0.7)
    assert [lab for lab, _ in kind.top_k] == ["code", "text"]
    assert row["lang"].label == "c"  # gate open: kind is code
    assert row["risk"] == MultilabelResult(
        labels=("email",), scores=pytest.approx({"email": 0.9, "api_key": 0.2})
    )


def test_gated_head_is_absent_when_gate_label_differs():
    dec = Decoder(_spec())
    (row,) = dec.decode(_probs([[0.1, 0.8, 0.1]], [[0.1, 0.3, 0.6]], [[0.1, 0.1]]))
    assert row["kind"].label == "text"
    assert "lang" not in row
    assert row["risk"].labels == ()


def test_below_threshold_is_unknown_with_reason_and_gate_follows_the_raw_answer():
    dec = Decoder(_spec(kind={"threshold": 0.8}))
    rows = dec.decode(
        _probs([[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]], [[0.9, 0.05, 0.05]] * 2, [[0.1, 0.1]] * 2)
    )
    kind = rows[0]["kind"]
    assert kind.label == "unknown" and kind.raw == "code"
    assert "below the threshold" in kind.reason and "0.800" in kind.reason
    # an unsure parent still routes the input to the child its top-1 names ...
    assert rows[0]["lang"].label == "python"
    # ... and only to that one
    assert rows[1]["kind"].label == "unknown" and "lang" not in rows[1]


def test_label_thresholds_override_head_threshold():
    spec = _spec(
        kind={"threshold": 0.5, "label_thresholds": {"binary": 0.95}},
        risk={"threshold": 0.5, "label_thresholds": {"api_key": 0.1}},
    )
    dec = Decoder(spec)
    rows = dec.decode(
        _probs(
            [[0.1, 0.2, 0.7], [0.6, 0.2, 0.2]], [[1, 0, 0], [1, 0, 0]], [[0.4, 0.15], [0.6, 0.05]]
        )
    )
    assert rows[0]["kind"].label == "unknown" and rows[0]["kind"].raw == "binary"
    assert rows[1]["kind"].label == "code"
    assert rows[0]["risk"].labels == ("api_key",)
    assert rows[1]["risk"].labels == ("email",)


def test_disabled_label_is_never_on_and_is_listed_in_both_paths():
    spec = _spec(risk={"threshold": 0.5, "disabled_labels": ["api_key"]})
    dec = Decoder(spec)
    probs = _probs([[0.9, 0.05, 0.05]] * 2, [[1, 0, 0]] * 2, [[0.9, 1.0], [0.1, 0.99]])
    batch = dec.decode(probs)
    one = [dec.decode_one([p[i : i + 1] for p in probs]) for i in range(2)]
    assert batch == one
    assert batch[0]["risk"].labels == ("email",) and batch[1]["risk"].labels == ()
    assert batch[1]["risk"].scores["api_key"] == pytest.approx(0.99)  # the score is still given
    assert batch[0]["risk"].asdict()["disabled"] == ["api_key"]
    assert "disabled" not in Decoder(_spec()).decode(probs)[0]["risk"].asdict()


def test_top_k_is_capped_by_label_count_and_sorted():
    dec = Decoder(_spec(), top_k=10)
    (row,) = dec.decode(_probs([[0.2, 0.5, 0.3]], [[1, 0, 0]], [[0, 0]]))
    assert [lab for lab, _ in row["kind"].top_k] == ["text", "binary", "code"]
    with pytest.raises(ValueError):
        Decoder(_spec(), top_k=0)


def test_batch_rows_are_independent():
    dec = Decoder(_spec())
    kind = [[0.9, 0.05, 0.05], [0.05, 0.05, 0.9]]
    rows = dec.decode(_probs(kind, [[0, 1, 0], [0, 0, 1]], [[0, 0], [1, 1]]))
    assert rows[0]["lang"].label == "javascript" and "lang" not in rows[1]
    assert rows[1]["risk"].labels == ("email", "api_key")


def test_result_asdict_is_json_and_documented_shape():
    dec = Decoder(_spec())
    (heads,) = dec.decode(_probs([[0.9, 0.05, 0.05]], [[0, 1, 0]], [[0.7, 0.1]]))
    r = Result(path="a.py", status="ok", heads=heads, tier="tiny", model="toy")
    d = json.loads(json.dumps(r.asdict()))
    assert d["ok"] is True and d["status"] == "ok" and d["tier"] == "tiny" and d["model"] == "toy"
    assert set(d["heads"]["kind"]) == {"label", "score", "raw", "top_k", "reason"}
    assert d["heads"]["risk"] == {"labels": ["email"], "scores": {"email": 0.7, "api_key": 0.1}}
    assert "path_b64" not in d
    bad = Result(path="x\udcff.bin", status="not_found", message="No such file")
    d = bad.asdict()
    assert d["ok"] is False and d["heads"] == {} and d["message"] == "No such file"
    assert d["path_b64"] == "eP8uYmlu"  # b"x\xff.bin"


def _r6(v):
    """Scores are shown rounded to 6 decimals, numpy's way (rint(x * 1e6) / 1e6)."""
    return round(v * 1e6) / 1e6


def _reference(spec, probs, top_k):
    """Plain-Python decoding, written straight from the rules, to check the vectorised one."""
    rows = []
    for r in range(probs[0].shape[0]):
        row = {}
        for h, p in zip(spec.heads, probs):
            if h.gate is not None:
                parent = row.get(h.gate.head)
                if parent is None or parent["raw"] not in h.gate.labels:
                    continue
            vals = [float(v) for v in p[r]]
            if h.multilabel:
                row[h.name] = {
                    "labels": [
                        lab for lab, v in zip(h.labels, vals) if _r6(v) >= h.threshold_for(lab)
                    ],
                    "scores": {lab: _r6(v) for lab, v in zip(h.labels, vals)},
                }
                continue
            order = sorted(range(len(vals)), key=lambda i: (-vals[i], i))[:top_k]
            raw = h.labels[order[0]]
            below = _r6(vals[order[0]]) < h.threshold_for(raw)
            row[h.name] = {
                "label": "unknown" if below else raw,
                "raw": raw,
                "score": _r6(vals[order[0]]),
                "top_k": [[h.labels[i], _r6(vals[i])] for i in order],
            }
        rows.append(row)
    return rows


@given(
    seed=st.integers(0, 2**32 - 1),
    batch=st.sampled_from([1, 3, 5, 17]),
    top_k=st.integers(1, 5),
    ties=st.booleans(),
    kind_thr=st.sampled_from([0.0, 0.4, 0.6]),
)
@settings(max_examples=150, deadline=None)
def test_vectorised_decoding_equals_reference(seed, batch, top_k, ties, kind_thr):
    spec = _spec(
        kind={"threshold": kind_thr, "label_thresholds": {"text": 0.3}}, risk={"threshold": 0.5}
    )
    rng = np.random.default_rng(seed)
    probs = []
    for h in spec.heads:
        x = rng.random((batch, len(h.labels))).astype(np.float32)
        if ties:  # quantised values make exact ties common
            x = np.round(x * 2) / 2
        if not h.multilabel:
            x = (x + 1e-3) / (x + 1e-3).sum(axis=1, keepdims=True)
        probs.append(x.astype(np.float32))
    got = Decoder(spec, top_k=top_k).decode(probs)
    want = _reference(spec, probs, top_k)
    for g, w in zip(got, want):
        assert set(g) == set(w)
        for name, res in g.items():
            d = res.asdict()
            for key in w[name]:
                assert d[key] == w[name][key], (name, key)


def test_one_row_path_equals_batch_path():
    spec = CONTENT_SPEC
    rng = np.random.default_rng(1)
    probs = []
    for h in spec.heads:
        x = rng.random((40, len(h.labels))).astype(np.float32) ** 4
        if not h.multilabel:
            x /= x.sum(axis=1, keepdims=True)
        probs.append(x)
    dec = Decoder(spec, top_k=4)
    batch = dec.decode(probs)
    for i in range(40):
        assert dec.decode([p[i : i + 1] for p in probs]) == [batch[i]]


def test_threshold_compares_the_shown_score():
    """0.29999998 (float32) is shown as 0.3 and so reaches a 0.3 threshold, on both paths."""
    spec = _spec(kind={"threshold": 0.3}, risk={"threshold": 0.3})
    kind = np.array([[np.float32(0.29999998), np.float32(0.29999998), np.float32(0.2)]])
    probs = _probs(kind.tolist(), [[1, 0, 0]], [[np.float32(0.29999998), 0.1]])
    for p in (probs, [np.repeat(x, 5, axis=0) for x in probs]):
        row = Decoder(spec).decode(p)[0]
        assert row["kind"].score == 0.3 and row["kind"].label == "code"
        assert row["risk"].labels == ("email",) and row["risk"].scores["email"] == 0.3


def _fallback_spec(**kw):
    # python and c are one family ("source"); javascript has none; "text" stands for itself
    return _spec(lang={"threshold": 0.8, "fallbacks": {"python": "source", "c": "source"}, **kw})


def test_fallback_answers_the_family_generic_before_unknown_in_both_decode_paths():
    dec = Decoder(_fallback_spec(fallback_threshold=0.7))
    kinds, risk = [[0.9, 0.05, 0.05]] * 4, [[0.1, 0.1]] * 4
    langs = [[0.5, 0.1, 0.4],   # python 0.5 < 0.8, family python+c 0.9 >= 0.7 -> "source"
             [0.5, 0.45, 0.05],  # family 0.55 < 0.7 -> unknown
             [0.1, 0.6, 0.3],    # javascript has no family -> unknown
             [0.85, 0.1, 0.05]]  # over the threshold -> python
    batch = dec.decode(_probs(kinds, langs, risk))
    single = [dec.decode(_probs([k], [g], [r]))[0] for k, g, r in zip(kinds, langs, risk)]
    for rows in (batch, single):
        got = [(row["lang"].label, row["lang"].raw) for row in rows]
        assert got == [("source", "python"), ("unknown", "python"), ("unknown", "javascript"),
                       ("python", "python")]
        assert "family 'source' scores 0.900" in rows[0]["lang"].reason
        assert "only 0.550" in rows[1]["lang"].reason
        assert rows[3]["lang"].reason is None
    assert [r["lang"].asdict() for r in batch] == [r["lang"].asdict() for r in single]


def test_fallbacks_are_checked_and_round_trip():
    from picohead_runtime.spec import SpecError

    spec = _fallback_spec()
    h = spec.head("lang")
    assert h.generic_labels == ("source",) and h.fallback_threshold == 0.5
    assert ModelSpec.from_dict(spec.to_dict()).head("lang").fallbacks == h.fallbacks
    bad = [({"fallbacks": {"rust": "source"}}, "fallbacks.rust"),
           ({"fallbacks": {"python": "unknown"}}, "cannot be a generic"),
           ({"fallbacks": {"python": 3}}, "generic label"),
           ({"fallbacks": {"python": "source"}, "fallback_threshold": 1.5}, "fallback_threshold")]
    for over, msg in bad:
        with pytest.raises(SpecError, match=msg):
            _spec(lang=over)
    with pytest.raises(SpecError, match="only a softmax head"):
        _spec(risk={"fallbacks": {"email": "pii"}})


def test_fallbacks_are_written_per_family_and_both_forms_read():
    from picohead_runtime.spec import SpecError

    spec = _fallback_spec()
    written = spec.to_dict()["heads"]
    lang = next(h for h in written if h["name"] == "lang")
    assert lang["fallbacks"] == {"source": ["python", "c"]}  # each generic once: smaller files
    assert _spec(lang={"fallbacks": {"source": ["python", "c"]}}).head("lang").fallbacks == {
        "python": "source",
        "c": "source",
    }
    for over, msg in [({"fallbacks": {"source": ["python"], "other": ["python"]}}, "once"),
                      ({"fallbacks": {"source": ["rust"]}}, "fallbacks.rust"),
                      ({"fallbacks": {"source": "python", "x": ["c"]}}, "must list")]:
        with pytest.raises(SpecError, match=msg):
            _spec(lang=over)


def test_fail_on_accepts_a_generic_answer_and_still_rejects_a_typo():
    from picohead_runtime.cli import check_fail_on
    from picohead_runtime.errors import UsageError

    spec = _fallback_spec()
    check_fail_on([("lang", "source"), ("lang", "unknown"), ("lang", "python")], spec)
    with pytest.raises(UsageError, match="no label 'sourse'"):
        check_fail_on([("lang", "sourse")], spec)


def test_content_under_min_content_bytes_gets_the_heads_generic_type_with_a_reason():
    from picohead_runtime.decode import GENERIC_REASON, MIN_CONTENT

    spec = _spec(lang={"threshold": 0.5, "fallbacks": {"python": "text/plain",
                                                       "c": "application/octet-stream"}})
    dec = Decoder(spec)
    kinds, langs, risk = [[0.9, 0.05, 0.05]] * 4, [[0.05, 0.9, 0.05]] * 4, [[0.9, 0.1]] * 4
    windows = [b"x", b"\x00\x01", b"x" * MIN_CONTENT, b"ab"]
    batch = dec.decode(_probs(kinds, langs, risk), windows)
    single = [dec.decode(_probs([k], [g], [r]), [w])[0]
              for k, g, r, w in zip(kinds, langs, risk, windows)]
    for rows in (batch, single):
        assert [r["lang"].label for r in rows] == ["text/plain", "application/octet-stream",
                                                   "javascript", "text/plain"]
        assert all(r["lang"].raw == "javascript" for r in rows)
        assert rows[0]["lang"].reason.startswith("only 1 byte of content")
        assert rows[1]["lang"].reason.endswith(GENERIC_REASON) and rows[2]["lang"].reason is None
        # a head without that generic answer, and the risk flags, keep the model's answers
        assert [r["kind"].label for r in rows] == [rows[2]["kind"].label] * 4
        assert all(r["risk"].labels == rows[2]["risk"].labels for r in rows)
    assert [r["lang"].asdict() for r in batch] == [r["lang"].asdict() for r in single]
    # without windows (calibration on probabilities alone) the rule does not apply
    assert dec.decode(_probs(kinds, langs, risk))[0]["lang"].label == "javascript"


def test_the_classifier_answers_short_content_generically_alone_and_in_a_batch():
    from picohead_runtime import Classifier

    clf = Classifier(None, tier="tiny")
    inputs = [b"x", b"0\n", b"\n\n  ", b"\x00", b"{}", b"def f(x):\n    return x + 1\n"]
    alone = [clf.classify_bytes(b) for b in inputs]
    batch = list(clf.classify_many_bytes(inputs))
    for got in (alone, batch):
        assert [r.heads["mime"].label for r in got[:5]] == [
            "text/plain", "text/plain", "text/plain", "application/octet-stream", "text/plain"]
        assert "too few to tell a format" not in (got[5].heads["mime"].reason or "")
    assert [r.asdict() for r in alone] == [r.asdict() for r in batch]


def test_a_head_that_needs_letters_answers_unknown_for_content_without_one():
    from picohead_runtime.decode import NO_LETTERS_REASON, has_letter

    assert has_letter(b"ab") and has_letter("日本".encode()) and has_letter(b"{} x")
    assert not has_letter(b"{}") and not has_letter(b"42\n") and not has_letter(b"\xff\xfe--")
    spec = _spec(lang={"needs_letters": True})
    assert spec.head("lang").needs_letters and not spec.head("kind").needs_letters
    assert ModelSpec.from_dict(spec.to_dict()).head("lang").needs_letters  # written, read back
    dec = Decoder(spec)
    kinds, langs, risk = [[0.9, 0.05, 0.05]] * 3, [[0.05, 0.9, 0.05]] * 3, [[0.9, 0.1]] * 3
    windows = [b"{}\n[1, 2, 3]\n", b"int x = 1;", b"12345678 -- 42"]
    batch = dec.decode(_probs(kinds, langs, risk), windows)
    single = [dec.decode(_probs([k], [g], [r]), [w])[0]
              for k, g, r, w in zip(kinds, langs, risk, windows)]
    for rows in (batch, single):
        assert [r["lang"].label for r in rows] == ["unknown", "javascript", "unknown"]
        assert rows[0]["lang"].raw == "javascript" and rows[0]["lang"].reason == NO_LETTERS_REASON
        assert [r["kind"].label for r in rows] == ["code"] * 3  # other heads keep their answers
    assert [r["lang"].asdict() for r in batch] == [r["lang"].asdict() for r in single]
    assert dec.decode(_probs(kinds, langs, risk))[0]["lang"].label == "javascript"  # no windows


def test_needs_letters_is_checked_when_a_spec_is_read():
    from picohead_runtime.spec import SpecError

    with pytest.raises(SpecError, match="needs_letters"):
        _spec(lang={"needs_letters": "yes"})
    with pytest.raises(SpecError, match="only a softmax head"):
        _spec(risk={"needs_letters": True})
    assert CONTENT_SPEC.head("text_lang").needs_letters  # the content recipe's language head


def test_the_bundled_model_gives_letterless_text_no_language():
    from picohead_runtime import Classifier

    for tier in ("small", "pro"):
        clf = Classifier(None, tier=tier)
        for b in (b"{}", b"[]", b"42\n", b"12345 67890\n"):
            lang = clf.classify_bytes(b).heads.get("text_lang")
            assert lang is None or lang.label == "unknown", (tier, b, lang)
        # text with letters passes the gate: its language is the top answer, and an `unknown`
        # can only come from the tier's threshold (content-v13's pro: fr 0.87 under 0.90)
        fr = clf.classify_bytes(b"Bonjour tout le monde, comment allez-vous ?").heads["text_lang"]
        assert fr.raw == "fr", (tier, fr)
        assert fr.label == "fr" or "below the threshold" in (fr.reason or ""), (tier, fr)
