"""A run folder: the one owner of its file names, its ``config.json`` and its validation policy.

Layout (``RunDir(path)`` names every file; nobody else spells them)::

    config.json       spec + training settings + data (what was trained on, and how validation
                      was chosen: ``data.validation``)
    checkpoint.pt     latest weights, optimizer, step (``weights_only=True``)
    best.pt           best weights by validation score
    metrics.jsonl     one record per validation during training
    onnx/             exported tiers and ``export.json`` (the exporter's reports)
    eval/             evaluations: ``calibration.json``, ``onnx-val.json``, ``onnx-test.json``, ...

The validation policy is recorded when training starts (:meth:`Validation.record`) and read back
by every later stage (:meth:`RunDir.validation`): a manifest, or a share of the training sources
held out with a seed. Runs written before it was recorded get the policy training used then (the
run's ``val`` manifest, else 10 % of the sources with the run's seed).

What it does not do: train, export or evaluate; import torch.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from picohead.train_config import ConfigError, TrainConfig, check_keys
from picohead_runtime.spec import ModelSpec

if TYPE_CHECKING:
    from picohead.dataset import WindowData

RUN_FORMAT = "picohead-run"
RUN_VERSION = 1
HOLD_OUT = 0.1  # share of the training sources held out when a run is given no validation set
RUN_KEYS = ("format", "version", "spec", "train", "data")


def stale(target: Path, *sources: Path) -> bool:
    """Whether ``target`` is missing or older than any of ``sources`` that exist."""
    if not target.exists():
        return True
    mtime = target.stat().st_mtime
    return any(s.exists() and mtime < s.stat().st_mtime for s in sources)


@dataclass(frozen=True)
class Validation:
    """How a run's validation data is chosen: a manifest, or ``held_out`` of the training
    manifest's sources (``picohead.dataset.split_by_source``) drawn with ``seed``."""

    manifest: str | None = None
    held_out: float = HOLD_OUT
    seed: int = 0

    def record(self) -> dict[str, Any]:
        """As written into ``config.json``'s ``data.validation``."""
        if self.manifest is not None:
            return {"manifest": self.manifest}
        return {"held_out_sources": self.held_out, "seed": self.seed}

    @classmethod
    def from_record(cls, doc: dict[str, Any], *, source: str) -> Validation:
        check_keys(doc, ("manifest", "held_out_sources", "seed"), source)
        if doc.get("manifest"):
            return cls(manifest=str(doc["manifest"]))
        return cls(held_out=float(doc["held_out_sources"]), seed=int(doc["seed"]))

    def split(self, train: WindowData) -> tuple[WindowData, WindowData]:
        """(training, validation) of ``train`` when sources are held out."""
        from picohead.dataset import split_by_source

        return split_by_source(train, self.held_out, seed=self.seed)


@dataclass(frozen=True)
class RunDir:
    path: Path

    def __init__(self, path: str | Path) -> None:
        object.__setattr__(self, "path", Path(path))

    # -- file names ------------------------------------------------------------------------------
    @property
    def config(self) -> Path:
        return self.path / "config.json"

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.pt"

    @property
    def best(self) -> Path:
        return self.path / "best.pt"

    @property
    def metrics(self) -> Path:
        return self.path / "metrics.jsonl"

    @property
    def onnx_dir(self) -> Path:
        return self.path / "onnx"

    @property
    def export_report(self) -> Path:
        return self.onnx_dir / "export.json"

    @property
    def eval_dir(self) -> Path:
        return self.path / "eval"

    @property
    def calibration(self) -> Path:
        return self.eval_dir / "calibration.json"

    @property
    def onnx_val(self) -> Path:
        return self.eval_dir / "onnx-val.json"

    @property
    def onnx_test(self) -> Path:
        return self.eval_dir / "onnx-test.json"

    def has_checkpoint(self) -> bool:
        return self.checkpoint.exists()

    def weights(self, which: str = "best") -> Path:
        """``best.pt`` (the latest checkpoint when there is none yet) or ``checkpoint.pt``."""
        if which == "best" and self.best.exists():
            return self.best
        return self.checkpoint

    # -- the run config --------------------------------------------------------------------------
    def write_config(self, spec: ModelSpec, cfg: TrainConfig, data_info: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        doc = {
            "format": RUN_FORMAT,
            "version": RUN_VERSION,
            "spec": spec.to_dict(),
            "train": asdict(cfg),
            "data": data_info,
        }
        self.config.write_text(json.dumps(doc, indent=2) + "\n")

    def read_config(self) -> tuple[ModelSpec, TrainConfig, dict[str, Any]]:
        path = self.config
        try:
            doc = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: not a picohead run ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != RUN_FORMAT:
            raise ValueError(f"{path}: not a picohead run config of version {RUN_VERSION}")
        if doc.get("version") != RUN_VERSION:
            raise ValueError(f"{path}: not a picohead run config of version {RUN_VERSION}")
        check_keys(doc, RUN_KEYS, str(path))
        spec = ModelSpec.from_dict(doc["spec"], source=str(path))
        cfg = TrainConfig.from_dict(doc["train"], source=f"{path} (train)")
        return spec, cfg, doc.get("data", {})

    def validation(self) -> Validation:
        """The run's validation policy, as recorded (or as training chose it before it was)."""
        _, cfg, info = self.read_config()
        if isinstance(info.get("validation"), dict):
            return Validation.from_record(info["validation"], source=f"{self.config} (validation)")
        if info.get("val"):
            return Validation(manifest=str(info["val"]))
        return Validation(held_out=HOLD_OUT, seed=cfg.seed)


__all__ = ["ConfigError", "HOLD_OUT", "RunDir", "Validation", "stale"]
