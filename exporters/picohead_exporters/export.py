"""The compiler: one trained tier -> one self-contained, optimized, quantized, verified ONNX file.

Pipeline per tier: slice the tier (its weights only) -> ``torch.onnx.export(dynamo=True)`` with a
dynamic batch and length -> assert both stayed symbolic -> strip debug metadata -> onnxscript
optimizer -> fp32 parity gate against the torch model -> int8 (dynamic, a ladder of settings; the
first that passes the gates wins) or fp16 -> quantization gates -> metadata (the runtime contract in
``picohead_runtime.model_meta``) -> one file, written only when every gate passed.

What it does not do: train, calibrate thresholds, or load models for inference (the runtime does).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from picohead_exporters import graph, quantize, verify
from picohead_exporters.errors import ExportError, GateError
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


def tier_graph(model: Any, spec: ModelSpec, tier: str) -> onnx.ModelProto:
    """The fp32, stripped, optimized ONNX graph of ``tier`` (its sliced weights only); no gates."""
    import torch

    from picohead.models import TierProbs, slice_tier

    sliced, sliced_spec = slice_tier(model.eval(), spec, tier)
    if hasattr(sliced, "use_bag"):
        sliced.use_bag = False  # gather + matmul with Mod/Div hashing: the ONNX-friendly path
    module = TierProbs(sliced, sliced_spec, tier).eval()
    names = [output_name(h.name) for h in spec.heads]
    example = (
        torch.randint(0, 256, (2, 37), dtype=torch.uint8),
        torch.tensor([37, 5], dtype=torch.int64),
    )
    fp32 = graph.torch_to_onnx(
        module, example, input_names=[INPUT_BYTES, INPUT_LENGTHS], output_names=names
    )
    fp32 = graph.optimize(graph.strip_debug(fp32))
    graph.check_symbolic_inputs(fp32, [INPUT_BYTES, INPUT_LENGTHS], names)
    return graph.compact_names(graph.merge_parallel_linears(fp32))


def export_tier(
    model: Any,
    spec: ModelSpec,
    tier: str,
    *,
    out: str | os.PathLike[str] | None = None,
    precision: str = "int8",
    target: str = "cpu",
    val: Any = None,
    data_sha256: str = "",
    data_name: str = "",
    latency_runs: int = 200,
    raise_on_fail: bool = True,
) -> ExportReport:
    """Export ``tier`` of a trained ``model`` (``picohead.models``) to one ONNX file.

    ``out`` is a file path, or a folder (the file is then ``<name>-<tier>-<precision>.onnx``), or
    None (verify only, write nothing). ``val`` is a :class:`picohead.dataset.WindowData` for the
    gates and the metadata's metrics; without it the gates run on random bytes and the accuracy
    gate is skipped. A missed gate raises :class:`GateError` (``raise_on_fail``) or returns a report
    with ``ok=False``; either way no file is written.
    """
    import torch

    from picohead import __version__
    from picohead.models import TierProbs

    if precision not in PRECISIONS:
        raise ExportError(f"precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    if target not in TARGETS:
        raise ExportError(f"target {target!r} is not one of {', '.join(TARGETS)}")
    if target == "cuda" and precision == "int8":
        raise ExportError(
            "--target cuda writes fp16 or fp32: integer ops fall back to the CPU under the CUDA EP"
        )
    spec.check_tier(tier)
    t0 = time.perf_counter()
    report = ExportReport(tier=tier, family=spec.family, precision=precision, target=target)
    names = [output_name(h.name) for h in spec.heads]
    model = model.eval()

    # The torch reference is the model as trained (full width); the file holds the sliced tier.
    reference = TierProbs(model, spec, tier).eval()
    fp32 = tier_graph(model, spec, tier)

    # -- inputs for the gates --
    if val is not None and len(val):
        windows, lengths = val.windows, val.lengths
        labels, masks = val.labels, val.label_mask
        report.data = data_name or "validation data"
    else:
        windows, lengths = _synthetic(spec)
        labels = masks = None
        report.data = "synthetic random bytes (no validation data given)"
    report.n_samples = int(len(lengths))

    def torch_fn(data: np.ndarray, lens: np.ndarray) -> list[np.ndarray]:
        with torch.no_grad():
            outs = reference(torch.from_numpy(data), torch.from_numpy(lens))
        return [o.numpy() for o in outs]

    # -- gate 1: fp32 ONNX vs torch --
    fp32_bytes = fp32.SerializeToString()
    sess32 = verify.session(fp32_bytes, threads=1)
    run32 = verify.ort_predict(sess32, names)
    for case, (data, lens) in verify.parity_cases(windows, lengths, spec.window.size).items():
        report.parity[case] = verify.max_abs_diff(torch_fn(data, lens), run32(data, lens))
    ref_val = verify.predict_all(torch_fn, windows, lengths, len(names))
    out32 = verify.predict_all(run32, windows, lengths, len(names))
    report.parity["validation-set"] = verify.max_abs_diff(ref_val, out32)
    report.parity_max = max(report.parity.values())
    report.fp32_size_bytes = len(fp32_bytes)
    if not report.parity_max <= verify.PARITY_TOL:
        worst = max(report.parity, key=lambda k: report.parity[k])
        report.failures.append(
            f"fp32 parity: max |Δprob| vs torch {report.parity_max:.3g} > {verify.PARITY_TOL} "
            f"(worst case {worst})"
        )

    # -- precision --
    final, final_out = fp32, out32
    if not report.failures and precision != "fp32":
        candidates: Sequence[tuple[str, Any]]
        if precision == "int8":
            candidates = [(c.name, c) for c in quantize.INT8_LADDER]
        else:
            candidates = [("fp16", None)]
        for cname, cfg in candidates:
            try:
                q = quantize.quantize_int8(fp32, cfg) if cfg else quantize.convert_fp16(fp32)
                qrun = verify.ort_predict(verify.session(q.SerializeToString()), names)
                qout = verify.predict_all(qrun, windows, lengths, len(names))
            except Exception as e:  # an ORT quantizer or session failure: try the next setting
                report.quant_tried[cname] = [f"{type(e).__name__}: {e}"]
                continue
            heads = verify.compare_heads(spec, out32, qout, labels, masks)
            fails = verify.gate_failures(heads, cname)
            report.quant_tried[cname] = fails
            if not report.quant:
                report.quant = heads  # the first setting's figures, if none passes
            if not fails:
                final, final_out, report.quant, report.quant_config = q, qout, heads, cname
                break
        else:
            report.failures.append(
                f"{precision}: no setting passed the gates; tried: "
                + "; ".join(f"{k}: {', '.join(v) or 'ok'}" for k, v in report.quant_tried.items())
            )

    # -- figures, metadata --
    info = graph.describe(final)
    report.nodes, report.parameters, report.ops = info["nodes"], info["parameters"], info["ops"]
    if info["slow_reductions"]:
        log.warning("tier %s: slow reductions in the graph: %s", tier, info["slow_reductions"])
    if labels is not None and masks is not None:
        report.metrics = verify.tier_metrics(spec, final_out, labels, masks)
    meta = ModelMeta(
        spec=spec,
        tier=tier,
        precision=precision,
        target=target,
        picohead_version=__version__,
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
    onnx.helper.set_model_props(final, {META_KEY: meta.to_json()})
    final.producer_name, final.producer_version = "picohead", __version__
    if graph.has_external_data(final):
        report.failures.append("the model has external data; expected one self-contained file")
    blob = final.SerializeToString()
    report.size_bytes = len(blob)

    sess = verify.session(blob, threads=1)
    full = max(1, spec.window.size)
    longest = int(np.argmax(lengths))
    sample = np.zeros((1, full), dtype=np.uint8)
    width = min(full, windows.shape[1])
    sample[0, :width] = windows[longest, :width]
    sample_len = np.array([min(full, int(lengths[longest]))], dtype=np.int64)
    if latency_runs > 0:
        report.latency_ms = verify.latency_ms(sess, names, (sample, sample_len), latency_runs)
    report.export_s = time.perf_counter() - t0
    report.ok = not report.failures

    if report.ok and out is not None:
        path = Path(out)
        if path.is_dir() or path.suffix != ".onnx":
            path.mkdir(parents=True, exist_ok=True)
            path = path / default_filename(spec, tier, precision)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(blob)
        tmp.replace(path)
        report.path = str(path)
    if not report.ok and raise_on_fail:
        raise GateError(f"tier {tier}: " + "; ".join(report.failures), report)
    return report


def load_validation(
    run_dir: str | os.PathLike[str],
    spec: ModelSpec,
    *,
    calib: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> tuple[Any, str]:
    """The run's validation data (``calib`` when given), the way training held it out."""
    from picohead.dataset import load_manifest, split_by_source
    from picohead.train import read_run_config

    _, cfg, info = read_run_config(Path(run_dir))
    if calib is not None:
        return load_manifest(calib, spec, cache_dir=cache_dir), str(calib)
    if info.get("val"):
        return load_manifest(info["val"], spec, cache_dir=cache_dir), str(info["val"])
    if info.get("train"):
        train = load_manifest(info["train"], spec, cache_dir=cache_dir)
        return split_by_source(train, 0.1, seed=cfg.seed)[1], f"{info['train']} (held-out sources)"
    raise ExportError(f"{run_dir}: the run names no validation data; pass --calib MANIFEST")


