"""The compiler: one torch module of one tier -> one self-contained, optimized, quantized,
verified ONNX file.

The caller (``picohead.export``) hands over the module (the tier sliced to its own weights), the
torch reference it must match, the spec, the gates' samples and a function for the metadata's
metrics; this package never imports ``picohead``.

Pipeline per tier: ``torch.onnx.export(dynamo=True)`` with a
dynamic batch and length -> assert both stayed symbolic -> strip debug metadata -> onnxscript
optimizer -> whole-number constants stored narrow behind a Cast -> fp32 parity gate against
the torch model -> int8 (dynamic, a ladder of settings; the
first that passes the gates wins) or fp16 -> quantization gates -> metadata (the runtime contract in
``picohead_runtime.model_meta``) -> one file, written only when every gate passed.

What it does not do: train, read run folders or manifests, calibrate thresholds, or load models
for inference (the runtime does).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import onnx

from picohead_exporters import graph, quantize, verify
from picohead_exporters.errors import ExportError, GateError
from picohead_runtime import scoring
from picohead_runtime.model_meta import (
    INPUT_BYTES,
    INPUT_LENGTHS,
    META_KEY,
    PRECISIONS,
    TARGETS,
    ModelMeta,
    output_name,
)
from picohead_runtime.spec import ModelSpec

log = logging.getLogger(__name__)


@dataclass
class ExportReport:
    """What happened to one tier: figures for the table, gate results, where the file went."""

    tier: str
    family: str
    precision: str
    target: str
    ok: bool = False
    path: str | None = None  # None when nothing was written (a gate failed, or write=False)
    size_bytes: int = 0
    fp32_size_bytes: int = 0
    nodes: int = 0
    parameters: int = 0
    ops: dict[str, int] = field(default_factory=dict)
    parity: dict[str, float] = field(default_factory=dict)  # case -> max |Δprob| fp32 vs torch
    parity_max: float = float("nan")
    quant_config: str | None = None  # which int8 setting passed (int8 only)
    quant: dict[str, dict[str, Any]] = field(default_factory=dict)  # head -> agreement, drop...
    quant_tried: dict[str, list[str]] = field(default_factory=dict)  # setting -> its failures
    latency_ms: float | None = None  # warm, 1 thread, one full window
    metrics: dict[str, Any] = field(default_factory=dict)  # validation metrics of the file
    data: str = ""  # what the gates ran on
    n_samples: int = 0
    export_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def min_agreement(self) -> float | None:
        vals = [r["agreement"] for r in self.quant.values()]
        return min(vals) if vals else None

    @property
    def max_drop(self) -> float | None:
        vals = [r["drop"] for r in self.quant.values() if "drop" in r]
        return max(vals) if vals else None


def default_filename(spec: ModelSpec, tier: str, precision: str) -> str:
    return f"{spec.name}-{tier}-{precision}.onnx"


def _synthetic(spec: ModelSpec, n: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Random bytes of random lengths (1..window), for exports without validation data."""
    rng = np.random.default_rng(seed)
    full = max(1, spec.window.size)
    lengths = rng.integers(1, full + 1, size=n).astype(np.int64)
    lengths[0] = full
    windows = rng.integers(0, 256, size=(n, full), dtype=np.uint8)
    return windows, lengths


def module_graph(module: Any, spec: ModelSpec) -> onnx.ModelProto:
    """The fp32, stripped, optimized ONNX graph of ``module`` (``(bytes, lengths) -> one
    probability tensor per head of spec``); no gates."""
    import torch

    names = scoring.output_names(spec)
    example = (
        torch.randint(0, 256, (2, 37), dtype=torch.uint8),
        torch.tensor([37, 5], dtype=torch.int64),
    )
    fp32 = graph.torch_to_onnx(
        module.eval(), example, input_names=[INPUT_BYTES, INPUT_LENGTHS], output_names=names
    )
    fp32 = graph.optimize(graph.strip_debug(fp32))
    graph.check_symbolic_inputs(fp32, [INPUT_BYTES, INPUT_LENGTHS], names)
    return graph.narrow_integer_constants(graph.compact_names(graph.merge_parallel_linears(fp32)))


class Samples(Protocol):
    """What the gates run on, handed over by the caller (training's validation split): windows
    ``uint8[n, window]``, ``lengths`` ``int64[n]`` and, per head, labels and a label mask."""

    windows: np.ndarray
    lengths: np.ndarray
    labels: Mapping[str, np.ndarray]
    label_mask: Mapping[str, np.ndarray]

    def __len__(self) -> int: ...


Metrics = Callable[[Sequence[np.ndarray]], dict[str, Any]]


@dataclass
class _Gates:
    """The inputs of every gate of one export."""

    windows: np.ndarray
    lengths: np.ndarray
    labels: Mapping[str, np.ndarray] | None
    masks: Mapping[str, np.ndarray] | None


