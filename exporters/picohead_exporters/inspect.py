"""Read an exported picohead ONNX file back: its embedded metadata, graph figures and sizes.

What it does: parse ``metadata_props["picohead"]`` with the runtime's own reader
(:class:`picohead_runtime.model_meta.ModelMeta`), so what ``inspect`` shows is what the runtime will
load; count nodes, ops and parameters. What it does not do: run the model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import onnx

from picohead_exporters.errors import ExportError
from picohead_exporters.graph import describe, has_external_data
from picohead_runtime.model_meta import META_KEY, ModelMeta


def read_meta(model: onnx.ModelProto, source: str = "model") -> ModelMeta:
    props = {p.key: p.value for p in model.metadata_props}
    if META_KEY not in props:
        raise ExportError(f"{source}: no {META_KEY!r} metadata; not an exported picohead model")
    return ModelMeta.from_json(props[META_KEY], source=source)


def inspect_model(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Everything worth knowing about an exported file, as a JSON-ready dict."""
    p = Path(path)
    try:
        model = onnx.load(p, load_external_data=False)
    except Exception as e:  # onnx raises DecodeError/OSError variants
        raise ExportError(f"{p}: cannot read as ONNX ({e})") from None
    meta = read_meta(model, str(p))
    info = describe(model)

    def dims(vi: onnx.ValueInfoProto) -> list[Any]:
        return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]

    return {
        "path": str(p),
        "file_bytes": p.stat().st_size,
        "self_contained": not has_external_data(model),
        "name": meta.spec.name,
        "family": meta.spec.family,
        "tier": meta.tier,
        "precision": meta.precision,
        "target": meta.target,
        "picohead_version": meta.picohead_version,
        "data_sha256": meta.data_sha256,
        "window": meta.spec.window.to_dict(),
        "tiers": list(meta.spec.tiers),
        "heads": [
            {
                "name": h.name,
                "kind": h.kind,
                "n_labels": len(h.labels),
                "labels": list(h.labels),
                "gate": h.gate.to_dict() if h.gate else None,
                "threshold": h.threshold,
                "disabled_labels": list(h.disabled_labels),
            }
            for h in meta.spec.heads
        ],
        "inputs": {i.name: dims(i) for i in model.graph.input},
        "outputs": {o.name: dims(o) for o in model.graph.output},
        "opset": {o.domain or "ai.onnx": o.version for o in model.opset_import},
        "nodes": info["nodes"],
        "parameters": info["parameters"],
        "ops": info["ops"],
        "metrics": dict(meta.metrics),
        "extra": dict(meta.extra),
        "spec": meta.spec.to_dict(),
    }


def format_inspect(doc: dict[str, Any], *, all_labels: bool = False) -> str:
    """A human-readable summary of :func:`inspect_model`'s result."""
    lines = [
        f"{doc['path']}",
        f"  model      {doc['name']} ({doc['family']}), tier {doc['tier']} of "
        f"{', '.join(doc['tiers'])}",
        f"  precision  {doc['precision']} for {doc['target']}; picohead {doc['picohead_version']}",
        f"  size       {doc['file_bytes'] / 1024:.1f} KB"
        + ("" if doc["self_contained"] else " + EXTERNAL DATA")
        + f", {doc['nodes']} nodes, {doc['parameters']:,} parameters",
        f"  window     head {doc['window']['head']} + tail {doc['window']['tail']} bytes",
        f"  data       sha256 {doc['data_sha256'][:16] or '-'}",
        "  inputs     " + ", ".join(f"{k}{v}" for k, v in doc["inputs"].items()),
        "  heads:",
    ]
    for h in doc["heads"]:
        gate = f", gated on {h['gate']['head']} in {h['gate']['labels']}" if h["gate"] else ""
        labels = h["labels"] if all_labels or len(h["labels"]) <= 12 else h["labels"][:12] + ["…"]
        m = doc["metrics"].get(h["name"], {})
        score = m.get("accuracy", m.get("micro_f1"))
        score_s = f", val {'acc' if 'accuracy' in m else 'micro-F1'} {score:.3f}" if m else ""
        lines.append(
            f"    {h['name']:<12} {h['kind']:<10} {h['n_labels']:>3} labels{gate}{score_s}"
        )
        lines.append(f"      {', '.join(labels)}")
        if h.get("disabled_labels"):  # calibration switched these off: the runtime never gives them
            lines.append(
                f"      disabled (too weak on validation): {', '.join(h['disabled_labels'])}"
            )
    return "\n".join(lines)
