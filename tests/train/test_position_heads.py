"""Positional n-grams at extra offsets and at the tail, and the positional mean that only the
``arch.position_heads`` read (the steady family)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from picohead.models import build_model, slice_tier
from picohead.models.steady import buckets_of, ngram_hashes, ngram_hashes_fused
from picohead.testing import toy_spec
from picohead_runtime.spec import ModelSpec, SpecError
from picohead_runtime.windows import batch_windows

POSITIONAL = {
    "positions": 8,
    "position_share": 0.1,
    "position_offsets": [30, 257],
    "tail_positions": 6,
    "position_heads": ["kind"],
}


def _batch(seed: int = 0, sizes: tuple[int, ...] = (1, 7, 40, 300, 2048, 9)):
    rng = np.random.default_rng(seed)
    wins = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes]
    x, lengths = batch_windows(wins)
    return torch.from_numpy(x), torch.from_numpy(lengths), wins


def _spec(**arch) -> ModelSpec:
    d = toy_spec("steady")
    d["arch"] = {**d["arch"], **POSITIONAL, **arch}
    return ModelSpec.from_dict(d)


@pytest.mark.parametrize(
    ("positions", "offsets", "tail", "share"),
    [(16, (30, 257), 8, 0.2), (0, (40,), 0, 0.0), (4, (), 3, 0.5), (0, (), 5, 0.0)],
)
@pytest.mark.parametrize("sizes", [(1, 7, 40, 300, 2048, 9), (3, 20)])
def test_export_hashes_equal_the_training_hashes(positions, offsets, tail, share, sizes):
    """Plain, shared-mean and split positional (hash, weight) pairs: the same multisets on both
    paths, also for a batch narrower than the offsets (the second sizes)."""
    x, lengths, _ = _batch(1, sizes)
    ngrams = (1, 2, 3, 6)
    kw = {"positions": positions, "position_share": share, "offsets": offsets, "tail": tail}
    h, w, ph, pv = ngram_hashes(x, lengths, ngrams, exact_ops=True, split=True, **kw)
    hf, wf, phf, pvf = ngram_hashes_fused(x, lengths, ngrams, split=True, **kw)
    fast = ngram_hashes(x, lengths, ngrams, split=True, **kw)
    for a, b in zip(fast, (h, w, ph, pv)):
        assert torch.equal(a, b)
    for b in range(x.shape[0]):
        for (th, tw), (fh, fw) in (((h, w), (hf, wf)), ((ph, pv), (phf, pvf))):
            loop = sorted(zip(th[b][tw[b] > 0].tolist(), tw[b][tw[b] > 0].tolist()))
            fused = sorted(zip(fh[b][fw[b] > 0].long().tolist(), fw[b][fw[b] > 0].tolist()))
            assert loop == fused
    # one positional n-gram per (n, place) that fits the row
    n_len = int(lengths[0 if len(sizes) == 2 else 3])
    row = 0 if len(sizes) == 2 else 3
    want = sum(
        sum(1 for p in (*range(positions), *offsets) if p <= n_len - n)
        + min(tail, max(0, n_len - n + 1))
        for n in ngrams
    )
    assert int(pv[row].sum()) == want
    assert int(buckets_of(phf, 1024, exact_ops=True).max()) < 1024


def _positional(data: bytes, **kw) -> set[int]:
    x, lengths = batch_windows([data])
    _, _, ph, pv = ngram_hashes(
        torch.from_numpy(x), torch.from_numpy(lengths), (5,), split=True, **kw
    )
    return set(ph[0][pv[0] > 0].tolist())


def test_offset_and_tail_hashes_name_the_place_not_the_file():
    """``ustar`` at 257 hashes the same in two files that differ elsewhere and differently one
    byte later; the last bytes hash by their distance from the end, whatever the length."""
    rng = np.random.default_rng(2)
    a, b = (rng.integers(0, 256, 600, dtype=np.uint8).tobytes() for _ in range(2))
    at = {"offsets": (257,)}
    tar_a = a[:257] + b"ustar" + a[262:]
    tar_b = b[:257] + b"ustar" + b[262:]
    assert _positional(tar_a, **at) == _positional(tar_b, **at)
    assert _positional(tar_a, **at) != _positional(b[:258] + b"ustar" + b[263:], **at)
    end = b"PK\x05\x06\x00"
    tail = {"tail": 1}
    assert _positional(a + end, **tail) == _positional(b[:100] + end, **tail)
    assert _positional(a + end, **tail) != _positional(a + end + b"\x00", **tail)


def test_position_heads_read_the_positional_mean_and_no_other_head_does():
    torch.manual_seed(0)
    spec = _spec()
    model = build_model(spec).eval()
    x, lengths, _ = _batch(3)
    with torch.no_grad():
        before = model(x, lengths, "small")
        real = model.position_features
        model.position_features = lambda tier, prepared, table: (
            real(tier, prepared, table) * -2.0 + 0.3
        )
        after = model(x, lengths, "small")
        del model.position_features
        for tier in spec.tiers:  # tier slices, and the export path, are the same function
            alone, _ = slice_tier(model, spec, tier)
            a = model(x, lengths, tier)
            alone.use_bag = False
            b = alone(x, lengths, tier)
            for h in spec.head_names:
                torch.testing.assert_close(a[h], b[h], rtol=1e-5, atol=1e-6)
    for h in spec.head_names:
        if h == "kind":
            assert not torch.allclose(before[h], after[h])
        else:
            torch.testing.assert_close(before[h], after[h], rtol=0, atol=0)
    widths = {h: lin.in_features for h, lin in model.heads.heads["small"].items()}
    assert widths == {"kind": 32, "lang": 16, "risk": 16}


def test_the_gather_path_mean_is_the_same_function():
    """Tables over EXPORT_BAG_ROWS are summed by a gather on export: same outputs."""
    torch.manual_seed(1)
    spec = _spec(buckets={"tiny": 512, "small": 16384}, position_share=0.0)
    model = build_model(spec).eval()
    x, lengths, _ = _batch(4)
    with torch.no_grad():
        a = model(x, lengths, "small")
        model.use_bag = False
        b = model(x, lengths, "small")
    for h in spec.head_names:
        torch.testing.assert_close(a[h], b[h], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("arch", "match"),
    [
        ({"position_heads": ["nope"]}, "position_heads"),
        ({"position_offsets": [257, 30]}, "position_offsets"),
        ({"position_offsets": [4]}, "position_offsets"),
        ({"position_offsets": [70000]}, "position_offsets"),
        ({"tail_positions": -1}, "tail_positions"),
        ({"tail_positions": True}, "tail_positions"),
        ({"positions": 0, "position_offsets": [], "tail_positions": 0}, "position_heads"),
    ],
)
def test_bad_positional_settings_are_refused(arch, match):
    with pytest.raises(SpecError, match=match):
        build_model(_spec(**arch))
