"""The ``risk`` part of the wild suite: secrets and look-alikes planted into real files.

Host files come from the pinned git repositories of ``picohead/recipes/wild/risk.json``::

    {"task": "risk", "seed": "...",
     "per_producer": {"positive": 30, "lookalike": 11, "clean": 4, "tiny": 2},
     "hosts": [{"kind": "git", "repo": "owner/name", "commit": "<40 hex>", "paths": [],
                "licence": "MIT", "project": "optional project name"}, ...]}

``paths`` are prefixes to read (empty = the whole tree); ``per_producer`` caps how many samples of
each kind one repository gives. A host file is used only when its syntax family is known (YAML,
INI, .env, TOML, JSON, XML, properties, CSV, shell, Dockerfile, Python, JS/TS, Go, Java, Kotlin,
Rust, Ruby, PHP, C#, C, SQL, HCL, Markdown, HTML templates, CSS, logs, prose) and when the
screen ``detect`` finds nothing sensitive in it, so the label of a planted sample is exactly what
was planted. One secret (or look-alike) is written in the file's own syntax (a YAML key, a Go
``const``, an XML element, a heredoc, a connection URL, a CLI flag, an ``Authorization`` header)
and inserted at a line boundary in the first ~700 bytes or appended at the end (the model reads
1 KiB from each end). Private keys are made with the ``openssl`` and ``ssh-keygen`` programs and
cached under ``cache/risk-keys``; JWTs are HMAC-signed with ``hmac``; provider tokens follow the
providers' published shapes (GitHub's and npm's CRC32 base62 checksum included).

Kinds: ``positive`` (label = the planted flags), ``lookalike`` (hashes, UUIDs, SRI, placeholders,
environment references, RFC 2606/6761 e-mail domains, versions, dates, IPs, base64 images, public
keys, AWS's documented example key; label ``[]``), ``clean`` (an unmodified screened host, ``[]``)
and ``tiny`` (0-16 bytes: host prefixes and a fixed set of fragments, ``[]``, plus a few genuine
short phones and e-mails). Everything is seeded by the recipe's ``seed``.

What it does not do: fetch repositories (``open_mirror`` reads the mirror folder), guarantee the
planted file still parses (the insertion respects line structure and common anchors, not a full
grammar), or read the corpus's own risk generator (the templates here are written independently).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import itertools
import json
import logging
import random
import re
import string
import subprocess
import tempfile
import time
import uuid
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picohead.data.gitmirror import Mirror, MirrorError, open_mirror
from picohead.wild.suite import StageWriter

log = logging.getLogger(__name__)

RECIPE = Path(__file__).resolve().parents[2] / "recipes" / "wild" / "risk.json"
FLAGS = ("api_key", "jwt", "private_key", "password", "email", "phone")
HEAD_LIMIT = 700      # a head insertion starts before this byte offset
MAX_HOST = 256 * 1024
MIN_HOST = 80

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"


# -- checksums and formats ------------------------------------------------------------------------
def base62(n: int, width: int = 0) -> str:
    """``n`` in base 62 (0-9A-Za-z), left-padded with ``0`` to ``width``."""
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = B62[r] + out
    return (out or "0").rjust(width, "0")


def crc_token(prefix: str, body: str) -> str:
    """A GitHub/npm-style token: prefix + 30 random characters + base62(CRC32(body)) in 6."""
    return prefix + body + base62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def crc_token_ok(token: str, prefix: str) -> bool:
    body, check = token[len(prefix):-6], token[-6:]
    return token.startswith(prefix) and base62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6) == check


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_jwt(header: dict[str, Any], payload: dict[str, Any], key: bytes) -> str:
    """header.payload.signature, signed with HMAC-SHA256/384/512 per ``alg`` (HS*), or a random
    256-byte signature for RS*/ES* (shape only)."""
    h = b64url(json.dumps(header, separators=(",", ":")).encode())
    p = b64url(json.dumps(payload, separators=(",", ":")).encode())
    alg = header.get("alg", "HS256")
    msg = f"{h}.{p}".encode()
    if alg.startswith("HS"):
        sig = hmac.new(key, msg, {"HS256": hashlib.sha256, "HS384": hashlib.sha384,
                                  "HS512": hashlib.sha512}[alg]).digest()
    else:
        sig = hashlib.shake_256(key + msg).digest(256 if alg.startswith("RS") else 64)
    return f"{h}.{p}.{b64url(sig)}"


def jwt_ok(token: str, key: bytes) -> bool:
    h, p, s = token.split(".")
    header = json.loads(base64.urlsafe_b64decode(h + "=" * (-len(h) % 4)))
    json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))
    alg = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[header["alg"]]
    return hmac.compare_digest(b64url(hmac.new(key, f"{h}.{p}".encode(), alg).digest()), s)


def e164_ok(s: str) -> bool:
    """E.164: ``+``, a country code not starting with 0, 8 to 15 digits in all."""
    return re.fullmatch(r"\+[1-9]\d{7,14}", s) is not None


# -- the screen ----------------------------------------------------------------------------------
EXAMPLE_DOMAIN = re.compile(
    r"(^|\.)(example\.(com|org|net)|example|test|invalid|localhost|local|lan|internal|"
    r"localdomain|domain\.com|email\.com)$", re.I)
PLACEHOLDER = re.compile(
    r"^(|changeme|change[-_]?me|secret|password|passwd|pass|xxx+|\*+|x+|\.\.\.|null|none|nil|"
    r"true|false|todo|tbd|redacted|<[^>]*>|\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_]\w*|%\(?\w+\)?s?|"
    r"\{\{.*\}\}|your[-_ ].*|replace[-_ ]?me|.*[-_]here|example.*|dummy|placeholder|"
    r"os\.environ.*|process\.env.*|env\(.*|getenv\(.*|System\.getenv.*|ENV\[.*|"
    r"Environment\..*|std::env.*|os\.Getenv.*|config\(.*|settings\..*|"
    r"(?i:[a-z_]*(min|max)[a-z_]*|\d{1,3}))$", re.I)
TOKEN_RES = [re.compile(p) for p in (
    r"\b(AKIA|ASIA)(?!IOSFODNN7EXAMPLE)[A-Z2-7]{16}(?![\w-])",
    r"\bgh[pousr]_[A-Za-z0-9]{36}(?![\w-])", r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![\w-])",
    r"\bglpat-[A-Za-z0-9_-]{20}(?![\w-])", r"\bxox[bpaer]-[0-9A-Za-z-]{20,}",
    r"hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
    r"\b[sr]k_live_[A-Za-z0-9]{20,}", r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])",
    r"\bsk-(proj-|ant-api03-)?[A-Za-z0-9_-]{40,}", r"\bnpm_[A-Za-z0-9]{36}(?![\w-])",
    r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])",
    r"\bSK[0-9a-f]{32}(?![\w-])", r"\bkey-[0-9a-f]{32}(?![\w-])", r"\bHRKU-[A-Za-z0-9_-]{40,}",
    r"\bshpat_[0-9a-f]{32}(?![\w-])", r"\bdop_v1_[0-9a-f]{64}(?![\w-])", r"\bhf_[A-Za-z]{34}(?![\w-])",
    r"\bdapi[0-9a-f]{32}(?![\w-])", r"AccountKey=[A-Za-z0-9+/]{86}==", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])",
    r"\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}(?![\w-])", r"\blin_api_[A-Za-z0-9]{40}(?![\w-])",
    r"(?i)aws_secret_access_key\W{1,4}(?![A-Za-z0-9/+]*EXAMPLE)[A-Za-z0-9/+]{40}(?![\w-])")]
JWT_RE = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}")
PEM_RE = re.compile(r"-----BEGIN (RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----")
EMAIL_RE = re.compile(r"(?<![\w.+-])[A-Za-z0-9][\w.+-]*@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})\b")
PHONE_RE = re.compile(
    r"(?<![\w+/.:-])(\+[1-9]\d{9,14}|\+[1-9]\d{0,2}[ -]?(\(0\)[ -]?)?\(?\d{1,4}\)?([ -]\d{2,8}){1,4}"
    r"|\(\d{2,4}\) ?\d{3,5}-\d{4}|\d{3}-\d{3}-\d{4}|0\d{1,4}[ -]\d{3,4}[ -]\d{3,4}"
    r"|0\d \d\d \d\d \d\d \d\d|0\d{2,3}-\d{3,4}-\d{4}|0\d{4} \d{6})(?![\w/.:-])")
PW_KEYS = (r"pass(word|wd|phrase)?|pwd|secret(_?key)?|client_?secret|db_?pass(word)?|"
           r"pgpassword|mysql_pwd|passcode")
PW_ASSIGN = re.compile(
    r"(?i)(?<![A-Za-z])[\w.-]*(?:" + PW_KEYS + r")(?![A-Za-z0-9])"
    r"(?:\s*:\s*(?:&str|&'static str|string|String)\s*=\s*[\"']?"
    r"|[\"']?\s*\{\s*\n\s*default\s*=\s*[\"']?|[\"']?\s+(?:content|value)=[\"']?"
    r"|[\s\"'=:>|,\[\]()`*]{1,12})"
    r"(?P<val>[^\s\"'<>,;`|&][^\s\"'<>,;`|]{3,})")
SQL_PW = re.compile(r"(?i)(identified by|with password)\s+'([^']{4,})'")
URL_PW = re.compile(r"[a-z][a-z0-9+.-]*://[^:/\s@]+:([^@\s/]+)@[\w.-]+")
CLI_PW = re.compile(r"(--password[= ]|--pass[= ]| -p'|sshpass -p |PGPASSWORD=|-p \"| -a | -u \w+:)"
                    r"(['\"]?)"
                    r"([^\s'\"]{4,})")
CONN_PW = re.compile(r"(?i)(password|pwd)=([^;\s\"']{4,})")


def _pw_value(v: str) -> bool:
    v = v.strip("\"'`,;):")
    if PLACEHOLDER.match(v) or len(v) < 4 or v.endswith("=") or v.startswith(("$", "{{", "<", "%(", "-----")):
        return False
    if any(r.search(v) for r in TOKEN_RES) or JWT_RE.search(v):
        return False
    if re.fullmatch(r"[\w.]+\(.*|[\w]+\.[\w.]+|[A-Z_]{4,}|[a-z_]+", v):
        return False  # a call, an attribute, a constant name, a bare word
    return True


def detect(text: str) -> set[str]:
    """The flags this module's own screen sees in ``text`` (broad on purpose: it decides which
    host files are safe to plant into, and it checks the templates)."""
    found: set[str] = set()
    text = html.unescape(text) if "&" in text else text
    if any(r.search(text) for r in TOKEN_RES):
        found.add("api_key")
    if JWT_RE.search(text):
        found.add("jwt")
    if PEM_RE.search(text):
        found.add("private_key")
    for m in EMAIL_RE.finditer(text):
        dom = m.group(1).lower()
        token = re.split(r"[\s\"'`<>(|]", text[max(0, m.start() - 200):m.start()])[-1]
        if "://" in token:
            continue  # the user:password@host part of a URL
        if not EXAMPLE_DOMAIN.search(dom) and not re.search(r"\.(png|jpe?g|gif|svg|js|css)$", dom):
            found.add("email")
            break
    if PHONE_RE.search(text):
        found.add("phone")
    pw = any(_pw_value(m.group('val')) for m in PW_ASSIGN.finditer(text))
    pw = pw or any(_pw_value(m.group(1)) for m in URL_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(3)) for m in CLI_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(2)) for m in CONN_PW.finditer(text))
    pw = pw or any(_pw_value(m.group(2)) for m in SQL_PW.finditer(text))
    if pw:
        found.add("password")
    return found


# -- syntax families ------------------------------------------------------------------------------
_EXT = {
    "yml": "yaml", "yaml": "yaml", "ini": "ini", "cfg": "ini", "conf": "ini", "cnf": "ini",
    "env": "env", "toml": "toml", "json": "json", "xml": "xml", "csproj": "xml", "xlf": "xml",
    "config": "xml", "properties": "properties", "csv": "csv", "sh": "shell", "bash": "shell",
    "py": "python", "js": "js", "mjs": "js", "cjs": "js", "jsx": "js", "ts": "ts", "tsx": "ts",
    "go": "go", "java": "java", "kt": "kotlin", "kts": "kotlin", "rs": "rust", "rb": "ruby",
    "rake": "ruby", "php": "php", "cs": "csharp", "c": "c", "h": "c", "sql": "sql", "tf": "hcl",
    "hcl": "hcl", "md": "md", "markdown": "md", "log": "log", "txt": "text", "rst": "text",
    "html": "html", "twig": "html", "erb": "html", "cshtml": "html", "razor": "html",
    "css": "css", "scss": "css"}
SKIP_NAMES = re.compile(r"(^|/)(package-lock\.json|yarn\.lock|composer\.lock|Cargo\.lock|"
                        r"go\.sum|[^/]*\.min\.(js|css)|LICEN[CS]E[^/]*|COPYING[^/]*)$", re.I)


def family_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    low = name.lower()
    if SKIP_NAMES.search(path):
        return None
    if low.startswith("dockerfile") or low.endswith(".dockerfile") or low == "containerfile":
        return "docker"
    if low.startswith(".env") or low.endswith(".env") or re.match(r"env\.\w+$", low):
        return "env"
    if low in ("gemfile", "rakefile"):
        return "ruby"
    if low in ("makefile",):
        return None
    if "." not in name.lstrip("."):
        return None
    return _EXT.get(low.rsplit(".", 1)[-1])


# -- field names ----------------------------------------------------------------------------------
def style(fieldname: str, fam: str, rng: random.Random) -> str:
    """A field given as words (``db password``) or verbatim (``PGPASSWORD``) in a family's style."""
    if " " not in fieldname and fieldname.upper() == fieldname:
        return fieldname if fam in ("env", "shell", "docker", "python", "ruby", "php", "c",
                                    "java", "kotlin", "rust", "ts", "log", "text", "md") \
            else fieldname.lower()
    words = fieldname.split()
    snake, upper = "_".join(words), "_".join(words).upper()
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    pascal = "".join(w.capitalize() for w in words)
    kebab = "-".join(words)
    if fam in ("env", "shell", "docker", "c"):
        return upper
    if fam in ("yaml", "toml", "ini", "hcl", "sql", "log"):
        return rng.choice([snake, snake, kebab]) if fam in ("yaml", "log") else snake
    if fam == "properties":
        return rng.choice(["app.", "service.", "spring.datasource.", ""]) + ".".join(words[-2:]) \
            if len(words) > 1 else "app." + snake
    if fam in ("json", "js", "ts", "xml", "go", "html"):
        return rng.choice([camel, camel, snake]) if fam in ("json", "xml") else camel
    if fam in ("python", "ruby", "rust", "java", "kotlin", "php"):
        return upper if rng.random() < 0.6 else snake if fam in ("python", "ruby", "rust",
                                                                   "php") else camel
    if fam == "csharp":
        return pascal
    return snake if fam not in ("text", "md") else " ".join(words).capitalize()


