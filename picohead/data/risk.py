"""Risk flags: detectors for real samples, and a generator of realistic secrets and look-alikes.

``detect`` labels what a model could see: it looks only at the first and last 1 KiB of a sample
(the model's window). Documentation placeholders (example.com addresses, AWS's published example
key) are deliberately *not* flagged. The generator (``MAKERS``, ``lookalike``, ``assignment``,
``insert`` and ``excerpt``, driven by the corpus build) embeds provider-format API keys (with their
checksums where the format has one), HMAC-signed JWTs, PEM/OpenSSH private keys of several kinds,
passwords in connection strings and configs, e-mail addresses and phone numbers in several national
formats into real code, config and prose, and makes as many negatives that carry look-alikes:
UUIDs, hashes, base64 and integrity blobs, lockfile lines, identifiers and placeholders; some
samples are cut down to a few lines around the insertion, so short inputs are labelled too.
``relabel_excerpt`` gives the flags of a training crop; ``refresh_secrets`` redraws the random
bodies of the secrets in a training window. Not here: the build's sampling and splits.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import string
import zlib
from collections.abc import Callable
from typing import Any

WINDOW = 1024
RISKS = ("api_key", "jwt", "private_key", "password", "email", "phone")

_PLACEHOLDER_DOMAINS = re.compile(
    r"@([a-z0-9-]+\.)*(example\.(com|org|net)|localhost|invalid|test|example)\b", re.I)
_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "private_key": re.compile(rb"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----"),
    "jwt": re.compile(rb"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}"),
    "api_key": re.compile(
        rb"\b(?:AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,}|"
        rb"sk_live_[A-Za-z0-9]{24,}|rk_live_[A-Za-z0-9]{24,}|xox[baprs]-[0-9A-Za-z-]{20,}|"
        rb"AIza[0-9A-Za-z_-]{35}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|"
        rb"glpat-[A-Za-z0-9_-]{20}|npm_[A-Za-z0-9]{36}|sk-(?:proj-)?[A-Za-z0-9]{32,})"),
    "email": re.compile(rb"\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,12}\b"),
    "password": re.compile(
        rb"(?i)(?:\b(?:password|passwd|pwd|db_pass(?:word)?)\b[\"']?\s*(?::=|[:=])\s*[\"']?"
        rb"(?!\$|\{|<|\*{3}|os\.|env|process|none|null|true|false|getenv)(?P<kv>[^\s\"'<>]{6,})"
        rb"|://[A-Za-z0-9._-]{1,32}:(?P<url>[^@\s/:]{6,})@[A-Za-z0-9.-]+)"),
}
_EXAMPLE_KEYS = (b"AKIAIOSFODNN7EXAMPLE", b"EXAMPLE")


def window(data: bytes) -> bytes:
    return data if len(data) <= 2 * WINDOW else data[:WINDOW] + b"\n" + data[-WINDOW:]


def detect(data: bytes) -> list[str]:
    """Risk labels visible in the model's window of ``data`` (in spec order)."""
    w = window(data)
    found = []
    for name in RISKS:
        pat = _PATTERNS.get(name)
        if pat is None:
            continue
        for m in pat.finditer(w):
            s = m.group(0)
            if name == "email" and _PLACEHOLDER_DOMAINS.search(s.decode("ascii", "replace")):
                continue
            if name == "email" and re.search(rb"\.(png|jpg|gif|svg|js|css|py|c|h|o)$", s):
                continue
            if name == "api_key" and any(e in s for e in _EXAMPLE_KEYS):
                continue
            if name == "password" and not secret_like(m.group("kv") or m.group("url")):
                continue
            found.append(name)
            break
    return found


def visible(value: str, data: bytes) -> bool:
    """Whether an inserted secret ``value`` still shows in the model's window of ``data`` (its
    first 16 characters; for a PEM key, its BEGIN or END line)."""
    probe = "PRIVATE KEY-----" if "PRIVATE KEY-----" in value else value.split("\n")[0][:16]
    return probe.encode("utf-8") in window(data)


