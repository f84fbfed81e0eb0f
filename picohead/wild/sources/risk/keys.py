"""Private and public keys made with ``openssl`` and ``ssh-keygen``, cached under ``cache/risk-keys``.

``KEY_SPECS`` says how many keys of each kind the pool holds; missing ones are made once and
reused by every later build. What it does not do: make keys in Python (the programs' own output
formats are the point) or remove stale keys from the cache.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
from pathlib import Path

from picohead.wild.sources.risk.render import Plant

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


def key_pool(cache: Path, specs: dict[str, int] | None = None) -> list[tuple[str, str, str]]:
    """(kind, private PEM/OpenSSH text, public text) for every cached key, making missing ones;
    ``specs`` (kind -> count) defaults to ``KEY_SPECS``."""
    root = cache / "risk-keys"
    root.mkdir(parents=True, exist_ok=True)
    pool = []
    for kind, n in (KEY_SPECS if specs is None else specs).items():
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


def private_key_plant(r: random.Random, pool: list[tuple[str, str, str]]) -> Plant:
    kind, pem, _ = r.choice(pool)
    f = r.choice(["private key", "ssh private key", "deploy key", "tls key", "signing key",
                  "jwt private key", "server key", "client key"])
    return Plant(f"private_key_{kind}", ["private_key"], [(f, pem.strip())], pem=True)


def public_key_plant(r: random.Random, pool: list[tuple[str, str, str]]) -> Plant:
    kind, _, pub = r.choice(pool)
    pub = pub.strip()
    return Plant(f"lookalike_public_key_{'ssh' if pub.startswith(('ssh-', 'ecdsa-')) else 'pem'}",
                 [], [(r.choice(["public key", "authorized key", "verify key"]), pub)],
                 pem="\n" in pub)
