"""Round trips through ONNX: parity with torch, dynamic shapes, metadata, decoding, gates."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exporter_helpers import random_model

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _session(path: str | Path) -> Any:
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def _torch_probs(model: Any, spec: Any, tier: str, data: np.ndarray, lengths: np.ndarray):
    import torch

    from picohead.models import TierProbs

    with torch.no_grad():
        outs = TierProbs(model, spec, tier)(torch.from_numpy(data), torch.from_numpy(lengths))
    return [o.numpy() for o in outs]


def _inputs(batch: int, length: int, full: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, size=(batch, length), dtype=np.uint8)
    lengths = rng.integers(1, length + 1, size=batch).astype(np.int64)
    lengths[0] = length
    return data, lengths


def check_round_trip(model: Any, spec: Any, tier: str, path: str | Path) -> None:
    """Symbolic dims in the file, and torch parity at batch 1/3 x length 1/37/full."""
    m = onnx.load(str(path))
    dims = {
        i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
        for i in m.graph.input
    }
    assert all(isinstance(d, str) for d in dims["bytes"]) and len(dims["bytes"]) == 2
    assert all(isinstance(d, str) for d in dims["lengths"])
    assert not any(i.data_location == onnx.TensorProto.EXTERNAL for i in m.graph.initializer)
    sess = _session(path)
    names = [o.name for o in sess.get_outputs()]
    assert names == [f"prob_{h.name}" for h in spec.heads]
    full = spec.window.size
    for batch in (1, 3):
        for length in (1, 37, full):
            data, lengths = _inputs(batch, length, full, seed=batch * 1000 + length)
            got = sess.run(names, {"bytes": data, "lengths": lengths})
            want = _torch_probs(model, spec, tier, data, lengths)
            for g, w, h in zip(got, want, spec.heads):
                assert g.shape == (batch, len(h.labels))
                assert g.dtype == np.float32
                np.testing.assert_allclose(
                    g, w, atol=1e-4, err_msg=f"{tier} {h.name} {batch}x{length}"
                )


# -- default suite: one export, many checks ---------------------------------------------------


def test_round_trip_steady_tiny(steady_tiny):
    model, spec, report = steady_tiny
    assert report.ok and report.path and Path(report.path).is_file()
    assert report.parity_max <= 1e-4
    check_round_trip(model, spec, "tiny", report.path)


def test_padding_does_not_change_a_row(steady_tiny):
    """A row's output depends on its length, not on how much padding its batch added."""
    _, spec, report = steady_tiny
    sess = _session(report.path)
    data, _ = _inputs(1, 50, spec.window.size)
    one = sess.run(None, {"bytes": data, "lengths": np.array([50])})
    padded = np.zeros((2, 200), dtype=np.uint8)
    padded[0, :50] = data[0]
    padded[0, 50:] = 7
    two = sess.run(None, {"bytes": padded, "lengths": np.array([50, 200])})
    for a, b in zip(one, two):
        np.testing.assert_allclose(a[0], b[0], atol=1e-5)


def test_metadata_round_trip(steady_tiny):
    from picohead_runtime.model_meta import META_KEY, ModelMeta

    _, spec, report = steady_tiny
    m = onnx.load(report.path)
    props = {p.key: p.value for p in m.metadata_props}
    stored = props[META_KEY]
    assert stored.startswith("xz85:")  # compressed JSON (ModelMeta.to_prop), never repr
    meta = ModelMeta.from_json(stored)
    json.loads(meta.to_json())
    assert meta.spec == spec
    assert (meta.tier, meta.precision, meta.target) == ("tiny", "fp32", "cpu")
    assert meta.spec.family == "steady"
    assert meta.picohead_version
    assert meta.extra["parity_max_abs"] <= 1e-4
    # No debug metadata left on nodes; no doc strings.
    assert not any(len(n.metadata_props) or n.doc_string for n in m.graph.node)


def test_multilabel_head_is_sigmoid_not_softmax(steady_tiny):
    import torch

    model, spec, report = steady_tiny
    sess = _session(report.path)
    data, lengths = _inputs(4, 60, spec.window.size, seed=3)
    risk = sess.run(["prob_risk"], {"bytes": data, "lengths": lengths})[0]
    with torch.no_grad():
        logits = model(torch.from_numpy(data), torch.from_numpy(lengths), "tiny")["risk"]
    np.testing.assert_allclose(risk, torch.sigmoid(logits).numpy(), atol=1e-5)
    assert not np.allclose(risk, torch.softmax(logits, -1).numpy(), atol=1e-3)
    kind = sess.run(["prob_kind"], {"bytes": data, "lengths": lengths})[0]
    np.testing.assert_allclose(kind.sum(-1), 1.0, atol=1e-5)  # softmax heads stay softmax


