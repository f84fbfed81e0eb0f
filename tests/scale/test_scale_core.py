"""The engine-free core: config, per-process cache, batch call, columns, pickling, ``picohead scan``."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from picohead_runtime.cli import format_jsonl
from picohead_runtime.scale import (
    ScaleConfig,
    classifier_for,
    classify_batch,
    output_columns,
    result_columns,
)
from picohead_runtime.scale.batch import cached_configs


def test_config_is_absolute_hashable_and_picklable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = ScaleConfig(model="m/content-v1", base_dir=".")
    assert cfg.model == str(tmp_path / "m" / "content-v1")
    assert cfg.base_dir == str(tmp_path)
    assert pickle.loads(pickle.dumps(cfg)) == cfg
    assert hash(cfg) == hash(
        ScaleConfig(model=str(tmp_path / "m/content-v1"), base_dir=str(tmp_path))
    )
    with pytest.raises(ValueError, match="at least 1"):
        ScaleConfig(threads=0)


def test_cache_builds_one_classifier_per_config(scale_config):
    a = classifier_for(scale_config)
    assert classifier_for(scale_config) is a
    assert scale_config in cached_configs()
    other = ScaleConfig(model=scale_config.model, tier="small")
    assert classifier_for(other) is not a
    assert classifier_for(other).tier == "small"


def _child(cfg, parent_id, q):
    q.put((cached_configs(), id(classifier_for(cfg)) != parent_id, classifier_for(cfg).tier))


def test_a_forked_child_builds_its_own_classifier(scale_config):
    import multiprocessing as mp

    parent = classifier_for(scale_config)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(scale_config, id(parent), q))
    p.start()
    inherited, fresh, tier = q.get(timeout=60)
    p.join(60)
    assert (inherited, fresh, tier) == ([], True, "tiny")


def test_batch_over_paths_matches_single_process(scale_config, tree_paths, expected):
    got = [format_jsonl(r) for r in classify_batch(scale_config, paths=tree_paths)]
    assert got == expected
    statuses = {json.loads(line)["status"] for line in got}
    assert {"ok", "empty", "not_regular_file", "not_found"} <= statuses


def test_base_dir_reads_relative_paths_but_reports_them_as_given(scale_config, tree, tree_paths):
    rel = [os.path.relpath(p, tree) for p in tree_paths]
    cfg = ScaleConfig(model=scale_config.model, tier="tiny", base_dir=str(tree))
    got = classify_batch(cfg, paths=rel)
    assert [r.path for r in got] == rel
    ref = classify_batch(scale_config, paths=tree_paths)
    assert [(r.status, r.heads) for r in got] == [(r.status, r.heads) for r in ref]


def test_null_paths_are_read_errors(scale_config, tree_paths, expected):
    got = classify_batch(scale_config, paths=[None, *tree_paths[:3], None])
    assert [format_jsonl(r) for r in got[1:4]] == expected[:3]
    for r in (got[0], got[-1]):
        assert (r.path, r.status, r.message) == (None, "read_error", "no path (null)")


def test_batch_over_bytes_matches_classify_bytes(scale_config):
    clf = classifier_for(scale_config)
    data = [b"def f(x):\n    return x\n", b"", b"hello world. the end.", None, b"\x7fELF\x02\x01"]
    names = ["a.py", "e", None, "null", "bin"]
    got = classify_batch(scale_config, data=data, names=names)
    assert [r.path for r in got] == names
    for r, d, n in zip(got, data, names):
        if d is None:
            assert (r.status, r.message) == ("read_error", "no content (null)")
        else:
            assert r.asdict() == clf.classify_bytes(d, path=n).asdict()
    with pytest.raises(TypeError, match="exactly one"):
        classify_batch(scale_config)
    with pytest.raises(ValueError, match="names has 1"):
        classify_batch(scale_config, data=[b"x", b"y"], names=["x"])


def test_result_columns(scale_config, tree_paths, expected):
    spec = classifier_for(scale_config).spec
    results = classify_batch(scale_config, paths=tree_paths)
    cols = result_columns(results, spec)
    assert (
        list(cols)
        == output_columns(spec)
        == [
            "path",
            "ok",
            "status",
            "model",
            "tier",
            "message",
            "label_kind",
            "label_lang",
            "result",
        ]
    )
    assert cols["result"] == expected
    assert all(len(v) == len(tree_paths) for v in cols.values())
    for i, r in enumerate(results):
        assert cols["ok"][i] is r.ok
        assert cols["label_kind"][i] == (r.label("kind") if r.ok else None)
    bad = next(i for i, p in enumerate(tree_paths) if "\udcff" in p)
    assert cols["path"][bad].endswith("bad\ufffd.c")  # valid UTF-8 for Parquet
    assert "path_b64" in json.loads(cols["result"][bad])  # the exact name is kept


# -- the adapters travel without a session ------------------------------------------------------------
class _NoSessions(pickle.Pickler):
    """A pickler that fails on any onnxruntime session or classifier it meets."""

    def reducer_override(self, obj):
        from onnxruntime import InferenceSession

        from picohead_runtime import Classifier

        if isinstance(obj, (InferenceSession, Classifier)):
            raise AssertionError(f"tried to pickle {type(obj).__name__}")
        return NotImplemented


def _dumps(obj) -> bytes:
    import io

    buf = io.BytesIO()
    _NoSessions(buf).dump(obj)
    return buf.getvalue()


def test_a_classifier_cannot_be_pickled(scale_config):
    # why the adapters carry a config and a cache exists at all
    with pytest.raises(Exception):  # noqa: B017  (onnxruntime raises TypeError or RuntimeError)
        pickle.dumps(classifier_for(scale_config))


@pytest.mark.parametrize("kind", ["frame", "ray", "ray-bytes"])
def test_adapters_pickle_without_a_session(scale_config, tree_paths, kind):
    pd = pytest.importorskip("pandas")
    from picohead_runtime.scale.frames import FrameClassifier
    from picohead_runtime.scale.ray_adapter import RayClassifier  # no ray import needed

    if kind == "frame":
        adapter = FrameClassifier(scale_config)
    elif kind == "ray":
        adapter = RayClassifier(scale_config)
    else:
        adapter = RayClassifier(scale_config, input="bytes", name_column="path")
    frame = pd.DataFrame(
        {"path": pd.Series([os.fsencode(p) for p in tree_paths[:5]], dtype=object)}
    )
    if kind == "ray-bytes":
        frame["bytes"] = [b"x = 1\n"] * 5
    before = adapter(frame)  # used: this process now holds a session for its config
    assert scale_config in cached_configs()

    blob = _dumps(adapter)
    assert len(blob) < 2000 and b"InferenceSession" not in blob
    again = pickle.loads(blob)
    assert vars(again) == vars(adapter)
    assert again(frame).equals(before)

    import cloudpickle  # what Dask and Ray actually use

    assert b"InferenceSession" not in cloudpickle.dumps(adapter)


def test_frame_classifier_on_pandas(scale_config, tree_paths, expected):
    pd = pytest.importorskip("pandas")
    from picohead_runtime.scale.frames import FrameClassifier

    frame = pd.DataFrame(
        {"p": [os.fsencode(p) for p in tree_paths]}, index=range(10, 10 + len(tree_paths))
    )
    out = FrameClassifier(scale_config, column="p")(frame)
    assert list(out.index) == list(frame.index)
    assert out["result"].tolist() == expected
    assert out["ok"].dtype == bool
    assert out.dtypes.drop("ok").eq(object).all()
    assert list(FrameClassifier(scale_config).empty().columns) == list(out.columns)
    with pytest.raises(KeyError, match="column= to say"):
        FrameClassifier(scale_config)(frame)
    with pytest.raises(ValueError, match="name_column is for"):
        FrameClassifier(scale_config, name_column="x")


# -- picohead scan, local engine -------------------------------------------------------------------------
def _scan(args, **kw):
    from picohead.cli import main

    return CliRunner().invoke(main, ["scan", *args], catch_exceptions=False, **kw)


def test_scan_local_jsonl_matches_single_process(scale_model, tree, tree_paths, expected, tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_bytes(os.fsencode(tree_paths[-1]) + b"\n")  # the missing file, via a list
    out = tmp_path / "out.jsonl"
    res = _scan(
        [
            str(tree),
            "-f",
            str(listing),
            "--model",
            str(scale_model),
            "--tier",
            "tiny",
            "--batch-size",
            "16",
            "-o",
            str(out),
        ]
    )
    assert res.exit_code == 0, res.output
    assert out.read_text().splitlines() == expected
    summary = json.loads(res.stderr.strip().splitlines()[-1])
    assert summary["files"] == len(expected) and summary["engine"] == "local"


def test_scan_paths_from_stdin_to_stdout_relative(scale_model, tree, tree_paths, monkeypatch):
    monkeypatch.chdir(tree)
    rel = sorted(os.path.relpath(p, tree) for p in tree_paths if "\n" not in p)[:10]
    stdin = b"".join(os.fsencode(p) + b"\n" for p in rel)
    res = _scan(["-f", "-", "--model", str(scale_model), "--tier", "tiny"], input=stdin)
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["path"] for r in rows] == [os.fsdecode(os.fsencode(p)) for p in rel]


def test_scan_parquet(scale_model, tree, expected, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "out.parquet"
    res = _scan(
        [
            str(tree),
            "--model",
            str(scale_model),
            "--tier",
            "tiny",
            "--batch-size",
            "16",
            "-o",
            str(out),
        ]
    )
    assert res.exit_code == 0, res.output
    table = pq.read_table(out)
    assert table.column_names[:3] == ["path", "ok", "status"]
    assert table.column("result").to_pylist() == expected[:-1]  # no missing file this time
    assert str(table.schema.field("ok").type) == "bool"


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "nothing to scan"),
        (["x", "--format", "parquet"], "Parquet cannot go to stdout"),
        (["-"], "--from-file -"),
        (["x", "--address", "tcp://h:1"], "are for --engine dask or ray"),
        (["x", "--engine", "dask", "--cpus-per-worker", "0.5"], "is for --engine ray"),
    ],
)
def test_scan_usage_errors_exit_2(args, message):
    res = _scan(args)
    assert res.exit_code == 2
    assert message in res.output


def test_scan_bad_model_exits_2(tmp_path):
    res = _scan([str(tmp_path), "--model", str(tmp_path / "nope.onnx")])
    assert res.exit_code == 2
    assert "no such model" in res.stderr


def test_scan_help_in_a_subprocess():
    p = subprocess.run(
        [sys.executable, "-m", "picohead", "scan", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parent,
    )
    assert p.returncode == 0 and "--engine" in p.stdout


def test_spark_recipe_pieces_without_spark(scale_config, tree_paths, expected):
    """What docs/scaling.md hands to ``mapInPandas``: a pickled bound method and a DDL schema."""
    pd = pytest.importorskip("pandas")
    from picohead_runtime.scale.frames import FrameClassifier

    classify = FrameClassifier(scale_config)
    assert classify.ddl_schema().startswith("`path` string, `ok` boolean, `status` string")
    assert classify.ddl_schema().endswith("`label_lang` string, `result` string")
    fn = pickle.loads(_dumps(classify.map_frames))  # Spark pickles the function it runs
    encoded = pd.Series([os.fsencode(p) for p in tree_paths], dtype=object)
    frames = [pd.DataFrame({"path": encoded[i : i + 32]}) for i in range(0, len(encoded), 32)]
    got = [line for out in fn(iter(frames)) for line in out["result"]]
    assert got == expected
