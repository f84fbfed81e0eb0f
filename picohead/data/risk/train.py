"""Training-time risk functions named by the training recipe (``picohead.data.risk:NAME``):
``relabel_excerpt`` (flags of a training crop), ``refresh_secrets`` (fresh random bodies for the
secrets in a window) and ``plant_secret`` (a fresh secret or a look-alike planted into a clean
row). Not here: the corpus build's samples (``place``, ``makers``, ``negatives``)."""

from __future__ import annotations

import random
import re

from picohead.data.risk import negatives, passwords, phones, tokens
from picohead.data.risk.common import RISKS, rand
from picohead.data.risk.detect import detect, spans
from picohead.data.risk.makers import MAKERS
from picohead.data.risk.place import assignment


def relabel_excerpt(excerpt: bytes, labels: list[str]) -> list[str] | None:
    """Risk labels of an excerpt cut from a sample labelled ``labels``.

    A flag stays only if the detector still finds it in the excerpt; an excerpt of a sample
    without a flag has none. ``None`` when ``labels`` holds ``phone`` and the detector finds no
    phone in the excerpt: the generator writes national numbers the detector does not read
    (``0151 1234567`` under another name), so the caller leaves the excerpt's flags unlabelled.
    Used for training crops (``TrainConfig.crop_relabel``).
    """
    if not labels:
        return []
    seen = set(detect(excerpt))
    if "phone" in labels and "phone" not in seen:
        return None
    return [name for name in labels if name in seen]


REFRESHED = ("api_key", "jwt", "password", "phone")


def _scramble(value: bytes, rng: random.Random, keep_words: bool = False) -> bytes:
    """``value`` with every ASCII digit, upper- and lower-case letter redrawn in its own class
    (hex digits within hex when ``value`` is hex of one case); separators and other bytes stay, so a
    format's shape (``xoxb-12…-34…-ab…``) survives. With ``keep_words``, runs of 4+ letters in one
    case or Title case stay (``Summer2024!`` keeps its word, ``hKQCsxVn`` does not)."""
    out = bytearray(value)
    kept: set[int] = set()
    if keep_words:
        for m in re.finditer(rb"[A-Za-z]{4,}", value):
            w = m.group(0)
            if w.islower() or w.isupper() or w.istitle():
                kept.update(range(m.start(), m.end()))
    for run in re.finditer(rb"[A-Za-z0-9]+", value):  # hex decided per run: xapp-1-A…-…-<hex>
        r = run.group(0)
        lo_hex = re.fullmatch(rb"[0-9a-f]+", r) is not None and len(r) >= 8
        up_hex = re.fullmatch(rb"[0-9A-F]+", r) is not None and len(r) >= 8 and not r.isdigit()
        for i in range(run.start(), run.end()):
            c = value[i]
            if i in kept:
                continue
            if 48 <= c <= 57:
                out[i] = 48 + rng.randrange(10)
            elif lo_hex:
                out[i] = b"abcdef"[rng.randrange(6)]
            elif up_hex:
                out[i] = b"ABCDEF"[rng.randrange(6)]
            elif 65 <= c <= 90:
                out[i] = 65 + rng.randrange(26)
            else:
                out[i] = 97 + rng.randrange(26)
    return bytes(out)


