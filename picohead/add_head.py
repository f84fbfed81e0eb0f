"""Add a head to a trained run without touching it: the trunk is frozen, the new head is trained on
features the frozen trunk computes, and every existing weight is copied bit for bit.

Because the trunk is fixed, each tier's features are computed once for the new head's (few hundred)
examples, and the new per-tier linear heads train in seconds. The result is a new run directory
(same layout as ``picohead train``'s), so ``picohead eval`` and ``picohead export`` work on it as on
any other run. What it does not do: fine-tune the trunk (use ``picohead train`` for that) or
change existing heads.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from picohead.dataset import WindowData, load_manifest, split_by_source
from picohead.evaluate import evaluate_logits
from picohead.models import build_model
from picohead.run import RUN_VERSION, RunDir
from picohead.train import batch_tensors, load_model
from picohead_runtime.spec import HeadSpec, ModelSpec, SpecError

log = logging.getLogger(__name__)


def parse_new_heads(doc: Any, spec: ModelSpec, source: str) -> ModelSpec:
    """The run's spec with the heads of ``doc`` (one head object or ``{"heads": [...]}``) appended."""
    heads = doc.get("heads") if isinstance(doc, dict) and "heads" in doc else [doc]
    if isinstance(doc, dict) and "heads" in doc and set(doc) != {"heads"}:
        extra = sorted(set(doc) - {"heads"})[0]
        raise SpecError(f"{source}: {extra}: unknown key beside 'heads'; give one head object or "
                        "{'heads': [...]} alone")
    if not isinstance(heads, list) or not heads:
        raise SpecError(f"{source}: give one head object or {{'heads': [...]}}")
    d = spec.to_dict()
    clash = [
        h.get("name") for h in heads if isinstance(h, dict) and h.get("name") in spec.head_names
    ]
    if clash:
        raise SpecError(f"{source}: head {clash[0]!r} already exists in the run; choose a new name")
    d["heads"] = d["heads"] + heads
    return ModelSpec.from_dict(d, source=source)


@torch.no_grad()
def tier_features(model: Any, data: WindowData, tier: str, batch_size: int = 256) -> torch.Tensor:
    model.eval()
    out = []
    for s in range(0, len(data), batch_size):
        idx = np.arange(s, min(len(data), s + batch_size))
        x, lengths = batch_tensors(data, idx)
        out.append(model.features(x, lengths, tier))
    return torch.cat(out) if out else torch.zeros(0)


def _train_linear(
    lin: torch.nn.Linear,
    head: HeadSpec,
    feats: torch.Tensor,
    data: WindowData,
    epochs: int,
    lr: float,
    standardize: bool = False,
) -> None:
    m = torch.from_numpy(data.label_mask[head.name])
    x = feats[m]
    y = torch.from_numpy(data.labels[head.name])[m]
    if len(x) == 0:
        raise SpecError(f"no training sample carries a label for the new head {head.name!r}")
    # Optionally train on standardised features (the trunk's pooled features are small, std
    # ~0.05-0.2, and a plain probe underfits them), then fold the scaling into the weights (still
    # one Linear). The folded weights are ~1/std larger, so the head also amplifies the int8
    # trunk's rounding: better fp32 accuracy, but int8 exports may miss the agreement gates.
    mu, sd = x.mean(0), x.std(0, unbiased=False) + 1e-6
    if not standardize:
        mu, sd = torch.zeros_like(mu), torch.ones_like(sd)
    x = (x - mu) / sd
    opt = torch.optim.AdamW(lin.parameters(), lr=lr, weight_decay=1e-3)
    gen = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        for idx in torch.randperm(len(x), generator=gen).split(64):
            out = lin(x[idx])
            if head.multilabel:
                loss = F.binary_cross_entropy_with_logits(out, y[idx])
            else:
                loss = F.cross_entropy(out, y[idx].long())
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        lin.bias.sub_((lin.weight * (mu / sd)).sum(1))
        lin.weight.div_(sd)


def add_head(
    run_dir: str | Path,
    head_doc: Any,
    data_path: str | Path,
    out_dir: str | Path,
    *,
    val_path: str | Path | None = None,
    epochs: int = 200,
    lr: float = 1e-2,
    standardize: bool = False,
    cache_dir: str | Path | None = None,
    source: str = "head spec",
) -> dict[str, Any]:
    """Train the new head(s) on ``run_dir``'s frozen trunk and write a new run to ``out_dir``."""
    run_dir, new_run = Path(run_dir), RunDir(out_dir)
    out = new_run.path
    if new_run.best.exists():
        raise FileExistsError(f"{out} already holds a run; choose a new --out")
    old_model, old_spec = load_model(run_dir)
    _, cfg, info = RunDir(run_dir).read_config()
    spec = parse_new_heads(head_doc, old_spec, source)
    new_heads = [h for h in spec.heads if h.name not in old_spec.head_names]
    model = build_model(spec)
    missing, unexpected = model.load_state_dict(old_model.state_dict(), strict=False)
    new_keys = {k for k in missing if any(f".{h.name}." in k for h in new_heads)}
    if unexpected or set(missing) != new_keys:
        raise RuntimeError(f"trunk mismatch: missing={missing} unexpected={unexpected}")
    for p in model.parameters():
        p.requires_grad_(False)

    # The new heads need labels only for themselves; other heads' labels are ignored.
    head_only = ModelSpec.from_dict({**spec.to_dict(), "heads": [h.to_dict() for h in new_heads]})
    train_data = load_manifest(data_path, head_only, cache_dir=cache_dir)
    if val_path is not None:
        val_data = load_manifest(val_path, head_only, cache_dir=cache_dir)
    else:
        train_data, val_data = split_by_source(train_data, 0.25)
    metrics: dict[str, Any] = {}
    for tier in spec.tiers:
        f_train = tier_features(model, train_data, tier)
        f_val = tier_features(model, val_data, tier)
        logits = {}
        for h in new_heads:
            lin = model.heads.heads[tier][h.name]  # type: ignore[index]
            for p in lin.parameters():
                p.requires_grad_(True)
            torch.manual_seed(0)
            lin.reset_parameters()
            _train_linear(lin, h, f_train, train_data, epochs, lr, standardize)
            for p in lin.parameters():
                p.requires_grad_(False)
            with torch.no_grad():
                logits[h.name] = lin(f_val).numpy()
        metrics[tier] = evaluate_logits(head_only, logits, val_data)

    out.mkdir(parents=True, exist_ok=True)
    info = {
        **info,
        "add_head": {
            "base_run": str(run_dir.resolve()),
            "heads": [h.name for h in new_heads],
            "train": str(Path(data_path).resolve()),
            "train_sha256": train_data.data_hash,
            "val": str(Path(val_path).resolve()) if val_path else None,
            "n_train": len(train_data),
            "n_val": len(val_data),
            "standardize": standardize,
        },
    }
    new_run.write_config(spec, cfg, info)
    state = {
        "format_version": RUN_VERSION,
        "model": model.state_dict(),
        "spec": spec.to_json(),
        "step": 0,
        "score": -1.0,
    }
    torch.save(state, new_run.best)
    (out / "add_head_metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    log.info("added heads %s to %s -> %s", [h.name for h in new_heads], run_dir, out)
    return {
        "run_dir": str(out),
        "heads": [h.name for h in new_heads],
        "val": metrics,
        "train_config": asdict(cfg),
    }