@dataclass
class Plant:
    """What one template makes: fields with values, or a ready line (command, header, prose)."""
    template: str
    flags: list[str]
    pairs: list[tuple[str, str]] = field(default_factory=list)
    pem: bool = False
    line: str | None = None        # a shell/log/prose line used where it fits
    line_fams: tuple[str, ...] = ("shell", "docker", "md", "log", "text")


# -- value makers ---------------------------------------------------------------------------------
def rs(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


FIRST = ["jana", "lukas", "sofia", "mateo", "aiko", "ravi", "chloe", "tomasz", "ingrid", "kwame",
         "lucia", "omar", "hana", "pedro", "elif", "nikolai", "priya", "felix", "amara", "diego",
         "yuki", "marta", "oskar", "leila", "bram", "zoe", "arjun", "noemi", "henrik", "camila"]
LAST = ["novak", "schreiber", "moreau", "okafor", "tanaka", "sharma", "lindqvist", "kowalski",
        "haddad", "costa", "fischer", "nakamura", "oliveira", "petrov", "brennan", "duarte",
        "varga", "mensah", "ibarra", "keller", "rossi", "yilmaz", "dubois", "hughes", "silva"]
MAIL_DOMAINS = ["gmail.com", "outlook.com", "proton.me", "yahoo.co.jp", "web.de", "gmx.de",
                "orange.fr", "libero.it", "fastmail.com", "hotmail.co.uk", "icloud.com",
                "mail.ru", "qq.com", "uol.com.br", "seznam.cz", "wp.pl", "t-online.de",
                "northwind-logistics.io", "brightpath.co", "kestrel-labs.dev", "alpenbau.at",
                "medisys.com.au", "quantafin.in", "riverbend.ca", "nordlys.no", "hollandia.nl"]
WORDS = ["maple", "orbit", "velvet", "harbor", "cactus", "lantern", "quartz", "meadow", "falcon",
         "ember", "glacier", "saffron", "tundra", "copper", "willow", "nebula", "pepper", "cobalt"]
HOSTS = ["db.internal.corp", "10.20.4.17", "pg-primary.prod.svc", "mysql-01.eu-west-1.rds",
         "redis.cache.local", "mongo0.shard.cluster", "rabbitmq.ops.net", "172.16.9.40"]


def person(rng: random.Random) -> tuple[str, str]:
    f, last = rng.choice(FIRST), rng.choice(LAST)
    return f"{f.capitalize()} {last.capitalize()}", f"{f}.{last}"


def email(rng: random.Random) -> str:
    _, user = person(rng)
    user = rng.choice([user, user.replace(".", ""), user.split(".")[0] + str(rng.randint(7, 99)),
                       user[0] + user.split(".")[1], user.replace(".", "_")])
    return f"{user}@{rng.choice(MAIL_DOMAINS)}"


def password(rng: random.Random) -> str:
    k = rng.randrange(6)
    sym = "!@#%^&*?-_+"
    if k == 0:
        return rng.choice(WORDS).capitalize() + str(rng.randint(1970, 2029)) + rng.choice(sym)
    if k == 1:
        return rng.choice(ALNUM) + rs(rng, ALNUM + "!#%&*", rng.randint(11, 19))
    if k == 2:
        return "-".join(rng.sample(WORDS, 3)) + "-" + str(rng.randint(10, 99))
    if k == 3:
        w = rng.choice(WORDS)
        return (w.replace("a", "4").replace("e", "3").replace("o", "0").capitalize()
                + rng.choice(sym) + str(rng.randint(100, 999)))
    if k == 4:
        return rs(rng, ALNUM, rng.randint(24, 32))
    return rs(rng, string.ascii_lowercase, 4) + rs(rng, string.digits, 4) + rng.choice(sym) \
        + rs(rng, string.ascii_uppercase, 3)


def digits(rng: random.Random, n: int, first: str = "23456789") -> str:
    return rng.choice(first) + rs(rng, string.digits, n - 1)


PHONE_FORMATS: list[tuple[str, Callable[[random.Random], str]]] = [
    ("e164_us", lambda r: "+1" + digits(r, 3) + digits(r, 7)),
    ("us_paren", lambda r: f"({digits(r, 3)}) {digits(r, 3)}-{rs(r, string.digits, 4)}"),
    ("us_dash", lambda r: f"{digits(r, 3)}-{digits(r, 3)}-{rs(r, string.digits, 4)}"),
    ("us_intl", lambda r: f"+1 {digits(r, 3)} {digits(r, 3)} {rs(r, string.digits, 4)}"),
    ("uk_london", lambda r: f"+44 20 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("uk_mobile", lambda r: f"07{r.choice('3456789')}{rs(r, string.digits, 2)} {digits(r, 6)}"),
    ("uk_national", lambda r: f"0{r.choice(['113', '121', '131', '161'])} {digits(r, 3)} "
                              f"{rs(r, string.digits, 4)}"),
    ("de_berlin", lambda r: f"+49 30 {digits(r, 8)}"),
    ("de_national", lambda r: f"0{r.choice(['89', '40', '69', '221'])} {digits(r, 3)} "
                              f"{rs(r, string.digits, 4)}"),
    ("de_mobile", lambda r: f"+49 (0)1{r.choice('567')}{rs(r, string.digits, 1)} "
                            f"{digits(r, 7)}"),
    ("fr_intl", lambda r: "+33 " + r.choice("1234567") + " " + " ".join(
        rs(r, string.digits, 2) for _ in range(4))),
    ("fr_national", lambda r: "0" + r.choice("1245679") + " " + " ".join(
        rs(r, string.digits, 2) for _ in range(4))),
    ("in_mobile", lambda r: f"+91 {r.choice('6789')}{rs(r, string.digits, 4)} "
                            f"{rs(r, string.digits, 5)}"),
    ("in_landline", lambda r: f"+91-{r.choice(['22', '11', '80', '44'])}-{digits(r, 4)}-"
                              f"{rs(r, string.digits, 4)}"),
    ("br_mobile", lambda r: f"+55 {r.choice(['11', '21', '31', '51'])} 9{rs(r, string.digits, 4)}"
                            f"-{rs(r, string.digits, 4)}"),
    ("br_national", lambda r: f"({r.choice(['11', '21', '41'])}) 9{rs(r, string.digits, 4)}-"
                              f"{rs(r, string.digits, 4)}"),
    ("jp_intl", lambda r: f"+81 3-{digits(r, 4)}-{rs(r, string.digits, 4)}"),
    ("jp_mobile", lambda r: f"0{r.choice(['90', '80', '70'])}-{digits(r, 4)}-"
                            f"{rs(r, string.digits, 4)}"),
    ("au", lambda r: f"+61 {r.choice('2378')} {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("es", lambda r: f"+34 9{rs(r, string.digits, 2)} {rs(r, string.digits, 3)} "
                     f"{rs(r, string.digits, 3)}"),
    ("it", lambda r: f"+39 06 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("nl", lambda r: f"+31 20 {digits(r, 3)} {rs(r, string.digits, 4)}"),
    ("mx", lambda r: f"+52 55 {digits(r, 4)} {rs(r, string.digits, 4)}"),
    ("cn", lambda r: f"+86 13{rs(r, string.digits, 1)} {rs(r, string.digits, 4)} "
                     f"{rs(r, string.digits, 4)}"),
    ("e164_de", lambda r: "+49" + r.choice(["30", "89", "40"]) + digits(r, 8)),
    ("e164_gb", lambda r: "+447" + r.choice("3456789") + rs(r, string.digits, 8)),
]


# -- private keys (openssl / ssh-keygen, cached) ----------------------------------------------------
KEY_SPECS = {
    "rsa_pkcs1": 8, "rsa_pkcs8": 8, "ec_sec1": 10, "ec_pkcs8": 8, "ed25519_pkcs8": 6,
    "openssh_ed25519": 14, "openssh_ecdsa": 6, "openssh_rsa": 4, "pkcs8_encrypted": 4,
}


def _sh(cmd: list[str], cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=120)


def make_key(kind: str, out: Path) -> None:
    """Write one private key of ``kind`` (PEM or OpenSSH) and its public half to ``out``/.pub."""
    d = out.parent
    if kind == "rsa_pkcs1":
        _sh(["openssl", "genrsa", "-traditional", "-out", out.name, "2048"], d)
    elif kind == "rsa_pkcs8":
        _sh(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
             "-out", out.name], d)
    elif kind == "ec_sec1":
        _sh(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", out.name], d)
    elif kind == "ec_pkcs8":
        _sh(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384",
             "-out", out.name], d)
    elif kind == "ed25519_pkcs8":
        _sh(["openssl", "genpkey", "-algorithm", "ED25519", "-out", out.name], d)
    elif kind == "pkcs8_encrypted":
        _sh(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-aes-256-cbc", "-pass", "pass:wild-suite-key", "-out", out.name], d)
    elif kind.startswith("openssh_"):
        t = {"openssh_ed25519": ["-t", "ed25519"], "openssh_ecdsa": ["-t", "ecdsa", "-b", "256"],
             "openssh_rsa": ["-t", "rsa", "-b", "2048"]}[kind]
        _sh(["ssh-keygen", "-q", *t, "-N", "", "-C", "deploy", "-f", out.name], d)
        return
    else:
        raise ValueError(kind)
    passin = ["-passin", "pass:wild-suite-key"] if kind == "pkcs8_encrypted" else []
    _sh(["openssl", "pkey", "-in", out.name, *passin, "-pubout", "-out", out.name + ".pub"], d)


def key_pool(cache: Path) -> list[tuple[str, str, str]]:
    """(kind, private PEM/OpenSSH text, public text) for every cached key, making missing ones."""
    root = cache / "risk-keys"
    root.mkdir(parents=True, exist_ok=True)
    pool = []
    for kind, n in KEY_SPECS.items():
        for i in range(n):
            p = root / f"{kind}-{i:02d}"
            if not p.exists() or not Path(str(p) + ".pub").exists():
                with tempfile.TemporaryDirectory(dir=root) as td:
                    tmp = Path(td) / "k"
                    make_key(kind, tmp)
                    Path(str(tmp) + ".pub").replace(str(p) + ".pub")
                    tmp.replace(p)
            pool.append((kind, p.read_text(), Path(str(p) + ".pub").read_text()))
    return pool


# -- positive templates ---------------------------------------------------------------------------
def _aws(r: random.Random) -> Plant:
    kid = r.choice(["AKIA", "ASIA"]) + rs(r, B32, 16)
    sec = rs(r, ALNUM + "/+", 40)
    pairs = [("aws access key id", kid), ("aws secret access key", sec)]
    if kid.startswith("ASIA"):
        pairs.append(("aws session token", "IQoJb3JpZ2luX2Vj" + rs(r, ALNUM + "/+", 180) + "=="))
    return Plant("aws_keypair", ["api_key"], pairs,
                 line=f"AWS_ACCESS_KEY_ID={kid} AWS_SECRET_ACCESS_KEY={sec} aws s3 ls "
                      f"s3://{r.choice(WORDS)}-backups")


def _gh(r: random.Random) -> Plant:
    p = r.choice(["ghp_", "gho_", "ghs_", "ghu_"])
    tok = crc_token(p, rs(r, ALNUM, 30))
    return Plant(f"github_{p[:3]}", ["api_key"], [(r.choice(["github token", "gh token",
                                                             "github access token"]), tok)],
                 line=f'curl -H "Authorization: token {tok}" https://api.github.com/user/repos')


def _ghpat(r: random.Random) -> Plant:
    tok = "github_pat_11" + rs(r, B32, 9) + "0" + rs(r, ALNUM, 10) + "_" + rs(r, ALNUM, 59)
    return Plant("github_pat", ["api_key"], [("github pat", tok)],
                 line=f"echo {tok} | gh auth login --with-token")


def _simple(tid: str, fields: list[str], make: Callable[[random.Random], str],
            line: str | None = None) -> Callable[[random.Random], Plant]:
    def f(r: random.Random) -> Plant:
        v = make(r)
        return Plant(tid, ["api_key"], [(r.choice(fields), v)],
                     line=line.format(v=v) if line else None)
    return f


def _slack_hook(r: random.Random) -> Plant:
    url = (f"https://hooks.slack.com/services/T{rs(r, B32[:26] + '0123456789', 8)}/"
           f"B{rs(r, B32[:26] + '0123456789', 10)}/{rs(r, ALNUM, 24)}")
    return Plant("slack_webhook", ["api_key"], [("slack webhook url", url)],
                 line=f"curl -X POST -H 'Content-type: application/json' --data "
                      f"'{{\"text\":\"deploy done\"}}' {url}")


def _pypi(r: random.Random) -> Plant:
    raw = (b"\x02\x01\x08pypi.org\x02\x25\x08\x01\x12\x20" + r.randbytes(32) + b"\x00\x02*"
           + b'[1,["api"]]' + r.randbytes(48) + b"\x00\x00\x06 " + r.randbytes(32))
    tok = "pypi-" + b64url(raw)
    return Plant("pypi_token", ["api_key"], [(r.choice(["pypi token", "twine password"]), tok)],
                 line=f"twine upload -u __token__ -p {tok} dist/*")


def _azure(r: random.Random) -> Plant:
    acct = r.choice(WORDS) + "store" + str(r.randint(1, 99))
    key = base64.b64encode(r.randbytes(64)).decode()
    cs = (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};"
          "EndpointSuffix=core.windows.net")
    return Plant("azure_storage", ["api_key"], [("azure storage connection string", cs)])


API_TEMPLATES: list[Callable[[random.Random], Plant]] = [
    _aws, _aws, _gh, _gh, _ghpat, _slack_hook, _pypi, _azure,
    _simple("gitlab_pat", ["gitlab token", "gitlab private token", "ci token"],
            lambda r: "glpat-" + rs(r, URLSAFE, 20),
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.com/api/v4/projects'),
    _simple("slack_bot", ["slack bot token", "slack token"],
            lambda r: f"xoxb-{digits(r, 12)}-{digits(r, 13)}-{rs(r, ALNUM, 24)}"),
    _simple("slack_user", ["slack user token", "slack oauth token"],
            lambda r: f"xoxp-{digits(r, 12)}-{digits(r, 12)}-{digits(r, 13)}-"
                      f"{rs(r, HEX, 32)}"),
    _simple("stripe_secret", ["stripe secret key", "stripe api key", "payments key"],
            lambda r: "sk_live_51" + rs(r, ALNUM, 97),
            "curl https://api.stripe.com/v1/charges -u {v}:"),
    _simple("stripe_restricted", ["stripe restricted key", "stripe key"],
            lambda r: "rk_live_51" + rs(r, ALNUM, 97)),
    _simple("google_api", ["google api key", "maps api key", "firebase api key", "gcp key"],
            lambda r: "AIza" + rs(r, URLSAFE, 35)),
    _simple("openai_legacy", ["openai api key", "openai key"],
            lambda r: "sk-" + rs(r, ALNUM, 20) + "T3BlbkFJ" + rs(r, ALNUM, 20),
            'curl https://api.openai.com/v1/models -H "Authorization: Bearer {v}"'),
    _simple("openai_project", ["openai api key", "llm api key"],
            lambda r: "sk-proj-" + rs(r, URLSAFE, 74) + "T3BlbkFJ" + rs(r, URLSAFE, 74)),
    _simple("anthropic", ["anthropic api key", "claude api key"],
            lambda r: "sk-ant-api03-" + rs(r, URLSAFE, 93) + "AA"),
    _simple("npm_token", ["npm token", "npm auth token"],
            lambda r: crc_token("npm_", rs(r, ALNUM, 30)),
            "echo //registry.npmjs.org/:_authToken={v} > ~/.npmrc"),
    _simple("sendgrid", ["sendgrid api key", "smtp api key", "mail api key"],
            lambda r: "SG." + rs(r, URLSAFE, 22) + "." + rs(r, URLSAFE, 43)),
    _simple("twilio", ["twilio api key", "twilio key sid"], lambda r: "SK" + rs(r, HEX, 32)),
    _simple("mailgun", ["mailgun api key", "mailgun key"], lambda r: "key-" + rs(r, HEX, 32),
            "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.brightpath.co/messages"),
    _simple("heroku", ["heroku api key", "heroku token"],
            lambda r: "HRKU-AA" + rs(r, URLSAFE, 58)),
    _simple("shopify", ["shopify access token", "shopify admin token"],
            lambda r: "shpat_" + rs(r, HEX, 32)),
    _simple("digitalocean", ["digitalocean token", "do token"],
            lambda r: "dop_v1_" + rs(r, HEX, 64)),
    _simple("huggingface", ["hf token", "huggingface token"],
            lambda r: "hf_" + rs(r, string.ascii_letters, 34)),
    _simple("databricks", ["databricks token"], lambda r: "dapi" + rs(r, HEX, 32)),
    _simple("telegram", ["telegram bot token", "bot token"],
            lambda r: f"{digits(r, 10)}:AA{rs(r, URLSAFE, 33)}"),
    _simple("postman", ["postman api key"],
            lambda r: f"PMAK-{rs(r, HEX, 24)}-{rs(r, HEX, 34)}"),
    _simple("linear", ["linear api key"], lambda r: "lin_api_" + rs(r, ALNUM, 40)),
]


def _jwt_value(r: random.Random) -> str:
    alg = r.choice(["HS256", "HS256", "HS384", "HS512", "RS256", "ES256"])
    hdr: dict[str, Any] = {"alg": alg, "typ": "JWT"}
    if r.random() < 0.4:
        hdr["kid"] = rs(r, URLSAFE, 16)
    now = r.randint(1_600_000_000, 1_760_000_000)
    pl: dict[str, Any] = {"sub": str(uuid.UUID(int=r.getrandbits(128), version=4))
                          if r.random() < 0.5 else str(r.randint(1000, 999999)),
                          "iat": now, "exp": now + r.choice([900, 3600, 86400, 2592000])}
    if r.random() < 0.5:
        pl["iss"] = r.choice(["https://auth.brightpath.co", "api-gateway", "https://sso.kestrel"
                              "-labs.dev/realms/main", "accounts.northwind-logistics.io"])
    if r.random() < 0.5:
        pl["role"] = r.choice(["admin", "service", "reader", "authenticated"])
    if r.random() < 0.3:
        pl["scope"] = "read write"
    return make_jwt(hdr, pl, r.randbytes(32))


def _jwt_assign(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_assign", ["jwt"], [(r.choice(["access token", "jwt token", "auth token",
                                                   "id token", "service token", "bearer token",
                                                   "supabase service key", "refresh token"]), t)],
                 line=f'curl -H "Authorization: Bearer {t}" https://api.brightpath.co/v2/me')


