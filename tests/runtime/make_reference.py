"""Make the runtime tests' reference model: ``python tests/runtime/make_reference.py``.

Writes ``tests/runtime/data/reference/``: ``toy-tiny-fp32.onnx`` and ``toy-small-fp32.onnx`` (a
random-initialised toy ``steady`` model, seed 0, exported at fp32 with ``picohead export``'s
code and its parity gates) and ``expected.json``: a fixed set of inputs and, per tier, the
probabilities the *torch* model gives for their windows (the golden outputs
``test_reference.py`` checks the runtime against, without torch).

Needs torch and the ``picohead`` training package; the tests that read these files need neither.
Rerun it when the model code, the exporter or the metadata format changes in a way that makes
``test_reference.py::test_torch_still_gives_the_golden_outputs`` fail, and commit the files.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import toy_models  # this script's folder is on sys.path when it runs; pytest's pythonpath in tests

OUT = toy_models.REFERENCE_DIR


def reference_inputs() -> list[tuple[str, bytes]]:
    """Named inputs covering empty, short, exactly-one-window and longer-than-window content."""
    rng = random.Random(toy_models.SEED)
    code = b"import os\n\ndef main(argv):\n    return len(argv)\n" * 40
    text = ("The quick brown fox jumps over the lazy dog. " * 30).encode()
    return [
        ("empty", b""),
        ("one_byte", b"a"),
        ("python", b"def f(x):\n    return x * 2\n"),
        ("c", b"#include <stdio.h>\nint main(void) { return 0; }\n"),
        ("javascript", b"const x = require('fs');\nfunction f(a) { return a; }\n"),
        ("text", "Über Straßen fährt ein Auto, and the weather is fine.".encode()),
        ("png", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(300))),
        ("random_256", bytes(rng.randrange(256) for _ in range(256))),
        ("random_257", bytes(rng.randrange(256) for _ in range(257))),
        ("secret", b"password = 'hunter2hunter2'\napi_key = 'AKIAXXXXXXXXXXXXXXXX'\n"),
        ("long_code", code),
        ("long_text", text),
        ("nul", b"\0" * 300),
        ("whitespace", b"   \n\n\t  x = 1\n\n\n   "),
    ]


def main() -> None:
    import torch

    from picohead.export import export_tier
    from picohead.models import TierProbs
    from picohead_runtime.windows import batch_windows, extract_window

    model, spec = toy_models.torch_reference()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.onnx"):
        old.unlink()
    for tier in spec.tiers:
        export_tier(model, spec, tier, out=OUT, precision="fp32", latency_runs=1)

    inputs = reference_inputs()
    wins = [extract_window(d, spec.window.head, spec.window.tail) for _, d in inputs]
    x, lengths = batch_windows(wins)
    expected: dict[str, dict[str, list[list[float]]]] = {}
    with torch.no_grad():
        for tier in spec.tiers:
            probs = TierProbs(model, spec, tier)(torch.from_numpy(x), torch.from_numpy(lengths))
            expected[tier] = {
                h.name: [[round(float(v), 7) for v in row] for row in p.numpy()]
                for h, p in zip(spec.heads, probs)
            }
    doc = {
        "made_by": "python tests/runtime/make_reference.py",
        "seed": toy_models.SEED,
        "torch": torch.__version__,
        "inputs": [
            {"name": name, "base64": base64.b64encode(data).decode()} for name, data in inputs
        ],
        "expected": expected,
    }
    (OUT / "expected.json").write_text(json.dumps(doc, indent=1) + "\n")
    for f in sorted(OUT.iterdir()):
        print(f"{f.relative_to(Path.cwd()) if f.is_relative_to(Path.cwd()) else f}  "
              f"{f.stat().st_size:,} B")


if __name__ == "__main__":
    main()
