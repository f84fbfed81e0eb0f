"""The positional mean that only the ``arch.position_heads`` read (the steady family), and the
retired offset and tail positions."""

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


@pytest.mark.parametrize(("positions", "share"), [(16, 0.2), (4, 0.5), (8, 0.0)])
@pytest.mark.parametrize("sizes", [(1, 7, 40, 300, 2048, 9), (3, 5)])
def test_split_hashes_are_the_same_on_both_paths(positions, share, sizes):
    """Shared-mean and split positional (hash, weight) pairs: the same multisets on the training
    and the export path, also for a batch narrower than the positions (the second sizes)."""
    x, lengths, _ = _batch(1, sizes)
    ngrams = (1, 2, 3, 6)
    kw = {"positions": positions, "position_share": share}
    h, w, ph, pv = ngram_hashes(x, lengths, ngrams, exact_ops=True, split=True, **kw)
    hf, wf, phf, pvf = ngram_hashes_fused(x, lengths, ngrams, split=True, **kw)
    fast = ngram_hashes(x, lengths, ngrams, split=True, **kw)
    for a, b in zip(fast, (h, w, ph, pv)):
        assert torch.equal(a, b)
    assert torch.equal(h, ngram_hashes(x, lengths, ngrams, exact_ops=True, **kw)[0])
    for b in range(x.shape[0]):
        for (th, tw), (fh, fw) in (((h, w), (hf, wf)), ((ph, pv), (phf, pvf))):
            loop = sorted(zip(th[b][tw[b] > 0].tolist(), tw[b][tw[b] > 0].tolist()))
            fused = sorted(zip(fh[b][fw[b] > 0].long().tolist(), fw[b][fw[b] > 0].tolist()))
            assert loop == fused
        # one positional n-gram per (n, offset) that fits the row, each of weight 1
        n_len = int(lengths[b])
        assert int(pv[b].sum()) == sum(
            1 for n in ngrams for p in range(positions) if p <= n_len - n
        )
    assert int(buckets_of(phf, 1024, exact_ops=True).max()) < 1024


def test_positional_hashes_name_the_offset_not_the_file():
    """A magic number at offset 0 hashes the same in two files that differ elsewhere, and
    differently one byte later."""
    rng = np.random.default_rng(2)
    a, b = (rng.integers(0, 256, 600, dtype=np.uint8).tobytes() for _ in range(2))

    def positional(data: bytes) -> set[int]:
        x, lengths = batch_windows([data])
        out = ngram_hashes(
            torch.from_numpy(x), torch.from_numpy(lengths), (4,), positions=8, split=True
        )
        return set(out[2][0][out[3][0] > 0].tolist())

    assert positional(b"%PDF" + a) & positional(b"%PDF" + b)
    assert not positional(b"%PDF" + a) & positional(b"x%PDF" + a)


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
        ({"positions": 0}, "position_heads"),
        ({"position_offsets": [30, 257]}, "retired"),
        ({"tail_positions": 24}, "retired"),
        ({"position_mean_offsets": [30, 257]}, "retired"),
        ({"position_mean_tail": 24}, "retired"),
    ],
)
def test_bad_positional_settings_are_refused(arch, match):
    with pytest.raises(SpecError, match=match):
        build_model(_spec(**arch))


def test_retired_offset_keys_are_read_at_their_off_value():
    """Run folders of the trial carry every key at its value; off is accepted, so they load."""
    build_model(_spec(position_offsets=[], tail_positions=0))
    build_model(_spec(position_mean_offsets=[], position_mean_tail=0))
