"""Finding, loading and checking an exported picohead model.

What it does: resolve which ``.onnx`` file to load (an explicit file, a model folder holding one file
per tier, the ``PICOHEAD_MODEL`` environment variable, or the default model bundled in this package),
choose onnxruntime execution providers for a device, create one inference session, read the
:class:`~picohead_runtime.model_meta.ModelMeta` from the file's ``metadata_props`` and check that
the graph matches it (input names and types, one ``prob_<head>`` output per head with one column per
label). Every failure is a :class:`ModelError` whose message names the file and says what to do.

What it does not do: read files to classify or decode outputs.

Model folder layout: ``<tier>.onnx`` per tier for CPU; an optional ``<tier>.cuda.onnx`` (fp16 or
fp32, exported with ``--target cuda``) is preferred when running on CUDA. The exporter's own names,
``<name>-<tier>-<precision>.onnx``, are found too (int8 first on CPU; fp16 first on CUDA).
"""

from __future__ import annotations

import importlib.resources
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from picohead_runtime.errors import PicoheadError
from picohead_runtime.model_meta import (
    INPUT_BYTES,
    INPUT_LENGTHS,
    META_KEY,
    ModelMeta,
    output_name,
)
from picohead_runtime.options import DEVICES, ENV_MODEL
from picohead_runtime.spec import SpecError

log = logging.getLogger("picohead_runtime")

# onnxruntime's telemetry events stay off unless this is "1" (see telemetry_setting).
ENV_TELEMETRY = "PICOHEAD_ORT_TELEMETRY"
DEFAULT_TIER = "small"  # for folders that do not name their own default (model.json)
CPU_EP = "CPUExecutionProvider"
CUDA_EP = "CUDAExecutionProvider"


class ModelError(PicoheadError, RuntimeError):
    """A model that cannot be found or used; the message names the file and says how to fix it."""


# -- where the model is ---------------------------------------------------------------------------
def bundled_models() -> list[str]:
    """Names of the model folders bundled in this package (``<name>-v<N>``), newest last."""
    root = importlib.resources.files("picohead_runtime") / "models"
    if not root.is_dir():
        return []
    names = [p.name for p in root.iterdir() if p.is_dir() and any(_onnx_files(p))]
    return sorted(names, key=_version_key)


def _onnx_files(folder: Any) -> list[Any]:
    return [p for p in folder.iterdir() if p.name.endswith(".onnx")]


def _version_key(name: str) -> tuple[str, int]:
    base, _, v = name.rpartition("-v")
    return (base, int(v)) if v.isdigit() else (name, -1)


def default_model_dir() -> Path:
    """The bundled default model folder; a clear error when this install has none."""
    names = bundled_models()
    if not names:
        raise ModelError(
            "no model given and no bundled model found in picohead_runtime/models/: this install "
            f"does not ship a default model yet. Pass a model file or folder (--model PATH, "
            f"Classifier(model=PATH)) or set {ENV_MODEL}=PATH."
        )
    root = importlib.resources.files("picohead_runtime") / "models" / names[-1]
    return Path(str(root))


def resolve_model_path(
    model: str | os.PathLike[str] | None, tier: str | None, device: str = "cpu"
) -> Path:
    """The ``.onnx`` file to load for ``model`` (file, folder or None) and ``tier``."""
    if model is None:
        env = os.environ.get(ENV_MODEL)
        src = Path(env) if env else default_model_dir()
    else:
        src = Path(model)
    if src.is_dir():
        return _tier_file(src, tier or folder_default_tier(src), device)
    if not src.exists():
        raise ModelError(f"{src}: no such model file or folder")
    return src


MODEL_DOC_KEYS = frozenset({"name", "default_tier", "tiers", "why_default"})


def read_model_doc(folder: Path) -> dict[str, object]:
    """A model folder's ``model.json`` (``{}`` when it has none); ModelError naming the file and
    the key when it is not JSON, not an object, holds a key the runtime does not read, or its
    ``default_tier``/``tiers`` have the wrong type."""
    path = folder / "model.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ModelError(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ModelError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(doc, dict):
        raise ModelError(f"{path}: must be a JSON object like {{\"default_tier\": \"small\"}}")
    unknown = sorted(k for k in doc if k not in MODEL_DOC_KEYS and not k.startswith("_"))
    if unknown:
        raise ModelError(f"{path}: unknown key {unknown[0]!r} (known: "
                         f"{', '.join(sorted(MODEL_DOC_KEYS))})")
    if "default_tier" in doc and not (isinstance(doc["default_tier"], str) and doc["default_tier"]):
        raise ModelError(f"{path}: default_tier must be a tier name")
    if "tiers" in doc and not (isinstance(doc["tiers"], list)
                               and all(isinstance(t, str) for t in doc["tiers"])):
        raise ModelError(f"{path}: tiers must be a list of tier names")
    return doc


def folder_default_tier(folder: Path) -> str:
    """The tier a model folder names in its ``model.json`` (``{"default_tier": ...}``), else small.

    The bundled folder's default is chosen by measurement when it is built (see MODEL_CARD.md).
    A ``model.json`` that cannot be read right is a ModelError, not a silent ``small``.
    """
    tier = read_model_doc(folder).get("default_tier")
    return tier if isinstance(tier, str) else DEFAULT_TIER


def default_tier_note(model: str | os.PathLike[str] | None = None) -> str:
    """What ``--tier`` defaults to for ``model`` (``None``: ``$PICOHEAD_MODEL``, else the bundled
    model), in words, read from the folder that would be loaded: help text that tells the truth."""
    try:
        if model is None:
            env = os.environ.get(ENV_MODEL)
            src = Path(env) if env else default_model_dir()
        else:
            src = Path(model)
    except ModelError:
        return f"{DEFAULT_TIER} (no model folder found)"
    if not src.is_dir():
        return f"the tier of the file {src.name}"
    try:
        named = read_model_doc(src).get("default_tier")
    except ModelError as e:
        return f"{DEFAULT_TIER} ({e})"
    tier = named if isinstance(named, str) else DEFAULT_TIER
    if named == tier:
        return f"{tier}, the default_tier of {src.name}/model.json"
    return f"{tier} ({src.name} names no default_tier in a model.json)"


def _tier_file(folder: Path, tier: str, device: str) -> Path:
    """``<tier>.onnx`` (or the exporter's ``<name>-<tier>-<precision>.onnx``) in ``folder``."""
    cpu = [f"{tier}.onnx"] + [f"*-{tier}-{p}.onnx" for p in ("int8", "fp32", "fp16")]
    cuda = [f"{tier}.cuda.onnx"] + [f"*-{tier}-{p}.onnx" for p in ("fp16", "fp32")]
    want_cuda = device == "cuda" or (device == "auto" and CUDA_EP in ort.get_available_providers())
    for pattern in (cuda + cpu) if want_cuda else cpu:
        found = sorted(folder.glob(pattern))
        if found and found[0].is_file():
            return found[0]
    have = sorted(p.name for p in folder.glob("*.onnx"))
    raise ModelError(
        f"{folder}: no model for tier {tier!r} (expected {tier}.onnx); "
        f"this folder has: {', '.join(have) or 'no .onnx files'}"
    )


# -- providers ---------------------------------------------------------------------------------------
def select_providers(device: str, available: list[str] | None = None) -> list[str]:
    """onnxruntime providers for ``device``; ``auto`` warns when it falls back to the CPU."""
    if device not in DEVICES:
        raise ModelError(f"unknown device {device!r}; choose one of: {', '.join(DEVICES)}")
    if available is None:
        available = ort.get_available_providers()
    if device == "cpu":
        return [CPU_EP]
    if CUDA_EP in available:
        return [CUDA_EP, CPU_EP]
    if device == "cuda":
        raise ModelError(
            "device='cuda' needs onnxruntime-gpu and a usable NVIDIA GPU, but the CUDA execution "
            f"provider is not available (available: {', '.join(available)}). Install "
            "'picohead-runtime[gpu]' (onnxruntime-gpu instead of onnxruntime) or use device='cpu'."
        )
    # A logged line, not warnings.warn: the CLI prints it as one clean line on stderr, and a
    # library user without logging set up still sees it (logging's last-resort handler).
    log.warning("device='auto': no usable CUDA execution provider, running on the CPU")
    return [CPU_EP]


# -- telemetry ------------------------------------------------------------------------------------
def telemetry_enabled() -> bool:
    """Whether onnxruntime's telemetry events are left on: only when ``$PICOHEAD_ORT_TELEMETRY``
    is ``1``. picohead scans files users may not want reported anywhere, so the default is off."""
    return os.environ.get(ENV_TELEMETRY, "").strip().lower() in ("1", "true", "on", "yes")


def apply_telemetry_setting() -> bool:
    """Switch onnxruntime's telemetry events off (unless :func:`telemetry_enabled`); returns
    whether they are on. Called before every session is created."""
    if telemetry_enabled():
        enable = getattr(ort, "enable_telemetry_events", None)
        if enable is not None:
            enable()
        return True
    disable = getattr(ort, "disable_telemetry_events", None)
    if disable is not None:  # present in every onnxruntime since 1.4
        disable()
    return False


# -- loading ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LoadedModel:
    path: Path
    meta: ModelMeta
    session: ort.InferenceSession
    output_names: tuple[str, ...]  # one per head, in spec order
    providers: tuple[str, ...]  # what the session actually uses


