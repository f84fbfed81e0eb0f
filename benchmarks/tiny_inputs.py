"""Risk flags and type claims on inputs of 0-3 bytes (flags on 4-16 too), model folders side by side.

Issue 23 asks for no flag without evidence on 0-16-byte inputs; the wild suite's 0-16-byte
negatives are few (135 in its test half), and the ones content-v8 flags are all 1-3 bytes long
(a backslash, ``''``, a control byte, gzip's magic, a BOM). This enumerates that region instead:
the empty input, all 256 single bytes, 2-byte pairs of ASCII punctuation and whitespace, and the
first 2 and 3 bytes of common formats' magic numbers. Per model and tier: how many inputs get any
flag, which flags, and a few examples, at the thresholds embedded in each file. None of them
carries a secret.

The same inputs also show what the MIME head claims where no format fits: a *type claim* is a
MIME answer other than ``text/plain``, ``application/octet-stream`` or ``unknown`` (and other than
``application/json`` for the few that parse as JSON, such as ``{}``) on an input that is not a
magic prefix (content-v8 pro: one ``x`` is ``application/zlib`` at 1.00, ``{}`` ``text/x-tex``).
Counted twice: on the final answer (since 2026-12-03 the runtime answers content under 8 bytes
with its generic type, ``picohead_runtime.decode.MIN_CONTENT``) and on the model's raw top-1,
which shows what the model itself has learned about such inputs. The coarse head is counted the
same way on the inputs that look like text (``looks_text``): a *coarse claim* is any coarse answer
but ``text`` or ``unknown`` there ("0\\n" -> ``crypto``); on binary inputs every coarse label is
specific, so they are not counted.

    python benchmarks/tiny_inputs.py runtime/picohead_runtime/models/content-v9 OTHER_FOLDER \
        --out benchmarks/results/tiny_inputs.json

A second set, ``longer_inputs``, reaches the rest of the issue's range: 4-16-byte inputs that
carry no secret (words, keywords and builtin names, numbers of at most 6 digits, versions, dates,
code and markup fragments, paths, short hex, magic signatures, seeded random bytes); the report
counts the ones that get a flag.

What it does not do: say anything about recall (a real 12-byte phone number should still be
flagged; the wild suite's risk task measures that).
"""

from __future__ import annotations

import argparse
import json
import string
import sys
from collections import Counter
from pathlib import Path

from picohead_runtime import Classifier
from picohead_runtime.errors import PicoheadError
from picohead_runtime.model import resolve_model_path
from picohead_runtime.windows import looks_text

MAGIC = [b"\x1f\x8b\x08", b"\xef\xbb\xbf", b"\x89PN", b"%PD", b"PK\x03", b"\x7fEL", b"GIF",
         b"\xff\xd8\xff", b"BZh", b"\xfd7z", b"MZ\x90", b"{\\r", b"<?x", b"#!/", b"\xca\xfe\xba"]


def inputs() -> list[bytes]:
    """The enumerated inputs, in a fixed order (duplicates removed)."""
    punct = string.punctuation + " \t\r\n"
    out = [b""] + [bytes([i]) for i in range(256)]
    out += [(a + b).encode() for a in punct for b in punct]
    out += [m[:2] for m in MAGIC] + MAGIC
    return list(dict.fromkeys(out))


# 4-16-byte inputs that carry no secret: words and names, short numbers (at most 6 digits in a
# run: no phone number), versions and dates, code and markup fragments, paths and a host without
# credentials, short hex, punctuation runs, magic signatures and seeded random bytes.
LONGER_TEXT = [
    "null", "true", "false", "None", "TODO", "FIXME", "README", "LICENSE", "Makefile", "hello",
    "hello world", "Hello, World!", "thank you", "good morning", "ok thanks", "yes please",
    "{}\n", "[]\n", '{"a": 1}', "[1, 2, 3]", "x = 1", "i++;", "return 0;", "</div>", "<br/>",
    "# TODO", "-- comment", "/* */", "SELECT 1;", "ls -la", "cd ..", "make all", "git status",
    "npm install", "pip install", "exit 0", "echo $HOME", "${VAR}", "$PATH", "%APPDATA%",
    "/usr/bin/env", "./configure", "C:\\Windows", "~/.bashrc", "https://a.io", "localhost:8080",
    "127.0.0.1", "v1.2.3", "1.0.0-rc1", "2024-01-01", "12:30:45", "3.14159", "-42.5", "1e-10",
    "100%", "$19.99", "0xdeadbeef", "#ff00ff", "a1b2c3d4", "deadbeef", "----", "====", "....",
    "****", "\t\t\t\tx", "    x", "....!!!!", "key", "password", "token", "secret", "api_key",
    "user", "admin", "root", "email", "phone", "name: x", "id: 7", "port = 80", "debug=true",
]
LONGER_MAGIC = [b"\x89PNG\r\n\x1a\n", b"%PDF-1.7", b"PK\x03\x04\x14\x00", b"\x7fELF\x02\x01\x01\x00",
                b"\x1f\x8b\x08\x00\x00\x00\x00\x00", b"\x00\x00\x01\x00", b"RIFF\x24\x00\x00\x00WAVE",
                b"OggS\x00\x02", b"fLaC\x00\x00", b"ID3\x03\x00", b"GIF89a", b"\xff\xd8\xff\xe0",
                b"BZh91AY&SY", b"\xfd7zXZ\x00", b"MZ\x90\x00\x03\x00", b"SQLite format 3"]


