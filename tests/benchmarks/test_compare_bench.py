"""benchmarks/compare.py helpers: input selection, label maps and scoring (no anchor needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import compare  # benchmarks/ is on pytest's pythonpath (pyproject.toml)
import compare_maps as maps
import compare_report as report
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("text", ["héllo wörld " * 10, "日本語のテキスト" * 10, "abc", "  \n x"])
def test_cut_utf8_never_splits_a_character(text: str) -> None:
    for n in range(0, 60):
        cut = compare.cut_utf8(text.encode(), n)
        assert len(cut) <= max(n, 0) or len(text.encode().lstrip()) <= n
        cut.decode("utf-8")  # raises if a character was split


def test_stratified_round_robin_and_deterministic() -> None:
    rows = [{"labels": {"x": lab}, "id": f"{lab}{i}"} for lab, k in (("a", 10), ("b", 2))
            for i in range(k)]
    got = compare.stratified(rows, "x", 4, seed=0)
    assert sorted(r["labels"]["x"] for r in got) == ["a", "a", "b", "b"]
    assert got == compare.stratified(rows, "x", 4, seed=0)
    assert len(compare.stratified(rows, "x", 0, seed=0)) == 12


def test_magika_maps_follow_the_corpus_rules() -> None:
    from picohead.data.labels import FORMATS, code_labels

    assert maps.magika_mime("python", "code") == code_labels("python")["mime"] == "text/x-python"
    assert maps.magika_mime("javascript", "code") == code_labels("javascript")["mime"]
    assert maps.magika_mime("markdown", "text") == code_labels("markdown")["mime"]
    assert maps.magika_mime("rar", "archive") is None
    assert maps.magika_coarse("png", "image", FORMATS) == "image"
    assert maps.magika_coarse("json", "code", FORMATS) == "code"
    assert maps.magika_coarse("txt", "text", FORMATS) == "text"
    assert maps.magika_coarse("pem", "application", FORMATS) == "crypto"
    for mime in maps.MAGIKA_MIME.values():
        assert mime in FORMATS or mime.startswith(("text/", "application/"))


def test_code_and_secret_maps_target_our_labels() -> None:
    spec = json.loads((BENCH.parent / "picohead/recipes/content/spec.json").read_text())
    heads = {h["name"]: set(h["labels"]) for h in spec["heads"]}
    # maps may name languages a given spec dropped (harmless: no truth carries them)
    known = heads["code_lang"] | {"dart", "fsharp", "julia", "vbnet"}
    assert set(maps.PYGMENTS.values()) <= known
    assert set(maps.GUESSLANG.values()) <= known
    assert set(maps.DETECT_SECRETS_SHARED) <= heads["risk"]
    assert maps.pygments_lang(["html+php", "php"]) == "php"
    assert maps.lang("no") == "nb"
    types = ["AWS Access Key", "Hex High Entropy String", "IP Public Address", "Private Key"]
    assert maps.detect_secrets_flags(types) == ["api_key", "private_key"]
    assert maps.detect_secrets_flags(types[1:], entropy=False) == ["private_key"]


def test_scores_and_latency() -> None:
    items = [{"truth": t, "main": m, "short": s} for t, m, s in
             (("a", True, False), ("b", True, True), ("c", False, True))]
    s = report.softmax_scores("code_lang", items, ["a", "x", "c"], {"a", "b", "c"})
    assert (s["n"], s["accuracy"], s["n_short"], s["accuracy_short"]) == (2, 0.5, 2, 0.5)
    s = report.softmax_scores("code_lang", items, ["a", "x", "c"], {"a"})
    assert (s["n"], s["accuracy"]) == (1, 1.0)
    risk = [{"truth": t, "main": True, "short": False} for t in (["jwt"], [], ["email"])]
    r = report.risk_scores(risk, [["jwt"], ["jwt"], []], ["jwt", "email"])
    assert r["per_label"]["jwt"]["precision"] == 0.5 and r["per_label"]["jwt"]["recall"] == 1
    assert r["per_label"]["email"]["recall"] == 0 and r["exact_match"] == 1 / 3
    runs = [[{"wall_us": w, "cpu_us": w} for w in (1000, 2000, 3000)]] * 3
    lat = report.latency(runs, items, "main")
    assert lat["p50_ms"] == 2.0 and lat["files_per_s"] == pytest.approx(2 / 0.003)


def test_help() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "compare.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "--limit" in out


@pytest.mark.slow
def test_end_to_end_with_a_toy_model(tmp_path: Path, model_dir: Path) -> None:
    """The whole harness on a few files; anchors that are not installed are skipped, not fatal."""
    rows = []
    for i in range(6):
        data = (b"password = 'hunter2hunter2'\n" if i % 2 else b"x = 1\n") * (i + 1)
        (tmp_path / f"f{i}").write_bytes(data)
        rows.append({"id": f"f{i}", "path": f"f{i}", "split": "test", "labels": {
            "coarse": "code", "mime": "text/plain", "risk": ["password"] if i % 2 else []}})
    (tmp_path / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    subprocess.run([sys.executable, str(BENCH / "compare.py"), "--data", str(tmp_path / "test.jsonl"),
                    "--model", str(model_dir), "--tiers", "tiny,pro", "--tasks", "mime,risk",
                    "--repeats", "1", "--out-dir", str(tmp_path), "--out-name", "c"],
                   check=True, capture_output=True, timeout=600)
    doc = json.loads((tmp_path / "c.json").read_text())
    assert "picohead-pro" in doc["info"]["skipped_tools"]  # the toy model has no pro tier
    for task in ("mime", "risk"):
        row = doc["tasks"][task]["tools"]["picohead-tiny"]
        assert row["n"] == 6 and row["latency"]["p50_ms"] > 0 and row["size_bytes"] > 0
    assert (tmp_path / "c.md").read_text().count("picohead tiny") >= 2
    assert (tmp_path / "c.png").stat().st_size > 0
