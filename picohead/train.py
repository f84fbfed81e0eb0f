"""Multi-head, multi-tier training with checkpoints, resume, validation and early stopping.

One step: sample a batch, trim it to its longest window, optionally rewrite flagged rows
(``augment``, e.g. fresh secret bodies; ``plant``, e.g. fresh secrets and look-alikes
planted into rows without a flag), cut a share to short excerpts (``crop_prob``), run the
tiers chosen by the sandwich rule (largest + smallest + one random middle tier; ``all`` runs
every tier), sum per-head losses
(cross-entropy, missing labels ignored; BCE for multilabel heads) over those tiers, optionally add
distillation from the largest tier's soft labels, clip, AdamW, warmup + cosine schedule.

A run directory holds ``config.json`` (spec + training settings + data hashes), ``checkpoint.pt``
(latest weights, optimizer, step; loaded with ``weights_only=True``), ``best.pt`` (best weights by
validation score) and ``metrics.jsonl``. Resuming takes the spec and settings from the run, never
from flags. Batches come from a seeded order indexed by the step, so a resumed run draws the
same batches it would have drawn (epoch-wise permutations from ``DistributedSampler``, which also
shards them across ranks under ``torchrun``; see :mod:`picohead.distributed`). What it does not do: read corpora (``picohead.dataset``) or
export (``picohead_exporters``).
"""

from __future__ import annotations

import importlib
import json
import logging
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from picohead.dataset import WindowData
from picohead.models import Model, build_model
from picohead.models.config import with_full_arch
from picohead.run import RUN_VERSION, RunDir
from picohead.train_config import DEFAULT_LR, TrainConfig
from picohead_runtime.spec import ModelSpec

if TYPE_CHECKING:
    from picohead.distributed import World

log = logging.getLogger(__name__)


def lr_at(step: int, total: int, cfg: TrainConfig) -> float:
    assert cfg.lr is not None
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    t = (step - cfg.warmup) / max(1, total - cfg.warmup)
    return cfg.lr * (
        cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, t)))
    )


def batch_tensors(data: WindowData, idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Windows of ``idx`` trimmed to the batch's longest one, and their lengths."""
    lengths = data.lengths[idx]
    width = max(1, int(lengths.max()))
    return torch.from_numpy(data.windows[idx, :width]), torch.from_numpy(lengths)


Labels = tuple[dict[str, np.ndarray], dict[str, np.ndarray]]  # per head: labels, label mask

LANGUAGE_HEADS = ("text_lang", "code_lang")  # heads a random excerpt of a sample still answers


def batch_labels(data: WindowData, idx: np.ndarray) -> Labels:
    return (
        {k: v[idx] for k, v in data.labels.items()},
        {k: v[idx].copy() for k, v in data.label_mask.items()},
    )


Relabeller = tuple[Callable[[bytes, list[str]], list[str] | None], tuple[str, ...]]


def _label_hooks(
    spec: ModelSpec, hooks: dict[str, str], what: str
) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """Resolve head name -> "module:function" to (function, the head's labels) per multilabel
    head; ``what`` names the setting in errors."""
    out: dict[str, tuple[Any, tuple[str, ...]]] = {}
    heads = {h.name: h for h in spec.heads}
    for name, ref in hooks.items():
        if name not in heads or not heads[name].multilabel:
            raise ValueError(f"{what}: {name!r} is not a multilabel head of this spec")
        module, _, attr = ref.partition(":")
        try:
            fn = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"{what}: cannot load {ref!r} ({err})") from err
        out[name] = (fn, tuple(heads[name].labels))
    return out


def crop_relabellers(spec: ModelSpec, cfg: TrainConfig) -> dict[str, Relabeller]:
    """Resolve ``cfg.crop_relabel`` to (function, the head's labels) per multilabel head."""
    return _label_hooks(spec, cfg.crop_relabel, "crop_relabel")


ShortLabeller = tuple[Callable[[bytes], dict[str, str]], dict[str, tuple[str, ...]]]


def short_labeller(spec: ModelSpec, cfg: TrainConfig) -> ShortLabeller | None:
    """Resolve ``cfg.short_labels`` to (function, labels of each single-label head), or None."""
    if not cfg.short_labels:
        return None
    module, _, attr = cfg.short_labels.partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise ValueError(f"short_labels: cannot load {cfg.short_labels!r} ({err})") from err
    return fn, {h.name: tuple(h.labels) for h in spec.heads if not h.multilabel}


