"""A small generated corpus with real, learnable signal, for tests and demos only.

Three heads: ``kind`` (code / text / binary), ``lang`` (python / javascript / c, gated on
``kind == code``) and ``risk`` (multilabel: email, api_key). Samples are assembled from
per-class vocabularies with random identifiers, lengths and filler, so a model has to learn byte
patterns, not memorise files. Train/val/test use disjoint "sources". This is not training data for
real models: the content model is trained on the real corpus built by ``picohead data build``.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

_CODE = {
    "python": [
        "def {i}({j}):",
        "    return {j}",
        "import {i}",
        "from {i} import {j}",
        "class {I}:",
        "    self.{i} = {j}",
        "if __name__ == '__main__':",
        "for {i} in range({n}):",
        "    pass",
    ],
    "javascript": [
        "function {i}({j}) {{",
        "  return {j};",
        "}}",
        "const {i} = require('{j}');",
        "let {i} = {n};",
        "export default {i};",
        "console.log({i});",
        "=> {{",
    ],
    "c": [
        "#include <{i}.h>",
        "int {i}(int {j}) {{",
        "    return {j};",
        "}}",
        "static void {i}(void);",
        "int main(int argc, char **argv) {{",
        '    printf("%d\\n", {i});',
        "struct {i} *{j};",
    ],
}
_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no"
).split()


def toy_spec(family: str = "bytes", *, window: int = 256) -> dict[str, Any]:
    arch: dict[str, Any]
    if family == "bytes":
        arch = {
            "widths": {"tiny": 16, "small": 32},
            "stride": 8,
            "head_dim": 8,
            "dilations": [1, 2],
        }
    else:
        arch = {
            "buckets": {"tiny": 1024, "small": 4096},
            "dims": {"tiny": 8, "small": 16},
            "ngrams": [1, 2, 3, 4],
        }
    return {
        "name": "toy",
        "family": family,
        "window": {"head": window // 2, "tail": window // 2},
        "tiers": ["tiny", "small"],
        "heads": [
            {"name": "kind", "kind": "softmax", "labels": ["code", "text", "binary"]},
            {
                "name": "lang",
                "kind": "softmax",
                "labels": ["python", "javascript", "c"],
                "gate": {"head": "kind", "labels": ["code"]},
            },
            {"name": "risk", "kind": "multilabel", "labels": ["email", "api_key"]},
        ],
        "arch": arch,
    }


def _ident(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8)))


def _sample(rng: random.Random) -> tuple[bytes, dict[str, Any]]:
    kind = rng.choice(["code", "code", "text", "binary"])
    labels: dict[str, Any] = {"kind": kind}
    if kind == "binary":
        magic = rng.choice([b"\x89PNG\r\n\x1a\n", b"PK\x03\x04", b"\x7fELF\x02\x01\x01"])
        body = bytes(rng.getrandbits(8) for _ in range(rng.randint(16, 300)))
        return magic + body, labels
    if kind == "code":
        lang = rng.choice(list(_CODE))
        labels["lang"] = lang
        lines = [
            rng.choice(_CODE[lang]).format(
                i=_ident(rng), j=_ident(rng), I=_ident(rng).title(), n=rng.randint(0, 99)
            )
            for _ in range(rng.randint(3, 14))
        ]
    else:
        lines = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 12))).capitalize() + "."
            for _ in range(rng.randint(1, 6))
        ]
    risk = []
    if rng.random() < 0.3:
        lines.insert(rng.randint(0, len(lines)), f'contact = "{_ident(rng)}@{_ident(rng)}.com"')
        risk.append("email")
    if rng.random() < 0.3:
        key = "sk_live_" + "".join(
            rng.choice(string.ascii_letters + string.digits) for _ in range(24)
        )
        lines.insert(rng.randint(0, len(lines)), f"API_KEY = '{key}'")
        risk.append("api_key")
    labels["risk"] = risk
    return ("\n".join(lines) + "\n").encode(), labels


def write_toy_corpus(out: str | Path, n_train: int = 600, n_eval: int = 150, seed: int = 0) -> Path:
    """Write ``train/val/test.jsonl`` (inline text or base64 content) under ``out``; returns ``out``."""
    import base64

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for split, n in (("train", n_train), ("val", n_eval), ("test", n_eval)):
        with open(out / f"{split}.jsonl", "w") as f:
            for i in range(n):
                content, labels = _sample(rng)
                rec = {
                    "id": f"{split}-{i}",
                    "b64": base64.b64encode(content).decode(),
                    "labels": labels,
                    "source": f"{split}-doc-{i % 40}",
                    "split": split,
                }
                f.write(json.dumps(rec) + "\n")
    (out / "spec-bytes.json").write_text(json.dumps(toy_spec("bytes"), indent=1))
    (out / "spec-steady.json").write_text(json.dumps(toy_spec("steady"), indent=1))
    return out