def refresh_secrets(window: bytes, labels: list[str], rng: random.Random) -> bytes:
    """``window`` with fresh random bodies for the secrets the detectors find in it: the part of
    an API key after its provider prefix (a checksummed format gets a valid checksum), a JWT's
    signature, a password value (its words kept), the digits of a phone number after its country
    code (the first digit of each group kept). Used as a training augmentation
    (``TrainConfig.augment``) on samples flagged ``labels``: the planted keys of the generated
    risk samples are otherwise seen once per epoch, and a model trained for several epochs learns
    their n-grams (which no test key shares) instead of the formats.

    Only flags in ``labels`` that are in ``REFRESHED`` are touched; the result has the same length
    and is returned only if the detectors label it as they label ``window`` (else ``window``).
    In a window flagged ``phone`` every phone-shaped digit group is redrawn too (a date or a
    number list nearby may be; the flag stays true). E-mail addresses and PEM keys are left as
    they are (drawn from small pools, or not random text).
    """
    todo = [name for name in REFRESHED if name in labels]
    if not todo:
        return window
    buf = bytearray(window)
    for name, lo, hi, detail in spans(window):
        if name not in todo:
            continue
        if name == "api_key" and isinstance(detail, tokens.TokenFormat):
            buf[lo:hi] = tokens.refresh_body(detail, window[lo:hi], rng, lambda b: _scramble(b, rng))
        elif name == "phone":
            lo += 4 if window[lo : lo + 1] == b"+" else 0
            buf[lo:hi] = phones.scramble_digits(window[lo:hi], rng)
        else:
            buf[lo:hi] = _scramble(window[lo:hi], rng, keep_words=name == "password")
    if "phone" in todo:
        for m in phones.PHONE_LIKE.finditer(window):
            lo = m.end(1) if m.group(1) else m.start()
            buf[lo : m.end()] = phones.scramble_digits(window[lo : m.end()], rng)
    out = bytes(buf)
    return out if detect(out) == detect(window) else window


# -- secrets planted at training time ------------------------------------------------------------
# The corpus's risk samples give every kind its own names (GITHUB_TOKEN, DB_PASSWORD, phone) and
# the look-alikes others (request_id, sha256): content-v5 learned the names, not the values (a bare
# ghp_ token scored 0.001, the same token after ``GITHUB_TOKEN=`` 0.998; ``aws access key id:
# AKIA…`` 0.002). A planted value takes a name from one pool shared by every kind and by the
# look-alikes, or no name at all, so only the value tells them apart. (Password-like names such as
# ``secret`` and ``credentials`` are in ``passwords.FIELD_NAMES``, not here: under them a random
# value is a password.)
SHARED_NAMES = (
    "token", "key", "api_key", "apiKey", "auth_token", "access_token", "GITHUB_TOKEN",
    "AWS_ACCESS_KEY_ID", "STRIPE_SECRET_KEY", "SLACK_BOT_TOKEN", "NPM_TOKEN", "OPENAI_API_KEY",
    "GOOGLE_API_KEY", "value", "id", "contact", "email", "phone", "tel", "support", "session",
    "request_id", "config", "X-Api-Key", "bearer", "jwt", "hash", "checksum", "commit", "blob",
    "mobile", "maintainer", "owner", "from", "user", "HF_TOKEN", "webhook", "dsn", "auth")
# Names the phone detector reads as phone words: a negative under them must not look like a number.
_PHONE_WORDS = ("phone", "tel", "mobile")
# The password detector needs a password-like name: secrets and placeholders share these.
PASSWORD_NAMES = passwords.FIELD_NAMES
_PLANT_LANGS = (None, None, "python", "javascript", "go", "yaml", "json", "shell", "java", "toml",
                "xml", "php", "c", "rust", "ruby", "sql", "kotlin", "perl", "csharp")
_PLANT_KINDS = ("api_key",) * 6 + ("password",) * 5 + ("phone",) * 4 + ("email", "email", "jwt")
_NEAR_MISS = ("AKIA", "ASIA", "ghp_", "sk_live_", "xoxb-", "AIza", "glpat-", "npm_", "sk-proj-",
              "hf_", "SG.", "dop_v1_", "shpat_", "sk-ant-api03-", "pypi-AgEIcHlwaS5vcmc")
PLANT_NEGATIVE_SHARE = 0.3


