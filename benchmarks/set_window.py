"""Copy a model folder with another window policy written into each tier's embedded spec.

A window experiment on models already trained: ``--skip-nul N`` turns on the leading NUL-run
skip of ``picohead_runtime.windows`` (``WindowSpec.skip_nul``) for a copy, so that ``wild.py
score`` shows what the runtime's side of the change does to answers, NUL padding included, before
a model is trained with it. The weights, thresholds and every other metadata field stay as they
are; the copy's files say the change in their metadata (``extra.window_set_by``).

    python benchmarks/set_window.py runtime/picohead_runtime/models/content-v18 OUT --skip-nul 64

What it does not do: train, recalibrate, or make the copy a shippable model (a model is run with
the windows it was trained on; this is for measuring).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from picohead.calibrate import rewrite_meta  # noqa: E402
from picohead_runtime.model_meta import ModelMeta  # noqa: E402


def set_window(src: Path, dst: Path, skip_nul: int) -> list[Path]:
    """Copy ``src`` (a model folder) to ``dst`` and write ``skip_nul`` into every ``*.onnx``'s
    embedded window spec; the rewritten files."""
    shutil.copytree(src, dst, dirs_exist_ok=True)

    def edit(meta: ModelMeta) -> ModelMeta:
        window = dataclasses.replace(meta.spec.window, skip_nul=skip_nul)
        return dataclasses.replace(meta, spec=dataclasses.replace(meta.spec, window=window),
                                   extra={**meta.extra, "window_set_by": "benchmarks/set_window.py"})

    out = sorted(dst.glob("*.onnx"))
    for path in out:
        rewrite_meta(path, edit)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path, help="a model folder (tier .onnx files)")
    ap.add_argument("out", type=Path, help="the folder to write the copy to")
    ap.add_argument("--skip-nul", type=int, required=True,
                    help="skip a leading NUL run of at least this many bytes (0: off)")
    a = ap.parse_args(argv)
    if a.skip_nul < 0:
        ap.error("--skip-nul must be 0 or more")
    if not a.model.is_dir() or not list(a.model.glob("*.onnx")):
        print(f"set_window: {a.model} is no model folder (no .onnx files)", file=sys.stderr)
        return 2
    try:
        for p in set_window(a.model, a.out, a.skip_nul):
            print(p)
    except (OSError, ValueError) as e:
        print(f"set_window: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
