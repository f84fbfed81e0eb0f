"""Risk flags on secrets placed in held-out contexts: test-split hosts, names and line templates
that neither the corpus's risk generator nor the training planter (``risk.plant_secret``) uses.

The corpus's risk test samples share the generator's field names with the training samples
(``GITHUB_TOKEN``, ``DB_PASSWORD``, ``phone``), so a model that keys on names instead of values
still scores well there; this slice asks whether a flag follows the value. Each sample is a clean
text file of the test split (no flag, no NUL byte) cut to at most 1,500 bytes at a line end, with
one line inserted at a random line boundary (``--split val`` takes validation files instead: use it
to choose between runs, the test split to report): a fresh secret (``risk.MAKERS``: the value formats
are the flags' definition) or a negative (a provider prefix with a short body, a hex digest, a
UUID, a placeholder under a password name), under a name from ``NAMES`` in a template from
``TEMPLATES``. Labels are the detectors' verdict on the result, plus ``phone`` when a planted
number shows. Deterministic for a given ``--seed``.

    python benchmarks/risk_contexts.py runtime/picohead_runtime/models/content-v7 \
        --corpus corpus --tiers small pro --out benchmarks/results/risk_contexts.json

Prints and writes, per model and tier, precision/recall/F1 per flag, the share of negative
samples flagged, and the count of samples per planted kind.
"""

from __future__ import annotations

import argparse
import json
import random
import string
from collections import Counter
from pathlib import Path

from picohead.data import risk
from picohead_runtime import Classifier

# Names neither the corpus generator nor the training planter uses (passwords need a name the
# detector reads as one, so theirs are case and spelling variants).
NAMES = (
    "auth",
    "deploy_key",
    "creds",
    "mytoken",
    "ci_secret",
    "service_key",
    "upstream_token",
    "TOKEN_PROD",
    "registry_auth",
    "k",
)
PASSWORD_NAMES = ("Passwd", "DB_PASS", "pwd", "admin_password", "Pwd")
TEMPLATES = (
    "{name} = {value}",  # INI
    "X-Auth-Token: {value}",
    "Use `{value}` for the staging deploy.",
    '{{"auth": {{"{name}": "{value}"}}}}',
    "      - {upper}={value}",  # docker-compose environment list
    '<add key="{name}" value="{value}" />',
    "tool login --{name} {value}",
    '{name} := "{value}"',
    "# {value}",
)
PASSWORD_TEMPLATES = ("{name} = {value}", "{name}: {value}", '<add key="x" {name}="{value}" />')
KINDS = ("api_key", "api_key", "password", "phone", "email", "jwt")
FLAGS = ("api_key", "jwt", "password", "email", "phone")


def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


def _negative(rng: random.Random) -> tuple[str, str]:
    k = rng.randrange(4)
    if k == 0:
        prefix = rng.choice(["AKIA", "ghp_", "sk_live_", "xoxb-", "AIza", "npm_"])
        return rng.choice(NAMES), prefix + _token(rng, rng.randrange(5, 11))
    if k == 1:
        return rng.choice(NAMES), "%040x" % rng.getrandbits(160)
    if k == 2:
        h = "%032x" % rng.getrandbits(128)
        return rng.choice(NAMES), f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
    return rng.choice(PASSWORD_NAMES), rng.choice(["<changeme>", "${ADMIN_PASSWORD}", "********"])


def make_sample(host: bytes, rng: random.Random) -> tuple[bytes, list[str], str]:
    """(``host`` with one planted line, its flags, the planted kind or ``negative``)."""
    kind = "negative" if rng.random() < 0.3 else rng.choice(KINDS)
    if kind == "negative":
        name, value = _negative(rng)
    else:
        _, value = risk.MAKERS[kind](rng)
        name = rng.choice(PASSWORD_NAMES if kind == "password" and "://" not in value else NAMES)
    pw = name in PASSWORD_NAMES
    line = rng.choice(PASSWORD_TEMPLATES if pw else TEMPLATES).format(
        name=name, upper=name.upper(), value=value
    )
    lines = host.split(b"\n")
    at = rng.randrange(len(lines) + 1)
    data = b"\n".join(lines[:at] + [line.encode()] + lines[at:])
    found = set(risk.detect(data))
    if kind == "phone" and value.encode() in data:
        found.add("phone")
    return data, [f for f in risk.RISKS if f in found], kind


def hosts(corpus: Path, n: int, rng: random.Random, split: str = "test") -> list[bytes]:
    rows = [json.loads(line) for line in (corpus / f"{split}.jsonl").open()]
    clean = [
        r
        for r in rows
        if r["labels"].get("risk") == []
        and r["labels"].get("modality") == "text"
        and not r["source"].startswith("risk:")
    ]
    rng.shuffle(clean)
    out = []
    for r in clean:
        data = (corpus / r["path"]).read_bytes()
        if b"\x00" in data:
            continue
        if len(data) > 1500:
            data = data[: data.rfind(b"\n", 0, 1500) + 1] or data[:1500]
        out.append(data)
        if len(out) == n:
            break
    return out


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(2 * p * r / (p + r) if p + r else 0.0, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, help="model folders (<tier>.onnx files)")
    ap.add_argument("--corpus", type=Path, default=Path("corpus"), help="holds <split>.jsonl")
    ap.add_argument(
        "--split",
        default="test",
        help="the hosts' split: val to choose between runs, test to report",
    )
    ap.add_argument("--tiers", nargs="+", default=["small", "pro"])
    ap.add_argument("--n", type=int, default=1000, help="samples")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    samples = [make_sample(h, rng) for h in hosts(args.corpus, args.n, rng, args.split)]
    kinds = Counter(k for _, _, k in samples)
    doc: dict[str, object] = {
        "n": len(samples),
        "seed": args.seed,
        "kinds": dict(kinds),
        "corpus": str(args.corpus),
        "models": {},
    }
    for folder in args.folders:
        for tier in args.tiers:
            clf = Classifier(folder, tier=tier)
            preds = [
                set(r.asdict()["heads"]["risk"]["labels"])
                for r in clf.classify_many_bytes(d for d, _, _ in samples)
            ]
            per_flag = {}
            for f in FLAGS:
                tp = sum(f in p and f in y for p, (_, y, _) in zip(preds, samples))
                fp = sum(f in p and f not in y for p, (_, y, _) in zip(preds, samples))
                fn = sum(f not in p and f in y for p, (_, y, _) in zip(preds, samples))
                per_flag[f] = {**_prf(tp, fp, fn), "support": tp + fn}
            neg = [p for p, (_, y, _) in zip(preds, samples) if not y]
            name = f"{folder.name}/{tier}"
            doc["models"][name] = {  # type: ignore[index]
                "per_flag": per_flag,
                "negatives": len(neg),
                "negatives_flagged": round(sum(bool(p) for p in neg) / max(1, len(neg)), 4),
            }
            f1s = "  ".join(f"{f} {per_flag[f]['f1']:.3f}" for f in FLAGS)
            print(
                f"{name:28s} {f1s}  negatives flagged "
                f"{doc['models'][name]['negatives_flagged']:.3f}"
            )  # type: ignore[index]
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
