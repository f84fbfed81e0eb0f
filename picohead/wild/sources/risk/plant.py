"""Where a snippet goes in a host file: a line boundary in the first ~700 bytes, or the end.

``head_offset`` picks a line start before ``HEAD_LIMIT`` where a line of the family's syntax may
go (anchors per family), ``tail_insert`` appends in a place the family allows, and ``plant_into``
renders and inserts. What it does not do: guarantee the result still parses (the insertion
respects line structure and common anchors, not a full grammar).
"""

from __future__ import annotations

import random
import re

from picohead.wild.sources.risk.render import Plant, render, wrap_tail

HEAD_LIMIT = 700      # a head insertion starts before this byte offset

# -- where to plant --------------------------------------------------------------------------------
_HEAD_NEXT = {
    "yaml": re.compile(r"[A-Za-z_\"'][\w\"' .-]*:(\s|$)"),
    "go": re.compile(r"(func|type|var|const) "),
    "kotlin": re.compile(r"(fun|class|object|val|data|internal|private|interface|enum|sealed)\b|@\w"),
    "rust": re.compile(r"(use|fn|pub|struct|impl|const|static|mod|enum|#\[)"),
    "ruby": re.compile(r"(require|class|module|def|[A-Z]\w* =)"),
    "hcl": re.compile(r"(resource|module|variable|locals|provider|terraform|data|output)\b"),
    "python": re.compile(r"(import \w|from [\w.]+ import |def |class |[A-Z_]+ = |@\w)"),
    "js": re.compile(r"(import|const|let|var|function|export|module|require)"),
    "ts": re.compile(r"(import|const|let|function|export|interface|type|class)"),
}
_HEAD_AFTER = {
    "ini": re.compile(r"\[[^\]]+\]\s*$"),
    "json": re.compile(r".*\{\s*$"),
    "xml": re.compile(r"\s*<[A-Za-z][^!?/]*[^/]>\s*$"),
    "html": re.compile(r".*>\s*$"),
    "java": re.compile(r".*\b(class|interface|enum)\b.*\{\s*$"),
    "csharp": re.compile(r"\s*\{\s*$"),
    "php": re.compile(r"(<\?php|namespace .*;|declare\(.*\);)\s*$"),
    "c": re.compile(r"#include .*$"),
    "sql": re.compile(r"(.*;|\s*)$"),
    "csv": re.compile(r".+$"),
    "md": re.compile(r"\s*$"),
    "text": re.compile(r"\s*$"),
}


def head_offset(text: str, fam: str, rng: random.Random) -> int | None:
    """A line boundary before HEAD_LIMIT where a line of ``fam`` syntax may go, or None."""
    starts = [0] + [m.end() for m in re.finditer("\n", text[:HEAD_LIMIT])]
    lines = text.split("\n")
    cands: list[int] = []
    fence = False
    for i, s in enumerate(starts):
        if s >= HEAD_LIMIT or i >= len(lines):
            break
        prev = lines[i - 1] if i else None
        cur = lines[i]
        prev_s = prev or ""
        if prev is not None and prev.lstrip().startswith("```"):
            fence = not fence
        if fam in _HEAD_NEXT:
            ok = bool(_HEAD_NEXT[fam].match(cur)) and (fam != "yaml" or i == 0 or
                                                      not prev_s.rstrip().endswith(("|", ">")))
        elif fam in _HEAD_AFTER:
            ok = prev is not None and bool(_HEAD_AFTER[fam].match(prev))
            if fam == "xml" and prev is not None and prev.lstrip().startswith("<?"):
                ok = False
            if fam in ("md", "text"):
                ok = ok and not fence and i > 0
            if fam == "php" and ok:
                later = "\n".join(lines[i:i + 60])
                if prev_s.startswith("<?php"):
                    ok = not re.search(r"^(namespace|declare)\b", later, re.M)
                elif prev_s.startswith("declare"):
                    ok = not re.search(r"^namespace\b", later, re.M)
        else:  # env, properties, shell, docker, log, toml(top), css
            ok = i > 0 or fam in ("env", "properties", "log")
            if fam in ("shell", "docker") and prev is not None:
                ok = not prev.rstrip().endswith(("\\", "&&", "|")) and not \
                    re.search(r"<<-?\s*['\"]?\w+['\"]?\s*$", prev)
            if fam == "toml":
                ok = ok and prev is not None and prev.strip() == "" and \
                    not cur.startswith("[") and i < 3
                ok = ok or (i == 0 and not text.startswith("["))
            if fam == "css":
                ok = prev is not None and prev.rstrip().endswith(("}", "*/"))
        if ok:
            cands.append(s)
    if not cands:
        return None
    return rng.choice(cands)


def tail_insert(text: str, fam: str, snippet: str, rng: random.Random) -> str | None:
    """``text`` with ``snippet`` at its end, in a place where ``fam`` allows it, or None."""
    if fam in ("json",):
        return None
    if fam in ("xml", "html"):
        i = text.rstrip().rfind("\n")
        if i < 0:
            return None
        last = text[i + 1:]
        if not last.strip().startswith("</"):
            return None
        return text[:i + 1] + snippet + "\n" + last
    if fam == "php" and text.rstrip().endswith("?>"):
        return None
    if fam == "toml" and re.search(r"^\[", text, re.M):
        return None  # a tail key would fall into the last table; fine in syntax but skip
    sep = "" if text.endswith("\n") else "\n"
    blank = "\n" if fam not in ("csv", "log", "env", "properties") else ""
    return text + sep + blank + wrap_tail(fam, snippet, rng) + "\n"


def plant_into(text: str, fam: str, plant: Plant, rng: random.Random,
               where: str) -> tuple[str, str, str] | None:
    """(new text, planted snippet, where) or None when the host has no place for it."""
    snippet = render(plant, fam, rng)
    if fam == "yaml" and re.search(r"\A(\s*(#.*|---.*|%.*)?\n)*- ", text):
        lines = snippet.split("\n")  # a top-level list (Ansible tasks): plant one more item
        snippet = "\n".join(["- " + lines[0]] + ["  " + x for x in lines[1:]])
    if where == "head":
        off = head_offset(text, fam, rng)
        if off is not None:
            ins = snippet + "\n"
            if fam in ("md", "text"):
                ins += "\n"
            return text[:off] + ins + text[off:], snippet, "head"
        where = "tail"
    out = tail_insert(text, fam, snippet, rng)
    return None if out is None else (out, snippet, "tail")
