"""Provider token shapes: base62 and CRC32 checksums, JWT signing, E.164, the ``api_key`` templates.

Tokens follow the providers' published shapes (GitHub's and npm's CRC32 base62 checksum included);
JWTs are HMAC-signed with ``hmac``. What it does not do: check a token against a provider (nothing
here uses the network) or template JWTs, passwords, e-mails and phones (``positives``).
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

from picohead.wild.sources.risk.render import Plant
from picohead.wild.sources.risk.values import ALNUM, B32, B62, HEX, URLSAFE, WORDS, digits, rs


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
