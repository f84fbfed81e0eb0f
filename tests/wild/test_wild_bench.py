"""benchmarks/wild.py score on a hand-made suite with the bundled model (no anchors): the report
has every task's figures, the padding and batch checks, and a Markdown table."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from picohead.wild.suite import StageWriter, finalise

ROOT = Path(__file__).resolve().parents[2]


def tiny_png() -> bytes:
    """A real 1x1 RGB PNG (signature, IHDR, IDAT, IEND), not a signature padded with NULs, which
    reads as a tar header to a byte model."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def make_suite(root: Path) -> None:
    code = StageWriter(root, "code_lang")
    code.add(b"def f(x):\n    return x + 1\n\nprint(f(2))\n", "python", producer="git:a/py",
             licence="MIT", path="a.py")
    code.add(b"fn main() {\n    println!(\"hi\");\n}\n", "rust", producer="git:b/rs",
             licence="MIT", path="main.rs")
    code.close()
    text = StageWriter(root, "text_lang")
    text.add("Das ist ein ganz normaler deutscher Satz über das Wetter.".encode(), "de",
             producer="git:c/de", licence="CC-BY-SA-4.0", path="de.conllu", kind="sentence")
    text.add(b"guten Morgen", "de", producer="git:c/de", licence="CC-BY-SA-4.0",
             path="de.conllu", kind="two_words")
    text.close()
    mime = StageWriter(root, "mime")
    mime.add(tiny_png(), "image/png", producer="git:d/png", licence="MIT", path="a.png")
    mime.add(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "application/pdf",
             producer="git:e/pdf", licence="MIT", path="a.pdf")
    mime.close()
    risk = StageWriter(root, "risk")
    risk.add(b"db:\n  password: Tr0ub4dor&3xyz\n", ["password"], producer="git:f/cfg",
             licence="MIT", path="c.yml", kind="positive")
    risk.add(b"{}", [], producer="git:f/cfg", licence="MIT", path="-", kind="tiny")
    risk.add(b"", [], producer="git:f/cfg", licence="MIT", path="-", kind="tiny")
    risk.close()
    recs = finalise(root)
    for r in recs:  # put everything in one half for the test
        r["split"] = "test"
    (root / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_score_reports_every_task_and_the_robustness_checks(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    make_suite(suite)
    out = tmp_path / "wild.json"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "score", "--suite",
                        str(suite), "--tiers", "tiny,small", "--no-anchors", "--out", str(out)],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr
    rep = json.loads(out.read_text())
    assert set(rep["tasks"]) == {"mime", "code_lang", "text_lang", "risk"}
    code = rep["tasks"]["code_lang"]["picohead"]["small"]
    assert code["n"] == 2 and 0.0 <= code["accuracy"] <= 100.0
    assert code["raw_top1"] >= code["accuracy"]
    text = rep["tasks"]["text_lang"]["picohead"]["tiny"]["by_kind"]
    assert set(text) == {"sentence", "two_words"}
    risk = rep["tasks"]["risk"]["picohead"]["small"]
    assert set(risk["per_flag"]) >= {"password", "jwt"} and "tiny" in risk["negatives_flagged"]
    rob = rep["robustness"]["tiny"]
    assert set(rob["padding"]) == {"lead_newlines_1k", "lead_whitespace_8k", "trail_newlines_4k",
                                   "lead_nul_1k"}
    assert rob["batch"]["n"] == 7 and rob["tiny_inputs"]["n"] == 2
    md = out.with_suffix(".md").read_text()
    assert "## code_lang" in md and "## Robustness" in md


def test_score_refuses_an_empty_half(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "manifest.jsonl").write_text("")
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "score", "--suite",
                        str(suite), "--no-anchors", "--out", str(tmp_path / "w.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "no test records" in p.stderr


def test_score_names_a_tier_the_model_lacks_before_scoring(tmp_path: Path) -> None:
    import shutil

    from picohead_runtime.model import default_model_dir

    suite = tmp_path / "suite"
    make_suite(suite)
    model = tmp_path / "model"
    shutil.copytree(default_model_dir(), model)
    (model / "base.onnx").unlink()
    out = tmp_path / "w.json"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "score", "--suite",
                        str(suite), "--model", str(model), "--tiers", "tiny,base", "--no-anchors",
                        "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert "no model for tier 'base'" in p.stderr and "Traceback" not in p.stderr
    assert not out.exists()


def test_wild_calibration_chooses_on_dev_and_writes_every_head(tmp_path: Path) -> None:
    """benchmarks/wild_calibration.py on a hand-made suite whose halves hold the same records:
    every task (risk included) is reported and --write notes where the thresholds came from."""
    import onnx

    from picohead_runtime.model_meta import META_KEY, ModelMeta

    suite = tmp_path / "suite"
    make_suite(suite)
    recs = [json.loads(line) for line in (suite / "manifest.jsonl").read_text().splitlines()]
    both = [{**r, "split": sp} for r in recs for sp in ("dev", "test")]
    (suite / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in both))
    # the suite's own blobs stand in for a corpus's validation split (--corpus reports on it)
    heads = {"mime": "mime", "code_lang": "code_lang", "text_lang": "text_lang"}
    (suite / "val.jsonl").write_text("".join(
        json.dumps({"path": r["path"], "labels": {heads[r["task"]]: r["label"]}}) + "\n"
        for r in recs if r["task"] in heads))
    out, copy = tmp_path / "cal.json", tmp_path / "model"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild_calibration.py"),
                        "--suite", str(suite), "--tiers", "small", "--out", str(out),
                        "--write", str(copy), "--corpus", str(suite)],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr
    rep = json.loads(out.read_text())
    assert rep["written_over_budget"] == {}  # the bundled small fits once written
    assert set(rep["tasks"]) == {"mime", "code_lang", "text_lang", "risk"}
    risk = rep["tasks"]["risk"]["tiers"]["small"]
    assert set(risk["dev_chosen"]["per_flag"]) >= {"password"} and "password" in risk["dev_flags"]
    assert "Risk on wild-dev" in out.with_suffix(".md").read_text()  # test only when asked
    assert rep["reported_on"] == "dev" and "test" not in rep["tasks"]["risk"]
    mime = rep["tasks"]["mime"]["tiers"]["small"]
    assert mime["dev_per_label"]["penalty"] > 0 and "dev_chosen_per_label" in mime
    assert "per label (penalty, pooling, labels, f)" in out.with_suffix(".md").read_text()
    md = out.with_suffix(".md").read_text()  # accuracy against coverage, one row per task and tier
    sweep = md.split("Accuracy against coverage on wild-dev", 1)[1].split("\n\n")[1]
    assert sum(ln.startswith("| mime | small | ") and ln.count(" / ") == 8
               for ln in sweep.splitlines()) == 1  # one cell per threshold of the sweep
    c = mime["curve"]
    assert c["0.0"]["unanswered"] <= c["0.99"]["unanswered"]  # a higher threshold answers less
    assert mime["written"] in ("per_label", "one_threshold")
    assert set(mime["corpus_val"]) == {"shipped", "one_threshold", "per_label"}
    assert sum(mime["corpus_val"]["shipped"].values()) == pytest.approx(100, abs=0.1)
    assert "corpus's validation split" in out.with_suffix(".md").read_text()
    stored = {p.key: p.value for p in onnx.load(str(copy / "small.onnx")).metadata_props}[META_KEY]
    assert stored.startswith("xz85:")  # written compressed (ModelMeta.to_prop)
    meta = json.loads(ModelMeta.from_json(stored).to_json())
    assert "wild suite's dev half" in meta["extra"]["calibration"]
    m = next(h for h in meta["spec"]["heads"] if h["name"] == "mime")
    chosen = mime["dev_per_label"] if mime["written"] == "per_label" else mime["dev_fallback"]
    assert m["threshold"] == chosen["threshold"]  # what the report says is written
    assert m.get("fallback_threshold", 0.5) == chosen["fallback_threshold"]
    assert bool(m.get("label_thresholds")) == (mime["written"] == "per_label")
    h = next(h for h in meta["spec"]["heads"] if h["name"] == "risk")
    assert h["label_thresholds"]["password"] == risk["dev_flags"]["password"]["threshold"]


