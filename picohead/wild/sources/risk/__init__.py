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

Modules: ``values`` (alphabets, names, passwords, phones), ``tokens`` (provider token shapes,
checksums, JWT signing, the ``api_key`` templates), ``positives`` (the other flags' templates),
``keys`` (openssl/ssh-keygen keys), ``lookalikes``, ``render`` (a plant in a family's syntax),
``plant`` (where it goes), ``screen`` (``detect``), ``hosts`` (reading and screening host files),
``tiny``; this module holds the build loop and re-exports the names the tests use.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from picohead.data.gitmirror import MirrorError
from picohead.wild.sources.risk.hosts import (
    _EXT,
    MAX_HOST,
    MIN_HOST,
    Host,
    _spread,
    family_of,
    read_hosts,
)
from picohead.wild.sources.risk.keys import (
    KEY_SPECS,
    key_pool,
    make_key,
    private_key_plant,
    public_key_plant,
)
from picohead.wild.sources.risk.lookalikes import LOOKALIKE
from picohead.wild.sources.risk.plant import HEAD_LIMIT, head_offset, plant_into, tail_insert
from picohead.wild.sources.risk.positives import POSITIVE
from picohead.wild.sources.risk.render import Plant, render, render_pair, style
from picohead.wild.sources.risk.screen import detect
from picohead.wild.sources.risk.tiny import TINY_FIXED, TINY_POSITIVE, tiny_inputs
from picohead.wild.sources.risk.tokens import (
    API_TEMPLATES,
    b64url,
    base62,
    crc_token,
    crc_token_ok,
    e164_ok,
    jwt_ok,
    make_jwt,
)
from picohead.wild.sources.risk.values import PHONE_FORMATS, email, password, person, rs
from picohead.wild.suite import RISK_FLAGS, StageWriter

__all__ = [
    "API_TEMPLATES", "FLAGS", "HEAD_LIMIT", "KEY_SPECS", "LOOKALIKE", "MAX_HOST", "MIN_HOST",
    "PHONE_FORMATS", "POSITIVE", "RECIPE", "TINY_FIXED", "TINY_POSITIVE", "_EXT", "Host", "Plant",
    "b64url", "base62", "build", "crc_token", "crc_token_ok", "detect", "e164_ok", "email",
    "family_of", "head_offset", "jwt_ok", "key_pool", "load_recipe", "make_jwt", "make_key",
    "password", "person", "plant_into", "private_key_plant", "public_key_plant", "read_hosts",
    "render", "render_pair", "rs", "style", "tail_insert", "tiny_inputs",
]

log = logging.getLogger(__name__)

RECIPE = Path(__file__).resolve().parents[3] / "recipes" / "wild" / "risk.json"
FLAGS = RISK_FLAGS  # the suite's own list (picohead.wild.suite)


def load_recipe(path: Path = RECIPE) -> dict[str, Any]:
    return json.loads(path.read_text())


def build(suite: Path, *, cache: Path, mirrors: Path, recipe: Path = RECIPE) -> Path:
    """Write ``.stages/risk.jsonl`` (and blobs) of the risk part of the wild suite."""
    t0 = time.time()
    rec = load_recipe(recipe)
    quota = {"positive": 30, "lookalike": 11, "clean": 4, "tiny": 2, **rec.get("per_producer", {})}
    pool = key_pool(cache, KEY_SPECS)  # this package's name, so a test may patch it here
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