def _jwt_header(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_header", ["jwt"], [("authorization", f"Bearer {t}")],
                 line=r.choice([f"Authorization: Bearer {t}",
                                f"> GET /api/orders HTTP/1.1\n> Authorization: Bearer {t}",
                                f"http GET :8080/api/items 'Authorization:Bearer {t}'"]),
                 line_fams=("shell", "md", "log", "text", "docker"))


def _jwt_cookie(r: random.Random) -> Plant:
    t = _jwt_value(r)
    return Plant("jwt_cookie", ["jwt"], [("session cookie", t)],
                 line=f"Set-Cookie: session={t}; Path=/; HttpOnly; Secure",
                 line_fams=("md", "log", "text"))


def _jwt_url(r: random.Random) -> Plant:
    t = _jwt_value(r)
    u = f"https://app.brightpath.co/callback?access_token={t}&token_type=bearer"
    return Plant("jwt_url", ["jwt"], [("redirect url", u)], line=f"GET {u}",
                 line_fams=("log", "text", "md"))


def _pw_field(r: random.Random) -> Plant:
    f = r.choice(["password", "db password", "database password", "passwd", "pwd", "pass",
                  "admin password", "smtp password", "redis password", "root password",
                  "mysql password", "postgres password", "PGPASSWORD", "MYSQL_ROOT_PASSWORD",
                  "secret", "user password", "ldap bind password", "keystore password",
                  "rabbitmq password", "mail password", "DB_PASS", "ftp password"])
    pw = password(r)
    pairs = [(f, pw)]
    if r.random() < 0.5:
        user = re.sub(r"(?i)pass(word|wd)?|pwd", "user", f)
        pairs.insert(0, (user if user != f else "username", r.choice(["app", "svc_backup", "deploy", "admin",
                                                    "reporting", "etl_user"])))
    return Plant("password_field", ["password"], pairs)


