"""Recipes: the versioned description of a corpus (what to fetch, what to take, how to label it).

A recipe lives in ``picohead/recipes/<name>/recipe.json`` beside its ``spec.json``. Entries pin a
registry package (``kind`` deb | debsrc | pypi | npm, ``name``, ``version``, ``licence``) or a
public repository (``kind`` git, ``name`` = ``repo`` = ``owner/name``, ``commit``, ``paths``,
``licence``; read from a mirror folder, ``picohead.data.gitmirror``) and list ``take`` rules (see
``picohead.data.harvest``). Packages reserved for independent evaluation can
never be harvested: ``check_reserved`` rejects a recipe that names one, and ``reserved_path`` keeps
their files (e.g. a GNOME translation shipped inside another package) out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

RESERVED_PREFIXES = ("gnome", "libgnome", "evolution", "yelp")
RESERVED_NAMES = frozenset({
    "asymptote-doc", "clamav-testfiles", "fonts-font-awesome", "gdk-pixbuf-tests", "gimp-data",
    "gnuplot-doc", "groff", "hydrogen-data", "libgs10-common", "libreoffice-common", "xfig-libs"})


# GitHub repositories reserved for the project's independent checks (DEVELOPERS.md): an owner
# pattern ending in "*" reserves every repository it matches.
RESERVED_REPOS = ("github-linguist/linguist", "TheAlgorithms/*", "exercism/*", "mdn/*",
                  "jessfraz/dockerfiles", "google/magika", "corkami/*", "pemistahl/lingua-*",
                  "Yelp/detect-secrets")


class RecipeError(ValueError):
    pass


def reserved_repo_name(repo: str) -> bool:
    """True for a GitHub ``owner/name`` matching ``RESERVED_REPOS`` (case-insensitive)."""
    owner, _, name = repo.lower().partition("/")
    for pat in RESERVED_REPOS:
        o, _, n = pat.lower().partition("/")
        if o == owner and (n == name or (n.endswith("*") and name.startswith(n[:-1]))):
            return True
    return False


def is_reserved(name: str) -> bool:
    """True for a Debian package reserved for independent evaluation."""
    n = name.lower()
    return n.startswith(RESERVED_PREFIXES) or n in RESERVED_NAMES


def reserved_path(rel: str) -> bool:
    """A file that belongs to a reserved project although shipped elsewhere (e.g. gnome-*.mo)."""
    base = rel.rsplit("/", 1)[-1].lower()
    return base.startswith(RESERVED_PREFIXES) or "/gnome-" in rel.lower() or "/yelp" in rel.lower()


@dataclass(frozen=True)
class Recipe:
    name: str
    root: Path
    data: dict[str, Any]

    @property
    def entries(self) -> list[dict[str, Any]]:
        return list(self.data["sources"])

    @property
    def spec_path(self) -> Path:
        return self.root / self.data.get("spec", "spec.json")

    def setting(self, key: str, default: Any) -> Any:
        return self.data.get("settings", {}).get(key, default)


def check_reserved(entries: list[dict[str, Any]]) -> None:
    for e in entries:
        if e.get("kind") in ("deb", "debsrc") and is_reserved(str(e.get("name", ""))):
            raise RecipeError(
                f"recipe entry {e['name']!r} is reserved for independent evaluation; remove it")
        if e.get("kind") == "git" and reserved_repo_name(str(e.get("repo", e.get("name", "")))):
            raise RecipeError(
                f"recipe entry git:{e.get('repo', e.get('name'))} is a repository reserved for "
                "independent evaluation; remove it")


def load_recipe(name_or_path: str) -> Recipe:
    """A recipe by name (``content``) or by path to a folder or recipe.json."""
    p = Path(name_or_path)
    if p.is_file():
        root = p.parent
    elif p.is_dir():
        root = p
    else:
        root = Path(str(resources.files("picohead") / "recipes" / name_or_path))
    f = root / "recipe.json"
    if not f.exists():
        raise RecipeError(f"no recipe at {f}; pass a recipe name (e.g. 'content') or a folder")
    data = json.loads(f.read_text(encoding="utf-8"))
    if not isinstance(data.get("sources"), list):
        raise RecipeError(f"{f}: 'sources' must be a list of package entries")
    for i, e in enumerate(data["sources"]):
        for k in ("kind", "name", "take"):
            if k not in e:
                raise RecipeError(f"{f}: sources[{i}] lacks {k!r}")
        if e["kind"] == "git" and not (e.get("commit") and e.get("licence")):
            raise RecipeError(f"{f}: git entry {e['name']!r} needs a pinned commit and a licence")
    check_reserved(data["sources"])
    return Recipe(name=data.get("name", root.name), root=root, data=data)