def test_tier_file_holds_only_its_weights(steady_tiny):
    from picohead.models import count_params

    model, _, report = steady_tiny
    assert report.parameters < count_params(model) / 2
    assert report.size_bytes < 64 * 1024


def test_bad_arguments_are_errors_before_any_export():
    from picohead.export import export_tier
    from picohead_exporters import ExportError

    model, spec = random_model("steady")
    with pytest.raises(ExportError, match="cuda"):
        export_tier(model, spec, "tiny", precision="int8", target="cuda")
    with pytest.raises(ExportError, match="precision"):
        export_tier(model, spec, "tiny", precision="int4")


# -- slow: every family and tier, gates, int8 on a trained run --------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("family", ["steady", "bytes"])
def test_round_trip_every_tier(family, tmp_path):
    from picohead.export import export_tier

    model, spec = random_model(family, seed=1)
    for tier in spec.tiers:
        report = export_tier(model, spec, tier, out=tmp_path, precision="fp32", latency_runs=5)
        assert report.ok, report.failures
        check_round_trip(model, spec, tier, report.path)


def _broken(model: Any) -> Any:
    import torch

    bad = copy.deepcopy(model)
    torch.manual_seed(123)
    with torch.no_grad():
        for p in bad.heads.parameters():
            p.add_(torch.randn_like(p))
    return bad


@pytest.mark.slow
@pytest.mark.parametrize("family", ["steady", "bytes"])
def test_fp32_parity_gate_fails_on_a_broken_model(family, tmp_path, monkeypatch):
    from picohead.export import tier_modules
    from picohead_exporters import GateError, export_module

    model, spec = random_model(family)
    broken, _ = tier_modules(_broken(model), spec, "tiny")
    _, reference = tier_modules(model, spec, "tiny")
    with pytest.raises(GateError, match="fp32 parity") as info:
        export_module(
            broken,
            spec,
            "tiny",
            reference=reference,
            out=tmp_path,
            precision="fp32",
            latency_runs=0,
        )
    assert not info.value.report.ok
    assert info.value.report.parity_max > 1e-4
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.slow
def test_quantization_gate_fails_on_a_broken_quantizer(steady_run, tmp_path, monkeypatch):
    import picohead_exporters.export as ex
    from picohead.export import export_run, tier_graph
    from picohead.train import load_model
    from picohead_exporters import GateError

    model, spec = load_model(steady_run)
    broken_graph = tier_graph(_broken(model), spec, "tiny")
    monkeypatch.setattr(ex.quantize, "quantize_int8", lambda fp32, cfg=None: broken_graph)
    with pytest.raises(GateError, match="agreement") as info:
        export_run(steady_run, tiers="tiny", out_dir=tmp_path, precision="int8", latency_runs=0)
    (report,) = info.value.report
    assert not report.ok and report.path is None
    assert report.min_agreement < 0.995
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_int8_export_of_a_trained_run(steady_run, tmp_path):
    from picohead.export import export_run
    from picohead_exporters.inspect import inspect_model
    from picohead_runtime.model_meta import ModelMeta

    reports = export_run(steady_run, out_dir=tmp_path, precision="int8", latency_runs=20)
    assert [r.tier for r in reports] == ["tiny", "small"]
    for r in reports:
        assert r.ok, r.failures
        assert r.quant_config and r.min_agreement >= 0.995 and r.max_drop <= 0.005
        assert r.size_bytes < r.fp32_size_bytes
        assert r.latency_ms is not None and r.latency_ms > 0
        doc = inspect_model(r.path)
        assert doc["precision"] == "int8" and doc["tier"] == r.tier
        assert doc["metrics"]["kind"]["accuracy"] > 0.5
        assert (
            "MatMulInteger" in doc["ops"]
            or "DynamicQuantizeLinear" in doc["ops"]
            or "DequantizeLinear" in doc["ops"]
        )
        m = onnx.load(r.path)
        meta = ModelMeta.from_json({p.key: p.value for p in m.metadata_props}["picohead"])
        assert len(meta.data_sha256) == 64
        assert meta.metrics == r.metrics


