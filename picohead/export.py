"""Exporting a trained model or run: what ``picohead`` hands the compiler (``picohead_exporters``).

For one tier: the tier sliced to its own weights (what the file computes), the model as trained
(what parity is measured against), the spec, the gates' samples and the metadata's metrics
function (:func:`picohead.evaluate.compact_metrics`). For a run: its best weights, its validation
data chosen by the policy the run recorded (:meth:`picohead.run.RunDir.validation`), its data hash.

What it does not do: build, optimize, quantize or gate graphs (``picohead_exporters.export``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from picohead.run import RunDir
from picohead_exporters.errors import ExportError, GateError
from picohead_exporters.export import ExportReport, export_module, module_graph
from picohead_runtime.spec import ModelSpec


def tier_modules(model: Any, spec: ModelSpec, tier: str) -> tuple[Any, Any]:
    """(the sliced tier as the file computes it, the trained model's tier as reference)."""
    from picohead.models import TierProbs, slice_tier

    model = model.eval()
    sliced, sliced_spec = slice_tier(model, spec, tier)
    if hasattr(sliced, "use_bag"):
        sliced.use_bag = False  # gather + matmul with Mod/Div hashing: the ONNX-friendly path
    return TierProbs(sliced, sliced_spec, tier).eval(), TierProbs(model, spec, tier).eval()


def tier_graph(model: Any, spec: ModelSpec, tier: str) -> Any:
    """The fp32, stripped, optimized ONNX graph of ``tier`` (its sliced weights only); no gates."""
    return module_graph(tier_modules(model, spec, tier)[0], spec)


def export_tier(
    model: Any,
    spec: ModelSpec,
    tier: str,
    *,
    val: Any = None,
    data_name: str = "",
    **options: Any,
) -> ExportReport:
    """Export ``tier`` of a trained ``model`` (``picohead.models``) to one ONNX file.

    ``val`` is a :class:`picohead.dataset.WindowData` for the gates and the metadata's metrics
    (without it the gates run on random bytes and the accuracy gate is skipped); ``options`` are
    :func:`picohead_exporters.export.export_module`'s (``out``, ``precision``, ``target``,
    ``data_sha256``, ``latency_runs``, ``raise_on_fail``).
    """
    from picohead import __version__
    from picohead.evaluate import compact_metrics

    module, reference = tier_modules(model, spec, tier)
    metrics = None
    if val is not None:

        def metrics(probs: Sequence[Any]) -> dict[str, Any]:
            return compact_metrics(spec, probs, val.labels, val.label_mask)

    return export_module(
        module,
        spec,
        tier,
        reference=reference,
        data=val,
        data_name=data_name,
        metrics=metrics,
        version=__version__,
        **options,
    )


def load_validation(
    run_dir: str | os.PathLike[str],
    spec: ModelSpec,
    *,
    calib: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> tuple[Any, str]:
    """The run's validation data (``calib`` when given), by the policy the run recorded."""
    from picohead.dataset import load_manifest

    run = RunDir(Path(run_dir))
    if calib is not None:
        return load_manifest(calib, spec, cache_dir=cache_dir), str(calib)
    policy = run.validation()
    if policy.manifest:
        return load_manifest(policy.manifest, spec, cache_dir=cache_dir), policy.manifest
    _, _, info = run.read_config()
    if info.get("train"):
        train = load_manifest(info["train"], spec, cache_dir=cache_dir)
        return policy.split(train)[1], f"{info['train']} (held-out sources)"
    raise ExportError(f"{run_dir}: the run names no validation data; pass --calib MANIFEST")


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

    from picohead.train import load_model

    run = RunDir(Path(run_dir))
    model, spec = load_model(run.path)
    _, _, info = run.read_config()
    if tiers is None or tiers == "all":
        tier_list = list(spec.tiers)
    else:
        tier_list = [tiers] if isinstance(tiers, str) else list(tiers)
    for t in tier_list:
        spec.check_tier(t)
    val, val_name = load_validation(run.path, spec, calib=calib, cache_dir=cache_dir)
    out = Path(out_dir) if out_dir is not None else run.onnx_dir
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
