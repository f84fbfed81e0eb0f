"""Nested-tier equivalence, padding invariance and hash parity for both families."""

import numpy as np
import pytest
import torch

from picohead.models import build_model, count_params, slice_tier
from picohead.models.config import config_from_spec, config_to_arch
from picohead.models.steady import (
    buckets_of,
    ngram_buckets_np,
    ngram_hashes,
    ngram_hashes_fused,
)
from picohead.testing import toy_spec
from picohead_runtime.spec import ModelSpec, SpecError
from picohead_runtime.windows import batch_windows


def _default_spec(family: str) -> ModelSpec:
    d = toy_spec(family)
    d.pop("arch"), d.pop("tiers")  # default 4-tier architecture
    return ModelSpec.from_dict(d)


def _batch(seed=0):
    rng = np.random.default_rng(seed)
    wins = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (1, 7, 300, 2048, 16)]
    x, lengths = batch_windows(wins)
    return torch.from_numpy(x), torch.from_numpy(lengths), wins


@pytest.mark.parametrize("family", ["bytes", "steady"])
def test_slice_equals_full_model_tier(family):
    torch.manual_seed(0)
    spec = _default_spec(family)
    model = build_model(spec).eval()
    x, lengths, _ = _batch()
    sizes = []
    with torch.no_grad():
        for tier in spec.tiers:
            small, small_spec = slice_tier(model, spec, tier)
            assert small_spec.tiers == (tier,)
            full, sliced = model(x, lengths, tier), small(x, lengths, tier)
            for h in spec.head_names:
                torch.testing.assert_close(full[h], sliced[h], rtol=0, atol=0)
            sizes.append(count_params(small))
    assert sizes == sorted(sizes) and sizes[0] * 4 < sizes[-1], sizes  # tiers shrink for real


@pytest.mark.parametrize("family", ["bytes", "steady"])
def test_padding_never_changes_a_row(family):
    torch.manual_seed(0)
    spec = _default_spec(family)
    model = build_model(spec).eval()
    x, lengths, wins = _batch(1)
    with torch.no_grad():
        for tier in ("tiny", "pro"):
            batched = model(x, lengths, tier)
            for i, w in enumerate(wins):
                xi, li = batch_windows([w])
                alone = model(torch.from_numpy(xi), torch.from_numpy(li), tier)
                # the same row with garbage (not zeros) in the padding
                noisy = x[i : i + 1].clone()
                noisy[0, len(w) :] = 0xFF
                garbage = model(noisy, lengths[i : i + 1], tier)
                for h in spec.head_names:
                    torch.testing.assert_close(batched[h][i], alone[h][0], atol=2e-5, rtol=1e-4)
                    torch.testing.assert_close(garbage[h][0], alone[h][0], atol=2e-5, rtol=1e-4)


def test_byte_zero_is_not_padding():
    torch.manual_seed(0)
    spec = _default_spec("bytes")
    model = build_model(spec).eval()
    a, la = batch_windows([b"abc"])
    b, lb = batch_windows([b"abc\x00\x00"])
    with torch.no_grad():
        pa = model(torch.from_numpy(a), torch.from_numpy(la), "small")["kind"]
        pb = model(torch.from_numpy(b), torch.from_numpy(lb), "small")["kind"]
    assert not torch.allclose(pa, pb)


def test_hash_parity_torch_numpy_exact_ops():
    x, lengths, _ = _batch(2)
    ngrams = (1, 2, 3, 4, 6, 8)
    kw = {"positions": 16, "position_share": 0.25}
    h_fast, m_fast = ngram_hashes(x, lengths, ngrams, **kw)
    h_exact, m_exact = ngram_hashes(x, lengths, ngrams, exact_ops=True, **kw)
    assert torch.equal(h_fast, h_exact) and torch.equal(m_fast, m_exact)
    for buckets in (2, 1024, 32768):
        fast = buckets_of(h_fast, buckets)
        assert torch.equal(fast, buckets_of(h_exact, buckets, exact_ops=True))
        ids_np, mask_np = ngram_buckets_np(x.numpy(), lengths.numpy(), ngrams, buckets, **kw)
        np.testing.assert_array_equal(ids_np, fast.numpy())
        np.testing.assert_allclose(mask_np, m_fast.numpy(), rtol=1e-6)
        assert int(fast.max()) < buckets
    # positional n-grams carry a quarter of each non-empty row's total weight
    share = m_fast[:, -sum(min(16, 2048 - n + 1) for n in ngrams) :].sum(1) / m_fast.sum(1)
    torch.testing.assert_close(share[lengths >= 8], torch.full_like(share[lengths >= 8], 0.25))
    h0, m0 = ngram_hashes(x, lengths, ngrams)
    # a row of length n has exactly max(0, n - k + 1) valid k-grams
    expected = sum(max(0, int(n) - k + 1) for k in ngrams for n in lengths[:1])
    assert int(m0[0].sum()) == expected


