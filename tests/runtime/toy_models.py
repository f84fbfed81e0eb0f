"""The checked-in toy model the runtime, CLI, scale and benchmark tests run on, and helpers that
rewrite a model file's metadata (thresholds, labels) for the decoding and error tests.

The model lives in ``tests/runtime/data/reference/`` (``toy-tiny-fp32.onnx``,
``toy-small-fp32.onnx``, ``expected.json``), made once by ``python tests/runtime/make_reference.py``:
a random-initialised toy ``steady`` model with 3 heads (``kind``, ``lang`` gated on
``kind == code``, multilabel ``risk``) and tiers ``tiny`` and ``small``. This module imports
neither torch, onnx nor ``picohead`` at import time (the metadata is rewritten on the protobuf
bytes), so the runtime tests run with only the runtime and test dependencies installed; only
:func:`torch_reference` needs torch and ``picohead``.
"""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REFERENCE_DIR = Path(__file__).resolve().parent / "data" / "reference"
TIERS = ("tiny", "small")
META_KEY = "picohead"
SEED = 0
# picohead.testing's toy spec with fewer buckets, so both files stay small (~14 + ~38 KB)
BUCKETS = {"tiny": 256, "small": 512}


def reference_dir() -> Path:
    """The checked-in folder; tests must not write into it (copy files to ``tmp_path``)."""
    return REFERENCE_DIR


def expected() -> dict[str, Any]:
    """``expected.json``: ``inputs`` (name, base64) and ``expected[tier][head]`` probabilities."""
    return json.loads((REFERENCE_DIR / "expected.json").read_text())


def reference_inputs() -> list[tuple[str, bytes]]:
    return [(i["name"], base64.b64decode(i["base64"])) for i in expected()["inputs"]]


def toy_spec() -> dict[str, Any]:
    """The reference model's spec as a dict (from its metadata; a fresh copy on every call)."""
    return dict(json.loads(read_meta(REFERENCE_DIR / "toy-small-fp32.onnx"))["spec"])


def reference_spec() -> dict[str, Any]:
    """The spec ``make_reference.py`` exports. Needs ``picohead``. (The metadata holds the same
    spec with its keys sorted, and ``build_model`` initialises in the arch dicts' key order, so
    the torch model is rebuilt from this dict, not from the metadata.)"""
    from picohead.testing import toy_spec

    spec = toy_spec("steady")
    spec["arch"]["buckets"] = dict(BUCKETS)
    return spec


def torch_reference() -> tuple[Any, Any]:
    """The torch model the reference files were exported from (same spec, same seed), and its
    spec. Needs torch and ``picohead``."""
    import torch

    from picohead.models import build_model
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict(reference_spec())
    torch.manual_seed(SEED)
    return build_model(spec).eval(), spec


# -- metadata on the protobuf bytes (ModelProto.metadata_props is field 14) ----------------------------
_METADATA_PROPS = 14


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _fields(buf: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """``(field number, the field's whole encoding, its payload if length-delimited)``."""
    i = 0
    while i < len(buf):
        start = i
        tag, i = _varint(buf, i)
        number, wire = tag >> 3, tag & 7
        payload = b""
        if wire == 0:
            _, i = _varint(buf, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = _varint(buf, i)
            payload, i = buf[i : i + n], i + n
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
        yield number, buf[start:i], payload


def _entry(key: str, value: str) -> bytes:
    """One ``StringStringEntryProto`` (key = 1, value = 2) as a ModelProto field 14."""
    body = b""
    for number, text in ((1, key), (2, value)):
        raw = text.encode()
        body += _encode_varint(number << 3 | 2) + _encode_varint(len(raw)) + raw
    return _encode_varint(_METADATA_PROPS << 3 | 2) + _encode_varint(len(body)) + body


def _props(buf: bytes) -> list[tuple[str, str]]:
    out = []
    for number, _, payload in _fields(buf):
        if number == _METADATA_PROPS:
            kv = {n: p.decode() for n, _, p in _fields(payload)}
            out.append((kv.get(1, ""), kv.get(2, "")))
    return out


def _with_props(buf: bytes, props: list[tuple[str, str]]) -> bytes:
    kept = b"".join(raw for number, raw, _ in _fields(buf) if number != _METADATA_PROPS)
    return kept + b"".join(_entry(k, v) for k, v in props)


def _plain(value: str) -> str:
    """The JSON text of a stored metadata value (``ModelMeta.to_prop`` compresses it)."""
    from picohead_runtime.model_meta import stored_json

    return stored_json(value)


def read_meta(path: Path) -> str:
    """The picohead metadata JSON of a model file."""
    for key, value in _props(Path(path).read_bytes()):
        if key == META_KEY:
            return _plain(value)
    raise AssertionError(f"{path} has no picohead metadata")


def write_raw_meta(src: Path, dst: Path, value: str) -> Path:
    """Copy ``src`` to ``dst`` with its picohead metadata text replaced by ``value`` as is."""
    buf = Path(src).read_bytes()
    props = [(k, value if k == META_KEY else v) for k, v in _props(buf)]
    Path(dst).write_bytes(_with_props(buf, props))
    return Path(dst)


def rewrite_meta(src: Path, dst: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Copy ``src`` to ``dst`` with its picohead metadata JSON changed by ``edit`` (in place)."""
    buf = Path(src).read_bytes()
    props = _props(buf)
    for i, (key, value) in enumerate(props):
        if key == META_KEY:
            doc = json.loads(_plain(value))
            edit(doc)
            props[i] = (key, json.dumps(doc))
            break
    else:
        raise AssertionError(f"{src} has no picohead metadata")
    Path(dst).write_bytes(_with_props(buf, props))
    return Path(dst)


def strip_meta(src: Path, dst: Path) -> Path:
    """Copy ``src`` to ``dst`` without any metadata_props."""
    Path(dst).write_bytes(_with_props(Path(src).read_bytes(), []))
    return Path(dst)


def copy_file(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst
