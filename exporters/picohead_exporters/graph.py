"""ONNX graph steps of the compiler: torch module -> checked, stripped, optimized ``ModelProto``.

What it does: run the dynamo exporter with a dynamic batch and length, assert that both stayed
symbolic (the exporter has been seen to write a fixed length silently), strip the per-node debug
metadata and doc strings the exporter writes (~100 KB on a tiny model), run the onnxscript
optimizer, and describe a graph (node count, op histogram, slow reductions). What it does not do:
quantize (``quantize``) or check numbers (``verify``).
"""

from __future__ import annotations

import inspect
import logging
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx

from picohead_exporters.errors import ExportError

log = logging.getLogger(__name__)
OPSET = 18  # the dynamo exporter's default; every op the two families need exists there


def torch_to_onnx(
    module: Any,
    example: tuple[Any, Any],
    *,
    input_names: Sequence[str],
    output_names: Sequence[str],
) -> onnx.ModelProto:
    """Export ``module(bytes, lengths)`` with ``torch.onnx.export(dynamo=True)``, dims symbolic."""
    import torch

    batch, length = torch.export.Dim("batch"), torch.export.Dim("length")
    params = list(inspect.signature(module.forward).parameters)
    dynamic = {params[0]: {0: batch, 1: length}, params[1]: {0: batch}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's deprecation/rename chatter
        try:
            program = _export(torch, module, example, input_names, output_names, dynamic)
        except Exception as e:  # dynamo/exporter failures come in many types
            raise ExportError(f"torch.onnx.export failed: {type(e).__name__}: {e}") from e
    if program is None:  # pragma: no cover - dynamo=True always returns a program
        raise ExportError("torch.onnx.export returned no program")
    model = program.model_proto
    check_symbolic_inputs(model, input_names, output_names)
    return model


def _export(
    torch: Any,
    module: Any,
    example: tuple[Any, Any],
    input_names: Sequence[str],
    output_names: Sequence[str],
    dynamic: dict[str, Any],
) -> Any:
    return torch.onnx.export(
        module,
        example,
        dynamo=True,
        input_names=list(input_names),
        output_names=list(output_names),
        dynamic_shapes=dynamic,
        opset_version=OPSET,
        optimize=False,
        verbose=False,
    )


def _dims(vi: onnx.ValueInfoProto) -> list[str | int]:
    return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]


def check_symbolic_inputs(
    model: onnx.ModelProto, input_names: Sequence[str], output_names: Sequence[str]
) -> None:
    """Raise unless ``bytes`` is ``[sym, sym]``, ``lengths`` ``[sym]`` and outputs ``[sym, n]``."""
    inputs = {i.name: _dims(i) for i in model.graph.input}
    outputs = {o.name: _dims(o) for o in model.graph.output}
    want = {input_names[0]: 2, input_names[1]: 1}
    for name, rank in want.items():
        dims = inputs.get(name)
        if dims is None or len(dims) != rank or not all(isinstance(d, str) and d for d in dims):
            raise ExportError(
                f"exported input {name!r} has dims {dims}; expected {rank} symbolic dims "
                "(the exporter fixed a dynamic axis: check for shape-specialising ops)"
            )
    batch = inputs[input_names[0]][0]
    if inputs[input_names[1]][0] != batch:
        raise ExportError(f"inputs disagree on the batch dim: {inputs}")
    for name in output_names:
        dims = outputs.get(name)
        if dims is None or len(dims) != 2 or not isinstance(dims[0], str):
            raise ExportError(f"exported output {name!r} has dims {dims}; expected [batch, n]")


def _strip_graph(graph: onnx.GraphProto) -> None:
    graph.doc_string = ""
    del graph.metadata_props[:]
    for node in graph.node:
        node.doc_string = ""
        del node.metadata_props[:]
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                _strip_graph(attr.g)
            for g in attr.graphs:
                _strip_graph(g)
    for seq in (graph.input, graph.output, graph.value_info):
        for vi in seq:
            vi.doc_string = ""
            del vi.metadata_props[:]
    for init in graph.initializer:
        init.doc_string = ""
        del init.metadata_props[:]
    # Intermediate shapes are recomputed by onnxruntime at load; keeping them only costs bytes.
    del graph.value_info[:]


