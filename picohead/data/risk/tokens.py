"""Provider API-token formats: one table (``FORMATS``) that both makes fresh tokens and detects them.

Each ``TokenFormat`` names a provider's token as its public documentation (or the token itself, where
the prefix is self-describing) gives it: the fixed prefix, the body's alphabet and length, and a
checksum where one is documented (GitHub and npm: base62 CRC32 of the body). Its ``pattern`` finds
the token in text with a ``body`` group, the random part a training-time refresh redraws (the
prefix and any fixed inner marker stay). A format with ``named`` is found only after a field name
that says what it is (an AWS secret access key is 40 characters of base64 with no prefix).
``EXAMPLE_KEYS``: published documentation values, never flagged. Not here: passwords (see
``passwords``), where a token is written in a file (``place``), look-alikes (``negatives``).
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from picohead.data.risk.common import ALNUM, B64, B64URL, HEX, b64url, checksummed, crc_b62, rand

_L = rb"(?<![A-Za-z0-9_-])"  # token start: not inside a longer word or token
_R = rb"(?![A-Za-z0-9_-])"  # token end
UPPER_B32 = string.ascii_uppercase + "234567"


@dataclass(frozen=True)
class TokenFormat:
    name: str  # provider and kind, e.g. "github_pat_classic"
    var: str  # the environment variable such a token usually sits in
    make: Callable[[random.Random], str]
    pattern: bytes  # with a (?P<body>...) group: the part a refresh redraws
    checksum: bool = False  # body ends with a base62 CRC32 (6 chars) of the 30 chars before it
    named: bool = False  # only detected after a field name saying what it is

    @property
    def regex(self) -> re.Pattern[bytes]:
        return _compiled(self.pattern)


_CACHE: dict[bytes, re.Pattern[bytes]] = {}


def _compiled(p: bytes) -> re.Pattern[bytes]:
    if p not in _CACHE:
        _CACHE[p] = re.compile(p)
    return _CACHE[p]


def _digits(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randrange(lo, hi + 1)
    return str(rng.randrange(1, 10)) + rand(rng, n - 1, string.digits)


def _slack_bot(rng: random.Random) -> str:
    return f"xoxb-{_digits(rng, 10, 13)}-{_digits(rng, 10, 13)}-{rand(rng, 24)}"


def _slack_user(rng: random.Random) -> str:
    return (f"xoxp-{_digits(rng, 10, 13)}-{_digits(rng, 10, 13)}-{_digits(rng, 10, 13)}-"
            f"{rand(rng, 32, HEX)}")


def _slack_app(rng: random.Random) -> str:
    return f"xapp-1-A{rand(rng, 10, UPPER_B32)}-{_digits(rng, 12, 13)}-{rand(rng, 64, HEX)}"


def _slack_webhook(rng: random.Random) -> str:
    cap = string.ascii_uppercase + string.digits
    return (f"https://hooks.slack.com/services/T{rand(rng, rng.choice([8, 10]), cap)}/"
            f"B{rand(rng, rng.choice([8, 10]), cap)}/{rand(rng, 24)}")


def _pypi(rng: random.Random) -> str:
    # A PyPI API token is "pypi-" + a base64url macaroon whose location field is "pypi.org".
    mac = b"\x02\x01\x08pypi.org\x02" + bytes(rng.randrange(256) for _ in range(rng.randrange(120, 160)))
    return "pypi-" + b64url(mac)


def _discord(rng: random.Random) -> str:
    uid = str(rng.randrange(10**17, 10**19)).encode()
    return f"{b64url(uid)}.{rand(rng, 6, B64URL)}.{rand(rng, 27, B64URL)}"


def _anthropic(rng: random.Random) -> str:
    return f"sk-ant-api03-{rand(rng, 93, B64URL)}AA"


def _openai_legacy(rng: random.Random) -> str:
    return f"sk-{rand(rng, 20)}T3BlbkFJ{rand(rng, 20)}"


def _azure_storage(rng: random.Random) -> str:
    account = rand(rng, rng.randrange(6, 16), string.ascii_lowercase + string.digits)
    key = rand(rng, 86, B64) + "=="
    return (f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={key};"
            "EndpointSuffix=core.windows.net")


def _azure_bus(rng: random.Random) -> str:
    ns = rand(rng, rng.randrange(6, 14), string.ascii_lowercase)
    return (f"Endpoint=sb://{ns}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            f"SharedAccessKey={rand(rng, 43, B64)}=")


def _f(name: str, var: str, make: Callable[[random.Random], str], pattern: bytes, **kw: bool) -> TokenFormat:
    return TokenFormat(name, var, make, pattern, **kw)


FORMATS: tuple[TokenFormat, ...] = (
    _f("aws_access_key", "AWS_ACCESS_KEY_ID", lambda r: "AKIA" + rand(r, 16, UPPER_B32),
       _L + rb"AKIA(?P<body>[0-9A-Z]{16})" + _R),
    _f("aws_session_key", "AWS_ACCESS_KEY_ID", lambda r: "ASIA" + rand(r, 16, UPPER_B32),
       _L + rb"ASIA(?P<body>[0-9A-Z]{16})" + _R),
    _f("aws_secret_key", "AWS_SECRET_ACCESS_KEY", lambda r: rand(r, 40, B64),
       rb"(?i:aws[_ ]?secret[_ ]?access[_ ]?key|secret[_ ]?access[_ ]?key|aws[_ ]?secret[_ ]?key)[\"']?"
       rb"(?:[ \t]*:[ \t]*&?[A-Za-z_]\w*(?=[ \t]*=))?\s*(?::=|=>|[:=,>])\s*"
       rb"[\"']?(?P<body>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", named=True),
    _f("github_classic", "GITHUB_TOKEN", lambda r: checksummed(r, r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])),
       _L + rb"gh[pousr]_(?P<body>[A-Za-z0-9]{36})" + _R, checksum=True),
    _f("github_fine_grained", "GITHUB_TOKEN", lambda r: f"github_pat_{rand(r, 22)}_{rand(r, 59)}",
       _L + rb"github_pat_(?P<body>[A-Za-z0-9_]{60,})" + _R),
    _f("gitlab_pat", "GITLAB_TOKEN", lambda r: "glpat-" + rand(r, 20, B64URL),
       _L + rb"glpat-(?P<body>[A-Za-z0-9_-]{20,})" + _R),
    _f("gitlab_runner", "CI_RUNNER_TOKEN", lambda r: "glrt-" + rand(r, 20, B64URL),
       _L + rb"glrt-(?P<body>[A-Za-z0-9_-]{20,})" + _R),
    _f("slack_bot", "SLACK_BOT_TOKEN", _slack_bot,
       _L + rb"xox[baprs]-(?P<body>[0-9A-Za-z-]{20,})" + _R),
    _f("slack_user", "SLACK_USER_TOKEN", _slack_user, _L + rb"xox[baprs]-(?P<body>[0-9A-Za-z-]{20,})" + _R),
    _f("slack_app", "SLACK_APP_TOKEN", _slack_app, _L + rb"xapp-(?P<body>\d-[A-Z0-9]{9,12}-\d{10,14}-[a-f0-9]{64})" + _R),
    _f("slack_webhook", "SLACK_WEBHOOK_URL", _slack_webhook,
       rb"https://hooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/(?P<body>[A-Za-z0-9]{24})(?![A-Za-z0-9])"),
    _f("stripe_secret", "STRIPE_SECRET_KEY", lambda r: "sk_live_" + rand(r, r.choice([24, 34, 99])),
       _L + rb"sk_live_(?P<body>[A-Za-z0-9]{24,})" + _R),
    _f("stripe_restricted", "STRIPE_RESTRICTED_KEY", lambda r: "rk_live_" + rand(r, r.choice([24, 34, 99])),
       _L + rb"rk_live_(?P<body>[A-Za-z0-9]{24,})" + _R),
    _f("stripe_publishable", "STRIPE_PUBLISHABLE_KEY", lambda r: "pk_live_" + rand(r, r.choice([24, 34, 99])),
       _L + rb"pk_live_(?P<body>[A-Za-z0-9]{24,})" + _R),
    _f("google_api", "GOOGLE_API_KEY", lambda r: "AIza" + rand(r, 35, B64URL),
       _L + rb"AIza(?P<body>[0-9A-Za-z_-]{35})" + _R),
    _f("openai_project", "OPENAI_API_KEY", lambda r: "sk-proj-" + rand(r, r.choice([48, 64, 156]), B64URL),
       _L + rb"sk-(?:proj|svcacct|admin)-(?P<body>[A-Za-z0-9_-]{40,})" + _R),
    _f("openai_legacy", "OPENAI_API_KEY", _openai_legacy,
       _L + rb"sk-(?P<body>[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48})" + _R),
    _f("anthropic", "ANTHROPIC_API_KEY", _anthropic,
       _L + rb"sk-ant-(?:api|admin)\d\d-(?P<body>[A-Za-z0-9_-]{80,})" + _R),
    _f("npm", "NPM_TOKEN", lambda r: checksummed(r, "npm_"), _L + rb"npm_(?P<body>[A-Za-z0-9]{36})" + _R,
       checksum=True),
    _f("pypi", "PYPI_TOKEN", _pypi, _L + rb"pypi-AgEIcHlwaS5vcmc(?P<body>[A-Za-z0-9_-]{50,})" + _R),
    _f("twilio_api_key", "TWILIO_API_KEY", lambda r: "SK" + rand(r, 32, HEX),
       rb"(?<![A-Za-z0-9])SK(?P<body>[0-9a-f]{32})(?![A-Za-z0-9])"),
    _f("twilio_account_sid", "TWILIO_ACCOUNT_SID", lambda r: "AC" + rand(r, 32, HEX),
       rb"(?<![A-Za-z0-9])AC(?P<body>[0-9a-f]{32})(?![A-Za-z0-9])"),
    _f("sendgrid", "SENDGRID_API_KEY", lambda r: f"SG.{rand(r, 22, B64URL)}.{rand(r, 43, B64URL)}",
       _L + rb"SG\.(?P<body>[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})" + _R),
    _f("mailgun", "MAILGUN_API_KEY", lambda r: "key-" + rand(r, 32, HEX),
       _L + rb"key-(?P<body>[0-9a-f]{32})" + _R),
    _f("shopify", "SHOPIFY_ACCESS_TOKEN", lambda r: r.choice(["shpat_", "shpss_", "shpca_", "shppa_"]) + rand(r, 32, HEX),
       _L + rb"shp(?:at|ss|ca|pa)_(?P<body>[a-fA-F0-9]{32})" + _R),
    _f("digitalocean", "DIGITALOCEAN_TOKEN", lambda r: r.choice(["dop_v1_", "doo_v1_", "dor_v1_"]) + rand(r, 64, HEX),
       _L + rb"do[por]_v1_(?P<body>[a-f0-9]{64})" + _R),
    _f("huggingface", "HF_TOKEN", lambda r: "hf_" + rand(r, 34, string.ascii_letters),
       _L + rb"hf_(?P<body>(?=[A-Za-z]*[A-Z])(?=[A-Za-z]*[a-z])[A-Za-z]{34})" + _R),
    _f("azure_storage", "AZURE_STORAGE_CONNECTION_STRING", _azure_storage,
       rb"AccountKey=(?P<body>[A-Za-z0-9+/]{86}==)"),
    _f("azure_service_bus", "SERVICEBUS_CONNECTION_STRING", _azure_bus,
       rb"SharedAccessKey=(?P<body>[A-Za-z0-9+/]{43}=)"),
    _f("discord_bot", "DISCORD_BOT_TOKEN", _discord,
       _L + rb"[MNO](?P<body>[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})" + _R),
    _f("telegram_bot", "TELEGRAM_BOT_TOKEN", lambda r: f"{_digits(r, 8, 10)}:AA{rand(r, 33, B64URL)}",
       rb"(?<![0-9A-Za-z])\d{8,10}:AA(?P<body>[A-Za-z0-9_-]{33})" + _R),
    _f("square_access", "SQUARE_ACCESS_TOKEN", lambda r: "EAAA" + rand(r, 60, B64URL),
       _L + rb"EAAA(?P<body>[A-Za-z0-9_-]{60})" + _R),
    _f("square_legacy", "SQUARE_ACCESS_TOKEN", lambda r: "sq0atp-" + rand(r, 22, B64URL),
       _L + rb"sq0atp-(?P<body>[A-Za-z0-9_-]{22})" + _R),
    _f("square_secret", "SQUARE_APPLICATION_SECRET", lambda r: "sq0csp-" + rand(r, 43, B64URL),
       _L + rb"sq0csp-(?P<body>[A-Za-z0-9_-]{43})" + _R),
    # Further documented formats (provider docs and secret-scanning partner patterns), 2026-12
    _f("heroku", "HEROKU_API_KEY", lambda r: "HRKU-AA" + rand(r, 58, B64URL),
       _L + rb"HRKU-AA(?P<body>[A-Za-z0-9_-]{58})" + _R),
    _f("databricks", "DATABRICKS_TOKEN", lambda r: "dapi" + rand(r, 32, HEX) + r.choice(["", "-2", "-3"]),
       _L + rb"dapi(?P<body>[a-f0-9]{32})(?:-\d)?" + _R),
    _f("postman", "POSTMAN_API_KEY", lambda r: f"PMAK-{rand(r, 24, HEX)}-{rand(r, 34, HEX)}",
       _L + rb"PMAK-(?P<body>[a-f0-9]{24}-[a-f0-9]{34})" + _R),
    _f("linear", "LINEAR_API_KEY", lambda r: "lin_api_" + rand(r, 40),
       _L + rb"lin_api_(?P<body>[A-Za-z0-9]{40})" + _R),
    _f("grafana_service_account", "GRAFANA_TOKEN", lambda r: f"glsa_{rand(r, 32)}_{rand(r, 8, HEX)}",
       _L + rb"glsa_(?P<body>[A-Za-z0-9]{32}_[a-f0-9]{8})" + _R),
    _f("gitlab_deploy", "GITLAB_DEPLOY_TOKEN", lambda r: "gldt-" + rand(r, 20, B64URL),
       _L + rb"gldt-(?P<body>[A-Za-z0-9_-]{20,})" + _R),
    _f("sentry_user", "SENTRY_AUTH_TOKEN", lambda r: "sntryu_" + rand(r, 64, HEX),
       _L + rb"sntryu_(?P<body>[a-f0-9]{64})" + _R),
    _f("doppler", "DOPPLER_TOKEN", lambda r: r.choice(["dp.pt.", "dp.st.", "dp.sa."]) + rand(r, 43),
       _L + rb"dp\.(?:pt|st|sa|ct)\.(?P<body>[A-Za-z0-9]{40,44})" + _R),
    _f("new_relic_user", "NEW_RELIC_API_KEY", lambda r: "NRAK-" + rand(r, 27, string.ascii_uppercase + string.digits),
       _L + rb"NRAK-(?P<body>[A-Z0-9]{27})" + _R),
    _f("pulumi", "PULUMI_ACCESS_TOKEN", lambda r: "pul-" + rand(r, 40, HEX),
       _L + rb"pul-(?P<body>[a-f0-9]{40})" + _R),
)
BY_NAME = {f.name: f for f in FORMATS}
# Published example values (AWS documentation's access key and secret): not flagged.
EXAMPLE_KEYS = (b"AKIAIOSFODNN7EXAMPLE", b"EXAMPLE")
# Share of each format among generated API keys: AWS and GitHub most common in real leaks.
WEIGHTS = {f.name: 3 if f.name in ("aws_access_key", "github_classic") else 1 for f in FORMATS}


def api_key(rng: random.Random) -> tuple[str, str]:
    """(variable name, fresh token) of a random provider format."""
    fmt = rng.choices(FORMATS, weights=[WEIGHTS[f.name] for f in FORMATS])[0]
    return fmt.var, fmt.make(rng)


def make(name: str, rng: random.Random) -> tuple[str, str]:
    """(variable name, fresh token) of the format called ``name``."""
    fmt = BY_NAME[name]
    return fmt.var, fmt.make(rng)


def _random_like(body: bytes) -> bool:
    """A body of random characters, not a mask or a word: a digit, both cases, or (16 or more
    characters long) at least 8 distinct characters (``XXXX…`` and ``xxxx…`` are masks)."""
    if any(48 <= c <= 57 for c in body) or (body.lower() != body and body.upper() != body):
        return True
    return len(body) >= 16 and len(set(body)) >= 8


def find(w: bytes) -> list[tuple[TokenFormat, int, int]]:
    """Every token of a known format in ``w``: (format, body start, body end); example keys and
    bodies that are not random (``key-`` + a word, ``sk-`` + an identifier) are left out."""
    out = []
    taken: set[int] = set()
    for fmt in FORMATS:
        for m in fmt.regex.finditer(w):
            if m.start("body") in taken or any(e in m.group(0) for e in EXAMPLE_KEYS):
                continue
            if not _random_like(m.group("body")):
                continue
            taken.add(m.start("body"))
            out.append((fmt, m.start("body"), m.end("body")))
    return out


def refresh_body(fmt: TokenFormat, body: bytes, rng: random.Random, scramble: Callable[[bytes], bytes]) -> bytes:
    """A fresh body for a token of ``fmt`` (same length and shape): checksummed formats get a new
    30-character body and its checksum, the others ``scramble`` (class-keeping redraw)."""
    if fmt.checksum and len(body) == 36:
        fresh = rand(rng, 30)
        return (fresh + crc_b62(fresh)).encode()
    return scramble(body)


def is_token(value: bytes) -> bool:
    """Whether ``value`` holds a token of a known format (then it is an API key, not a password)."""
    return bool(find(value))


__all__ = ["ALNUM", "EXAMPLE_KEYS", "FORMATS", "TokenFormat", "api_key", "find", "is_token", "make"]
