"""Graph, quantization and gate helpers on hand-built ONNX graphs (fast: no torch export)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _graph(batch: str | int = "batch", length: str | int = "length") -> onnx.ModelProto:
    """bytes uint8[B, L], lengths int64[B] -> prob_kind float[B, 2] (a cast + tiny matmul)."""
    w = numpy_helper.from_array(np.ones((1, 2), dtype=np.float32), "w")
    nodes = [
        helper.make_node("Cast", ["lengths"], ["lf"], to=TensorProto.FLOAT, name="cast"),
        helper.make_node("Unsqueeze", ["lf", "axes"], ["l2"], name="unsq"),
        helper.make_node("MatMul", ["l2", "w"], ["logits"], name="mm"),
        helper.make_node("Softmax", ["logits"], ["prob_kind"], axis=-1, name="sm"),
    ]
    nodes[2].doc_string = "stack trace"
    nodes[2].metadata_props.add(key="pkg.torch.onnx.stack_trace", value="x" * 1000)
    g = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("bytes", TensorProto.UINT8, [batch, length]),
            helper.make_tensor_value_info("lengths", TensorProto.INT64, [batch]),
        ],
        [helper.make_tensor_value_info("prob_kind", TensorProto.FLOAT, [batch, 2])],
        [w, numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_symbolic_dims_check():
    from picohead_exporters.errors import ExportError
    from picohead_exporters.graph import check_symbolic_inputs

    names = (["bytes", "lengths"], ["prob_kind"])
    check_symbolic_inputs(_graph(), *names)
    with pytest.raises(ExportError, match="fixed a dynamic axis"):
        check_symbolic_inputs(_graph(length=37), *names)
    with pytest.raises(ExportError, match="symbolic"):
        check_symbolic_inputs(_graph(batch=1), *names)


def test_strip_debug_removes_node_metadata():
    from picohead_exporters.graph import describe, strip_debug

    m = _graph()
    before = len(m.SerializeToString())
    strip_debug(m)
    assert len(m.SerializeToString()) < before - 1000
    assert not any(n.doc_string or len(n.metadata_props) for n in m.graph.node)
    info = describe(m)
    assert info["nodes"] == 4 and info["parameters"] == 3 and not info["slow_reductions"]


def test_conv_weights_int8_matches_float_conv():
    from picohead_exporters.quantize import conv_weights_int8

    rng = np.random.default_rng(0)
    w = rng.normal(size=(32, 16, 5)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[2, 2], name="conv")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 16, "n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 32, "n"])],
        [numpy_helper.from_array(w, "w")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    x = rng.normal(size=(2, 16, 30)).astype(np.float32)
    ref = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
    q = conv_weights_int8(onnx.ModelProto.FromString(m.SerializeToString()))
    assert {i.data_type for i in q.graph.initializer} >= {TensorProto.INT8}
    assert len(q.SerializeToString()) < len(m.SerializeToString()) / 2
    got = ort.InferenceSession(q.SerializeToString()).run(None, {"x": x})[0]
    assert np.abs(got - ref).max() < 0.02 * np.abs(ref).max()


def test_quantize_int8_skips_activation_matmuls():
    """Only constant-weight MatMuls are quantized (attention/pooling matmuls stay float), and they
    end weight-only: an int8 weight behind a DequantizeLinear, float arithmetic (no activation
    quantized per call, so no answer depends on its batch)."""
    from picohead_exporters.quantize import quantize_int8

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(size=(16, 16)).astype(np.float32), "w")
    g = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"], name="const_mm"),
            helper.make_node("MatMul", ["h", "x2"], ["y"], name="act_mm"),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 16]),
            helper.make_tensor_value_info("x2", TensorProto.FLOAT, [16, 4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 4])],
        [w],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    q = quantize_int8(model)
    ops = [n.op_type for n in q.graph.node]
    assert "MatMulInteger" not in ops and "DynamicQuantizeLinear" not in ops
    assert ops.count("MatMul") == 2 and ops.count("DequantizeLinear") == 1
    inits = {i.name: i for i in q.graph.initializer}
    dq = next(n for n in q.graph.node if n.op_type == "DequantizeLinear")
    assert inits[dq.input[0]].data_type in (TensorProto.INT8, TensorProto.UINT8)
    import onnxruntime as ort

    x = rng.normal(size=(5, 16)).astype(np.float32)
    x2 = rng.normal(size=(16, 4)).astype(np.float32)
    s = ort.InferenceSession(q.SerializeToString(), providers=["CPUExecutionProvider"])
    together = s.run(None, {"x": x, "x2": x2})[0]
    alone = np.concatenate([s.run(None, {"x": x[i:i + 1], "x2": x2})[0] for i in range(5)])
    # batch-invariant up to float rounding (no per-call activation scale any more)
    assert np.allclose(together, alone, rtol=1e-5, atol=1e-5)
    ref = x @ numpy_helper.to_array(w) @ x2
    assert np.abs(together - ref).max() < 0.05 * np.abs(ref).max()


def _spec():
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    return ModelSpec.from_dict(toy_spec("steady"))


def test_decisions_and_agreement_for_multilabel_heads():
    from picohead_exporters import verify

    spec = _spec()
    risk = spec.head("risk")
    p = np.array([[0.9, 0.1], [0.49, 0.51]], dtype=np.float32)
    assert verify.decisions(risk, p).tolist() == [[True, False], [False, True]]
    # Multilabel "top-1" = every on/off decision; a flip of either label is a disagreement.
    q = np.array([[0.9, 0.1], [0.51, 0.51]], dtype=np.float32)
    n = 2
    ref = [np.full((n, 3), 1 / 3, np.float32), np.full((n, 3), 1 / 3, np.float32), p]
    new = [ref[0], ref[1], q]
    rows = verify.compare_heads(spec, ref, new, None, None)
    assert rows["risk"]["agreement"] == 0.5
    fails = verify.gate_failures(rows, "int8")
    assert len(fails) == 1 and "risk" in fails[0]


def test_accuracy_drop_gate_uses_labelled_samples_only():
    from picohead_exporters import verify

    spec = _spec()
    n = 400
    rng = np.random.default_rng(0)
    kind = rng.dirichlet(np.ones(3), size=n).astype(np.float32)
    y = kind.argmax(-1).astype(np.int32)
    worse = kind.copy()
    worse[:4] = worse[:4, ::-1]  # 4 of 400 flipped: 99.0 % agreement, -1 point
    other = np.full((n, 3), 1 / 3, np.float32)
    risk = np.full((n, 2), 0.2, np.float32)
    labels = {"kind": y, "lang": np.full(n, -1, np.int32), "risk": np.zeros((n, 2), np.float32)}
    masks = {"kind": np.ones(n, bool), "lang": np.zeros(n, bool), "risk": np.ones(n, bool)}
    rows = verify.compare_heads(spec, [kind, other, risk], [worse, other, risk], labels, masks)
    assert rows["kind"]["score_ref"] == 1.0 and rows["kind"]["drop"] >= 0.005
    assert "drop" not in rows["lang"]  # no labels: agreement only, over every sample
    fails = verify.gate_failures(rows, "int8")
    assert any("agreement" in f for f in fails) and any("drop" in f for f in fails)


def test_parity_cases_cover_one_byte_and_full_window():
    from picohead_exporters.verify import parity_cases

    windows = np.arange(5 * 64, dtype=np.uint8).reshape(5, 64)
    lengths = np.array([64, 10, 3, 64, 0])
    cases = parity_cases(windows, lengths, 64)
    shapes = {k: v[0].shape for k, v in cases.items()}
    assert shapes == {
        "batch1-len64": (1, 64),
        "batch1-len1": (1, 1),
        "batch5-len64": (5, 64),
        "batch5-len1": (5, 1),
    }
    assert cases["batch5-len1"][1].tolist() == [1, 1, 1, 1, 0]


def test_validation_data_comes_from_the_run(tmp_path):
    """--calib wins; else the run's val manifest; else the sources training held out."""
    from picohead.export import load_validation
    from picohead.testing import write_toy_corpus
    from picohead.train import TrainConfig, write_run_config
    from picohead_runtime.spec import load_spec

    corpus = write_toy_corpus(tmp_path / "toy", n_train=120, n_eval=30)
    spec = load_spec(corpus / "spec-steady.json")
    run = tmp_path / "run"
    write_run_config(run, spec, TrainConfig(), {"train": str(corpus / "train.jsonl")})
    held_out, name = load_validation(run, spec)
    assert "held-out" in name and 0 < len(held_out) < 120
    calib, name = load_validation(run, spec, calib=corpus / "test.jsonl")
    assert len(calib) == 30 and name.endswith("test.jsonl")
    write_run_config(run, spec, TrainConfig(), {"train": "x", "val": str(corpus / "val.jsonl")})
    val, name = load_validation(run, spec)
    assert len(val) == 30 and name.endswith("val.jsonl")