Augmenter = tuple[Callable[[bytes, list[str], random.Random], bytes], tuple[str, ...]]


def augmenters(spec: ModelSpec, cfg: TrainConfig) -> dict[str, Augmenter]:
    """Resolve ``cfg.augment`` to (function, the head's labels) per multilabel head."""
    if not 0 <= cfg.augment_prob <= 1:
        raise ValueError(f"augment_prob: {cfg.augment_prob!r} must lie in [0, 1]")
    return _label_hooks(spec, cfg.augment, "augment")


Planter = tuple[
    Callable[[bytes, list[str], random.Random], tuple[bytes, list[str]] | None], tuple[str, ...]
]


def planters(spec: ModelSpec, cfg: TrainConfig) -> dict[str, Planter]:
    """Resolve ``cfg.plant`` to (function, the head's labels) per multilabel head."""
    if not 0 <= cfg.plant_prob <= 1:
        raise ValueError(f"plant_prob: {cfg.plant_prob!r} must lie in [0, 1]")
    return _label_hooks(spec, cfg.plant, "plant")


def plant_batch(
    x: torch.Tensor,
    lengths: torch.Tensor,
    labels: Labels,
    plant: dict[str, Planter],
    prob: float,
    rng: np.random.Generator,
) -> int:
    """Rewrite, in place, a ``prob`` share of the labelled rows without a flag in a ``plant`` head
    with its function (same length) and set the labels it returns; returns how many changed."""
    changed = 0
    for name, (fn, names) in plant.items():
        y, m = labels[0][name], labels[1][name]
        rows = np.flatnonzero(m & ~(y > 0.5).any(axis=1) & (rng.random(len(m)) < prob))
        for r in rows:
            k = int(lengths[r])
            got = fn(bytes(x[r, :k].numpy()), [], random.Random(int(rng.integers(1 << 62))))
            if got is None:
                continue
            new, flags = got
            if len(new) != k:
                raise ValueError(f"plant {name!r}: {fn.__name__} changed a row's length")
            unknown = set(flags) - set(names)
            if unknown:
                raise ValueError(f"plant {name!r}: {fn.__name__} returned unknown labels {unknown}")
            x[r, :k] = torch.frombuffer(bytearray(new), dtype=torch.uint8)
            y[r] = [1.0 if n in flags else 0.0 for n in names]
            changed += 1
    return changed


def augment_batch(
    x: torch.Tensor,
    lengths: torch.Tensor,
    labels: Labels,
    augment: dict[str, Augmenter],
    prob: float,
    rng: np.random.Generator,
) -> int:
    """Rewrite, in place, a ``prob`` share of the rows flagged in an ``augment`` head with its
    function (same length, labels unchanged); returns how many rows changed."""
    changed = 0
    for name, (fn, names) in augment.items():
        y, m = labels[0][name], labels[1][name]
        rows = np.flatnonzero(m & (y > 0.5).any(axis=1) & (rng.random(len(m)) < prob))
        for r in rows:
            k = int(lengths[r])
            old = bytes(x[r, :k].numpy())
            flags = [n for n, v in zip(names, y[r]) if v > 0.5]
            new = fn(old, flags, random.Random(int(rng.integers(1 << 62))))
            if len(new) != k:
                raise ValueError(f"augment {name!r}: {fn.__name__} changed a row's length")
            if new != old:
                x[r, :k] = torch.frombuffer(bytearray(new), dtype=torch.uint8)
                changed += 1
    return changed


