"""Short inputs for training (flag-free 0-16-byte inputs) and heads reading extra feature groups."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from picohead.data import risk
from picohead.data.labels import short_input_labels
from picohead.models.nested import TierHeads
from picohead.testing import toy_spec
from picohead.train import TrainConfig, crop_relabellers, short_batch, short_labeller
from picohead_runtime.spec import ModelSpec
from picohead_runtime.windows import batch_windows


def test_tier_heads_read_extra_groups_in_order():
    torch.manual_seed(0)
    heads = TierHeads({"t": 2}, {"a": 3, "b": 1}, [({"t": 1}, ("a",)), ({"t": 2}, ("a", "b"))])
    z, e1, e2 = torch.ones(4, 2), torch.full((4, 1), 2.0), torch.full((4, 2), 3.0)
    out = heads(z, "t", [e1, e2])
    lin_a, lin_b = heads.heads["t"]["a"], heads.heads["t"]["b"]
    assert lin_a.in_features == 5 and lin_b.in_features == 4
    torch.testing.assert_close(out["a"], lin_a(torch.cat((z, e1, e2), 1)))
    torch.testing.assert_close(out["b"], lin_b(torch.cat((z, e2), 1)))


def test_short_batch_makes_short_inputs_labelled_only_for_risk():
    names = ("email", "api_key")
    spec = ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [
            {"name": "kind", "kind": "softmax", "labels": ["code", "text", "binary"]},
            {"name": "risk", "kind": "multilabel", "labels": list(names)},
        ]}
    )
    cfg = TrainConfig(short_prob=1.0, short_max=16,
                      crop_relabel={"risk": "picohead.data.risk:relabel_excerpt"})
    relabel = crop_relabellers(spec, cfg)
    mail = b"a.schmidt@gmail.com"
    seen_flag = seen_clean = 0
    for seed in range(60):
        x, lengths = batch_windows([mail * 10, b"plain text " * 30])
        x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
        y = np.array([[1.0, 0.0], [0.0, 0.0]], dtype=np.float32)
        labels = ({"kind": np.array([1, 1]), "risk": y},
                  {"kind": np.ones(2, dtype=bool), "risk": np.ones(2, dtype=bool)})
        assert short_batch(x, lengths, labels, cfg, np.random.default_rng(seed), relabel) == 2
        assert not labels[1]["kind"].any()  # every other head unset
        for r in range(2):
            k = int(lengths[r])
            assert 0 <= k <= 16 and bool((x[r, k:] == 0).all())
            if labels[1]["risk"][r]:
                flagged = bool(labels[0]["risk"][r, 0])  # only where the detector sees one
                assert flagged == (r == 0 and "email" in risk.detect(bytes(x[r, :k].numpy())))
                seen_flag += flagged
                seen_clean += not flagged
    assert seen_clean > 0 and seen_flag > 0
    with pytest.raises(ValueError, match="crop_relabel"):
        short_batch(x, lengths, labels, TrainConfig(short_prob=1.0), np.random.default_rng(0), {})


def _type_spec() -> ModelSpec:
    return ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [
            {"name": "coarse", "kind": "softmax", "labels": ["code", "text", "image"]},
            {"name": "mime", "kind": "softmax", "labels": ["text/x-python", "text/plain"]},
            {"name": "lang", "kind": "softmax", "labels": ["en", "de"]},
            {"name": "risk", "kind": "multilabel", "labels": ["email"]},
        ]}
    )


def test_short_labels_label_made_up_inputs_only():
    spec = _type_spec()
    cfg = TrainConfig(short_prob=1.0, short_max=16,
                      crop_relabel={"risk": "picohead.data.risk:relabel_excerpt"},
                      short_labels="picohead.data.labels:short_input_labels")
    relabel, short = crop_relabellers(spec, cfg), short_labeller(spec, cfg)
    assert short is not None
    made_text = cut_unset = 0
    row = b"import os\nprint(os.getcwd())\n" * 4
    for seed in range(80):
        x, lengths = batch_windows([row])
        x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
        labels = ({"coarse": np.array([0]), "mime": np.array([0]), "lang": np.array([0]),
                   "risk": np.zeros((1, 1), dtype=np.float32)},
                  {k: np.ones(1, dtype=bool) for k in ("coarse", "mime", "lang", "risk")})
        short_batch(x, lengths, labels, cfg, np.random.default_rng(seed), relabel, short)
        new = bytes(x[0, : int(lengths[0])].numpy())
        assert not labels[1]["lang"][0]  # no language from a few bytes
        if labels[1]["coarse"][0]:  # labelled: text bytes, as text/plain
            assert new and labels[0]["coarse"][0] == 1 and labels[0]["mime"][0] == 1
            assert labels[1]["mime"][0] and short_input_labels(new)["coarse"] == "text"
            made_text += 1
        if new not in row:  # made up (random bytes): labelled exactly as short_input_labels says
            assert bool(labels[1]["coarse"][0]) == ("coarse" in short_input_labels(new))
        if len(new) > 4:  # longer than any made-up input: cut from the row, type heads unset
            assert not labels[1]["coarse"][0] and not labels[1]["mime"][0]
            cut_unset += 1
    assert made_text and cut_unset


def test_short_input_labels():
    assert short_input_labels(b"") == {}
    assert short_input_labels(b"{}") == {"coarse": "text", "modality": "text", "mime": "text/plain"}
    assert short_input_labels(b"\x00\x9f") == {"modality": "binary"}


def test_short_labels_reject_labels_the_head_lacks():
    spec = ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [
            {"name": "coarse", "kind": "softmax", "labels": ["code", "image"]},
            {"name": "risk", "kind": "multilabel", "labels": ["email"]},
        ]}
    )
    cfg = TrainConfig(short_prob=1.0, crop_relabel={"risk": "picohead.data.risk:relabel_excerpt"},
                      short_labels="picohead.data.labels:short_input_labels")
    x, lengths = batch_windows([b"{}" * 20])
    labels = ({"coarse": np.array([0]), "risk": np.zeros((1, 1), dtype=np.float32)},
              {"coarse": np.ones(1, dtype=bool), "risk": np.ones(1, dtype=bool)})
    with pytest.raises(ValueError, match="no label of head 'coarse'"):
        for seed in range(40):
            short_batch(torch.from_numpy(x.copy()), torch.from_numpy(lengths.copy()), labels, cfg,
                        np.random.default_rng(seed), crop_relabellers(spec, cfg),
                        short_labeller(spec, cfg))
    with pytest.raises(ValueError, match="cannot load"):
        short_labeller(spec, TrainConfig(short_labels="picohead.data.labels:nope"))
