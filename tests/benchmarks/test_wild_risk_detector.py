"""benchmarks/wild_risk_detector.py: the corpus detectors against a wild half's risk labels."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import wild_risk_detector  # noqa: E402


def _suite(tmp_path: Path) -> Path:
    rows = [
        ("a", b"DB_PASSWORD=hunter2x9\n", ["password"], "positive", "password_field/env", "dev"),
        ("b", b"call 0151 1234567 today\n", ["phone"], "positive", "phone_national/text", "dev"),
        ("c", b"password: changeme\n", [], "lookalike", "lookalike_placeholder_pw/yaml", "dev"),
        ("d", b"{}", [], "tiny", "tiny/json", "dev"),
        ("e", b"DB_PASSWORD=hunter2x9\n", ["password"], "positive", "password_field/env", "test"),
    ]
    (tmp_path / "blobs").mkdir()
    with (tmp_path / "manifest.jsonl").open("w") as f:
        for rid, data, label, kind, template, split in rows:
            (tmp_path / "blobs" / rid).write_bytes(data)
            f.write(json.dumps({"id": rid, "path": f"blobs/{rid}", "task": "risk", "label": label,
                                "kind": kind, "split": split, "prov": {"template": template}}) + "\n")
    return tmp_path


def test_recall_misses_and_quiet_negatives(tmp_path: Path) -> None:
    doc = wild_risk_detector.check(_suite(tmp_path), "dev")
    assert doc["records"] == 4  # the test row is not read
    pw, phone = doc["flags"]["password"], doc["flags"]["phone"]
    assert (pw["tp"], pw["fp"], pw["fn"], pw["recall"]) == (1, 0, 0, 1.0)
    # a national number without a phone word or country code: no detector reads it
    assert phone["fn"] == 1 and phone["missed_by_template"] == {"phone_national": 1}
    assert doc["negatives_flagged"] == {"lookalike": {"n": 1, "flagged": 0}, "tiny": {"n": 1, "flagged": 0}}


def test_an_empty_half_is_an_error(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    (suite / "manifest.jsonl").write_text("")
    assert wild_risk_detector.main(["--suite", str(suite)]) == 2