def longer_inputs(seed: int = 0) -> list[bytes]:
    """4-16-byte inputs without a secret, in a fixed order: the lists above, Python's keywords
    and builtin names, numbers of 4-6 digits, and random bytes (``seed``)."""
    import builtins
    import keyword
    import random

    rng = random.Random(seed)
    words = [w for w in keyword.kwlist + sorted(dir(builtins)) if not w.startswith("_")]
    out = [t.encode() for t in LONGER_TEXT + words] + LONGER_MAGIC
    out += [str(rng.randrange(1000, 1_000_000)).encode() for _ in range(100)]
    out += [rng.randbytes(rng.randrange(4, 17)) for _ in range(200)]
    return [b for b in dict.fromkeys(out) if 4 <= len(b) <= 16]


NO_CLAIM = frozenset({"text/plain", "application/octet-stream", "unknown"})
COARSE_NO_CLAIM = frozenset({"text", "unknown"})


def type_claim(b: bytes, mime: str) -> bool:
    """Whether ``mime`` names a specific format for ``b``, a 0-3-byte input that is no magic
    prefix: anything but the generic answers, and JSON only where ``b`` parses as JSON."""
    if mime in NO_CLAIM:
        return False
    if mime == "application/json":
        try:
            json.loads(b)
            return False
        except ValueError:
            return True
    return True


