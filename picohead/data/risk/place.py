"""Writing a key/value into a host file the way its language or format would (``assignment``),
choosing a line inside the model's window (``insert``) and cutting a few lines around it
(``excerpt``). Password-named keys also get config syntaxes of their own (``passwords.syntax``).
Not here: the values (``makers``) and their detection (``detect``)."""

from __future__ import annotations

import json
import random

from picohead.data.risk import passwords
from picohead.data.risk.common import WINDOW

DOTENV_SHARE = 0.2  # share of single-line values written as .env / .properties lines
PASSWORD_SYNTAX_SHARE = 0.35  # share of password-named keys written in a config syntax instead


def assignment(lang: str | None, key: str, value: str, rng: random.Random) -> str:
    """``key`` set to ``value`` the way a ``lang`` source file would write it (``None``: prose);
    a ``DOTENV_SHARE`` of single-line values in any host as a ``.env``/``.properties`` line
    (``AWS_ACCESS_KEY_ID=AKIA…``, ``KEY="…"``, ``key=…``), the form config files, CI logs and
    pasted snippets carry; a ``PASSWORD_SYNTAX_SHARE`` of password-named keys in one of
    ``passwords.syntax``'s config and command forms."""
    multiline = "\n" in value
    q = json.dumps(value, ensure_ascii=False) if multiline else f'"{value}"'
    lk = key.lower()
    if not multiline and key in passwords.FIELD_NAMES and rng.random() < PASSWORD_SYNTAX_SHARE:
        return passwords.syntax(key, value, rng)
    if not multiline and rng.random() < DOTENV_SHARE:
        up = key.upper() if key.isascii() else key  # detectors fold ASCII case only
        return rng.choice([f"{up}={value}", f'{up}="{value}"', f"{lk}={value}"])
    if lang in ("python", "ruby", "julia", "nim"):
        return f'{key} = """{value}"""' if multiline else f"{key} = {q}"
    if lang in ("javascript", "typescript"):
        return f"const {lk} = `{value}`;" if multiline else f"const {lk} = {q};"
    if lang == "go":
        return f"{lk} := `{value}`" if multiline else f"{lk} := {q}"
    if lang in ("java", "csharp"):
        return f"private static final String {key} = {q};"
    if lang in ("kotlin", "scala", "swift"):
        return f"val {lk} = {q}"
    if lang == "rust":
        return f"const {key}: &str = {q};"
    if lang == "php":
        return f"${lk} = '{value}';"
    if lang in ("shell", "dockerfile", "makefile"):
        return f"export {key}='{value}'" if multiline else f"export {key}={value}"
    if lang == "yaml":  # plain, or quoted as compose files, Ansible and Helm values often are
        if multiline:
            return f"{lk}: |\n  " + value.replace("\n", "\n  ")
        return rng.choice([f"{lk}: {value}", f"{lk}: {q}", f"{lk}: '{value}'"])
    if lang in ("toml",):
        return f'{lk} = """{value}"""' if multiline else f"{lk} = {q}"
    if lang == "json":
        return f"  {json.dumps(lk, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)},"
    if lang == "xml" or lang == "html":
        return f"<{lk}>{value}</{lk}>"
    if lang in ("c", "cpp", "objective_c"):
        return f"static const char *{lk} = {q};"
    if lang == "sql":
        return f"INSERT INTO settings (name, value) VALUES ('{lk}', '{value}');"
    if lang == "perl":
        return f"my ${lk} = '{value}';"
    if lang is None:  # prose
        label = key.replace("_", " ").lower()
        return rng.choice([f"{label}: {value}", f"{label} = {value}", f"{label.title()}: {value}."])
    return f"{lk} = {q}"


def excerpt(text: str, line: str, rng: random.Random, context: int = 2) -> str:
    """The lines of ``text`` holding ``line`` (an inserted assignment) plus up to ``context`` lines
    on each side: a short sample such as a pasted snippet, a log line or a config fragment."""
    at = text.find(line)
    if at < 0:
        return text
    lines = text.split("\n")
    first = text.count("\n", 0, at)
    last = first + line.count("\n")
    lo = max(0, first - rng.randrange(context + 1))
    hi = min(len(lines), last + 1 + rng.randrange(context + 1))
    return "\n".join(lines[lo:hi]) + "\n"


def insert(host: str, line: str, rng: random.Random) -> str:
    """Insert ``line`` at a line boundary that lies inside the model's window."""
    lines = host.split("\n")
    enc = [len(x.encode("utf-8")) + 1 for x in lines]
    total = sum(enc)
    candidates = []
    pos = 0
    for i, n in enumerate(enc):
        if pos < WINDOW - 200 or pos > total - WINDOW + 200:
            candidates.append(i)
        pos += n
    i = rng.choice(candidates) if candidates else 0
    return "\n".join(lines[:i] + [line] + lines[i:])
