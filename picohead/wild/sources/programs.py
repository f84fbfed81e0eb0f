"""Files of many formats made by installed programs the corpus never used (stage mime-programs).

Does: reads ``picohead/recipes/wild/programs.json`` (programs, their apt packages, jobs and option
sets), makes varied input content (prose written here and text from the documentation and manual
pages of the wild programs' own Debian packages, images, speech and tones, graphs, tunes, small
C/assembly/WAT programs, file trees), runs each job's program on seeded draws of inputs and options,
checks the output's signature, and writes every accepted file with ``StageWriter(suite, "mime")``
as producer ``program:<name>``. Outputs (and failures) are cached under ``cache/programs/`` keyed by
program version, argv and input hash, so a rerun runs nothing. A program that is not installed is
logged with the apt package that provides it and its formats appear under ``missing`` in the
returned summary (``summary.json`` beside the stage's cache).

Does not: install anything (``required_packages()`` lists the apt packages for the documented
``apt-get install -y --no-install-recommends ...``), judge a program's independence from the corpus
(``picohead.data.producers`` does, and the recipe's ``excluded`` says why some programs are not
used), or use the network.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import json
import logging
import os
import random
import shutil
import struct
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from picohead.wild.suite import StageWriter

log = logging.getLogger(__name__)

RECIPE = Path(__file__).resolve().parents[2] / "recipes" / "wild" / "programs.json"
CAP = 25  # files per (program, label)
TIMEOUT = 60
WORKERS = 2
MAX_OUT = 16 * 1024 * 1024
CC0 = "CC0-1.0"
EPOCH = 1672531200  # 2023-01-01, the mtime of every input file


@dataclass(frozen=True)
class Input:
    """One input: a file (or a folder, for ``tree``) and where its content came from."""

    path: Path
    sha: str
    licence: str
    origin: str
    text: str = ""
    args: tuple[str, ...] = ()


@dataclass
class Summary:
    files: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    missing: list[dict[str, Any]] = field(default_factory=list)
    failed: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def as_dict(self) -> dict[str, Any]:
        return {
            "types": {
                lab: {"files": sum(p.values()), "programs": sorted(p)}
                for lab, p in sorted(self.files.items())
            },
            "total": sum(sum(p.values()) for p in self.files.values()),
            "missing": self.missing,
            "failed_jobs": dict(self.failed),
        }


def load_recipe(path: Path = RECIPE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def required_packages(path: Path = RECIPE) -> list[str]:
    """The apt packages the recipe's programs come from (sorted, without duplicates)."""
    progs = load_recipe(path)["programs"]
    return sorted(
        {p["apt"] for p in progs.values()}
        | {x for p in progs.values() for x in p.get("extra_apt", [])}
    )


def missing_binaries(prog: dict[str, Any]) -> list[str]:
    return [b for b in prog["binaries"] if shutil.which(b) is None]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def expect_ok(data: bytes, expect: list[str]) -> bool:
    """True when ``expect`` is empty or one of its checks holds (see the recipe's ``about``)."""
    if not data:
        return False
    for e in expect:
        off = 0
        if e.startswith("at"):
            n, _, e = e[2:].partition(":")
            off = int(n)
            if not e.startswith(("hex:", "text:")):
                e = "text:" + e
        kind, _, val = e.partition(":")
        if kind == "hex" and data[off : off + len(val)].hex().startswith(val.lower()):
            return True
        if kind == "text":
            if off and data[off : off + len(val)] == val.encode():
                return True
            if not off and val.encode() in data[:8192]:
                return True
    return not expect


def expand_option(v: str | list[str]) -> list[str]:
    """A ``vary`` value as argv items: a list as is, ``""`` as nothing, ``-k=v`` (one dash) as "
    "two."""
    if isinstance(v, list):
        return [str(x) for x in v]
    if v == "":
        return []
    if v.startswith("-") and not v.startswith("--") and "=" in v:
        k, _, val = v.partition("=")
        return [k, val]
    return [v]


def render(
    argv: list[str],
    vals: dict[str, list[str]],
    inp: Input | None,
    paths: dict[str, str],
    glob_args: bool = False,
) -> list[str]:
    """Substitute ``{var}`` tokens: a whole-token option expands to its argv items."""
    out: list[str] = []
    for tok in argv:
        if tok == "{args}" and inp is not None:
            out.extend(inp.args)
            continue
        key = tok[1:-1] if tok.startswith("{") and tok.endswith("}") else None
        if key in vals:
            out.extend(vals[key])
            continue
        for k, v in paths.items():
            tok = tok.replace("{" + k + "}", v)
        for k, vs in vals.items():
            tok = tok.replace("{" + k + "}", " ".join(vs))
        if inp is not None:
            tok = tok.replace("{line}", inp.text[:60] or "wild sample")
        if glob_args and "*" in tok:
            out.extend(sorted(glob.glob(tok)) or [tok])
        else:
            out.append(tok)
    return out


def _draw(rng: random.Random, vary: dict[str, list[Any]]) -> tuple[dict[str, list[str]], str]:
    vals, shown = {}, []
    for k in sorted(vary):
        v = rng.choice(vary[k])
        vals[k] = expand_option(v)
        shown.append(f"{k}={' '.join(vals[k]) or '-'}")
    return vals, " ".join(shown)


# ----------------------------------------------------------------------------- input content