@pytest.mark.parametrize("heads", ["int8", "fp16", "fp32"])
def test_head_weights_precision_in_the_int8_ladder(heads):
    """A setting's ``heads`` decides how the Gemm heads are stored; the result stays close."""
    from picohead_exporters.quantize import Int8Config, quantize_int8

    rng = np.random.default_rng(0)
    w = rng.normal(size=(64, 40)).astype(np.float32)  # [K, N], transB = 0 like merged heads
    b = rng.normal(size=(40,)).astype(np.float32)
    g = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="heads")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 40])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    q = quantize_int8(m, Int8Config("t", heads=heads))
    types = {i.data_type for i in q.graph.initializer}
    want = {"int8": TensorProto.INT8, "fp16": TensorProto.FLOAT16, "fp32": TensorProto.FLOAT}
    assert want[heads] in types
    if heads != "int8":
        assert TensorProto.INT8 not in types and TensorProto.UINT8 not in types
    x = rng.normal(size=(8, 64)).astype(np.float32)
    ref = x @ w + b
    got = ort.InferenceSession(q.SerializeToString()).run(None, {"x": x})[0]
    tol = {"int8": 0.1, "fp16": 1e-2, "fp32": 1e-4}[heads]
    assert np.abs(got - ref).max() < tol * np.abs(ref).max()


