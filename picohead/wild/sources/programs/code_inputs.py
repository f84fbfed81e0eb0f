"""Code and compound inputs: C, WAT, assembly, SCSS, JavaScript, font scripts, blobs, trees.

Programs are small templates written here; ``blob`` mixes the other pools, ``tree`` copies some of
their files into folders and ``pdf`` is filled by the build with PDFs other jobs made. What it does
not do: compile or run the code (jobs do).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from pathlib import Path

from picohead.wild.sources.programs.inputs import CC0, EPOCH, PROSE, Input, InputPool, _sha

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


class CodeInputs(InputPool):
    """Code and compound pools: programs, scripts, mixed blobs, folder trees, PDFs made by jobs."""

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
