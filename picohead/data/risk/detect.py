"""The detectors: which risk flags a sample shows in the model's window.

``detect`` labels what a model could see: it looks only at the first and last 1 KiB of a sample
(the model's window). It relabels real harvested samples and checks generated ones, so it finds
what the generators make (every ``tokens.FORMATS`` entry, ``passwords`` syntaxes, ``phones``
shapes, JWTs, PEM/OpenSSH private keys, e-mail addresses) and leaves their look-alikes alone:
documentation placeholders (RFC 2606/6761 example-domain addresses, AWS's published example key,
``git@github.com``), hashes, UUIDs, placeholders. ``spans`` gives the random part of each finding
(what a training-time refresh redraws). Not here: generation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from picohead.data.risk import passwords, phones, tokens
from picohead.data.risk.common import RISKS, window

_PLACEHOLDER_DOMAINS = re.compile(
    r"@([a-z0-9-]+\.)*(example(\.[a-z]{2,6}){0,2}|localhost|invalid|test|local)$", re.I)
_PEM = re.compile(rb"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----")
_JWT = re.compile(rb"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.(?P<sig>[A-Za-z0-9_-]{16,})")
_EMAIL = re.compile(rb"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,12}\b")
_NOT_MAIL = re.compile(rb"\.(png|jpg|jpeg|gif|svg|webp|js|css|py|c|h|o|so|txt|md|json)$|^git@", re.I)
JUDGED = RISKS  # every flag has a detector


def _emails(w: bytes) -> Iterator[tuple[int, int]]:
    for m in _EMAIL.finditer(w):
        s = m.group(0)
        if _PLACEHOLDER_DOMAINS.search(s.decode("ascii", "replace")) or _NOT_MAIL.search(s):
            continue
        before = re.split(rb"[\s\"'<>(),;=]", w[max(0, m.start() - 200) : m.start()])[-1]
        if b"://" in before:  # a URL's user (and password), not an address
            continue
        yield m.span()


def spans(w: bytes) -> Iterator[tuple[str, int, int, object]]:
    """(flag, start, end, detail) for every finding in ``w`` itself (no windowing): for an API key
    the body after its fixed prefix (detail: its ``TokenFormat``), for a JWT its signature, for a
    password its value, for a phone the number, for an e-mail the address, for a PEM key its
    BEGIN line."""
    for m in _PEM.finditer(w):
        yield "private_key", m.start(), m.end(), None
    for m in _JWT.finditer(w):
        yield "jwt", m.start("sig"), m.end("sig"), None
    for fmt, lo, hi in tokens.find(w):
        yield "api_key", lo, hi, fmt
    for lo, hi in passwords.find(w):
        yield "password", lo, hi, None
    for lo, hi in _emails(w):
        yield "email", lo, hi, None
    for lo, hi in phones.find(w):
        yield "phone", lo, hi, None


def detect(data: bytes) -> list[str]:
    """Risk labels visible in the model's window of ``data`` (in spec order)."""
    found = {name for name, *_ in spans(window(data))}
    return [name for name in RISKS if name in found]


def visible(value: str, data: bytes) -> bool:
    """Whether an inserted secret ``value`` still shows in the model's window of ``data`` (its
    first 16 characters; for a PEM key, its BEGIN or END line)."""
    probe = "PRIVATE KEY-----" if "PRIVATE KEY-----" in value else value.split("\n")[0][:16]
    return probe.encode("utf-8") in window(data)