def _pw_url(r: random.Random) -> Plant:
    pw = rs(r, ALNUM, r.randint(12, 24)) if r.random() < 0.5 else password(r).replace("@", "")\
        .replace("#", "").replace("?", "").replace("/", "")
    scheme, port, path = r.choice([("postgresql", 5432, "/app"), ("postgres", 5432, "/orders"),
                                   ("mysql", 3306, "/shop"), ("mongodb+srv", None, "/main"),
                                   ("redis", 6379, "/0"), ("amqp", 5672, "/vhost"),
                                   ("mssql", 1433, "/crm"), ("smtp", 587, "")])
    user = r.choice(["app", "admin", "reporting", "svc", "etl", "web"])
    host = r.choice(HOSTS) + (f":{port}" if port else "")
    url = f"{scheme}://{user}:{pw}@{host}{path}"
    return Plant("password_url", ["password"], [(r.choice(["database url", "db url",
                                                           "connection string", "broker url",
                                                           "dsn", "cache url"]), url)])


def _pw_cli(r: random.Random) -> Plant:
    pw = password(r).replace("'", "")
    line = r.choice([
        f"mysql -h {r.choice(HOSTS)} -u root --password='{pw}' < dump.sql",
        f"PGPASSWORD='{pw}' psql -h {r.choice(HOSTS)} -U postgres -c 'select 1'",
        f"sshpass -p '{pw}' ssh deploy@10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
        f"docker login registry.brightpath.co -u ci --password '{pw}'",
        f"mongosh --username admin --password '{pw}' --host {r.choice(HOSTS)}",
        f"redis-cli -h {r.choice(HOSTS)} -a '{pw}' ping",
        f"curl -u admin:{pw.replace(':', '')} https://ci.kestrel-labs.dev/api/json",
        f"pg_dump --dbname=postgresql://backup:{pw.replace('@', '').replace(':', '')}@"
        f"{r.choice(HOSTS)}/app > app.sql"])
    return Plant("password_cli", ["password"], [("command", line)], line=line,
                 line_fams=("shell", "docker", "md", "log", "text", "yaml"))


