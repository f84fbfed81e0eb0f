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

from picohead_runtime.spec import ModelSpec, load_spec

log = logging.getLogger(__name__)
# The exporter issue's int8 size budget per tier (also used by benchmarks/export_budget.py).
SIZE_BUDGET = {"tiny": 64 * 1024, "small": 192 * 1024, "base": 512 * 1024, "pro": 2 * 1024 * 1024}


def recipe_dir(name: str) -> Path:
    """A recipe bundled with picohead (``content``), or a folder holding spec.json + train.json."""
    if Path(name).is_dir():
        return Path(name)
    return Path(str(resources.files("picohead") / "recipes" / name))


def load_train_plan(name: str) -> dict[str, Any]:
    path = recipe_dir(name) / "train.json"
    if not path.is_file():
        raise FileNotFoundError(f"recipe {name!r} has no train.json ({path})")
    plan: dict[str, Any] = json.loads(path.read_text())
    return plan


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
    from picohead.calibrate import calibrate_files, calibrated_rule, rule
    from picohead.dataset import load_manifest
    from picohead.model_card import onnx_test_report, onnx_val_scores
    from picohead.train import TrainConfig, train

    spec = family_spec(base, family, fam.get("arch"))
    run_dir = runs / f"{Path(name).name}-{family}"
    wcache = cache / "windows"
    train_data = load_manifest(corpus / "train.jsonl", spec, cache_dir=wcache)
    val_data = load_manifest(corpus / "val.jsonl", spec, cache_dir=wcache)
    cfg = TrainConfig.from_dict(fam.get("train", {}))
    if threads and not cfg.threads:
        cfg = dataclasses.replace(cfg, threads=threads)
    info = {
        "train": str((corpus / "train.jsonl").resolve()),
        "train_sha256": train_data.data_hash,
        "val": str((corpus / "val.jsonl").resolve()),
        "n_train": len(train_data),
        "n_val": len(val_data),
        "recipe": name,
    }
    resume = (run_dir / "checkpoint.pt").exists()
    train(spec, train_data, val_data, run_dir, cfg, resume=resume, data_info=info)

    from picohead_exporters import export_run

    onnx_dir = run_dir / "onnx"
    done = onnx_dir / "export.json"
    if not done.exists() or done.stat().st_mtime < (run_dir / "best.pt").stat().st_mtime:
        reports = export_run(
            run_dir, out_dir=onnx_dir, precision="int8", cache_dir=wcache, raise_on_fail=False
        )
        for r in reports:
            if not r.ok:
                log.warning("%s %s: not exported: %s", family, r.tier, "; ".join(r.failures))
        onnx_dir.mkdir(parents=True, exist_ok=True)  # absent when every tier missed a gate
        done.write_text(json.dumps([r.to_dict() for r in reports], indent=1) + "\n")
    files = {
        r["tier"]: Path(r["path"]) for r in json.loads(done.read_text()) if r["ok"] and r["path"]
    }
    calib_file = run_dir / "eval" / "calibration.json"
    (run_dir / "eval").mkdir(exist_ok=True)
    # Recalibrate when the files are newer than the calibration, or were calibrated under another
    # rule (e.g. by a picohead from before disabled labels: its thresholds would otherwise stay).
    stale = any(calibrated_rule(p) != rule() for p in files.values())
    if not calib_file.exists() or calib_file.stat().st_mtime < done.stat().st_mtime or stale:
        calib = calibrate_files(files, val_data)
        calib_file.write_text(json.dumps(calib, indent=1) + "\n")
    val_file = run_dir / "eval" / "onnx-val.json"
    if not val_file.exists() or val_file.stat().st_mtime < calib_file.stat().st_mtime:
        val_file.write_text(json.dumps(onnx_val_scores(files, val_data), indent=1) + "\n")
    test = load_manifest(corpus / "test.jsonl", spec, cache_dir=wcache)
    scores = onnx_test_report(files, spec, test)
    (run_dir / "eval" / "onnx-test.json").write_text(json.dumps(scores, indent=1) + "\n")
    return {
        t: {"bytes": s["bytes"], "mean_headline": s["mean_headline"]} for t, s in scores.items()
    }


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
    from picohead.model_card import write_model_card

    plan = load_train_plan(name)
    if not (corpus / "train.jsonl").is_file():
        from picohead.data.build import build
        from picohead.data.recipe import load_recipe

        log.info("building the %s corpus in %s", name, corpus)
        build(load_recipe(name), out=corpus, cache=cache, jobs=jobs)
    # The corpus's own spec drops the labels its data could not back (see its DATASET_CARD.md).
    spec_path = (
        corpus / "spec.json" if (corpus / "spec.json").is_file() else recipe_dir(name) / "spec.json"
    )
    base = load_spec(spec_path)
    summary: dict[str, Any] = {"recipe": name, "families": {}}
    todo = families or list(plan["families"])
    parallel = max(1, min(jobs, len(todo)))
    if parallel == 1:
        for family in todo:
            summary["families"][family] = _family_stage(
                name, family, plan["families"][family], base, corpus, runs, cache, threads=0
            )
    else:
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
                summary["families"][family] = fut.result()

    # Choose among every family of this recipe evaluated so far (also by earlier invocations), by
    # the validation split's score: the test split only reports what was chosen.
    all_scores, val_scores = {}, {}
    for fam in plan["families"]:
        ev = runs / f"{Path(name).name}-{fam}" / "eval"
        if not (ev / "onnx-test.json").is_file():
            continue
        all_scores[fam] = json.loads((ev / "onnx-test.json").read_text())
        if (ev / "onnx-val.json").is_file():
            val_scores[fam] = json.loads((ev / "onnx-val.json").read_text())
        else:
            log.warning(
                "%s: no eval/onnx-val.json (evaluated by an older picohead); not a candidate "
                "until `picohead train --recipe %s --family %s` scores it on validation",
                fam,
                name,
                fam,
            )
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
    summary["choice"] = choice
    if card is not None and choice:
        corpus_card = (
            json.loads((corpus / "card.json").read_text())
            if (corpus / "card.json").is_file()
            else None
        )
        calibration = {}
        for tier, c in choice.items():
            cal_path = runs / f"{Path(name).name}-{c['family']}" / "eval" / "calibration.json"
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
    if bundle is not None:
        bundle.mkdir(parents=True, exist_ok=True)
        for tier, c in choice.items():
            shutil.copyfile(c["file"], bundle / f"{tier}.onnx")
        (bundle / "choice.json").write_text(json.dumps(summary, indent=1) + "\n")
        # Every tier is far under the latency budget, so the default is the most accurate one
        # on validation.
        best = max(choice, key=lambda t: choice[t]["val_mean_headline"])
        model_doc = {
            "name": bundle.name,
            "default_tier": best,
            "tiers": list(choice),
            "why_default": "highest mean validation score of the shipped tiers (test scores: "
            "MODEL_CARD.md)",
        }
        (bundle / "model.json").write_text(json.dumps(model_doc, indent=1) + "\n")
    return summary