def test_bag_table_rows_get_their_own_power_of_two_scale():
    """A table whose rows differ in range by 1000x keeps every row's precision (per-row scales,
    stored as int8 exponents); one scale per column would round the small rows to zero."""
    from picohead_exporters.quantize import weights_int8

    rng = np.random.default_rng(0)
    w = rng.normal(size=(64, 12)).astype(np.float32)
    w[::2] *= 1e-3  # rows of rare n-grams: tiny values
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="bag")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 12])],
        [numpy_helper.from_array(w, "w")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    q = weights_int8(
        onnx.ModelProto.FromString(m.SerializeToString()),
        {"MatMul": 1},
        only={"bag"},
        per_row_pow2=True,
    )
    types = {i.name: i.data_type for i in q.graph.initializer}
    assert types["w_int8"] == TensorProto.INT8 and types["w_exp"] == TensorProto.INT8
    x = np.eye(64, dtype=np.float32)  # read every row back
    got = ort.InferenceSession(q.SerializeToString()).run(None, {"x": x})[0]
    rel = np.abs(got - w).max(axis=1) / np.abs(w).max(axis=1)
    assert rel.max() < 2 / 127 + 1e-6  # at most one (power-of-two widened) step per row


def test_gather_tables_are_weight_only_int8_and_exact_after_load():
    """Embedding tables are stored int8 with a power-of-two scale per row (no per-call
    dequantization of gathered rows), and the runtime's session reads them back within one
    quantization step of each row."""
    from picohead_exporters.quantize import INT8_LADDER, quantize_int8
    from picohead_runtime.model import session_options

    rng = np.random.default_rng(1)
    table = rng.normal(size=(300, 8)).astype(np.float32)
    table[::3] *= 1e-3
    g = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["y"], axis=0, name="emb")],
        "g",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 8])],
        [numpy_helper.from_array(table, "table")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    for cfg in INT8_LADDER:
        q = quantize_int8(m, cfg)
        stored = {tuple(i.dims): i.data_type for i in q.graph.initializer}
        assert stored[(300, 8)] == TensorProto.INT8, cfg.name  # the table
        assert stored[(300,)] == TensorProto.INT8, cfg.name  # one exponent per row
        assert "DynamicQuantizeLinear" not in {n.op_type for n in q.graph.node}
        sess = ort.InferenceSession(
            q.SerializeToString(), session_options(1), providers=["CPUExecutionProvider"]
        )
        got = sess.run(None, {"ids": np.arange(300, dtype=np.int64)})[0]
        rel = np.abs(got - table).max(axis=1) / np.abs(table).max(axis=1)
        assert rel.max() < 2 / 127 + 1e-6, cfg.name


def test_portable_name_keeps_no_machine_folders():
    from picohead_exporters.export import portable_name

    assert portable_name("/home/me/corpus-r5/val.jsonl") == "corpus-r5/val.jsonl"
    assert portable_name("val.jsonl") == "val.jsonl"


def _two_head_graph(rng: np.random.Generator) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """x -> trunk MatMul -> two head Gemms -> prob_a, prob_b (Softmax)."""
    w = {  # small weights: unsaturated probabilities
        "trunk": rng.normal(scale=0.2, size=(32, 32)).astype(np.float32),
        "wa": rng.normal(scale=0.2, size=(32, 20)).astype(np.float32),
        "ba": rng.normal(size=(20,)).astype(np.float32),
        "wb": rng.normal(scale=0.2, size=(32, 12)).astype(np.float32),
        "bb": rng.normal(size=(12,)).astype(np.float32),
    }
    nodes = [
        helper.make_node("MatMul", ["x", "trunk"], ["z"], name="trunk_mm"),
        helper.make_node("Gemm", ["z", "wa", "ba"], ["la"], name="head_a"),
        helper.make_node("Gemm", ["z", "wb", "bb"], ["lb"], name="head_b"),
        helper.make_node("Softmax", ["la"], ["prob_a"], axis=-1, name="sa"),
        helper.make_node("Softmax", ["lb"], ["prob_b"], axis=-1, name="sb"),
    ]
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 32])],
        [
            helper.make_tensor_value_info("prob_a", TensorProto.FLOAT, ["b", 20]),
            helper.make_tensor_value_info("prob_b", TensorProto.FLOAT, ["b", 12]),
        ],
        [numpy_helper.from_array(v, k) for k, v in w.items()],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), w


