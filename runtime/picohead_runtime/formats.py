"""Output formats of a result: one human-readable line, or one JSON line (JSONL).

Shared by ``classify`` (``picohead_runtime.cli``) and ``scan`` (``picohead_runtime.scale``). Paths
are printed safely: JSON escapes every control character (and the result gives ``path_b64`` for
names that are not valid UTF-8); a human line quotes any name that is not plainly printable. What
it does not do: write anything (the commands own their streams).
"""

from __future__ import annotations

import json

from picohead_runtime.results import UNKNOWN, HeadResult, Result


def human_path(path: str | None) -> str:
    if path is None:
        return "<bytes>"
    if path.isprintable() and "\\" not in path:
        return path
    # control characters, newlines, undecodable bytes (surrogate escapes), backslashes: quote
    return ascii(path) if not path.isascii() else repr(path)


def format_human(r: Result) -> str:
    name = human_path(r.path)
    if not r.ok:
        detail = f" ({r.message})" if r.message else ""
        return f"{name}: [{r.status}]{detail}"
    parts = []
    for head, h in r.heads.items():
        if isinstance(h, HeadResult):
            if h.label == UNKNOWN:
                parts.append(f"{head}=unknown (raw {h.raw} {h.score:.2f})")
            else:
                parts.append(f"{head}={h.label} {h.score:.2f}")
        elif h.disabled and len(h.disabled) == len(h.scores):
            parts.append(f"{head}=n/a")  # the model answers none of this head's labels
        else:
            parts.append(f"{head}=[{','.join(h.labels)}]")
    if r.truncated:
        parts.append(f"[truncated: {r.message}]")
    return f"{name}: " + " ".join(parts)


def format_jsonl(r: Result) -> str:
    # ensure_ascii: newlines, control characters and surrogate escapes all become \\uXXXX escapes
    return json.dumps(r.asdict(), ensure_ascii=True, separators=(",", ":"))
