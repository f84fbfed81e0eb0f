"""A local Dask cluster (2 worker processes, 1 thread each) gives exactly the single-process results.

Runs in the default suite (about 10-20 s, most of it starting the cluster once for the module).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from picohead_runtime.scale import ScaleConfig  # noqa: E402
from picohead_runtime.scale.batch import cached_configs  # noqa: E402
from picohead_runtime.scale.dask_adapter import (  # noqa: E402
    bytes_dataframe,
    classify_dataframe,
    iter_partitions,
    paths_dataframe,
)
from picohead_runtime.scale.scan import scan  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=40,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_dask_paths_match_single_process(client, scale_config, tree_paths, expected):
    ddf = paths_dataframe(tree_paths, chunksize=2 * scale_config.batch_size)
    assert ddf.npartitions > 2
    out = classify_dataframe(ddf, scale_config).compute()
    assert out["result"].tolist() == expected
    assert list(out.index) == list(range(len(tree_paths)))
    # both worker processes built their own classifier, lazily, and keep it for later partitions
    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2
    cached = client.run(cached_configs)
    assert all(configs == [scale_config] for configs in cached.values()), cached


def test_dask_bytes_match_single_process(client, scale_config, tree_paths):
    from picohead_runtime import Classifier
    from picohead_runtime.cli import format_jsonl

    files = [p for p in tree_paths if os.path.isfile(p) and not os.path.islink(p)]
    data = [Path(p).read_bytes() for p in files]
    clf = Classifier(scale_config.model, tier="tiny", batch_size=scale_config.batch_size)
    want = [format_jsonl(r) for r in clf.classify_many_bytes(data)]
    want = [line.replace('"path":null', '"path":%s') for line in want]
    ddf = bytes_dataframe(data, names=None, chunksize=scale_config.batch_size)
    out = classify_dataframe(ddf, scale_config, input="bytes").compute()
    assert [line.replace('"path":null', '"path":%s') for line in out["result"]] == want


def test_dask_scan_streams_in_order(client, scale_config, tree, tree_paths, expected):
    rel = [os.path.relpath(p, tree) for p in tree_paths]
    cfg = ScaleConfig(model=scale_config.model, tier="tiny", batch_size=16, base_dir=str(tree))
    address = client.scheduler.address
    chunks = list(scan(iter(rel), cfg, engine="dask", address=address, workers=2))
    assert len(chunks) > 1
    got = [json.loads(line) for c in chunks for line in c["result"]]
    want = [json.loads(line) for line in expected]
    # the same answers, reported with the relative names they were given
    assert [g["path"] for g in got] == rel
    drop = ("path", "path_b64")
    assert [{k: v for k, v in g.items() if k not in drop} for g in got] == [
        {k: v for k, v in w.items() if k not in drop} for w in want
    ]


def test_iter_partitions_keeps_order_with_a_small_window(
    client, scale_config, tree_paths, expected
):
    ddf = classify_dataframe(paths_dataframe(tree_paths, chunksize=16), scale_config)
    parts = list(iter_partitions(ddf, client, in_flight=1))
    assert [line for p in parts for line in p["result"]] == expected


def test_picohead_scan_engine_dask(client, scale_model, tree, expected, tmp_path):
    # joins the module's cluster (--address); starting one more would double this module's time
    from click.testing import CliRunner

    from picohead.cli import main

    out = tmp_path / "out.jsonl"
    args = [
        "scan",
        str(tree),
        "--engine",
        "dask",
        "--address",
        client.scheduler.address,
        "--model",
        str(scale_model),
        "--tier",
        "tiny",
        "--batch-size",
        "16",
        "-o",
        str(out),
        "--no-progress",
    ]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert out.read_text().splitlines() == expected[:-1]
    assert json.loads(res.stderr.strip().splitlines()[-1])["engine"] == "dask"
