"""The contract between the exporter and the runtime: graph input/output names and the JSON
metadata that every exported picohead ONNX file carries.

An exported model is one ``.onnx`` file for one tier. Inputs: ``bytes`` (``uint8[batch, length]``,
right-padded windows) and ``lengths`` (``int64[batch]``, the real length of each row; a ``uint8``
cannot hold a pad id, so lengths say where padding starts). Outputs: one probability tensor per
head, named ``prob_<head>`` (``float32[batch, n_labels]``; softmax, or sigmoid for multilabel
heads). ``metadata_props["picohead"]`` holds :class:`ModelMeta` as JSON (never Python repr),
written compressed (:meth:`ModelMeta.to_prop`): raw LZMA2 in base85 behind an ``xz85:`` prefix
since 2026-12-08. Wild-dev calibration writes per-label thresholds and fallbacks that take a tiny
tier's metadata to 12 KB of JSON; as zlib in base64 (``zlib:``, 2026-12-06 to 2026-12-08) that
was 4,005 characters of content-v19rc1's calibrated tiny and put the file 333 B over its 64 KiB
budget, as LZMA2 in base85 it is 3,622. :meth:`ModelMeta.from_json` reads all three: ``xz85:``,
``zlib:`` and plain JSON (every file written before 2026-12-06).

What it does not do: load ONNX (that needs onnxruntime; see the runtime's model loader) or write it
(``picohead_exporters``).
"""

from __future__ import annotations

import base64
import binascii
import json
import lzma
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from picohead_runtime.spec import ModelSpec, SpecError

META_KEY = "picohead"
META_FORMAT = "picohead-onnx"
META_VERSION = 1
COMPRESSED_PREFIX = "xz85:"  # then base85 of the JSON text as a raw LZMA2 stream (to_prop)
ZLIB_PREFIX = "zlib:"  # then base64 of the zlib-compressed JSON text (files of 2026-12-06/07)
# raw LZMA2 (no .xz container: its headers and check cost ~60 B); the decoder needs the same
# dictionary size, and 1 MiB is far more than any metadata text
_LZMA2 = {"id": lzma.FILTER_LZMA2, "dict_size": 1 << 20}
MAX_META_BYTES = 4 << 20  # a decompressed metadata text larger than this is refused
INPUT_BYTES = "bytes"
INPUT_LENGTHS = "lengths"
PRECISIONS = ("int8", "fp16", "fp32")
TARGETS = ("cpu", "cuda")


def output_name(head: str) -> str:
    return f"prob_{head}"


@dataclass(frozen=True)
class ModelMeta:
    """What the runtime needs to know about one exported tier."""

    spec: ModelSpec  # the full model's spec (all tiers listed); ``tier`` says which one this is
    tier: str
    precision: str = "fp32"  # int8 | fp16 | fp32
    target: str = "cpu"  # cpu | cuda
    picohead_version: str = ""
    data_sha256: str = ""  # hash of the training manifest
    metrics: Mapping[str, Any] = field(default_factory=dict)  # this tier's validation metrics
    extra: Mapping[str, Any] = field(default_factory=dict)  # free-form (export figures, notes)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": META_FORMAT,
                "format_version": META_VERSION,
                "spec": self.spec.to_dict(),
                "tier": self.tier,
                "family": self.spec.family,
                "precision": self.precision,
                "target": self.target,
                "picohead_version": self.picohead_version,
                "data_sha256": self.data_sha256,
                "metrics": dict(self.metrics),
                "extra": dict(self.extra),
            },
            sort_keys=True,
            separators=(",", ":"),  # compact: the text is stored inside every model file
        )

    def to_prop(self) -> str:
        """The text stored under ``metadata_props[META_KEY]``: the JSON, compressed."""
        packed = lzma.compress(self.to_json().encode("utf-8"), format=lzma.FORMAT_RAW,
                               filters=[{**_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}])
        return COMPRESSED_PREFIX + base64.b85encode(packed).decode("ascii")

    @classmethod
    def from_json(cls, text: str, *, source: str = "model") -> ModelMeta:
        """Parse the stored text: JSON, or JSON in the compressed form of :meth:`to_prop`."""
        try:
            doc = json.loads(stored_json(text, source))
        except json.JSONDecodeError as e:
            raise SpecError(f"{source}: picohead metadata is not valid JSON ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != META_FORMAT:
            raise SpecError(
                f"{source}: not a picohead model (metadata format is not {META_FORMAT!r})"
            )
        if doc.get("format_version") != META_VERSION:
            raise SpecError(
                f"{source}: metadata format_version {doc.get('format_version')!r} is not "
                f"{META_VERSION}; upgrade picohead-runtime or re-export the model"
            )
        spec = ModelSpec.from_dict(doc.get("spec"), source=f"{source} (embedded spec)")
        tier = str(doc.get("tier"))
        if tier not in spec.tiers:
            raise SpecError(f"{source}: tier {tier!r} is not one of the spec's tiers {spec.tiers}")
        precision, target = doc.get("precision", "fp32"), doc.get("target", "cpu")
        if precision not in PRECISIONS or target not in TARGETS:
            raise SpecError(f"{source}: bad precision/target {precision!r}/{target!r}")
        return cls(
            spec=spec,
            tier=tier,
            precision=precision,
            target=target,
            picohead_version=str(doc.get("picohead_version", "")),
            data_sha256=str(doc.get("data_sha256", "")),
            metrics=doc.get("metrics") or {},
            extra=doc.get("extra") or {},
        )


def stored_json(text: str, source: str = "model") -> str:
    """The JSON text of a stored metadata value: ``text`` itself, or the compressed forms
    (:meth:`ModelMeta.to_prop`'s ``xz85:``, the earlier ``zlib:``) inflated (SpecError naming
    ``source`` when it is damaged or too large)."""
    try:
        if text.startswith(COMPRESSED_PREFIX):
            x = lzma.LZMADecompressor(format=lzma.FORMAT_RAW, filters=[_LZMA2])
            raw = x.decompress(base64.b85decode(text[len(COMPRESSED_PREFIX):]), MAX_META_BYTES)
            if not x.eof:
                raise SpecError(f"{source}: picohead metadata is over {MAX_META_BYTES} bytes "
                                "or cut short")
        elif text.startswith(ZLIB_PREFIX):
            d = zlib.decompressobj()
            raw = d.decompress(base64.b64decode(text[len(ZLIB_PREFIX):], validate=True),
                               MAX_META_BYTES)
            if d.unconsumed_tail:
                raise SpecError(f"{source}: picohead metadata is over {MAX_META_BYTES} bytes")
        else:
            return text
        return raw.decode("utf-8")
    except SpecError:  # a ValueError too: named above, not "damaged"
        raise
    except (binascii.Error, ValueError, lzma.LZMAError, zlib.error, UnicodeDecodeError) as e:
        raise SpecError(f"{source}: compressed picohead metadata is damaged ({e})") from None
