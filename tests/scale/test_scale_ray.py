"""A local Ray cluster (``num_cpus=2``) gives exactly the single-process results.

Marked ``ray`` (starting Ray takes 10-30 s on a busy 2-core machine) and left out of the default
run; run it with ``pytest -m ray tests/scale``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")

from picohead_runtime.scale import ScaleConfig  # noqa: E402
from picohead_runtime.scale.ray_adapter import classify_dataset, paths_dataset  # noqa: E402
from picohead_runtime.scale.scan import scan  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    yield
    ray.shutdown()


def test_ray_paths_match_single_process(ray_cluster, scale_config, tree_paths, expected):
    # two actors at half a CPU each: the read tasks still get a CPU and nothing hangs
    ds = paths_dataset(tree_paths, block_size=2 * scale_config.batch_size)
    out = classify_dataset(ds, scale_config, actors=2, cpus_per_actor=0.5, batch_size=32)
    assert out.to_pandas()["result"].tolist() == expected


def test_ray_read_binary_files_matches_single_process(ray_cluster, scale_config, tree):
    from picohead_runtime import Classifier
    from picohead_runtime.cli import format_jsonl

    ds = ray.data.read_binary_files(str(tree / "d0"), include_paths=True)
    out = classify_dataset(ds, scale_config, input="bytes", name_column="path").to_pandas()
    assert len(out) > 10
    clf = Classifier(scale_config.model, tier="tiny", batch_size=scale_config.batch_size)
    for name, line in zip(out["path"], out["result"]):
        # Ray names files without the leading "/"; the contents decide the answer
        got = json.loads(line)
        want = json.loads(
            format_jsonl(clf.classify_bytes(Path("/" + name.lstrip("/")).read_bytes()))
        )
        assert got["heads"].keys() == want["heads"].keys()
        for head, h in want["heads"].items():
            assert got["heads"][head].get("label") == h.get("label")
            assert got["heads"][head].get("labels") == h.get("labels")


def test_ray_scan_matches_single_process(ray_cluster, scale_config, tree, tree_paths, expected):
    rel = [os.path.relpath(p, tree) for p in tree_paths]
    cfg = ScaleConfig(model=scale_config.model, tier="tiny", batch_size=16, base_dir=str(tree))
    chunks = list(scan(iter(rel), cfg, engine="ray", workers=2))
    got = [json.loads(line) for c in chunks for line in c["result"]]
    assert [g["path"] for g in got] == rel
    drop = ("path", "path_b64")
    assert [{k: v for k, v in g.items() if k not in drop} for g in got] == [
        {k: v for k, v in json.loads(w).items() if k not in drop} for w in expected
    ]
