"""Hand-written one-line risk probes through exported model folders, side by side.

The corpus's risk test samples are generated secrets planted in real files; these probes are the
short, isolated lines a user pastes into a CI log or a config check (a key on its own line, the
same key under its usual variable name, AWS's documentation example key, look-alikes). They are a
sanity check of short inputs, not an accuracy figure: 32 lines, written by hand.

    python benchmarks/risk_probes.py runtime/picohead_runtime/models/content-v5 NEW_FOLDER \
        --tiers small pro --out benchmarks/results/risk_probes.json

Prints, per probe, each model's risk score for the flag the probe is about (the expected flag, or
the flag a look-alike could be mistaken for) and whether the runtime flags it (calibrated
thresholds embedded in each file).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from picohead_runtime import Classifier

# (probe, flag it is about, whether that flag should be raised)
PROBES: list[tuple[str, str, bool]] = [
    ("AWS_ACCESS_KEY_ID=AKIAGJ2BECULGFNIDCF4", "api_key", True),
    ("aws_access_key_id = AKIAGJ2BECULGFNIDCF4", "api_key", True),
    ("<aws_access_key_id>AKIAGJ2BECULGFNIDCF4</aws_access_key_id>", "api_key", True),
    (
        'SENDGRID_API_KEY = "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"',
        "api_key",
        True,
    ),
    ("key = sk_live_4eC39HqLyjWDarjtT1zdp7dc", "api_key", True),
    ("GITHUB_TOKEN=ghp_cTtssGbP5sAjbKGjadbE266It2xwun0w0yRP", "api_key", True),
    ("passwd = 5itgTMERpGecR3MxyS", "password", True),
    ("password = 'Tr0ub4dor&3x'", "password", True),
    ("DATABASE_URL=postgres://admin:s3cr3t-Pw9@db.internal:5432/app", "password", True),
    ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "api_key", False),
    ("AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID}", "api_key", False),
    ("api_key: <your-api-key>", "api_key", False),
    ("password: ${DB_PASSWORD}", "password", False),
    ("password: password", "password", False),
    ("request_id = 2e2cc5f5-d170-4475-b165-252ee81bed1b", "api_key", False),
    # Added 2026-11-30 after content-v5 was found to miss upper-case password names (it flagged
    # 6 % of one-line PASSWORD="..." secrets); and the e-mail/phone flags, which had no probe.
    ('PASSWORD="Xk29!fmQpLw"', "password", True),
    ("PASSWD=0m1-ZnkEyW9dnyN", "password", True),
    ('{"password": "hunter2024!"}', "password", True),
    ('PASSWORD="<your-password>"', "password", False),
    ("Call us on +44 20 7946 0958 (Mon-Fri).", "phone", True),
    ("contact: anna.schmidt@gmx.de", "email", True),
    ("contact: jane@example.com", "email", False),
    # Added 2026-11-30 (session 8) after content-v5 was found to key its API-key flag on field
    # names (a bare ghp_ token scored 0.001, the same token after GITHUB_TOKEN= 0.998): keys
    # with no name or an unusual one, and look-alikes under the names real keys use.
    ("ghp_R8kWq2ZLx7NfT3vJmB9yHc4sPd6gUa1eYo5i", "api_key", True),
    ("aws access key id: AKIAQW3EXZ7N5M2KRT4P", "api_key", True),
    (
        "curl -H 'Authorization: token ghp_R8kWq2ZLx7NfT3vJmB9yHc4sPd6gUa1eYo5i' https://api.github.com/user",
        "api_key",
        True,
    ),
    ("export TOKEN=xoxb-482910375621-7730193846251-Qm8TzW3rLx9KcV2nBf5HjY4d", "api_key", True),
    (
        "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=AIzaSyD4k9Qx2LmV7nB3cW8eR1tY6uI0oP5aZ_s",
        "api_key",
        True,
    ),
    ("GITHUB_TOKEN=ghp_R8kWq2ZLx7Nf", "api_key", False),
    ("GITHUB_TOKEN: 3f786850e387550fdab836ed7e6dc881de23001b", "api_key", False),
    ("token: 3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f", "api_key", False),
    ("My number is (415) 555-0132, call after six.", "phone", True),
    ("db_password: Qv7#mT2p!xLw", "password", True),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, help="model folders (<tier>.onnx files)")
    ap.add_argument("--tiers", nargs="+", default=["small", "pro"])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = []
    models = {
        f"{folder.name}/{tier}": Classifier(folder, tier=tier)
        for folder in args.folders
        for tier in args.tiers
    }
    right = dict.fromkeys(models, 0)
    for text, flag, expected in PROBES:
        row: dict[str, object] = {"probe": text, "flag": flag, "expected": expected}
        for name, clf in models.items():
            risk = clf.classify_bytes((text + "\n").encode()).asdict()["heads"]["risk"]
            flagged = flag in risk["labels"]
            right[name] += flagged == expected
            row[name] = {"score": round(risk["scores"][flag], 4), "flagged": flagged}
        rows.append(row)
        cells = "  ".join(
            f"{row[n]['score']:.3f}{'*' if row[n]['flagged'] else ' '}"  # type: ignore[index]
            for n in models
        )
        print(f"{'+' if expected else '-'} {flag:8s} {cells}  {text[:60]}")
    print("right:", {n: f"{v}/{len(PROBES)}" for n, v in right.items()}, "(* = flagged)")
    if args.out:
        doc = {"models": list(models), "right": right, "n": len(PROBES), "probes": rows}
        args.out.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
