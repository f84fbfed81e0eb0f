"""The classify command line, shared by ``picohead classify`` and ``python -m picohead_runtime``.

One argparse implementation (the runtime depends on numpy and onnxruntime only, so no click here;
``picohead_runtime._click`` wraps it for the ``picohead`` group). It checks flag combinations first,
then loads the model, then streams results: human-readable lines by default, one JSON object per
line with ``--jsonl``, one JSON array with ``--json``. Results go to stdout, logs and the progress
line to stderr. This module is the only place that chooses an exit code: 0 done, 1 a ``--fail-on``
rule matched, 2 a usage, model or I/O error (results that cannot be written, a closed or unreadable
stdin, and, in strict mode, a path that could not be read), always with one line on stderr naming
what failed and never a traceback. A file that cannot be read is a result with a status; strict
mode (``--strict``, on by default with ``--fail-on``) then makes the run fail with exit 2, so a CI
gate never passes on paths it did not read.

Paths are printed safely: JSON escapes every control character (and gives ``path_b64`` for names
that are not valid UTF-8); human lines quote any name that is not plainly printable.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from picohead_runtime.errors import InputError, OutputError, UsageError
from picohead_runtime.formats import format_human, format_jsonl, human_path
from picohead_runtime.io import UNREAD
from picohead_runtime.model import ModelError, default_tier_note
from picohead_runtime.options import (
    BATCH_SIZE,
    DEVICE,
    FOLLOW_SYMLINKS,
    MODEL,
    THREADS,
    TIER,
    TOP_K,
    add_to_parser,
)
from picohead_runtime.options import positive as _positive
from picohead_runtime.results import UNKNOWN, HeadResult, Result
from picohead_runtime.spec import SpecError
from picohead_runtime.walk import STDIN, expand
from picohead_runtime.windows import STREAM_LIMIT

log = logging.getLogger("picohead_runtime")
# Names other modules and older callers import from here.
__all__ = ["InputError", "OutputError", "UsageError", "expand", "format_human", "format_jsonl", "main"]


class Output:
    """A text stream whose write errors become :class:`OutputError` (``BrokenPipeError`` stays:
    ``| head`` is a reader that had enough, not a failure)."""

    def __init__(self, stream: IO[str] | None, name: str = "stdout") -> None:
        if stream is None:
            raise OutputError(f"cannot write results: {name} is closed")
        self.stream, self.name = stream, name

    def write(self, text: str) -> None:
        try:
            self.stream.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:  # ValueError: "I/O operation on closed file"
            raise OutputError(f"cannot write results to {self.name}: {_reason(e)}") from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot write results to {self.name}: {_reason(e)}") from None


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e) or type(e).__name__


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so the interpreter's last flush of what could not be
    written (a full disk, a closed pipe) cannot print "Exception ignored" or change the exit code."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def guarded(
    run: Callable[[Sequence[str] | None, str], int], argv: Sequence[str] | None, prog: str
) -> int:
    """``run(argv, prog)`` with a last safety net: an exception nobody expected becomes one line
    on stderr and exit 2, never a traceback (``PICOHEAD_DEBUG=1`` shows it)."""
    try:
        return run(argv, prog)
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if os.environ.get("PICOHEAD_DEBUG"):
            raise
        if isinstance(e, OSError):
            silence_stdout()
        return fail(prog, describe_error(e) + " (PICOHEAD_DEBUG=1 shows the traceback)")


def describe_error(e: BaseException) -> str:
    """An exception in one line, naming the file when it has one."""
    if isinstance(e, OSError):
        where = f"{os.fsdecode(e.filename)}: " if e.filename is not None else "I/O error: "
        return f"{where}{e.strerror or e}"
    first = (str(e).strip().splitlines() or [""])[0][:300]
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def fail(prog: str, message: str) -> int:
    """One line on stderr, exit code 2."""
    try:
        print(f"{prog}: error: {message}", file=sys.stderr)
    except (OSError, ValueError, AttributeError):  # stderr closed or full: nothing left to tell
        pass
    return 2


# -- arguments ----------------------------------------------------------------------------------------
def add_model_args(p: argparse.ArgumentParser) -> None:
    """``--model``, ``--device``, ``--threads`` (shared with ``bench``; defined once in
    :mod:`picohead_runtime.options`)."""
    for opt in (MODEL, DEVICE, THREADS):
        add_to_parser(p, opt)


def model_arg(argv: Sequence[str] | None) -> str | None:
    """``--model`` from ``argv`` before the full parse, so that ``--help`` can show the defaults
    of the model folder that would really be loaded."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--model")
    try:
        known, _ = pre.parse_known_args(argv)
    except SystemExit:  # "--model" without a value: the real parser reports it
        return None
    return known.model


