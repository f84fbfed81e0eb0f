"""``picohead classify`` / ``python -m picohead_runtime``: formats, exit codes, odd paths."""

import json
import os
import subprocess
import sys

import pytest
import toy_models

from picohead_runtime.cli import format_human, main


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "tree"
    (d / "sub").mkdir(parents=True)
    (d / "a.py").write_bytes(b"def f(x):\n    return x\n")
    (d / "b.txt").write_bytes(b"The cat sat on the mat.\n")
    (d / "sub" / "c.bin").write_bytes(bytes(range(256)))
    (d / "empty").write_bytes(b"")
    return d


def _run(capsys, *argv):
    code = main([str(a) for a in argv], prog="picohead classify")
    out, err = capsys.readouterr()
    return code, out, err


def test_human_lines(model_dir, files, capsys):
    code, out, err = _run(capsys, "--model", model_dir, files / "a.py", files / "missing")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{files / 'a.py'}: kind=") and "risk=[" in lines[0]
    assert lines[1] == f"{files / 'missing'}: [not_found] (No such file or directory)"


def test_jsonl_streams_one_object_per_file(model_dir, files, capsys):
    code, out, _ = _run(capsys, "--model", model_dir, "--tier", "tiny", "--jsonl", "-r", files)
    assert code == 0
    docs = [json.loads(line) for line in out.splitlines()]
    assert [os.path.relpath(d["path"], files) for d in docs] == [
        "a.py",
        "b.txt",
        "empty",
        "sub/c.bin",
    ]
    assert [d["status"] for d in docs] == ["ok", "ok", "empty", "ok"]
    assert all(d["tier"] == "tiny" and d["model"] == "toy" for d in docs)
    assert set(docs[0]["heads"]) >= {"kind", "risk"}


def test_json_array_and_top_k(model_dir, files, capsys):
    code, out, _ = _run(
        capsys, "--model", model_dir, "--json", "--top-k", "1", files / "a.py", files
    )
    assert code == 0
    docs = json.loads(out)
    assert [d["status"] for d in docs] == ["ok", "is_directory"]  # no -r: a folder is a status
    assert len(docs[0]["heads"]["kind"]["top_k"]) == 1


def test_fail_on_exit_codes(model_dir, files, capsys):
    label = json.loads(_run(capsys, "--model", model_dir, "--jsonl", files / "b.txt")[1])["heads"][
        "kind"
    ]["label"]
    other = next(x for x in ("code", "text", "binary") if x != label)
    code, _, err = _run(capsys, "--model", model_dir, "--fail-on", f"kind={label}", files / "b.txt")
    assert code == 1 and "matched --fail-on" in err
    code, _, _ = _run(capsys, "--model", model_dir, "--fail-on", f"kind={other}", files / "b.txt")
    assert code == 0


def test_fail_on_multilabel(model_dir, files, tmp_path, capsys):
    """A multilabel rule matches when the label is on: threshold 0 switches every label on."""

    def all_on(doc):
        doc["spec"]["heads"][2]["threshold"] = 0.0

    m = toy_models.rewrite_meta(model_dir / "toy-tiny-fp32.onnx", tmp_path / "on.onnx", all_on)
    assert _run(capsys, "--model", m, "--fail-on", "risk=email", files / "b.txt")[0] == 1

    def all_off(doc):
        doc["spec"]["heads"][2]["threshold"] = 1.0

    m = toy_models.rewrite_meta(model_dir / "toy-tiny-fp32.onnx", tmp_path / "off.onnx", all_off)
    assert _run(capsys, "--model", m, "--fail-on", "risk=email", files / "b.txt")[0] == 0


def test_fail_on_a_disabled_label_is_a_usage_error_and_text_says_na(
    model_dir, files, tmp_path, capsys
):
    """A rule on a label the model never gives would always pass: refused, exit 2."""

    def disable(doc):
        risk = doc["spec"]["heads"][2]
        risk["disabled_labels"] = list(risk["labels"])

    m = toy_models.rewrite_meta(model_dir / "toy-tiny-fp32.onnx", tmp_path / "d.onnx", disable)
    with pytest.raises(SystemExit) as e:
        _run(capsys, "--model", m, "--fail-on", "risk=email", files / "b.txt")
    assert e.value.code == 2 and "never gives 'email'" in capsys.readouterr().err
    code, out, _ = _run(capsys, "--model", m, files / "b.txt")
    assert code == 0 and "risk=n/a" in out
    doc = json.loads(_run(capsys, "--model", m, "--jsonl", files / "b.txt")[1])
    assert doc["heads"]["risk"]["labels"] == [] and doc["heads"]["risk"]["disabled"]


@pytest.mark.parametrize(
    "rule, message",
    [
        ("kind", "expected HEAD=LABEL"),
        ("nohead=x", "no head named 'nohead'"),
        ("kind=archive", "has no label 'archive'"),
        ("risk=unknown", "has no label 'unknown'"),
    ],
)
def test_bad_fail_on_is_a_usage_error(model_dir, files, capsys, rule, message):
    with pytest.raises(SystemExit) as e:
        _run(capsys, "--model", model_dir, "--fail-on", rule, files / "a.py")
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_is_a_valid_fail_on_label(model_dir, files, capsys):
    assert _run(capsys, "--model", model_dir, "--fail-on", "kind=unknown", files / "a.py")[0] == 0


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--jsonl", "--json", "x"],
        ["--top-k", "0", "x"],
        ["--threads", "-1", "x"],
        ["--device", "tpu", "x"],
        ["--no-such-flag", "x"],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2


def test_model_errors_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    code, out, err = _run(capsys, "--model", bad, tmp_path)
    assert code == 2 and out == "" and "bad.onnx" in err


def test_no_model_exit_2(monkeypatch, tmp_path, capsys):
    import picohead_runtime.model as model_mod

    monkeypatch.delenv("PICOHEAD_MODEL", raising=False)
    monkeypatch.setattr(model_mod.importlib.resources, "files", lambda pkg: tmp_path)
    code, _, err = _run(capsys, tmp_path)
    assert code == 2 and "no bundled model" in err


def test_odd_paths_are_escaped_in_every_format(model_dir, tmp_path, capsys):
    raw = os.fsencode(tmp_path) + b"/line\nbreak\x1b[31m-\xff.txt"
    with open(raw, "wb") as f:
        f.write(b"hello\n")
    name = os.fsdecode(raw)
    code, out, _ = _run(capsys, "--model", model_dir, name)
    assert code == 0 and out.count("\n") == 1 and "\x1b" not in out
    assert "\\n" in out and "\\x1b" in out and "\\udcff" in out
    code, out, _ = _run(capsys, "--model", model_dir, "--jsonl", name)
    assert out.count("\n") == 1 and out.isascii()
    doc = json.loads(out)
    assert doc["path"] == name and doc["status"] == "ok"
    import base64

    assert base64.b64decode(doc["path_b64"]) == raw
    code, out, _ = _run(capsys, "--model", model_dir, "--json", name)
    assert json.loads(out)[0]["path"] == name and out.isascii()


def test_human_format_quotes_only_odd_names():
    from picohead_runtime.results import Result

    assert format_human(Result(path="a b.txt", status="empty")).startswith("a b.txt: ")
    assert format_human(Result(path="a\\b", status="empty")).startswith("'a\\\\b': ")


def _subprocess(args, **kw):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, timeout=120, check=False, **kw
    )


