"""Precision steps: dynamic int8 with ``onnxruntime.quantization`` and fp16 conversion.

int8 is ORT's dynamic quantization, restricted to nodes whose weight is a constant: MatMul/Gemm
(``MatMulInteger``), Gather (an int8 table plus ``DequantizeLinear``) and, optionally, Conv.
Activation x activation MatMuls (attention, masked pooling) stay float: quantizing them costs
accuracy and buys nothing on a tiny model. Conv weights can be stored int8 in two ways: ORT's
``ConvInteger`` (``conv="integer"``) or weight-only (``conv="weight"``: an int8 initializer and a
``DequantizeLinear`` in front of a float Conv; the file shrinks, the arithmetic stays float).
fp16 converts weights and arithmetic but keeps float32 outputs (the runtime contract).

What it does not do: decide whether the result is good enough (``verify`` gates it).
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from picohead_exporters.graph import compact_names, strip_debug


@dataclass(frozen=True)
class Int8Config:
    """One way to quantize; the exporter tries a ladder of these and keeps the first that passes."""

    name: str
    ops: tuple[str, ...] = ("MatMul", "Gemm", "Gather")
    conv: str = "weight"  # "weight" (int8 storage, float math) | "integer" (ConvInteger) | "none"
    per_channel: bool = False


INT8_LADDER = (
    Int8Config("int8"),
    Int8Config("int8-per-channel", per_channel=True),
    Int8Config("int8-no-gather", ops=("MatMul", "Gemm")),
    Int8Config("int8-no-conv", conv="none"),
)


def _const_weight_nodes(model: onnx.ModelProto, ops: tuple[str, ...]) -> list[str]:
    inits = {i.name for i in model.graph.initializer}
    names = []
    for node in model.graph.node:
        if node.op_type not in ops:
            continue
        weight = node.input[0] if node.op_type == "Gather" else node.input[1]
        if weight in inits and node.name:
            names.append(node.name)
    return names


def _name_nodes(model: onnx.ModelProto) -> None:
    seen: set[str] = set()
    for i, node in enumerate(model.graph.node):
        if not node.name or node.name in seen:
            node.name = f"{node.op_type}_{i}"
        seen.add(node.name)


def quantize_int8(model: onnx.ModelProto, cfg: Int8Config = INT8_LADDER[0]) -> onnx.ModelProto:
    """Dynamic int8 of constant-weight MatMul/Gemm/Gather (+ Conv per ``cfg.conv``)."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    _name_nodes(model)
    ops = cfg.ops + (("Conv",) if cfg.conv == "integer" else ())
    nodes = _const_weight_nodes(model, ops)
    if nodes:
        root = logging.getLogger()
        root.addFilter(_no_preprocess_advice)
        try:
            model = _quantize_dynamic(model, ops, cfg)
        finally:
            root.removeFilter(_no_preprocess_advice)
    # Constant weights the dynamic quantizer leaves alone are stored int8 (weight-only): conv
    # kernels (per cfg.conv) and GatherND tables (a sliced embedding indexed as ``w[ids]``).
    model = weights_int8(model, {"GatherND": 0, **({"Conv": 1} if cfg.conv == "weight" else {})})
    return compact_names(strip_debug(model))


def _no_preprocess_advice(record: logging.LogRecord) -> bool:
    # ORT's quantizer advises its shape pre-processing on every call; that step fails on
    # conv + attention graphs and is not needed for dynamic quantization.
    return "pre-processing" not in record.getMessage()


def _quantize_dynamic(
    model: onnx.ModelProto, ops: tuple[str, ...], cfg: Int8Config
) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="picohead-q-") as tmp:
        out = Path(tmp) / "q.onnx"
        quantize_dynamic(
            model,
            out,
            op_types_to_quantize=list(ops),
            per_channel=cfg.per_channel,
            reduce_range=False,
            weight_type=QuantType.QInt8,
            extra_options={"MatMulConstBOnly": True},
        )
        return onnx.load(out, load_external_data=False)


def conv_weights_int8(model: onnx.ModelProto) -> onnx.ModelProto:
    """Store each constant Conv weight as int8 (per output channel) + ``DequantizeLinear``."""
    return weights_int8(model, {"Conv": 1})


def weights_int8(
    model: onnx.ModelProto, ops: dict[str, int], min_elements: int = 256
) -> onnx.ModelProto:
    """Store constant float weights of ``ops`` (op type -> weight input index) as int8.

    Symmetric, one scale per slice along axis 0 (output channel / table row), followed by a
    ``DequantizeLinear``: the file shrinks ~4x, the arithmetic stays float. Small tensors
    (< ``min_elements``) are left alone; a weight shared by several nodes is converted once.
    """
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    done: set[str] = set()
    new_nodes = []
    for node in g.node:
        idx = ops.get(node.op_type)
        name = node.input[idx] if idx is not None and len(node.input) > idx else None
        if name is not None and name in done:
            pass
        elif (
            name is not None
            and name in inits
            and inits[name].data_type == onnx.TensorProto.FLOAT
            and len(inits[name].dims) >= 1
            and int(np.prod(inits[name].dims)) >= min_elements
        ):
            done.add(name)
            w_init = inits[name]
            w = numpy_helper.to_array(w_init).astype(np.float32)
            amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
            scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
            q = np.clip(np.round(w / scale.reshape(-1, *([1] * (w.ndim - 1)))), -127, 127)
            base = w_init.name
            g.initializer.remove(w_init)
            del inits[base]
            g.initializer.extend(
                [
                    numpy_helper.from_array(q.astype(np.int8), f"{base}_int8"),
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
                    axis=0,
                )
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
        op_block_list=["Range", "CumSum"],
    )
    return compact_names(strip_debug(out))