def crop_batch(
    x: torch.Tensor,
    lengths: torch.Tensor,
    labels: Labels,
    cfg: TrainConfig,
    rng: np.random.Generator,
    multilabel: set[str],
    relabel: dict[str, Relabeller] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Cut a ``cfg.crop_prob`` share of the rows to short excerpts in place (see TrainConfig).

    Rows cut at offset 0 lose their multilabel (risk) labels; rows cut elsewhere keep only the
    language heads. A multilabel head in ``relabel`` is instead relabelled from the excerpt's
    bytes at any offset (unlabelled where its function returns None). Offsets stay inside the
    head part of the window (the first half), so an excerpt never spans the seam between a long
    file's head and tail.
    """
    relabel = relabel or {}
    n = x.shape[0]
    lens = lengths.numpy()
    rows = np.flatnonzero((rng.random(n) < cfg.crop_prob) & (lens > cfg.crop_min))
    head_part = max(1, (x.shape[1] + 1) // 2)
    for r in rows:
        full = int(lens[r])
        k = int(rng.integers(cfg.crop_min, min(cfg.crop_max, full) + 1))
        span = min(full, head_part)
        off = 0 if rng.random() < 0.5 or span <= k else int(rng.integers(0, span - k + 1))
        x[r, :k] = x[r, off : off + k].clone()
        x[r, k:] = 0
        lengths[r] = k
        relabel_row(labels, int(r), bytes(x[r, :k].numpy()), relabel, multilabel, at_start=off == 0)
    return x, lengths


def relabel_row(labels: Labels, r: int, excerpt: bytes, relabel: dict[str, Relabeller],
                multilabel: set[str], *, at_start: bool) -> None:
    """Row ``r``'s labels after it was cut to ``excerpt``: each ``relabel`` head is relabelled
    from the excerpt's bytes (unset where its function returns None); the other multilabel heads
    are unset, and unless the excerpt starts the row, every head but the language heads too."""
    for name, m in labels[1].items():
        if name in relabel:
            if m[r]:
                fn, names = relabel[name]
                y = labels[0][name]
                found = fn(excerpt, [n for n, v in zip(names, y[r]) if v > 0.5])
                if found is None:
                    m[r] = False
                else:
                    y[r] = [float(n in found) for n in names]
        elif name in multilabel or (not at_start and name not in LANGUAGE_HEADS):
            m[r] = False


SHORT_PUNCT = b"{}[]()<>\"'`\\/|,;:.!?@#$%^&*-_=+~ \n\t\r\x00"


def short_input(row: bytes, rng: np.random.Generator, short_max: int) -> tuple[bytes, bool]:
    """A 0..``short_max``-byte input and whether it was cut from ``row`` (else made up)."""
    kind = int(rng.integers(4))
    if kind == 0 or not row:  # 0-3 arbitrary bytes
        return bytes(rng.integers(0, 256, int(rng.integers(0, 4))).astype(np.uint8)), False
    if kind == 1:  # 1-4 bytes of punctuation, whitespace, NUL
        picks = rng.integers(0, len(SHORT_PUNCT), int(rng.integers(1, 5)))
        return bytes(SHORT_PUNCT[i] for i in picks), False
    k = int(rng.integers(1, min(short_max, len(row)) + 1))
    off = 0 if kind == 2 else int(rng.integers(0, len(row) - k + 1))
    return row[off : off + k], True


def short_batch(
    x: torch.Tensor,
    lengths: torch.Tensor,
    labels: Labels,
    cfg: TrainConfig,
    rng: np.random.Generator,
    relabel: dict[str, Relabeller],
    short_labels: ShortLabeller | None = None,
) -> int:
    """Turn a ``cfg.short_prob`` share of the rows into short inputs in place (see
    TrainConfig): the ``relabel`` heads are relabelled from the new bytes; on made-up inputs the
    single-label heads ``short_labels`` names get its labels (a label the head lacks is an
    error); every other head is unset. Returns how many rows changed."""
    if not relabel:
        raise ValueError("short_prob needs crop_relabel: the heads short inputs are labelled for")
    if not 0 < cfg.short_max <= x.shape[1]:
        raise ValueError(f"short_max: {cfg.short_max!r} must lie in 1..{x.shape[1]}")
    rows = np.flatnonzero(rng.random(x.shape[0]) < cfg.short_prob)
    for r in rows:
        full = int(lengths[r])
        new, cut = short_input(bytes(x[r, :full].numpy()), rng, cfg.short_max)
        x[r] = 0
        if new:
            x[r, : len(new)] = torch.frombuffer(bytearray(new), dtype=torch.uint8)
        lengths[r] = len(new)
        given = short_labels[0](new) if short_labels is not None and not cut else {}
        for name, m in labels[1].items():
            if name in given:
                head_labels = short_labels[1].get(name, ()) if short_labels else ()
                if given[name] not in head_labels:
                    raise ValueError(f"short_labels: {given[name]!r} is no label of head {name!r}")
                m[r] = True
                labels[0][name][r] = head_labels.index(given[name])
                continue
            if name not in relabel:
                m[r] = False
                continue
            fn, names = relabel[name]
            y = labels[0][name]
            flags = [n for n, v in zip(names, y[r]) if v > 0.5] if cut and m[r] else []
            found = fn(new, flags)
            if found is None:
                m[r] = False
            else:
                m[r] = True
                y[r] = [float(n in found) for n in names]
    return len(rows)


def head_losses(spec: ModelSpec, logits: dict[str, torch.Tensor], labels: Labels) -> torch.Tensor:
    total = torch.zeros(())
    for h in spec.heads:
        m = torch.from_numpy(labels[1][h.name])
        if h.weight == 0 or not bool(m.any()):
            continue
        y = torch.from_numpy(labels[0][h.name])[m]
        out = logits[h.name][m]
        if h.multilabel:
            loss = F.binary_cross_entropy_with_logits(out, y)
        else:
            loss = F.cross_entropy(out, y.long())
        total = total + h.weight * loss
    return total


def distill_loss(
    spec: ModelSpec, student: dict[str, torch.Tensor], teacher: dict[str, torch.Tensor], temp: float
) -> torch.Tensor:
    total = torch.zeros(())
    for h in spec.heads:
        s, t = student[h.name], teacher[h.name].detach()
        if h.multilabel:
            total = total + h.weight * F.binary_cross_entropy_with_logits(s, torch.sigmoid(t))
        else:
            kl = F.kl_div(
                F.log_softmax(s / temp, -1),
                F.log_softmax(t / temp, -1),
                log_target=True,
                reduction="batchmean",
            )
            total = total + h.weight * kl * temp * temp
    return total


def batch_loss(
    spec: ModelSpec,
    model: Model,
    x: torch.Tensor,
    lengths: torch.Tensor,
    labels: Labels,
    tiers: list[str],
    cfg: TrainConfig,
    prepared: tuple[torch.Tensor, ...] | None = None,
) -> torch.Tensor:
    """The summed loss of ``tiers`` on one batch, each times its tier weight (``tier_weights``).

    ``tiers`` comes largest first (``pick_tiers``' order): the largest tier's logits are the
    teacher of the tiers after it when ``cfg.distill`` is on.
    """
    loss = torch.zeros(())
    teacher = None
    largest = model.tiers[-1]
    for tier in tiers:
        logits = model(x, lengths, tier, prepared)
        weight = cfg.tier_weights.get(tier, 1.0)
        loss = loss + weight * head_losses(spec, logits, labels)
        if tier == largest:
            teacher = logits
        elif cfg.distill > 0 and teacher is not None:
            loss = loss + weight * cfg.distill * distill_loss(
                spec, logits, teacher, cfg.distill_temperature
            )
    return loss


def check_tier_weights(cfg: TrainConfig, tiers: tuple[str, ...]) -> None:
    """``tier_weights`` names only the spec's tiers, each with a positive finite weight."""
    for tier, w in cfg.tier_weights.items():
        if tier not in tiers:
            raise ValueError(f"tier_weights: {tier!r} is not a tier of this spec {list(tiers)}")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 < w < math.inf:
            raise ValueError(f"tier_weights.{tier}: {w!r} must be a positive number")


def pick_tiers(tiers: tuple[str, ...], mode: str, rng: np.random.Generator) -> list[str]:
    """Largest first (it is the distillation teacher), then smallest, then one random middle tier."""
    if mode == "all" or len(tiers) <= 2:
        return list(reversed(tiers))
    chosen = [tiers[-1], tiers[0]]
    chosen.append(tiers[1 + int(rng.integers(len(tiers) - 2))])
    return chosen


@torch.no_grad()
def predict(
    model: Model, data: WindowData, tier: str, *, batch_size: int = 256, limit: int | None = None
) -> dict[str, np.ndarray]:
    """Logits per head for every sample of ``data`` (or the first ``limit``)."""
    model.eval()
    n = len(data) if limit is None else min(limit, len(data))
    # Sort by length so short samples are not padded to the longest one.
    order = np.argsort(data.lengths[:n], kind="stable")
    outs: dict[str, list[np.ndarray]] = {}
    for s in range(0, n, batch_size):
        idx = order[s : s + batch_size]
        x, lengths = batch_tensors(data, idx)
        for k, v in model(x, lengths, tier).items():
            outs.setdefault(k, []).append(v.numpy())
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    return {k: np.concatenate(v)[inv] for k, v in outs.items()}


def quick_scores(
    spec: ModelSpec, model: Model, data: WindowData, limit: int
) -> dict[str, dict[str, float]]:
    """Validation accuracy per tier and head (micro-F1 for multilabel heads) on ``limit`` samples."""
    out: dict[str, dict[str, float]] = {}
    n = min(limit, len(data))
    for tier in model.tiers:
        logits = predict(model, data, tier, limit=n)
        scores: dict[str, float] = {}
        for h in spec.heads:
            m = data.label_mask[h.name][:n]
            if not m.any():
                continue
            y = data.labels[h.name][:n][m]
            if h.multilabel:
                pred = logits[h.name][m] > 0
                tp = float((pred & (y > 0.5)).sum())
                denom = float(pred.sum() + (y > 0.5).sum())
                scores[h.name] = 2 * tp / denom if denom else 1.0
            else:
                scores[h.name] = float((logits[h.name][m].argmax(-1) == y).mean())
        out[tier] = scores
    return out


def _score(val: dict[str, dict[str, float]]) -> float:
    vals = [v for per_head in val.values() for v in per_head.values()]
    return float(np.mean(vals)) if vals else 0.0


def write_run_config(
    out: Path, spec: ModelSpec, cfg: TrainConfig, data_info: dict[str, Any]
) -> None:
    RunDir(out).write_config(spec, cfg, data_info)


def read_run_config(run_dir: Path) -> tuple[ModelSpec, TrainConfig, dict[str, Any]]:
    return RunDir(run_dir).read_config()


def load_model(run_dir: Path, *, which: str = "best") -> tuple[Model, ModelSpec]:
    """The run's model with its best (or latest) weights, in eval mode."""
    run = RunDir(run_dir)
    spec, _, _ = run.read_config()
    state = torch.load(run.weights(which), map_location="cpu", weights_only=True)
    model = build_model(spec)
    model.load_state_dict(state["model"])
    return model.eval(), spec


def save_weights(path: Path, model: Model, spec: ModelSpec, extra: dict[str, Any]) -> None:
    """Write ``model``'s weights (and ``extra``: optimizer, step, score ...) to ``path`` atomically:
    a temporary file beside it, then a rename, so a crash never leaves half a checkpoint."""
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "format_version": RUN_VERSION,
            "model": model.state_dict(),
            "spec": spec.to_json(),
            **extra,
        },
        tmp,
    )
    tmp.replace(path)


