"""Small exported models for the runtime and CLI tests (built once per test session).

A random-initialised toy ``steady`` model (3 heads: ``kind``, ``lang`` gated on ``kind == code``,
multilabel ``risk``; tiers ``tiny`` and ``small``) exported with ``picohead_exporters`` at fp32, and
helpers that rewrite a model's metadata (thresholds, labels) for the decoding and error tests.
Only tests import torch and onnx; the runtime never does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TIERS = ("tiny", "small")
_CACHE: dict[str, Path] = {}


def export_toy(out: Path, *, family: str = "steady", seed: int = 0) -> Path:
    """Export every tier of a random toy model into ``out`` (``toy-<tier>-fp32.onnx``)."""
    import torch

    from picohead.export import export_tier
    from picohead.models import build_model
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict(toy_spec(family))
    torch.manual_seed(seed)
    model = build_model(spec).eval()
    out.mkdir(parents=True, exist_ok=True)
    for tier in spec.tiers:
        export_tier(model, spec, tier, out=out, precision="fp32", latency_runs=1)
    return out


def source_key() -> str:
    """A hash of every source file an export depends on (models, exporter, spec, toy spec)."""
    import picohead
    import picohead_exporters
    import picohead_runtime

    roots = [
        Path(picohead.__file__).parent / "models",
        Path(picohead.__file__).parent / "testing.py",
        Path(picohead.__file__).parent / "export.py",
        Path(picohead_exporters.__file__).parent,
        Path(picohead_runtime.__file__).parent / "spec.py",
        Path(picohead_runtime.__file__).parent / "model_meta.py",
        Path(picohead_runtime.__file__).parent / "scoring.py",
    ]
    h = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for f in files:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def cache_root(request: Any) -> Path:
    """pytest's cache folder, or a session temp folder under ``-p no:cacheprovider``."""
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("picohead-runtime"))
    return Path(request.getfixturevalue("tmp_path_factory").mktemp("picohead-runtime"))


def toy_model_dir(cache_root: Path) -> Path:
    """The toy model folder, exported once and kept under ``cache_root`` until a source changes.

    Exporting takes ~10-30 s on a busy 2-core machine, so the files are cached (pytest's cache
    folder) keyed by a hash of the sources that produce them.
    """
    if "steady" not in _CACHE:
        folder = cache_root / f"toy-steady-{source_key()}"

        def complete() -> bool:
            return all((folder / f"toy-{t}-fp32.onnx").is_file() for t in TIERS)

        if not complete():
            # export beside it, then rename: concurrent test sessions never see half a folder
            tmp = cache_root / f"partial-{os.getpid()}-{folder.name}"
            shutil.rmtree(tmp, ignore_errors=True)
            export_toy(tmp)
            try:
                os.replace(tmp, folder)
            except OSError:  # another session finished first
                shutil.rmtree(tmp, ignore_errors=True)
                if not complete():
                    raise
            for stale in cache_root.glob("toy-steady-*"):
                # exports of older sources; a day's grace for sessions that may still use them
                if stale != folder and time.time() - stale.stat().st_mtime > 86400:
                    shutil.rmtree(stale, ignore_errors=True)
        _CACHE["steady"] = folder
    return _CACHE["steady"]


def torch_reference(family: str = "steady", seed: int = 0) -> tuple[Any, Any]:
    """The torch model ``export_toy`` exported (same seed), and its spec."""
    import torch

    from picohead.models import build_model
    from picohead.testing import toy_spec
    from picohead_runtime.spec import ModelSpec

    spec = ModelSpec.from_dict(toy_spec(family))
    torch.manual_seed(seed)
    return build_model(spec).eval(), spec


def rewrite_meta(src: Path, dst: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Copy ``src`` to ``dst`` with its picohead metadata JSON changed by ``edit`` (in place)."""
    import onnx

    model = onnx.load(str(src))
    for prop in model.metadata_props:
        if prop.key == "picohead":
            doc = json.loads(prop.value)
            edit(doc)
            prop.value = json.dumps(doc)
            break
    else:
        raise AssertionError(f"{src} has no picohead metadata")
    onnx.save(model, str(dst))
    return dst


def strip_meta(src: Path, dst: Path) -> Path:
    import onnx

    model = onnx.load(str(src))
    del model.metadata_props[:]
    onnx.save(model, str(dst))
    return dst


def copy_file(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst
