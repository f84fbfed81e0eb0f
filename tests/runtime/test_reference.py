"""Golden parity: the checked-in reference model (``data/reference``, made by
``make_reference.py``) gives, through the runtime alone, the probabilities the torch model gave for
a fixed set of inputs (``expected.json``). Only the last test needs torch and picohead."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import toy_models

from picohead_runtime import Classifier, HeadResult
from picohead_runtime.model import load_model
from picohead_runtime.model_meta import INPUT_BYTES, INPUT_LENGTHS
from picohead_runtime.windows import batch_windows, extract_window

ATOL = 1e-5  # fp32 ONNX vs torch on the same weights
EXPECTED = toy_models.expected()
INPUTS = toy_models.reference_inputs()


def _windows(spec) -> tuple[np.ndarray, np.ndarray]:
    return batch_windows([extract_window(d, spec.window.head, spec.window.tail) for _, d in INPUTS])


def _assert_golden(tier: str, heads, probs) -> None:
    for head, got in zip(heads, probs):
        want = np.array(EXPECTED["expected"][tier][head.name], dtype=np.float32)
        assert got.shape == want.shape, head.name
        worst = int(np.abs(got - want).max(axis=1).argmax())
        np.testing.assert_allclose(
            got, want, atol=ATOL, rtol=0, err_msg=f"{tier}/{head.name}, input {INPUTS[worst][0]!r}"
        )


def test_reference_files_are_small() -> None:
    sizes = {f.name: f.stat().st_size for f in toy_models.reference_dir().iterdir()}
    assert set(sizes) == {"expected.json", "toy-tiny-fp32.onnx", "toy-small-fp32.onnx"}
    assert sum(sizes.values()) < 100_000, sizes


@pytest.mark.parametrize("tier", toy_models.TIERS)
def test_runtime_gives_the_golden_outputs(model_dir: Path, tier: str) -> None:
    loaded = load_model(model_dir / f"toy-{tier}-fp32.onnx")
    spec = loaded.meta.spec
    x, lengths = _windows(spec)
    probs = loaded.session.run(list(loaded.output_names), {INPUT_BYTES: x, INPUT_LENGTHS: lengths})
    _assert_golden(tier, spec.heads, probs)


@pytest.mark.parametrize("tier", toy_models.TIERS)
def test_classifier_answers_follow_the_golden_outputs(model_dir: Path, tier: str) -> None:
    clf = Classifier(model_dir, tier=tier, top_k=3)
    kind_head, _, risk_head = clf.spec.heads
    for i, (name, data) in enumerate(INPUTS):
        r = clf.classify_bytes(data)
        if not data:
            assert r.status == "empty" and not r.heads
            continue
        kind = r.heads["kind"]
        assert isinstance(kind, HeadResult), name
        want = EXPECTED["expected"][tier]["kind"][i]
        for label, score in kind.top_k:
            assert score == pytest.approx(want[kind_head.labels.index(label)], abs=ATOL), name
        assert kind.score == pytest.approx(max(want), abs=ATOL), name
        risk = EXPECTED["expected"][tier]["risk"][i]
        for j, label in enumerate(risk_head.labels):
            assert r.heads["risk"].scores[label] == pytest.approx(risk[j], abs=ATOL), name
        assert ("lang" in r.heads) == (kind.label == "code"), name


@pytest.mark.parametrize("tier", toy_models.TIERS)
def test_torch_still_gives_the_golden_outputs(tier: str) -> None:
    """Fails when the model code changed what the reference files hold: rerun
    ``python tests/runtime/make_reference.py`` and commit ``tests/runtime/data/reference``."""
    torch = pytest.importorskip("torch", reason="the torch side of the parity needs torch")
    pytest.importorskip("picohead", reason="the torch side of the parity needs picohead")
    from picohead.models import TierProbs

    model, spec = toy_models.torch_reference()
    x, lengths = _windows(spec)
    with torch.no_grad():
        probs = TierProbs(model, spec, tier)(torch.from_numpy(x), torch.from_numpy(lengths))
    _assert_golden(tier, spec.heads, [p.numpy() for p in probs])