def secret_like(value: bytes) -> bool:
    """Whether a password-shaped value could be a real secret rather than a placeholder or a name.

    Help texts, man pages and type signatures say ``--password=SALASANA``, ``passwd: compat``,
    ``password: String``, ``password: "user_password``, ``group_name:password:GID:user_list``,
    ``Password = proplists:get_value(password, ...)`` or ``user:password@host``: words, field
    names and calls, not secrets. A value counts when it has a digit, a password symbol
    (``!#$%^&*+=~@|``), a passphrase of three or more lower-case words joined by hyphens, or a
    field (between ``:,;/``) that is not a name: a name is words joined by ``_`` or ``-`` that
    share one case (``user_list``, ``MOT_DE_PASSE``, ``Component``), so ``hKQCsxVn`` and
    ``OZR_syi_Wcb`` count. A parenthesis inside (a call) never counts. Weak real passwords made of
    one plain word are missed; the generator's passwords qualify (bar an all-lower-case draw).
    """
    s = value.decode("utf-8", "replace").strip(",.;:/()[]{}?")
    if not s.strip("_-") or "(" in s or ")" in s:  # empty, a call, or a blank like ``______``
        return False
    if any(c.isdigit() for c in s) or any(c in _PASSWORD_SYMBOLS for c in s):
        return True
    if re.fullmatch(r"[a-z]+(?:-[a-z]+){2,}", s):
        return True
    return not all(_is_name(f) for f in re.split(r"[:,;/]+", s) if f)


_PASSWORD_SYMBOLS = frozenset("!#$%^&*+=~@|")


def _is_name(field: str) -> bool:
    """Words of letters joined by ``_``/``-``, all lower case, all upper case or all Title."""
    words = re.split(r"[_-]+", field.strip("_-"))
    if not all(w.isalpha() for w in words):
        return False
    return any(all(test(w) for w in words) for test in (str.islower, str.isupper, str.istitle))


# -- secrets ------------------------------------------------------------------------------------
_B62 = string.digits + string.ascii_letters


