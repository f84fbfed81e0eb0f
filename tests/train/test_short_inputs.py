"""Short inputs for training (flag-free 0-16-byte inputs) and heads reading extra feature groups."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from picohead.data import risk
from picohead.models.nested import TierHeads
from picohead.testing import toy_spec
from picohead.train import TrainConfig, crop_relabellers, short_batch
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
