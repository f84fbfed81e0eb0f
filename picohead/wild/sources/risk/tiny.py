"""Tiny inputs (0-16 bytes): fixed fragments, random short bytes and words, and short positives.

The fixed fragments are labelled ``[]``; a few genuine short phones and e-mails carry their flag.
What it does not do: take prefixes of host files (the build does that per repository).
"""

from __future__ import annotations

import random
import string

from picohead.wild.sources.risk.values import rs

# -- tiny inputs -----------------------------------------------------------------------------------
TINY_FIXED: list[bytes] = [
    b"", b"{}", b"[]", b"\x00", b"\n", b"\r\n", b" ", b"\t", b"0", b"1", b"-1", b"42", b"3.14",
    b"true", b"false", b"null", b"yes", b"no", b"ok", b"OK\n", b"hi", b"hello", b"test",
    b"foo", b"bar", b"TODO", b"N/A", b"--", b"...", b"#", b"//", b"/*", b"*/", b"<", b">",
    b"<a>", b"<br/>", b"<?xml?>", b'{"a":1}', b'{"ok":true}', b"[1,2,3]", b'""', b"''",
    b"a: 1", b"key: value", b"x=1", b"[section]", b"---\n", b"- item", b"#!/bin/sh",
    b"\xef\xbb\xbf", b"\xff\xfe", b"\x00\x00\x00\x00", b"PK\x03\x04", b"\x1f\x8b\x08",
    b"%PDF-1.7", b"GIF89a", b"MZ", b"\x7fELF", b"password", b"secret", b"api_key",
    b"token", b"email", b"phone", b"@", b"a@b", b"user@", b"@example", b"+", b"+1",
    b"555-1234", b"127.0.0.1", b"::1", b"localhost", b"v1.2.3", b"2024-01-31", b"12:30",
    b"AKIA", b"ghp_", b"eyJ", b"sk-", b"-----BEGIN", b"xoxb-", b"SG.", b"AIza",
    b"changeme", b"****", b"${PASSWORD}", b"<password>", b"xxx", b"$HOME", b"%s",
    b"\\n", b"\x1b[0m", b"\xe2\x9c\x93", b"\xc3\xa9t\xc3\xa9", b"\xe6\x97\xa5\xe6\x9c\xac",
    b"end", b"EOF", b"exit 0", b"print(1)", b"main()", b"fn main(){}", b"int x;", b"SELECT 1;",
    b"<html>", b"</div>", b"body{}", b"#fff", b"rgb(0,0,0)", b"100%", b"$", b"&amp;", b"\x07",
    b"deadbeef", b"0xFF", b"0b1010", b"1e10", b"NaN", b"Infinity", b"[0]", b"{}\n", b"[]\n",
]
TINY_POSITIVE: list[tuple[bytes, list[str]]] = [
    (b"+14155552671", ["phone"]), (b"+442079460958", ["phone"]), (b"+4930901820", ["phone"]),
    (b"+33142685300", ["phone"]), (b"+819012345678", ["phone"]), (b"+5511912345678", ["phone"]),
    (b"a.kim@gmx.de", ["email"]), (b"jo@web.de", ["email"]), (b"li.wei@qq.com", ["email"]),
    (b"tom@proton.me", ["email"]), (b"ana@uol.com.br", ["email"]),
    (b"+61293744000\n", ["phone"]),
]


def tiny_inputs(rng: random.Random, n_random: int) -> list[tuple[bytes, list[str], str]]:
    """(bytes, label, template) for the fixed fragments, random short bytes and words, and the
    genuine short positives."""
    out: list[tuple[bytes, list[str], str]] = [(b, [], "tiny_fixed") for b in TINY_FIXED]
    for _ in range(n_random):
        k = rng.randrange(4)
        if k == 0:
            b = rng.randbytes(rng.randint(1, 16))
        elif k == 1:
            b = rs(rng, string.ascii_lowercase, rng.randint(1, 12)).encode()
        elif k == 2:
            b = str(rng.randint(0, 10 ** rng.randint(1, 7))).encode()
        else:
            b = rs(rng, string.punctuation, rng.randint(1, 8)).encode()
        if b.startswith(b"+") or b"@" in b:
            continue
        out.append((b, [], "tiny_random"))
    out += [(b, lab, "tiny_positive") for b, lab in TINY_POSITIVE]
    return out