def _plant_negative(rng: random.Random) -> tuple[str, str]:
    """A name and a value that no flag covers: a look-alike, a placeholder or a hash under a
    password name, a provider prefix with a body of the wrong length, or a random token without a
    prefix."""
    k = rng.randrange(7)
    if k == 0:  # placeholders and words where the password detector looks
        return rng.choice(PASSWORD_NAMES), rng.choice(passwords.PLACEHOLDERS + ("compat", "user_password"))
    if k == 1:  # a stored hash under a password name (the corpus's convention: not flagged)
        return rng.choice(PASSWORD_NAMES), passwords.hashed(rng)
    if k == 2:  # a provider prefix whose body is too short for the format
        return rng.choice(SHARED_NAMES), rng.choice(_NEAR_MISS) + rand(rng, rng.randrange(4, 12))
    if k == 3:  # a random token without a provider prefix is not an API key to the detectors
        return rng.choice(SHARED_NAMES), rand(rng, rng.choice([16, 20, 24, 32, 40]))
    name, value = negatives.lookalike(rng)
    return rng.choice([n for n in SHARED_NAMES if n not in _PHONE_WORDS]), value


def _planted_line(kind: str | None, rng: random.Random) -> tuple[str, str]:
    """(line, value): ``kind``'s fresh value (``None``: a negative) the way a file, a log, a
    command line or a sentence would carry it."""
    fmt_named = False
    if kind is None:
        name, value = _plant_negative(rng)
    else:
        name, value = MAKERS[kind](rng)
        fmt_named = kind == "api_key" and any(f.named and f.var == name for f in tokens.FORMATS)
        if kind == "password":
            if "://" not in value:
                name = rng.choice(PASSWORD_NAMES)
        elif rng.random() < 0.8 and not fmt_named:
            name = rng.choice(SHARED_NAMES)
    host = rng.choice(["api.acme-corp.io", "internal.example.net", "10.0.3.17:8443", "svc.local"])
    if name in PASSWORD_NAMES:  # the password detector wants ``name[:=]value`` or a config form
        return passwords.syntax(name, value, rng), value
    if fmt_named:
        bare = [f"{name}={value}", f"{name}: {value}", f'"{name}": "{value}"']
    elif "://" in value:  # a connection string
        bare = [value, f"{name} {value}", f"--{name}={value}", f"connecting to {value}"]
    else:
        bare = [f"{value}", f"  {value}", f"{name} {value}", f"[2024-05-{rng.randrange(1, 29):02d} "
                f"12:{rng.randrange(60):02d}:07] INFO using {name} {value}",
                f"curl -H 'Authorization: Bearer {value}' https://{host}/v1/items",
                f"https://{host}/v1/items?{name}={value}", f"- {value}", f"'{value}',",
                f"{name.replace('_', ' ')} is {value}", f"--{name}={value}"]
    if rng.random() < 0.4:
        return rng.choice(bare), value
    return assignment(rng.choice(_PLANT_LANGS), name, value, rng), value


def plant_secret(window: bytes, labels: list[str], rng: random.Random) -> tuple[bytes, list[str]] | None:
    """``window`` (a training sample without any flag) with one line planted at a line boundary
    and its end cut by as much, so the length stays: a fresh secret of a random kind (API keys,
    passwords and phone numbers most often) or, ``PLANT_NEGATIVE_SHARE`` of the time, a value no
    flag covers; names come from pools shared by all of them (``SHARED_NAMES``,
    ``PASSWORD_NAMES``). Returns the new window and its flags (the detectors' verdict, plus
    ``phone`` when the planted number shows), or ``None`` to leave the row alone: a flagged
    row, a binary window (a NUL byte), or a window under four times the line's length, where
    the line would outweigh the host. Used as a training augmentation (``TrainConfig.plant``).
    """
    if labels or b"\x00" in window:
        return None
    kind = None if rng.random() < PLANT_NEGATIVE_SHARE else rng.choice(_PLANT_KINDS)
    line, value = _planted_line(kind, rng)
    b = line.encode("utf-8") + b"\n"
    if 4 * len(b) > len(window):
        return None
    room = window[: len(window) - len(b)]
    starts = [0] + [i + 1 for i, c in enumerate(room) if c == 10]
    at = rng.choice(starts)
    new = (window[:at] + b + window[at:])[: len(window)]
    found = set(detect(new))
    if kind == "phone" and value.encode("utf-8") in new:
        found.add("phone")
    return new, [name for name in RISKS if name in found]