def _pw_connstr(r: random.Random) -> Plant:
    pw = password(r).replace(";", "").replace("'", "").replace('"', "")
    cs = r.choice([f"Server={r.choice(HOSTS)};Database=Orders;User Id=sa;Password={pw};"
                   "TrustServerCertificate=True",
                   f"Host={r.choice(HOSTS)};Port=5432;Database=app;Username=app;Password={pw}",
                   f"Data Source={r.choice(HOSTS)};Initial Catalog=crm;User ID=crm;"
                   f"Password={pw};"])
    return Plant("password_connstr", ["password"], [("default connection", cs)])


def _email(r: random.Random) -> Plant:
    e = email(r)
    f = r.choice(["email", "contact email", "admin email", "support email", "maintainer email",
                  "owner", "notify email", "billing email", "reply to", "from address"])
    return Plant("email_field", ["email"], [(f, e)])


def _email_line(r: random.Random) -> Plant:
    name, _ = person(r)
    e = email(r)
    line = r.choice([f"Maintainer: {name} <{e}>", f"Contact {name} at {e} for access.",
                     f"Signed-off-by: {name} <{e}>", f"Questions? Write to {e}.",
                     f"Reported-by: {e}", f"INFO user login ok user={e} ip=10.2.3.4"])
    return Plant("email_line", ["email"], [("maintainer", f"{name} <{e}>")], line=line,
                 line_fams=("md", "log", "text", "shell", "docker"))


