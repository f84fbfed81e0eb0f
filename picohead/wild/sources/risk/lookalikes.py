"""Look-alikes: values that resemble secrets but are not (label ``[]``).

Hashes, UUIDs, SRI, placeholders, environment references, RFC 2606/6761 e-mail domains, versions,
dates, IPs, base64 images and AWS's documented example key. What it does not do: check that a
planted look-alike stays clean (the build screens the planted file and skips it when not); public
keys come from ``keys.public_key_plant``.
"""

from __future__ import annotations

import base64
import random
import uuid
from collections.abc import Callable

from picohead.wild.sources.risk.render import Plant
from picohead.wild.sources.risk.values import HEX, rs


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
