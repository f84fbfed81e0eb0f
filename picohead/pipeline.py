"""``picohead train --recipe NAME``: the whole reproduction, one resumable command.

Steps, each skipped when its output is already there: build the corpus (``picohead data build``)
→ train every family the recipe lists (resuming from checkpoints) → export every tier (int8, gated
on parity) → calibrate thresholds and score every tier's exported ONNX file on the validation split
→ pick, per tier, the family with the best validation score that fits the tier's size budget (and
the default tier the same way) → evaluate the files on the test split, which only reports →
optionally copy the chosen files into a runtime model folder (``--bundle``) and write the model
card. Training settings come from ``recipes/<name>/train.json``.

What it does not do: tune hyperparameters.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from picohead.run import RunDir, Validation, stale
from picohead_runtime.spec import ModelSpec, load_spec

log = logging.getLogger(__name__)
# The exporter issue's int8 size budget per tier (also used by benchmarks/export_budget.py).
SIZE_BUDGET = {"tiny": 64 * 1024, "small": 192 * 1024, "base": 512 * 1024, "pro": 2 * 1024 * 1024}


def recipe_dir(name: str) -> Path:
    """A recipe bundled with picohead (``content``), or a folder holding spec.json + train.json."""
    if Path(name).is_dir():
        return Path(name)
    return Path(str(resources.files("picohead") / "recipes" / name))


PLAN_KEYS = ("families",)
FAMILY_KEYS = ("arch", "train")


def load_train_plan(name: str) -> dict[str, Any]:
    """The recipe's ``train.json``: per family an ``arch`` (checked when the spec is built) and
    ``train`` settings (:class:`picohead.train_config.TrainConfig`); any other key is an error
    naming it and the file."""
    from picohead.train_config import ConfigError, TrainConfig, check_keys

    path = recipe_dir(name) / "train.json"
    if not path.is_file():
        raise FileNotFoundError(f"recipe {name!r} has no train.json ({path})")
    plan: dict[str, Any] = json.loads(path.read_text())
    check_keys(plan, PLAN_KEYS, str(path))
    if not isinstance(plan.get("families"), dict) or not plan["families"]:
        raise ConfigError(f"{path}: 'families' must map each family to its settings")
    for family, fam in plan["families"].items():
        check_keys(fam, FAMILY_KEYS, f"{path} (families.{family})")
        TrainConfig.from_dict(fam.get("train", {}), source=f"{path} (families.{family}.train)")
    return plan


def _train_stage(
    name: str,
    family: str,
    fam: dict[str, Any],
    spec: ModelSpec,
    corpus: Path,
    run: RunDir,
    wcache: Path,
    *,
    threads: int,
) -> Any:
    """Train (or resume) one family's run; returns its validation data."""
    from picohead.dataset import load_manifest
    from picohead.train import TrainConfig, train

    train_data = load_manifest(corpus / "train.jsonl", spec, cache_dir=wcache)
    val_data = load_manifest(corpus / "val.jsonl", spec, cache_dir=wcache)
    cfg = TrainConfig.from_dict(fam.get("train", {}), source=f"recipe {name} ({family}.train)")
    if threads and not cfg.threads:
        cfg = dataclasses.replace(cfg, threads=threads)
    val_manifest = str((corpus / "val.jsonl").resolve())
    info = {
        "train": str((corpus / "train.jsonl").resolve()),
        "train_sha256": train_data.data_hash,
        "val": val_manifest,
        "validation": Validation(manifest=val_manifest).record(),
        "n_train": len(train_data),
        "n_val": len(val_data),
        "recipe": name,
    }
    resume = run.has_checkpoint()
    train(spec, train_data, val_data, run.path, cfg, resume=resume, data_info=info)
    return val_data


def _export_stage(family: str, run: RunDir, wcache: Path) -> dict[str, Path]:
    """Export every tier (int8) unless ``onnx/export.json`` is newer than the weights; the files
    that passed their gates, per tier."""
    from picohead.export import export_run

    if stale(run.export_report, run.best):
        reports = export_run(
            run.path, out_dir=run.onnx_dir, precision="int8", cache_dir=wcache, raise_on_fail=False
        )
        for r in reports:
            if not r.ok:
                log.warning("%s %s: not exported: %s", family, r.tier, "; ".join(r.failures))
        run.onnx_dir.mkdir(parents=True, exist_ok=True)  # absent when every tier missed a gate
        run.export_report.write_text(json.dumps([r.to_dict() for r in reports], indent=1) + "\n")
    return {
        r["tier"]: Path(r["path"])
        for r in json.loads(run.export_report.read_text())
        if r["ok"] and r["path"]
    }


