"""benchmarks/password_forms.py: the syntax grid on the bundled model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import password_forms  # noqa: E402

from picohead_runtime.model import default_model_dir  # noqa: E402


def test_every_form_holds_every_value_once() -> None:
    for fmt in password_forms.FORMS.values():
        lines = [fmt.format(v=v) for v in password_forms.VALUES]
        assert all(v in s for v, s in zip(password_forms.VALUES, lines))
        assert len(set(lines)) == len(lines)


def test_the_grid_has_a_row_per_form_and_tier_with_scores_in_range(tmp_path: Path) -> None:
    out = tmp_path / "grid.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "password_forms.py"),
                    str(default_model_dir()), "--tiers", "tiny", "pro", "--out", str(out)],
                   check=True, capture_output=True, timeout=300)
    rows = json.loads(out.read_text())["rows"]
    assert {(r["tier"], r["form"]) for r in rows} == {
        (t, f) for t in ("tiny", "pro") for f in password_forms.FORMS}
    assert all(0.0 <= r["min_score"] <= r["mean_score"] <= 1.0 and 0 <= r["flagged"] <= r["of"]
               for r in rows)
    # tiny has no detector: the risk head's password flag is off there, and it flags nothing
    assert all(r["flag_off"] and r["flagged"] == 0 for r in rows if r["tier"] == "tiny")