def _check_request(spec: ModelSpec, tier: str, precision: str, target: str) -> None:
    if precision not in PRECISIONS:
        raise ExportError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    if target not in TARGETS:
        raise ExportError(f"target {target!r} is not one of {', '.join(TARGETS)}")
    if target == "cuda" and precision == "int8":
        raise ExportError(
            "--target cuda writes fp16 or fp32: integer ops fall back to the CPU under the CUDA EP"
        )
    spec.check_tier(tier)


def _gate_inputs(spec: ModelSpec, data: Samples | None, name: str, report: ExportReport) -> _Gates:
    if data is not None and len(data):
        gates = _Gates(data.windows, data.lengths, data.labels, data.label_mask)
        report.data = name or "validation data"
    else:
        windows, lengths = _synthetic(spec)
        gates = _Gates(windows, lengths, None, None)
        report.data = "synthetic random bytes (no validation data given)"
    report.n_samples = int(len(gates.lengths))
    return gates


def _fp32_parity(
    reference: Any, fp32: onnx.ModelProto, spec: ModelSpec, g: _Gates, report: ExportReport
) -> list[np.ndarray]:
    """Gate 1, the fp32 graph against the torch reference; returns the graph's outputs."""
    import torch

    names = scoring.output_names(spec)

    def torch_fn(data: np.ndarray, lens: np.ndarray) -> list[np.ndarray]:
        with torch.no_grad():
            outs = reference(torch.from_numpy(data), torch.from_numpy(lens))
        return [o.numpy() for o in outs]

    fp32_bytes = fp32.SerializeToString()
    run32 = verify.ort_predict(scoring.session(fp32_bytes, threads=1), names)
    for case, (data, lens) in verify.parity_cases(g.windows, g.lengths, spec.window.size).items():
        report.parity[case] = verify.max_abs_diff(torch_fn(data, lens), run32(data, lens))
    ref_val = verify.predict_all(torch_fn, g.windows, g.lengths, len(names))
    out32 = verify.predict_all(run32, g.windows, g.lengths, len(names))
    report.parity["validation-set"] = verify.max_abs_diff(ref_val, out32)
    report.parity_max = max(report.parity.values())
    report.fp32_size_bytes = len(fp32_bytes)
    if not report.parity_max <= verify.PARITY_TOL:
        worst = max(report.parity, key=lambda k: report.parity[k])
        report.failures.append(
            f"fp32 parity: max |Δprob| vs torch {report.parity_max:.3g} > {verify.PARITY_TOL} "
            f"(worst case {worst})"
        )
    return out32


def _lower_precision(
    fp32: onnx.ModelProto,
    out32: list[np.ndarray],
    spec: ModelSpec,
    precision: str,
    g: _Gates,
    report: ExportReport,
) -> tuple[onnx.ModelProto, list[np.ndarray]]:
    """int8 (the first setting of the ladder that passes the gates) or fp16; the graph and its
    outputs (fp32's own when ``precision`` is fp32 or a gate failed)."""
    if report.failures or precision == "fp32":
        return fp32, out32
    names = scoring.output_names(spec)
    if precision == "int8":
        ladder: list[quantize.Int8Config | None] = list(quantize.INT8_LADDER)
    else:
        ladder = [None]
    mixed: list[quantize.Int8Config] = []  # int8-head rungs that failed on some heads only
    while ladder:
        cfg = ladder.pop(0)
        if mixed and (cfg is None or cfg.heads in ("fp16", "fp32")):
            # Before any rung with every head in fp16: the failed rungs again with only the
            # failing heads' Gemms in fp16 (smaller; the trunk as the rung had it).
            ladder.insert(0, cfg)
            cfg = mixed.pop(0)
        cname = cfg.name if cfg else "fp16"
        try:
            q = quantize.quantize_int8(fp32, cfg) if cfg else quantize.convert_fp16(fp32)
            qrun = verify.ort_predict(scoring.session(q.SerializeToString()), names)
            qout = verify.predict_all(qrun, g.windows, g.lengths, len(names))
        except Exception as e:  # an ORT quantizer or session failure: try the next setting
            report.quant_tried[cname] = [f"{type(e).__name__}: {e}"]
            continue
        heads = verify.compare_heads(spec, out32, qout, g.labels, g.masks)
        fails = verify.gate_failures(heads, cname)
        report.quant_tried[cname] = fails
        if not report.quant:
            report.quant = heads  # the first setting's figures, if none passes
        if not fails:
            report.quant, report.quant_config = heads, cname
            return q, qout
        failed = verify.failed_heads(heads)  # not empty: the setting failed
        if (
            cfg
            and cfg.heads in ("int8", "int8w")
            and not cfg.fp16_outputs
            and len(failed) < len(heads)
        ):
            keep = tuple(output_name(h) for h in failed)
            mixed.append(
                dataclasses.replace(
                    cfg, name=f"{cfg.name}+fp16:{','.join(failed)}", fp16_outputs=keep
                )
            )
    report.failures.append(
        f"{precision}: no setting passed the gates; tried: "
        + "; ".join(f"{k}: {', '.join(v) or 'ok'}" for k, v in report.quant_tried.items())
    )
    return fp32, out32


