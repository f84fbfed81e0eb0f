"""benchmarks/tiny_inputs.py: the enumerated 0-3-byte inputs and its report on the bundled model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import tiny_inputs  # noqa: E402


def test_the_inputs_are_short_distinct_and_cover_every_byte() -> None:
    probes = tiny_inputs.inputs()
    assert len(probes) == len(set(probes)) and max(map(len, probes)) <= 3
    assert b"" in probes and all(bytes([i]) in probes for i in range(256))
    assert b"\x1f\x8b\x08" in probes and b"{}" in probes


def test_a_type_claim_is_a_specific_format_json_only_where_it_is_not_json() -> None:
    assert not tiny_inputs.type_claim(b"x", "text/plain")
    assert not tiny_inputs.type_claim(b"\x01", "application/octet-stream")
    assert not tiny_inputs.type_claim(b"{}", "application/json")
    assert tiny_inputs.type_claim(b"{", "application/json")
    assert tiny_inputs.type_claim(b"x", "application/zlib")


def test_the_report_counts_flags_per_model_and_tier(tmp_path: Path) -> None:
    out = tmp_path / "tiny.json"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tiny_inputs.py"),
                        str(ROOT / "runtime/picohead_runtime/models/content-v8"),
                        "--tiers", "tiny", "pro", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rep = json.loads(out.read_text())
    (model,) = rep["models"].values()
    assert set(model) == {"tiny", "pro"}
    for d in model.values():
        assert d["inputs"] == rep["inputs"] == len(tiny_inputs.inputs())
        assert d["flagged"] <= d["inputs"] and sum(d["flags"].values()) >= d["flagged"]
        c = d["type_claims"]
        assert 0 <= c["claimed"] <= c["inputs"] < d["inputs"]
        assert c["claimed"] == 0  # content under 8 bytes gets its generic type (MIN_CONTENT)
        assert 0 <= c["raw_claimed"] <= c["inputs"] and sum(c["raw_top"].values()) <= c["raw_claimed"]
        k = d["coarse_claims"]  # the text-looking inputs: specific coarse answers counted
        assert 0 < k["inputs"] < c["inputs"] and 0 <= k["claimed"] <= k["inputs"]
        assert k["raw_claimed"] > 0 and "text" not in k["raw_top"]  # content-v8 claims many
    assert model["tiny"]["flagged"] == 0  # tiny has no risk detector: every flag is off
    assert "| pro |" in out.with_suffix(".md").read_text()