@dataclass
class RunProgress:
    """Where a run stands: steps done, the best validation score, validations since it improved."""

    step: int = 0
    best: float = -1.0
    bad: int = 0


@dataclass
class SinceLastRecord:
    """Samples, time and loss since the last metrics record."""

    t0: float = field(default_factory=time.time)
    samples: int = 0
    loss_sum: float = 0.0
    loss_n: int = 0


@dataclass(frozen=True)
class BatchHooks:
    """The per-batch rewrites the settings switch on (crop relabelling, augmenting, planting)."""

    multilabel: frozenset[str]
    relabel: dict[str, Relabeller]
    augment: dict[str, Augmenter]
    plant: dict[str, Planter]
    short_labels: ShortLabeller | None = None

    @classmethod
    def of(cls, spec: ModelSpec, cfg: TrainConfig) -> BatchHooks:
        return cls(
            multilabel=frozenset(h.name for h in spec.heads if h.multilabel),
            relabel=crop_relabellers(spec, cfg),
            augment=augmenters(spec, cfg),
            plant=planters(spec, cfg),
            short_labels=short_labeller(spec, cfg),
        )


def open_run(
    run: RunDir,
    spec: ModelSpec,
    cfg: TrainConfig,
    *,
    resuming: bool,
    data_info: dict[str, Any] | None,
    world: World,
) -> tuple[ModelSpec, TrainConfig]:
    """The spec and settings a run trains with: a resumed run's own, never the caller's; a new
    run's with the architecture completed, the tier weights checked and the family's default
    learning rate, written to the run's ``config.json`` (by rank 0)."""
    if resuming:
        spec, cfg, _ = run.read_config()
        return spec, cfg
    if run.checkpoint.exists():
        raise FileExistsError(
            f"{run.path} already holds a run; pass --resume or choose a new --out"
        )
    spec = with_full_arch(spec)
    check_tier_weights(cfg, spec.tiers)
    if cfg.lr is None:
        cfg = TrainConfig.from_dict({**asdict(cfg), "lr": DEFAULT_LR[spec.family]})
    if world.main:
        run.write_config(spec, cfg, {**(data_info or {}), "world_size": world.size})
    return spec, cfg


