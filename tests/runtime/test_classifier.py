"""The Classifier API on an exported toy model: every input kind agrees, batching and threads
change nothing, the runtime matches torch, and random bytes never crash it."""

import io
import os
import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from picohead_runtime import Classifier, HeadResult, MultilabelResult
from picohead_runtime.classifier import read_stream_window
from picohead_runtime.windows import batch_windows, extract_window

HEAD = TAIL = 128
SIZES = [1, 2, 100, 255, 256, 257, 1000, 5000]


def _content(n, seed=0):
    rng = random.Random(seed)
    words = [
        b"def ",
        b"return ",
        b"the ",
        b"import ",
        b"\x00\xff",
        b"\n",
        b"{",
        b"}",
        b"email@x.com ",
    ]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words)
    return bytes(out[:n])


class _Pipe(io.RawIOBase):
    """A non-seekable binary stream that returns short reads."""

    def __init__(self, data):
        self._buf = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, b):
        chunk = self._buf.read(min(len(b), 7))
        b[: len(chunk)] = chunk
        return len(chunk)


def test_loaded_model_properties(clf, model_dir):
    assert clf.tier == "tiny" and clf.device == "cpu"
    assert clf.spec.head_names == ("kind", "lang", "risk")
    assert clf.model_name == "toy" and clf.providers == ("CPUExecutionProvider",)
    assert clf.model_path.endswith("toy-tiny-fp32.onnx")
    assert Classifier(model_dir).tier == "small"  # the folder default


@pytest.mark.parametrize("n", SIZES)
def test_bytes_path_stream_agree(clf, tmp_path, n):
    data = _content(n, seed=n)
    p = tmp_path / "f.bin"
    p.write_bytes(data)
    by_bytes = clf.classify_bytes(data)
    by_path = clf.classify_path(p)
    by_stream = clf.classify_stream(io.BytesIO(data))
    by_pipe = clf.classify_stream(io.BufferedReader(_Pipe(data)))
    assert by_bytes.heads == by_path.heads == by_stream.heads == by_pipe.heads
    assert by_path.path == str(p) and by_bytes.path is None
    assert clf.classify_stream(io.BytesIO(data), path="x").path == "x"


def test_stream_from_current_position(clf):
    data = _content(3000)
    s = io.BytesIO(b"IGNORED PREFIX" + data)
    s.seek(len(b"IGNORED PREFIX"))
    assert clf.classify_stream(s).heads == clf.classify_bytes(data).heads


def test_text_stream_is_a_clear_error(clf):
    with pytest.raises(TypeError, match="binary stream"):
        clf.classify_stream(io.StringIO("hello"))