def _rand(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b62(n: int, width: int) -> str:
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = _B62[r] + s
    return s.rjust(width, "0")


def _checksummed(rng: random.Random, prefix: str) -> str:
    """GitHub / npm token style: 30 random base62 chars + base62 CRC32 checksum (6 chars)."""
    body = _rand(rng, 30)
    return f"{prefix}{body}{_b62(zlib.crc32(body.encode()), 6)}"


def api_key(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(11)
    if kind in (0, 10):  # AWS twice: its example key is a common look-alike (see ``lookalike``)
        return "AWS_ACCESS_KEY_ID", "AKIA" + _rand(rng, 16, string.ascii_uppercase + "234567")
    if kind == 1:
        return "GITHUB_TOKEN", _checksummed(rng, rng.choice(["ghp_", "gho_", "ghs_"]))
    if kind == 2:
        return "STRIPE_SECRET_KEY", "sk_live_" + _rand(rng, rng.choice([24, 34, 99]))
    if kind == 3:
        return "SLACK_BOT_TOKEN", (f"xoxb-{rng.randrange(10**10, 10**12)}-"
                                   f"{rng.randrange(10**11, 10**13)}-{_rand(rng, 24)}")
    if kind == 4:
        return "GOOGLE_API_KEY", "AIza" + _rand(rng, 35, string.ascii_letters + string.digits + "_-")
    if kind == 5:
        return "SENDGRID_API_KEY", ("SG." + _rand(rng, 22, string.ascii_letters + "-_") + "."
                                    + _rand(rng, 43, string.ascii_letters + string.digits + "-_"))
    if kind == 6:
        return "GITLAB_TOKEN", "glpat-" + _rand(rng, 20, string.ascii_letters + string.digits + "-_")
    if kind == 7:
        return "NPM_TOKEN", _checksummed(rng, "npm_")
    if kind == 8:
        return "OPENAI_API_KEY", "sk-proj-" + _rand(rng, 48)
    return "STRIPE_RESTRICTED_KEY", "rk_live_" + _rand(rng, 24)  # kind 9


def _b64url(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def jwt(rng: random.Random) -> tuple[str, str]:
    header = {"alg": rng.choice(["HS256", "HS384", "HS512"]), "typ": "JWT"}
    payload: dict[str, Any] = {"sub": str(rng.randrange(10**6, 10**9)), "iat": rng.randrange(1_500_000_000, 1_800_000_000),
               "name": rng.choice(FIRST) + " " + rng.choice(LAST)}
    if rng.random() < 0.5:
        payload["exp"] = payload["iat"] + rng.choice([900, 3600, 86400])
    if rng.random() < 0.5:
        payload["role"] = rng.choice(["admin", "user", "service", "reader"])
    h = _b64url(json.dumps(header, separators=(",", ":")).encode())
    p = _b64url(json.dumps(payload, separators=(",", ":")).encode())
    alg = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[header["alg"]]
    sig = _b64url(hmac.new(_rand(rng, 32).encode(), f"{h}.{p}".encode(), alg).digest())
    return rng.choice(["ACCESS_TOKEN", "auth_token", "jwt", "bearer"]), f"{h}.{p}.{sig}"


_KEY_POOL: list[str] = []


def private_key(rng: random.Random) -> tuple[str, str]:
    if len(_KEY_POOL) < 120:
        _KEY_POOL.append(_new_key(rng))
        return "PRIVATE_KEY", _KEY_POOL[-1]
    return "PRIVATE_KEY", rng.choice(_KEY_POOL)


def _new_key(rng: random.Random) -> str:
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    kind = rng.randrange(5)
    key: Any
    if kind == 0:
        key, fmt = rsa.generate_private_key(65537, rng.choice([1024, 2048])), ser.PrivateFormat.TraditionalOpenSSL
    elif kind == 1:
        key, fmt = rsa.generate_private_key(65537, 2048), ser.PrivateFormat.PKCS8
    elif kind == 2:
        key = ec.generate_private_key(rng.choice([ec.SECP256R1(), ec.SECP384R1()]))
        fmt = rng.choice([ser.PrivateFormat.TraditionalOpenSSL, ser.PrivateFormat.PKCS8])
    elif kind == 3:
        key, fmt = ed25519.Ed25519PrivateKey.generate(), ser.PrivateFormat.OpenSSH
    else:
        key, fmt = rsa.generate_private_key(65537, 2048), ser.PrivateFormat.OpenSSH
    return key.private_bytes(ser.Encoding.PEM, fmt, ser.NoEncryption()).decode()


FIRST = ("anna", "li", "jose", "mohammed", "olga", "kenji", "priya", "lucas", "fatima", "jan",
         "emma", "wei", "carlos", "sofia", "ahmed", "yuki", "noah", "zeynep", "ivan", "amara")
LAST = ("schmidt", "wang", "garcia", "kowalski", "nguyen", "okafor", "rossi", "tanaka", "silva",
        "novak", "johnson", "haddad", "petrov", "kim", "dubois", "larsen", "sharma", "cohen")
DOMAINS = ("gmail.com", "outlook.com", "yahoo.co.jp", "gmx.de", "proton.me", "acme-corp.io",
           "uni-heidelberg.de", "mail.ru", "fastmail.fm", "company.co.uk", "startup.dev",
           "web.de", "orange.fr", "qq.com", "hotmail.com", "icloud.com", "infra.net")


def email(rng: random.Random) -> tuple[str, str]:
    f, last = rng.choice(FIRST), rng.choice(LAST)
    user = rng.choice([f"{f}.{last}", f"{f[0]}{last}", f"{f}{rng.randrange(100)}", f"{last}.{f}",
                       "support", "billing", "ops-team", f"{f}_{last}"])
    return rng.choice(["EMAIL", "contact", "admin_email", "from_addr", "maintainer"]), \
        f"{user}@{rng.choice(DOMAINS)}"


def phone(rng: random.Random) -> tuple[str, str]:
    r = rng.randrange
    fmts = [f"+1 ({r(201, 989)}) {r(200, 999)}-{r(1000, 9999)}", f"({r(201, 989)}) {r(200, 999)}-{r(1000, 9999)}",
            f"+44 20 {r(7000, 8999)} {r(1000, 9999)}", f"+44 7{r(100, 999)} {r(100000, 999999)}",
            f"+49 30 {r(1000000, 99999999)}", f"0{r(151, 179)} {r(1000000, 99999999)}",
            f"+33 {r(1, 9)} {r(10, 99)} {r(10, 99)} {r(10, 99)} {r(10, 99)}",
            f"+91 {r(70000, 99999)} {r(10000, 99999)}", f"+81 {r(3, 90)}-{r(1000, 9999)}-{r(1000, 9999)}",
            f"+55 11 9{r(1000, 9999)}-{r(1000, 9999)}", f"+61 {r(2, 8)} {r(1000, 9999)} {r(1000, 9999)}",
            f"+7 {r(900, 999)} {r(100, 999)}-{r(10, 99)}-{r(10, 99)}", f"+34 {r(600, 699)} {r(100, 999)} {r(100, 999)}"]
    return rng.choice(["PHONE", "phone", "tel", "support_phone", "mobile"]), rng.choice(fmts)


def password(rng: random.Random) -> tuple[str, str]:
    words = ["Summer", "dragon", "Winter", "monkey", "Sunshine", "qwerty", "Passw0rd", "hunter",
             "Tr0ub4dor", "letmein", "Galaxy", "falcon"]
    pw = rng.choice([
        _rand(rng, rng.randrange(10, 24), string.ascii_letters + string.digits + "!#%^&*-_"),
        rng.choice(words) + str(rng.randrange(10, 9999)) + rng.choice("!#$%&*"),
        "-".join(rng.choice(words).lower() for _ in range(3))])
    user = rng.choice(["admin", "app", "postgres", "root", "svc_backend", "deploy", rng.choice(FIRST)])
    host = rng.choice(["db.internal", "10.0.3.17", "prod-mysql.cluster.local", "redis-master",
                       "pg.acme-corp.io"])
    forms = [("DB_PASSWORD", pw), ("password", pw),
             ("DATABASE_URL", f"{rng.choice(['postgres', 'mysql', 'mongodb', 'redis', 'amqp'])}://{user}:{pw}@{host}:{rng.randrange(1000, 9999)}/{rng.choice(['app', 'prod', 'main'])}"),
             ("passwd", pw)]
    return rng.choice(forms)


MAKERS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "api_key": api_key, "jwt": jwt, "private_key": private_key, "password": password,
    "email": email, "phone": phone}


def available_kinds() -> list[str]:
    """Risk kinds the generator can make here (PEM keys need the optional ``cryptography``)."""
    import importlib.util

    have = importlib.util.find_spec("cryptography") is not None
    return [k for k in RISKS if k != "private_key" or have]


# -- look-alikes (negatives) ----------------------------------------------------------------------
def lookalike(rng: random.Random) -> tuple[str, str]:
    k = rng.randrange(13)
    r = random.Random(rng.random())
    if k == 0:
        import uuid
        return "request_id", str(uuid.UUID(int=r.getrandbits(128), version=4))
    if k == 1:
        return "sha256", hashlib.sha256(str(r.random()).encode()).hexdigest()
    if k == 2:
        return "commit", hashlib.sha1(str(r.random()).encode()).hexdigest()
    if k == 3:
        return "integrity", "sha512-" + base64.b64encode(hashlib.sha512(str(r.random()).encode()).digest()).decode()
    if k == 4:
        return "blob", base64.b64encode(r.randbytes(r.randrange(24, 90))).decode()
    if k == 5:  # AWS's published example key in a quarter of these: with it every time, example
        # keys outnumbered generated AWS keys ~8:1 and the model learned that AKIA... is harmless
        return "AWS_ACCESS_KEY_ID", ("AKIAIOSFODNN7EXAMPLE" if r.random() < 0.25 else r.choice(
            ["${AWS_ACCESS_KEY_ID}", "<your-access-key-id>", "os.environ['AWS_ACCESS_KEY_ID']"]))
    if k == 6:
        return "AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    if k == 7:
        return "contact", f"{r.choice(FIRST)}@example.com"
    if k == 8:
        return "api_key", r.choice(["YOUR_API_KEY", "<your-api-key>", "${API_KEY}", "xxxxxxxxxxxxxxxx",
                                    "os.environ['API_KEY']", "changeme-in-production"])
    if k == 9:
        return "password", r.choice(["${DB_PASSWORD}", "<password>", "os.getenv('DB_PASSWORD')",
                                     "None", "process.env.PASSWORD", "********"])
    if k == 10:
        return "version", f"{r.randrange(10)}.{r.randrange(40)}.{r.randrange(200)}"
    if k == 11:
        return "timestamp", str(r.randrange(1_500_000_000_000, 1_800_000_000_000))
    return "session_key", _rand(r, r.choice([16, 20, 32]), string.ascii_lowercase + string.digits)


# -- placing a key/value into a host file ------------------------------------------------------
DOTENV_SHARE = 0.2  # share of single-line values written as .env / .properties lines


def assignment(lang: str | None, key: str, value: str, rng: random.Random) -> str:
    """``key`` set to ``value`` the way a ``lang`` source file would write it (``None``: prose);
    a ``DOTENV_SHARE`` of single-line values in any host as a ``.env``/``.properties`` line
    (``AWS_ACCESS_KEY_ID=AKIA…``, ``KEY="…"``, ``key=…``), the form config files, CI logs and
    pasted snippets carry."""
    multiline = "\n" in value
    q = json.dumps(value) if multiline else f'"{value}"'
    lk = key.lower()
    if not multiline and rng.random() < DOTENV_SHARE:
        return rng.choice([f"{key.upper()}={value}", f'{key.upper()}="{value}"', f"{lk}={value}"])
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
    if lang == "yaml":
        return f"{lk}: |\n  " + value.replace("\n", "\n  ") if multiline else f"{lk}: {value}"
    if lang in ("toml",):
        return f'{lk} = """{value}"""' if multiline else f"{lk} = {q}"
    if lang == "json":
        return f"  {json.dumps(lk)}: {json.dumps(value)},"
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


def relabel_excerpt(excerpt: bytes, labels: list[str]) -> list[str] | None:
    """Risk labels of an excerpt cut from a sample labelled ``labels``.

    A flag stays only if the detector still finds it in the excerpt; an excerpt of a sample
    without a flag has none. ``None`` when a flag the detectors cannot judge (phone numbers have
    no detector: their labels come from the generator) is among ``labels``; the caller then
    leaves the excerpt's flags unlabelled. Used for training crops (``TrainConfig.crop_relabel``).
    """
    if not labels:
        return []
    if any(name not in _PATTERNS for name in labels):
        return None
    seen = set(detect(excerpt))
    return [name for name in labels if name in seen]


# -- fresh secrets at training time -------------------------------------------------------------
# Fixed prefixes of the provider key formats (longest first): a refresh keeps them and redraws the
# random body after them.
_KEY_PREFIXES = sorted(
    ("AKIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk_live_", "rk_live_",
     "xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-", "AIza", "SG.", "glpat-", "npm_", "sk-proj-",
     "sk-"), key=len, reverse=True)
REFRESHED = ("api_key", "jwt", "password", "phone")
# Phone-shaped digit groups (the generator's national formats); phones have no detector, so this
# only delimits what a refresh redraws in a window already flagged ``phone``.
_PHONE_LIKE = re.compile(rb"(?<![\w.+])(\+\d{1,3} )?\(?\d{1,5}\)?(?:[ -]\d{1,8}){1,4}(?![\w.-]?\d)")


def _scramble(value: bytes, rng: random.Random, keep_words: bool = False) -> bytes:
    """``value`` with every ASCII digit, upper- and lower-case letter redrawn in its own class;
    separators and other bytes stay, so a format's shape (``xoxb-12…-34…-ab…``) survives. With
    ``keep_words``, runs of 4+ letters in one case or Title case stay (``Summer2024!`` keeps its
    word, ``hKQCsxVn`` does not): word-based passwords stay word-based."""
    out = bytearray(value)
    kept: set[int] = set()
    if keep_words:
        for m in re.finditer(rb"[A-Za-z]{4,}", value):
            w = m.group(0)
            if w.islower() or w.isupper() or w.istitle():
                kept.update(range(m.start(), m.end()))
    for i, c in enumerate(value):
        if i in kept:
            continue
        if 48 <= c <= 57:
            out[i] = 48 + rng.randrange(10)
        elif 65 <= c <= 90:
            out[i] = 65 + rng.randrange(26)
        elif 97 <= c <= 122:
            out[i] = 97 + rng.randrange(26)
    return bytes(out)


def refresh_secrets(window: bytes, labels: list[str], rng: random.Random) -> bytes:
    """``window`` with fresh random bodies for the secrets the detectors find in it: the part of
    an API key after its provider prefix, a JWT's signature, a password value (its words
    kept), the digits of a phone number after its country code. Used as a training
    augmentation (``TrainConfig.augment``) on samples flagged ``labels``: the planted keys of the
    generated risk samples are otherwise seen once per epoch, and a model trained for several
    epochs learns their n-grams (which no test key shares) instead of the formats.

    Only flags in ``labels`` that are in ``REFRESHED`` are touched; the result has the same length
    and is returned only if the detectors label it as they label ``window`` (else ``window``).
    Phone numbers have no detector: in a window flagged ``phone`` every phone-shaped digit group
    is redrawn (a date or a number list nearby may be too; the flag stays true). E-mail
    addresses and PEM keys are left as they are (drawn from small pools, or not random text).
    """
    todo = [name for name in REFRESHED if name in labels]
    if not todo:
        return window
    buf = bytearray(window)
    for name in todo:
        if name == "phone":
            for m in _PHONE_LIKE.finditer(window):
                lo = m.end(1) if m.group(1) else m.start()
                buf[lo : m.end()] = _scramble(window[lo : m.end()], rng)
            continue
        for m in _PATTERNS[name].finditer(window):
            s = m.group(0)
            if name == "api_key":
                if any(e in s for e in _EXAMPLE_KEYS):
                    continue
                skip = next((len(p) for p in _KEY_PREFIXES if s.startswith(p.encode())), 0)
                lo, hi = m.start() + skip, m.end()
            elif name == "jwt":
                lo, hi = m.start() + s.rfind(b".") + 1, m.end()
            else:
                group = "kv" if m.group("kv") is not None else "url"
                lo, hi = m.span(group)
            buf[lo:hi] = _scramble(window[lo:hi], rng, keep_words=name == "password")
    out = bytes(buf)
    return out if detect(out) == detect(window) else window


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


# -- secrets planted at training time ------------------------------------------------------------
# The corpus's risk samples give every kind its own names (GITHUB_TOKEN, DB_PASSWORD, phone) and
# the look-alikes others (request_id, sha256): content-v5 learned the names, not the values (a bare
# ghp_ token scored 0.001, the same token after ``GITHUB_TOKEN=`` 0.998; ``aws access key id:
# AKIA…`` 0.002). A planted value takes a name from one pool shared by every kind and by the
# look-alikes, or no name at all, so only the value tells them apart.
SHARED_NAMES = (
    "token", "key", "secret", "api_key", "apiKey", "auth_token", "access_token", "credentials",
    "client_secret", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "STRIPE_SECRET_KEY", "SLACK_BOT_TOKEN",
    "NPM_TOKEN", "OPENAI_API_KEY", "GOOGLE_API_KEY", "value", "id", "contact", "email", "phone",
    "tel", "support", "session", "request_id", "config", "X-Api-Key", "bearer", "jwt", "hash",
    "checksum", "commit", "blob", "mobile", "maintainer", "owner", "from", "user")
# The password detector needs a password-like name: secrets and placeholders share these.
PASSWORD_NAMES = ("password", "passwd", "pwd", "PASSWORD", "Password", "PASSWD", "DB_PASSWORD",
                  "db_pass", "db_password", "PWD")
_PLANT_LANGS = (None, None, "python", "javascript", "go", "yaml", "json", "shell", "java", "toml",
                "xml", "php", "c", "rust", "ruby", "sql", "kotlin", "perl")
_PLANT_KINDS = ("api_key",) * 6 + ("password",) * 4 + ("phone",) * 4 + ("email", "email", "jwt")
_NEAR_MISS = ("AKIA", "ghp_", "sk_live_", "xoxb-", "AIza", "glpat-", "npm_", "sk-proj-")
PLANT_NEGATIVE_SHARE = 0.3


def _plant_negative(rng: random.Random) -> tuple[str, str]:
    """A name and a value that no flag covers: a look-alike, a placeholder under a password name,
    a provider prefix with a body of the wrong length, or a random token without a prefix."""
    k = rng.randrange(6)
    if k == 0:  # placeholders and words where the password detector looks
        return rng.choice(PASSWORD_NAMES), rng.choice(
            ["${DB_PASSWORD}", "<password>", "os.getenv('DB_PASSWORD')", "None", "********",
             "process.env.PASSWORD", "String", "compat", "required", "user_password", "changeme"])
    if k == 1:  # a provider prefix whose body is too short for the format
        return rng.choice(SHARED_NAMES), rng.choice(_NEAR_MISS) + _rand(rng, rng.randrange(4, 12))
    if k == 2:  # a random token without a provider prefix is not an API key to the detectors
        return rng.choice(SHARED_NAMES), _rand(rng, rng.choice([16, 20, 24, 32, 40]))
    return rng.choice(SHARED_NAMES), lookalike(rng)[1]


def _planted_line(kind: str | None, rng: random.Random) -> tuple[str, str]:
    """(line, value): ``kind``'s fresh value (``None``: a negative) the way a file, a log, a
    command line or a sentence would carry it."""
    if kind is None:
        name, value = _plant_negative(rng)
    else:
        name, value = MAKERS[kind](rng)
        if kind == "password":
            if "://" not in value:
                name = rng.choice(PASSWORD_NAMES)
        elif rng.random() < 0.8:
            name = rng.choice(SHARED_NAMES)
    host = rng.choice(["api.acme-corp.io", "internal.example.net", "10.0.3.17:8443", "svc.local"])
    pw_name = name in PASSWORD_NAMES
    bare = [f"{value}", f"  {value}", f"{name} {value}", f"[2024-05-{rng.randrange(1, 29):02d} "
            f"12:{rng.randrange(60):02d}:07] INFO using {name} {value}",
            f"curl -H 'Authorization: Bearer {value}' https://{host}/v1/items",
            f"https://{host}/v1/items?{name}={value}", f"- {value}", f"'{value}',",
            f"{name.replace('_', ' ')} is {value}", f"--{name}={value}"]
    if pw_name:  # the password detector wants ``name[:=]value``
        bare = [f"--{name}={value}", f"{name}: {value}", f"{name}={value}"]
    elif "://" in value:  # a connection string
        bare = [value, f"{name} {value}", f"--{name}={value}", f"connecting to {value}"]
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