def model_and_optimizer(
    run: RunDir, spec: ModelSpec, cfg: TrainConfig, *, resuming: bool
) -> tuple[Model, torch.optim.Optimizer, RunProgress]:
    """The model (seeded), its AdamW optimizer and where the run stands; a resumed run's weights,
    optimizer state and counters come from its checkpoint."""
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    model = build_model(spec)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr or 1e-3, weight_decay=cfg.weight_decay)
    at = RunProgress()
    if resuming:
        state = torch.load(run.checkpoint, map_location="cpu", weights_only=True)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        at = RunProgress(int(state["step"]), float(state["best_score"]), int(state["bad_evals"]))
        log.info("resumed %s at step %d", run.path, at.step)
    return model, opt, at


def validation_subset(val_data: WindowData, cfg: TrainConfig) -> WindowData:
    """At most ``max_eval`` samples for the in-training checks: a fixed, spread-out subset."""
    if len(val_data) <= cfg.max_eval:
        return val_data
    keep = np.sort(
        np.random.default_rng(cfg.seed).choice(len(val_data), cfg.max_eval, replace=False)
    )
    return val_data.subset(keep)


class Batches:
    """The sample indices of every step: each rank draws its own shard of every epoch's seeded
    permutation, indexed by the step, so a resumed run redraws the same batches."""

    def __init__(self, n: int, world: World, cfg: TrainConfig) -> None:
        from torch.utils.data import DistributedSampler

        self.sampler: DistributedSampler[int] = DistributedSampler(
            range(n),  # type: ignore[arg-type]  # only len() is used
            num_replicas=world.size,
            rank=world.rank,
            shuffle=True,
            seed=cfg.seed,
            drop_last=n >= world.size,
        )
        self.batch_size = cfg.batch_size
        self.per_epoch = max(1, len(self.sampler) // cfg.batch_size)
        self.epoch_seen, self.order = -1, np.zeros(0, dtype=np.int64)

    def at(self, step: int) -> np.ndarray:
        epoch, k = divmod(step, self.per_epoch)
        if epoch != self.epoch_seen:
            self.sampler.set_epoch(epoch)
            self.order, self.epoch_seen = np.fromiter(iter(self.sampler), dtype=np.int64), epoch
        idx = self.order[k * self.batch_size : (k + 1) * self.batch_size]
        return idx if len(idx) else self.order  # fewer samples than one batch per rank


def train_step(
    model: Model,
    opt: torch.optim.Optimizer,
    spec: ModelSpec,
    cfg: TrainConfig,
    data: WindowData,
    idx: np.ndarray,
    *,
    step: int,
    total: int,
    hooks: BatchHooks,
    world: World,
) -> float:
    """One optimizer step on the samples ``idx``: rewrite and crop the batch, the tiers of the
    sandwich rule, loss, gradients averaged across ranks, clip, AdamW. Returns the loss."""
    from picohead import distributed as D

    model.train()
    rng = np.random.default_rng([cfg.seed, step])  # same tiers on every rank
    x, lengths = batch_tensors(data, idx)
    labels = batch_labels(data, idx)
    if hooks.plant and cfg.plant_prob > 0:
        plant_batch(x, lengths, labels, hooks.plant, cfg.plant_prob, rng)
    if hooks.augment:
        augment_batch(x, lengths, labels, hooks.augment, cfg.augment_prob, rng)
    if cfg.crop_prob > 0:
        x, lengths = crop_batch(x, lengths, labels, cfg, rng, set(hooks.multilabel), hooks.relabel)
    if cfg.short_prob > 0:
        short_batch(x, lengths, labels, cfg, rng, hooks.relabel, hooks.short_labels)
    prepared = model.prepare(x, lengths)
    for g in opt.param_groups:
        g["lr"] = lr_at(step, total, cfg)
    picked = pick_tiers(model.tiers, cfg.tier_sampling, rng)
    loss = batch_loss(spec, model, x, lengths, labels, picked, cfg, prepared)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    D.average_grads(model, world)
    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
    opt.step()
    return float(loss.item())


def validate_and_checkpoint(
    run: RunDir,
    model: Model,
    opt: torch.optim.Optimizer,
    spec: ModelSpec,
    cfg: TrainConfig,
    val_data: WindowData,
    *,
    at: RunProgress,
    since: SinceLastRecord,
    total: int,
    metrics_f: Any,
) -> bool:
    """Rank 0 after every ``eval_every`` steps: score the validation subset, keep the best weights,
    append a metrics record, write the checkpoint. True when patience has run out."""
    now = time.time()
    val = quick_scores(spec, model, val_data, cfg.max_eval) if len(val_data) else {}
    score = _score(val)
    rate = since.samples / max(1e-9, now - since.t0)
    if score > at.best:
        at.best, at.bad = score, 0
        save_weights(run.best, model, spec, {"step": at.step, "score": score})
    else:
        at.bad += 1
    rec = {
        "step": at.step,
        "loss": round(since.loss_sum / max(1, since.loss_n), 5),  # mean since the last record
        "lr": lr_at(at.step - 1, total, cfg),
        "train_samples_per_s": round(rate, 1),
        "val_score": round(score, 5),
        "val": val,
    }
    metrics_f.write(json.dumps(rec) + "\n")
    metrics_f.flush()
    log.info("step %d loss %.4f val %.4f (%.0f samples/s)", at.step, rec["loss"], score, rate)
    save_weights(
        run.checkpoint,
        model,
        spec,
        {
            "optimizer": opt.state_dict(),
            "step": at.step,
            "best_score": at.best,
            "bad_evals": at.bad,
        },
    )
    return bool(cfg.patience and at.bad >= cfg.patience)


def train(
    spec: ModelSpec,
    train_data: WindowData,
    val_data: WindowData,
    out_dir: str | Path,
    cfg: TrainConfig,
    *,
    resume: bool = False,
    data_info: dict[str, Any] | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Train (or resume) a run in ``out_dir``; returns a summary with the best validation scores.

    Under ``torchrun`` every rank calls this; rank 0 alone writes files, validates and logs.
    Stages: :func:`open_run`, :func:`model_and_optimizer`, :func:`validation_subset`, then
    :func:`train_step` until done, with :func:`validate_and_checkpoint` every ``eval_every`` steps.
    """
    from picohead import distributed as D

    world = D.init_from_env()
    run = RunDir(out_dir)
    resuming = resume and run.checkpoint.exists()
    spec, cfg = open_run(run, spec, cfg, resuming=resuming, data_info=data_info, world=world)
    model, opt, at = model_and_optimizer(run, spec, cfg, resuming=resuming)
    D.broadcast_params(model, world)
    total = cfg.total_steps(len(train_data), world.size)
    val_data = validation_subset(val_data, cfg)
    batches = Batches(len(train_data), world, cfg)
    hooks = BatchHooks.of(spec, cfg)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(
        total=total,
        initial=at.step,
        disable=not (progress and world.main),
        desc="train",
        unit="step",
    )
    metrics_f = open(run.metrics, "a") if world.main else None
    since = SinceLastRecord()
    stopped_early = False
    try:
        while at.step < total:
            idx = batches.at(at.step)
            loss = train_step(
                model,
                opt,
                spec,
                cfg,
                train_data,
                idx,
                step=at.step,
                total=total,
                hooks=hooks,
                world=world,
            )
            at.step += 1
            since.samples += len(idx) * world.size
            since.loss_sum, since.loss_n = since.loss_sum + loss, since.loss_n + 1
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.3f}")
            if at.step % cfg.eval_every == 0 or at.step == total:
                stop = False
                if world.main:
                    assert metrics_f is not None
                    stop = validate_and_checkpoint(
                        run,
                        model,
                        opt,
                        spec,
                        cfg,
                        val_data,
                        at=at,
                        since=since,
                        total=total,
                        metrics_f=metrics_f,
                    )
                since = SinceLastRecord()
                if D.broadcast_flag(stop, world):
                    stopped_early = True
                    log.info(
                        "early stop at step %d (no improvement in %d validations)", at.step, at.bad
                    )
                    break
        digests = D.gather_digests(model, world)
    finally:
        bar.close()
        if metrics_f is not None:
            metrics_f.close()
    if world.main and not run.best.exists():
        save_weights(run.best, model, spec, {"step": at.step, "score": at.best})
    D.shutdown(world)
    return {
        "run_dir": str(run.path),
        "steps": at.step,
        "best_val_score": at.best,
        "stopped_early": stopped_early,
        "world_size": world.size,
        "rank": world.rank,
        "weights_digest_per_rank": digests,
    }
