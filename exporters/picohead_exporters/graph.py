"""ONNX graph steps of the compiler: torch module -> checked, stripped, optimized ``ModelProto``.

What it does: run the dynamo exporter with a dynamic batch and length, assert that both stayed
symbolic (the exporter has been seen to write a fixed length silently), strip the per-node debug
metadata and doc strings the exporter writes (~100 KB on a tiny model), run the onnxscript
optimizer, and describe a graph (node count, op histogram, slow reductions). What it does not do:
quantize (``quantize``) or check numbers (``verify``).
"""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

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
    params = list(__import__("inspect").signature(module.forward).parameters)
    dynamic = {params[0]: {0: batch, 1: length}, params[1]: {0: batch}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's deprecation/rename chatter
        program = torch.onnx.export(
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
    if program is None:  # pragma: no cover - dynamo=True always returns a program
        raise ExportError("torch.onnx.export returned no program")
    model = program.model_proto
    check_symbolic_inputs(model, input_names, output_names)
    return model


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