def strip_debug(model: onnx.ModelProto) -> onnx.ModelProto:
    """Remove doc strings, per-node metadata (stack traces, module paths) and value_info, in place."""
    model.doc_string = ""
    del model.metadata_props[:]
    _strip_graph(model.graph)
    for fn in model.functions:
        fn.doc_string = ""
        del fn.metadata_props[:]
        for node in fn.node:
            node.doc_string = ""
            del node.metadata_props[:]
    return model


def optimize(model: onnx.ModelProto) -> onnx.ModelProto:
    """onnxscript's optimizer (constant folding, dead code, inlining); then strip again."""
    import onnxscript.optimizer

    out = onnxscript.optimizer.optimize(
        model, num_iterations=3, output_size_limit=1 << 26, input_size_limit=1 << 26
    )
    assert isinstance(out, onnx.ModelProto)
    return strip_debug(out)


# Ops whose float inputs the quantizers and onnxruntime's fusions expect as initializers.
_QUANT_OPS = frozenset({"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                        "MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv"})
_NARROW = (np.int8, np.int16, np.int32)


def narrow_integer_constants(model: onnx.ModelProto, min_bytes: int = 64) -> onnx.ModelProto:
    """Store float initializers that hold only whole numbers as the narrowest of int8/int16/int32
    that holds them, each behind one ``Cast`` back to its type, in place.

    The hashed n-gram family computes its hash in float64 (exact up to 2**53) with multipliers and
    bucket offsets below 2**31: 8 bytes a value where 4 hold it exactly (1.6 KB of content-v18's
    65 KB tiny). The cast is exact, so the graph computes the same numbers; onnxruntime folds the
    casts when it loads the file. Initializers under ``min_bytes``, read by a quantization op, or
    also graph inputs stay as they are.
    """
    from onnx import numpy_helper

    g = model.graph
    inputs = {v.name for v in g.input}
    quant_read = {x for n in g.node if n.op_type in _QUANT_OPS for x in n.input}
    taken = inputs | {i.name for i in g.initializer} | {x for n in g.node for x in n.output}
    casts = []
    for init in g.initializer:
        if (init.data_type not in (onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT)
                or init.name in inputs or init.name in quant_read):
            continue
        arr = numpy_helper.to_array(init)
        if arr.nbytes < min_bytes or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            continue
        for np_type in _NARROW:
            info = np.iinfo(np_type)
            if arr.min() >= info.min and arr.max() <= info.max:
                break
        else:
            continue
        if np.dtype(np_type).itemsize >= arr.itemsize:
            continue
        name, to = init.name, init.data_type
        narrow = name + "_int"
        while narrow in taken:
            narrow += "_"
        taken.add(narrow)
        init.CopyFrom(numpy_helper.from_array(arr.astype(np_type), narrow))
        casts.append(onnx.helper.make_node("Cast", [narrow], [name], to=to))
    for node in reversed(casts):
        g.node.insert(0, node)
    return model


SLOW_REDUCTIONS = ("ReduceMean", "ReduceL2", "ReduceSumSquare")


def describe(model: onnx.ModelProto) -> dict[str, Any]:
    """Node count, op histogram and parameter count of a graph (no data read)."""
    ops = Counter(n.op_type for n in model.graph.node)
    params = 0
    for init in model.graph.initializer:
        n = 1
        for d in init.dims:
            n *= d
        params += n
    return {
        "nodes": sum(ops.values()),
        "ops": dict(sorted(ops.items())),
        "initializers": len(model.graph.initializer),
        "parameters": params,
        "slow_reductions": {op: ops[op] for op in SLOW_REDUCTIONS if ops.get(op)},
    }


def has_external_data(model: onnx.ModelProto) -> bool:
    return any(init.data_location == onnx.TensorProto.EXTERNAL for init in model.graph.initializer)


def _short(i: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        i, r = divmod(i, 36)
        out = digits[r] + out
        if not i:
            return "_" + out


def compact_names(model: onnx.ModelProto) -> onnx.ModelProto:
    """Rename intermediate tensors and initializers to short ids and drop node names, in place.

    The exporter's names (``model.heads.heads.tiny.mime.weight_Transposed_quantized``...) are a
    sizeable share of a tiny model's file. Graph inputs and outputs keep their names (the runtime
    contract). Graphs with subgraphs (If/Loop) are left unchanged.
    """
    g = model.graph
    for node in g.node:
        if any(
            a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
            for a in node.attribute
        ):
            return model
    keep = {v.name for v in g.input} | {v.name for v in g.output}
    mapping: dict[str, str] = {}

    def new(name: str) -> str:
        if not name or name in keep:
            return name
        if name not in mapping:
            mapping[name] = _short(len(mapping))
        return mapping[name]

    for init in g.initializer:
        init.name = new(init.name)
    for node in g.node:
        node.name = ""
        ins, outs = [new(x) for x in node.input], [new(x) for x in node.output]
        del node.input[:]
        node.input.extend(ins)
        del node.output[:]
        node.output.extend(outs)
    for vi in g.value_info:
        vi.name = new(vi.name)
    return model


def merge_parallel_linears(model: onnx.ModelProto, min_group: int = 2) -> onnx.ModelProto:
    """Fuse linears that read the same input into one, in place: one wide MatMul/Gemm + Split.

    The per-task heads (7 Gemms on the pooled vector) and each attention block's q/k/v projections
    become one node each; on a tiny model every node costs ~1-3 µs in onnxruntime and the int8
    path quantizes the shared input once instead of once per head. Only constant weights whose
    initializer has no other reader are merged; Gemm must have alpha = beta = 1 and no transA.
    """
    from onnx import numpy_helper

    g = model.graph
    inits = {i.name: i for i in g.initializer}
    readers: Counter[str] = Counter(x for n in g.node for x in n.input)
    groups: dict[tuple[str, str], list[onnx.NodeProto]] = {}
    for node in g.node:
        if node.op_type not in ("MatMul", "Gemm") or len(node.input) < 2:
            continue
        b = node.input[1]
        if b not in inits or readers[b] != 1 or len(inits[b].dims) != 2:
            continue
        if node.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0:
                continue
            if attrs.get("beta", 1.0) != 1.0:
                continue
            if len(node.input) > 2 and (node.input[2] not in inits or readers[node.input[2]] != 1):
                continue
        groups.setdefault((node.op_type, node.input[0]), []).append(node)

    replace: dict[int, list[onnx.NodeProto]] = {}  # id(first node) -> new nodes
    drop: set[int] = set()
    for (op, a), nodes in groups.items():
        if len(nodes) < min_group:
            continue
        ws, bs, sizes = [], [], []
        for node in nodes:
            w = numpy_helper.to_array(inits[node.input[1]])
            if op == "Gemm":
                attrs = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
                if attrs.get("transB", 0):
                    w = w.T
                n_out = w.shape[1]
                bias = (
                    numpy_helper.to_array(inits[node.input[2]]).reshape(-1)
                    if len(node.input) > 2 and node.input[2]
                    else None
                )
                if bias is not None and bias.shape[0] != n_out:
                    bias = np.broadcast_to(bias, (n_out,))
                bs.append(bias if bias is not None else np.zeros(n_out, dtype=w.dtype))
            ws.append(w)
            sizes.append(w.shape[1])
        if len({w.shape[0] for w in ws}) != 1 or len({w.dtype for w in ws}) != 1:
            continue
        base = nodes[0].output[0]
        w_name, s_name, out = f"{base}_mergedW", f"{base}_splits", f"{base}_merged"
        new_inits = [
            numpy_helper.from_array(np.concatenate(ws, axis=1), w_name),
            numpy_helper.from_array(np.array(sizes, dtype=np.int64), s_name),
        ]
        if op == "Gemm":
            new_inits.append(numpy_helper.from_array(np.concatenate(bs), f"{base}_mergedB"))
            fused = onnx.helper.make_node("Gemm", [a, w_name, f"{base}_mergedB"], [out])
        else:
            fused = onnx.helper.make_node("MatMul", [a, w_name], [out])
        split = onnx.helper.make_node("Split", [out, s_name], [n.output[0] for n in nodes], axis=-1)
        for node in nodes:
            for name in node.input[1:]:
                if name in inits:
                    g.initializer.remove(inits.pop(name))
            drop.add(id(node))
        g.initializer.extend(new_inits)
        replace[id(nodes[0])] = [fused, split]

    if replace:
        new_nodes: list[onnx.NodeProto] = []
        for node in g.node:
            new_nodes.extend(replace.get(id(node), []))
            if id(node) not in drop:
                new_nodes.append(node)
        del g.node[:]
        g.node.extend(new_nodes)
    return model
