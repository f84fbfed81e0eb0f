import json

import pytest

from picohead_runtime.spec import ModelSpec, SpecError, load_spec


def base() -> dict:
    return {
        "name": "m",
        "heads": [
            {"name": "coarse", "kind": "softmax", "labels": ["code", "text"]},
            {"name": "lang", "labels": ["py", "c"], "gate": {"head": "coarse", "labels": ["code"]}},
            {"name": "risk", "kind": "multilabel", "labels": ["email"]},
        ],
    }


def test_round_trip(tmp_path):
    spec = ModelSpec.from_dict(base())
    assert spec.head("lang").gate.labels == ("code",)
    assert spec.head("risk").threshold == 0.5 and spec.head("coarse").threshold == 0.0
    p = tmp_path / "s.json"
    p.write_text(spec.to_json())
    assert load_spec(p) == spec
    assert spec.tiers == ("tiny", "small", "base", "pro")
    assert spec.head("lang").index("c") == 1


def test_disabled_labels_round_trip_and_never_reach_a_threshold(tmp_path):
    d = base()
    d["heads"][2].update(labels=["email", "phone"], disabled_labels=["phone"])
    spec = ModelSpec.from_dict(d)
    risk = spec.head("risk")
    assert risk.disabled_labels == ("phone",)
    assert risk.threshold_for("phone") == float("inf") and risk.threshold_for("email") == 0.5
    p = tmp_path / "s.json"
    p.write_text(spec.to_json())
    assert load_spec(p) == spec
    assert "disabled_labels" not in ModelSpec.from_dict(base()).to_dict()["heads"][2]


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (
            lambda d: d["heads"][1].update(gate={"head": "nope", "labels": ["code"]}),
            "heads[1] (lang).gate.head",
        ),
        (
            lambda d: d["heads"][1].update(gate={"head": "coarse", "labels": ["bin"]}),
            "'bin' is not a label of head 'coarse'",
        ),
        (lambda d: d["heads"][0].update(kind="softmaxx"), "heads[0] (coarse).kind"),
        (lambda d: d["heads"][0].update(labels=["a", "a"]), "duplicate labels: a"),
        (lambda d: d["heads"][0].update(labels=["a", "unknown"]), "'unknown' is reserved"),
        (lambda d: d.update(window={"head": -1}), "window.head"),
        (lambda d: d.update(family="cnn"), "family"),
        (lambda d: d.update(colour="red"), "colour: unknown key"),
        (
            lambda d: d["heads"].append({"name": "coarse", "labels": ["a", "b"]}),
            "duplicate head name",
        ),
        (lambda d: d["heads"][2].update(threshold=1.5), "threshold: must be in [0, 1]"),
        (lambda d: d["heads"][0].update(name="Bad Name"), "heads[0].name"),
        (lambda d: d.update(schema_version=9), "schema_version"),
        (lambda d: d["heads"][0].pop("labels"), "heads[0] (coarse).labels: missing"),
        (
            lambda d: d["heads"][2].update(disabled_labels=["phone"]),
            "heads[2] (risk).disabled_labels: 'phone' is not one of this head's labels",
        ),
        (
            lambda d: d["heads"][0].update(disabled_labels=["code"]),
            "only a multilabel head can disable labels",
        ),
        (lambda d: d["heads"][2].update(disabled_labels="email"), "must be a list"),
    ],
)
def test_errors_name_the_key(mutate, fragment):
    d = base()
    mutate(d)
    with pytest.raises(SpecError) as e:
        ModelSpec.from_dict(d, source="my.json")
    assert fragment in str(e.value) and "my.json" in str(e.value)


def test_gate_must_come_first():
    d = base()
    d["heads"] = [d["heads"][1], d["heads"][0]]
    with pytest.raises(SpecError, match="declared before"):
        ModelSpec.from_dict(d)


def test_bad_json(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("{not json")
    with pytest.raises(SpecError, match="not valid JSON"):
        load_spec(p)
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "missing.json")


def test_unknown_label_lookup():
    spec = ModelSpec.from_dict(base())
    with pytest.raises(SpecError, match="has no label 'rust'"):
        spec.head("lang").index("rust")


def test_arch_validation():
    from picohead.models.config import config_from_spec

    d = base()
    d["family"] = "steady"
    d["arch"] = {"buckets": {"tiny": 1000, "small": 2048, "base": 4096, "pro": 8192}}
    with pytest.raises(SpecError, match="power of two"):
        config_from_spec(ModelSpec.from_dict(d))
    d["arch"] = {"dims": {"tiny": 8, "small": 4, "base": 16, "pro": 32}}
    with pytest.raises(SpecError, match="nested"):
        config_from_spec(ModelSpec.from_dict(d))
    d["arch"] = {"depth": 3}
    with pytest.raises(SpecError, match="arch.depth: unknown key"):
        config_from_spec(ModelSpec.from_dict(d))
    assert json.loads(ModelSpec.from_dict(base()).to_json())["family"] == "bytes"
