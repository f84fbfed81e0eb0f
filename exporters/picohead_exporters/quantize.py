"""Precision steps: int8 with ``onnxruntime.quantization`` (+ weight-only int8) and fp16.

Two kinds of int8, mixed per setting (:class:`Int8Config`):

- dynamic (ORT's ``quantize_dynamic``): constant-weight MatMul/Gemm are quantized by ORT, then
  :func:`dynamic_to_weight_only` turns each ``MatMulInteger`` back into a float ``MatMul`` on the
  same int8 weights (activations quantized with one scale per call made answers depend on the
  batch: content-v7 small flipped 26 of 1,200 wild-suite answers, pro 8; weight-only: 0, for
  +0.05-0.07 ms per 2 KB call). Activation x activation MatMuls (attention, masked pooling) stay
  float (``MatMulConstBOnly``).
- weight-only: the weight is stored int8 with one scale per output channel (per row, a power of
  two, for Gather tables) and a ``DequantizeLinear`` in front of a float op. The file shrinks the
  same ~4x; the arithmetic stays float, so it is the most accurate int8, and onnxruntime folds the
  dequantization into float weights once at load (the runtime's sessions set
  ``session.disable_quant_qdq=1``).

The exporter tries :data:`INT8_LADDER` in order and keeps the first setting that passes the gates.
A setting with ``fp16_outputs`` stores only the head Gemms that produce those outputs in fp16 (the
exporter derives such settings from a rung whose int8 heads failed on a few heads only).
fp16 converts weights and arithmetic but keeps float32 outputs (the runtime contract). What it does
not do: decide whether a result is good enough (``verify`` gates it).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Container, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from picohead_exporters.graph import compact_names, strip_debug

# Weight inputs that can be stored int8 weight-only: op type -> weight input index.
WEIGHT_INPUT = {"MatMul": 1, "Gemm": 1, "Conv": 1, "Gather": 0, "GatherND": 0}


@dataclass(frozen=True)
class Int8Config:
    """One way to quantize: ops for ORT's dynamic int8, then ops stored int8 weight-only.

    ``heads`` says how the task heads (the Gemm on the pooled vector) are stored: their weights
    set the logits directly, and on a weak head (near-ties between classes) int8 rounding flips
    top-1 answers, so the ladder falls back to fp16 and then fp32 head weights.
    """

    name: str
    dynamic: tuple[str, ...] = ("MatMul", "Gemm")
    # Gather tables (embeddings) are weight-only with a power-of-two scale per row: folded into
    # float rows at load, so a lookup reads float rows instead of dequantizing every gathered
    # element on each call (steady pro: ~0.3 ms of 1.9 per 2 KB window), and a scale per row is
    # finer than ORT's one scale per table.
    weight_only: tuple[str, ...] = ("Conv", "GatherND", "Gather")
    heads: str = "int8"  # "int8" (per dynamic/weight_only) | "int8w" | "fp16" | "fp32"
    row_scales: bool = False  # bag tables: one power-of-two scale per row (+1 byte/row)
    conv_integer: bool = False  # ORT ConvInteger for Conv (measured slower; not in the ladder)
    # Graph outputs whose head Gemm is stored fp16 whatever ``heads`` says (weights and bias): a
    # head Gemm whose answers int8 rounding flipped, the other heads int8.
    fp16_outputs: tuple[str, ...] = ()


INT8_LADDER = (
    # Every weight x activation product dynamic: smallest and usually fastest.
    Int8Config("int8"),
    # Heads int8 weight-only, one scale per class (float arithmetic): half the bytes of fp16 heads.
    Int8Config("int8-wheads", heads="int8w"),
    Int8Config("int8-rows-wheads", heads="int8w", row_scales=True),
    # Heads in fp16 (a Cast that onnxruntime folds at load), trunk and tables still int8.
    Int8Config("int8-fp16-heads", dynamic=("MatMul",), heads="fp16"),
    # As above with one scale per bag-table row (steady's small tiers; no-op elsewhere).
    Int8Config("int8-rows-fp16-heads", dynamic=("MatMul",), heads="fp16", row_scales=True),
    # Trunk weight-only int8 (float arithmetic: closest to fp32), heads fp16.
    Int8Config(
        "int8-weights-fp16-heads",
        dynamic=(),
        weight_only=("MatMul", "Conv", "GatherND", "Gather"),
        heads="fp16",
        row_scales=True,
    ),
    # Last resort: as above with fp32 heads.
    Int8Config(
        "int8-weights-fp32-heads",
        dynamic=(),
        weight_only=("MatMul", "Conv", "GatherND", "Gather"),
        heads="fp32",
        row_scales=True,
    ),
)


def _name_nodes(model: onnx.ModelProto) -> None:
    seen: set[str] = set()
    for i, node in enumerate(model.graph.node):
        if not node.name or node.name in seen:
            node.name = f"{node.op_type}_{i}"
        seen.add(node.name)


def quantize_int8(model: onnx.ModelProto, cfg: Int8Config = INT8_LADDER[0]) -> onnx.ModelProto:
    """int8 per ``cfg``: weight-only (first), ORT dynamic, then weight-only for the rest."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    _name_nodes(model)
    ops = cfg.dynamic + (("Conv",) if cfg.conv_integer else ())
    if cfg.fp16_outputs:  # first: the passes below then see no constant weight on these Gemms
        gemms = head_gemms(model, cfg.fp16_outputs)
        model = weights_fp16(model, {"Gemm": 1}, only=gemms)
        model = weights_fp16(model, {"Gemm": 2}, only=gemms)
    if cfg.heads == "int8w":
        # Stored int8 per output class behind a DequantizeLinear: the dynamic pass below then sees
        # no constant weight there and leaves the heads' arithmetic in float.
        model = weights_int8(model, {"Gemm": 1})
    elif cfg.heads != "int8":
        # Behind a Cast (fp16 storage) or an Identity (fp32) the heads' weights are no longer
        # initializers, so neither int8 pass touches them (ORT rewrites every Gemm as a MatMul,
        # so excluding by op type is not enough); onnxruntime folds both nodes at load.
        model = weights_fp16(model, {"Gemm": 1}, keep_fp32=cfg.heads == "fp32")
        if cfg.heads == "fp16":
            model = weights_fp16(model, {"Gemm": 2})  # the biases too
    tables = bag_tables(model)
    if tables:  # before the dynamic pass, which then sees no constant weight there
        model = weights_int8(model, {"MatMul": 1}, only=tables, per_row_pow2=cfg.row_scales)
    inits = {i.name for i in model.graph.initializer}
    if any(
        n.op_type in ops and n.input[WEIGHT_INPUT.get(n.op_type, 1)] in inits
        for n in model.graph.node
    ):
        root = logging.getLogger()
        root.addFilter(_no_preprocess_advice)
        try:
            model = _quantize_dynamic(model, ops)
        finally:
            root.removeFilter(_no_preprocess_advice)
    model = weights_int8(model, {op: WEIGHT_INPUT[op] for op in cfg.weight_only if op != "Gather"})
    if "Gather" in cfg.weight_only:
        model = weights_int8(model, {"Gather": WEIGHT_INPUT["Gather"]}, per_row_pow2=True)
    # Activations quantized with one scale per call make an answer depend on its batch (content-v7
    # small: 26 of 1,200 wild answers); the same int8 weights behind a DequantizeLinear do not.
    model = dynamic_to_weight_only(model)
    return compact_names(strip_debug(model))