@pytest.mark.parametrize(
    ("ngrams", "positions", "share"),
    [((1, 2, 3, 4, 6, 8), 16, 0.25), ((2, 16), 4, 0.5), ((1, 3, 5), 0, 0.0)],
)
def test_fused_export_hashes_are_the_same_multiset(ngrams, positions, share):
    """The export path's matmul hashes: every (hash, weight) pair of the loop, nothing else."""
    x, lengths, _ = _batch(4)
    kw = {"positions": positions, "position_share": share}
    h, w = ngram_hashes(x, lengths, ngrams, exact_ops=True, **kw)
    hf, wf = ngram_hashes_fused(x, lengths, ngrams, **kw)
    assert hf.dtype == torch.float64
    for b in range(x.shape[0]):
        loop = sorted(zip(h[b][w[b] > 0].tolist(), w[b][w[b] > 0].tolist()))
        fused = sorted(zip(hf[b][wf[b] > 0].long().tolist(), wf[b][wf[b] > 0].tolist()))
        assert loop == fused
    for buckets in (2, 4096):
        assert int(buckets_of(hf, buckets, exact_ops=True).max()) < buckets


def test_steady_export_path_matches_training_path():
    torch.manual_seed(0)
    spec = _default_spec("steady")
    model = build_model(spec).eval()
    x, lengths, _ = _batch(3)
    with torch.no_grad():
        a = {t: model(x, lengths, t) for t in ("tiny", "base")}  # bucket sums, gathers
        model.use_bag = False
        b = {t: model(x, lengths, t) for t in ("tiny", "base")}
    for t in a:
        for h in spec.head_names:
            torch.testing.assert_close(a[t][h], b[t][h], atol=1e-5, rtol=1e-4)


def test_bytes_attention_depth_per_tier():
    from picohead.models.config import BytesConfig

    cfg = config_from_spec(_default_spec("bytes"))
    assert isinstance(cfg, BytesConfig) and cfg.attn_depth["tiny"] == 0
    assert cfg.attn_depth["pro"] == cfg.attn_layers
    small, _ = slice_tier(build_model(_default_spec("bytes")), _default_spec("bytes"), "tiny")
    assert len(small.attn) == 0  # the tiny file holds no attention weights
    # an arch naming attn_layers without attn_depth (checkpoints written before attn_depth)
    d = toy_spec("bytes")
    d.pop("tiers")
    d["arch"] = {"attn_layers": 2}
    old = config_from_spec(ModelSpec.from_dict(d))
    assert isinstance(old, BytesConfig) and set(old.attn_depth.values()) == {2}


RETIRED_OFF = {
    "position_split": False,
    "position_rows": {},
    "position_sum": False,
    "lower_ngrams": [],
    "word_ngrams": [],
    # format features: the trial run H (content-v8's retrain) wrote them at these values
    "format_ngrams": [],
    "format_head": 0,
    "format_offsets": [],
    "format_tail": 0,
    "format_rows": {},
    "format_dims": {},
    "format_units": {},
    "format_heads": [],
}


def test_retired_arch_keys_are_read_only_at_their_off_value():
    """Knobs that were tried and not adopted left the model (issue 25); the bundled content-v7
    files and older runs still carry them at their off value, which reads as if absent. Any other
    value fails, naming the key."""
    d = _default_spec("steady").to_dict()
    d["arch"] = dict(RETIRED_OFF)
    cfg = config_from_spec(ModelSpec.from_dict(d))
    assert cfg == config_from_spec(_default_spec("steady"))
    assert not set(RETIRED_OFF) & set(config_to_arch(cfg))  # never written again
    for key, on in (
        ("position_split", True),
        ("position_rows", {"tiny": 64, "small": 256, "base": 512, "pro": 512}),
        ("position_sum", True),
        ("position_split", 0),  # not False: a retired key is off only at exactly its off value
        ("lower_ngrams", [4]),
        ("word_ngrams", [12, 22, 41]),
        ("format_ngrams", [1, 2, 4, 8]),
        ("format_head", 48),
        ("format_head", False),  # an int's off value is 0, not False
        ("format_units", {"tiny": 0, "small": 8, "base": 32, "pro": 48}),
    ):
        d["arch"] = {**RETIRED_OFF, key: on}
        with pytest.raises(SpecError, match=rf"arch\.{key}: retired"):
            build_model(ModelSpec.from_dict(d))


def test_bundled_content_model_arch_still_parses():
    """Every bundled tier's embedded arch builds the model it was exported from, retired keys
    (at off) or not."""
    from picohead_runtime.model import default_model_dir, load_model

    paths = sorted(default_model_dir().glob("*.onnx"))
    assert paths
    for path in paths:
        spec = load_model(path).meta.spec
        assert all(spec.arch[k] == off for k, off in RETIRED_OFF.items() if k in spec.arch)
        build_model(spec)