def _calibrate_stage(run: RunDir, files: dict[str, Path], val_data: Any) -> None:
    """Calibrate the files unless ``eval/calibration.json`` is newer and every file carries the
    current rule (a file calibrated by an older picohead, e.g. before disabled labels, would
    otherwise keep its old thresholds); then score them on validation unless that is newer."""
    from picohead.calibrate import calibrate_files, calibrated_rule, rule
    from picohead.model_card import onnx_val_scores

    run.eval_dir.mkdir(exist_ok=True)
    other_rule = any(calibrated_rule(p) != rule() for p in files.values())
    if stale(run.calibration, run.export_report) or other_rule:
        calib = calibrate_files(files, val_data)
        run.calibration.write_text(json.dumps(calib, indent=1) + "\n")
    if stale(run.onnx_val, run.calibration):
        run.onnx_val.write_text(json.dumps(onnx_val_scores(files, val_data), indent=1) + "\n")


def _family_stage(
    name: str,
    family: str,
    fam: dict[str, Any],
    base: ModelSpec,
    corpus: Path,
    runs: Path,
    cache: Path,
    *,
    threads: int,
) -> dict[str, Any]:
    """Train (resuming), export, calibrate, score on validation (``eval/onnx-val.json``, what the
    choice reads) and test (``eval/onnx-test.json``, what the card reports) one family.

    A top-level function so that a process pool can run the families side by side. ``threads``:
    torch threads when the recipe does not set them (0: torch's default).
    """
    from picohead.dataset import load_manifest
    from picohead.model_card import onnx_test_report

    spec = family_spec(base, family, fam.get("arch"))
    run = family_run(runs, name, family)
    wcache = cache / "windows"
    val_data = _train_stage(name, family, fam, spec, corpus, run, wcache, threads=threads)
    files = _export_stage(family, run, wcache)
    _calibrate_stage(run, files, val_data)
    test = load_manifest(corpus / "test.jsonl", spec, cache_dir=wcache)
    scores = onnx_test_report(files, spec, test)
    run.onnx_test.write_text(json.dumps(scores, indent=1) + "\n")
    return {
        t: {"bytes": s["bytes"], "mean_headline": s["mean_headline"]} for t, s in scores.items()
    }


def family_run(runs: Path, name: str, family: str) -> RunDir:
    """The run folder of one family of recipe ``name`` under ``runs``."""
    return RunDir(runs / f"{Path(name).name}-{family}")


def _child_logging(level: int) -> None:
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def family_spec(base: ModelSpec, family: str, arch: dict[str, Any] | None) -> ModelSpec:
    d = base.to_dict()
    d["family"], d["arch"] = family, dict(arch or {})
    return ModelSpec.from_dict(d)


def run_recipe(
    name: str = "content",
    *,
    corpus: Path = Path("corpus"),
    cache: Path = Path("cache"),
    runs: Path = Path("runs"),
    families: list[str] | None = None,
    bundle: Path | None = None,
    card: Path | None = None,
    jobs: int = 2,
) -> dict[str, Any]:
    """Run (or resume) the recipe end to end; returns the per-tier choice and scores.

    ``jobs``: processes for the corpus build, and how many families train side by side.
    """
    plan = load_train_plan(name)
    base = _corpus_stage(name, corpus, cache, jobs)
    summary: dict[str, Any] = {"recipe": name, "families": {}}
    todo = families or list(plan["families"])
    summary["families"] = _run_families(name, plan, todo, base, corpus, runs, cache, jobs)
    # Choose among every family of this recipe evaluated so far (also by earlier invocations), by
    # the validation split's score: the test split only reports what was chosen.
    all_scores, val_scores = collect_scores(name, plan, runs)
    choice = choose_tiers(base, all_scores, val_scores)
    summary["choice"] = choice
    if card is not None and choice:
        _card_stage(card, name, base, corpus, runs, all_scores, choice)
    if bundle is not None:
        _bundle_stage(bundle, summary, choice)
    return summary


def _corpus_stage(name: str, corpus: Path, cache: Path, jobs: int) -> ModelSpec:
    """Build the corpus unless it is there; the spec to train (the corpus's own spec drops the
    labels its data could not back, see its DATASET_CARD.md)."""
    if not (corpus / "train.jsonl").is_file():
        from picohead.data.build import build
        from picohead.data.recipe import load_recipe

        log.info("building the %s corpus in %s", name, corpus)
        build(load_recipe(name), out=corpus, cache=cache, jobs=jobs)
    spec_path = (
        corpus / "spec.json" if (corpus / "spec.json").is_file() else recipe_dir(name) / "spec.json"
    )
    return load_spec(spec_path)


