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

from picohead_runtime.errors import PicoheadError

RESERVED_PREFIXES = ("gnome", "libgnome", "evolution", "yelp")
RESERVED_NAMES = frozenset({
    "asymptote-doc", "clamav-testfiles", "fonts-font-awesome", "gdk-pixbuf-tests", "gimp-data",
    "gnuplot-doc", "groff", "hydrogen-data", "libgs10-common", "libreoffice-common", "xfig-libs"})


# GitHub repositories reserved for the project's independent checks (DEVELOPERS.md): an owner
# pattern ending in "*" reserves every repository it matches.
RESERVED_REPOS = ("github-linguist/linguist", "TheAlgorithms/*", "exercism/*", "mdn/*",
                  "jessfraz/dockerfiles", "google/magika", "corkami/*", "pemistahl/lingua-*",
                  "Yelp/detect-secrets")


class RecipeError(PicoheadError, ValueError):
    pass


# The keys a corpus recipe may hold: exactly what the builder reads (and what the shipped recipes
# use). A key starting with "_" is a comment anywhere; "notes" is the recipe's prose for the card.
RECIPE_KEYS = frozenset({"name", "version", "spec", "settings", "dropped_labels", "notes", "sources",
                         "include"})
# A file named in a recipe's "include" list holds more source entries (one file per concern, e.g.
# code from public repositories, word lists): exactly these keys.
INCLUDE_KEYS = frozenset({"sources", "notes"})
SETTING_KEYS = frozenset({
    "cap_per_source_label", "cap_per_label", "cuts_per_file", "per_format", "per_generator",
    "generators", "risk_per_label", "risk_short_share", "min_per_split", "min_groups_per_label",
    "max_producer_share", "producer_floor", "producer_floor_large", "large_ecosystems",
    "max_failed_share", "max_label_drop"})
KINDS = frozenset({"deb", "debsrc", "debdesc", "pypi", "npm", "git"})
ENTRY_KEYS = frozenset({"kind", "name", "version", "licence", "take", "split_by", "sdist",
                        "languages", "repo", "commit", "paths"})  # repo/commit/paths: git only
TAKE_KEYS = frozenset({
    "code", "text", "text_from", "mime", "subtype", "ext", "name", "name_re", "under", "exclude",
    "shebang", "magic", "inner", "gunzip", "cap", "chunks_per_file",
    "words"})  # words: a word list, see picohead.data.words


def check_keys(d: Any, allowed: frozenset[str], where: str, source: object) -> None:
    """RecipeError naming the first key of ``d`` outside ``allowed`` (``_comment``-style keys
    pass), ``where`` it stands and the file, with the keys that are allowed."""
    if not isinstance(d, dict):
        raise RecipeError(f"{source}: {where} must be an object")
    extra = sorted(k for k in d if k not in allowed and not str(k).startswith("_"))
    if extra:
        at = f"{where}.{extra[0]}" if where else extra[0]
        raise RecipeError(f"{source}: {at}: unknown key; allowed: {', '.join(sorted(allowed))} "
                          "(and _comment-style keys)")


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
        assert key in SETTING_KEYS, key  # a setting the builder reads is one a recipe may hold
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
    check_recipe(data, f)
    data = _with_includes(data, root, f)
    check_reserved(data["sources"])
    return Recipe(name=data.get("name", root.name), root=root, data=data)


def _with_includes(data: dict[str, Any], root: Path, source: Path) -> dict[str, Any]:
    """``data`` with the source entries (and notes) of every file in its ``include`` list
    appended, in list order; each included file is checked like the recipe itself."""
    inc = data.get("include", [])
    if not isinstance(inc, list) or not all(isinstance(x, str) for x in inc):
        raise RecipeError(f"{source}: 'include' must be a list of file names beside the recipe")
    out = dict(data, sources=list(data["sources"]), notes=list(data.get("notes", [])))
    for name in inc:
        f = root / name
        if not f.is_file():
            raise RecipeError(f"{source}: include {name!r}: no such file {f}")
        part = json.loads(f.read_text(encoding="utf-8"))
        check_keys(part, INCLUDE_KEYS, "", f)
        check_recipe({"sources": part.get("sources")}, f)
        out["sources"] += part["sources"]
        out["notes"] += list(part.get("notes", []))
    return out


def check_recipe(data: Any, source: object) -> None:
    """RecipeError naming the key and ``source`` for an unknown key at the top, in ``settings``,
    in a source entry or in a ``take`` rule, or a source entry that lacks what it needs."""
    check_keys(data, RECIPE_KEYS, "", source)
    check_keys(data.get("settings", {}), SETTING_KEYS, "settings", source)
    if not isinstance(data.get("sources"), list):
        raise RecipeError(f"{source}: 'sources' must be a list of package entries")
    for i, e in enumerate(data["sources"]):
        where = f"sources[{i}]"
        check_keys(e, ENTRY_KEYS, where, source)
        for k in ("kind", "name", "take"):
            if k not in e:
                raise RecipeError(f"{source}: {where} lacks {k!r}")
        if e["kind"] not in KINDS:
            raise RecipeError(f"{source}: {where}.kind: {e['kind']!r} is not one of "
                              f"{', '.join(sorted(KINDS))}")
        if e["kind"] == "git" and not (e.get("commit") and e.get("licence")):
            raise RecipeError(f"{source}: git entry {e['name']!r} needs a pinned commit and a licence")
        if not isinstance(e["take"], list):
            raise RecipeError(f"{source}: {where}.take must be a list of rules")
        for j, rule in enumerate(e["take"]):
            check_keys(rule, TAKE_KEYS, f"{where}.take[{j}]", source)