def session_options(threads: int) -> ort.SessionOptions:
    if threads < 1:
        raise ModelError(f"threads must be at least 1, got {threads}")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3  # errors only; onnxruntime's warnings go nowhere useful
    # Weight-only int8 tensors (int8 + DequantizeLinear on an initializer) are then folded into
    # float weights once at load instead of being dequantized on every call (tiny: ~20 us of
    # ~270 per 2 KB window). Graphs quantized with activations (MatMulInteger) are unaffected.
    so.add_session_config_entry("session.disable_quant_qdq", "1")
    return so


def load_model(path: Path, *, device: str = "cpu", threads: int = 1) -> LoadedModel:
    """Create the session for ``path`` and check it against its embedded metadata."""
    providers = select_providers(device)
    apply_telemetry_setting()
    try:
        session = ort.InferenceSession(
            str(path), sess_options=session_options(threads), providers=providers
        )
    except ModelError:
        raise
    except Exception as e:  # onnxruntime raises its own exception types for bad files
        raise ModelError(
            f"{path}: cannot load this model file (corrupt, truncated or not ONNX?): "
            f"{_first_line(e)}"
        ) from None
    used = tuple(session.get_providers())
    if device == "cuda" and CUDA_EP not in used:
        raise ModelError(
            f"{path}: device='cuda' was asked for but onnxruntime could not start the CUDA "
            "execution provider (no usable GPU, or CUDA/cuDNN libraries missing)"
        )
    if device == "auto" and CUDA_EP in providers and CUDA_EP not in used:
        log.warning(
            "device='auto': the CUDA execution provider failed to start, running on the CPU"
        )

    text = session.get_modelmeta().custom_metadata_map.get(META_KEY)
    if text is None:
        raise ModelError(
            f"{path}: not a picohead model (no metadata_props[{META_KEY!r}]); export it with "
            "`picohead export`"
        )
    try:
        meta = ModelMeta.from_json(text, source=str(path))
    except SpecError as e:
        raise ModelError(str(e)) from None

    _check_graph(path, session, meta)
    outputs = tuple(output_name(h.name) for h in meta.spec.heads)
    loaded = LoadedModel(
        path=path, meta=meta, session=session, output_names=outputs, providers=used
    )
    _check_run(loaded)
    return loaded


def _check_graph(path: Path, session: ort.InferenceSession, meta: ModelMeta) -> None:
    inputs = {i.name: i for i in session.get_inputs()}
    want = {INPUT_BYTES: "tensor(uint8)", INPUT_LENGTHS: "tensor(int64)"}
    if set(inputs) != set(want):
        raise ModelError(
            f"{path}: graph inputs are {sorted(inputs)}, expected {sorted(want)} "
            "(bytes uint8[batch, length], lengths int64[batch])"
        )
    for name, typ in want.items():
        if inputs[name].type != typ:
            raise ModelError(f"{path}: input {name!r} is {inputs[name].type}, expected {typ}")
    outs = {o.name: o for o in session.get_outputs()}
    for h in meta.spec.heads:
        name = output_name(h.name)
        if name not in outs:
            raise ModelError(
                f"{path}: the metadata declares head {h.name!r} but the graph has no output "
                f"{name!r} (outputs: {', '.join(sorted(outs))})"
            )
        shape = outs[name].shape
        if len(shape) != 2:
            raise ModelError(f"{path}: output {name!r} has shape {shape}, expected [batch, labels]")
        if isinstance(shape[1], int) and shape[1] != len(h.labels):
            raise ModelError(_mismatch(path, h.name, len(h.labels), shape[1]))


def _check_run(model: LoadedModel) -> None:
    """Run one tiny input: warms the session up and checks label counts on symbolic shapes."""
    x = np.frombuffer(b"picohead", dtype=np.uint8).reshape(1, -1)
    n = np.array([x.shape[1]], dtype=np.int64)
    try:
        outs = model.session.run(list(model.output_names), {INPUT_BYTES: x, INPUT_LENGTHS: n})
    except Exception as e:
        raise ModelError(
            f"{model.path}: the model fails on a test input: {_first_line(e)}"
        ) from None
    for h, o in zip(model.meta.spec.heads, outs):
        if o.ndim != 2 or o.shape[0] != 1 or o.shape[1] != len(h.labels):
            raise ModelError(_mismatch(model.path, h.name, len(h.labels), o.shape))


def _mismatch(path: Path, head: str, n: int, got: Any) -> str:
    return (
        f"{path}: head {head!r} has {n} labels in the embedded spec but the graph's output "
        f"{output_name(head)!r} gives {got}; the metadata does not belong to this graph "
        "(re-export the model)"
    )


def _first_line(e: BaseException) -> str:
    s = str(e).strip() or type(e).__name__
    return s.splitlines()[0][:300]