def _phone(r: random.Random) -> Plant:
    fid, fmt = r.choice(PHONE_FORMATS)
    p = fmt(r)
    f = r.choice(["phone", "phone number", "mobile", "contact phone", "tel", "support phone",
                  "emergency contact", "fax", "cell", "on call phone"])
    return Plant(f"phone_{fid}", ["phone"], [(f, p)],
                 line=r.choice([f"Call us: {p}", f"Phone: {p}", f"On-call: {p} (24/7)",
                                f"Tel. {p}", f"SMS alerts go to {p}"]),
                 line_fams=("md", "log", "text"))


def _contact(r: random.Random) -> Plant:
    name, _ = person(r)
    fid, fmt = r.choice(PHONE_FORMATS)
    return Plant("contact_card", ["email", "phone"],
                 [("contact name", name), ("contact email", email(r)), ("contact phone", fmt(r))])


def _smtp(r: random.Random) -> Plant:
    e = email(r)
    return Plant("smtp_login", ["email", "password"],
                 [("smtp user", e), ("smtp password", password(r))])


POSITIVE: dict[str, list[Callable[[random.Random], Plant]]] = {
    "api_key": API_TEMPLATES,
    "jwt": [_jwt_assign, _jwt_assign, _jwt_header, _jwt_cookie, _jwt_url],
    "password": [_pw_field, _pw_field, _pw_field, _pw_url, _pw_url, _pw_cli, _pw_connstr, _smtp],
    "email": [_email, _email, _email_line, _contact],
    "phone": [_phone, _phone, _phone, _contact],
}


def private_key_plant(r: random.Random, pool: list[tuple[str, str, str]]) -> Plant:
    kind, pem, _ = r.choice(pool)
    f = r.choice(["private key", "ssh private key", "deploy key", "tls key", "signing key",
                  "jwt private key", "server key", "client key"])
    return Plant(f"private_key_{kind}", ["private_key"], [(f, pem.strip())], pem=True)


# -- look-alikes -----------------------------------------------------------------------------------
def _la(tid: str, pairs: Callable[[random.Random], list[tuple[str, str]]],
        line: Callable[[random.Random], str] | None = None) -> Callable[[random.Random], Plant]:
    def f(r: random.Random) -> Plant:
        return Plant(f"lookalike_{tid}", [], pairs(r), line=line(r) if line else None)
    return f


def _sri(r: random.Random) -> str:
    return "sha384-" + base64.b64encode(r.randbytes(48)).decode()


TINY_PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f80f0000010100056b7b5b0000000049454e44ae426082")).decode()
EX_MAIL = ["admin@example.com", "noreply@example.org", "jane@example.net", "ops@corp.example",
           "dev@app.test", "user@host.invalid", "root@localhost", "ci@build.localhost",
           "support@mail.example.com", "alice@example.com", "test@api.test"]
PLACEHOLDERS = ["changeme", "${DB_PASSWORD}", "<password>", "****", "your-api-key-here", "xxx",
                "CHANGE_ME", "<YOUR_TOKEN>", "${SECRET_KEY}", "{{ vault_db_password }}",
                "REPLACE_ME", "xxxxxxxxxxxxxxxx", "********", "your-secret-here", "<api-key>",
                "%(db_password)s", "$DB_PASSWORD", ""]