def bag_tables(model: onnx.ModelProto) -> set[str]:
    """Names of the MatMuls that multiply bucket counts (a ScatterElements output) by a constant
    hash table (the ``steady`` family's small tiers).

    Dynamic int8 would quantize the counts, whose range spans 1 (one n-gram) to ~40 (a
    positional one), to 8 bits and lose the single n-grams; these tables are stored int8
    weight-only instead (float arithmetic), with one scale per embedding dim, or (ladder rungs
    with ``row_scales``) one power-of-two scale per table row: rows of frequent and rare n-grams
    differ in range by orders of magnitude, and per-dim scales flipped ~0.7 % of a trained tiny
    tier's code-language answers where per-row scales passed the gates, for one byte per row.
    """
    producer = {o: n.op_type for n in model.graph.node for o in n.output}
    inits = {i.name for i in model.graph.initializer}
    return {
        n.name
        for n in model.graph.node
        if n.op_type == "MatMul"
        and n.input[1] in inits
        and producer.get(n.input[0]) == "ScatterElements"
    }


def _no_preprocess_advice(record: logging.LogRecord) -> bool:
    # ORT's quantizer advises its shape pre-processing on every call (that step fails on
    # conv + attention graphs and is not needed for dynamic quantization), and warns about the
    # DequantizeLinear nodes that the weight-only pass put in on purpose.
    msg = record.getMessage()
    return "pre-processing" not in msg and "already quantized" not in msg