@pytest.mark.slow
def test_fp16_for_cuda_keeps_float32_outputs(tmp_path):
    from picohead.export import export_tier

    model, spec = random_model("steady")
    r = export_tier(
        model, spec, "tiny", out=tmp_path, precision="fp16", target="cuda", latency_runs=0
    )
    assert r.ok, r.failures
    sess = _session(r.path)
    assert all(o.type == "tensor(float)" for o in sess.get_outputs())
    m = onnx.load(r.path)
    assert any(i.data_type == onnx.TensorProto.FLOAT16 for i in m.graph.initializer)


@pytest.mark.slow
@pytest.mark.parametrize("local_heads, context", [([], []), (["risk"], []), (["risk"], [3, 8])])
def test_steady_local_detector_round_trip(tmp_path, local_heads, context):
    """The max-pooled local detector (arch.local_ngrams / shape_ngrams / token_lengths) exports
    with parity, read by every head or routed to the named ones (then with detector rows per
    tier), and with context offsets (arch.local_context)."""
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    d = toy_spec("steady")
    d["arch"] = {
        **d["arch"],
        "local_ngrams": [4, 8],
        "shape_ngrams": [3, 6],
        "token_lengths": 40,
        "local_buckets": 512,
        "local_dims": {"tiny": 4, "small": 8},
        "local_hidden": {"tiny": 0, "small": 12},
        "local_heads": local_heads,
        "local_context": context,
    }
    if local_heads:  # and detector rows per tier (arch.local_rows), both tiers with units
        d["arch"]["local_rows"] = {"tiny": 128, "small": 512}
        d["arch"]["local_hidden"] = {"tiny": 4, "small": 12}
    _export_every_tier_fp32(ModelSpec.from_dict(d), 3, tmp_path)


def _export_every_tier_fp32(spec: Any, seed: int, out: Path) -> None:
    """A random model of ``spec``: every tier exports at fp32 and round-trips with parity."""
    import torch

    from picohead.export import export_tier
    from picohead.models import build_model

    torch.manual_seed(seed)
    model = build_model(spec).eval()
    for tier in spec.tiers:
        report = export_tier(model, spec, tier, out=out, precision="fp32", latency_runs=5)
        assert report.ok, report.failures
        check_round_trip(model, spec, tier, report.path)


@pytest.mark.slow
def test_steady_mean_paths_round_trip(tmp_path):
    """The mean exports with parity on both of the export's paths: bucket counts (tiny's 512
    rows) and gathers (small's 16384 rows, over EXPORT_BAG_ROWS), with positional n-grams."""
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    d = toy_spec("steady")
    d["arch"] = {**d["arch"], "positions": 16, "buckets": {"tiny": 512, "small": 16384}}
    _export_every_tier_fp32(ModelSpec.from_dict(d), 4, tmp_path)


@pytest.mark.slow
def test_steady_position_heads_round_trip(tmp_path):
    """The positional mean of the position_heads exports with parity
    on both mean paths: bucket counts (tiny) and gathers (small, over EXPORT_BAG_ROWS)."""
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    d = toy_spec("steady")
    d["arch"] = {
        **d["arch"],
        "positions": 16,
        "position_share": 0.1,
        "position_heads": ["kind"],
        "buckets": {"tiny": 512, "small": 16384},
    }
    _export_every_tier_fp32(ModelSpec.from_dict(d), 5, tmp_path)


@pytest.mark.slow
def test_position_heads_store_the_table_once(tmp_path):
    """The positional mean gathers from the shared mean's table slice: the int8 file grows by
    the extra head weights only, not by a second copy of the table (small reads 16,384 x 16)."""
    import torch

    from picohead.export import export_tier
    from picohead.models import build_model
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    sizes = {}
    for heads in ([], ["kind"]):
        d = toy_spec("steady")
        d["arch"] = {
            **d["arch"],
            "position_heads": heads,
            "buckets": {"tiny": 512, "small": 16384},
        }
        spec = ModelSpec.from_dict(d)
        torch.manual_seed(0)
        model = build_model(spec).eval()
        for tier in spec.tiers:
            r = export_tier(model, spec, tier, out=tmp_path / str(len(heads)), latency_runs=0)
            assert r.ok, r.failures
            sizes[len(heads), tier] = Path(r.path).stat().st_size
    for tier in ("tiny", "small"):
        assert sizes[1, tier] - sizes[0, tier] < 4096, sizes
