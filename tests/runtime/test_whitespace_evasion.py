"""Whitespace padding must not change an answer (a known evasion of Magika, which reads a fixed
block from the start and finds only whitespace there: its issues #1335, #1342, #1344).

The windows function strips leading and trailing whitespace before it takes the head and tail
windows (``picohead_runtime.windows``), so:

- always: a padded file's window is the unpadded file's window, read from disk or from bytes;
- slow: a toy model trained on the generated corpus keeps its ``kind`` on padded code samples;
- with the bundled content model: every head of every tier answers a padded file exactly as the
  unpadded one.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from picohead_runtime import Classifier, bundled_models
from picohead_runtime.windows import extract_window, read_window

PAD = (b" " * 60 + b"\n" + b"\t" * 3 + b"\r\n") * 128  # 8 KB of mixed whitespace
assert len(PAD) >= 8192


def _code_samples() -> list[bytes]:
    src = Path(__file__).resolve().parents[2] / "picohead"  # read as files: no import needed
    files = sorted(src.rglob("*.py"))
    return [f.read_bytes() for f in files if 512 <= f.stat().st_size <= 200_000][:40]


def test_a_padded_window_is_the_unpadded_window(clf, tmp_path):
    body = b"#include <stdio.h>\nint main(void) { return 0; }\n" * 20
    p = tmp_path / "padded.c"
    p.write_bytes(PAD + body + PAD)
    head, tail = clf.spec.window.head, clf.spec.window.tail
    window = read_window(p, head, tail)
    core = body.rstrip(b"\n")  # the final newline is trailing whitespace too
    assert window == extract_window(body, head, tail) == core[:head] + core[-tail:]
    assert clf.classify_path(p).heads == clf.classify_bytes(body).heads


@pytest.mark.slow
def test_trained_toy_model_is_not_flipped_to_text(tmp_path):
    pytest.importorskip("torch", reason="trains a toy model")
    from click.testing import CliRunner

    from picohead.cli import main
    from picohead.export import export_run
    from picohead.testing import write_toy_corpus

    corpus = write_toy_corpus(tmp_path / "toy", n_train=800, n_eval=200)
    run = tmp_path / "run"
    r = CliRunner().invoke(
        main,
        [
            "train",
            "--spec",
            str(corpus / "spec-steady.json"),
            "--data",
            str(corpus),
            "--out",
            str(run),
            "--steps",
            "300",
            "--batch-size",
            "32",
            "--eval-every",
            "100",
            "--cache",
            str(tmp_path / "cache"),
        ],
    )
    assert r.exit_code == 0, r.output
    export_run(run, tiers="tiny", out_dir=tmp_path / "onnx", precision="fp32", raise_on_fail=False)
    clf = Classifier(tmp_path / "onnx", tier="tiny")
    samples = []
    for line in (corpus / "test.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["labels"]["kind"] == "code":
            samples.append(base64.b64decode(rec["b64"]))
    plain = [clf.classify_bytes(s).label("kind") for s in samples]
    padded = [clf.classify_bytes(PAD + s).label("kind") for s in samples]
    was_code = [i for i, lab in enumerate(plain) if lab == "code"]
    assert len(was_code) > 0.8 * len(samples)
    flipped = [i for i in was_code if padded[i] == "text"]
    assert len(flipped) <= 0.05 * len(was_code), f"{len(flipped)}/{len(was_code)} flipped to text"


@pytest.mark.skipif(not bundled_models(), reason="needs the bundled content model")
@pytest.mark.parametrize("tier", ["tiny", "small", "base", "pro"])
def test_bundled_model_answers_padded_files_as_unpadded(tier):
    try:
        clf = Classifier(tier=tier)
    except Exception as e:  # a tier the bundle does not ship
        pytest.skip(str(e))
    for data in _code_samples():
        want = clf.classify_bytes(data).asdict()["heads"]
        for padded in (PAD + data, data + PAD, b"\n" * 1024 + data, data + b"\n" * 4096,
                       PAD * 8 + data + PAD * 8):  # up to 64 KB at each end
            assert clf.classify_bytes(padded).asdict()["heads"] == want


def test_a_model_that_skips_nul_runs_answers_nul_padding_as_the_unpadded_file(tiny_path, tmp_path):
    """A model whose spec sets ``window.skip_nul`` reads a file behind 1 KB of NULs as the file
    itself, from bytes, a path, a stream and in a batch; a model without it (every model trained
    before the key) still sees the NULs, as it was trained to."""
    import io

    from tests.runtime import toy_models

    def skip(doc):
        doc["spec"]["window"]["skip_nul"] = 64

    model = toy_models.rewrite_meta(tiny_path, tmp_path / "skip.onnx", skip)
    body = b"#include <stdio.h>\nint main(void) { return 0; }\n" * 20
    padded = b"\0" * 1024 + body
    p = tmp_path / "padded.bin"
    p.write_bytes(padded)
    on, off = Classifier(model), Classifier(tiny_path)
    assert on.spec.window.skip_nul == 64 and off.spec.window.skip_nul == 0
    want = on.classify_bytes(body).asdict()
    got = [on.classify_bytes(padded), on.classify_path(p), on.classify_stream(io.BytesIO(padded)),
           *on.classify_many_bytes([padded, body])]
    for r in got:
        d = r.asdict()
        d["path"] = want["path"]
        assert d == want
    assert off.classify_bytes(padded).asdict() != off.classify_bytes(body).asdict()
