"""Password flag by syntax: the same values written in the forms configs and docs use, per tier.

On wild-dev the password flag is every tier's weakest (content-v18's pro misses 64 of the 100 of
a partial dev half), while the corpus labeller reads those samples right, so the misses are the
model's. Reading them showed they cluster by syntax, not by value: content-v18's pro scores a
YAML double-quoted ``password: "..."`` at 0.14 on average (most values 0.00-0.04), where the same
values unquoted, single-quoted or after ``=`` score 0.7-0.95. This script measures that grid for
model folders side by side, so a recipe change aimed at one syntax can be checked against every
other (benchmarks/results/password_forms/).

    python benchmarks/password_forms.py runtime/picohead_runtime/models/content-v18 NEW_FOLDER \\
        --tiers base pro --out benchmarks/results/password_forms/grid.json

For each form (a line or two, hand-written here, not taken from the corpus's planting templates)
and each tier it prints the mean password score over the values and how many of them the runtime
flags at the file's own thresholds ("flag off" where the file's calibration switched the password
flag off: the score is still there, the runtime never raises it). The values are hand-written
too, in the shapes the wild suite's hosts carry (word + digits + mark, random mixed case, a
passphrase). It is a probe of the model's reading of syntax, not an accuracy figure: no
look-alikes, no host files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from picohead_runtime import Classifier
from picohead_runtime.results import MultilabelResult

VALUES = ("prny3694_NTD", "hunter2secret", "Nebula1970#", "xK9#mP2$vL", "C4ctus#857",
          "correct-horse-battery", "Gl4ci3r@792", "t5Qr5znjzs09QgQowxCCEKBT")

FORMS = {
    "yaml plain": "password: {v}\n",
    "yaml single-quoted": "password: '{v}'\n",
    "yaml double-quoted": 'password: "{v}"\n',
    "yaml nested double-quoted": 'database:\n  host: db.internal\n  password: "{v}"\n',
    "yaml prefixed name, double-quoted": 'smtp_password: "{v}"\n',
    "compose environment map": 'services:\n  db:\n    environment:\n      MYSQL_PASSWORD: "{v}"\n',
    "ini / toml": 'password = "{v}"\n',
    ".env": "DB_PASSWORD={v}\n",
    "json": '{{"user": "app", "password": "{v}"}}\n',
    "xml tag": "<password>{v}</password>\n",
    "python constant": 'PASSWORD = "{v}"\n',
    "java properties": "spring.datasource.password={v}\n",
    "connection string": "Server=db.internal;Database=app;User Id=sa;Password={v};\n",
    "markdown table": "| User | `admin` |\n| Password | `{v}` |\n",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--tiers", nargs="+", default=["small", "base", "pro"])
    ap.add_argument("--out", default=None, help="write the grid as JSON")
    args = ap.parse_args()
    rows: list[dict] = []
    for model in args.models:
        for tier in args.tiers:
            try:
                clf = Classifier(Path(model), tier=tier)
            except Exception as e:  # noqa: BLE001 - a folder without this tier is reported, not fatal
                print(f"{model} {tier}: not loaded ({type(e).__name__}: {e})")
                continue
            for form, fmt in FORMS.items():
                res = list(clf.classify_many_bytes([fmt.format(v=v).encode() for v in VALUES]))
                risk = [r.heads["risk"] for r in res]
                assert all(isinstance(h, MultilabelResult) for h in risk)
                scores = [h.scores["password"] for h in risk]  # type: ignore[union-attr]
                flagged = sum("password" in h.labels for h in risk)  # type: ignore[union-attr]
                rows.append({"model": str(model), "tier": tier, "form": form,
                             "mean_score": round(sum(scores) / len(scores), 3),
                             "min_score": round(min(scores), 3), "flagged": flagged,
                             "of": len(VALUES), "flag_off": "password" in risk[0].disabled})  # type: ignore[union-attr]
    cols = [(r["model"], r["tier"]) for r in rows]
    cols = list(dict.fromkeys(cols))
    print("| form | " + " | ".join(f"{Path(m).name} {t}" for m, t in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for form in FORMS:
        cells = []
        for m, t in cols:
            r = next((x for x in rows if x["model"] == m and x["tier"] == t and x["form"] == form), None)
            said = "flag off" if r and r["flag_off"] else f"{r['flagged']}/{r['of']}" if r else ""
            cells.append(f"{r['mean_score']:.2f} ({said})" if r else "")
        print(f"| {form} | " + " | ".join(cells) + " |")
    if args.out:
        Path(args.out).write_text(json.dumps({"values": VALUES, "forms": FORMS, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