def _run_families(
    name: str,
    plan: dict[str, Any],
    todo: list[str],
    base: ModelSpec,
    corpus: Path,
    runs: Path,
    cache: Path,
    jobs: int,
) -> dict[str, Any]:
    """:func:`_family_stage` of every family in ``todo``, side by side when ``jobs`` allows."""
    out: dict[str, Any] = {}
    parallel = max(1, min(jobs, len(todo)))
    if parallel == 1:
        for family in todo:
            out[family] = _family_stage(
                name, family, plan["families"][family], base, corpus, runs, cache, threads=0
            )
        return out
    # One process per family, each with its share of the cores: the families' training, export
    # and evaluation overlap instead of queueing (on 2 cores: the slower family's time, not
    # the sum). Each process logs through its own handlers; progress lines interleave.
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    threads = max(1, (os.cpu_count() or 1) // parallel)
    ctx = multiprocessing.get_context("spawn")  # torch threads do not survive a fork
    with ProcessPoolExecutor(
        parallel,
        mp_context=ctx,
        initializer=_child_logging,
        initargs=(logging.getLogger().getEffectiveLevel(),),
    ) as pool:
        futs = {
            family: pool.submit(
                _family_stage,
                name,
                family,
                plan["families"][family],
                base,
                corpus,
                runs,
                cache,
                threads=threads,
            )
            for family in todo
        }
        for family, fut in futs.items():
            out[family] = fut.result()
    return out


def collect_scores(
    name: str, plan: dict[str, Any], runs: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(test scores, validation scores) per family of the recipe that has been evaluated."""
    all_scores, val_scores = {}, {}
    for fam in plan["families"]:
        run = family_run(runs, name, fam)
        if not run.onnx_test.is_file():
            continue
        all_scores[fam] = json.loads(run.onnx_test.read_text())
        if run.onnx_val.is_file():
            val_scores[fam] = json.loads(run.onnx_val.read_text())
        else:
            log.warning(
                "%s: no eval/onnx-val.json (evaluated by an older picohead); not a candidate "
                "until `picohead train --recipe %s --family %s` scores it on validation",
                fam,
                name,
                fam,
            )
    return all_scores, val_scores


def choose_tiers(
    base: ModelSpec, all_scores: dict[str, Any], val_scores: dict[str, Any]
) -> dict[str, Any]:
    """Per tier, the family with the best validation score whose file fits the size budget."""
    choice: dict[str, Any] = {}
    for tier in base.tiers:
        cands = [
            (val_scores[fam][tier]["mean_headline"], fam, s[tier])
            for fam, s in all_scores.items()
            if fam in val_scores
            and tier in s
            and tier in val_scores[fam]
            and s[tier]["bytes"] <= SIZE_BUDGET.get(tier, 1 << 62)
        ]
        if cands:
            val, fam, s = max(cands, key=lambda c: c[0])
            choice[tier] = {
                "family": fam,
                "file": s["file"],
                "val_mean_headline": val,
                "mean_headline": s["mean_headline"],
                "bytes": s["bytes"],
            }
    return choice


def _card_stage(
    card: Path,
    name: str,
    base: ModelSpec,
    corpus: Path,
    runs: Path,
    all_scores: dict[str, Any],
    choice: dict[str, Any],
) -> None:
    from picohead.model_card import write_model_card

    corpus_card = (
        json.loads((corpus / "card.json").read_text()) if (corpus / "card.json").is_file() else None
    )
    calibration = {}
    for tier, c in choice.items():
        cal_path = family_run(runs, name, c["family"]).calibration
        if cal_path.is_file():
            calibration[tier] = json.loads(cal_path.read_text())[tier]
    write_model_card(
        card,
        spec=base,
        scores=all_scores,
        choice=choice,
        corpus_card=corpus_card,
        calibration=calibration,
    )


def _bundle_stage(bundle: Path, summary: dict[str, Any], choice: dict[str, Any]) -> None:
    """Copy the chosen files into a runtime model folder with its choice.json and model.json."""
    bundle.mkdir(parents=True, exist_ok=True)
    for tier, c in choice.items():
        shutil.copyfile(c["file"], bundle / f"{tier}.onnx")
    (bundle / "choice.json").write_text(json.dumps(summary, indent=1) + "\n")
    # Every tier is far under the latency budget, so the default is the most accurate one on
    # validation.
    best = max(choice, key=lambda t: choice[t]["val_mean_headline"])
    model_doc = {
        "name": bundle.name,
        "default_tier": best,
        "tiers": list(choice),
        "why_default": "highest mean validation score of the shipped tiers (test scores: "
        "MODEL_CARD.md)",
    }
    (bundle / "model.json").write_text(json.dumps(model_doc, indent=1) + "\n")
