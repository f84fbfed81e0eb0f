"""``picohead data``: build training corpora from recipes."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group("data")
def data() -> None:
    """Build training corpora from versioned recipes (registry packages + real encoders)."""


@data.command("build")
@click.option("--recipe", default="content", show_default=True,
              help="Recipe name under picohead/recipes/ or a folder with recipe.json.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("corpus"),
              show_default=True, help="Corpus directory to write.")
@click.option("--cache", type=click.Path(path_type=Path), default=Path("cache"),
              show_default=True, help="Download and unpack cache (reused between builds).")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Parallel downloads / encoders.")
@click.option("--mirrors", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Folder of git mirrors for the recipe's git entries "
                   "(bare repositories named owner+name holding the pinned commits).")
@click.option("--wild-manifest", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="A built wild suite's manifest.jsonl: content it holds is dropped from the "
                   "corpus (the recipe's producers are always checked against the wild recipes).")
@click.option("--allow-degraded", is_flag=True,
              help="Exit 0 even when more sources or label counts failed than the recipe "
                   "tolerates (the card says what; the build does not become the last good one).")
def build_cmd(recipe: str, out: Path, cache: Path, jobs: int, mirrors: Path | None,
              wild_manifest: Path | None, allow_degraded: bool) -> None:
    """Fetch, harvest, generate, split and describe a corpus (resumable)."""
    from picohead.data.build import build
    from picohead.data.recipe import RecipeError, load_recipe
    from picohead.data.tolerance import DegradedBuildError

    try:
        r = load_recipe(recipe)
        card = build(r, out=out, cache=cache, jobs=jobs, mirrors=mirrors,
                     wild_manifest=wild_manifest, allow_degraded=allow_degraded)
    except DegradedBuildError as e:
        click.echo(f"error: {e}\nthe manifests and card are written to {out}; rerun with "
                   "--allow-degraded to accept them", err=True)
        sys.exit(2)
    except (RecipeError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(f"wrote {card['total']} samples to {out} "
               f"({', '.join(f'{k} {v}' for k, v in sorted(card['splits'].items()))})", err=True)


@data.command("licence")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("corpus-licence"),
              show_default=True, help="Dataset directory to write.")
@click.option("--cache", type=click.Path(path_type=Path), default=Path("cache"),
              show_default=True, help="Download and unpack cache (shared with `data build`).")
@click.option("--recipe", default="licence", show_default=True,
              help="Recipe name under picohead/recipes/ or a folder with recipe.json.")
@click.option("--offline", is_flag=True,
              help="Read only packages already unpacked in the cache; download nothing.")
def licence_cmd(out: Path, cache: Path, recipe: str, offline: bool) -> None:
    """Licence-text dataset for an added `licence` head (DEP-5 copyright files, common-licenses,
    upstream licence files), split by source package."""
    from picohead.data.licence import build_licence

    try:
        card = build_licence(out, cache, recipe=recipe, offline=offline)
    except (OSError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(f"wrote {card['total']} samples, {len(card['labels'])} labels to {out} "
               f"({', '.join(f'{k} {v}' for k, v in card['splits'].items())}); head spec: "
               f"{out / 'head.json'}", err=True)


@data.command("clone-list")
@click.option("--recipe", default="content", show_default=True,
              help="Recipe name under picohead/recipes/ or a folder with recipe.json.")
@click.option("--mirrors", default="MIRRORS", show_default=True,
              help="Mirror folder the printed commands fill (passed later to `data build --mirrors`).")
def clone_list_cmd(recipe: str, mirrors: str) -> None:
    """Print one shell line per git entry of the recipe that fetches its pinned commit into a
    mirror folder (run them where GitHub is reachable; the builder itself never clones)."""
    from picohead.data.gitmirror import clone_commands
    from picohead.data.recipe import RecipeError, load_recipe

    try:
        r = load_recipe(recipe)
    except (RecipeError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    for line in clone_commands(r.entries, mirrors):
        click.echo(line)