def test_fp16_outputs_store_only_their_head_gemm_in_fp16():
    """``fp16_outputs`` finds the Gemm behind each named output (not the trunk before it) and
    stores it fp16; the other head and the trunk stay int8."""
    from picohead_exporters.quantize import Int8Config, head_gemms, quantize_int8

    rng = np.random.default_rng(0)
    m, w = _two_head_graph(rng)
    assert head_gemms(m, {"prob_b"}) == {"head_b"}
    assert head_gemms(m, {"prob_a", "prob_b"}) == {"head_a", "head_b"}
    q = quantize_int8(m, Int8Config("t", heads="int8w", fp16_outputs=("prob_b",)))
    stored = {tuple(i.dims): i.data_type for i in q.graph.initializer}
    assert stored[(32, 12)] == TensorProto.FLOAT16 and stored[(12,)] == TensorProto.FLOAT16
    assert stored[(32, 20)] == TensorProto.INT8 and stored[(32, 32)] == TensorProto.INT8
    x = rng.normal(size=(8, 32)).astype(np.float32)
    z = x @ w["trunk"]
    lb = z @ w["wb"] + w["bb"]
    ref_b = np.exp(lb - lb.max(1, keepdims=True))
    ref_b /= ref_b.sum(1, keepdims=True)
    got_a, got_b = ort.InferenceSession(q.SerializeToString()).run(None, {"x": x})
    assert got_a.shape == (8, 20)
    assert np.abs(got_b - ref_b).max() < 0.02  # the trunk's int8 step, not the head's


