"""add-head: a new head learns on the frozen trunk and every existing weight stays bit-identical."""

import json

import pytest
import torch
from click.testing import CliRunner

from picohead.cli import main
from picohead.testing import toy_spec, write_toy_corpus
from picohead.train import load_model


def test_add_head_keeps_old_weights_and_learns(tmp_path):
    corpus = write_toy_corpus(tmp_path / "toy", n_train=300, n_eval=80)
    run = tmp_path / "run"
    args = [
        "train",
        "--spec",
        str(corpus / "spec-steady.json"),
        "--data",
        str(corpus),
        "--out",
        str(run),
        "--steps",
        "150",
        "--batch-size",
        "32",
        "--eval-every",
        "75",
        "--cache",
        str(tmp_path / "c"),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    # New head: is there an e-mail address? Label it from the corpus's own risk labels.
    for split in ("train", "val"):
        lines = []
        for line in (corpus / f"{split}.jsonl").read_text().splitlines():
            rec = json.loads(line)
            if "risk" in rec["labels"]:
                rec["labels"] = {"has_email": "yes" if "email" in rec["labels"]["risk"] else "no"}
                lines.append(json.dumps(rec))
        (tmp_path / f"{split}-email.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "head.json").write_text(json.dumps({"name": "has_email", "labels": ["no", "yes"]}))
    new = tmp_path / "new"
    r = CliRunner().invoke(
        main,
        [
            "add-head",
            str(run),
            "--spec",
            str(tmp_path / "head.json"),
            "--data",
            str(tmp_path / "train-email.jsonl"),
            "--val",
            str(tmp_path / "val-email.jsonl"),
            "--out",
            str(new),
            "--epochs",
            "60",
            "--cache",
            str(tmp_path / "c"),
        ],
    )
    assert r.exit_code == 0, r.output
    val = json.loads(r.output)
    for tier in ("tiny", "small"):
        assert val[tier]["has_email"]["accuracy"] > 0.8  # majority class is ~0.7
    old_model, old_spec = load_model(run)
    new_model, new_spec = load_model(new)
    assert new_spec.head_names == (*old_spec.head_names, "has_email")
    new_state = new_model.state_dict()
    for k, v in old_model.state_dict().items():
        assert torch.equal(v, new_state[k]), k
    # a clash with an existing head name is a clear error
    (tmp_path / "dup.json").write_text(json.dumps({"name": "kind", "labels": ["a", "b"]}))
    r = CliRunner().invoke(
        main,
        [
            "add-head",
            str(run),
            "--spec",
            str(tmp_path / "dup.json"),
            "--data",
            str(tmp_path / "train-email.jsonl"),
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert r.exit_code == 2 and "already exists" in r.output


def test_a_heads_file_with_a_stray_key_is_refused():
    from picohead.add_head import parse_new_heads
    from picohead_runtime.spec import ModelSpec, SpecError

    spec = ModelSpec.from_dict(toy_spec("steady"))
    head = {"name": "licence", "kind": "softmax", "labels": ["MIT", "GPL-2"]}
    assert "licence" in parse_new_heads({"heads": [head]}, spec, "h.json").head_names
    with pytest.raises(SpecError, match="h.json: version: unknown key beside 'heads'"):
        parse_new_heads({"heads": [head], "version": 2}, spec, "h.json")