def test_wild_calibration_says_when_a_written_tier_is_over_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe checks size budgets before the wild-dev metadata is written (content-v9rc1's
    tiny went 64,029 -> 69,549 B): --write names a tier that no longer fits, and exits 1."""
    import wild_calibration

    suite = tmp_path / "suite"
    make_suite(suite)
    recs = [json.loads(line) for line in (suite / "manifest.jsonl").read_text().splitlines()]
    both = [{**r, "split": sp} for r in recs for sp in ("dev", "test")]
    (suite / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in both))
    out, copy = tmp_path / "cal.json", tmp_path / "model"
    monkeypatch.setattr(wild_calibration, "SIZE_BUDGET", {"tiny": 1000})
    monkeypatch.setattr(sys, "argv", ["wild_calibration.py", "--suite", str(suite), "--tiers",
                                      "tiny", "--out", str(out), "--write", str(copy),
                                      "--report", "test"])
    assert wild_calibration.main() == 1
    rep = json.loads(out.read_text())
    assert rep["reported_on"] == "test" and out.with_suffix(".md").read_text().startswith(
        "Wild-test, % of samples")  # test outcomes only when asked for
    over = rep["written_over_budget"]
    assert set(over) == {"tiny"} and over["tiny"] == (copy / "tiny.onnx").stat().st_size
    assert "tiny is over its size budget once written" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["model", "suite", "corpus"])
def test_wild_calibration_names_a_bad_argument_before_scoring(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        bad: str) -> None:
    import wild_calibration

    suite = tmp_path / "suite"
    make_suite(suite)
    argv = {"--suite": str(suite), "--tiers": "small", "--out": str(tmp_path / "cal.json")}
    argv[{"model": "--model", "suite": "--suite", "corpus": "--corpus"}[bad]] = str(tmp_path / "no")
    monkeypatch.setattr(sys, "argv", ["wild_calibration.py", *sum(map(list, argv.items()), [])])
    assert wild_calibration.main() == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "no") in err and "Traceback" not in err
    assert not (tmp_path / "cal.json").exists()


def test_wild_raw_gives_raw_top1_per_label_for_each_model(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import wild_raw

    from picohead_runtime.model import default_model_dir

    suite = tmp_path / "suite"
    make_suite(suite)
    out = tmp_path / "raw.json"
    model = str(default_model_dir())
    assert wild_raw.main([model, model, "--suite", str(suite), "--split", "test", "--task", "mime",
                          "--tiers", "tiny,pro", "--labels", "image/png", "--out", str(out)]) == 0
    res = json.loads(out.read_text())["models"][model]
    pro = res["pro"]
    assert pro["n"] == 2 and set(pro["per_label"]) == {"image/png", "application/pdf"}
    right = sum(v["raw_top1"] * v["n"] / 100 for v in pro["per_label"].values())
    assert abs(100 * right / pro["n"] - pro["raw_top1"]) < 0.1  # overall is the per-label sum
    assert pro["per_label"]["image/png"]["raw_top1"] == 100.0  # a PNG signature, ranked first
    paired = json.loads(out.read_text())["paired"]  # a model beside itself: no difference
    assert paired["pro"] == {"diff": 0.0, "p5": 0.0, "p95": 0.0, "b_ahead": 0.0}
    risk_out = tmp_path / "risk.json"
    assert wild_raw.main([model, "--suite", str(suite), "--split", "test", "--task", "risk",
                          "--tiers", "pro", "--out", str(risk_out)]) == 0
    pro_risk = json.loads(risk_out.read_text())["models"][model]["pro"]
    # the one password row, ranked above the empty and the {} inputs at some threshold
    assert pro_risk["password"]["positives"] == 1 and pro_risk["password"]["f1"] == 1.0
    assert pro_risk["jwt"] == {"f1": 0.0, "threshold": None, "lookalikes_flagged": None,
                               "positives": 0}  # no JWT among the records: no F1



def test_wild_raw_names_a_missing_tier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import shutil

    import wild_raw

    from picohead_runtime.model import default_model_dir

    folder = tmp_path / "three"
    shutil.copytree(default_model_dir(), folder)
    (folder / "tiny.onnx").unlink()
    suite = tmp_path / "suite"
    make_suite(suite)
    assert wild_raw.main([str(folder), "--suite", str(suite), "--tiers", "tiny,pro"]) == 2
    err = capsys.readouterr().err
    assert "tiny" in err and "--tiers" in err and "Traceback" not in err


def test_wild_raw_paired_bootstrap_resamples_producers() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import wild_raw

    # B right on every file of producer p0 where A is wrong; elsewhere both alike
    a = [0] * 10 + [1] * 30
    b = [1] * 10 + [1] * 30
    prods = ["p0"] * 10 + [f"p{1 + i // 10}" for i in range(30)]
    p = wild_raw.paired_bootstrap(a, b, prods)
    assert p["diff"] == 25.0 and p["p5"] <= 25.0 <= p["p95"] and p["p5"] >= 0.0
    assert 0.5 < p["b_ahead"] < 1.0  # a draw without p0 shows no difference


def test_build_refuses_unreadable_pinned_splits_before_building(tmp_path: Path) -> None:
    (tmp_path / "splits.json").write_text('["not", "a", "map"]')
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "build", "--suite",
                        str(tmp_path / "W"), "--cache", str(tmp_path / "C"), "--mirrors",
                        str(tmp_path / "M"), "--splits", str(tmp_path / "splits.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "not a project" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "W").exists()  # nothing built


def test_build_with_no_builders_refinalises_the_stages_against_a_corpus(tmp_path: Path) -> None:
    suite = tmp_path / "W"
    mime = StageWriter(suite, "mime")  # producers no corpus recipe knows
    png = mime.add(b"\x89PNG\r\n\x1a\n" + bytes(60), "image/png", producer="git:qzx-one/qzx-png",
                   licence="MIT", path="a.png")["id"]
    mime.add(b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n", "application/pdf",
             producer="git:qzx-two/qzx-pdf", licence="MIT", path="a.pdf")
    mime.close()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train.jsonl").write_text(json.dumps({"id": png, "source": "deb:qzx-corpus"}) + "\n")

    def build(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "build",
                               "--suite", str(suite), "--cache", str(tmp_path / "C"), "--mirrors",
                               str(tmp_path / "M"), "--builders", "", "--splits", "", *extra],
                              capture_output=True, text=True, timeout=120)

    p = build()
    assert p.returncode == 0, p.stdout + p.stderr
    assert len((suite / "manifest.jsonl").read_text().splitlines()) == 2
    p = build("--corpus-manifest", str(corpus))  # the corpus came later: no builder runs again
    assert p.returncode == 0, p.stdout + p.stderr
    ids = [json.loads(x)["id"] for x in (suite / "manifest.jsonl").read_text().splitlines()]
    assert len(ids) == 1 and png not in ids
    card = json.loads((suite / "card.json").read_text())
    assert [d["id"] for d in card["dropped_as_corpus_content"]] == [png]
    assert card["failed_builders"] == {} and (suite / "splits.json").is_file()


def test_clone_list_into_a_closed_pipe_is_no_traceback() -> None:
    # `wild.py clone-list | head -1`: the reader leaves after one line of ~70 KB
    p = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "wild.py"), "clone-list"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline().startswith(b"git init")
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0 and "Traceback" not in err and "BrokenPipe" not in err


def test_bound_holdout_calibrates_on_one_half_of_the_producers_and_reads_the_other(
        tmp_path: Path) -> None:
    """benchmarks/bound_holdout.py on a hand-made dev half of eight MIME producers: every split
    calibrates on some producers and reads the rest, for each method asked for."""
    suite = tmp_path / "suite"
    mime = StageWriter(suite, "mime")
    for i in range(8):
        mime.add(tiny_png() + bytes([i]), "image/png", producer=f"git:p{i}/png", licence="MIT",
                 path=f"{i}.png")
        mime.add(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + str(i).encode() + b" 0 obj\n<<>>\nendobj\n",
                 "application/pdf", producer=f"git:p{i}/png", licence="MIT", path=f"{i}.pdf")
    mime.close()
    recs = finalise(suite)
    (suite / "manifest.jsonl").write_text("".join(json.dumps({**r, "split": "dev"}) + "\n"
                                                  for r in recs))
    out = tmp_path / "bh.json"
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bound_holdout.py"),
                        "--suite", str(suite), "--tiers", "tiny", "--tasks", "mime",
                        "--splits", "3", "--quantiles", "none,0.9", "--out", str(out)],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr
    x = json.loads(out.read_text())["results"]["tiny"]["mime"]
    assert x["dev_rows"] == 16 and x["producers"] == 8
    assert set(x["summary"]) == {"point", "upper90"}
    for runs in x["runs"].values():
        assert runs and all(r["calibrated_rows"] + r["held_out_rows"] == 16 for r in runs)
        assert all(sum(r["held_out"].values()) == pytest.approx(100, abs=0.1) for r in runs)
    s = x["summary"]["point"]
    assert 0 <= s["held"] <= s["of"] <= 3
    assert "| tiny | mime | upper90 |" in out.with_suffix(".md").read_text()
