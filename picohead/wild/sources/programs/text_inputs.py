"""Text inputs: package documentation, manual pages, prose, Markdown, reST, Texinfo, tables, values.

Documentation and manual pages come from the wild programs' own Debian packages (their licence
from the recipe); the rest is written here and seeded per maker. What it does not do: read the
network or any file outside ``/usr/share/doc`` and ``/usr/share/man``.
"""

from __future__ import annotations

import glob
import gzip
import random
from pathlib import Path

from picohead.wild.sources.programs.inputs import CC0, PROSE, Input, InputPool


class TextInputs(InputPool):
    """Text pools: documentation, manual pages, prose, markup, tables and values."""

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