def _quantize_dynamic(model: onnx.ModelProto, ops: tuple[str, ...]) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="picohead-q-") as tmp:
        out = Path(tmp) / "q.onnx"
        quantize_dynamic(
            model,
            out,
            op_types_to_quantize=list(ops),
            per_channel=False,
            reduce_range=False,
            weight_type=QuantType.QInt8,
            # Only constant weights: activation x activation MatMuls stay float. (The quantizer
            # rewrites Gemm as MatMul + Add under new names, so nodes are not listed by name.)
            extra_options={"MatMulConstBOnly": True},
        )
        return onnx.load(out, load_external_data=False)


def conv_weights_int8(model: onnx.ModelProto) -> onnx.ModelProto:
    """Store each constant Conv weight as int8 (per output channel) + ``DequantizeLinear``."""
    return weights_int8(model, {"Conv": 1})


def _channel_axis(node: onnx.NodeProto, rank: int) -> int:
    """The weight's output-channel axis (one scale per output channel / table row)."""
    if node.op_type == "Gemm":
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        return 0 if attrs.get("transB", 0) else 1
    if node.op_type == "MatMul":
        return rank - 1
    return 0  # Conv [out, in, k]; Gather/GatherND tables [rows, dim]


def weights_int8(
    model: onnx.ModelProto,
    ops: Mapping[str, int],
    min_elements: int = 256,
    *,
    only: Container[str] | None = None,
    per_row_pow2: bool = False,
) -> onnx.ModelProto:
    """Store constant float weights of ``ops`` (op type -> weight input index) as int8, in place.

    Symmetric, one scale per output channel, followed by a ``DequantizeLinear``. Small tensors
    (< ``min_elements``) are left alone; a weight shared by several nodes is converted once.
    ``only`` restricts the pass to the nodes of these names. ``per_row_pow2``: one scale per row
    of a 2-D weight instead, a power of two stored as an int8 exponent (``Cast`` + ``Pow`` on
    initializers, which onnxruntime folds when the session loads).
    """
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    done: set[str] = set()
    new_nodes = []
    for node in g.node:
        idx = ops.get(node.op_type) if only is None or node.name in only else None
        name = node.input[idx] if idx is not None and len(node.input) > idx else None
        init = inits.get(name) if name is not None and name not in done else None
        if (
            init is not None
            and init.data_type == onnx.TensorProto.FLOAT
            and len(init.dims) >= 1
            and int(np.prod(init.dims)) >= min_elements
        ):
            done.add(init.name)
            w = numpy_helper.to_array(init).astype(np.float32)
            pow2 = per_row_pow2 and w.ndim == 2
            axis = 0 if pow2 else _channel_axis(node, w.ndim)
            moved = np.moveaxis(w, axis, 0)
            amax = np.abs(moved.reshape(moved.shape[0], -1)).max(axis=1)
            scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
            if pow2:
                exps = np.clip(np.ceil(np.log2(scale)), -127, 127).astype(np.int8)
                scale = np.exp2(exps.astype(np.float32))
            shape = [1] * w.ndim
            shape[axis] = -1
            q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
            base = init.name
            g.initializer.remove(init)
            del inits[base]
            if pow2:
                g.initializer.extend(
                    [
                        numpy_helper.from_array(q, f"{base}_int8"),
                        numpy_helper.from_array(exps, f"{base}_exp"),
                        numpy_helper.from_array(np.array(2.0, dtype=np.float32), f"{base}_two"),
                    ]
                )
                new_nodes += [
                    helper.make_node(
                        "Cast", [f"{base}_exp"], [f"{base}_expf"], to=onnx.TensorProto.FLOAT
                    ),
                    helper.make_node("Pow", [f"{base}_two", f"{base}_expf"], [f"{base}_scale"]),
                    helper.make_node(
                        "DequantizeLinear",
                        [f"{base}_int8", f"{base}_scale"],
                        [base],
                        name=f"{base}_dequant",
                        axis=0,
                    ),
                ]
                new_nodes.append(node)
                continue
            g.initializer.extend(
                [
                    numpy_helper.from_array(q, f"{base}_int8"),
                    numpy_helper.from_array(scale, f"{base}_scale"),
                    numpy_helper.from_array(np.zeros_like(scale, dtype=np.int8), f"{base}_zp"),
                ]
            )
            new_nodes.append(
                helper.make_node(
                    "DequantizeLinear",
                    [f"{base}_int8", f"{base}_scale", f"{base}_zp"],
                    [base],
                    name=f"{base}_dequant",
                    axis=axis,
                )
            )
        new_nodes.append(node)
    del g.node[:]
    g.node.extend(new_nodes)
    return model


