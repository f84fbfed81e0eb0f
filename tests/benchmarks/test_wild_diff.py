"""benchmarks/wild_diff.py: two score results side by side; different halves are refused."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "wild_diff.py"


def _result(model, acc, split="test", records=10):
    p = {"accuracy": acc, "raw_top1": acc + 1, "confident_wrong": 3.0}
    return {"split": split, "records": records, "model": model, "tiers": ["pro"],
            "tasks": {"mime": {"picohead": {"pro": p}}}}


def _run(tmp_path, a, b):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return subprocess.run([sys.executable, str(SCRIPT), str(pa), str(pb)], capture_output=True,
                          text=True)


def test_side_by_side_and_refusal(tmp_path):
    r = _run(tmp_path, _result("v7", 30.0), _result("v8", 40.0))
    assert r.returncode == 0 and "| pro | mime | 30.0 (31.0 / 3.0) | 40.0 (41.0 / 3.0) |" in r.stdout
    r = _run(tmp_path, _result("v7", 30.0, split="dev"), _result("v8", 40.0))
    assert r.returncode == 2 and "different halves" in r.stderr
