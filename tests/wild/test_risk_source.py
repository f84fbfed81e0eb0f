"""The risk wild source: templates, look-alikes, format helpers and a build over a fake mirror."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from picohead.wild.sources import risk as R
from picohead.wild.suite import read_jsonl

FAMILIES = sorted(set(R._EXT.values()) | {"docker", "env"})
HAVE_TOOLS = all(shutil.which(t) for t in ("openssl", "ssh-keygen", "git"))


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, str]]:
    if not HAVE_TOOLS:
        pytest.skip("needs openssl, ssh-keygen and git")
    cache = tmp_path_factory.mktemp("cache")
    specs = dict(R.KEY_SPECS)
    R.KEY_SPECS.clear()
    R.KEY_SPECS.update({k: 1 for k in specs})
    try:
        return R.key_pool(cache)
    finally:
        R.KEY_SPECS.clear()
        R.KEY_SPECS.update(specs)


def test_base62_and_crc_tokens() -> None:
    assert R.base62(0) == "0" and R.base62(61) == "z" and R.base62(62) == "10"
    assert R.base62(5, 6) == "000005"
    body = "A" * 30
    tok = R.crc_token("ghp_", body)
    assert len(tok) == 40 and tok.endswith(R.base62(zlib.crc32(body.encode()), 6))
    assert R.crc_token_ok(tok, "ghp_")
    assert not R.crc_token_ok(tok[:-1] + ("0" if tok[-1] != "0" else "1"), "ghp_")


def test_jwt_is_hmac_signed_json() -> None:
    key = b"k" * 32
    t = R.make_jwt({"alg": "HS256", "typ": "JWT"}, {"sub": "1", "iat": 1}, key)
    assert t.count(".") == 2 and t.startswith("eyJ")
    assert R.jwt_ok(t, key) and not R.jwt_ok(t, b"other")
    for alg in ("HS384", "HS512"):
        assert R.jwt_ok(R.make_jwt({"alg": alg}, {"a": 1}, key), key)


def test_e164_and_phone_formats() -> None:
    assert R.e164_ok("+14155552671") and not R.e164_ok("+04155552671")
    assert not R.e164_ok("14155552671")
    r = random.Random(0)
    for fid, fmt in R.PHONE_FORMATS:
        p = fmt(r)
        assert "phone" in R.detect(p), (fid, p)
        if fid.startswith("e164"):
            assert R.e164_ok(p)


@pytest.mark.parametrize("flag", sorted(R.POSITIVE))
def test_every_template_yields_its_flag(flag: str) -> None:
    r = random.Random(flag)
    for make in R.POSITIVE[flag]:
        for fam in FAMILIES:
            for _ in range(4):
                p = make(r)
                assert flag in p.flags
                text = R.render(p, fam, r)
                assert R.detect(text) == set(p.flags), (p.template, fam, text)


def test_private_key_templates(pool: list[tuple[str, str, str]]) -> None:
    r = random.Random(1)
    kinds = set()
    for kind, pem, pub in pool:
        kinds.add(kind)
        assert re.search(r"-----BEGIN (RSA |EC |OPENSSH |ENCRYPTED )?PRIVATE KEY-----", pem)
        assert "PRIVATE" not in pub
    assert kinds == set(R.KEY_SPECS)
    for fam in FAMILIES:
        for _ in range(3):
            p = R.private_key_plant(r, pool)
            assert R.detect(R.render(p, fam, r)) == {"private_key"}, (p.template, fam)


def test_lookalikes_yield_no_flag(pool: list[tuple[str, str, str]]) -> None:
    r = random.Random(2)
    for make in R.LOOKALIKE:
        for fam in FAMILIES:
            for _ in range(4):
                p = make(r)
                assert p.flags == []
                text = R.render(p, fam, r)
                assert R.detect(text) == set(), (p.template, fam, text)
    for fam in FAMILIES:
        p = R.public_key_plant(r, pool)
        assert R.detect(R.render(p, fam, r)) == set()


def test_screen_examples() -> None:
    assert R.detect("admin@example.com dev@app.test x@y.invalid root@localhost") == set()
    assert R.detect("jana.novak@web.de") == {"email"}
    assert R.detect('password: "${DB_PASSWORD}"\napi_key: your-api-key-here') == set()
    assert R.detect("password: Hunter2-Blue!") == {"password"}
    assert R.detect("AKIAIOSFODNN7EXAMPLE") == set()
    assert R.detect("2023-11-04 10.0.12.7 1.24.3 " + "ab" * 20) == set()
    assert R.detect("postgres://app:S3cretPw99@db.internal.corp:5432/app") == {"password"}


def test_plant_positions() -> None:
    r = random.Random(3)
    yaml = "name: demo\nservices:\n  web:\n    image: nginx\n" + "# pad\n" * 300
    p = R.Plant("t", ["password"], [("db password", "Tr0ub4dor&3x")])
    text, snippet, where = R.plant_into(yaml, "yaml", p, r, "head")
    assert where == "head" and text.index(snippet) < R.HEAD_LIMIT + 50
    assert re.search(r"^db[_-]password: ", text, re.M)
    text, snippet, where = R.plant_into(yaml, "yaml", p, r, "tail")
    assert where == "tail" and len(text) - text.index(snippet) < 900
    assert R.plant_into('{\n  "a": 1\n}\n', "json", p, r, "tail") is None


def test_tiny_inputs() -> None:
    items = R.tiny_inputs(random.Random(4), 100)
    assert all(len(b) <= 16 for b, _, _ in items)
    neg = [b for b, lab, _ in items if not lab]
    assert b"" in neg and b"\x00" in neg and len(neg) >= 200
    for b, lab, _ in items:
        assert R.detect(b.decode("utf-8", "replace")) == set(lab), b


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.mark.skipif(not HAVE_TOOLS, reason="needs openssl, ssh-keygen and git")
def test_build_over_fake_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(R, "KEY_SPECS", {"ec_sec1": 1, "openssh_ed25519": 1})
    work = tmp_path / "mirrors" / "acme+hosts"
    work.mkdir(parents=True)
    files = {
        "config.yml": "server:\n  port: 8080\nlogging:\n  level: info\n" * 4,
        "app.py": "import os\nimport sys\n\n\ndef main() -> None:\n    print('hi')\n" * 3,
        "docs/README.md": "# Hosts\n\nSome prose about the project.\n\nMore prose here.\n" * 4,
        "settings.ini": "[main]\nworkers = 4\nverbose = no\n\n[http]\nport = 80\n" * 3,
        "Dockerfile": "FROM alpine:3.19\nRUN apk add curl\nWORKDIR /app\nCOPY . .\n" * 3,
        "leaky.env": "API_TOKEN=ghp_" + "a" * 36 + "\nOTHER=1\n" * 3,
    }
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x")
    commit = _git(work, "rev-parse", "HEAD")
    shutil.move(str(work / ".git"), str(tmp_path / "bare"))
    shutil.rmtree(work)
    shutil.move(str(tmp_path / "bare"), str(work))  # mirrors/acme+hosts is now a bare git dir
    recipe = tmp_path / "risk.json"
    recipe.write_text(json.dumps({
        "seed": "t", "per_producer": {"positive": 12, "lookalike": 4, "clean": 2, "tiny": 2},
        "hosts": [{"kind": "git", "repo": "acme/hosts", "commit": commit, "paths": [],
                   "licence": "MIT"}]}))
    suite = tmp_path / "suite"
    out = R.build(suite, cache=tmp_path / "cache", mirrors=tmp_path / "mirrors", recipe=recipe)
    recs = list(read_jsonl(out))
    kinds = {k: [r for r in recs if r["kind"] == k] for k in ("positive", "lookalike", "clean")}
    assert len(kinds["positive"]) == 12 and len(kinds["lookalike"]) == 4
    assert len(kinds["clean"]) == 2
    assert {f for r in kinds["positive"] for f in r["label"]} == set(R.FLAGS)
    for r in recs:
        assert r["prov"]["path"] != "leaky.env"  # a host with a real-looking token is skipped
        data = (suite / r["path"]).read_bytes()
        if r["kind"] == "positive":
            assert r["producer"] == "git:acme/hosts" and r["prov"]["version"] == commit
            assert r["prov"]["planted"] in data.decode()
            assert R.detect(data.decode()) == set(r["label"])
        elif r["kind"] in ("lookalike", "clean"):
            assert r["label"] == [] and R.detect(data.decode()) == set()
        else:
            assert len(data) <= 16
    again = R.build(tmp_path / "suite2", cache=tmp_path / "cache", mirrors=tmp_path / "mirrors",
                    recipe=recipe)
    assert [r["id"] for r in read_jsonl(again)] == [r["id"] for r in recs]