def head_gemms(model: onnx.ModelProto, outputs: Container[str]) -> set[str]:
    """Names of the Gemm nodes that ``outputs`` (graph output names) are computed from, found by
    walking each output's producers back to the first Gemm on every path (the head Gemms; after
    the graph's fusion one Gemm may serve several heads through a Split)."""
    producer = {o: n for n in model.graph.node for o in n.output}
    found: set[str] = set()
    todo = [o.name for o in model.graph.output if o.name in outputs]
    seen: set[str] = set()
    while todo:
        node = producer.get(todo.pop())
        if node is None or node.name in seen:
            continue
        seen.add(node.name)
        if node.op_type == "Gemm":
            found.add(node.name)
        else:
            todo.extend(node.input)
    return found


def weights_fp16(
    model: onnx.ModelProto,
    ops: Mapping[str, int],
    *,
    keep_fp32: bool = False,
    only: Container[str] | None = None,
) -> onnx.ModelProto:
    """Store constant float weights of ``ops`` as fp16 followed by a Cast to float, in place.

    With ``keep_fp32`` the weight stays float32 behind an Identity (it then reads as computed,
    not constant, to the int8 passes). ``only`` restricts the pass to the nodes of these names.
    """
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    done: set[str] = set()
    new_nodes = []
    for node in g.node:
        idx = ops.get(node.op_type) if only is None or node.name in only else None
        name = node.input[idx] if idx is not None and len(node.input) > idx else None
        init = inits.get(name) if name is not None and name not in done else None
        if init is not None and init.data_type == onnx.TensorProto.FLOAT:
            done.add(init.name)
            w = numpy_helper.to_array(init)
            src = f"{init.name}_{'fp32' if keep_fp32 else 'fp16'}"
            g.initializer.remove(init)
            g.initializer.append(
                numpy_helper.from_array(w if keep_fp32 else w.astype(np.float16), src)
            )
            if keep_fp32:
                new_nodes.append(helper.make_node("Identity", [src], [init.name]))
            else:
                new_nodes.append(
                    helper.make_node("Cast", [src], [init.name], to=onnx.TensorProto.FLOAT)
                )
        new_nodes.append(node)
    del g.node[:]
    g.node.extend(new_nodes)
    return model