def tier_help(argv: Sequence[str] | None) -> str:
    """``--tier``'s help with the default of the folder that would really be loaded."""
    return f"model tier to load from a model folder (default: {default_tier_note(model_arg(argv))})"


def build_parser(
    prog: str | None = None, argv: Sequence[str] | None = None
) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Classify files with a picohead model: every head's label, score and top-k.",
        epilog="Exit codes: 0 done, 1 a --fail-on rule matched, 2 usage, model or I/O error "
        "(results that cannot be written, a closed stdin; in strict mode, a path that could not "
        "be read). A file that cannot be read is reported with a status (not_found, "
        "permission_denied, is_directory, not_regular_file, read_error, empty); strict mode "
        "(--strict, the default with --fail-on) fails the run on not_found, permission_denied, "
        "is_directory and read_error.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders; - reads stdin")
    p.add_argument("-r", "--recursive", action="store_true", help="classify folders recursively")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--jsonl", action="store_true", help="stream one JSON object per line")
    fmt.add_argument("--json", action="store_true", help="one JSON array once all are done")
    add_to_parser(p, TIER, help=tier_help(argv))
    add_model_args(p)
    add_to_parser(p, TOP_K)
    p.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="HEAD=LABEL",
        help="exit 1 if any file gets LABEL on HEAD (repeatable; a multilabel head matches when "
        "LABEL is switched on)",
    )
    p.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="exit 2 when a path could not be read (not_found, permission_denied, is_directory, "
        "read_error); default: on with --fail-on, else off",
    )
    add_to_parser(p, FOLLOW_SYMLINKS)
    add_to_parser(p, BATCH_SIZE)
    p.add_argument(
        "--stream-limit",
        type=_positive,
        default=STREAM_LIMIT,
        metavar="BYTES",
        help=f"bytes read from stdin or a size-0 file (/proc) before it is cut short and its "
        f"result says truncated (default {STREAM_LIMIT}, 64 MiB)",
    )
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr")
    return p


def parse_fail_on(rules: Sequence[str]) -> list[tuple[str, str]]:
    out = []
    for rule in rules:
        head, sep, label = rule.partition("=")
        if not sep or not head or not label:
            raise UsageError(f"--fail-on {rule!r}: expected HEAD=LABEL, e.g. risk=api_key")
        out.append((head.strip(), label.strip()))
    return out


def check_fail_on(rules: list[tuple[str, str]], spec: Any) -> None:
    for head, label in rules:
        try:
            h = spec.head(head)
            if not (not h.multilabel and (label == UNKNOWN or label in h.generic_labels)):
                h.index(label)
        except SpecError as e:
            raise UsageError(f"--fail-on {head}={label}: {e}") from None
        if label in h.disabled_labels:  # the rule could never fire: say so instead of passing
            raise UsageError(
                f"--fail-on {head}={label}: this model never gives {label!r} (disabled: too weak "
                "on validation, see MODEL_CARD.md); use a larger tier (--tier)"
            )


def matches(result: Result, rules: list[tuple[str, str]]) -> bool:
    for head, label in rules:
        h = result.heads.get(head)
        if h is None:
            continue
        if isinstance(h, HeadResult):
            if h.label == label:
                return True
        elif label in h.labels:
            return True
    return False


