"""Media inputs: pictures, bitmaps, drawings, graphs, tunes, speech, tones and video frames.

Pixels, tones and frames are computed here; ImageMagick, espeak-ng and sox add pictures and sound
when installed (through the cached runner). What it does not do: fail when those programs are
missing (a computed fallback or a smaller pool is used instead).
"""

from __future__ import annotations

import random
import shutil
import struct
import tempfile
from pathlib import Path

from picohead.wild.sources.programs.inputs import CC0, PROSE, Input, InputPool


class MediaInputs(InputPool):
    """Media pools: images, drawings, graphs, tunes, sound and video frames."""

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
