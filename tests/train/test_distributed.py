"""`picohead train` under torchrun: 2 gloo processes on CPU stay in sync and learn."""

import json
import os
import subprocess
import sys

from picohead.testing import write_toy_corpus


def test_torchrun_two_processes(tmp_path):
    corpus = write_toy_corpus(tmp_path / "toy", n_train=400, n_eval=100)
    run = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        "-m",
        "picohead",
        "train",
        "--spec",
        str(corpus / "spec-steady.json"),
        "--data",
        str(corpus),
        "--out",
        str(run),
        "--steps",
        "60",
        "--eval-every",
        "20",
        "--batch-size",
        "16",
        "--cache",
        str(tmp_path / "cache"),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    # A rank used to abort at interpreter teardown ("terminate called without an active
    # exception", ~1 run in 14); since ranks leave with os._exit after the run (train_cli), 0 in
    # 80 runs. Should it come back, stdout shows whether training had finished by then.
    assert p.returncode == 0, p.stderr[-3000:] + "\n--- stdout ---\n" + p.stdout[-1500:]
    summaries = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert len(summaries) == 1  # only rank 0 reports
    s = summaries[0]
    assert s["world_size"] == 2
    digests = s["weights_digest_per_rank"]
    assert len(digests) == 2 and digests[0] == digests[1]  # identical weights on both ranks
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == [20, 40, 60]  # rank 0 alone writes the log
    assert records[-1]["loss"] < records[0]["loss"]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["data"]["world_size"] == 2