LOOKALIKE: list[Callable[[random.Random], Plant]] = [
    _la("md5", lambda r: [(r.choice(["md5", "checksum", "etag"]), r.randbytes(16).hex())]),
    _la("sha1", lambda r: [(r.choice(["sha1", "fingerprint"]), r.randbytes(20).hex())]),
    _la("sha256", lambda r: [(r.choice(["sha256", "digest", "checksum", "image digest"]),
                              r.choice(["", "sha256:"]) + r.randbytes(32).hex())]),
    _la("git_sha", lambda r: [(r.choice(["commit", "revision", "git sha", "ref"]),
                               r.randbytes(20).hex())],
        lambda r: f"git checkout {r.randbytes(20).hex()}"),
    _la("uuid", lambda r: [(r.choice(["id", "tenant id", "request id", "client id", "uuid",
                                      "correlation id"]),
                            str(uuid.UUID(int=r.getrandbits(128), version=4)))]),
    _la("sri", lambda r: [("integrity", _sri(r))],
        lambda r: f'<script src="https://cdn.jsdelivr.net/npm/app@1.2.3/dist/app.min.js" '
                  f'integrity="{_sri(r)}" crossorigin="anonymous"></script>'),
    _la("placeholder_pw", lambda r: [(r.choice(["password", "db password", "passwd",
                                                "admin password", "secret"]),
                                      r.choice(PLACEHOLDERS))]),
    _la("placeholder_key", lambda r: [(r.choice(["api key", "access token", "stripe secret key",
                                                 "openai api key", "auth token"]),
                                       r.choice(PLACEHOLDERS))]),
    _la("env_ref", lambda r: [(r.choice(["password", "api key", "secret"]), r.choice([
        'os.environ["DB_PASSWORD"]', "process.env.API_KEY", "$DB_PASSWORD",
        'System.getenv("DB_PASSWORD")', 'ENV["SECRET_KEY_BASE"]', "getenv('DB_PASSWORD')",
        'Environment.GetEnvironmentVariable("ApiKey")', 'std::env::var("API_KEY")',
        'os.Getenv("API_TOKEN")', "${env.DB_PASSWORD}", "${{ secrets.DEPLOY_TOKEN }}"]))]),
    _la("example_email", lambda r: [(r.choice(["email", "admin email", "from address",
                                               "contact"]), r.choice(EX_MAIL))],
        lambda r: f"Maintainer: Jane Doe <{r.choice(EX_MAIL)}>"),
    _la("version", lambda r: [(r.choice(["version", "image tag", "min version"]), r.choice([
        f"{r.randint(0, 9)}.{r.randint(0, 40)}.{r.randint(0, 20)}",
        f"v{r.randint(1, 5)}.{r.randint(0, 9)}.0-rc.{r.randint(1, 4)}",
        f"{r.randint(2019, 2025)}.{r.randint(1, 12)}.{r.randint(1, 9)}"]))]),
    _la("date", lambda r: [(r.choice(["released", "date", "expires at", "updated"]), r.choice([
        f"{r.randint(2015, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
        f"{r.randint(1, 28):02d}/{r.randint(1, 12):02d}/{r.randint(2015, 2026)}",
        f"{r.randint(2015, 2026)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T"
        f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00Z"]))]),
    _la("ip", lambda r: [(r.choice(["host", "bind address", "server ip", "gateway"]), r.choice([
        f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
        f"192.168.{r.randint(0, 255)}.{r.randint(1, 254)}", "2001:db8::" + rs(r, HEX, 4),
        f"172.{r.randint(16, 31)}.{r.randint(0, 255)}.{r.randint(1, 254)}:8080"]))]),
    _la("base64_image", lambda r: [("icon", "data:image/png;base64," + TINY_PNG)]),
    _la("aws_example", lambda r: [("aws access key id", "AKIAIOSFODNN7EXAMPLE"),
                                  ("aws secret access key",
                                   "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")]),
    _la("pw_setting", lambda r: [(r.choice(["password min length", "password max age",
                                            "password reset url", "password hash algorithm"]),
                                  r.choice(["12", "90", "/account/reset", "argon2id"]))]),
    _la("key_header_name", lambda r: [(r.choice(["api key header", "token header"]),
                                       r.choice(["X-API-Key", "Authorization"]))]),
    _la("order_number", lambda r: [(r.choice(["order id", "build number", "port"]),
                                    str(r.randint(1000, 99999)))]),
]


def public_key_plant(r: random.Random, pool: list[tuple[str, str, str]]) -> Plant:
    kind, _, pub = r.choice(pool)
    pub = pub.strip()
    return Plant(f"lookalike_public_key_{'ssh' if pub.startswith(('ssh-', 'ecdsa-')) else 'pem'}",
                 [], [(r.choice(["public key", "authorized key", "verify key"]), pub)],
                 pem="\n" in pub)


# -- rendering -------------------------------------------------------------------------------------
def _q(v: str) -> str:
    return json.dumps(v)[1:-1]


def _xml(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_pair(fam: str, name: str, v: str, pem: bool, rng: random.Random) -> list[str]:
    """One field = value in the syntax of ``fam`` (lines; a PEM value keeps its line breaks)."""
    ml = v.split("\n")
    if fam == "yaml":
        if pem:
            return [f"{name}: |"] + [f"  {x}" for x in ml]
        return [f"{name}: {json.dumps(v) if rng.random() < 0.5 or ': ' in v or v[:1] in '*&!%@`{[' else v}"]
    if fam == "ini":
        return [f"{name} =", *[f"    {x}" for x in ml]] if pem else [f"{name} = {v}"]
    if fam == "env":
        if pem:
            return [f'{name}="{v}"'] if rng.random() < 0.5 else [f'{name}="{_q(v)}"']
        return [f'{name}="{v}"' if rng.random() < 0.4 or " " in v or ";" in v else f"{name}={v}"]
    if fam == "toml":
        return [f'{name} = """', *ml, '"""'] if pem else [f'{name} = "{_q(v)}"']
    if fam == "json":
        return [f'  "{name}": "{_q(v)}",']
    if fam == "xml":
        if pem:
            return [f"  <{name}>", *ml, f"  </{name}>"]
        if rng.random() < 0.3:
            return [f'  <add key="{name[:1].upper() + name[1:]}" value="{_xml(v)}" />']
        return [f"  <{name}>{_xml(v)}</{name}>"]
    if fam == "properties":
        return [f"{name}={_q(v)}"] if pem else [f"{name}={v}" if rng.random() < 0.6
                                                else f"{name} = {v}"]
    if fam == "csv":
        return ['"' + name + '","' + v.replace('"', '""') + '"']
    if fam == "shell":
        if pem:
            return [f"cat > /etc/ssl/private/{name.lower()}.pem <<'EOF'", *ml, "EOF"]
        return [f"export {name}='{v}'" if rng.random() < 0.5 else f'{name}="{_q(v)}"']
    if fam == "docker":
        if pem:
            return [f"COPY <<EOF /run/secrets/{name.lower()}", *ml, "EOF"]
        return [f"{rng.choice(['ENV', 'ARG'])} {name}={json.dumps(v) if ' ' in v else v}"]
    if fam == "python":
        if pem:
            return [f'{name} = """\\', *ml, '"""']
        return [f"{name} = {json.dumps(v) if rng.random() < 0.5 else repr(v)}"]
    if fam in ("js", "ts"):
        if pem:
            return [f"const {name} = `{ml[0]}", *ml[1:], "`;"]
        t = ": string" if fam == "ts" else ""
        return [f"{rng.choice(['const', 'export const'])} {name}{t} = {json.dumps(v)};"]
    if fam == "go":
        return [f"const {name} = `{ml[0]}", *ml[1:], "`"] if pem else \
            [f"const {name} = {json.dumps(v)}"]
    if fam == "java":
        if pem:
            return [f'    static final String {name} = """', *[f"        {x}" for x in ml],
                    '        """;']
        return [f"    private static final String {name} = {json.dumps(v)};"]
    if fam == "kotlin":
        if pem:
            return [f'val {name} = """', *ml, '""".trimIndent()']
        return [f"{'const val' if name.isupper() else 'val'} {name} = {json.dumps(v)}"]
    if fam == "rust":
        return [f'const {name.upper()}: &str = r"{ml[0]}', *ml[1:], '";'] if pem else \
            [f"const {name.upper()}: &str = {json.dumps(v)};"]
    if fam == "ruby":
        if pem:
            return [f"{name.upper()} = <<~PEM", *[f"  {x}" for x in ml], "PEM"]
        return [f"{name} = {json.dumps(v)}" if rng.random() < 0.5 else
                f"ENV[{json.dumps(name.upper())}] ||= {json.dumps(v)}"]
    if fam == "php":
        if pem:
            return [f"${name.lower()} = <<<'PEM'", *ml, "PEM;"]
        lit = f"'{v}'" if "'" not in v and "\\" not in v else json.dumps(v).replace("$", "\\$")
        if rng.random() < 0.5:
            return [f"define('{name.upper()}', {lit});"]
        var = name if name.isupper() else name[:1].lower() + name[1:]
        return [f"${var} = {lit};"]
    if fam == "csharp":
        if pem:
            return [f'        private const string {name} = @"{ml[0]}', *ml[1:], '";']
        return [f"        private const string {name} = {json.dumps(v)};"]
    if fam == "c":
        if pem:
            return [f"static const char *{name.lower()} ="] + \
                [f'    "{x}\\n"' for x in ml[:-1]] + [f'    "{ml[-1]}\\n";']
        return [f"#define {name} {json.dumps(v)}"]
    if fam == "sql":
        if re.search(r"(?i)(pass(word|wd)?|pwd)$", name) and not pem:
            return [rng.choice([f"ALTER USER app WITH PASSWORD '{v}';",
                                f"CREATE USER 'app'@'%' IDENTIFIED BY '{v}';"])]
        return [f"INSERT INTO settings (name, value) VALUES ('{name}', '{v}');"]
    if fam == "hcl":
        if pem:
            return ["locals {", f"  {name} = <<-EOT", *[f"    {x}" for x in ml], "  EOT", "}"]
        if rng.random() < 0.5:
            return [f'variable "{name}" {{', f'  default   = "{_q(v)}"', "  sensitive = true", "}"]
        return ["locals {", f'  {name} = "{_q(v)}"', "}"]
    if fam == "html":
        if pem:
            return ["<pre>", *ml, "</pre>"]
        if "@" in v and " " not in v and "://" not in v:
            return [f'<p>{name}: <a href="mailto:{v}">{v}</a></p>']
        return [f'<meta name="{name}" content="{_xml(v)}">'] if rng.random() < 0.5 else \
            [f"<!-- {name}: {v} -->"]
    if fam == "css":
        return ["/*", f"  {name}:", *[f"  {x}" for x in ml], "*/"] if pem else \
            [f"/* {name}: {v} */"]
    if fam == "md":
        if pem:
            return ["```", *ml, "```"]
        return [rng.choice([f"- **{name}**: `{v}`", f"{name}: {v}", f"| {name} | `{v}` |"])]
    if fam == "log":
        ts = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} " \
             f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        if pem:
            return [f"{ts} DEBUG loaded {name}:", *ml]
        lvl = rng.choice(["DEBUG", "INFO", "WARN"])
        comp = rng.choice(["config", "auth", "http", "main"])
        return [f"{ts} {lvl} [{comp}] {name}={v}"]
    # text
    return [f"{name}:", *ml] if pem else [f"{name}: {v}"]


def render(plant: Plant, fam: str, rng: random.Random) -> str:
    if plant.line is not None and fam in plant.line_fams and (not plant.pairs or
                                                              rng.random() < 0.6):
        line = plant.line
        if fam == "docker":
            line = "RUN " + line.replace("\n", " \\\n    ")
        elif fam == "md":
            line = "```\n" + line + "\n```" if rng.random() < 0.6 else line
        elif fam == "yaml":
            line = f"command: {json.dumps(line)}"
        return line
    out: list[str] = []
    for name, v in plant.pairs:
        out += render_pair(fam, style(name, fam, rng), v, plant.pem, rng)
    if fam == "md" and not plant.pem and rng.random() < 0.5:
        out = ["```", *out, "```"] if out[0][:1] not in "-|" else out
    return "\n".join(out)


def wrap_tail(fam: str, body: str, rng: random.Random) -> str:
    """A tail insertion that must live inside a class (Java, C#)."""
    name = rng.choice(["Secrets", "Credentials", "LocalConfig", "DevSettings"])
    if fam == "java":
        return f"final class {name} {{\n{body}\n}}"
    if fam == "csharp":
        return f"internal static class {name}\n{{\n{body}\n}}"
    return body


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


# -- hosts -----------------------------------------------------------------------------------------
@dataclass
class Host:
    producer: str
    project: str | None
    licence: str
    commit: str
    path: str
    fam: str
    text: str


def load_recipe(path: Path = RECIPE) -> dict[str, Any]:
    return json.loads(path.read_text())


def _files(m: Mirror, commit: str, paths: list[str]) -> list[tuple[str, str, int]]:
    """``Mirror.files``, skipping blobs a partial mirror lacks (``ls-tree -l`` says ``BAD``)."""
    try:
        return m.files(commit, paths)
    except ValueError:
        pass
    out = m._git("ls-tree", "-r", "-l", "-z", commit, "--", *paths)
    rows = []
    for item in out.split(b"\0"):
        meta, _, name = item.partition(b"\t")
        parts = meta.split()
        if len(parts) == 4 and parts[1] == b"blob" and parts[3].isdigit() and \
                parts[0] in (b"100644", b"100755"):
            rows.append((name.decode("utf-8", "replace"), parts[2].decode(), int(parts[3])))
    return rows


def read_hosts(entry: dict[str, Any], mirrors: Path) -> list[Host]:
    """The screened host files of one recipe entry (text, known family, nothing sensitive)."""
    m = open_mirror(mirrors, entry["repo"])
    commit = m.resolve(entry["commit"])
    rows = [(p, oid) for p, oid, size in _files(m, commit, entry.get("paths") or [])
            if MIN_HOST <= size <= MAX_HOST and family_of(p)]
    by_oid = dict(m.read([oid for _, oid in rows]))
    out = []
    for p, oid in rows:
        data = by_oid[oid]
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\r" in text or detect(text):
            continue
        out.append(Host(f"git:{entry['repo']}", entry.get("project"), entry["licence"], commit,
                        p, family_of(p) or "text", text))
    return out


def _spread(hosts: list[Host], rng: random.Random) -> list[Host]:
    """Hosts ordered round-robin over families, so one repository's samples vary in syntax."""
    fams: dict[str, list[Host]] = defaultdict(list)
    for h in hosts:
        fams[h.fam].append(h)
    for v in fams.values():
        rng.shuffle(v)
    order = sorted(fams)
    rng.shuffle(order)
    out: list[Host] = []
    while any(fams.values()):
        for f in order:
            if fams[f]:
                out.append(fams[f].pop())
    return out


def build(suite: Path, *, cache: Path, mirrors: Path, recipe: Path = RECIPE) -> Path:
    """Write ``.stages/risk.jsonl`` (and blobs) of the risk part of the wild suite."""
    t0 = time.time()
    rec = load_recipe(recipe)
    quota = {"positive": 30, "lookalike": 11, "clean": 4, "tiny": 2, **rec.get("per_producer", {})}
    pool = key_pool(cache)
    w = StageWriter(suite, "risk")
    counts: Counter[str] = Counter()

    def add(data: bytes, label: list[str], h: Host | None, kind: str, template: str,
            planted: str | None = None, where: str | None = None,
            producer: str | None = None) -> bool:
        extra: dict[str, Any] = {"template": template}
        if planted is not None:
            extra["planted"] = planted
            extra["where"] = where
        if h is None:
            r = w.add(data, label, producer=producer or "wild:risk-tiny", licence="CC0-1.0",
                      path="", version=None, kind=kind, **extra)
        else:
            r = w.add(data, sorted(label), producer=h.producer, licence=h.licence, path=h.path,
                      version=h.commit, project=h.project, kind=kind, family=h.fam, **extra)
        if r is not None:
            counts[kind] += 1
            for f in label:
                counts["flag:" + f] += 1
        return r is not None

    for entry in rec["hosts"]:
        try:
            hosts = read_hosts(entry, mirrors)
        except MirrorError as e:
            log.warning("risk: skipping %s: %s", entry["repo"], e)
            w.skip(f"git:{entry['repo']}", str(e))
            continue
        if not hosts:
            log.warning("risk: %s has no usable host file", entry["repo"])
            w.skip(f"git:{entry['repo']}", "no usable host file")
            continue
        r = random.Random(f"{rec.get('seed')}:{entry['repo']}")
        order = _spread(hosts, r)
        cycle = itertools.cycle(order)

        # positives: flags dealt round-robin, so every repository carries every flag
        done, tries = 0, 0
        while done < quota["positive"] and tries < quota["positive"] * 6:
            flag = FLAGS[done % len(FLAGS)]
            tries += 1
            h = next(cycle)
            p = private_key_plant(r, pool) if flag == "private_key" else \
                r.choice(POSITIVE[flag])(r)
            where = "head" if (p.pem and "rsa" in p.template) or r.random() < 0.55 else "tail"
            got = plant_into(h.text, h.fam, p, r, where)
            if got is None:
                continue
            text, snippet, where = got
            if add(text.encode(), p.flags, h, "positive", f"{p.template}/{h.fam}", snippet,
                   where):
                done += 1
        # look-alikes
        done, tries = 0, 0
        while done < quota["lookalike"] and tries < quota["lookalike"] * 6:
            tries += 1
            h = next(cycle)
            p = public_key_plant(r, pool) if r.random() < 0.08 else r.choice(LOOKALIKE)(r)
            got = plant_into(h.text, h.fam, p, r, "head" if r.random() < 0.55 else "tail")
            if got is None:
                continue
            text, snippet, where = got
            if detect(text):
                continue  # the look-alike met something that reads as a secret: skip
            if add(text.encode(), [], h, "lookalike", f"{p.template}/{h.fam}", snippet, where):
                done += 1
        # clean hosts, unmodified
        done = 0
        for h in order[::-1]:
            if done >= quota["clean"]:
                break
            if add(h.text.encode(), [], h, "clean", f"clean/{h.fam}"):
                done += 1
        # tiny prefixes of host files
        done = 0
        for h in order:
            if done >= quota["tiny"]:
                break
            n = r.randint(1, 16)
            b = h.text.encode()[:n]
            if detect(b.decode("utf-8", "replace")):
                continue
            if add(b, [], h, "tiny", "tiny/prefix"):
                done += 1
        log.info("risk: %s: %d hosts", entry["repo"], len(hosts))

    trng = random.Random(f"{rec.get('seed')}:tiny")
    for i, (b, lab, tid) in enumerate(tiny_inputs(trng, 120)):
        add(b, lab, None, "tiny", tid, producer=f"wild:risk-tiny-{'ab'[i % 2]}")
    out = w.close()
    log.info("risk: %d samples in %.1fs: %s", len(w.records), time.time() - t0, dict(counts))
    return out
