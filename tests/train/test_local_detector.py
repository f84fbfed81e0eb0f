"""The steady family's max-pooled local detector and the short-excerpt augmentation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from picohead.data import risk
from picohead.models import build_model, slice_tier
from picohead.models.steady import SHAPE_MAP, WORD_MAP, token_hashes
from picohead.testing import toy_spec
from picohead.train import (
    TrainConfig,
    augment_batch,
    augmenters,
    crop_batch,
    crop_relabellers,
    plant_batch,
    planters,
)
from picohead_runtime.spec import ModelSpec, SpecError
from picohead_runtime.windows import batch_windows

LOCAL = {
    "local_ngrams": [4, 8],
    "shape_ngrams": [3, 6],
    "token_lengths": 24,
    "local_buckets": 512,
    "local_dims": {"tiny": 4, "small": 8},
    "local_hidden": {"tiny": 0, "small": 12},
}


# Per-tier detector rows (arch.local_rows), with units on both tiers so both row counts run.
ROWS = {"local_rows": {"tiny": 128, "small": 512}, "local_hidden": {"tiny": 4, "small": 12}}
# Context offsets (arch.local_context): short ones, so the test windows' ends are crossed.
CTX = {"local_context": [3, 8]}


def local_spec(**extra: object) -> ModelSpec:
    d = toy_spec("steady")
    d["arch"] = {**d["arch"], **LOCAL, **extra}
    return ModelSpec.from_dict(d)


def _batch(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, list[bytes]]:
    rng = np.random.default_rng(seed)
    wins = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (1, 3, 7, 100, 256)]
    wins.append(b"contact: anna.schmidt@gmail.com, +1 (415) 555-0100")
    x, lengths = batch_windows(wins)
    return torch.from_numpy(x), torch.from_numpy(lengths), wins


def test_shape_map_folds_letters_and_digits_only():
    assert SHAPE_MAP[ord("q")] == ord("a") and SHAPE_MAP[ord("Q")] == ord("A")
    assert SHAPE_MAP[ord("7")] == ord("0") and SHAPE_MAP[200] == 128
    assert SHAPE_MAP[ord("@")] == ord("@") and SHAPE_MAP[ord("\n")] == ord("\n")


def test_word_map_folds_token_bytes_and_whitespace():
    assert {WORD_MAP[c] for c in b"aZ09_-"} == {ord("w")}
    assert {WORD_MAP[c] for c in b" \t\n\r"} == {ord(" ")}
    assert {WORD_MAP[c] for c in b".:=\"'@/\x00"} == {ord(".")} and WORD_MAP[200] == 128


def _tokens_by_hand(row: bytes, cap: int) -> dict[int, tuple[str, int, str]]:
    """{first byte of each token: (class before, length up to cap, class after or 'long')}."""

    def cls(i: int) -> str:
        if i < 0 or i >= len(row):
            return " "
        return chr(WORD_MAP[row[i]]) if WORD_MAP[row[i]] != 128 else "hi"

    out = {}
    for i in range(len(row)):
        if cls(i) == "w" and cls(i - 1) != "w":
            n = 0
            while cls(i + n) == "w" and n < cap:
                n += 1
            out[i] = (cls(i - 1), n, "long" if n == cap else cls(i + n))
    return out


@pytest.mark.parametrize("cap", [1, 5, 24, 64])
def test_token_hashes_hold_the_class_before_the_length_and_the_class_after(cap):
    """One valid hash per token, at its first byte; equal hashes exactly where a by-hand reading
    gives equal (class before, length up to the cap, class after); the padding never counts."""
    rng = np.random.default_rng(cap)
    alphabet = np.frombuffer(b"aZ9_-  \n.=@:\xc3", dtype=np.uint8)
    rows = [b"ghp_" + b"x" * 36, b"x=" + b"A" * 70 + b'"', b"", b"a", b"password = Passw0rd7822#"]
    rows += [rng.choice(alphabet, int(rng.integers(1, 120))).tobytes() for _ in range(30)]
    x, lengths = (torch.from_numpy(a) for a in batch_windows(rows))
    x[lengths == 0] = 0
    for r, row in enumerate(rows):
        x[r, len(row) :] = ord("Z")  # token bytes in the padding must not lengthen a token
    words = torch.from_numpy(WORD_MAP)[x.long()]
    h, valid = token_hashes(words, lengths, cap, 80)
    assert h.shape == (1, *x.shape) and valid.shape == h.shape
    seen: dict[tuple[str, int, str], int] = {}
    for r, row in enumerate(rows):
        want = _tokens_by_hand(row, cap)
        assert sorted(torch.nonzero(valid[0, r]).flatten().tolist()) == sorted(want)
        for i, key in want.items():
            value = int(h[0, r, i])
            assert 0 <= value < 2**31
            assert seen.setdefault(key, value) == value, key
    assert len(set(seen.values())) == len(seen)  # different readings, different hashes


def test_detector_widens_only_the_tiers_that_have_it():
    torch.manual_seed(0)
    spec = local_spec()
    model = build_model(spec).eval()
    x, lengths, _ = _batch()
    with torch.no_grad():
        tiny = model.features(x, lengths, "tiny")
        small = model.features(x, lengths, "small")
    assert tiny.shape == (len(lengths), 8)  # dims.tiny, no detector (local_hidden 0)
    assert small.shape == (len(lengths), 16 + 12)
    assert bool((small[:, 16:] >= 0).all())  # max of ReLU units


@pytest.mark.parametrize("extra", [{}, ROWS, {**ROWS, **CTX}],
                         ids=["shared-rows", "rows-per-tier", "context"])
def test_slices_and_padding_are_exact_with_the_detector(extra):
    torch.manual_seed(0)
    spec = local_spec(**extra)
    model = build_model(spec).eval()
    x, lengths, wins = _batch(1)
    with torch.no_grad():
        for tier in spec.tiers:
            alone_model, _ = slice_tier(model, spec, tier)
            full, sliced = model(x, lengths, tier), alone_model(x, lengths, tier)
            for h in spec.head_names:
                torch.testing.assert_close(full[h], sliced[h], rtol=0, atol=0)
            for i, w in enumerate(wins):
                noisy = x[i : i + 1].clone()
                noisy[0, len(w) :] = 0xFF  # garbage, not zeros, in the padding
                xi, li = batch_windows([w])
                a = model(torch.from_numpy(xi), torch.from_numpy(li), tier)
                b = model(noisy, lengths[i : i + 1], tier)
                for h in spec.head_names:
                    torch.testing.assert_close(a[h], full[h][i : i + 1], rtol=0, atol=1e-6)
                    torch.testing.assert_close(b[h], full[h][i : i + 1], rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "extra, tier, sums",
    [({}, "small", 1), (ROWS, "small", 2), (ROWS, "tiny", 2), (CTX, "small", 1),
     ({**ROWS, **CTX}, "tiny", 2)],
    ids=["shared-rows", "rows-per-tier-small", "rows-per-tier-tiny", "context-small",
         "context-tiny"],
)
def test_training_shortcut_has_the_values_and_gradients_of_amax(extra, tier, sums):
    torch.manual_seed(0)
    spec = local_spec(**extra)
    fast = build_model(spec).train()
    plain = build_model(spec).train()
    plain.load_state_dict(fast.state_dict())
    x, lengths, _ = _batch(2)
    prepared = fast.prepare(x, lengths)
    # mean hashes + detector hashes, validity, per-position sums (one per detector row count)
    assert len(prepared) == 4 + sums
    a = fast.local_features(x, lengths, tier, tuple(prepared[2:]))
    b = plain.local_features(x, lengths, tier)  # plain amax over every position
    torch.testing.assert_close(a, b, rtol=0, atol=1e-6)
    w = torch.randn_like(a)
    (a * w).sum().backward()
    (b * w).sum().backward()
    for (name, p), q in zip(fast.named_parameters(), plain.parameters()):
        if p.grad is None and q.grad is None:
            continue
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-6, msg=name)


def test_detector_config_is_checked():
    d = toy_spec("steady")
    d["arch"] = {**d["arch"], **LOCAL, "local_buckets": 500}
    with pytest.raises(SpecError, match="local_buckets"):
        build_model(ModelSpec.from_dict(d))
    d["arch"] = {**d["arch"], **LOCAL, "local_hidden": {"tiny": 8, "small": 4}}
    with pytest.raises(SpecError, match="local_hidden.small"):
        build_model(ModelSpec.from_dict(d))
    d["arch"] = {**d["arch"], **LOCAL, "local_rows": {"tiny": 128, "small": 300}}
    with pytest.raises(SpecError, match="local_rows.small"):
        build_model(ModelSpec.from_dict(d))
    d["arch"] = {**d["arch"], **LOCAL, "local_rows": {"small": 128}}
    with pytest.raises(SpecError, match="local_rows"):
        build_model(ModelSpec.from_dict(d))
    d["arch"] = {**d["arch"], **LOCAL, "token_lengths": -1}
    with pytest.raises(SpecError, match="token_lengths"):
        build_model(ModelSpec.from_dict(d))
    for bad in ([0], [8, 8], [65], [True], ["8"]):
        d["arch"] = {**toy_spec("steady")["arch"], **LOCAL, "local_context": bad}
        with pytest.raises(SpecError, match="local_context"):
            build_model(ModelSpec.from_dict(d))


def test_context_lets_a_unit_read_bytes_past_its_n_grams():
    """With arch.local_context [12], the detector's units at one position change with the bytes
    14-21 bytes after it, past the 8-byte raw and 6-byte shape n-grams starting there; without
    context they cannot (only n-grams starting at a position reach its units)."""
    torch.manual_seed(0)
    for extra, moves in (({"local_context": [12]}, True), ({}, False)):
        model = build_model(local_spec(**extra)).eval()
        cfg = model.cfg
        base = torch.tensor([list(b"password: aaaaaaaaaaaaaaaaaaaaaaaa")], dtype=torch.uint8)
        changed = base.clone()
        changed[0, 14:22] = torch.tensor(list(b"x9#Q!z7%"), dtype=torch.uint8)
        lengths = torch.tensor([base.shape[1]])
        dim, units, rows = cfg.local_dims["small"], cfg.local_hidden["small"], 512
        with torch.no_grad():
            idx_a, valid_a = model._local_buckets(base, lengths, rows)
            idx_b, valid_b = model._local_buckets(changed, lengths, rows)
            from picohead.models.steady import _per_position

            table = model.local_table[:rows, :dim]
            a = model._units(_per_position(idx_a, valid_a, table), units)[0, 0]
            b = model._units(_per_position(idx_b, valid_b, table), units)[0, 0]
        assert (not torch.equal(a, b)) is moves


def test_crop_batch_cuts_excerpts_and_drops_labels_they_cannot_back():
    wins = [bytes(range(65, 65 + 60)) * 10, b"x" * 5, bytes(range(32, 127)) * 4]
    x, lengths = batch_windows(wins)
    x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
    orig = x.clone()
    labels = (
        {"mime": np.array([1, 2, 3]), "text_lang": np.array([0, -1, 4]), "risk": np.zeros((3, 2))},
        {k: np.ones(3, dtype=bool) for k in ("mime", "text_lang", "risk")},
    )
    cfg = TrainConfig(crop_prob=1.0, crop_min=8, crop_max=32)
    x, lengths = crop_batch(x, lengths, labels, cfg, np.random.default_rng(0), {"risk"})
    masks = labels[1]
    assert int(lengths[1]) == 5 and masks["mime"][1] and masks["risk"][1]  # too short: untouched
    for r in (0, 2):
        k = int(lengths[r])
        assert 8 <= k <= 32 and bool((x[r, k:] == 0).all())
        src = bytes(orig[r, : len(wins[r])].numpy())
        assert bytes(x[r, :k].numpy()) in src  # a contiguous excerpt of the sample
        assert not masks["risk"][r] and masks["text_lang"][r]
        at_start = src.startswith(bytes(x[r, :k].numpy()))
        assert masks["mime"][r] == at_start or at_start  # only start-anchored cuts keep mime


def test_crop_batch_relabels_risk_from_the_excerpt():
    """With ``crop_relabel``, a crop keeps a flag only where the detector still sees it, and a
    crop of a row flagged phone where the detector reads no number is left unlabelled, not negative."""
    names = ("api_key", "jwt", "private_key", "password", "email", "phone")
    key = b'TOKEN = "ghp_' + b"a1B2" * 9 + b'"\n'
    wins = [key * 4, b"plain words and nothing else " * 8, b"call +44 20 7946 0958 today " * 8]
    x, lengths = batch_windows(wins)
    x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
    y = np.zeros((3, len(names)), dtype=np.float32)
    y[0, 0] = y[2, 5] = 1
    spec = ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [{"name": "risk", "kind": "multilabel", "labels": list(names)}]}
    )
    cfg = TrainConfig(crop_prob=1.0, crop_min=8, crop_max=60,
                      crop_relabel={"risk": "picohead.data.risk:relabel_excerpt"})
    relabel = crop_relabellers(spec, cfg)
    seen = set()
    for seed in range(40):
        xb, lb = x.clone(), lengths.clone()
        lab = ({"risk": y.copy()}, {"risk": np.ones(3, dtype=bool)})
        xb, lb = crop_batch(xb, lb, lab, cfg, np.random.default_rng(seed), {"risk"}, relabel)
        crop0 = bytes(xb[0, : int(lb[0])].numpy())
        has_key = b"ghp_" + b"a1B2" * 9 in crop0
        assert lab[1]["risk"][0] and lab[0]["risk"][0, 0] == float(has_key)
        seen.add(has_key)
        assert lab[1]["risk"][1] and not lab[0]["risk"][1].any()  # clean stays clean
        crop2 = bytes(xb[2, : int(lb[2])].numpy())  # phone: labelled where the detector reads one
        assert lab[1]["risk"][2] == ("phone" in risk.detect(crop2))  # else unknown on the crop
    assert seen == {True, False}  # both kinds of crop happened
    bad = TrainConfig(crop_relabel={"mime": "picohead.data.risk:relabel_excerpt"})
    with pytest.raises(ValueError, match="not a multilabel head"):
        crop_relabellers(ModelSpec.from_dict(toy_spec("steady")), bad)
    missing = TrainConfig(crop_relabel={"risk": "picohead.data.risk:no_such_function"})
    with pytest.raises(ValueError, match="cannot load"):
        crop_relabellers(spec, missing)


def test_augment_batch_rewrites_flagged_rows_only():
    """``augment`` rewrites the rows flagged in its head (same length, same labels) and leaves
    unflagged or unlabelled rows alone; a bad setting fails before training."""
    names = ("api_key", "jwt", "private_key", "password", "email", "phone")
    key = b'TOKEN = "ghp_' + b"a1B2" * 9 + b'"\n'
    wins = [key * 3, key * 3, key * 3, b"plain words " * 8]
    x, lengths = (torch.from_numpy(a) for a in batch_windows(wins))
    y = np.zeros((4, len(names)), dtype=np.float32)
    y[0, 0] = y[1, 0] = 1  # row 2 carries the key but is labelled clean; row 1 is unlabelled
    mask = np.array([True, False, True, True])
    spec = ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [{"name": "risk", "kind": "multilabel", "labels": list(names)}]}
    )
    cfg = TrainConfig(augment={"risk": "picohead.data.risk:refresh_secrets"})
    aug = augmenters(spec, cfg)
    orig = x.clone()
    lab = ({"risk": y.copy()}, {"risk": mask.copy()})
    assert augment_batch(x, lengths, lab, aug, 1.0, np.random.default_rng(0)) == 1
    row0 = bytes(x[0, : int(lengths[0])].numpy())
    assert row0 != wins[0] and row0.count(b'TOKEN = "ghp_') == 3 and len(row0) == len(wins[0])
    assert torch.equal(x[1:], orig[1:]) and (lab[0]["risk"] == y).all()
    assert augment_batch(x, lengths, lab, aug, 0.0, np.random.default_rng(0)) == 0
    with pytest.raises(ValueError, match="not a multilabel head"):
        augmenters(spec, TrainConfig(augment={"mime": "picohead.data.risk:refresh_secrets"}))
    with pytest.raises(ValueError, match="augment_prob"):
        augmenters(spec, TrainConfig(augment_prob=1.5))


def test_local_heads_route_the_detector_to_the_named_heads_only():
    torch.manual_seed(0)
    d = toy_spec("steady")
    d["arch"] = {**d["arch"], **LOCAL, "local_heads": ["risk"]}
    spec = ModelSpec.from_dict(d)
    model = build_model(spec).eval()
    x, lengths, _ = _batch(3)
    with torch.no_grad():
        before = model(x, lengths, "small")
        model.local_table.mul_(-3.0).add_(0.5)  # a different detector
        after = model(x, lengths, "small")
        for tier in spec.tiers:  # slicing stays exact with routed heads
            alone, _ = slice_tier(model, spec, tier)
            a, b = model(x, lengths, tier), alone(x, lengths, tier)
            for h in spec.head_names:
                torch.testing.assert_close(a[h], b[h], rtol=0, atol=0)
    for h in spec.head_names:
        if h == "risk":
            assert not torch.allclose(before[h], after[h])
        else:
            torch.testing.assert_close(before[h], after[h], rtol=0, atol=0)
    d["arch"]["local_heads"] = ["nope"]
    with pytest.raises(SpecError, match="local_heads"):
        build_model(ModelSpec.from_dict(d))


def test_a_tier_without_detector_units_carries_no_detector_weights():
    spec = local_spec()  # local_hidden.tiny == 0
    model = build_model(spec)
    tiny, _ = slice_tier(model, spec, "tiny")
    names = {n for n, _ in tiny.named_parameters()}
    assert not any(n.startswith("local_") for n in names), names
    small, _ = slice_tier(model, spec, "small")
    assert any(n.startswith("local_") for n in dict(small.named_parameters()))


@pytest.mark.parametrize("extra", [{}, CTX], ids=["plain", "context"])
def test_export_path_detector_hashes_and_outputs_match_training_path(extra):
    """The fused (Conv + float64 MatMul) detector hashes: the loop's bucket at every valid
    position, the same validity, and the same head outputs."""
    torch.manual_seed(0)
    spec = local_spec(**extra)
    model = build_model(spec).eval()
    x, lengths, _ = _batch(2)
    with torch.no_grad():
        idx_a, valid_a = model._local_buckets(x, lengths, 512)
        out_a = model(x, lengths, "small")
        model.use_bag = False
        idx_b, valid_b = model._local_buckets(x, lengths, 512)
        out_b = model(x, lengths, "small")
    assert torch.equal(valid_a, valid_b)
    assert torch.equal(idx_a[valid_a], idx_b[valid_b])
    for h in spec.head_names:
        torch.testing.assert_close(out_a[h], out_b[h], atol=1e-5, rtol=1e-4)


def test_plant_batch_plants_into_clean_rows_and_sets_their_labels():
    """``plant`` rewrites labelled rows without a flag (same length) and sets the labels its
    function returns; flagged and unlabelled rows stay as they are."""
    names = ("api_key", "jwt", "private_key", "password", "email", "phone")
    # ~2.2 KB, a full head+tail window: any planted line (JWTs with a key id reach ~400 bytes)
    # fits in a quarter of it
    host = b"".join(b"some plain words on line %d\n" % i for i in range(80))
    wins = [host, host, host, host]
    x, lengths = (torch.from_numpy(a) for a in batch_windows(wins))
    y = np.zeros((4, len(names)), dtype=np.float32)
    y[1, 4] = 1  # row 1 is flagged; row 2 is unlabelled
    mask = np.array([True, True, False, True])
    spec = ModelSpec.from_dict(
        {**toy_spec("steady"), "heads": [{"name": "risk", "kind": "multilabel", "labels": list(names)}]}
    )
    plant = planters(spec, TrainConfig(plant={"risk": "picohead.data.risk:plant_secret"}))
    orig = x.clone()
    flagged = 0
    for seed in range(30):
        xb, lab = orig.clone(), ({"risk": y.copy()}, {"risk": mask.copy()})
        assert plant_batch(xb, lengths, lab, plant, 1.0, np.random.default_rng(seed)) == 2
        assert torch.equal(xb[1:3], orig[1:3]) and (lab[0]["risk"][1:3] == y[1:3]).all()
        for r in (0, 3):
            row = bytes(xb[r, : int(lengths[r])].numpy())
            assert len(row) == len(host) and row != host
            got = {n for n, v in zip(names, lab[0]["risk"][r]) if v > 0.5}
            assert got - {"phone"} == set(risk.detect(row)) - {"phone"}
            flagged += bool(got)
    assert 0 < flagged < 60  # secrets and negatives both
    assert plant_batch(x, lengths, ({"risk": y.copy()}, {"risk": mask.copy()}), plant, 0.0,
                       np.random.default_rng(0)) == 0
    with pytest.raises(ValueError, match="not a multilabel head"):
        planters(spec, TrainConfig(plant={"mime": "picohead.data.risk:plant_secret"}))
    with pytest.raises(ValueError, match="plant_prob"):
        planters(spec, TrainConfig(plant_prob=-0.1))
