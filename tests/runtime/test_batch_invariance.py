"""Every bundled tier answers an input alone exactly as inside any batch (int8 weights, float
activations: no scale computed per call from the batch)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from picohead_runtime import Classifier, bundled_models

ROOT = Path(__file__).resolve().parents[2]


def _inputs() -> list[bytes]:
    src = sorted((ROOT / "picohead").rglob("*.py"))[:40]
    rng = random.Random(0)
    items = [p.read_bytes() for p in src]
    items += [b"{}", b"\0", b"hello", "Über Straßen fährt ein Auto.".encode(),
              bytes(rng.randrange(256) for _ in range(3000))]
    items += [b"password: " + bytes(rng.choice(b"abcdefXYZ0123!") for _ in range(12))]
    return items


@pytest.mark.skipif(not bundled_models(), reason="needs the bundled model")
@pytest.mark.parametrize("tier", ["tiny", "small", "base", "pro"])
def test_answers_do_not_depend_on_the_batch(tier: str) -> None:
    clf = Classifier(tier=tier, batch_size=16)
    items = _inputs()
    alone = [clf.classify_bytes(x) for x in items]
    for order in (items, list(reversed(items)), items[::2] + items[1::2]):
        together = {id(x): r for x, r in zip(order, clf.classify_many_bytes(order))}
        for x, a in zip(items, alone):
            b = together[id(x)]
            for name, ha in a.heads.items():
                hb = b.heads[name]
                if hasattr(ha, "raw"):
                    assert (ha.label, ha.raw) == (hb.label, hb.raw), (tier, name)
                    assert abs(ha.score - hb.score) < 1e-4
                else:
                    assert ha.labels == hb.labels, (tier, name)
                    assert all(abs(v - hb.scores[k]) < 1e-4 for k, v in ha.scores.items())
