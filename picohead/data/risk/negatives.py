"""Look-alikes: values and inputs that carry no risk flag, for the corpus's negatives.

``lookalike`` gives a (name, value) to write into a host file like a secret: UUIDs, hex digests
and git SHAs, SRI integrity strings, base64 blobs and data-URI images, AWS's published example
keys, example-domain e-mails (RFC 2606 / 6761: example.com/.org/.net, .test, .invalid,
.localhost, .example), placeholders and environment references under API-key and password names,
stored password hashes (not flagged: see ``passwords``), version strings, dates, timestamps and
numbers shaped like phones that are not (ISBNs, order ids, invoice numbers). ``tiny`` gives whole
0-16-byte inputs without a flag (empty, ``{}``, ``[]``, a NUL byte, whitespace, digits, short words
and JSON, random binary bytes); ``tiny_positive`` short inputs that do carry one (a bare E.164
number, a short password line), so a model learns the negatives from evidence, not from length.
Not here: the secrets themselves (``tokens``, ``passwords``, ``phones``, ``makers``).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

from picohead.data.risk import passwords
from picohead.data.risk.common import FIRST, LAST, rand

_EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net", "mail.example", "corp.test",
                    "host.invalid", "localhost", "sub.example.com", "test")


def _isbn13(rng: random.Random) -> str:
    d = [9, 7, 8] + [rng.randrange(10) for _ in range(9)]
    check = (10 - sum(x * (3 if i % 2 else 1) for i, x in enumerate(d)) % 10) % 10
    s = "".join(map(str, d + [check]))
    return f"{s[:3]}-{s[3]}-{s[4:6]}-{s[6:12]}-{s[12]}" if rng.random() < 0.5 else s


def not_a_phone(rng: random.Random) -> tuple[str, str]:
    """A number that looks like a phone but is not one."""
    r = rng.randrange
    return rng.choice([
        ("isbn", _isbn13(rng)), ("order_id", f"ORD-{r(2019, 2027)}-{r(100000, 999999)}"),
        ("invoice", f"{r(10**9, 10**10)}"), ("timestamp", str(r(1_500_000_000, 1_800_000_000))),
        ("created_at", f"{r(2000, 2030)}-{r(1, 13):02d}-{r(1, 29):02d} {r(24):02d}:{r(60):02d}:{r(60):02d}"),
        ("date", f"{r(1, 29):02d}.{r(1, 13):02d}.{r(1990, 2030)}"), ("ip", f"10.{r(256)}.{r(256)}.{r(256)}"),
        ("tracking", f"1Z{rand(rng, 16, string.ascii_uppercase + string.digits)}"),
        ("version", f"{r(10)}.{r(40)}.{r(200)}"), ("build", f"{r(1, 9)}.{r(10)}.{r(10000, 99999)}.{r(100, 999)}"),
        ("range", f"{r(100, 999)}-{r(100, 999)}"), ("offset", f"+{r(1, 999)}"),
        ("size", f"{r(1, 999)} {r(100, 999)} {r(100, 999)} bytes"), ("port", f"{r(1024, 65535)}")])


def lookalike(rng: random.Random) -> tuple[str, str]:
    """(name, value) of a random negative kind."""
    k = rng.randrange(20)
    r = random.Random(rng.random())
    if k == 0:
        return "request_id", str(uuid.UUID(int=r.getrandbits(128), version=4))
    if k == 1:
        return "sha256", hashlib.sha256(str(r.random()).encode()).hexdigest()
    if k == 2:
        return "commit", hashlib.sha1(str(r.random()).encode()).hexdigest()
    if k == 3:
        alg, h = r.choice([("sha512", hashlib.sha512), ("sha384", hashlib.sha384), ("sha256", hashlib.sha256)])
        return "integrity", f"{alg}-" + base64.b64encode(h(str(r.random()).encode()).digest()).decode()
    if k == 4:
        return "blob", base64.b64encode(r.randbytes(r.randrange(24, 90))).decode()
    if k == 5:  # AWS's published example key in a quarter of these: with it every time, example
        # keys outnumbered generated AWS keys ~8:1 and the model learned that AKIA... is harmless
        return "AWS_ACCESS_KEY_ID", ("AKIAIOSFODNN7EXAMPLE" if r.random() < 0.25 else r.choice(
            ["${AWS_ACCESS_KEY_ID}", "<your-access-key-id>", "os.environ['AWS_ACCESS_KEY_ID']"]))
    if k == 6:
        return "AWS_SECRET_ACCESS_KEY", r.choice(["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                                  "${AWS_SECRET_ACCESS_KEY}", "<secret-access-key>"])
    if k == 7:
        return "contact", f"{r.choice(FIRST)}.{r.choice(LAST)}@{r.choice(_EXAMPLE_DOMAINS)}"
    if k == 8:
        return "api_key", r.choice(["YOUR_API_KEY", "<your-api-key>", "${API_KEY}", "xxxxxxxxxxxxxxxx",
                                    "os.environ['API_KEY']", "changeme-in-production", "sk-...",
                                    "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "{{ .Values.apiKey }}",
                                    "sk_test_" + "x" * 24, "<GITHUB_TOKEN>", "%(api_key)s"])
    if k == 9:
        return r.choice(passwords.FIELD_NAMES), r.choice(passwords.PLACEHOLDERS)
    if k == 10:
        return r.choice(["password_hash", "hashed_password", "passwordHash", "PASSWORD_DIGEST"]), passwords.hashed(r)
    if k == 11:
        return r.choice(passwords.FIELD_NAMES), passwords.hashed(r)
    if k == 12:
        return not_a_phone(r)
    if k == 13:
        return "logo", "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + r.randbytes(r.randrange(40, 120))).decode()
    if k == 14:
        return "release", r.choice([f"v{r.randrange(10)}.{r.randrange(40)}.{r.randrange(200)}",
                                    f"{r.randrange(2000, 2030)}.{r.randrange(1, 13):02d}.{r.randrange(1, 29)}",
                                    f"{r.randrange(10)}.{r.randrange(40)}.{r.randrange(9)}-rc.{r.randrange(5)}"])
    if k == 15:
        return "repo", r.choice([f"git@github.com:{r.choice(LAST)}/{r.choice(FIRST)}.git",
                                 f"https://github.com/{r.choice(LAST)}/{r.choice(FIRST)}",
                                 f"{r.choice(FIRST)}@{r.randrange(1, 9)}.{r.randrange(30)}.{r.randrange(20)}"])
    if k == 16:
        return "session_key", rand(r, r.choice([16, 20, 32]), string.ascii_lowercase + string.digits)
    if k == 17:
        return "DATABASE_URL", r.choice(["postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
                                         "mysql://user:password@localhost/db", "redis://localhost:6379/0",
                                         "postgresql://postgres@db.internal/app"])
    if k == 18:
        return "timestamp", str(r.randrange(1_500_000_000_000, 1_800_000_000_000))
    return "version", f"{r.randrange(10)}.{r.randrange(40)}.{r.randrange(200)}"


TINY_KINDS = ("empty", "json", "nul", "whitespace", "digits", "word", "binary", "punct", "short_text",
              "number", "hex")


def tiny(rng: random.Random) -> tuple[str, bytes]:
    """(kind, a 0-16-byte input that carries no flag)."""
    kind = rng.choice(TINY_KINDS)
    r = rng.randrange
    if kind == "empty":
        data = b""
    elif kind == "json":
        data = rng.choice([b"{}", b"[]", b"null", b"true", b'""', b"{}\n", b"[1, 2]", b'{"a": 1}',
                           b'{"ok":true}', b"[]\n", b'["x"]', b'{"id": 42}'])
    elif kind == "nul":
        data = b"\x00" * rng.choice([1, 1, 2, 4, 8, 16])
    elif kind == "whitespace":
        data = bytes(rng.choice(b" \t\n\r") for _ in range(r(1, 17)))
    elif kind == "digits":
        data = rand(rng, r(1, 17), string.digits).encode()
    elif kind == "word":
        data = rng.choice(["hello", "test", "password", "secret", "token", "key", "admin", "root",
                           "README", "TODO", "main", "ok", "yes", "pass", "email", "phone",
                           "api_key", "changeme"]).encode() + rng.choice([b"", b"\n"])
    elif kind == "binary":
        data = bytes(r(256) for _ in range(r(1, 17)))
    elif kind == "punct":
        data = rand(rng, r(1, 17), "{}[]()<>;:,.-_=+*&^%$#@!~`|/\\?").encode()
    elif kind == "short_text":
        data = rng.choice(["a = 1", "x: 10", "foo bar", "key=value", "#!/bin/sh", "<html>", "---",
                           "name: app", "id,name", "1,2,3", "select 1;", "ls -la", "@echo off"]).encode()
    elif kind == "number":
        data = rng.choice([str(r(10**6)), f"{r(100)}.{r(100)}", f"-{r(10**4)}", f"1.{r(10)}.{r(10)}",
                           f"{r(2000, 2030)}-{r(1, 13):02d}-{r(1, 29):02d}"]).encode()
    else:
        data = rand(rng, r(1, 17), "0123456789abcdef").encode()
    return kind, data[:16]


def tiny_positive(rng: random.Random) -> tuple[str, bytes]:
    """(flag, a 9-16-byte input that carries it): a bare E.164 number, or a short password line."""
    if rng.random() < 0.5:
        n = f"+1{rng.randrange(201, 989)}{rng.randrange(200, 999)}{rng.randrange(1000, 9999)}"
        if rng.random() < 0.3:
            n = f"+{rng.choice([44, 49, 33, 31, 46])}{rng.randrange(10**8, 10**10)}"
        return "phone", n.encode()
    pw = rand(rng, rng.randrange(4, 6)) + str(rng.randrange(10, 99))
    return "password", rng.choice([f"pwd={pw}", f"pass: {pw}", f"pwd: {pw}x"]).encode()[:16]


def tiny_samples(rng: random.Random, n: int, positive_share: float = 0.1) -> list[tuple[bytes, list[str]]]:
    """``n`` short inputs with their flags: mostly ``tiny`` negatives, ``positive_share`` of
    ``tiny_positive`` (for the corpus build's risk stage)."""
    out: list[tuple[bytes, list[str]]] = []
    for _ in range(n):
        if rng.random() < positive_share:
            flag, data = tiny_positive(rng)
            out.append((data, [flag]))
        else:
            out.append((tiny(rng)[1], []))
    return out