PROSE = [
    "The ferry leaves the harbour at seven, and the gulls follow it past the lighthouse.",
    "Bake the bread for forty minutes, then let it rest on a rack before slicing.",
    "Our allotment grew more beans than we could eat, so we pickled the rest in jars.",
    "The committee will meet on Thursday to discuss the library's opening hours.",
    "A cold front moves in from the north tonight, bringing rain and strong winds.",
    "She tuned the old piano by ear, one string at a time, humming each note.",
    "Trains on the valley line are replaced by buses this weekend for track repairs.",
    "The museum's new wing shows maps drawn by sailors three hundred years ago.",
    "Water the seedlings every morning and keep them out of the afternoon sun.",
    "He kept a notebook of every bird he saw on the walk from the village to the coast.",
    "Der Zug nach Hamburg hat heute zwanzig Minuten Verspätung.",
    "Le marché du samedi vend des fromages de toute la région.",
    "El autobús pasa cada quince minutos por la plaza mayor.",
    "Il concerto è stato rinviato a causa della pioggia.",
    "De bakker op de hoek verkoopt het lekkerste roggebrood.",
    "Pociąg do Krakowa odjeżdża z peronu trzeciego.",
]
C_TEMPLATES = [
    "#include <stdio.h>\n\nint main(void)\n{\n    int i, s = 0;\n    for (i = 1; i <= %d; i++)\n"
    '        s += i * i;\n    printf("sum of squares: %%d\\n", s);\n    return 0;\n}\n',
    "#include <stdio.h>\n#include <string.h>\n\nstatic void reverse(char *s)\n{\n    size_t n = "
    "strlen(s);\n    for (size_t i = 0; i < n / 2; i++) {\n        char t = s[i]; s[i] = s[n - 1 "
    "- i];"
    ' s[n - 1 - i] = t;\n    }\n}\n\nint main(void)\n{\n    char buf[] = "harbour %d";\n    '
    "reverse(buf);\n    puts(buf);\n    return 0;\n}\n",
    "#include <math.h>\n#include <stdio.h>\n\ndouble area(double r) { return M_PI * r * r; }\n\n"
    '#ifndef LIB\nint main(void)\n{\n    for (int r = 1; r < %d; r++)\n        printf("%%d '
    '%%.3f\\n",'
    " r, area(r));\n    return 0;\n}\n#endif\n",
    "#include <stdlib.h>\n#include <stdio.h>\n\nstruct node { int v; struct node *next; };\n\n"
    "struct node *push(struct node *h, int v)\n{\n    struct node *n = malloc(sizeof *n);\n    "
    "n->v = v; n->next = h;\n    return n;\n}\n\n#ifndef LIB\nint main(void)\n{\n    struct node "
    "*h = "
    'NULL;\n    for (int i = 0; i < %d; i++) h = push(h, i);\n    while (h) { printf("%%d\\n", '
    'h->v);'
    " struct node *n = h->next; free(h); h = n; }\n    return 0;\n}\n#endif\n",
]
WAT_TEMPLATES = [
    '(module\n  (func $add (export "add") (param i32 i32) (result i32)\n    local.get 0\n    '
    'local.get 1\n    i32.add)\n  (func (export "k") (result i32) i32.const %d))\n',
    '(module\n  (memory (export "mem") 1)\n  (data (i32.const 16) "wild %d")\n  (func $fac '
    '(export "fac") (param i64) (result i64)\n    local.get 0\n    i64.eqz\n    if (result i64)\n'
    "      i64.const 1\n    else\n      local.get 0\n      local.get 0\n      i64.const 1\n      "
    "i64.sub\n      call $fac\n      i64.mul\n    end))\n",
    '(module\n  (global $g (mut i32) (i32.const %d))\n  (func (export "tick") (result i32)\n    '
    "global.get $g\n    i32.const 1\n    i32.add\n    global.set $g\n    global.get $g)\n  "
    "(table 2 "
    "funcref))\n",
]
ASM_TEMPLATES = [
    "bits 64\nsection .text\nglobal sum\nsum:\n    xor eax, eax\n    mov ecx, %d\n.loop:\n    add "
    'eax, ecx\n    loop .loop\n    ret\nsection .data\nmsg: db "wild", 0\n',
    "bits 64\nsection .data\ntable: dd %d, 2, 3, 5, 8, 13\nsection .text\nglobal first\nfirst:\n "
    "   "
    "mov eax, [rel table]\n    ret\n",
]