@given(
    n=st.integers(0, 20_000),
    head=st.integers(0, 300),
    tail=st.integers(0, 300),
    seekable=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_stream_window_equals_extract_window(n, head, tail, seekable):
    data = os.urandom(n)
    stream = io.BytesIO(data) if seekable else io.BufferedReader(_Pipe(data))
    assert read_stream_window(stream, head, tail) == extract_window(data, head, tail)


def test_empty_inputs(clf):
    assert clf.classify_bytes(b"").status == "empty"
    assert clf.classify_stream(io.BytesIO(b"")).status == "empty"
    assert list(clf.classify_many_bytes([b"", b"x"]))[0].status == "empty"


@pytest.mark.parametrize("batch_size", [1, 3, 64])
@pytest.mark.parametrize("threads", [1, 2])
def test_classify_paths_equals_one_by_one(model_dir, tmp_path, batch_size, threads):
    clf = Classifier(model_dir, tier="tiny", batch_size=batch_size, threads=threads)
    paths = []
    for i, n in enumerate(SIZES * 2):
        p = tmp_path / f"f{i}"
        p.write_bytes(_content(n, seed=i))
        paths.append(p)
    paths.insert(3, tmp_path / "missing")
    paths.insert(5, tmp_path)
    with clf:
        batched = list(clf.classify_paths(iter(paths)))  # any iterable, consumed lazily
    single = [clf.classify_path(p) for p in paths]
    assert [r.path for r in batched] == [str(p) for p in paths]
    for b, s in zip(batched, single):
        assert b.status == s.status
        _assert_heads_close(b.heads, s.heads)


@pytest.mark.parametrize("threads", [1, 3])
def test_classify_many_bytes_matches_classify_bytes(model_dir, threads):
    items = [_content(n, seed=n) for n in SIZES * 3]
    with Classifier(model_dir, tier="tiny", batch_size=2, threads=threads) as clf:
        many = list(clf.classify_many_bytes(iter(items)))
    assert len(many) == len(items)
    for r, data in zip(many, items):
        _assert_heads_close(r.heads, clf.classify_bytes(data).heads)


def test_eight_threads_sharing_one_classifier_equal_serial(clf, tmp_path):
    paths = []
    for i in range(64):
        p = tmp_path / f"f{i}"
        p.write_bytes(_content(50 + 97 * i, seed=i))
        paths.append(p)
    serial = [clf.classify_path(p).asdict() for p in paths]
    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            threaded = list(pool.map(lambda p: clf.classify_path(p).asdict(), paths))
            assert threaded == serial
        chunks = [paths[i::8] for i in range(8)]
        batched = list(pool.map(lambda ps: [r.asdict() for r in clf.classify_paths(ps)], chunks))
    by_path = {d["path"]: d for chunk in batched for d in chunk}
    for d in serial:
        _assert_heads_close(by_path[d["path"]]["heads"], d["heads"])


@given(
    data=st.one_of(
        st.binary(max_size=4096),
        st.tuples(st.integers(0, 1 << 20), st.integers(0, 2**32 - 1)).map(
            lambda t: random.Random(t[1]).randbytes(t[0])
        ),
    )
)
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_random_bytes_never_crash(clf, data):
    r = clf.classify_bytes(data)
    if not data:
        assert r.status == "empty"
        return
    assert r.ok and "kind" in r.heads and "risk" in r.heads
    kind = r.heads["kind"]
    assert isinstance(kind, HeadResult) and 0.0 <= kind.score <= 1.0
    assert sum(p for _, p in kind.top_k) <= 1.0 + 1e-5
    risk = r.heads["risk"]
    assert isinstance(risk, MultilabelResult)
    assert all(0.0 <= p <= 1.0 for p in risk.scores.values())
    assert ("lang" in r.heads) == (kind.label == "code")


def test_runtime_matches_torch(model_dir):
    """Windows + lengths + session + decoding reproduce the torch model's probabilities."""
    torch = pytest.importorskip("torch", reason="compares with the torch model")
    pytest.importorskip("picohead", reason="builds the torch model with picohead.models")
    import toy_models

    from picohead.models import TierProbs

    model, spec = toy_models.torch_reference()
    clf = Classifier(model_dir, tier="small", top_k=3)
    items = [_content(n, seed=n) for n in SIZES]
    wins = [extract_window(d, spec.window.head, spec.window.tail) for d in items]
    x, lengths = batch_windows(wins)
    with torch.no_grad():
        ref = TierProbs(model, spec, "small")(torch.from_numpy(x), torch.from_numpy(lengths))
    kind_ref, _, risk_ref = (t.numpy() for t in ref)
    for i, data in enumerate(items):
        r = clf.classify_bytes(data)
        kind = r.heads["kind"]
        order = np.argsort(-kind_ref[i], kind="stable")
        assert kind.raw == spec.heads[0].labels[order[0]]
        got = dict(kind.top_k)
        for j in order:
            assert got[spec.heads[0].labels[j]] == pytest.approx(float(kind_ref[i, j]), abs=1e-4)
        for j, lab in enumerate(spec.heads[2].labels):
            assert r.heads["risk"].scores[lab] == pytest.approx(float(risk_ref[i, j]), abs=1e-4)


def test_top_k_argument(model_dir):
    clf = Classifier(model_dir, tier="tiny", top_k=1)
    assert len(clf.classify_bytes(b"abc").heads["kind"].top_k) == 1


def _assert_heads_close(a, b):
    """Batched and single runs may differ in the last float bits (padding changes the kernels)."""
    a = {k: (v.asdict() if hasattr(v, "asdict") else v) for k, v in a.items()}
    b = {k: (v.asdict() if hasattr(v, "asdict") else v) for k, v in b.items()}
    assert a.keys() == b.keys()
    for name in a:
        x, y = a[name], b[name]
        if "labels" in x:
            assert x["scores"] == pytest.approx(y["scores"], abs=1e-5)
        else:
            assert x["raw"] == y["raw"] and x["label"] == y["label"]
            assert x["score"] == pytest.approx(y["score"], abs=1e-5)


def test_batching_never_changes_a_result(model_dir, tmp_path):
    """Windows are padded to a fixed width per length (powers of two), alone or in any batch, so
    with an fp32 graph a file's result is bit-identical however it is batched."""
    paths = []
    for i, n in enumerate([1, 40, 63, 64, 65, 200, 256, 257, 1000, 5000] * 3):
        p = tmp_path / f"f{i}"
        p.write_bytes(_content(n, seed=i))
        paths.append(p)
    clf1 = Classifier(model_dir, tier="tiny", batch_size=1)
    single = [clf1.classify_path(p).asdict() for p in paths]
    for bs in (2, 7, 32):
        clf = Classifier(model_dir, tier="tiny", batch_size=bs)
        assert [r.asdict() for r in clf.classify_paths(paths)] == single
        data = [p.read_bytes() for p in paths]
        got = [r.heads for r in clf.classify_many_bytes(data)]
        assert got == [clf1.classify_bytes(d).heads for d in data]
