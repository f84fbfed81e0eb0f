"""Formats only outside programs write: filesystem images, COFF objects, plotter and printer
files, and a few media and document types, each made by a program the wild suite never uses.

Corpus v6 (2026-12-07): the wild suite holds files of types the MIME head had no label for
(disk images, squashfs, COFF objects from yasm, HP-GL and PCL from plotutils and mupdf,
IVF, RF64, JPEG XL, Musepack, OpenEXR, DXF, EPUB, flat ODF), and the head gave them a wrong
specific type with the confidence of a right one (pro on dev: tar was top-1 for 6 disk images,
2 ISO images and 3 DSF files, and its threshold then silenced all 55 right tar answers). Each
generator here writes one family with a program the suite does not run, at random options:

- ``disk_images``: exFAT images (``mkfs.exfat``) and MBR/GPT-partitioned disk images
  (``sfdisk``) as ``application/x-raw-disk-image``, and squashfs (``gensquashfs``,
  squashfs-tools-ng); the suite's come from genext2fs, dosfstools, mtools and mksquashfs. Not
  ext2/3/4, Minix or plain ISO 9660 images: their first and last KB, all the model reads, are
  zeros.
- ``coff``: ``nasm -f coff|win32|win64`` and the MinGW compilers' ``-c`` objects; the suite's
  from yasm.
- ``plotters``: gnuplot's ``hpgl`` and ``pcl5`` terminals and ghostscript's PCL printers
  (``ljet4``, ``laserjet``, ``cdj550`` ...); the suite's from plotutils and mupdf.
- ``media_more2``: ffmpeg's IVF (VP8/VP9/AV1) and RF64 writers, ``cjxl`` (JPEG XL, bare
  codestream or container), ``mpcenc`` (Musepack SV8) and ``oiiotool`` (OpenEXR, every
  compression); the suite's IVF come from libvpx, RF64 from libsndfile, the rest from fixtures.
- ``documents_more``: ``pandoc`` EPUB 2/3 and LibreOffice's flat ODF (``.fodt``/``.fods``);
  ``ezdxf`` DXF drawings (R12 to R2018); the suite's from fixtures and highlight / potrace.

A missing program skips its formats with a warning (``picohead.data.requirements`` names it
before a build). What it does not do: pick sources or assign splits (``picohead.data.build``).
"""

from __future__ import annotations

import io
import logging
import math
import random
import shutil
import struct
import subprocess
import tempfile
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from picohead.data.formats import Pool, Sample, _c_unit, _save, _scene, _words
from picohead.data.requirements import SEARCH_PATH as _PATH

log = logging.getLogger(__name__)


def _run(args: list[str], timeout: int = 120, **kw: Any) -> bool:
    r = subprocess.run(args, capture_output=True, timeout=timeout, **kw)
    return r.returncode == 0


def _tree(rng: random.Random, pool: Pool, root: Path, k: int) -> None:
    """A small folder of real-text files (and a sub-folder) to put into an image."""
    root.mkdir(parents=True, exist_ok=True)
    names = [w.lower() for w in _words(rng, pool, 2 * k)]
    for j in range(k):
        sub = root / names[j] if rng.random() < .3 else root
        sub.mkdir(exist_ok=True)
        (sub / f"{names[k + j]}_{j}.{rng.choice(['txt', 'md', 'cfg', 'log', 'c'])}").write_text(
            pool.text(rng, 50, 4000), encoding="utf-8", errors="replace")


def _missing(progs: list[str], what: str) -> list[str]:
    gone = [p for p in progs if not shutil.which(p, path=_PATH)]
    if gone:
        log.warning("%s not found: skipping %s", ", ".join(gone), what)
    return gone


# -- filesystem images ------------------------------------------------------------------------------
# Only images whose first or last KB says what they are: the model reads the first and last 1,024
# bytes, and an ext2/3/4 or Minix image (superblock at byte 1,024) or a plain ISO 9660 image (its
# descriptors at 32 KB, zero padding at its end) shows it nothing but zeros there.
def _exfat(rng: random.Random, src: Path, out: Path) -> bool:
    out.write_bytes(b"\0" * 1024 * rng.choice([1024, 2048, 4096]))
    args = ["mkfs.exfat", "-L", rng.choice(["DATA", "USB", "SD", "CAMERA"])]
    if rng.random() < .5:
        args += ["-c", rng.choice(["4K", "16K", "32K"])]
    return _run([*args, str(out)], env={"PATH": _PATH})


