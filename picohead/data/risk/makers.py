"""Generators of the flags that are not tokens or passwords (HMAC-signed JWTs, PEM/OpenSSH private
keys, e-mail addresses) and ``MAKERS``, the one table from flag to generator the corpus build and
the training planter draw from. Not here: detection (``detect``) and placement (``place``)."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections.abc import Callable
from typing import Any

from picohead.data.risk import passwords, phones, tokens
from picohead.data.risk.common import ALNUM, DOMAINS, FIRST, LAST, RISKS, b64url, rand

# JWT headers as issuers write them: HMAC and elliptic-curve algorithms, a key id most of the time
# (Auth0, Google, Azure AD, Keycloak), the type often left out. Every JWT the corpus had was
# {"alg": "HS*", "typ": "JWT"}: content-v11rc1's small and base, trained on it, found none of
# wild-dev's 38 JWTs whose header has a kid and all 62 without one (content-v9rc1, trained on
# the same, found both).
# RSA's 342-character signatures are left out: with a key id such a token often exceeds a
# quarter of a training window, the most the training planter writes into one (plant_secret)
_HMAC = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}
_SIG_BYTES = {"ES256": 64, "ES384": 96, "EdDSA": 64}  # the others are HMACs, computed


def jwt(rng: random.Random) -> tuple[str, str]:
    alg = rng.choice([*_HMAC, *_SIG_BYTES])
    header: dict[str, Any] = {"alg": alg}
    if rng.random() < 0.8:
        header["typ"] = rng.choice(["JWT", "JWT", "JWT", "jwt", "at+jwt"])
    if rng.random() < 0.6:  # key ids: random base64url, UUIDs, thumbprints, names
        header["kid"] = rng.choice([
            rand(rng, rng.randrange(8, 44), ALNUM + "-_"),
            "-".join(rand(rng, n, "0123456789abcdef") for n in (8, 4, 4, 4, 12)),
            rand(rng, 40, "0123456789ABCDEF"),
            f"key-{rng.randrange(1, 100)}"])
    if rng.random() < 0.1:
        header["cty"] = "JWT"
    if rng.random() < 0.3:  # field order is the issuer's
        items = list(header.items())
        rng.shuffle(items)
        header = dict(items)
    payload: dict[str, Any] = {"sub": str(rng.randrange(10**6, 10**9)),
                               "iat": rng.randrange(1_500_000_000, 1_800_000_000),
                               "name": rng.choice(FIRST) + " " + rng.choice(LAST)}
    if rng.random() < 0.5:
        payload["exp"] = payload["iat"] + rng.choice([900, 3600, 86400])
    if rng.random() < 0.5:
        payload["role"] = rng.choice(["admin", "user", "service", "reader"])
    if rng.random() < 0.4:
        payload["iss"] = "https://" + rng.choice(DOMAINS) + "/"
    h = b64url(json.dumps(header, separators=(",", ":")).encode())
    p = b64url(json.dumps(payload, separators=(",", ":")).encode())
    if alg in _HMAC:
        sig = b64url(hmac.new(rand(rng, 32).encode(), f"{h}.{p}".encode(), _HMAC[alg]).digest())
    else:  # the shape of a signature of that size (nothing checks it)
        sig = b64url(bytes(rng.randrange(256) for _ in range(_SIG_BYTES[alg])))
    return rng.choice(["ACCESS_TOKEN", "auth_token", "jwt", "bearer", "id_token"]), f"{h}.{p}.{sig}"


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


def email(rng: random.Random) -> tuple[str, str]:
    f, last = rng.choice(FIRST), rng.choice(LAST)
    user = rng.choice([f"{f}.{last}", f"{f[0]}{last}", f"{f}{rng.randrange(100)}", f"{last}.{f}",
                       "support", "billing", "ops-team", f"{f}_{last}", f"{f}+{rng.choice(['git', 'news'])}"])
    return rng.choice(["EMAIL", "contact", "admin_email", "from_addr", "maintainer"]), \
        f"{user}@{rng.choice(DOMAINS)}"


MAKERS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "api_key": tokens.api_key, "jwt": jwt, "private_key": private_key, "password": passwords.password,
    "email": email, "phone": phones.phone}


def available_kinds() -> list[str]:
    """Risk kinds the generator can make here (PEM keys need the optional ``cryptography``)."""
    import importlib.util

    have = importlib.util.find_spec("cryptography") is not None
    return [k for k in RISKS if k != "private_key" or have]