def convert_fp16(model: onnx.ModelProto) -> onnx.ModelProto:
    """Weights and arithmetic in fp16, inputs/outputs unchanged (uint8/int64 in, float32 out)."""
    from onnxruntime.transformers.float16 import convert_float_to_float16

    out = convert_float_to_float16(
        onnx.ModelProto.FromString(model.SerializeToString()),
        keep_io_types=True,
        op_block_list=["Range", "CumSum", "ScatterElements"],  # no fp16 scatter-add in ORT CPU
    )
    return compact_names(strip_debug(out))


__all__ = [
    "INT8_LADDER",
    "Int8Config",
    "conv_weights_int8",
    "convert_fp16",
    "quantize_int8",
    "weights_int8",
]


def dynamic_to_weight_only(model: onnx.ModelProto) -> onnx.ModelProto:
    """Rewrite every dynamic int8 product of ORT's ``quantize_dynamic`` — ``DynamicQuantizeLinear``
    on the activation, ``MatMulInteger`` with a constant int8 weight, ``Cast``, ``Mul`` by the
    product of the two scales — as weight-only int8: ``DequantizeLinear`` of the same stored weight
    and a float ``MatMul``. The file keeps its int8 weights (same size); the activation is no longer
    quantized with one scale per call, so an input's answer no longer depends on the inputs batched
    with it. A ``DynamicQuantizeLinear`` whose outputs feed anything else is left as it is."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    inits = {i.name for i in g.initializer}
    drop: set[int] = set()
    add: list[tuple[int, list[onnx.NodeProto]]] = []
    for idx, mmi in enumerate(g.node):
        if mmi.op_type != "MatMulInteger" or mmi.input[1] not in inits:
            continue
        dql = producer.get(mmi.input[0])
        if dql is None or dql.op_type != "DynamicQuantizeLinear":
            continue
        if mmi.input[2] not in dql.output:  # the activation's zero point comes from the same node
            continue
        cast = consumers.get(mmi.output[0], [])
        if len(cast) != 1 or cast[0].op_type != "Cast":
            continue
        mul = consumers.get(cast[0].output[0], [])
        if len(mul) != 1 or mul[0].op_type != "Mul":
            continue
        scale = producer.get(next(i for i in mul[0].input if i != cast[0].output[0]))
        if scale is None or scale.op_type != "Mul":
            continue
        if dql.output[1] not in scale.input:
            continue
        w_scale = next(i for i in scale.input if i != dql.output[1])
        users = [c for o in dql.output for c in consumers.get(o, [])]
        if any(c is not mmi and c is not scale for c in users):
            continue  # the quantized activation feeds something else too
        wf = f"{mmi.input[1]}_dequantized"
        new = [helper.make_node("DequantizeLinear", [mmi.input[1], w_scale, mmi.input[3]], [wf],
                                name=f"{mmi.name or idx}_weight_dq"),
               helper.make_node("MatMul", [dql.input[0], wf], [mul[0].output[0]],
                                name=f"{mmi.name or idx}_matmul")]
        for n in (dql, mmi, cast[0], mul[0], scale):
            drop.add(id(n))
        add.append((idx, new))
    if not add:
        return model
    at = {idx: nodes for idx, nodes in add}
    kept: list[onnx.NodeProto] = []
    for idx, n in enumerate(g.node):
        kept.extend(at.get(idx, []))
        if id(n) not in drop:
            kept.append(n)
    del g.node[:]
    g.node.extend(kept)
    return model