def _partitioned(rng: random.Random, src: Path, out: Path) -> bool:
    """A disk image with an MBR or GPT partition table (``sfdisk``), as SD-card and VM images
    are; some with an exFAT file system in the first partition."""
    mb = rng.choice([2, 4, 8])
    out.write_bytes(b"\0" * (mb << 20))
    label = rng.choice(["dos", "dos", "gpt"])
    parts = rng.randrange(1, 4)
    size = (mb << 11) // (parts + 1)  # 512-byte sectors
    types = {"dos": ["c", "83", "b", "7"], "gpt": ["L", "U", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"]}
    script = f"label: {label}\n" + "".join(
        f"size={size}, type={rng.choice(types[label])}\n" for _ in range(parts))
    if not _run(["sfdisk", "-q", str(out)], input=script.encode(), env={"PATH": _PATH}):
        return False
    if rng.random() < .5 and shutil.which("mkfs.exfat", path=_PATH):
        _run(["mkfs.exfat", "--offset", str(2048 * 512), "-s", str(size * 512), str(out)],
             env={"PATH": _PATH})
    return True


def _squash(rng: random.Random, src: Path, out: Path) -> bool:
    return _run(["gensquashfs", "-q", "-f", "-D", str(src), "-c",
                 rng.choice(["gzip", "xz", "lzo", "lz4", "zstd"]), "-b",
                 str(rng.choice([4096, 16384, 131072])), str(out)])


DISK_WRITERS: tuple[tuple[str, str, Callable[[random.Random, Path, Path], bool]], ...] = (
    ("mkfs.exfat", "application/x-raw-disk-image", _exfat),
    ("sfdisk", "application/x-raw-disk-image", _partitioned),
    ("gensquashfs", "application/vnd.squashfs", _squash),
)


def gen_disk_images(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Filesystem images of small folders of real text; ``n`` a label, spread over its writers."""
    writers = [w for w in DISK_WRITERS if not _missing([w[0]], w[1])]
    by_mime: dict[str, list[Callable[[random.Random, Path, Path], bool]]] = {}
    for _, mime, fn in writers:
        by_mime.setdefault(mime, []).append(fn)
    made = dict.fromkeys(by_mime, 0)
    with tempfile.TemporaryDirectory() as td:
        for i in range(3 * n):  # a writer refuses some random settings: try on to n a type
            for mime, fns in by_mime.items():
                if made[mime] >= n:
                    continue
                src, out = Path(td) / f"t{i}_{len(mime)}", Path(td) / f"i{i}.img"
                shutil.rmtree(src, ignore_errors=True)
                out.unlink(missing_ok=True)
                _tree(rng, pool, src, rng.randrange(1, 12))
                if rng.choice(fns)(rng, src, out) and out.exists():
                    made[mime] += 1
                    yield out.read_bytes(), mime, {}


# -- COFF objects ---------------------------------------------------------------------------------
def _asm_unit(rng: random.Random, pool: Pool, i: int, bits: int, under: bool) -> str:
    """A random NASM unit: a data section of real strings, global functions of simple arithmetic."""
    words = [w.lower() for w in _words(rng, pool, 8)]
    pre = "_" if under else ""
    regs = ["eax", "ebx", "ecx", "edx"] if bits == 32 else ["rax", "rbx", "rcx", "rdx", "r8", "r9"]
    lines = [f"bits {bits}", "section .data"]
    for k in range(rng.randrange(0, 4)):
        s = pool.text(rng, 4, 60).replace('"', "'").replace("\n", " ").encode("ascii", "ignore").decode()
        lines.append(f'{words[k % len(words)]}_msg{k}: db "{s}", 0')
    lines.append("section .text")
    for j in range(rng.randrange(1, 8)):
        nm = f"{pre}{words[j % len(words)]}_{i}_{j}"
        lines += [f"global {nm}", f"{nm}:"]
        for _ in range(rng.randrange(1, 12)):
            op = rng.choice(["add", "sub", "xor", "and", "or", "imul", "mov", "shl"])
            a, b = rng.choice(regs), rng.choice(regs)
            arg = str(rng.randrange(1, 31)) if op == "shl" else rng.choice([b, str(rng.randrange(1, 9999))])
            lines.append(f"    {op} {a}, {arg}")
        lines.append("    ret")
    return "\n".join(lines) + "\n"


COFF_MACHINES = (0x14C, 0x8664)  # IMAGE_FILE_MACHINE_I386, _AMD64: the first two bytes


def gen_coff(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """COFF object files: ``nasm -f coff|win32|win64`` units and the MinGW-w64 compilers' ``-c``
    objects of random C units, at random optimisation and debug settings."""
    mingw = [c for c in ("x86_64-w64-mingw32-gcc", "i686-w64-mingw32-gcc") if shutil.which(c)]
    nasm = shutil.which("nasm")
    if not (mingw or nasm):
        _missing(["nasm", "x86_64-w64-mingw32-gcc"], "application/x-coff")
        return
    with tempfile.TemporaryDirectory() as td:
        for i in range(n):
            out = Path(td) / f"o{i}.obj"
            if nasm and (not mingw or rng.random() < .5):
                fmt = rng.choice(["coff", "win32", "win64"])
                src = Path(td) / f"a{i}.asm"
                src.write_text(_asm_unit(rng, pool, i, 64 if fmt == "win64" else 32, fmt != "win64"))
                args = ["nasm", "-f", fmt, str(src), "-o", str(out)]
                args += [x for x, p in (("-g", .3), ("-Ox", .5)) if rng.random() < p]
            else:
                src = Path(td) / f"c{i}.c"
                src.write_text(_c_unit(rng, pool, i)[0], encoding="utf-8", errors="replace")
                args = [rng.choice(mingw), "-c", str(src), "-o", str(out), "-w",
                        rng.choice(["-O0", "-O1", "-O2", "-Os"])]
                args += [x for x, p in (("-g", .3), ("-ffunction-sections", .2)) if rng.random() < p]
            if _run(args, timeout=60) and out.exists():
                data = out.read_bytes()
                if struct.unpack("<H", data[:2])[0] in COFF_MACHINES:
                    yield data, "application/x-coff", {}


# -- plotter and printer files --------------------------------------------------------------------
_FUNCS = ("sin(x)", "cos(x)*x", "x**2-{a}", "exp(-x/{a})*sin(x)", "log(abs(x)+1)", "{a}*tanh(x)",
          "sqrt(abs(x))", "x**3/{a}")


def _gnuplot(rng: random.Random, pool: Pool, term: str, out: Path) -> bool:
    title = " ".join(_words(rng, pool, rng.randrange(1, 5))).replace('"', "")
    fns = ", ".join(rng.choice(_FUNCS).format(a=rng.randrange(1, 20)) + f' title "{w}"'
                    for w in _words(rng, pool, rng.randrange(1, 4)))
    opts = {"hpgl": rng.choice(["", "8", "4 eject"]),
            "pcl5": rng.choice(["", "monochrome", "color", "landscape", "portrait"])}[term]
    script = (f"set terminal {term} {opts}\nset output '{out}'\nset title \"{title}\"\n"
              f"set samples {rng.choice([50, 100, 300])}\n"
              + ("set grid\n" if rng.random() < .5 else "")
              + f"set xrange [{-rng.randrange(1, 20)}:{rng.randrange(1, 20)}]\nplot {fns}\n")
    return _run(["gnuplot"], input=script.encode(), timeout=60)


def _gs_pcl(rng: random.Random, pool: Pool, out: Path, td: Path) -> bool:
    """A page of real text set in PostScript, printed by one of ghostscript's PCL drivers."""
    lines = [ln.replace("\\", "").replace("(", "").replace(")", "")[:80]
             for ln in pool.text(rng, 200, 2000).splitlines() if ln.strip()][:40] or ["text"]
    ps = ["%!PS", f"/Times-Roman findfont {rng.choice([9, 10, 12])} scalefont setfont"]
    ps += [f"72 {760 - 14 * k} moveto ({ln.encode('latin-1', 'ignore').decode('latin-1')}) show"
           for k, ln in enumerate(lines)]
    if rng.random() < .5:
        ps.append(f"newpath 100 100 moveto {rng.randrange(150, 500)} {rng.randrange(150, 500)} "
                  "lineto stroke")
    ps.append("showpage")
    src = td / "p.ps"
    src.write_text("\n".join(ps) + "\n", encoding="latin-1")
    dev = rng.choice(["ljet4", "ljet3", "laserjet", "ljetplus", "lj5mono", "cdj550", "deskjet",
                      "ljet2p"])
    return _run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", f"-sDEVICE={dev}",
                 f"-r{rng.choice([75, 150, 300])}", f"-sOutputFile={out}", str(src)], timeout=120)


def gen_plotters(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """HP-GL (gnuplot's hpgl terminal) and PCL (gnuplot's pcl5 terminal, ghostscript's PCL
    printer drivers) from random plots and pages of real text; ``n`` each."""
    gp, gs = shutil.which("gnuplot"), shutil.which("gs")
    if not gp:
        _missing(["gnuplot"], "application/vnd.hp-hpgl")
    if not (gp or gs):
        return
    with tempfile.TemporaryDirectory() as tds:
        td = Path(tds)
        for i in range(n):
            out = td / f"h{i}.plt"
            if gp and _gnuplot(rng, pool, "hpgl", out) and out.exists():
                yield out.read_bytes(), "application/vnd.hp-hpgl", {}
            out = td / f"p{i}.pcl"
            if (gs and (not gp or rng.random() < .6) and _gs_pcl(rng, pool, out, td)) or \
                    (gp and not out.exists() and _gnuplot(rng, pool, "pcl5", out)):
                if out.exists() and out.stat().st_size:
                    yield out.read_bytes(), "application/vnd.hp-pcl", {}


# -- media ----------------------------------------------------------------------------------------
def _tone_wav(rng: random.Random, path: Path, rate: int = 44100) -> None:
    ch, dur = rng.choice([1, 2]), rng.uniform(0.3, 2.0)
    f = rng.uniform(80, 3000)
    frames = bytearray()
    for t in range(int(rate * dur)):
        v = int(12000 * math.sin(2 * math.pi * f * t / rate) * (1 + 0.3 * math.sin(t / 900)))
        frames += struct.pack("<h", v) * ch
    with wave.open(str(path), "wb") as w:
        w.setnchannels(ch)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(frames))


def _ffmpeg(rng: random.Random, out: Path, kind: str) -> bool:
    cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-threads", "1", "-y"]
    dur = round(rng.uniform(0.2, 1.5), 2)
    if kind == "ivf":
        src = rng.choice(["testsrc", "testsrc2", "smptebars", "mandelbrot", "rgbtestsrc"])
        w, h = rng.choice([(64, 48), (96, 64), (160, 120), (176, 144)])
        codec = rng.choice([["-c:v", "libvpx", "-b:v", f"{rng.choice([50, 200, 500])}k"],
                            ["-c:v", "libvpx-vp9", "-crf", str(rng.randrange(20, 50)), "-b:v", "0"],
                            ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", str(rng.randrange(30, 55))]])
        cmd += ["-f", "lavfi", "-i", f"{src}=size={w}x{h}:rate={rng.choice([10, 15, 25])}",
                "-t", str(dur), *codec, "-f", "ivf", str(out)]
    else:  # rf64
        tone = rng.choice([f"sine=frequency={rng.randrange(50, 4000)}:duration={dur}",
                           f"anoisesrc=d={dur}:c=pink:a={rng.random():.2f}"])
        cmd += ["-f", "lavfi", "-i", tone, "-ar", str(rng.choice([8000, 22050, 44100, 48000])),
                "-ac", str(rng.choice([1, 2])), "-c:a", rng.choice(["pcm_s16le", "pcm_s24le",
                                                                     "pcm_f32le", "pcm_u8"]),
                "-rf64", "always", "-f", "wav", str(out)]
    return _run(cmd, timeout=120)


def _cjxl(rng: random.Random, pool: Pool, out: Path, td: Path) -> bool:
    src = td / "in.png"
    src.write_bytes(_save(_scene(rng, pool).convert(rng.choice(["RGB", "L", "RGBA"])), "PNG"))
    args = ["cjxl", "--quiet", str(src), str(out), "-e", str(rng.randrange(1, 8))]
    args += rng.choice([["-d", f"{rng.uniform(0.5, 4):.1f}"], ["-d", "0"], ["-q", str(rng.randrange(30, 95))]])
    if rng.random() < .3:
        args.append("--container=1")
    return _run(args)


def _mpc(rng: random.Random, out: Path, td: Path) -> bool:
    src = td / "in.wav"
    _tone_wav(rng, src, rng.choice([32000, 44100, 48000]))
    return _run(["mpcenc", "--silent", "--overwrite", rng.choice(["--radio", "--standard", "--xtreme",
                                                                  "--thumb"]), str(src), str(out)])


def _exr(rng: random.Random, pool: Pool, out: Path, td: Path) -> bool:
    src = td / "in.png"
    src.write_bytes(_save(_scene(rng, pool), "PNG"))
    comp = rng.choice(["none", "rle", "zips", "zip", "piz", "pxr24", "b44", "dwaa"])
    args = ["oiiotool", str(src)]
    if rng.random() < .5:
        args += ["-d", "half"]
    return _run([*args, "--compression", comp, "-o", str(out)])


# (program, type, file extension)
MEDIA_MORE2 = (("ffmpeg", "video/x-ivf", "ivf"), ("ffmpeg", "audio/x-rf64", "wav"),
               ("cjxl", "image/jxl", "jxl"), ("mpcenc", "audio/x-musepack", "mpc"),
               ("oiiotool", "image/x-exr", "exr"))


def _media(rng: random.Random, pool: Pool, mime: str, out: Path, td: Path) -> bool:
    if mime in ("video/x-ivf", "audio/x-rf64"):
        return _ffmpeg(rng, out, "ivf" if mime == "video/x-ivf" else "rf64")
    if mime == "image/jxl":
        return _cjxl(rng, pool, out, td)
    if mime == "audio/x-musepack":
        return _mpc(rng, out, td)
    return _exr(rng, pool, out, td)


def gen_media_more2(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """IVF and RF64 (ffmpeg), JPEG XL (cjxl), Musepack (mpcenc) and OpenEXR (oiiotool) files of
    test pictures, tones and real-text scenes at random settings; ``n`` each."""
    todo = [(m, ext) for p, m, ext in MEDIA_MORE2 if not _missing([p], m)]
    with tempfile.TemporaryDirectory() as tds:
        td = Path(tds)
        for i in range(n):
            for mime, ext in todo:
                out = td / f"m{i}.{ext}"
                if _media(rng, pool, mime, out, td) and out.exists() and out.stat().st_size:
                    yield out.read_bytes(), mime, {}
                out.unlink(missing_ok=True)


# -- documents ------------------------------------------------------------------------------------
def _markdown(rng: random.Random, pool: Pool) -> str:
    parts = [f"% {' '.join(_words(rng, pool, 3))}\n"]
    for _ in range(rng.randrange(1, 5)):
        parts.append(f"\n# {' '.join(_words(rng, pool, rng.randrange(1, 5)))}\n\n")
        parts.append(pool.text(rng, 200, 3000) + "\n")
        if rng.random() < .3:
            parts.append("\n" + "\n".join(f"- {w}" for w in _words(rng, pool, 4)) + "\n")
    return "".join(parts)


DXF_VERSIONS = ("R12", "R2000", "R2004", "R2007", "R2010", "R2013", "R2018")


def _dxf(rng: random.Random, pool: Pool, version: str | None = None) -> bytes | None:
    import ezdxf

    version = version or rng.choice(DXF_VERSIONS)
    doc = ezdxf.new(version)
    msp = doc.modelspace()
    for _ in range(rng.randrange(1, 40)):
        p = (rng.uniform(-100, 100), rng.uniform(-100, 100))
        kind = rng.randrange(5)
        if kind == 0:
            msp.add_line(p, (rng.uniform(-100, 100), rng.uniform(-100, 100)))
        elif kind == 1:
            msp.add_circle(p, rng.uniform(1, 50))
        elif kind == 2:
            msp.add_text(" ".join(_words(rng, pool, 3)), dxfattribs={"height": rng.uniform(1, 5)}).set_placement(p)
        elif kind == 3:
            msp.add_arc(p, rng.uniform(1, 40), rng.uniform(0, 180), rng.uniform(180, 360))
        else:  # R12 has no LWPOLYLINE: its polylines are POLYLINE/VERTEX entities
            points = [(rng.uniform(-99, 99), rng.uniform(-99, 99)) for _ in range(rng.randrange(2, 8))]
            (msp.add_polyline2d if version == "R12" else msp.add_lwpolyline)(points)
    buf = io.StringIO()
    doc.write(buf)
    return buf.getvalue().encode("utf-8")


def gen_documents_more(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """EPUB 2/3 (pandoc, from Markdown of real text), flat ODF text and spreadsheets (LibreOffice)
    and DXF drawings (ezdxf, R12 to R2018); ``n`` each."""
    pandoc, soffice = shutil.which("pandoc"), shutil.which("soffice")
    if not pandoc:
        _missing(["pandoc"], "application/epub+zip")
    if not soffice:
        _missing(["soffice"], "flat ODF")
    try:
        import ezdxf  # noqa: F401
        dxf = True
    except ImportError:
        log.warning("ezdxf not found: skipping image/vnd.dxf (pip install -e '.[data]')")
        dxf = False
    with tempfile.TemporaryDirectory() as tds:
        td = Path(tds)
        flat_in: list[Path] = []
        for i in range(n):
            if pandoc:
                src, out = td / f"d{i}.md", td / f"d{i}.epub"
                src.write_text(_markdown(rng, pool), encoding="utf-8", errors="replace")
                if _run(["pandoc", "-f", "markdown", "-t", rng.choice(["epub3", "epub2"]), str(src),
                         "-o", str(out)]) and out.exists():
                    yield out.read_bytes(), "application/epub+zip", {}
            if dxf:
                data = _dxf(rng, pool)
                if data:
                    yield data, "image/vnd.dxf", {}
            if soffice:  # one text and one table a round: n of each flat type
                p = td / f"f{i}.txt"
                p.write_text(pool.text(rng, 100, 4000), encoding="utf-8", errors="replace")
                q = td / f"f{i}.csv"
                rows = [",".join(_words(rng, pool, 4)) for _ in range(rng.randrange(2, 40))]
                q.write_text("\n".join(rows) + "\n", encoding="utf-8")
                flat_in += [p, q]
        yield from _flat_odf(flat_in, td)


FLAT_ODF = {".txt": ("fodt", "application/vnd.oasis.opendocument.text-flat-xml"),
            ".csv": ("fods", "application/vnd.oasis.opendocument.spreadsheet-flat-xml")}


def _flat_odf(files: list[Path], td: Path) -> Iterator[Sample]:
    """LibreOffice's flat ODF of each file, converted in batches (one soffice start each)."""
    out = td / "flat"
    out.mkdir(exist_ok=True)
    for ext, (fmt, mime) in FLAT_ODF.items():
        mine = [f for f in files if f.suffix == ext]
        for k in range(0, len(mine), 50):
            batch = mine[k:k + 50]
            _run(["soffice", "--headless", f"-env:UserInstallation=file://{td}/lo", "--convert-to",
                  fmt, "--outdir", str(out), *map(str, batch)], timeout=600)
            for f in batch:
                got = out / f"{f.stem}.{fmt}"
                if got.exists():
                    yield got.read_bytes(), mime, {}


GENERATORS: dict[str, Callable[..., Iterator[Sample]]] = {
    "disk_images": gen_disk_images, "coff": gen_coff, "plotters": gen_plotters,
    "media_more2": gen_media_more2, "documents_more": gen_documents_more,
}
