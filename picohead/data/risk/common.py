"""Shared pieces of the risk package: the flag names, the model's window, random draws and the
name pools the generators use. No detection and no generation of a flag here."""

from __future__ import annotations

import base64
import random
import string
import zlib

WINDOW = 1024
RISKS = ("api_key", "jwt", "private_key", "password", "email", "phone")

ALNUM = string.ascii_letters + string.digits
B62 = string.digits + string.ascii_letters
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def window(data: bytes) -> bytes:
    """What the model sees of ``data``: all of it up to 2 KiB, else its first and last 1 KiB."""
    return data if len(data) <= 2 * WINDOW else data[:WINDOW] + b"\n" + data[-WINDOW:]


def rand(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b62(n: int, width: int) -> str:
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = B62[r] + s
    return s.rjust(width, "0")


def crc_b62(body: str) -> str:
    """The 6-character base62 CRC32 that GitHub and npm tokens end with."""
    return b62(zlib.crc32(body.encode()), 6)


def checksummed(rng: random.Random, prefix: str) -> str:
    """GitHub / npm token style: 30 random base62 chars + base62 CRC32 checksum (6 chars)."""
    body = rand(rng, 30)
    return f"{prefix}{body}{crc_b62(body)}"


def b64url(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


FIRST = ("anna", "li", "jose", "mohammed", "olga", "kenji", "priya", "lucas", "fatima", "jan",
         "emma", "wei", "carlos", "sofia", "ahmed", "yuki", "noah", "zeynep", "ivan", "amara")
LAST = ("schmidt", "wang", "garcia", "kowalski", "nguyen", "okafor", "rossi", "tanaka", "silva",
        "novak", "johnson", "haddad", "petrov", "kim", "dubois", "larsen", "sharma", "cohen")
DOMAINS = ("gmail.com", "outlook.com", "yahoo.co.jp", "gmx.de", "proton.me", "acme-corp.io",
           "uni-heidelberg.de", "mail.ru", "fastmail.fm", "company.co.uk", "startup.dev",
           "web.de", "orange.fr", "qq.com", "hotmail.com", "icloud.com", "infra.net")