def test_both_entry_points_give_identical_output(model_dir, files):
    args = ["--model", str(model_dir), "--jsonl", "-r", str(files)]
    a = _subprocess(["-m", "picohead", "classify", *args])
    b = _subprocess(["-m", "picohead_runtime", *args])
    assert a.returncode == b.returncode == 0, (a.stderr, b.stderr)
    assert a.stdout == b.stdout and a.stdout.count(b"\n") == 4
    assert a.stderr == b.stderr == b""  # no progress bar when stderr is not a terminal


def test_stdin_dash(model_dir, files):
    data = (files / "a.py").read_bytes()
    r = _subprocess(
        ["-m", "picohead_runtime", "--model", str(model_dir), "--jsonl", "-"], input=data
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["path"] == "-" and doc["status"] == "ok"
    direct = _subprocess(
        ["-m", "picohead_runtime", "--model", str(model_dir), "--jsonl", str(files / "a.py")]
    )
    assert json.loads(direct.stdout)["heads"] == doc["heads"]


def test_fail_on_exit_code_through_picohead(model_dir, files):
    r = _subprocess(
        ["-m", "picohead", "classify", "--model", str(model_dir), "--fail-on", "kind", "x"]
    )
    assert r.returncode == 2 and b"HEAD=LABEL" in r.stderr


def test_progress_line_only_on_a_terminal(monkeypatch):
    import io

    from picohead_runtime.cli import Progress

    s = io.StringIO()
    p = Progress(enabled=False, stream=s)
    for _ in range(1000):
        p.update()
    assert s.getvalue() == ""
    p = Progress(enabled=True, stream=s)
    p.start -= 5  # pretend the scan has run for a while
    p.last -= 5
    for _ in range(128):
        p.update()
    p.close()
    assert "files (" in s.getvalue() and s.getvalue().endswith("\r\x1b[K")


def test_broken_pipe_is_quiet(model_dir, files):
    many = [str(files / "a.py")] * 3000
    proc = subprocess.Popen(
        [sys.executable, "-m", "picohead_runtime", "--model", str(model_dir), *many],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err


def test_recursive_scan_does_not_follow_symlinks_unless_asked(model_dir, files, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"not part of the tree\n")
    (files / "link-dir").symlink_to(outside)
    (files / "link-file").symlink_to(files / "a.py")
    code, out, _ = _run(capsys, "--model", model_dir, "--jsonl", "-r", files)
    docs = {
        os.path.relpath(d["path"], files): d["status"] for d in map(json.loads, out.splitlines())
    }
    assert docs["link-dir"] == docs["link-file"] == "not_regular_file"
    assert not any("secret" in p for p in docs)
    code, out, _ = _run(capsys, "--model", model_dir, "--jsonl", "-r", "--follow-symlinks", files)
    docs = {
        os.path.relpath(d["path"], files): d["status"] for d in map(json.loads, out.splitlines())
    }
    assert docs["link-dir/secret.txt"] == "ok" and docs["link-file"] == "ok"
