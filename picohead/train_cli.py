"""``picohead train`` and ``picohead eval``: click wrappers around :mod:`picohead.train` and
:mod:`picohead.evaluate`. Torch is imported inside the commands, so ``--help`` never loads it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click
from click.core import ParameterSource

from picohead.options import tier_or_all, windows_cache
from picohead_runtime.spec import SpecError, load_spec


def _manifests(data: Path, val: Path | None) -> tuple[Path, Path | None]:
    """A corpus folder means its train.jsonl (+ val.jsonl); a file is the training manifest."""
    if data.is_dir():
        train = data / "train.jsonl"
        if not train.is_file():
            raise click.UsageError(f"{data} is a folder without train.jsonl")
        if val is None and (data / "val.jsonl").is_file():
            val = data / "val.jsonl"
        return train, val
    return data, val


@click.command("train")
@click.option(
    "--spec",
    "spec_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Model spec JSON (heads, labels, window, tiers, arch). Not needed with --resume.",
)
@click.option(
    "--data",
    type=click.Path(exists=True, path_type=Path),
    help="Training manifest (JSONL) or a corpus folder with train.jsonl and val.jsonl.",
)
@click.option(
    "--val",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Validation manifest; default: the corpus's val.jsonl, else 10% of sources held out.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory to create (or resume with --resume); with --recipe, the runs folder.",
)
@click.option(
    "--family", type=click.Choice(["bytes", "steady"]), help="Override the spec's family."
)
@click.option("--steps", type=int, help="Optimizer steps.")
@click.option("--epochs", type=float, help="Passes over the training set (overrides --steps).")
@click.option("--batch-size", type=int)
@click.option("--lr", type=float, help="Peak learning rate.")
@click.option("--eval-every", type=int, help="Validate every N steps.")
@click.option("--tier-sampling", type=click.Choice(["sandwich", "all"]))
@click.option(
    "--distill", type=float, help="Weight of distillation from the largest tier (0: off)."
)
@click.option("--seed", type=int)
@click.option("--threads", type=int, help="Torch threads (default: torch's choice).")
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("cache/windows"),
    show_default=True,
    help="Cache of preprocessed windows; with --recipe, the root of every cache (downloads, "
    "extracted packages, windows; default cache/).",
)
@click.option("--resume", is_flag=True, help="Continue the run in --out from its checkpoint.")
@click.option(
    "--recipe",
    help="Reproduce a recipe end to end (data build -> train -> export -> eval -> choose); "
    "--data is then the corpus folder (default corpus/) and --out the runs folder (default runs/).",
)
@click.option(
    "--bundle",
    type=click.Path(file_okay=False, path_type=Path),
    help="With --recipe: copy the chosen tier files into this runtime model folder and write "
    "MODEL_CARD.md (see --card).",
)
@click.option(
    "--card",
    "card_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("MODEL_CARD.md"),
    show_default=True,
    help="With --recipe and --bundle: where the model card is written (a scratch bundle should "
    "not overwrite the project's card).",
)
@click.option(
    "--allow-missing-encoders",
    is_flag=True,
    help="With --recipe: build the corpus even when [data] packages or encoder programs (ffmpeg, "
    "7z, cpio, ar, zstd, gpg, soffice, jar) are missing; their formats are then left out. "
    "Without it the recipe refuses to start (exit 2) and names what to install.",
)
def train_cmd(
    spec_path: Path | None,
    data: Path | None,
    val: Path | None,
    out_dir: Path | None,
    family: str | None,
    resume: bool,
    cache_dir: Path,
    recipe: str | None,
    bundle: Path | None,
    card_path: Path,
    allow_missing_encoders: bool,
    **overrides: object,
) -> None:
    """Train a multi-head model with all tiers jointly (nested widths).

    With --recipe NAME, run the whole reproduction instead: build the corpus if missing, train the
    recipe's families (resuming), export every tier, evaluate on the test split, choose per tier.
    """
    if recipe:
        _refuse_with_recipe(overrides, spec_path=spec_path, val=val, resume=resume)
        from picohead.data.requirements import missing
        from picohead.pipeline import run_recipe

        corpus = data or Path("corpus")
        if not (corpus / "train.jsonl").is_file():  # the corpus will be built: check encoders
            lack = missing()
            if lack and not allow_missing_encoders:
                click.echo(f"picohead train --recipe {recipe}: error: {lack.message()}", err=True)
                sys.exit(2)
            if lack:  # told to go on: say once what the corpus will lack
                click.echo(f"picohead train: warning: {lack.message()}", err=True)
        given = click.get_current_context().get_parameter_source("cache_dir")
        result = run_recipe(
            recipe,
            corpus=corpus,
            cache=cache_dir if given == ParameterSource.COMMANDLINE else Path("cache"),
            runs=out_dir or Path("runs"),
            bundle=bundle,
            card=card_path if bundle else None,
            families=[family] if family else None,
        )
        click.echo(json.dumps(result, indent=1))
        return
    card_given = click.get_current_context().get_parameter_source("card_path")
    if bundle is not None or allow_missing_encoders or card_given == ParameterSource.COMMANDLINE:
        raise click.UsageError("--bundle, --card and --allow-missing-encoders go with --recipe")
    if out_dir is None:
        raise click.UsageError("--out RUN_DIR is required")
    _train_run(spec_path, data, val, out_dir, family, resume, cache_dir, overrides)


def _refuse_with_recipe(overrides: dict[str, object], **given: object) -> None:
    """The recipe takes its settings from its own train.json: a flag it would ignore is an error."""
    ignored = [f"--{k.replace('_', '-')}" for k, v in overrides.items() if v is not None]
    ignored += [f"--{k.replace('_', '-')}" for k, v in given.items() if v not in (None, False)]
    if ignored:
        raise click.UsageError(
            f"{', '.join(sorted(ignored))}: not used with --recipe (its settings come from the "
            "recipe's train.json; --data, --out, --family, --cache and --bundle apply)"
        )


def _train_run(
    spec_path: Path | None,
    data: Path | None,
    val: Path | None,
    out_dir: Path,
    family: str | None,
    resume: bool,
    cache_dir: Path,
    overrides: dict[str, object],
) -> None:
    """One run: new (spec, data and settings from flags) or resumed (all from the run)."""
    from picohead.dataset import ManifestError, load_manifest
    from picohead.run import RunDir, Validation
    from picohead.train import TrainConfig, train

    run = RunDir(out_dir)
    try:
        if resume and run.has_checkpoint():
            given = {"spec": spec_path, "data": data, "val": val, "family": family, **overrides}
            ignored = [f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None]
            if ignored:
                raise click.UsageError(
                    f"{', '.join(sorted(ignored))}: not used with --resume (a resumed run takes "
                    "its spec, data and settings from the run)"
                )
            spec, cfg, info = run.read_config()
            train_path = Path(info["train"])
            policy = run.validation()
        else:
            if spec_path is None or data is None:
                raise click.UsageError("--spec and --data are required for a new run")
            spec = load_spec(spec_path)
            if family and family != spec.family:
                d = spec.to_dict()
                d["family"], d["arch"] = family, {}
                spec = type(spec).from_dict(d)
            cfg = TrainConfig.from_dict(
                {k: v for k, v in overrides.items() if v is not None}, source="command line"
            )
            train_path, val_path = _manifests(data, val)
            policy = Validation(
                manifest=str(val_path.resolve()) if val_path else None, seed=cfg.seed
            )
        train_data = load_manifest(train_path, spec, cache_dir=cache_dir)
        if policy.manifest is not None:
            val_data = load_manifest(policy.manifest, spec, cache_dir=cache_dir)
        else:
            train_data, val_data = policy.split(train_data)
        info = {
            "train": str(train_path.resolve()),
            "train_sha256": train_data.data_hash,
            "val": policy.manifest,
            "validation": policy.record(),
            "n_train": len(train_data),
            "n_val": len(val_data),
        }
        summary = train(spec, train_data, val_data, out_dir, cfg, resume=resume, data_info=info)
    except (SpecError, ManifestError, FileExistsError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    if summary.get("rank", 0) == 0:  # under torchrun only rank 0 reports
        click.echo(json.dumps(summary))
    if summary.get("world_size", 1) > 1:
        # A torchrun rank leaves without interpreter teardown: every file of the run is closed
        # and the process group destroyed by now, but in ~1 run in 14 a gloo thread still alive
        # at teardown made the rank abort ("terminate called without an active exception",
        # SIGABRT, see pytorch PR 179291), and torchrun then reported the whole run as failed.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


@click.command("eval")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Manifest to evaluate on (a corpus folder means its test.jsonl).",
)
@tier_or_all
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write eval JSON/Markdown (default RUN_DIR/eval).",
)
@windows_cache
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of Markdown.")
def eval_cmd(
    run_dir: Path, data: Path, tier: str, out_dir: Path | None, cache_dir: Path, as_json: bool
) -> None:
    """Evaluate a run per head and per tier: accuracy, macro-F1, per-class scores, confusions."""
    from picohead.dataset import ManifestError, load_manifest
    from picohead.evaluate import evaluate_run, to_markdown, write_report
    from picohead.run import RunDir
    from picohead.train import load_model

    try:
        model, spec = load_model(run_dir)
        tiers = list(spec.tiers) if tier == "all" else [spec.check_tier(tier)]
        path = data / "test.jsonl" if data.is_dir() else data
        wd = load_manifest(path, spec, cache_dir=cache_dir)
        report = evaluate_run(model, spec, wd, tiers)
        report["manifest"] = str(path)
        write_report(report, out_dir or RunDir(run_dir).eval_dir, name=f"eval-{path.stem}")
    except (SpecError, ManifestError, ValueError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(json.dumps(report, indent=1) if as_json else to_markdown(report))


@click.command("add-head")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--spec",
    "head_spec",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSON of the new head (one head object, or {"heads": [...]}).',
)
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Manifest with labels for the new head (a few hundred samples suffice).",
)
@click.option(
    "--val",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Validation manifest; default: a quarter of the sources held out.",
)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--epochs", default=200, show_default=True)
@click.option(
    "--standardize",
    is_flag=True,
    help="Train on standardised trunk features (folded into the head): more accurate in fp32, "
    "but the larger weights amplify int8 rounding, so int8 exports can miss the gates.",
)
@windows_cache
def add_head_cmd(
    run_dir: Path,
    head_spec: Path,
    data: Path,
    val: Path | None,
    out_dir: Path,
    epochs: int,
    standardize: bool,
    cache_dir: Path,
) -> None:
    """Train a new head on RUN_DIR's frozen trunk; existing weights stay bit-identical."""
    from picohead.add_head import add_head
    from picohead.dataset import ManifestError

    try:
        doc = json.loads(head_spec.read_text())
        summary = add_head(
            run_dir,
            doc,
            data,
            out_dir,
            val_path=val,
            epochs=epochs,
            standardize=standardize,
            cache_dir=cache_dir,
            source=str(head_spec),
        )
    except json.JSONDecodeError as e:
        click.echo(f"error: {head_spec}: not valid JSON ({e})", err=True)
        sys.exit(2)
    except (SpecError, ManifestError, FileExistsError, ValueError, RuntimeError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(json.dumps(summary["val"], indent=1))


@click.command("calibrate")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Validation manifest (a corpus folder means its val.jsonl); never the test split.",
)
@click.option(
    "--min-coverage",
    default=0.97,  # picohead.calibrate.MIN_COVERAGE
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Softmax heads: the largest threshold that still answers this share of samples.",
)
@click.option(
    "--min-f1",
    default=0.5,  # picohead.calibrate.MIN_F1 (not imported here: --help stays light)
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Multilabel heads: a label whose best validation F1 is below this is disabled.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the per-tier trade-off report (JSON) here.",
)
@windows_cache
def calibrate_cmd(
    files: tuple[Path, ...],
    data: Path,
    min_coverage: float,
    min_f1: float,
    report: Path | None,
    cache_dir: Path,
) -> None:
    """Set the decision thresholds of exported FILES from a validation manifest, in place.

    Softmax heads get the confidence under which the runtime answers `unknown`; each multilabel
    label gets the threshold of its best F1, or is disabled when even that F1 is under --min-f1.
    `picohead train --recipe` runs this itself; use it after `picohead export` of your own model.
    """
    from picohead.calibrate import calibrate_files, embedded_spec
    from picohead.dataset import ManifestError, load_manifest

    try:
        specs = {p: embedded_spec(p) for p in files}
    except (KeyError, SpecError, ValueError, OSError) as e:
        click.echo(f"error: not a picohead model file: {e}", err=True)
        sys.exit(2)
    except Exception as e:  # onnx's DecodeError and friends: the file is not an ONNX model
        click.echo(f"error: cannot read the model: {type(e).__name__}: {e}", err=True)
        sys.exit(2)
    first = next(iter(specs.values()))
    for p, s in specs.items():
        if [(h.name, h.labels) for h in s.heads] != [(h.name, h.labels) for h in first.heads]:
            click.echo(f"error: {p} has other heads or labels than {files[0]}", err=True)
            sys.exit(2)
    names = [p.stem for p in files]  # report keys
    if len(set(names)) != len(names):
        click.echo("error: two files share a name; calibrate them one at a time", err=True)
        sys.exit(2)
    path = data / "val.jsonl" if data.is_dir() else data
    try:
        val = load_manifest(path, first, cache_dir=cache_dir)
        out = calibrate_files(
            dict(zip(names, files)), val, min_coverage=min_coverage, min_f1=min_f1
        )
    except (SpecError, ManifestError, ValueError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    if report is not None:
        report.write_text(json.dumps(out, indent=1) + "\n")
    for name, r in out.items():
        for head, hr in r["report"].items():
            if "chosen" in hr:
                click.echo(f"{name} {head}: unknown below {hr['chosen']:.2f}")
            else:
                for lab, x in hr.items():
                    what = "disabled" if x.get("disabled") else f"threshold {x['threshold']:.2f}"
                    click.echo(f"{name} {head}.{lab}: {what} (validation F1 {x['f1']:.3f})")
