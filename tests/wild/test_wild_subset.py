"""benchmarks/wild_subset.py: a partial suite's records in the half the full suite would give them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from picohead.wild.suite import StageWriter, assign_splits, finalise

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import wild_subset  # noqa: E402


def _code_records(plan: list[dict], n: int) -> list[dict]:
    return [{**r, "id": f"{i}", "split": "dev", "path": f"blobs/{i}"} for i, r in enumerate(plan[:n])]


def test_a_code_projects_half_does_not_depend_on_how_many_code_repos_the_part_holds() -> None:
    plan = wild_subset.code_plan()
    assert len({r["project"] for r in plan}) > 250  # every pinned code project, fetched or not
    full = assign_splits(plan)
    for n in (5, 40):  # a part with the first n code entries' records
        part = _code_records(plan, n)
        got = {r["project"] for r in wild_subset.subset([part], "dev")}
        assert got == {r["project"] for r in part if full[r["project"]] == "dev"}
        assert all(r["split"] == "dev" for r in wild_subset.subset([part], "dev"))


def test_the_script_writes_a_suite_of_one_half(tmp_path: Path) -> None:
    part = tmp_path / "part"
    w = StageWriter(part, "text_lang")
    for i, name in enumerate(("alder", "birch", "cedar", "dogwood", "elm", "fir")):
        w.add(f"Ein Satz Nummer {i}.".encode(), "de", producer=f"git:ud/{name}", kind="sentence",
              licence="CC0-1.0", path=f"s{i}.txt")
    w.close()
    recs = finalise(part)
    out = tmp_path / "sub"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild_subset.py"),
                        "--suite", str(part), "--half", "dev", "--out", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    sub = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()]
    assert {r["id"] for r in sub} == {r["id"] for r in recs if r["split"] == "dev"}  # no code here
    assert sub and all((out / r["path"]).read_bytes() for r in sub)
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild_subset.py"),
                          "--suite", str(tmp_path / "none"), "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no manifest.jsonl" in bad.stderr