# -- output ----------------------------------------------------------------------------------------
class Progress:
    """A one-line counter on stderr, only on a terminal and only once a scan takes a while."""

    def __init__(self, enabled: bool, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.n = 0
        self.start = self.last = time.monotonic()
        self.shown = False

    def update(self) -> None:
        self.n += 1
        if not self.enabled or self.n % 64:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or now - self.last < 0.2:
            return
        self.last = now
        rate = self.n / (now - self.start)
        self.stream.write(f"\r{self.n} files ({rate:,.0f}/s)")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _stdout_is_tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


# -- main ---------------------------------------------------------------------------------------------
def stdin_binary() -> IO[bytes]:
    """``sys.stdin``'s binary stream; :class:`InputError` when stdin is closed (``<&-``)."""
    stream = getattr(sys.stdin, "buffer", None) if sys.stdin is not None else None
    if stream is None:
        raise InputError("cannot read stdin: it is closed (- needs data on stdin)")
    return stream


def results(clf: Any, args: argparse.Namespace) -> Iterator[Result]:
    items = expand(args.paths, recursive=args.recursive, follow_symlinks=args.follow_symlinks)
    for is_stdin, group in itertools.groupby(items, key=lambda p: p == STDIN):
        if is_stdin:
            for _ in group:
                r = clf.classify_stream(stdin_binary(), path=STDIN)
                if r.status in UNREAD:
                    raise InputError(f"cannot read stdin: {r.message}")
                yield r
        else:
            yield from clf.classify_paths(group)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = build_parser(prog, argv)
    args = parser.parse_args(argv)  # exits 2 on a usage error
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        rules = parse_fail_on(args.fail_on)
    except UsageError as e:
        parser.error(str(e))
    strict = bool(rules) if args.strict is None else args.strict
    try:  # before the model loads: a run that cannot write or read stdin fails at once
        out = Output(sys.stdout)
        if STDIN in args.paths:
            stdin_binary()
    except (OutputError, InputError) as e:
        return fail(parser.prog, str(e))

    from picohead_runtime.classifier import Classifier

    try:
        clf = Classifier(
            args.model,
            tier=args.tier,
            device=args.device,
            threads=args.threads,
            top_k=args.top_k,
            follow_symlinks=args.follow_symlinks,
            batch_size=args.batch_size,
            stream_limit=args.stream_limit,
        )
        check_fail_on(rules, clf.spec)
    except UsageError as e:
        parser.error(str(e))
    except (ModelError, SpecError) as e:
        return fail(parser.prog, str(e))
    log.info("loaded %s (tier %s, %s)", clf.model_path, clf.tier, ", ".join(clf.providers))

    progress = Progress(enabled=not args.no_progress and _stderr_is_tty() and not _stdout_is_tty())
    matched = 0
    unread: list[Result] = []
    collected: list[dict[str, Any]] = []
    try:
        with clf:
            for r in results(clf, args):
                if rules and r.ok and matches(r, rules):
                    matched += 1
                    log.info("--fail-on matched: %s", human_path(r.path))
                if r.status in UNREAD:
                    unread.append(r)
                if args.json:
                    collected.append(r.asdict())
                elif args.jsonl:
                    out.write(format_jsonl(r) + "\n")
                    out.flush()
                else:
                    out.write(format_human(r) + "\n")
                    out.flush()
                progress.update()
        progress.close()
        if args.json:
            out.write(json.dumps(collected, ensure_ascii=True, indent=1) + "\n")
            out.flush()
    except BrokenPipeError:  # e.g. `| head`: stop quietly, without a traceback at exit
        silence_stdout()
        return 1 if matched else 0
    except OutputError as e:
        progress.close()
        silence_stdout()
        return fail(parser.prog, str(e))
    except InputError as e:
        progress.close()
        return fail(parser.prog, str(e))
    except KeyboardInterrupt:
        progress.close()
        return 130
    if matched:
        print(f"{matched} file(s) matched --fail-on", file=sys.stderr)
    if strict and unread:
        first = unread[0]
        return fail(
            parser.prog,
            f"{len(unread)} path(s) could not be read, first {human_path(first.path)} "
            f"[{first.status}] (strict mode{' with --fail-on' if rules else ''}; "
            "--no-strict reports them without failing)",
        )
    return 1 if matched else 0