class Inputs:
    """Makes (and caches) the input pools that jobs draw from."""

    def __init__(self, root: Path, recipe: dict[str, Any], runner: Callable[..., bytes | None]):
        self.root = root
        self.recipe = recipe
        self.run = runner
        self.pools: dict[str, list[Input]] = {}
        root.mkdir(parents=True, exist_ok=True)

    def _file(
        self,
        name: str,
        data: bytes,
        licence: str,
        origin: str,
        text: str = "",
        args: tuple[str, ...] = (),
    ) -> Input:
        sha = _sha(data)
        p = self.root / f"{sha[:16]}-{name}"
        if not p.exists():
            p.write_bytes(data)
            os.utime(p, (EPOCH, EPOCH))
        return Input(p, sha, licence, origin, text, args)

    def pool(self, kind: str) -> list[Input]:
        if kind not in self.pools:
            self.pools[kind] = getattr(self, "_" + kind)()
        return self.pools[kind]

    # -- text
    def _docs(self) -> list[tuple[str, str, str]]:
        """(text, licence, origin) from the documentation of the recipe's doc packages."""
        out = []
        for pkg, lic in sorted(self.recipe.get("doc_packages", {}).items()):
            d = Path("/usr/share/doc") / pkg
            for f in sorted(d.glob("*")) if d.is_dir() else []:
                if not f.name.startswith(("README", "NEWS", "AUTHORS", "changelog.gz", "THANKS")):
                    continue
                if f.name.startswith(("README.Debian", "changelog.Debian")):
                    continue
                try:
                    raw = f.read_bytes()
                    raw = gzip.decompress(raw) if f.suffix == ".gz" else raw
                    out.append((raw.decode("utf-8"), lic, f"/usr/share/doc/{pkg}/{f.name}"))
                except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
                    continue
        return out

    def _text(self) -> list[Input]:
        res = []
        sizes = [40, 200, 700, 2500, 9000]
        for i, (txt, lic, origin) in enumerate(self._docs()):
            n = sizes[i % len(sizes)]
            chunk = txt[:n].rsplit("\n", 1)[0] if len(txt) > n else txt
            if chunk.strip():
                res.append(self._file("doc.txt", chunk.encode(), lic, origin))
        rng = random.Random("prose")
        for i in range(12):
            k = 1 + i % 6
            paras = ["\n".join(rng.sample(PROSE, k=min(k, len(PROSE)))) for _ in range(1 + i // 3)]
            res.append(
                self._file(
                    "prose.txt",
                    ("\n\n".join(paras) + "\n").encode(),
                    CC0,
                    "prose written for picohead's wild suite",
                )
            )
        return res

    def _sentence(self) -> list[Input]:
        return [
            self._file("s.txt", (s + "\n").encode(), CC0, "prose written for picohead", text=s)
            for s in PROSE
        ]

    def _sentence1(self) -> list[Input]:
        return [
            self._file("u.txt", s.encode(), CC0, "made-up user id", text=s)
            for s in [
                f"{n} <{n.split()[0].lower()}@example.org>"
                for n in ["Ada Wild", "Bo Test", "Cy Sample", "Di Probe", "Ed Trial", "Flo Check"]
            ]
        ]

    def _man(self) -> list[Input]:
        res = []
        for name, lic in sorted(self.recipe.get("man_pages", {}).items()):
            hits = sorted(glob.glob(f"/usr/share/man/man[1-8]/{name}.[1-8]*.gz"))
            if not hits:
                continue
            try:
                data = gzip.decompress(Path(hits[0]).read_bytes())
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            if data.lstrip().startswith(b".so "):
                continue
            res.append(self._file(f"{name}.1", data, lic, hits[0]))
        return res

    def _md(self) -> list[Input]:
        rng = random.Random("md")
        res = []
        for i in range(10):
            lines = [f"# {rng.choice(PROSE)[:30].strip()}", ""]
            for j in range(1 + i):
                lines += [rng.choice(PROSE), ""]
                if j % 3 == 1:
                    lines += [f"- item {k}: *{rng.choice(PROSE).split()[1]}*" for k in range(3)] + [
                        ""
                    ]
                if j % 4 == 2:
                    lines += ["| a | b |", "|---|---|", f"| {j} | `{j * j}` |", ""]
                if j % 5 == 3:
                    lines += ["```", "x = 1", "```", "", "> quoted line", ""]
            lines += ["[link](https://example.org/page)", ""]
            res.append(
                self._file(
                    "doc.md", "\n".join(lines).encode(), CC0, "markdown written for picohead"
                )
            )
        return res

    def _rst(self) -> list[Input]:
        rng = random.Random("rst")
        res = []
        for i in range(8):
            title = rng.choice(PROSE)[:28].strip()
            body = [title, "=" * len(title), ""]
            for j in range(1 + i):
                body += [rng.choice(PROSE), ""]
                if j % 2:
                    body += [
                        "Section %d" % j,
                        "-" * (8 + len(str(j))),
                        "",
                        "* one",
                        "* two",
                        "",
                        "::",
                        "",
                        "    code line",
                        "",
                    ]
            res.append(
                self._file("doc.rst", "\n".join(body).encode(), CC0, "reST written for picohead")
            )
        return res

    def _texi(self) -> list[Input]:
        rng = random.Random("texi")
        res = []
        for i in range(8):
            parts = [
                "\\input texinfo",
                f"@setfilename wild{i}.info",
                f"@settitle Notes {i}",
                "",
                "@node Top",
                f"@top Notes {i}",
                "",
                rng.choice(PROSE),
                "",
                "@menu",
                "* First::",
                "@end menu",
                "",
                "@node First",
                "@chapter First",
                "",
            ]
            for _ in range(1 + i):
                parts += [
                    rng.choice(PROSE),
                    "",
                    "@itemize",
                    "@item " + rng.choice(PROSE),
                    "@end itemize",
                    "",
                ]
            parts += ["@bye", ""]
            res.append(
                self._file(
                    "doc.texi", "\n".join(parts).encode(), CC0, "texinfo written for picohead"
                )
            )
        return res

    def _c(self) -> list[Input]:
        return [
            self._file("prog.c", (t % (5 + 7 * i)).encode(), CC0, "C written for picohead")
            for i in range(4)
            for t in C_TEMPLATES
        ]

    def _wat(self) -> list[Input]:
        return [
            self._file("m.wat", (t % (3 + 11 * i)).encode(), CC0, "WAT written for picohead")
            for i in range(5)
            for t in WAT_TEMPLATES
        ]

    def _asm(self) -> list[Input]:
        return [
            self._file("a.asm", (t % (2 + 9 * i)).encode(), CC0, "assembly written for picohead")
            for i in range(6)
            for t in ASM_TEMPLATES
        ]

    def _abc(self) -> list[Input]:
        rng = random.Random("abc")
        notes = "CDEFGABcdefgab"
        res = []
        for i in range(20):
            bars = []
            for _ in range(4 + i % 8):
                bars.append(
                    "".join(rng.choice(notes) + rng.choice(["", "2", "/2", ""]) for _ in range(4))
                )
            tune = (
                f"X:{i + 1}\nT:Wild tune {i + 1}\nM:{rng.choice(['4/4', '3/4', '6/8'])}\nL:1/8\n"
                f"Q:1/4={rng.choice([80, 100, 120, 160])}\n"
                f"K:{rng.choice(['C', 'G', 'D', 'Am', 'F'])}\n"
                + "|".join(bars)
                + "|]\n"
            )
            res.append(self._file("t.abc", tune.encode(), CC0, "tune written for picohead"))
        return res

    def _dot(self) -> list[Input]:
        rng = random.Random("dot")
        res = []
        for i in range(18):
            n = 2 + i
            words = [w.strip(".,") for w in rng.choice(PROSE).split()]
            edges = [
                f'  "{rng.choice(words)}{a}" -> "{rng.choice(words)}{rng.randrange(n)}";'
                for a in range(n)
            ]
            attrs = rng.choice(
                [
                    "",
                    "  rankdir=LR;",
                    "  node [shape=box];",
                    "  node [style=filled, fillcolor=lightblue];",
                ]
            )
            res.append(
                self._file(
                    "g.dot",
                    ("digraph G {\n" + attrs + "\n" + "\n".join(edges) + "\n}\n").encode(),
                    CC0,
                    "graph written for picohead",
                )
            )
        return res

    def _svg(self) -> list[Input]:
        rng = random.Random("svg")
        res = []
        for i in range(14):
            w, h = rng.choice([(16, 16), (64, 48), (200, 120), (320, 240)])
            shapes = []
            for _ in range(1 + i):
                c = "#%06x" % rng.randrange(1 << 24)
                shapes.append(
                    rng.choice(
                        [
                            f'<rect x="{rng.randrange(w)}" y="{rng.randrange(h)}" '
                            f'width="{rng.randrange(1, w)}" '
                            f'height="{rng.randrange(1, h)}" fill="{c}"/>',
                            f'<circle cx="{rng.randrange(w)}" cy="{rng.randrange(h)}" '
                            f'r="{rng.randrange(1, 40)}" '
                            f'fill="{c}" opacity="0.7"/>',
                            f'<path d="M0 {h} Q{w // 2} {rng.randrange(h)} {w} {h}" stroke="{c}" '
                            'fill="none"/>',
                        ]
                    )
                )
            svg = (
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                f'viewBox="0 0 {w} {h}">\n' + "\n".join(shapes) + "\n</svg>\n"
            )
            res.append(self._file("p.svg", svg.encode(), CC0, "drawing written for picohead"))
        return res

    def _ppm(self, i: int, w: int, h: int) -> bytes:
        rng = random.Random(f"ppm{i}")
        style = i % 4
        px = bytearray()
        cx, cy, r = rng.randrange(w), rng.randrange(h), rng.randrange(1, max(w, h) + 1)
        for y in range(h):
            for x in range(w):
                if style == 0:
                    px += bytes((x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), 128))
                elif style == 1:
                    v = 255 if (x // 8 + y // 8) % 2 else 30
                    px += bytes((v, v // 2, 255 - v))
                elif style == 2:
                    inside = (x - cx) ** 2 + (y - cy) ** 2 < r * r
                    px += bytes((220, 40, 40) if inside else (240, 240, 200))
                else:
                    px += bytes(rng.randrange(256) for _ in range(3))
        return f"P6\n{w} {h}\n255\n".encode() + bytes(px)

    def _image(self) -> list[Input]:
        sizes = [(1, 1), (4, 3), (16, 16), (40, 30), (64, 64), (120, 90), (200, 150)]
        res = [
            self._file(
                "i.ppm", self._ppm(i, *sizes[i % len(sizes)]), CC0, "pixels drawn for picohead"
            )
            for i in range(14)
        ]
        im = "convert-im6.q16"
        if shutil.which(im):
            for i, src in enumerate(
                [
                    "plasma:",
                    "plasma:fractal",
                    "gradient:blue-yellow",
                    "pattern:checkerboard",
                    "radial-gradient:white-black",
                    "plasma:red-green",
                    "pattern:hexagons",
                    "xc:teal",
                ]
            ):
                w, h = sizes[(i + 2) % len(sizes)]
                data = self.run(
                    "imagemagick",
                    [im, "-seed", str(i + 1), "-size", f"{w}x{h}", src, "-depth", "8", "ppm:-"],
                    stdout=True,
                )
                if data and data.startswith(b"P6"):
                    res.append(self._file("i.ppm", data, CC0, f"ImageMagick {src} picture"))
        return res

    def _image256(self) -> list[Input]:
        return [x for x in self.pool("image") if x.path.stat().st_size < 3 * 256 * 256]

    def _pbm(self) -> list[Input]:
        res = []
        for i, (w, h) in enumerate(
            [(8, 8), (16, 12), (33, 20), (64, 64), (100, 60), (160, 120)] * 2
        ):
            rng = random.Random(f"pbm{i}")
            cx, cy, r = w / 2, h / 2, min(w, h) / (2 + i % 3)
            rows = []
            for y in range(h):
                bits = [
                    1
                    if ((x - cx) ** 2 + (y - cy) ** 2 < r * r) ^ (rng.random() < 0.02 * (i % 3))
                    else 0
                    for x in range(w)
                ]
                row = bytearray()
                for k in range(0, w, 8):
                    b = bits[k : k + 8] + [0] * (8 - len(bits[k : k + 8]))
                    row.append(int("".join(map(str, b)), 2))
                rows.append(bytes(row))
            res.append(
                self._file(
                    "b.pbm",
                    f"P4\n{w} {h}\n".encode() + b"".join(rows),
                    CC0,
                    "bitmap drawn for picohead",
                )
            )
        return res

    def _pcm_wav(self, i: int, rate: int, secs: float) -> bytes:
        rng = random.Random(f"wav{i}")
        n = int(rate * secs)
        f1, f2 = rng.choice([220, 330, 440, 523]), rng.choice([0, 3, 7])
        import math

        frames = b"".join(
            struct.pack(
                "<h",
                int(
                    9000 * math.sin(2 * math.pi * f1 * t / rate)
                    + 3000 * math.sin(2 * math.pi * f1 * (1 + f2 / 12) * t / rate)
                    + rng.randrange(-500, 500)
                ),
            )
            for t in range(n)
        )
        hdr = (
            b"RIFF"
            + struct.pack("<I", 36 + len(frames))
            + b"WAVEfmt "
            + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
            + b"data"
            + struct.pack("<I", len(frames))
        )
        return hdr + frames

    def _wav(self) -> list[Input]:
        res = []
        if shutil.which("espeak-ng"):
            for i, s in enumerate(PROSE[:10]):
                voice = ["en", "de", "fr", "es", "it", "nl", "pl", "sv", "en-us", "fi"][i]
                tmp = Path(tempfile.mkdtemp(prefix="pw-"))
                try:
                    data = self.run(
                        "espeak-ng",
                        ["espeak-ng", "-v", voice, "-w", str(tmp / "s.wav"), s],
                        key_extra=f"speech:{voice}:{s}",
                        out=tmp / "s.wav",
                        tmp=tmp,
                    )
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                if data and data.startswith(b"RIFF"):
                    res.append(self._file("speech.wav", data, CC0, f"espeak-ng speech of: {s}"))
        if shutil.which("sox"):
            for i, syn in enumerate(
                [
                    ["sine", "440"],
                    ["square", "220-880"],
                    ["pluck", "C4"],
                    ["brownnoise"],
                    ["sine", "300", "sine", "450"],
                    ["triangle", "660"],
                ]
            ):
                data = self.run(
                    "sox",
                    [
                        "sox",
                        "-n",
                        "-r",
                        ["22050", "44100", "16000"][i % 3],
                        "-b",
                        "16",
                        "-c",
                        str(1 + i % 2),
                        "-t",
                        "wav",
                        "-",
                        "synth",
                        str(0.3 + 0.4 * i),
                        *syn,
                    ],
                    stdout=True,
                )
                if data and data.startswith(b"RIFF"):
                    res.append(self._file("tone.wav", data, CC0, f"sox synth {' '.join(syn)}"))
        if not res:
            res = [
                self._file(
                    "tone.wav",
                    self._pcm_wav(i, [16000, 22050, 44100][i % 3], 0.2 + 0.3 * i),
                    CC0,
                    "tones computed for picohead",
                )
                for i in range(8)
            ]
        return res

    def _wav16k(self) -> list[Input]:
        return [
            self._file(
                "t16.wav",
                self._pcm_wav(i, 16000, 0.2 + 0.4 * i),
                CC0,
                "tones computed for picohead",
            )
            for i in range(8)
        ]

    def _blob(self) -> list[Input]:
        pools = [self.pool(k) for k in ("text", "man", "image", "wav", "c")]
        res: list[Input] = []
        for i in range(max(len(p) for p in pools)):
            for p in pools:
                if i < len(p):
                    res.append(p[i])
        res.append(self._file("e.txt", b"", CC0, "empty file"))
        res.append(self._file("t.txt", b"ok\n", CC0, "three bytes"))
        return res[:-2][:60] + res[-1:]

    def _tree(self) -> list[Input]:
        res = []
        files = self.pool("text") + self.pool("c") + self.pool("image")[:6] + self.pool("md")
        for i in range(12):
            rng = random.Random(f"tree{i}")
            pick = rng.sample(files, k=min(len(files), 1 + i % 5))
            h = _sha("".join(p.sha for p in pick).encode())[:16]
            d = self.root / f"tree-{h}"
            if not d.exists():
                tmp = Path(tempfile.mkdtemp(dir=self.root))
                for j, p in enumerate(pick):
                    sub = tmp / ("docs" if j % 2 else "") / f"f{j}{p.path.suffix}"
                    sub.parent.mkdir(exist_ok=True)
                    shutil.copyfile(p.path, sub)
                    os.utime(sub, (EPOCH, EPOCH))
                for q in [tmp, tmp / "docs"]:
                    if q.exists():
                        os.utime(q, (EPOCH, EPOCH))
                os.replace(tmp, d)
            lic = " AND ".join(sorted({p.licence for p in pick}))
            res.append(Input(d, h, lic, "folder of " + ", ".join(p.origin for p in pick)))
        return res

    def _plotdata(self) -> list[Input]:
        res = []
        for i in range(10):
            rng = random.Random(f"plot{i}")
            pts = [f"{x} {rng.gauss(x * (i % 3), 2 + i):.3f}" for x in range(3 + 4 * i)]
            res.append(
                self._file(
                    "d.txt", ("\n".join(pts) + "\n").encode(), CC0, "numbers drawn for picohead"
                )
            )
        return res

    def _certtpl(self) -> list[Input]:
        res = []
        for i, name in enumerate(
            [
                "harbour.example",
                "allotment.example.org",
                "library.test",
                "ferry.example.net",
                "museum.invalid",
                "valley.example",
            ]
        ):
            t = (
                f'cn = "{name}"\norganization = "Wild Sample {i}"\ncountry = '
                f'"{["DE", "FR", "NL", "GB"][i % 4]}"\n'
                f'serial = {1000 + i}\nexpiration_days = {30 * (i + 1)}\ndns_name = "{name}"\n'
                + (
                    "ca\ncert_signing_key\n"
                    if i % 2
                    else "tls_www_server\nsigning_key\nencryption_key\n"
                )
            )
            res.append(
                self._file("cert.cfg", t.encode(), CC0, "certtool template written for picohead")
            )
        return res

    def _fontscript(self) -> list[Input]:
        res = []
        for i in range(12):
            rng = random.Random(f"font{i}")
            glyphs = []
            for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: 6 + 2 * i]:
                pts = [
                    (rng.randrange(50, 550), rng.randrange(0, 700))
                    for _ in range(3 + rng.randrange(4))
                ]
                glyphs.append((ord(ch), pts))
            script = (
                "import sys, fontforge\n"
                f"f = fontforge.font()\nf.fontname = 'WildSample{i}'\nf.familyname = 'Wild Sample "
                f"{i}'\n"
                f"f.fullname = 'Wild Sample {i}'\nf.copyright = 'CC0 1.0, made for picohead'\n"
                "f.em = 1000\n"
                f"for code, pts in {glyphs!r}:\n"
                "    g = f.createChar(code)\n    pen = g.glyphPen()\n    pen.moveTo(pts[0])\n"
                "    for p in pts[1:]:\n        pen.lineTo(p)\n    pen.closePath()\n    pen = "
                "None\n"
                "    g.width = 600\n    g.removeOverlap()\n    g.correctDirection()\n"
                "sp = f.createChar(32)\nsp.width = 300\n"
                "f.generate(sys.argv[1])\n"
            )
            res.append(self._file("font.py", script.encode(), CC0, "glyphs drawn for picohead"))
        return res

    def _y4m(self) -> list[Input]:
        res = []
        for i, (w, h, n) in enumerate(
            [(32, 32, 4), (64, 48, 8), (96, 64, 10), (160, 120, 12), (48, 48, 16), (128, 96, 6)] * 2
        ):
            rng = random.Random(f"y4m{i}")
            frames = []
            dx = rng.randrange(1, 5)
            for f in range(n):
                y = bytes(
                    ((x + f * dx) * 3 + yy * (i + 1)) % 256 for yy in range(h) for x in range(w)
                )
                u = bytes([(128 + f * 4 + i * 10) % 256]) * (w * h // 4)
                v = bytes([(100 + yy) % 256 for yy in range(h // 2) for _ in range(w // 2)])
                frames.append(b"FRAME\n" + y + u + v)
            hdr = f"YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C420jpeg\n".encode()
            res.append(
                self._file("v.y4m", hdr + b"".join(frames), CC0, "frames drawn for picohead")
            )
        return res

    def _csv(self) -> list[Input]:
        res = []
        for i in range(10):
            rng = random.Random(f"csv{i}")
            rows = ["name,count,price,place"] + [
                f"{rng.choice(PROSE).split()[1].strip(',.')},{rng.randrange(100)},"
                f"{rng.random() * 50:.2f},{rng.choice(['Hull', 'Köln', 'Lyon', 'Gdańsk'])}"
                for _ in range(2 + 3 * i)
            ]
            res.append(
                self._file(
                    "t.csv", ("\n".join(rows) + "\n").encode(), CC0, "table written for picohead"
                )
            )
        return res

    def _jo(self) -> list[Input]:
        res = []
        for i in range(14):
            rng = random.Random(f"jo{i}")
            args = tuple(
                f"{k}={v}"
                for k, v in [
                    ("name", rng.choice(PROSE).split()[1]),
                    ("n", rng.randrange(1000)),
                    ("ok", rng.choice(["true", "false"])),
                    ("tags[]", "a"),
                    ("tags[]", "b"),
                    ("pi", "3.14"),
                    ("where", rng.choice(["Hull", "Lyon"])),
                ][: 2 + i % 6]
            )
            res.append(
                self._file(
                    "jo.txt",
                    "\n".join(args).encode(),
                    CC0,
                    "values written for picohead",
                    args=args,
                )
            )
        return res

    def _scss(self) -> list[Input]:
        res = []
        for i in range(10):
            rng = random.Random(f"scss{i}")
            c = "#%06x" % rng.randrange(1 << 24)
            s = (
                f"$main: {c};\n$pad: {rng.randrange(2, 20)}px;\n@mixin box($r) "
                f"{{ border-radius: $r; }}\n"
                f".card{i} {{\n  color: $main;\n  padding: $pad;\n  @include box({i}px);\n"
                "  .title { font-weight: bold; &:hover { color: darken($main, 10%); } }\n}\n"
                + "".join(f".m{k} {{ margin: {k * 4}px; }}\n" for k in range(i))
            )
            res.append(self._file("s.scss", s.encode(), CC0, "stylesheet written for picohead"))
        return res

    def _js(self) -> list[Input]:
        res = []
        for i in range(12):
            rng = random.Random(f"js{i}")
            words = [w.strip(",.").lower() for w in rng.choice(PROSE).split()]
            s = (
                "export function count(list) {\n  const seen = new Map();\n  for (const w of "
                "list) {\n"
                "    seen.set(w, (seen.get(w) ?? 0) + 1);\n  }\n  return seen;\n}\n"
                f"const words = {json.dumps(words)};\nexport const total = "
                "[...count(words).values()]"
                ".reduce((a, b) => a + b, 0);\n"
                + (
                    f"class Box{i} {{\n  #v = {i};\n  get value() {{ return this.#v * 2; }}\n}}\n"
                    f"export const box = new Box{i}();\n"
                    if i % 2
                    else ""
                )
                + "console.log(`total ${total}`);\n"
            )
            res.append(self._file("m.js", s.encode(), CC0, "script written for picohead"))
        return res

    def _pdf(self) -> list[Input]:
        return self.pools.get("_made_pdf", [])

    def _none(self) -> list[Input]:
        return [Input(Path("/dev/null"), "", CC0, "generated")]


# ----------------------------------------------------------------------------- running


class Runner:
    """Runs argv with timeouts, nice and a cache keyed by (version, argv template, input hashes)."""

    def __init__(self, cache: Path, versions: dict[str, str]):
        self.cache = cache
        self.versions = versions
        cache.mkdir(parents=True, exist_ok=True)
        self.ran = 0
        self.hits = 0

    def cached(self, key: str) -> tuple[bool, bytes | None]:
        p = self.cache / key[:2] / key
        if p.with_suffix(".fail").exists():
            return True, None
        if p.exists():
            return True, p.read_bytes()
        return False, None

    def store(self, key: str, data: bytes | None) -> None:
        p = self.cache / key[:2] / key
        p.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            p.with_suffix(".fail").write_text("")
        else:
            tmp = p.with_suffix(f".{os.getpid()}.{threading_id()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, p)

    def __call__(
        self,
        prog: str,
        argv: list[str],
        *,
        stdout: bool = False,
        key_extra: str = "",
        steps: list[list[str]] | None = None,
        out: Path | None = None,
        cwd: str | None = None,
        stdin: Path | None = None,
        out_glob: str | None = None,
        tmp: Path | None = None,
        ok_rc: tuple[int, ...] = (0,),
    ) -> bytes | None:
        # the key is the job's template (paths as IN/OUT/TMP) when given, else the argv itself
        key = _sha(json.dumps([self.versions.get(prog, ""), key_extra or (steps or argv)]).encode())
        hit, data = self.cached(key)
        if hit:
            self.hits += 1
            return data
        data = None
        own_tmp = tmp is None
        tmpdir = Path(tempfile.mkdtemp(prefix="pw-")) if own_tmp else tmp
        assert tmpdir is not None
        try:
            data = self._exec(steps or [argv], stdout, out, cwd, stdin, out_glob, tmpdir, ok_rc)
        finally:
            if own_tmp:
                shutil.rmtree(tmpdir, ignore_errors=True)
        self.ran += 1
        self.store(key, data)
        return data

    def _exec(
        self,
        steps: list[list[str]],
        stdout: bool,
        out: Path | None,
        cwd: str | None,
        stdin: Path | None,
        out_glob: str | None,
        tmp: Path,
        ok_rc: tuple[int, ...],
    ) -> bytes | None:
        env = {
            **os.environ,
            "LC_ALL": "C.UTF-8",
            "SOURCE_DATE_EPOCH": str(EPOCH),
            "HOME": str(tmp),
            "TZ": "UTC",
            "MAGICK_THREAD_LIMIT": "1",
            "OMP_NUM_THREADS": "1",
        }
        res = b""
        for argv in steps:
            try:
                fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
                try:
                    p = subprocess.run(
                        ["nice", "-n", "10", *argv],
                        stdin=fin,
                        capture_output=True,
                        timeout=TIMEOUT,
                        cwd=cwd or tmp,
                        env=env,
                    )
                finally:
                    if stdin:
                        fin.close()  # type: ignore[union-attr]
            except (OSError, subprocess.TimeoutExpired) as e:
                log.debug("%s: %s", argv[0], e)
                return None
            if p.returncode not in ok_rc:
                log.debug(
                    "%s failed (%d): %s",
                    " ".join(argv),
                    p.returncode,
                    p.stderr.decode(errors="replace")[-300:],
                )
                return None
            res = p.stdout
        if stdout:
            return res if res else None
        if out_glob:
            hits = sorted(glob.glob(str(tmp / out_glob)))
            hits = [h for h in hits if Path(h).is_file() and not h.endswith(".in")]
            return Path(hits[0]).read_bytes()[:MAX_OUT] if hits else None
        if out is not None and out.is_file():
            return out.read_bytes()[:MAX_OUT]
        return None


def threading_id() -> int:
    import threading

    return threading.get_ident()


def package_versions(pkgs: list[str]) -> dict[str, str]:
    """apt package -> installed version (dpkg-query), absent packages left out."""
    try:
        p = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Package} ${Version}\n", *pkgs],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return dict(line.split(" ", 1) for line in p.stdout.splitlines() if " " in line)


def _elf_type(data: bytes) -> int:
    return struct.unpack_from("<H", data, 16)[0] if len(data) > 18 else -1


def build(
    suite: Path,
    *,
    cache: Path,
    mirrors: Path,
    recipe_path: Path = RECIPE,
    only: set[str] | None = None,
    workers: int = WORKERS,
) -> Path:
    """Run the recipe's programs and write ``.stages/mime-programs.jsonl``; returns that path.

    ``only`` restricts the run to some programs (tests); ``mirrors`` is unused (no git sources).
    The summary (types, files, programs, missing programs and formats) is logged and written to
    ``cache/programs/summary.json``.
    """
    del mirrors
    t0 = time.monotonic()
    recipe = load_recipe(recipe_path)
    progs: dict[str, dict[str, Any]] = recipe["programs"]
    if only is not None:
        progs = {k: v for k, v in progs.items() if k in only}
    root = cache / "programs"
    apt = sorted({p["apt"] for p in progs.values()})
    pv = package_versions(apt)
    versions = {name: f"{p['apt']} {pv.get(p['apt'], '?')}" for name, p in progs.items()}
    versions.setdefault("imagemagick", f"imagemagick {pv.get('imagemagick', '?')}")
    runner = Runner(root / "out", versions)
    inputs = Inputs(root / "in", recipe, runner)
    w = StageWriter(suite, "mime")
    summ = Summary()
    made: dict[str, list[Input]] = {}
    made_pdf: list[Input] = []
    per_pl: dict[tuple[str, str], int] = defaultdict(int)

    for name, prog in progs.items():
        miss = missing_binaries(prog)
        if miss:
            labels = sorted({jb["label"] for jb in prog["jobs"] if jb.get("n", 0) > 0})
            log.warning(
                "program %s missing (%s not on PATH): apt-get install %s; formats not made: %s",
                name,
                ", ".join(miss),
                prog["apt"],
                ", ".join(labels),
            )
            summ.missing.append(
                {"program": name, "apt": prog["apt"], "binaries": miss, "labels": labels}
            )
            w.skip(f"program:{name}", f"not installed (apt-get install {prog['apt']}); "
                   f"formats not made: {', '.join(labels)}")
            continue
        for job in prog["jobs"]:
            n = min(int(job.get("n", 0)), CAP)
            if n <= 0:
                continue
            kind = job["input"]
            if kind.startswith("job:"):
                pool = made.get(kind[4:], [])
            elif kind == "pdf":
                pool = list(made_pdf)
            else:
                pool = inputs.pool(kind)
            if job.get("max_in"):
                pool = [x for x in pool if x.path.stat().st_size <= job["max_in"]]
            if not pool:
                log.warning("job %s of %s: no inputs of kind %s", job["id"], name, kind)
                summ.failed[job["id"]] += n
                continue
            tasks = []
            for i in range(n):
                rng = random.Random(f"{name}:{job['id']}:{i}")
                inp = pool[i % len(pool)] if len(pool) >= n else rng.choice(pool)
                vals, shown = _draw(rng, job.get("vary", {}))
                tasks.append((i, inp, vals, shown))

            def one(
                t: tuple[int, Input, dict[str, list[str]], str],
                job: dict[str, Any] = job,
                name: str = name,
            ) -> tuple[int, Input, str, bytes | None]:
                i, inp, vals, shown = t
                tmp = Path(tempfile.mkdtemp(prefix="pw-"))
                try:
                    src = inp.path
                    if job.get("copy_in"):
                        src = tmp / ("in" + "".join(inp.path.suffixes[-1:]) or ".bin")
                        shutil.copyfile(inp.path, src)
                    ext = job["ext"]
                    out = tmp / ("out." + ext if ext else "out")
                    paths = {"in": str(src), "out": str(out), "tmp": str(tmp)}
                    steps = [
                        render(s, vals, inp, paths, job.get("glob_args", False))
                        for s in (job.get("steps") or [job["cmd"]])
                    ]
                    tmpl = [
                        render(s, vals, inp, {"in": "IN", "out": "OUT", "tmp": "TMP"})
                        for s in (job.get("steps") or [job["cmd"]])
                    ]
                    cwd = render([job["cwd"]], vals, inp, paths)[0] if job.get("cwd") else None
                    data = runner(
                        name,
                        [],
                        steps=steps,
                        key_extra=f"{job['id']}.{job['ext']}:{inp.sha}:{i}:{json.dumps(tmpl)}",
                        stdout=job.get("stdout", False),
                        out=out,
                        cwd=cwd,
                        stdin=inp.path if job.get("stdin") else None,
                        out_glob=job.get("out_glob"),
                        tmp=tmp,
                        ok_rc=tuple(job.get("ok_rc", [0])),
                    )
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                return i, inp, shown, data

            with ThreadPoolExecutor(max_workers=workers) as ex:
                results = list(ex.map(one, tasks))
            outs: list[Input] = []
            for i, inp, shown, data in results:
                if (
                    data is None
                    or not expect_ok(data, job.get("expect", []))
                    or (job.get("elf_type") and _elf_type(data) != job["elf_type"])
                ):
                    summ.failed[job["id"]] += 1
                    continue
                lab = job["label"]
                if per_pl[(name, lab)] >= CAP:
                    continue
                lic = inp.licence if prog["licence"] == "{input}" else prog["licence"]
                rec = w.add(
                    data,
                    lab,
                    producer=f"program:{name}",
                    licence=lic,
                    path=f"{job['id']} #{i}: {job['ext'] or 'executable'} made from {inp.origin}",
                    version=versions[name],
                    kind=None,
                    options=shown or "-",
                    argv=" ".join(
                        job.get("cmd") or [" ; ".join(" ".join(s) for s in job["steps"])]
                    ),
                )
                out_in = inputs._file(f"o.{job['ext'] or 'bin'}", data, lic, f"{job['id']} output")
                outs.append(out_in)
                if lab == "application/pdf":
                    made_pdf.append(out_in)
                if rec is not None:
                    per_pl[(name, lab)] += 1
                    summ.files[lab][name] = summ.files[lab].get(name, 0) + 1
            made[job["id"]] = outs
            if len(outs) < n:
                log.info("job %s: %d of %d outputs accepted", job["id"], len(outs), n)
    path = w.close("mime-programs")
    s = summ.as_dict()
    s["seconds"] = round(time.monotonic() - t0, 1)
    s["runs"], s["cache_hits"] = runner.ran, runner.hits
    (root / "summary.json").write_text(json.dumps(s, indent=1))
    thin = [lab for lab, d in s["types"].items() if len(d["programs"]) < 3]
    log.info(
        "mime-programs: %d files over %d types from %d programs in %.0fs (%d runs, %d cached); "
        "%d programs missing; types with < 3 programs: %s",
        s["total"],
        len(s["types"]),
        len({p for d in s["types"].values() for p in d["programs"]}),
        s["seconds"],
        runner.ran,
        runner.hits,
        len(summ.missing),
        ", ".join(thin) or "none",
    )
    for m in summ.missing:
        log.warning(
            "missing: program:%s (apt %s) -> %s", m["program"], m["apt"], ", ".join(m["labels"])
        )
    return path