def folder_tiers(folder: Path) -> list[str]:
    """The tiers the runtime finds a file for in ``folder`` (its own resolver)."""
    found = []
    for t in ("tiny", "small", "base", "pro"):
        try:
            resolve_model_path(folder, t)
        except PicoheadError:
            continue
        found.append(t)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--tiers", nargs="+", default=None,
                    help="tiers to run (default: every tier file each model folder holds, so "
                         "that ship_rule.py finds every tier it compares)")
    ap.add_argument("--out", default=None, help="write the JSON here (and .md beside it)")
    args = ap.parse_args()
    probes = inputs()
    more = longer_inputs()
    magic = {m for full in MAGIC for m in (full, full[:2])}
    res: dict[str, dict[str, dict]] = {}
    for folder in args.models:
        tiers = args.tiers or (folder_tiers(Path(folder)) if Path(folder).is_dir()
                               else ["small", "base", "pro"])
        if not tiers:
            print(f"tiny_inputs: {folder} holds no tier file (tiny/small/base/pro)",
                  file=sys.stderr)
            return 2
        for tier in tiers:
            try:
                clf = Classifier(folder, tier=tier)
            except PicoheadError as e:
                print(f"tiny_inputs: {e}", file=sys.stderr)
                return 2
            flags: Counter[str] = Counter()
            examples = []
            flagged = 0
            claims: Counter[str] = Counter()
            raw_claims: Counter[str] = Counter()
            claim_examples = []
            coarse: Counter[str] = Counter()
            coarse_raw: Counter[str] = Counter()
            texty = [b for b in probes if b and b not in magic and looks_text(b)]
            for r, b in zip(clf.classify_many_bytes(probes), probes):
                mime = r.heads.get("mime")
                label = str(getattr(mime, "label", "unknown"))
                raw = str(getattr(mime, "raw", "unknown"))
                if b not in magic and type_claim(b, label):
                    claims[label] += 1
                if b not in magic and type_claim(b, raw):
                    raw_claims[raw] += 1
                    if len(claim_examples) < 8:
                        claim_examples.append([repr(b), raw, getattr(mime, "score", None)])
                head = r.heads.get("coarse")
                if b in texty and head is not None:
                    if str(getattr(head, "label", "unknown")) not in COARSE_NO_CLAIM:
                        coarse[str(head.label)] += 1
                    if str(getattr(head, "raw", "unknown")) not in COARSE_NO_CLAIM:
                        coarse_raw[str(head.raw)] += 1
                risk = r.heads.get("risk")
                labels = list(getattr(risk, "labels", ()))
                if labels:
                    flagged += 1
                    flags.update(labels)
                    if len(examples) < 8:
                        examples.append([repr(b), labels])
            longer: Counter[str] = Counter()
            longer_flagged, longer_examples = 0, []
            for r, b in zip(clf.classify_many_bytes(more), more):
                labels = list(getattr(r.heads.get("risk"), "labels", ()))
                if labels:
                    longer_flagged += 1
                    longer.update(labels)
                    if len(longer_examples) < 8:
                        longer_examples.append([repr(b), labels])
            res.setdefault(folder, {})[tier] = {
                "longer": {"inputs": len(more), "flagged": longer_flagged,
                           "share": round(100 * longer_flagged / len(more), 2),
                           "flags": dict(longer), "examples": longer_examples},
                "inputs": len(probes), "flagged": flagged,
                "share": round(100 * flagged / len(probes), 2), "flags": dict(flags),
                "examples": examples,
                "type_claims": {"inputs": len(probes) - len(magic & set(probes)),
                                "claimed": sum(claims.values()),
                                "top": dict(claims.most_common(8)),
                                "raw_claimed": sum(raw_claims.values()),
                                "raw_top": dict(raw_claims.most_common(8)),
                                "raw_examples": claim_examples},
                "coarse_claims": {"inputs": len(texty), "claimed": sum(coarse.values()),
                                  "raw_claimed": sum(coarse_raw.values()),
                                  "raw_top": dict(coarse_raw.most_common(6))}}
    lines = [f"Inputs of 0-3 bytes ({len(probes)}: empty, 256 single bytes, punctuation pairs, "
             "magic prefixes) that get a risk flag, at each file's embedded thresholds.", "",
             "| model | tier | flagged | flags | examples |", "|---|---|---|---|---|"]
    for folder, tiers in res.items():
        for tier, d in tiers.items():
            lines.append(f"| {folder} | {tier} | {d['flagged']} ({d['share']} %) | "
                         f"{d['flags'] or '-'} | {'; '.join(f'{e[0]} -> {e[1]}' for e in d['examples'][:4]) or '-'} |")
    lines += ["", f"Inputs of 4-16 bytes without a secret ({len(more)}: words and names, numbers "
              "of at most 6 digits, versions, dates, code fragments, paths, short hex, magic "
              "signatures, random bytes; `longer_inputs`) that get a risk flag:", "",
              "| model | tier | flagged | flags | examples |", "|---|---|---|---|---|"]
    for folder, tiers in res.items():
        for tier, d in tiers.items():
            g = d["longer"]
            ex = "; ".join(f"{e[0]} -> {e[1]}" for e in g["examples"][:4]) or "-"
            lines.append(f"| {folder} | {tier} | {g['flagged']} ({g['share']} %) | "
                         f"{g['flags'] or '-'} | {ex} |")
    lines += ["", "The same inputs less the magic prefixes, whose MIME answer claims a specific format "
              "(`type_claim`: not text/plain, application/octet-stream or unknown; JSON only "
              "where the input is not JSON): the final answer, and the model's raw top-1.", "",
              "| model | tier | final answer claims | raw top-1 claims | most claimed raw | "
              "examples (raw, score) |", "|---|---|---|---|---|---|"]
    for folder, tiers in res.items():
        for tier, d in tiers.items():
            c = d["type_claims"]
            share = round(100 * c["claimed"] / max(1, c["inputs"]), 2)
            raw = round(100 * c["raw_claimed"] / max(1, c["inputs"]), 2)
            ex = "; ".join(f"{e[0]} -> {e[1]} {e[2]}" for e in c["raw_examples"][:4]) or "-"
            lines.append(f"| {folder} | {tier} | {c['claimed']} of {c['inputs']} ({share} %) | "
                         f"{c['raw_claimed']} ({raw} %) | {c['raw_top'] or '-'} | {ex} |")
    lines += ["", "The non-empty inputs among them that look like text (`looks_text`), whose coarse "
              "answer is not `text` or `unknown`:", "",
              "| model | tier | final coarse claims | raw top-1 coarse claims | most claimed raw |",
              "|---|---|---|---|---|"]
    for folder, tiers in res.items():
        for tier, d in tiers.items():
            c = d["coarse_claims"]
            share = round(100 * c["claimed"] / max(1, c["inputs"]), 2)
            raw = round(100 * c["raw_claimed"] / max(1, c["inputs"]), 2)
            lines.append(f"| {folder} | {tier} | {c['claimed']} of {c['inputs']} ({share} %) | "
                         f"{c['raw_claimed']} ({raw} %) | {c['raw_top'] or '-'} |")
    md = "\n".join(lines) + "\n"
    print(md)
    if args.out:
        Path(args.out).write_text(json.dumps({"inputs": len(probes), "models": res}, indent=1)
                                  + "\n")
        Path(args.out).with_suffix(".md").write_text(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
