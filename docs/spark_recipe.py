"""The Spark ``mapInPandas`` recipe from docs/scaling.md, runnable: classify a list of paths on
Spark, write Parquet, and with ``--check`` compare every row with one process.

Needs only ``picohead-runtime`` and ``pyspark`` (with pandas and pyarrow) and a Java runtime:

    pip install ./runtime pyspark pandas pyarrow
    python docs/spark_recipe.py --model MODEL --paths paths.txt --out results/ --check

``--master`` defaults to ``local[2]``; on a cluster, the model and the files must be at the same
paths on every executor. Checked with pyspark 4.3.0 and Java 17 (``local[2]``, 300 paths in one
input split): identical JSON for every row. Spark does not cut its splits at multiples of the
batch size, so with many splits a score can move in its 6th decimal (see docs/scaling.md).
"""

from __future__ import annotations

import argparse
import os
import sys

from picohead_runtime.scale import ScaleConfig
from picohead_runtime.scale.frames import FrameClassifier


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="an .onnx file or a model folder")
    ap.add_argument("--tier", default=None)
    ap.add_argument("--paths", required=True, help="a text file, one path per line")
    ap.add_argument("--out", required=True, help="Parquet output folder")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--check", action="store_true", help="compare with one process")
    args = ap.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(args.master)
        .appName("picohead-scan")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    # -- the recipe ---------------------------------------------------------------------------------
    classify = FrameClassifier(ScaleConfig(model=args.model, tier=args.tier))
    paths = spark.read.text(args.paths).withColumnRenamed("value", "path")
    results = paths.mapInPandas(classify.map_frames, schema=classify.ddl_schema())
    results.write.mode("overwrite").parquet(args.out)
    # -----------------------------------------------------------------------------------------------
    status = 0
    if args.check:
        from picohead_runtime import Classifier
        from picohead_runtime.cli import format_jsonl

        got = {r["path"]: r["result"] for r in spark.read.parquet(args.out).collect()}
        with open(args.paths, encoding="utf-8") as f:
            listed = [line.rstrip("\n") for line in f if line.strip()]
        clf = Classifier(args.model, tier=args.tier)
        want = {r.path: format_jsonl(r) for r in clf.classify_paths(listed)}
        same = sum(got.get(p) == line for p, line in want.items())
        print(f"{same}/{len(want)} rows identical to one process")
        status = 0 if same == len(want) else 1
    spark.stop()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