def portable_name(name: str) -> str:
    """``name`` without the machine's folders: an absolute path keeps only its last two parts
    (``corpus-r5/val.jsonl``). A model file travels; where it was built is nobody's business, and
    the runtime never reads this field (``data_sha256`` identifies the data)."""
    if not os.path.isabs(name):
        return name
    return "/".join(Path(name).parts[-2:])


def export_run(
    run_dir: str | os.PathLike[str],
    *,
    tiers: Sequence[str] | str | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    precision: str = "int8",
    target: str = "cpu",
    calib: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    latency_runs: int = 200,
    raise_on_fail: bool = True,
    progress: bool | None = None,
) -> list[ExportReport]:
    """Export tiers of a trained run (default: all) to ``out_dir`` (default ``RUN_DIR/onnx``).

    Every tier is tried; with ``raise_on_fail`` a :class:`GateError` listing the failed tiers is
    raised at the end (its ``report`` is the list of reports). Files are written only for tiers that
    passed.
    """
    from tqdm import tqdm

    from picohead.train import load_model, read_run_config

    run = Path(run_dir)
    model, spec = load_model(run)
    _, _, info = read_run_config(run)
    if tiers is None or tiers == "all":
        tier_list = list(spec.tiers)
    else:
        tier_list = [tiers] if isinstance(tiers, str) else list(tiers)
    for t in tier_list:
        spec.check_tier(t)
    val, val_name = load_validation(run, spec, calib=calib, cache_dir=cache_dir)
    out = Path(out_dir) if out_dir is not None else run / "onnx"
    if progress is None:
        progress = sys.stderr.isatty()
    reports = []
    for t in tqdm(tier_list, desc="export", unit="tier", disable=not progress):
        reports.append(
            export_tier(
                model,
                spec,
                t,
                out=out,
                precision=precision,
                target=target,
                val=val,
                data_sha256=str(info.get("train_sha256", "")),
                data_name=val_name,
                latency_runs=latency_runs,
                raise_on_fail=False,
            )
        )
    failed = [r for r in reports if not r.ok]
    if failed and raise_on_fail:
        raise GateError(
            "; ".join(f"tier {r.tier}: {'; '.join(r.failures)}" for r in failed), reports
        )
    return reports
