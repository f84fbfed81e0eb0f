"""The steady family's format features (offset-keyed n-grams, max-pooled) and short inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from picohead.data import risk
from picohead.models import build_model, slice_tier
from picohead.models.nested import TierHeads
from picohead.models.steady import format_hashes
from picohead.testing import toy_spec
from picohead.train import TrainConfig, crop_relabellers, short_batch
from picohead_runtime.spec import ModelSpec, SpecError
from picohead_runtime.windows import batch_windows

FORMAT = {
    "format_ngrams": [1, 2, 4],
    "format_head": 8,
    "format_offsets": [20, 21, 40],
    "format_tail": 5,
    "format_rows": {"tiny": 64, "small": 128},
    "format_dims": {"tiny": 4, "small": 8},
    "format_units": {"tiny": 0, "small": 6},
    "format_heads": ["kind"],
}


def format_spec(**extra: object) -> ModelSpec:
    d = toy_spec("steady")
    d["arch"] = {**d["arch"], **FORMAT, **extra}
    return ModelSpec.from_dict(d)


def _hashes(rows: list[bytes]) -> tuple[torch.Tensor, torch.Tensor]:
    x, lengths = batch_windows(rows)
    return format_hashes(
        torch.from_numpy(x), torch.from_numpy(lengths), (1, 2, 4), (0, 1, 2, 257), 3
    )


def test_offsets_key_the_hashes_and_the_tail_lines_up_by_distance_from_the_end():
    body = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) + bytes(range(44))
    h, valid = _hashes([body, b"XY" + body, body + b"END", b"ab"])
    assert h.shape == (4, 4 + 3, 3) and valid.shape == h.shape
    assert h.dtype == torch.float64 and bool((h >= 0).all() and (h < 2**31).all())
    # start offsets: the same bytes at the same offset hash alike, shifted ones do not
    assert torch.equal(h[0, :3], h[2, :3]) and not torch.equal(h[0, :3], h[1, :3])
    # tail: the same last bytes, whatever precedes them (rows 0 and 1 share their ending)
    assert torch.equal(h[0, 4:], h[1, 4:]) and not torch.equal(h[0, 4:], h[2, 4:])
    # offset 257 is read only where the row reaches it
    assert bool(valid[0, 3].all()) and not bool(valid[3, 3].any())
    # a 2-byte row: 1-grams at offsets 0 and 1, one 2-gram at 0, no 4-grams; tail alike
    assert valid[3, :3].tolist() == [[True, True, False], [True, False, False], [False] * 3]
    assert valid[3, 4:].tolist() == [[True, True, False], [True, False, False], [False] * 3]
    # a key decides the bucket: the same n-gram at another offset lands elsewhere
    same = _hashes([b"aaaa"])[0]
    assert same[0, 0, 0] != same[0, 1, 0]


def test_format_features_reach_only_the_named_heads_and_slices_stay_exact():
    torch.manual_seed(0)
    spec = format_spec()
    model = build_model(spec).eval()
    x, lengths = batch_windows([b"GIF89a" + bytes(200), b"%PDF-1.7\n", b"a", b"ustar" * 50])
    x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
    with torch.no_grad():
        before = model(x, lengths, "small")
        model.format_table.mul_(-2.0).add_(0.3)
        after = model(x, lengths, "small")
        for tier in spec.tiers:
            alone, _ = slice_tier(model, spec, tier)
            alone.use_bag = False  # the export path computes the same function
            a, b = model(x, lengths, tier), alone(x, lengths, tier)
            for h in spec.head_names:
                torch.testing.assert_close(a[h], b[h], rtol=1e-5, atol=1e-6)
    assert not torch.allclose(before["kind"], after["kind"])
    for h in ("lang", "risk"):
        torch.testing.assert_close(before[h], after[h], rtol=0, atol=0)
    tiny, _ = slice_tier(model, spec, "tiny")  # format_units.tiny == 0: no weights at all
    assert not any(n.startswith("format_") for n, _ in tiny.named_parameters())


def test_format_config_is_checked():
    for extra, msg in [
        ({"format_offsets": [3]}, "format_offsets"),
        ({"format_rows": {"tiny": 64, "small": 100}}, "power of two"),
        ({"format_units": {"tiny": 4, "small": 2}}, "nested"),
        ({"format_head": 0, "format_offsets": [], "format_tail": 0}, "format_head"),
        ({"format_ngrams": [0]}, "format_ngrams"),
    ]:
        with pytest.raises(SpecError, match=msg):
            build_model(format_spec(**extra))
    with pytest.raises(SpecError, match="format_heads"):
        build_model(format_spec(format_heads=["nope"]))


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
