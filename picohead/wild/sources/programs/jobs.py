"""The recipe and one job's argv: loading, apt packages, option draws, ``{var}`` rendering, checks.

``render`` substitutes a job's ``{in}``/``{out}``/``{tmp}`` paths and its drawn ``vary`` options;
``expect_ok`` and ``_elf_type`` check an output's signature. What it does not do: run anything
(``run``) or make inputs (the ``*_inputs`` modules).
"""

from __future__ import annotations

import glob
import json
import random
import shutil
import struct
from pathlib import Path
from typing import Any

from picohead.wild.sources.programs.inputs import Input

RECIPE = Path(__file__).resolve().parents[3] / "recipes" / "wild" / "programs.json"
CAP = 25  # files per (program, label)


def load_recipe(path: Path = RECIPE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def required_packages(path: Path = RECIPE) -> list[str]:
    """The apt packages the recipe's programs come from (sorted, without duplicates)."""
    progs = load_recipe(path)["programs"]
    return sorted(
        {p["apt"] for p in progs.values()}
        | {x for p in progs.values() for x in p.get("extra_apt", [])}
    )


def missing_binaries(prog: dict[str, Any]) -> list[str]:
    return [b for b in prog["binaries"] if shutil.which(b) is None]


def expect_ok(data: bytes, expect: list[str]) -> bool:
    """True when ``expect`` is empty or one of its checks holds (see the recipe's ``about``)."""
    if not data:
        return False
    for e in expect:
        off = 0
        if e.startswith("at"):
            n, _, e = e[2:].partition(":")
            off = int(n)
            if not e.startswith(("hex:", "text:")):
                e = "text:" + e
        kind, _, val = e.partition(":")
        if kind == "hex" and data[off : off + len(val)].hex().startswith(val.lower()):
            return True
        if kind == "text":
            if off and data[off : off + len(val)] == val.encode():
                return True
            if not off and val.encode() in data[:8192]:
                return True
    return not expect


def expand_option(v: str | list[str]) -> list[str]:
    """A ``vary`` value as argv items: a list as is, ``""`` as nothing, ``-k=v`` (one dash) as "
    "two."""
    if isinstance(v, list):
        return [str(x) for x in v]
    if v == "":
        return []
    if v.startswith("-") and not v.startswith("--") and "=" in v:
        k, _, val = v.partition("=")
        return [k, val]
    return [v]


def render(
    argv: list[str],
    vals: dict[str, list[str]],
    inp: Input | None,
    paths: dict[str, str],
    glob_args: bool = False,
) -> list[str]:
    """Substitute ``{var}`` tokens: a whole-token option expands to its argv items."""
    out: list[str] = []
    for tok in argv:
        if tok == "{args}" and inp is not None:
            out.extend(inp.args)
            continue
        key = tok[1:-1] if tok.startswith("{") and tok.endswith("}") else None
        if key in vals:
            out.extend(vals[key])
            continue
        for k, v in paths.items():
            tok = tok.replace("{" + k + "}", v)
        for k, vs in vals.items():
            tok = tok.replace("{" + k + "}", " ".join(vs))
        if inp is not None:
            tok = tok.replace("{line}", inp.text[:60] or "wild sample")
        if glob_args and "*" in tok:
            out.extend(sorted(glob.glob(tok)) or [tok])
        else:
            out.append(tok)
    return out


def _draw(rng: random.Random, vary: dict[str, list[Any]]) -> tuple[dict[str, list[str]], str]:
    vals, shown = {}, []
    for k in sorted(vary):
        v = rng.choice(vary[k])
        vals[k] = expand_option(v)
        shown.append(f"{k}={' '.join(vals[k]) or '-'}")
    return vals, " ".join(shown)


def _elf_type(data: bytes) -> int:
    return struct.unpack_from("<H", data, 16)[0] if len(data) > 18 else -1