def test_ladder_tries_failing_heads_in_fp16_before_every_head_in_fp16(monkeypatch):
    """When int8 heads fail on some heads only, those heads' Gemms alone go fp16 (a smaller
    file) before the ladder's rungs with every head in fp16; the first that passes wins."""
    from picohead_exporters import export as ex
    from picohead_exporters import quantize, verify

    spec = _spec_two_heads()
    tried: list[quantize.Int8Config] = []

    def fake_quantize(model, cfg):
        tried.append(cfg)
        return model

    def fake_compare(spec, out32, qout, labels, masks):
        cfg = tried[-1]
        fixed = cfg.heads in ("fp16", "fp32") or "prob_b" in cfg.fp16_outputs
        b = 1.0 if fixed else 0.99  # head b flips answers under int8 whatever the trunk
        a = 0.999 if cfg.row_scales or cfg.heads != "int8" else 0.99  # a needs row scales
        return {"a": {"n": 100, "agreement": a}, "b": {"n": 100, "agreement": b}}

    monkeypatch.setattr(quantize, "quantize_int8", fake_quantize)
    monkeypatch.setattr(ex.scoring, "session", lambda blob: None)
    monkeypatch.setattr(verify, "ort_predict", lambda sess, names: None)
    monkeypatch.setattr(verify, "predict_all", lambda run, w, lens, n: [])
    monkeypatch.setattr(verify, "compare_heads", fake_compare)
    report = ex.ExportReport(tier="tiny", family="f", precision="int8", target="cpu")
    gates = ex._Gates(np.zeros((1, 4), np.uint8), np.ones(1, np.int64), None, None)
    m, _ = _two_head_graph(np.random.default_rng(0))
    ex._lower_precision(m, [], spec, "int8", gates, report)
    names = [c.name for c in tried]
    # int8 failed both heads (no mixed rung: that is the fp16-heads rungs' file); int8-wheads
    # and int8-rows-wheads failed b only, and the first of their mixed rungs passes.
    assert names == ["int8", "int8-wheads", "int8-rows-wheads", "int8-wheads+fp16:b"]
    assert report.quant_config == "int8-wheads+fp16:b"
    assert tried[-1].fp16_outputs == ("prob_b",)


def _spec_two_heads():
    from picohead_runtime.spec import ModelSpec

    return ModelSpec.from_dict(
        {
            "name": "t",
            "heads": [
                {"name": "a", "kind": "softmax", "labels": ["x", "y"]},
                {"name": "b", "kind": "softmax", "labels": ["x", "y"]},
            ],
        }
    )


def test_whole_number_constants_are_stored_narrow_and_compute_the_same():
    """float64 hash multipliers below 2**31 become int32 and an integer-valued float32 kernel int8,
    each behind one Cast; fractions, small tensors and quantization scales stay as they are, a
    name already taken is not reused, and the outputs are bit-identical."""
    from picohead_exporters.graph import narrow_integer_constants

    rng = np.random.default_rng(0)
    mult = rng.integers(1, 2**31 - 1, size=(4, 16)).astype(np.float64)
    kern = rng.integers(-3, 4, size=(16, 8)).astype(np.float32)
    frac = rng.random((8, 3)).astype(np.float32)
    scale = np.full(16, 2.0, dtype=np.float32)  # whole numbers, but a DequantizeLinear scale
    q = rng.integers(-100, 100, size=16).astype(np.int8)
    nodes = [
        helper.make_node("Cast", ["x"], ["xd"], to=TensorProto.DOUBLE),
        helper.make_node("MatMul", ["xd", "mult"], ["h"]),
        helper.make_node("Cast", ["h"], ["hf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hf", "small"], ["hs"]),
        helper.make_node("DequantizeLinear", ["q", "scale"], ["dq"], axis=0),
        helper.make_node("Add", ["hs", "dq"], ["hq"]),
        helper.make_node("MatMul", ["hq", "kern"], ["k"]),
        helper.make_node("MatMul", ["k", "frac"], ["mult_int"]),  # the name a cast would take
        helper.make_node("Identity", ["mult_int"], ["y"]),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in (
        (mult, "mult"), (kern, "kern"), (frac, "frac"), (scale, "scale"), (q, "q"),
        (np.array([3.0], dtype=np.float32), "small"))]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    before = model.SerializeToString()
    narrow_integer_constants(model)
    kinds = {i.name: i.data_type for i in model.graph.initializer}
    assert kinds["mult_int_"] == TensorProto.INT32 and kinds["kern_int"] == TensorProto.INT8
    assert kinds["frac"] == kinds["scale"] == kinds["small"] == TensorProto.FLOAT
    assert "mult" not in kinds and "kern" not in kinds
    assert len(model.SerializeToString()) < len(before) - 200
    x = (rng.random((2, 4)) * 10).astype(np.float32)
    run = [ort.InferenceSession(b).run(None, {"x": x})[0]
           for b in (before, model.SerializeToString())]
    assert np.array_equal(run[0], run[1])