def _with_metadata(
    final: onnx.ModelProto,
    spec: ModelSpec,
    tier: str,
    *,
    precision: str,
    target: str,
    version: str,
    data_sha256: str,
    report: ExportReport,
) -> bytes:
    """Figures of the graph into ``report``, the runtime's metadata into the graph; its bytes."""
    info = graph.describe(final)
    report.nodes, report.parameters, report.ops = info["nodes"], info["parameters"], info["ops"]
    if info["slow_reductions"]:
        log.warning("tier %s: slow reductions in the graph: %s", tier, info["slow_reductions"])
    meta = ModelMeta(
        spec=spec,
        tier=tier,
        precision=precision,
        target=target,
        picohead_version=version,
        data_sha256=data_sha256,
        metrics=report.metrics,
        extra={
            "exporter": "picohead_exporters",
            "quant_config": report.quant_config,
            "parity_max_abs": report.parity_max,
            "quant_min_agreement": report.min_agreement,
            "validation_data": portable_name(report.data),
            "n_validation": report.n_samples,
        },
    )
    del final.metadata_props[:]
    onnx.helper.set_model_props(final, {META_KEY: meta.to_prop()})
    final.producer_name, final.producer_version = "picohead", version
    if graph.has_external_data(final):
        report.failures.append("the model has external data; expected one self-contained file")
    blob = final.SerializeToString()
    report.size_bytes = len(blob)
    return blob


def _latency(blob: bytes, spec: ModelSpec, g: _Gates, runs: int) -> float:
    """Warm one-thread latency of the file on the longest gate input, padded to one full window."""
    sess = scoring.session(blob, threads=1)
    full = max(1, spec.window.size)
    longest = int(np.argmax(g.lengths))
    sample = np.zeros((1, full), dtype=np.uint8)
    width = min(full, g.windows.shape[1])
    sample[0, :width] = g.windows[longest, :width]
    sample_len = np.array([min(full, int(g.lengths[longest]))], dtype=np.int64)
    return scoring.latency_ms(sess, scoring.output_names(spec), (sample, sample_len), runs)


def _write(blob: bytes, out: str | os.PathLike[str], spec: ModelSpec, tier: str, precision: str) -> str:
    path = Path(out)
    if path.is_dir() or path.suffix != ".onnx":
        path.mkdir(parents=True, exist_ok=True)
        path = path / default_filename(spec, tier, precision)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)
    return str(path)


def export_module(
    module: Any,
    spec: ModelSpec,
    tier: str,
    *,
    reference: Any = None,
    out: str | os.PathLike[str] | None = None,
    precision: str = "int8",
    target: str = "cpu",
    data: Samples | None = None,
    data_name: str = "",
    data_sha256: str = "",
    metrics: Metrics | None = None,
    version: str = "",
    latency_runs: int = 200,
    raise_on_fail: bool = True,
) -> ExportReport:
    """Export a torch ``module`` that computes ``tier`` of ``spec`` to one gated ONNX file.

    ``module`` is what the file computes, ``(bytes uint8[B, L], lengths int64[B]) -> one
    probability tensor per head``; ``reference`` (default: ``module``) is what fp32 parity is
    measured against (the model as trained, when ``module`` is its sliced tier). ``out`` is a file
    path, or a folder (the file is then ``<name>-<tier>-<precision>.onnx``), or None (verify only,
    write nothing). ``data`` holds the gates' samples (without it the gates run on random bytes and
    the accuracy gate is skipped); ``metrics(probs)`` gives the metadata's validation metrics from
    the final graph's outputs on ``data``; ``version`` is the producer version written into the
    file. A missed gate raises :class:`GateError` (``raise_on_fail``) or returns a report with
    ``ok=False``; either way no file is written.
    """
    _check_request(spec, tier, precision, target)
    t0 = time.perf_counter()
    report = ExportReport(tier=tier, family=spec.family, precision=precision, target=target)
    fp32 = module_graph(module, spec)
    gates = _gate_inputs(spec, data, data_name, report)
    out32 = _fp32_parity(reference if reference is not None else module, fp32, spec, gates, report)
    final, final_out = _lower_precision(fp32, out32, spec, precision, gates, report)
    if gates.labels is not None and gates.masks is not None and metrics is not None:
        report.metrics = metrics(final_out)
    blob = _with_metadata(
        final,
        spec,
        tier,
        precision=precision,
        target=target,
        version=version,
        data_sha256=data_sha256,
        report=report,
    )
    if latency_runs > 0:
        report.latency_ms = _latency(blob, spec, gates, latency_runs)
    report.export_s = time.perf_counter() - t0
    report.ok = not report.failures
    if report.ok and out is not None:
        report.path = _write(blob, out, spec, tier, precision)
    if not report.ok and raise_on_fail:
        raise GateError(f"tier {tier}: " + "; ".join(report.failures), report)
    return report


def portable_name(name: str) -> str:
    """``name`` without the machine's folders: an absolute path keeps only its last two parts
    (``corpus-r5/val.jsonl``). A model file travels; where it was built is nobody's business, and
    the runtime never reads this field (``data_sha256`` identifies the data)."""
    if not os.path.isabs(name):
        return name
    return "/".join(Path(name).parts[-2:])
