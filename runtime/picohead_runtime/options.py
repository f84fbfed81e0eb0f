"""The options ``classify`` and ``scan`` share, defined once: flag, type, default and meaning.

``classify`` (``python -m picohead_runtime``, argparse) and ``picohead scan`` (click) both build
these from the table below (:func:`add_to_parser` here; ``picohead.options.shared`` for click), so
a flag means one thing in every command. ``--threads`` is the number of batches classified in
parallel, one core each (``Classifier(threads=)``; in ``scan``, in every worker process), never
onnxruntime's intra-op threads. What it does not hold: options only one command has. It imports
nothing but argparse, so ``picohead --help`` stays fast.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

ENV_MODEL = "PICOHEAD_MODEL"  # a model file or folder used when none is given
DEVICES = ("cpu", "cuda", "auto")


@dataclass(frozen=True)
class SharedOption:
    flag: str
    dest: str
    help: str
    kind: str  # "str", "positive" (an integer >= 1), "choice", "flag"
    default: Any = None
    choices: tuple[str, ...] = ()
    metavar: str | None = None


MODEL = SharedOption(
    "--model", "model",
    f"an .onnx file or a model folder (default: ${ENV_MODEL}, else the bundled model)",
    "str", metavar="PATH",
)
TIER = SharedOption(
    "--tier", "tier",
    "model tier to load from a model folder (default: the folder's model.json default_tier, "
    "else small)",
    "str",
)
DEVICE = SharedOption(
    "--device", "device",
    "cpu (default), cuda (needs onnxruntime-gpu), or auto (CUDA if usable, else CPU)",
    "choice", default="cpu", choices=DEVICES,
)
THREADS = SharedOption(
    "--threads", "threads",
    "batches classified in parallel, one core each (per worker process in scan; default 1)",
    "positive", default=1, metavar="N",
)
TOP_K = SharedOption(
    "--top-k", "top_k", "raw labels kept per head (default 3)", "positive", default=3,
    metavar="K",
)
BATCH_SIZE = SharedOption(
    "--batch-size", "batch_size",
    "files per model call (default: 32 on CPU, 1024 on CUDA)", "positive", metavar="N",
)
FOLLOW_SYMLINKS = SharedOption(
    "--follow-symlinks", "follow_symlinks", "follow symbolic links (off by default)", "flag",
    default=False,
)
SHARED = (MODEL, TIER, DEVICE, THREADS, TOP_K, BATCH_SIZE, FOLLOW_SYMLINKS)


def positive(value: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def add_to_parser(p: argparse.ArgumentParser, opt: SharedOption, *, help: str | None = None) -> None:
    """Add ``opt`` to an argparse parser (``help`` replaces its text, e.g. with the real default)."""
    text = help or opt.help
    if opt.kind == "flag":
        p.add_argument(opt.flag, dest=opt.dest, action="store_true", help=text)
        return
    kw: dict[str, Any] = {"dest": opt.dest, "default": opt.default, "help": text}
    if opt.metavar:
        kw["metavar"] = opt.metavar
    if opt.kind == "positive":
        kw["type"] = positive
    elif opt.kind == "choice":
        kw["choices"] = opt.choices
    p.add_argument(opt.flag, **kw)
