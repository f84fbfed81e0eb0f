"""File-format samples made by real encoders, with varied content and parameters.

Each generator yields ``(bytes, mime, extra)`` for one sample; ``extra`` may override labels
(``modality``, ``subtype``, ``risk``). Content comes from a pool of real prose and code taken from
the harvested packages, so documents, archives and compressed streams carry real text, never one
file the model could learn by heart. Encoders: Pillow, fonttools, sqlite3, the cryptography package,
python-docx/openpyxl/python-pptx/odfpy/xlwt/fpdf2, and the ffmpeg, 7z, cpio, ar, zstd, gpg and
LibreOffice (soffice) programs when they are installed (``apt-get install ffmpeg p7zip-full cpio
gnupg libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui``); a missing tool
skips its formats with a warning and the dataset card lists them.
"""

from __future__ import annotations

import bz2
import io
import logging
import lzma
import os
import random
import re
import shutil
import sqlite3
import struct
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from picohead.data import apk, macho

log = logging.getLogger(__name__)
logging.getLogger("fontTools").setLevel(logging.ERROR)

Sample = tuple[bytes, str, dict[str, Any]]
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


class Pool:
    """Real prose and source snippets and real files to fill generated formats with."""

    def __init__(self, texts: list[str], files: list[Path], fonts: list[Path],
                 code: list[str] | None = None) -> None:
        # control characters are not allowed in XML-based documents (docx, xlsx, odt, ...)
        clean = [_CONTROL.sub("", t) for t in texts]
        self.texts = [t for t in clean if t.strip()] or ["lorem ipsum dolor sit amet"]
        self.code = [c for c in (_CONTROL.sub("", c) for c in code or []) if c.strip()] or self.texts
        self.files = files
        self.fonts = fonts

    def text(self, rng: random.Random, lo: int = 200, hi: int = 3000) -> str:
        return self._cut(rng, self.texts, lo, hi)

    def source(self, rng: random.Random, lo: int = 200, hi: int = 3000) -> str:
        """A line-aligned run of a real source file (prose where the pool has no code)."""
        t = self._cut(rng, self.code, lo + 200, hi + 200)
        return t[t.find("\n") + 1:] if "\n" in t[:200] else t

    @staticmethod
    def _cut(rng: random.Random, texts: list[str], lo: int, hi: int) -> str:
        t = rng.choice(texts)
        n = rng.randrange(lo, hi)
        s = rng.randrange(0, max(1, len(t) - n))
        return t[s:s + n]

    def some_files(self, rng: random.Random, k: int) -> list[tuple[str, bytes]]:
        out = []
        for p in rng.sample(self.files, min(k, len(self.files))):
            try:
                out.append((p.name, p.read_bytes()[: rng.choice([2000, 20000, 200000])]))
            except OSError:
                pass
        return out


# -- images ---------------------------------------------------------------------------------------
def _scene(rng: random.Random, pool: Pool) -> Any:
    from PIL import Image, ImageDraw, ImageFilter

    w, h = rng.randrange(8, 700), rng.randrange(8, 700)
    mode = rng.choice(["RGB", "RGB", "RGBA", "L"])
    img = Image.new("RGB", (w, h), tuple(rng.randrange(256) for _ in range(3)))
    d = ImageDraw.Draw(img)
    kind = rng.randrange(4)
    if kind == 0:  # gradient bands
        for y in range(0, h, max(1, h // 32)):
            d.rectangle([0, y, w, y + h // 32 + 1], fill=tuple(rng.randrange(256) for _ in range(3)))
    for _ in range(rng.randrange(1, 40)):
        box = sorted([rng.randrange(w), rng.randrange(w)]), sorted([rng.randrange(h), rng.randrange(h)])
        xy = [box[0][0], box[1][0], box[0][1], box[1][1]]
        col = tuple(rng.randrange(256) for _ in range(3))
        draw: Any = rng.choice([d.rectangle, d.ellipse, d.line])
        draw(xy, fill=col)
    if rng.random() < 0.5:
        d.text((rng.randrange(max(1, w)), rng.randrange(max(1, h))), pool.text(rng, 5, 60), fill=(0, 0, 0))
    if kind == 1:  # photo-like noise
        noise = Image.effect_noise((w, h), rng.randrange(10, 80)).convert("RGB")
        img = Image.blend(img, noise, rng.random() * 0.6)
    if kind == 2:
        img = img.filter(ImageFilter.GaussianBlur(rng.random() * 4))
    return img.convert(mode)


def _save(img: Any, fmt: str, **kw: Any) -> bytes:
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def _jpeg(rng: random.Random, pool: Pool, img: Any) -> bytes:
    """A JPEG as cameras, editors and image libraries write them: JFIF or Exif first, or no APP
    segment at all (libvips and others start with the quantisation table), ICC profiles, a
    comment, grey, RGB or CMYK (Adobe APP14), baseline or progressive."""
    mode = rng.choice(["RGB", "RGB", "RGB", "L", "L", "CMYK"])
    kw: dict[str, Any] = {"quality": rng.randrange(20, 98), "progressive": rng.random() < .3,
                          "subsampling": rng.choice([0, 1, 2]) if mode != "L" else 0}
    if rng.random() < .3:
        exif = img.getexif()
        exif[0x010F] = rng.choice(["Canon", "NIKON CORPORATION", "Apple", "SONY", "samsung", "Google"])
        exif[0x0110] = rng.choice(["iPhone 12", "Pixel 6", "EOS 80D", "D750", "SM-G991B"])
        exif[0x0131] = rng.choice(["GIMP 2.10.34", "Adobe Photoshop 24.1", "darktable 4.2"])
        exif[0x0132] = f"{rng.randrange(2005, 2026)}:0{rng.randrange(1, 10)}:1{rng.randrange(0, 10)} 12:00:00"
        kw["exif"] = exif.tobytes()
    if rng.random() < .2 and mode != "CMYK":
        from PIL import ImageCms

        kw["icc_profile"] = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    if rng.random() < .15:
        kw["comment"] = pool.text(rng, 5, 80).encode("utf-8", "replace")
    data = _save(img.convert(mode), "JPEG", **kw)
    if rng.random() < .3 and data[2:4] == b"\xff\xe0":  # no JFIF segment
        data = data[:2] + data[4 + int.from_bytes(data[4:6], "big"):]
    return data


def _pnm(rng: random.Random, pool: Pool, img: Any) -> bytes:
    """Netpbm files: binary (P4-P6, Pillow) or plain ASCII (P1-P3), with maxvals other than 255
    and ``#`` comment lines as GIMP, ImageMagick and netpbm write them."""
    mode = rng.choice(["RGB", "L", "1"])
    img = img.convert(mode)
    if rng.random() < .5:
        data = _save(img, "PPM")
        if rng.random() < .4:  # a comment after the magic number
            data = data[:3] + f"# {rng.choice(['CREATOR: GIMP PNM Filter Version 1.1', 'Created by ImageMagick', pool.text(rng, 5, 40).replace(chr(10), ' ')])}\n".encode() + data[3:]
        return data
    w, h = img.size
    maxval = rng.choice([255, 255, 15, 65535]) if mode != "1" else 1
    if mode == "1":  # in a bitmap 1 is black
        vals = ["1" if v < 128 else "0" for v in img.convert("L").tobytes()]
    else:
        vals = [str(v * maxval // 255) for v in img.tobytes()]
    magic = {"1": "P1", "L": "P2", "RGB": "P3"}[mode]
    head = [magic] + (["# " + pool.text(rng, 5, 40).replace("\n", " ")] if rng.random() < .5 else [])
    head += [f"{w} {h}"] + ([] if mode == "1" else [str(maxval)])
    per = rng.choice([12, 17, 35, 70])
    body = "\n".join(" ".join(vals[k:k + per]) for k in range(0, len(vals), per))
    return ("\n".join(head) + "\n" + body + "\n").encode()


def gen_images(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    def one(mime: str) -> Sample:
        img = _scene(rng, pool)
        if mime == "image/png":
            if rng.random() < 0.3:
                img = img.convert("P", palette=1, colors=rng.choice([4, 16, 256]))
            return _save(img, "PNG", compress_level=rng.randrange(10), optimize=rng.random() < .2), mime, {}
        if mime == "image/jpeg":
            return _jpeg(rng, pool, img), mime, {}
        if mime == "image/gif":
            if rng.random() < 0.3:
                frames = [img] + [_scene(rng, pool).resize(img.size) for _ in range(rng.randrange(1, 5))]
                return _save(frames[0].convert("P"), "GIF", save_all=True,
                             append_images=[f.convert("P") for f in frames[1:]],
                             duration=rng.randrange(20, 300), loop=0), mime, {}
            return _save(img.convert("P"), "GIF"), mime, {}
        if mime == "image/webp":
            return _save(img, "WEBP", lossless=rng.random() < .3, quality=rng.randrange(10, 100)), mime, {}
        if mime == "image/bmp":
            return _save(img.convert(rng.choice(["RGB", "L", "P", "1"])), "BMP"), mime, {}
        if mime == "image/tiff":
            c = rng.choice([None, "tiff_lzw", "tiff_deflate", "packbits", "jpeg" if img.mode != "RGBA" else None])
            return _save(img.convert("RGB") if c == "jpeg" else img, "TIFF", compression=c), mime, {}
        if mime == "image/x-icon":
            s = rng.choice([16, 24, 32, 48, 64, 128, 256])
            return _save(img.resize((s, s)), "ICO", sizes=[(s, s)]), mime, {}
        if mime == "image/x-portable-anymap":
            return _pnm(rng, pool, img), mime, {}
        if mime == "image/x-tga":
            return _save(img.convert(rng.choice(["RGB", "RGBA", "L"])), "TGA",
                         compression=rng.choice([None, "tga_rle"])), mime, {}
        if mime == "image/jp2":
            return _save(img.convert("RGB"), "JPEG2000", irreversible=rng.random() < .5), mime, {}
        raise ValueError(mime)

    mimes = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff",
             "image/x-icon", "image/x-portable-anymap", "image/x-tga", "image/jp2"]
    for i in range(n * len(mimes)):
        yield one(mimes[i % len(mimes)])


def gen_svg(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    for _ in range(n):
        w, h = rng.randrange(16, 1024), rng.randrange(16, 1024)
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n' if rng.random() < .5 else "",
                 f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">']
        for _ in range(rng.randrange(1, 30)):
            c = "#%06x" % rng.randrange(1 << 24)
            k = rng.randrange(4)
            if k == 0:
                parts.append(f'  <rect x="{rng.randrange(w)}" y="{rng.randrange(h)}" width="{rng.randrange(1, w)}" height="{rng.randrange(1, h)}" fill="{c}"/>')
            elif k == 1:
                parts.append(f'  <circle cx="{rng.randrange(w)}" cy="{rng.randrange(h)}" r="{rng.randrange(1, 200)}" stroke="{c}" fill="none"/>')
            elif k == 2:
                pts = " ".join(f"{rng.choice('LQC')}{rng.randrange(w)},{rng.randrange(h)}" for _ in range(rng.randrange(2, 12)))
                parts.append(f'  <path d="M{rng.randrange(w)},{rng.randrange(h)} {pts} Z" fill="{c}"/>')
            else:
                parts.append(f'  <text x="{rng.randrange(w)}" y="{rng.randrange(h)}">{pool.text(rng, 3, 40).replace("<", "").replace("&", "")}</text>')
        parts.append("</svg>\n")
        yield "\n".join(parts).encode("utf-8", "replace"), "image/svg+xml", {}


# -- archives and compressed streams --------------------------------------------------------------
def _tar(files: list[tuple[str, bytes]], fmt: int) -> bytes:
    """A tar archive of ``files`` in ``fmt``. ustar holds names of at most 100 bytes (a basename
    cannot move into its prefix field): longer ones are cut to 100 bytes keeping the extension,
    where tarfile would raise and end the generator's run (a corpus v6 build lost gen_archives
    after 289 samples to one long file name from a git tree)."""
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as tf:
        for name, data in files:
            if fmt == tarfile.USTAR_FORMAT and len(name.encode()) > 100:
                ext = Path(name).suffix[:16]
                name = name.encode()[: 100 - len(ext.encode())].decode(errors="ignore") + ext
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = 1_600_000_000
            tf.addfile(ti, io.BytesIO(data))
    return b.getvalue()


def _gzip(rng: random.Random, data: bytes, name: str) -> bytes:
    """A gzip file written from RFC 1952 over zlib's raw deflate, with the header fields the
    writers in the wild set: the original name (gzip without -n, most man pages), a comment or an
    extra field now and then, mtime 0 (reproducible builds) or a time, the OS byte of Unix, FAT,
    NTFS or unknown, sometimes two members. content-v12's pro read 13 of wild-dev's 43 gzip files
    as zlib, tar or text; every corpus gzip had come from gzip.compress (no name, one OS byte)."""
    import zlib

    out = b""
    for part in ([data] if rng.random() < .9 or len(data) < 2 else [data[:len(data) // 2], data[len(data) // 2:]]):
        flags, extra = 0, b""
        if rng.random() < .6:
            flags |= 0x08
            extra += re.sub(r"[^\x20-\x7e]", "_", name)[:80].encode() + b"\0"
        if rng.random() < .1:
            flags |= 0x10
            extra += b"created by " + rng.choice([b"a build script", b"the packager", b"backup"]) + b"\0"
        if rng.random() < .05:
            flags |= 0x04
            field = b"RA" + struct.pack("<H", 6) + rng.randbytes(6)
            extra = struct.pack("<H", len(field)) + field + extra
        level = rng.randrange(1, 10)
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        body = c.compress(part) + c.flush()
        head = struct.pack("<BBBBIBB", 0x1F, 0x8B, 8, flags, 0 if rng.random() < .3 else rng.randrange(2**31),
                           2 if level == 9 else 4 if level == 1 else 0, rng.choice([3, 3, 3, 0, 11, 255]))
        out += head + extra + body + struct.pack("<II", zlib.crc32(part), len(part) & 0xFFFFFFFF)
    return out


def gen_archives(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    have_7z, have_cpio, have_zstd = shutil.which("7z"), shutil.which("cpio"), shutil.which("zstd")
    for _ in range(n):
        files = pool.some_files(rng, rng.randrange(1, 8))
        if not files:
            continue
        blob = rng.choice(files)[1] if rng.random() < .7 else _tar(files, tarfile.GNU_FORMAT)
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w", rng.choice([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])) as zf:
            for name, data in files:
                zf.writestr(name, data)
        yield b.getvalue(), "application/zip", {}
        yield _tar(files, rng.choice([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT])), "application/x-tar", {}
        yield _gzip(rng, blob, rng.choice(files)[0]), "application/gzip", {}
        yield bz2.compress(blob, rng.randrange(1, 10)), "application/x-bzip2", {}
        yield lzma.compress(blob, preset=rng.randrange(0, 7)), "application/x-xz", {}
        with tempfile.TemporaryDirectory() as td:
            src = Path(td) / "in"
            src.mkdir()
            for name, data in files:
                (src / name).write_bytes(data)
            if have_zstd:
                (Path(td) / "blob").write_bytes(blob)
                subprocess.run(["zstd", "-q", f"-{rng.randrange(1, 15)}", str(Path(td) / "blob"), "-o", str(Path(td) / "z")], check=True)
                yield (Path(td) / "z").read_bytes(), "application/zstd", {}
            if have_7z:
                subprocess.run(["7z", "a", "-bd", "-y", f"-mx={rng.choice([0, 1, 5, 9])}", str(Path(td) / "a.7z"), "."],
                               cwd=src, check=True, capture_output=True)
                yield (Path(td) / "a.7z").read_bytes(), "application/x-7z-compressed", {}
            if have_cpio:
                names = "\n".join(p.name for p in src.iterdir()) + "\n"
                # the old binary format too (71 C7, as pax and old cpio write it)
                fmt = rng.choice(["newc", "odc", "crc", "bin"])
                p = subprocess.run(["cpio", "-o", "-H", fmt, "--quiet", *(["-B"] if rng.random() < .2 else [])],
                                   cwd=src, input=names.encode(), capture_output=True, check=True)
                yield p.stdout, "application/x-cpio", {}
            subprocess.run(["ar", "rc", str(Path(td) / "a.a"), *[p.name for p in src.iterdir()]], cwd=src,
                           check=True, capture_output=True)
            yield (Path(td) / "a.a").read_bytes(), "application/x-archive", {}


# -- sqlite, pyc ----------------------------------------------------------------------------------
def gen_sqlite(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    for _ in range(n):
        with tempfile.TemporaryDirectory() as td:
            p = Path(td) / "db.sqlite"
            con = sqlite3.connect(p)
            con.execute(f"PRAGMA page_size={rng.choice([512, 1024, 4096, 8192])}")
            if rng.random() < .3:
                con.execute("PRAGMA journal_mode=WAL")
            for t in range(rng.randrange(1, 5)):
                cols = [f"c{j} {rng.choice(['TEXT', 'INTEGER', 'REAL', 'BLOB'])}" for j in range(rng.randrange(1, 6))]
                con.execute(f"CREATE TABLE t{t}_{rng.choice(['users', 'items', 'log', 'kv'])} (id INTEGER PRIMARY KEY, {', '.join(cols)})")
                name = con.execute("SELECT name FROM sqlite_master ORDER BY rowid DESC LIMIT 1").fetchone()[0]
                rows = [tuple(rng.choice([pool.text(rng, 1, 80), rng.randrange(10**6), rng.random(), None]) for _ in cols)
                        for _ in range(rng.randrange(0, 200))]
                con.executemany(f"INSERT INTO {name} VALUES (NULL, {', '.join('?' * len(cols))})", rows)
            con.commit()
            con.execute("PRAGMA journal_mode=DELETE")
            con.close()
            yield p.read_bytes(), "application/vnd.sqlite3", {}


# (version, magic number, header bytes) of CPython releases: 8-byte headers (magic, mtime) up to
# 3.2, 12 (+ source size) for 3.3-3.6, 16 (+ flags, PEP 552) from 3.7. content-v12's pro read 14
# of wild-dev's 25 .pyc files (Python 1.5 to 3.11) wrong; every corpus .pyc had 3.11's magic.
PYC_VERSIONS = [((1, 5), 20121, 8), ((2, 0), 50823, 8), ((2, 1), 60202, 8), ((2, 2), 60717, 8),
                ((2, 3), 62011, 8), ((2, 4), 62061, 8), ((2, 5), 62131, 8), ((2, 6), 62161, 8),
                ((2, 7), 62211, 8), ((3, 0), 3131, 8), ((3, 1), 3151, 8), ((3, 2), 3180, 8),
                ((3, 3), 3230, 12), ((3, 4), 3310, 12), ((3, 5), 3351, 12), ((3, 6), 3379, 12),
                ((3, 7), 3394, 16), ((3, 8), 3413, 16), ((3, 9), 3425, 16), ((3, 10), 3439, 16),
                ((3, 12), 3531, 16), ((3, 13), 3571, 16)]


def _pyc_other_version(rng: random.Random, code: Any, size: int) -> bytes:
    """A .pyc header of another CPython release over this interpreter's marshalled code (without
    marshal's reference flags before 3.4, as those releases wrote it)."""
    import marshal

    ver, magic, head = rng.choice(PYC_VERSIONS)
    out = struct.pack("<H", magic) + b"\r\n"
    if head == 16:
        out += struct.pack("<I", 0)
    out += struct.pack("<I", rng.randrange(10**9, 2 * 10**9))
    if head >= 12:
        out += struct.pack("<I", size)
    return out + marshal.dumps(code, 2 if ver < (3, 4) else 4)


def gen_pyc(rng: random.Random, pool: Pool, n: int, sources: list[bytes]) -> Iterator[Sample]:
    import importlib._bootstrap_external
    import marshal

    be: Any = importlib._bootstrap_external
    rng.shuffle(sources)
    made = 0
    for src in sources:
        if made >= n:
            break
        try:
            code = compile(src, "<corpus>", "exec", optimize=rng.choice([0, 0, 1, 2]))
        except (SyntaxError, ValueError):
            continue
        r = rng.random()
        if r < .4:
            data = _pyc_other_version(rng, code, len(src))
        elif r < .7:
            data = be._code_to_timestamp_pyc(code, rng.randrange(2**31), len(src))
        else:
            data = be._code_to_hash_pyc(code, rng.randbytes(8), rng.random() < .5)
        assert isinstance(data, (bytes, bytearray))
        _ = marshal  # the pyc body is marshal data
        made += 1
        yield bytes(data), "application/x-python-bytecode", {}


# -- documents ------------------------------------------------------------------------------------
def gen_office(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """One document of each office format per round; a failing round loses only its rest."""
    for _ in range(n):
        try:
            yield from _office_docs(rng, pool, 1)
        except Exception as e:  # noqa: BLE001 - odd text can upset any of the writers
            log.debug("office round cut short: %s", e)


def _cells(rng: random.Random, pool: Pool, k: int) -> list[list[Any]]:
    """``k`` spreadsheet rows of 1-7 cells: text, integers or decimals."""
    return [[rng.choice([pool.text(rng, 1, 30), rng.randrange(10**5), round(rng.random() * 1000, 2)])
             for _ in range(rng.randrange(1, 8))] for _ in range(k)]


def _sheet_name(rng: random.Random, pool: Pool, default: str) -> str:
    """A worksheet name from pool text (word characters and spaces, at most 28), else ``default``."""
    return re.sub(r"[^\w ]", "", pool.text(rng, 3, 20)).strip()[:28] or default


def _office_docs(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    import docx
    import openpyxl
    import pptx
    import xlwt
    from fpdf import FPDF
    from odf.opendocument import OpenDocumentPresentation, OpenDocumentSpreadsheet, OpenDocumentText
    from odf.table import Table, TableCell, TableRow
    from odf.text import H, P

    for _ in range(n):
        d = docx.Document()
        d.add_heading(pool.text(rng, 5, 60), level=rng.randrange(0, 3))
        for _ in range(rng.randrange(1, 8)):
            d.add_paragraph(pool.text(rng, 50, 1500))
        b = io.BytesIO()
        d.save(b)
        yield b.getvalue(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document", {}

        wb = openpyxl.Workbook()
        ws = wb.active
        for row in _cells(rng, pool, rng.randrange(1, 60)):
            ws.append(row)
        b = io.BytesIO()
        wb.save(b)
        yield b.getvalue(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", {}

        pr = pptx.Presentation()
        for _ in range(rng.randrange(1, 6)):
            s = pr.slides.add_slide(pr.slide_layouts[1])
            s.shapes.title.text = pool.text(rng, 5, 60)
            s.placeholders[1].text = pool.text(rng, 20, 400)
        b = io.BytesIO()
        pr.save(b)
        yield b.getvalue(), "application/vnd.openxmlformats-officedocument.presentationml.presentation", {}

        xb = xlwt.Workbook()
        sh = xb.add_sheet(_sheet_name(rng, pool, "Sheet1"))
        for r, row in enumerate(_cells(rng, pool, rng.randrange(1, 60))):
            for c, v in enumerate(row):
                sh.write(r, c, v)
        b = io.BytesIO()
        xb.save(b)
        yield b.getvalue(), "application/vnd.ms-excel", {}

        od = OpenDocumentText()
        od.text.addElement(H(outlinelevel=1, text=pool.text(rng, 5, 60)))
        for _ in range(rng.randrange(1, 8)):
            od.text.addElement(P(text=pool.text(rng, 50, 1500)))
        b = io.BytesIO()
        od.save(b)
        yield b.getvalue(), "application/vnd.oasis.opendocument.text", {}

        os_ = OpenDocumentSpreadsheet()
        t = Table(name="Sheet1")
        for row in _cells(rng, pool, rng.randrange(1, 40)):
            tr = TableRow()
            for v in row:
                tc = TableCell()
                tc.addElement(P(text=str(v)))
                tr.addElement(tc)
            t.addElement(tr)
        os_.spreadsheet.addElement(t)
        b = io.BytesIO()
        os_.save(b)
        yield b.getvalue(), "application/vnd.oasis.opendocument.spreadsheet", {}

        op = OpenDocumentPresentation()
        from odf.draw import Frame, Page, TextBox
        from odf.style import MasterPage, PageLayout

        pl = PageLayout(name="pl")
        op.automaticstyles.addElement(pl)
        mp = MasterPage(name="Default", pagelayoutname=pl)
        op.masterstyles.addElement(mp)
        for _ in range(rng.randrange(1, 5)):
            pg = Page(masterpagename=mp)
            fr = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
            tb = TextBox()
            tb.addElement(P(text=pool.text(rng, 20, 300)))
            fr.addElement(tb)
            pg.addElement(fr)
            op.presentation.addElement(pg)
        b = io.BytesIO()
        op.save(b)
        yield b.getvalue(), "application/vnd.oasis.opendocument.presentation", {}

        pdf = FPDF()
        pdf.set_compression(rng.random() < .8)
        for _ in range(rng.randrange(1, 4)):
            pdf.add_page()
            pdf.set_font(rng.choice(["Helvetica", "Times", "Courier"]), size=rng.randrange(8, 20))
            txt = pool.text(rng, 50, 2000).encode("latin-1", "replace").decode("latin-1")
            pdf.multi_cell(0, 6, txt)
        yield bytes(pdf.output()), "application/pdf", {}


def gen_libreoffice(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Legacy binary Office formats, RTF and PDF through headless LibreOffice (batch conversion).

    LibreOffice's compound files put the allocation table in the first sector, where xlwt's
    spreadsheets start with the workbook's BOF record; with xlwt the only spreadsheet writer,
    content-v13rc1's pro read 19 of wild-dev's 43 XLS files (LibreOffice's layout) as DOC."""
    soffice = shutil.which("soffice")
    if not soffice:
        log.warning("soffice not found: skipping doc/xls/ppt/rtf (apt-get install libreoffice-writer-nogui ...)")
        return
    import docx
    import openpyxl
    import pptx

    targets = [("docx", "doc:MS Word 97", "application/msword"), ("docx", "rtf", "application/rtf"),
               ("pptx", "ppt", "application/vnd.ms-powerpoint"), ("docx", "pdf", "application/pdf"),
               ("xlsx", "xls:MS Excel 97", "application/vnd.ms-excel")]
    with tempfile.TemporaryDirectory() as td:
        for src_ext, conv, mime in targets:
            indir, outdir = Path(td) / f"in_{mime.replace('/', '_')}", Path(td) / f"out_{mime.replace('/', '_')}"
            indir.mkdir()
            outdir.mkdir()
            for i in range(n):
                if src_ext == "docx":
                    d = docx.Document()
                    d.add_heading(pool.text(rng, 5, 60), level=rng.randrange(0, 3))
                    for _ in range(rng.randrange(1, 6)):
                        d.add_paragraph(pool.text(rng, 50, 1200))
                    d.save(str(indir / f"f{i}.docx"))
                elif src_ext == "xlsx":
                    wb = openpyxl.Workbook()
                    wb.properties.creator = pool.text(rng, 4, 24).strip() or "user"
                    for k in range(rng.randrange(1, 4)):
                        ws = wb.active if k == 0 else wb.create_sheet()
                        ws.title = _sheet_name(rng, pool, f"Sheet{k + 1}")
                        for row in _cells(rng, pool, rng.randrange(1, 80)):
                            ws.append(row)
                    wb.save(str(indir / f"f{i}.xlsx"))
                else:
                    pr = pptx.Presentation()
                    for _ in range(rng.randrange(1, 4)):
                        s = pr.slides.add_slide(pr.slide_layouts[1])
                        s.shapes.title.text = pool.text(rng, 5, 60)
                        s.placeholders[1].text = pool.text(rng, 20, 300)
                    pr.save(str(indir / f"f{i}.pptx"))
            env = dict(os.environ, HOME=td)
            files = sorted(str(p) for p in indir.iterdir())
            for k in range(0, len(files), 100):
                subprocess.run([soffice, "--headless", "--norestore", "--convert-to", conv, "--outdir",
                                str(outdir), *files[k:k + 100]], env=env, capture_output=True, timeout=1800)
            for p in sorted(outdir.iterdir()):
                mod = "text" if mime == "application/rtf" else None
                yield p.read_bytes(), mime, ({"modality": mod} if mod else {})


# -- audio / video ------------------------------------------------------------------------------
# AIFF (big-endian PCM of several widths) and AIFF-C (float, A-law, mu-law, little-endian sowt,
# IMA ADPCM): content-v12's pro read 12 of wild-dev's 34 AIFF files as tar or FLAC
AIFF_CODECS = [[], ["-c:a", "pcm_s8"], ["-c:a", "pcm_s24be"], ["-c:a", "pcm_s32be"],
               ["-c:a", "pcm_f32be"], ["-c:a", "pcm_alaw"], ["-c:a", "pcm_mulaw"],
               ["-c:a", "pcm_s16le"], ["-c:a", "adpcm_ima_qt"]]


def _cover(rng: random.Random, pool: Pool, td: str, i: int) -> str:
    """A small JPEG or PNG cover picture (one of ``_scene``'s) in ``td``, for audio tags."""
    w = rng.choice([32, 64, 120, 200, 300])
    path = f"{td}/cover{i}.{rng.choice(['jpg', 'jpg', 'png'])}"
    _scene(rng, pool).convert("RGB").resize((w, w)).save(path)
    return path


AUDIO = [("mp3", "audio/mpeg", ["-c:a", "libmp3lame"]), ("ogg", "audio/ogg", ["-c:a", "libvorbis"]),
         ("opus", "audio/ogg", ["-c:a", "libopus"]), ("wav", "audio/wav", []),
         ("flac", "audio/flac", []), ("aac", "audio/aac", ["-c:a", "aac"]),
         ("m4a", "audio/mp4", ["-c:a", "aac"]), ("aiff", "audio/aiff", [])]
VIDEO = [("mp4", "video/mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"]),
         ("webm", "video/webm", ["-c:v", "libvpx", "-b:v", "200k", "-pix_fmt", "yuv420p",
                                    "-deadline", "realtime", "-cpu-used", "8"]),
         ("mkv", "video/x-matroska", ["-c:v", "libx264"]), ("mov", "video/quicktime", ["-c:v", "mpeg4"]),
         ("avi", "video/x-msvideo", ["-c:v", "mpeg4"]), ("flv", "video/x-flv", ["-c:v", "flv"]),
         ("mpg", "video/mpeg", ["-c:v", "mpeg2video"])]
# video/mpeg is also a bare elementary stream (a sequence header, 00 00 01 B3, first), as mpeg2enc
# and `ffmpeg -f mpeg1video` write it, not only a program stream (a pack header, 00 00 01 BA):
# content-v12's pro read 0 of wild-dev's 10 elementary streams as video/mpeg (9 as WBMP)
MPEG_VARIANTS = [("mpg", ["-c:v", "mpeg2video"]), ("mpg", ["-c:v", "mpeg1video"]),
                 ("m1v", ["-c:v", "mpeg1video", "-an", "-f", "mpeg1video"]),
                 ("m2v", ["-c:v", "mpeg2video", "-an", "-f", "mpeg2video"])]
# MP4's major brand and atom order vary with the writer (ffmpeg's default is isom with moov last;
# cameras, encoders and tag tools write mp42 or mp41, often moov first): content-v12's pro read
# 8 of wild-dev's 11 mp42/isom files as 3GPP, QuickTime or ASF
MP4_BRANDS = ("isom", "mp42", "mp41", "iso5", "avc1")  # each `file --mime-type` video/mp4


def _ffmpeg_job(args: tuple[list[str], str]) -> bytes | None:
    cmd, out = args
    p = subprocess.run(cmd, capture_output=True, timeout=120)
    if p.returncode != 0 or not os.path.exists(out):
        return None
    data = Path(out).read_bytes()
    os.unlink(out)
    return data


def gen_av(rng: random.Random, pool: Pool, n: int, jobs: int) -> Iterator[Sample]:
    if not shutil.which("ffmpeg"):
        log.warning("ffmpeg not found: skipping audio/video formats (apt-get install ffmpeg)")
        return
    td = tempfile.mkdtemp()
    tasks: list[tuple[tuple[list[str], str], str]] = []
    for i in range(n):
        for ext, mime, codec in AUDIO:
            dur = round(rng.uniform(0.3, 2.5), 2)
            src = rng.choice([f"sine=frequency={rng.randrange(50, 4000)}:duration={dur}",
                              f"anoisesrc=d={dur}:c={rng.choice(['white', 'pink', 'brown'])}:a={rng.random():.2f}",
                              f"aevalsrc=sin({rng.randrange(100, 900)}*2*PI*t)*sin({rng.randrange(1, 9)}*t):d={dur}",
                              f"aevalsrc=0:d={dur}"])  # silence: a header, then zeros
            rates = [8000, 16000, 22050, 44100, 48000]
            if ext == "mp3" and rng.random() < .3:  # MPEG audio layer II is audio/mpeg too
                ext, codec, rates = "mp2", ["-c:a", "mp2"], [16000, 22050, 32000, 44100, 48000]
            elif ext == "aiff":  # AIFF and AIFF-C (compressed, little-endian, float)
                codec = rng.choice(AIFF_CODECS)
            out = f"{td}/{i}_{ext}.{ext}"
            cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", src]
            cover = ext in ("mp3", "flac") and rng.random() < .2
            if cover:  # embedded cover art (ID3 APIC, FLAC PICTURE)
                cmd += ["-i", _cover(rng, pool, td, i)]
            cmd += ["-ar", str(rng.choice([8000, 16000, 48000] if ext == "opus" else rates)),
                    "-ac", str(rng.choice([1, 2, 2, 4] if ext in ("wav", "aiff") else [1, 2])), *codec]
            if cover:
                cmd += ["-map", "0:a", "-map", "1:v", "-c:v", "copy", "-disposition:v", "attached_pic"]
            if ext in ("mp3", "ogg", "aac", "m4a", "opus"):
                cmd += ["-b:a", f"{rng.choice([32, 64, 96, 128, 192])}k"]
            if ext == "mp3":
                cmd += ["-id3v2_version", "0" if not cover and rng.random() < .2 else rng.choice("34")]
                if rng.random() < .3:
                    cmd += ["-write_id3v1", "1"]
            if ext == "aiff" and rng.random() < .2:
                cmd += ["-write_id3v2", "1"]
            if ext in ("mp3", "mp2", "ogg", "flac", "m4a", "aiff"):  # tags as players write them
                for key in ("title", "artist", "album", "date", "track", "genre", "comment"):
                    if rng.random() < .35:
                        value = (str(rng.randrange(1960, 2026)) if key == "date" else
                                 str(rng.randrange(1, 20)) if key == "track" else pool.text(rng, 3, 40))
                        cmd += ["-metadata", f"{key}={value}"]
            tasks.append(((cmd + [out], out), mime))
        for ext, mime, codec in VIDEO:
            sound_only = False
            if ext == "mpg":
                ext, codec = rng.choice(MPEG_VARIANTS)
            elif ext == "mp4":
                sound_only = rng.random() < .25  # still video/mp4 by its brand, as `file` says
                codec = [*(["-vn", "-c:a", "aac"] if sound_only else codec),
                         "-brand", rng.choice(MP4_BRANDS),
                         *(["-movflags", "+faststart"] if rng.random() < .5 else [])]
            dur = round(rng.uniform(0.2, 0.8), 2)
            w, h = rng.choice([(64, 48), (96, 64), (160, 120), (128, 128), (176, 144), (320, 240)])
            src = rng.choice(["testsrc", "testsrc2", "smptebars", "mandelbrot", "rgbtestsrc", "cellauto"])
            vs = f"{src}=size={w}x{h}:rate={rng.choice([10, 15, 24, 25, 30])}" if src != "cellauto" else f"cellauto=size={w}x{h}"
            out = f"{td}/{i}_{ext}.{ext}"
            cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-threads", "1", "-y", "-f", "lavfi", "-i", vs,
                   "-t", str(dur)]
            if (sound_only or rng.random() < .5) and ext not in ("flv", "m1v", "m2v"):
                cmd += ["-f", "lavfi", "-i", f"sine=frequency={rng.randrange(100, 2000)}:duration={dur}", "-shortest"]
            cmd += codec
            if ext in ("mpg", "m1v", "m2v"):
                cmd += ["-r", "25"]
            if ext == "webm":
                cmd += ["-c:a", "libvorbis"]
            if ext in ("mp4", "mov", "mkv", "avi") and rng.random() < .3:
                cmd += ["-metadata", f"title={pool.text(rng, 3, 40)}"]
            tasks.append(((cmd + [out], out), mime))
    yield from _run_ffmpeg(tasks, jobs, td)


def _run_ffmpeg(tasks: list[tuple[tuple[list[str], str], str]], jobs: int, td: str
                ) -> Iterator[Sample]:
    """Run planned ffmpeg commands ``jobs`` at a time, yielding outputs in plan order (so the
    samples do not depend on ``jobs``), then remove the temporary folder."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for (_, mime), data in zip(tasks, ex.map(_ffmpeg_job, [t for t, _ in tasks])):
            if data:
                yield data, mime, {}
    shutil.rmtree(td, ignore_errors=True)


# ext, mime, ffmpeg output options: containers and codecs of the wild suite's types that the
# first AV generator does not write (ASF/WMV/WMA, WavPack, Sony Wave64, Core Audio, 3GPP)
AV_MORE = [("wmv", "video/x-ms-asf", ["-c:v", "wmv2", "-c:a", "wmav2"], True),
           ("asf", "video/x-ms-asf", ["-c:v", "wmv1", "-c:a", "wmav1"], True),
           ("wma", "video/x-ms-asf", ["-c:a", "wmav2"], False),
           ("wv", "audio/x-wavpack", ["-c:a", "wavpack"], False),
           ("w64", "audio/x-w64", ["-c:a", "pcm_s16le"], False),
           ("caf", "audio/x-caf", ["-c:a", "pcm_s16le"], False),
           ("caf", "audio/x-caf", ["-c:a", "alac"], False),
           ("3gp", "video/3gpp", ["-c:v", "h263", "-s", "176x144", "-c:a", "aac", "-ar", "8000"], True)]


def gen_av_more(rng: random.Random, pool: Pool, n: int, jobs: int) -> Iterator[Sample]:
    """ffmpeg's writers for the AV_MORE types: lavfi test sources and tones of random length,
    rate, channels and (for the lossy codecs) bitrate; each label gets ``n`` samples."""
    if not shutil.which("ffmpeg"):
        log.warning("ffmpeg not found: skipping the second set of audio/video formats")
        return
    td = tempfile.mkdtemp()
    by_mime: dict[str, list[tuple[str, list[str], bool]]] = {}
    for ext, mime, codec, video in AV_MORE:
        by_mime.setdefault(mime, []).append((ext, codec, video))
    tasks: list[tuple[tuple[list[str], str], str]] = []
    for i in range(n):
        for mime, variants in by_mime.items():
            ext, codec, video = rng.choice(variants)
            dur = round(rng.uniform(0.2, 2.0), 2)
            out = f"{td}/{i}_{len(tasks)}.{ext}"
            cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-threads", "1", "-y"]
            if video:
                src = rng.choice(["testsrc", "testsrc2", "smptebars", "rgbtestsrc", "mandelbrot"])
                w, h = rng.choice([(96, 64), (160, 120), (176, 144), (320, 240)])
                cmd += ["-f", "lavfi", "-i", f"{src}=size={w}x{h}:rate={rng.choice([10, 15, 25])}"]
            if not video or rng.random() < .8:
                tone = rng.choice([f"sine=frequency={rng.randrange(50, 4000)}:duration={dur}",
                                   f"anoisesrc=d={dur}:c={rng.choice(['white', 'pink'])}:a={rng.random():.2f}"])
                cmd += ["-f", "lavfi", "-i", tone]
            cmd += ["-t", str(dur), *codec]
            if ext != "3gp":
                cmd += ["-ar", str(rng.choice([8000, 16000, 22050, 44100, 48000])),
                        "-ac", str(rng.choice([1, 2]))]
            if ext in ("wmv", "asf", "wma"):
                cmd += ["-b:a", f"{rng.choice([32, 64, 128])}k"]
            if rng.random() < .3 and ext in ("wmv", "asf", "wma", "wv", "caf"):
                cmd += ["-metadata", f"title={pool.text(rng, 3, 40)}"]
            tasks.append(((cmd + [out], out), mime))
    yield from _run_ffmpeg(tasks, jobs, td)


# -- fonts ----------------------------------------------------------------------------------------
def gen_fonts(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Subsets of real fonts (random glyph sets and features) saved as TTF/OTF, WOFF and WOFF2."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    fonts = [p for p in pool.fonts if p.suffix.lower() in (".ttf", ".otf")
             and p.stat().st_size < 1_500_000]
    if not fonts:
        return
    rng.shuffle(fonts)
    made: dict[str, int] = {}
    for i in range(n * 8):
        p = fonts[i % len(fonts)]
        try:
            raw = p.read_bytes()
            f = TTFont(io.BytesIO(raw))
            base = "font/otf" if "CFF " in f else "font/ttf"
        except Exception:  # noqa: BLE001 - a broken font file is skipped
            continue
        flavors = [fl for fl, m in ((None, base), ("woff", "font/woff"), ("woff2", "font/woff2"))
                   if made.get(m, 0) < n]
        if not flavors:
            if all(made.get(m, 0) >= n for m in ("font/ttf", "font/otf", "font/woff", "font/woff2")):
                break
            continue
        flavor = rng.choice(flavors)
        mime = {"woff": "font/woff", "woff2": "font/woff2"}.get(flavor or "", base)
        try:
            cmap = list(f.getBestCmap() or {})
            if cmap and rng.random() < 0.8:
                opts = subset.Options()
                opts.flavor = flavor
                opts.layout_features = ["*"] if rng.random() < .5 else []
                sub = subset.Subsetter(opts)
                sub.populate(unicodes=rng.sample(cmap, min(len(cmap), rng.randrange(20, 300))))
                sub.subset(f)
            f.flavor = flavor
            b = io.BytesIO()
            f.save(b)
        except Exception:  # noqa: BLE001 - fontTools raises many kinds on odd fonts
            continue
        made[mime] = made.get(mime, 0) + 1
        yield b.getvalue(), mime, {}


# -- certificates, keys, pgp --------------------------------------------------------------------
def gen_crypto(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization as ser
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.x509.oid import NameOID

    from picohead.data.risk import FIRST, LAST

    for _ in range(n):
        k = rng.randrange(3)
        key: Any = (rsa.generate_private_key(65537, rng.choice([1024, 2048])) if k == 0 else
                    ec.generate_private_key(rng.choice([ec.SECP256R1(), ec.SECP384R1()])) if k == 1 else
                    ed25519.Ed25519PrivateKey.generate())
        cn = f"{rng.choice(FIRST)}.{rng.choice(['internal', 'corp', 'lan', 'io'])}"
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                          x509.NameAttribute(NameOID.ORGANIZATION_NAME, rng.choice(LAST).title())])
        start = datetime.datetime(2020, 1, 1) + datetime.timedelta(days=rng.randrange(2000))
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                .public_key(key.public_key()).serial_number(rng.getrandbits(64))
                .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=rng.choice([90, 365, 3650])))
                .sign(key, None if k == 2 else rng.choice([hashes.SHA256(), hashes.SHA384()])))  # type: ignore[arg-type]
        yield cert.public_bytes(ser.Encoding.DER), "application/pkix-cert", {}
        yield cert.public_bytes(ser.Encoding.PEM), "application/x-pem-file", {"subtype": "certificate", "risk": []}
        fmt = rng.choice([ser.PrivateFormat.PKCS8, ser.PrivateFormat.TraditionalOpenSSL]) if k != 2 else ser.PrivateFormat.PKCS8
        yield key.private_bytes(ser.Encoding.PEM, fmt, ser.NoEncryption()), "application/x-pem-file", \
            {"subtype": "key", "risk": ["private_key"]}
        yield key.public_key().public_bytes(ser.Encoding.PEM, ser.PublicFormat.SubjectPublicKeyInfo), \
            "application/x-pem-file", {"subtype": "key", "risk": []}


def gen_pgp(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    if not shutil.which("gpg"):
        log.warning("gpg not found: skipping application/pgp-keys")
        return
    from picohead.data.risk import FIRST, LAST

    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, GNUPGHOME=home)
        os.chmod(home, 0o700)
        for i in range(n):
            uid = f"{rng.choice(FIRST).title()} {rng.choice(LAST).title()} <{rng.choice(FIRST)}{i}@{rng.choice(['mail.org', 'corp.io', 'debian.net'])}>"
            algo = rng.choice(["ed25519", "rsa2048", "nistp256", "rsa1024"])
            r = subprocess.run(["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
                                "--quick-gen-key", uid, algo, "default", "never"], env=env, capture_output=True)
            if r.returncode != 0:
                continue
            armor = rng.random() < 0.5
            out = subprocess.run(["gpg", "--batch", "--export", *(["--armor"] if armor else []), uid],
                                 env=env, capture_output=True).stdout
            if out:
                yield out, "application/pgp-keys", {"modality": "text" if armor else "binary"}


def gen_jars(rng: random.Random, pool: Pool, n: int, classes: list[tuple[str, Path]]
             ) -> Iterator[Sample]:
    """Java archives of real class files, packed by the JDK's ``jar`` tool (zipfile otherwise)."""
    if not classes:
        return
    jar = shutil.which("jar")
    for i in range(n):
        pick = rng.sample(classes, min(len(classes), rng.randrange(1, 30)))
        with tempfile.TemporaryDirectory() as td:
            root = Path(td) / "c"
            for path, blob in pick:
                rel = path.split("!/", 1)[-1]
                dest = root / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(blob.read_bytes())
            if rng.random() < 0.3:
                (root / "res").mkdir(exist_ok=True)
                (root / "res" / "messages.properties").write_text(f"greeting={pool.text(rng, 5, 80)}\n")
            out = Path(td) / "a.jar"
            ok = False
            if jar and i % 3 != 0:
                ok = subprocess.run([jar, "cf" + ("0" if rng.random() < 0.2 else ""), str(out), "-C",
                                     str(root), "."], capture_output=True).returncode == 0
            if not ok:
                with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                    zf.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: 17.0 (Debian)\r\n\r\n")
                    for p in sorted(root.rglob("*")):
                        if p.is_file():
                            zf.write(p, str(p.relative_to(root)))
            yield out.read_bytes(), "application/java-archive", {}


# -- corpus v2 (issue 22): text data formats, patches, and simple binary formats ----------------
# These write the formats themselves (the Python standard library's csv/json/difflib/zlib/binascii,
# Pillow, gcc) with randomized options; the wild suite's programs for the same types (wabt,
# sharutils, ncompress, netpbm, ImageMagick, ...) are never used here.
_FIRST = ["Anna", "Ben", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kofi",
          "Lena", "Mateo", "Nia", "Omar", "Pia", "Ravi", "Sara", "Tomas", "Yuki"]
_LAST = ["Novak", "Smith", "Garcia", "Kim", "Okafor", "Rossi", "Dubois", "Silva", "Nguyen",
         "Schmidt", "Ivanova", "Haddad", "Larsen", "Tanaka", "Kowalski", "Murphy"]


def _words(rng: random.Random, pool: Pool, k: int) -> list[str]:
    ws = [w for w in re.findall(r"[^\W\d_]{2,20}", pool.text(rng, 100, 800))] or ["item"]
    return [rng.choice(ws) for _ in range(k)]


def _fold(line: str, rng: random.Random) -> str:
    """RFC 5545/6350 line folding at 75 octets (sometimes not folded at all)."""
    if rng.random() < .3 or len(line) <= 75:
        return line
    parts = [line[:75]] + [" " + line[i:i + 74] for i in range(75, len(line), 74)]
    return "\r\n".join(parts)


def _vcard(rng: random.Random, pool: Pool) -> str:
    ver = rng.choice(["2.1", "3.0", "4.0"])
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    lines = ["BEGIN:VCARD", f"VERSION:{ver}", f"N:{last};{first};;;", f"FN:{first} {last}"]
    if rng.random() < .7:
        lines.append(f"ORG:{' '.join(_words(rng, pool, rng.randrange(1, 4)))}")
    for _ in range(rng.randrange(0, 3)):
        kind = rng.choice(["HOME", "WORK", "CELL"])
        num = f"+{rng.randrange(1, 99)} {rng.randrange(100, 999)} {rng.randrange(10**5, 10**7)}"
        lines.append(f"TEL;TYPE={kind}:{num}" if ver != "2.1" else f"TEL;{kind}:{num}")
    if rng.random() < .8:
        lines.append(f"EMAIL:{first.lower()}.{last.lower()}@example.{rng.choice(['org', 'com', 'net'])}")
    if rng.random() < .5:
        lines.append(f"ADR;TYPE=WORK:;;{rng.randrange(1, 300)} {rng.choice(_words(rng, pool, 3))} "
                     f"St;{rng.choice(_words(rng, pool, 2))};;{rng.randrange(10000, 99999)};")
    if rng.random() < .4:
        lines.append("NOTE:" + pool.text(rng, 20, 300).replace("\n", "\\n").replace(",", "\\,"))
    if ver != "2.1" and rng.random() < .5:
        lines.append(f"UID:urn:uuid:{rng.getrandbits(128):032x}")
    lines.append("END:VCARD")
    return "\r\n".join(_fold(x, rng) for x in lines) + "\r\n"


def _ical(rng: random.Random, pool: Pool) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0",
             f"PRODID:-//{rng.choice(_words(rng, pool, 4))}//{rng.choice(['Calendar', 'Planner', 'Sync'])} "
             f"{rng.randrange(1, 20)}.{rng.randrange(10)}//EN"]
    if rng.random() < .5:
        lines.append("CALSCALE:GREGORIAN")
    for _ in range(rng.randrange(1, 8)):
        comp = rng.choice(["VEVENT", "VEVENT", "VTODO"])
        y, mo, d, h = rng.randrange(2000, 2030), rng.randrange(1, 13), rng.randrange(1, 29), rng.randrange(24)
        lines += [f"BEGIN:{comp}", f"UID:{rng.getrandbits(64):016x}@example.org",
                  f"DTSTAMP:{y:04d}{mo:02d}{d:02d}T{h:02d}0000Z",
                  f"DTSTART:{y:04d}{mo:02d}{d:02d}T{h:02d}{rng.randrange(60):02d}00"
                  + ("Z" if rng.random() < .5 else ""),
                  "SUMMARY:" + " ".join(_words(rng, pool, rng.randrange(1, 7)))]
        if rng.random() < .5:
            lines.append("DESCRIPTION:" + pool.text(rng, 20, 400).replace("\n", "\\n"))
        if rng.random() < .3:
            lines.append(f"RRULE:FREQ={rng.choice(['DAILY', 'WEEKLY', 'MONTHLY'])};COUNT={rng.randrange(2, 20)}")
        if rng.random() < .3:
            lines.append("LOCATION:" + " ".join(_words(rng, pool, 2)))
        lines.append(f"END:{comp}")
    lines.append("END:VCALENDAR")
    return "\r\n".join(_fold(x, rng) for x in lines) + "\r\n"


def gen_pim(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """vCard 2.1/3.0/4.0 address books and iCalendar files with random people, events, folding."""
    for _ in range(n):
        cards = "".join(_vcard(rng, pool) for _ in range(rng.choice([1, 1, 2, 5, 20])))
        yield cards.encode(), "text/vcard", {}
        yield _ical(rng, pool).encode(), "text/calendar", {}


def _cell(rng: random.Random, pool: Pool, kind: str) -> Any:
    if kind == "int":
        return rng.randrange(-10**6, 10**6)
    if kind == "float":
        return round(rng.uniform(-1e4, 1e4), rng.randrange(0, 6))
    if kind == "date":
        return f"{rng.randrange(1990, 2030)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
    return " ".join(_words(rng, pool, rng.randrange(1, 5)))


def gen_tables(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """CSV (random dialects), TSV, JSON Lines and GeoJSON with random columns of real words."""
    import csv
    import json

    for _ in range(n):
        ncol = rng.randrange(2, 12)
        kinds = [rng.choice(["int", "float", "date", "text", "text"]) for _ in range(ncol)]
        head = [rng.choice(_words(rng, pool, 3)).lower() + (str(i) if rng.random() < .2 else "")
                for i in range(ncol)]
        rows = [[_cell(rng, pool, k) for k in kinds] for _ in range(rng.randrange(3, 300))]
        for mime, delim in (("text/csv", rng.choice([",", ",", ";", "|"])), ("text/tab-separated-values", "\t")):
            buf = io.StringIO()
            w = csv.writer(buf, delimiter=delim, lineterminator=rng.choice(["\n", "\r\n"]),
                           quoting=rng.choice([csv.QUOTE_MINIMAL, csv.QUOTE_NONNUMERIC, csv.QUOTE_ALL])
                           if delim != "\t" else csv.QUOTE_MINIMAL)
            if rng.random() < .85:
                w.writerow(head)
            w.writerows(rows)
            yield buf.getvalue().encode(), mime, {}
        recs = [dict(zip(head, r)) for r in rows]
        yield ("".join(json.dumps(r, ensure_ascii=rng.random() < .5) + "\n" for r in recs).encode(),
               "application/jsonl", {})
        feats = []
        for r in recs[: rng.randrange(1, 60)]:
            geom = rng.choice(["Point", "LineString", "Polygon"])
            pt = lambda: [round(rng.uniform(-180, 180), 6), round(rng.uniform(-85, 85), 6)]  # noqa: E731
            coords: Any = (pt() if geom == "Point" else [pt() for _ in range(rng.randrange(2, 8))])
            if geom == "Polygon":
                coords = [coords + [coords[0]]]
            feats.append({"type": "Feature", "geometry": {"type": geom, "coordinates": coords},
                          "properties": r})
        yield (json.dumps({"type": "FeatureCollection", "features": feats},
                          indent=rng.choice([None, 1, 2, 4])).encode(), "application/geo+json", {})


_CODE_EXTS = (".c", ".h", ".cpp", ".py", ".js", ".ts", ".go", ".rs", ".java", ".rb", ".sh", ".cs")


def gen_diffs(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Unified, context and git-style patches (difflib) between real texts or real source files
    and edited copies (most patches in the wild change code: content-v12's pro read 5 of wild-dev's
    11 git diffs of C++ as text/x-c when every corpus patch of this generator changed prose)."""
    import difflib

    for _ in range(n):
        parts = []
        code = rng.random() < .6
        for _f in range(rng.choice([1, 1, 2, 4])):
            a = (pool.source if code else pool.text)(rng, 300, 4000).splitlines(keepends=True) or ["x\n"]
            b = list(a)
            for _e in range(rng.randrange(1, 8)):
                i = rng.randrange(len(b) + 1)
                op = rng.random()
                if op < .4 and b:
                    del b[min(i, len(b) - 1)]
                elif op < .7:
                    line = ((pool.source(rng, 40, 200).splitlines() or ["x"])[0] if code
                            else pool.text(rng, 10, 120).replace("\n", " "))
                    b.insert(i, line + "\n")
                elif b:
                    j = min(i, len(b) - 1)
                    if code:  # rename one identifier or change one number, as real edits do
                        words = re.findall(r"[A-Za-z_]\w{2,}|\d+", b[j])
                        old = rng.choice(words) if words else ""
                        new = str(rng.randrange(1000)) if old.isdigit() else rng.choice(
                            _words(rng, pool, 3)).lower()
                        b[j] = b[j].replace(old, new, 1) if old else b[j]
                    else:
                        b[j] = b[j][::-1].strip() + "\n"
            name = rng.choice(_words(rng, pool, 3)).lower() + rng.choice(
                _CODE_EXTS if code else (".txt", ".md", ".rst", ""))
            if rng.random() < .5:
                name = "/".join([*(w.lower() for w in _words(rng, pool, rng.randrange(1, 3))), name])
            ctx = rng.choice([0, 1, 3, 3, 5])
            if rng.random() < .25:
                d = difflib.context_diff(a, b, f"{name}.orig", name, n=ctx)
            else:
                d = difflib.unified_diff(a, b, f"a/{name}", f"b/{name}", n=ctx)
            body = "".join(x if x.endswith("\n") else x + "\n" for x in d)
            if body and rng.random() < (.6 if code else .3):
                body = f"diff --git a/{name} b/{name}\nindex {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644\n" + body
            parts.append(body)
        text = "".join(parts)
        if text.strip():
            if rng.random() < .3:
                text = (f"From: {rng.choice(_FIRST)} {rng.choice(_LAST)} <dev@example.org>\n"
                        f"Subject: [PATCH] {' '.join(_words(rng, pool, 5))}\n\n---\n") + text
            yield text.encode(), "text/x-diff", {}


def gen_pillow_more(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Pillow's other writers: ICNS, PCX, SGI, XBM and EPS (PostScript), random modes and sizes."""
    for _ in range(n):
        img = _scene(rng, pool)
        s = rng.choice([16, 32, 64, 128, 256, 512])
        yield _save(img.convert("RGBA").resize((s, s)), "ICNS"), "image/x-icns", {}
        yield _save(img.convert(rng.choice(["RGB", "L", "P", "1"])), "PCX"), "image/x-pcx", {}
        yield (_save(img.convert(rng.choice(["RGB", "RGBA", "L"])), "SGI", rle=rng.random() < .5),
               "image/x-sgi", {})
        w = rng.choice([8, 16, 24, 32, 48, 64])
        yield _save(img.convert("1").resize((w, w)), "XBM"), "image/x-xbitmap", {}
        yield _save(img.convert(rng.choice(["RGB", "L", "CMYK"])), "EPS"), "application/postscript", {}


def _leb(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _wsec(sid: int, body: bytes) -> bytes:
    return bytes([sid]) + _leb(len(body)) + body


def _wname(s: str) -> bytes:
    b = s.encode()
    return _leb(len(b)) + b


def gen_wasm(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """WebAssembly modules written from the binary format: random i32/i64/f64 functions (arithmetic
    on locals and constants), memory, globals, exports and sometimes a name custom section."""
    vt = {"i32": 0x7F, "i64": 0x7E, "f64": 0x7C}
    ops = {"i32": (0x41, [0x6A, 0x6B, 0x6C, 0x71, 0x72, 0x73]), "i64": (0x42, [0x7C, 0x7D, 0x7E, 0x83, 0x84]),
           "f64": (0x44, [0xA0, 0xA1, 0xA2, 0xA3])}
    for _ in range(n):
        nf = rng.randrange(1, 40)
        sigs, bodies, names = [], [], []
        words = [w.lower() for w in _words(rng, pool, nf)]
        for i in range(nf):
            t = rng.choice(list(vt))
            npar = rng.randrange(0, 4)
            sigs.append(b"\x60" + _leb(npar) + bytes([vt[t]] * npar) + b"\x01" + bytes([vt[t]]))
            const, binops = ops[t]
            code = bytearray()
            def push(npar: int = npar, t: str = t, code: bytearray = code,
                     const: int = const) -> None:
                if npar and rng.random() < .6:
                    code.extend(b"\x20" + _leb(rng.randrange(npar)))
                elif t == "f64":
                    code.extend(b"\x44" + struct.pack("<d", rng.uniform(-1e6, 1e6)))
                else:
                    code.extend(bytes([const]) + _leb(rng.randrange(0, 1 << 20)))
            push()
            for _k in range(rng.randrange(0, 30)):
                push()
                code.append(rng.choice(binops))
            body = b"\x00" + bytes(code) + b"\x0b"
            bodies.append(_leb(len(body)) + body)
            names.append(f"{words[i]}_{i}")
        mod = b"\x00asm\x01\x00\x00\x00"
        mod += _wsec(1, _leb(nf) + b"".join(sigs))
        mod += _wsec(3, _leb(nf) + b"".join(_leb(i) for i in range(nf)))
        if rng.random() < .6:
            mod += _wsec(5, b"\x01\x00" + _leb(rng.randrange(1, 17)))
        exp = [i for i in range(nf) if rng.random() < .6] or [0]
        mod += _wsec(7, _leb(len(exp)) + b"".join(_wname(names[i]) + b"\x00" + _leb(i) for i in exp))
        mod += _wsec(10, _leb(nf) + b"".join(bodies))
        if rng.random() < .4:
            fn = _leb(nf) + b"".join(_leb(i) + _wname(nm) for i, nm in enumerate(names))
            mod += _wsec(0, _wname("name") + b"\x01" + _leb(len(fn)) + fn)
        yield mod, "application/wasm", {}


# Debian's cross compilers (gcc-<target> with libc6-dev-<arch>-cross): without them every generated
# ELF file was x86-64, while the wild suite's executables are also i386, ARM, MIPS, PowerPC and
# SPARC test files (content-v14's pro read 32-bit ET_EXEC executables as object files).
ELF_TARGETS: tuple[str, ...] = (
    "i686-linux-gnu", "arm-linux-gnueabihf", "aarch64-linux-gnu", "mips-linux-gnu",
    "powerpc64le-linux-gnu", "riscv64-linux-gnu", "s390x-linux-gnu",
)


def _c_compilers() -> list[str]:
    """The native ``gcc`` first, then each cross compiler of :data:`ELF_TARGETS` found on PATH
    (``picohead.data.requirements`` names the missing ones before a build); empty without gcc."""
    native = shutil.which("gcc")
    if not native:
        return []
    return [native] + [c for c in (shutil.which(f"{t}-gcc") for t in ELF_TARGETS) if c]


def _pick_compiler(rng: random.Random, ccs: list[str]) -> str:
    """The native compiler for 40 % of the files, else one of the cross compilers at random."""
    return ccs[0] if len(ccs) == 1 or rng.random() < .4 else rng.choice(ccs[1:])


def _c_unit(rng: random.Random, pool: Pool, i: int) -> tuple[str, list[str]]:
    """A random C translation unit (string constants from the pool, arithmetic functions) and
    the names of its non-static functions."""
    words = [re.sub(r"\W", "_", w.lower()) for w in _words(rng, pool, 12)]
    fns, names = [], []
    for j in range(rng.randrange(1, 12)):
        nm = f"{words[j % len(words)]}_{i}_{j}"
        t = rng.choice(["int", "long", "double", "unsigned"])
        expr = " ".join(f"{rng.choice(['+', '-', '*', '^'] if t != 'double' else ['+', '-', '*'])} "
                        f"(a{rng.randrange(2)} {rng.choice(['+', '*'])} {rng.randrange(1, 999)})"
                        for _ in range(rng.randrange(1, 6)))
        static = rng.random() < .2
        fns.append(f"{'static ' if static else ''}{t} {nm}({t} a0, {t} a1) "
                   f"{{ return a0 {expr}; }}")
        if not static:
            names.append(nm)
    strs = [f'const char *msg_{k} = "{pool.text(rng, 5, 60)!r}";'.replace("\\", "") for k in range(rng.randrange(0, 4))]
    return "\n".join(strs + fns) + "\n", names


def gen_linked(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Linked ELF files from random C units (``gcc`` and the cross compilers of
    :data:`ELF_TARGETS`): PIE and non-PIE executables, static ones, and shared libraries, at random
    optimisation, debug and strip settings. Each is labelled by its header
    (``picohead.data.elf``), so PIE executables and libraries, both ET_DYN, are told apart by
    PT_INTERP as in every other ELF sample (skipped with a warning without gcc)."""
    from picohead.data.elf import elf_mime

    ccs = _c_compilers()
    if not ccs:
        log.warning("gcc not found: skipping linked executables and libraries (apt-get install gcc)")
        return
    with tempfile.TemporaryDirectory() as td:
        for i in range(n):
            cc = _pick_compiler(rng, ccs)
            unit, names = _c_unit(rng, pool, i)
            kind = rng.choice(["pie", "pie", "no-pie", "static", "shared", "shared"])
            if kind != "shared":
                calls = " + ".join(f"(long){nm}(argc, {k + 1})" for k, nm in enumerate(names[:4])) or "0"
                unit += f"#include <stdio.h>\nint main(int argc, char **argv) {{ printf(\"%ld\\n\", {calls}); return 0; }}\n"
            src = Path(td) / f"l{i}.c"
            src.write_text(unit, encoding="utf-8", errors="replace")
            out = Path(td) / f"l{i}.bin"
            args = [cc, str(src), "-o", str(out), rng.choice(["-O0", "-O1", "-O2", "-Os"]), "-w"]
            args += {"pie": ["-fPIE", "-pie"], "no-pie": ["-fno-PIE", "-no-pie"], "static": ["-static"],
                     "shared": ["-fPIC", "-shared"]}[kind]
            args += [x for x, p in (("-g", .3), ("-s", .4)) if rng.random() < p]
            r = subprocess.run(args, capture_output=True, timeout=120)
            if r.returncode == 0 and out.exists():
                data = out.read_bytes()
                mime = elf_mime(data)
                if mime is not None:
                    yield data, mime, {}


def gen_objects(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """ELF relocatable objects: random C translation units compiled with ``gcc -c`` (or one of the
    cross compilers of :data:`ELF_TARGETS`) at random optimisation, debug, PIC and standard
    settings (skipped with a warning without gcc)."""
    ccs = _c_compilers()
    if not ccs:
        log.warning("gcc not found: skipping application/x-object (apt-get install gcc)")
        return
    with tempfile.TemporaryDirectory() as td:
        for i in range(n):
            cc = _pick_compiler(rng, ccs)
            src = Path(td) / f"u{i}.c"
            src.write_text(_c_unit(rng, pool, i)[0], encoding="utf-8", errors="replace")
            out = Path(td) / f"u{i}.o"
            args = [cc, "-c", str(src), "-o", str(out), rng.choice(["-O0", "-O1", "-O2", "-Os", "-O3"]),
                    rng.choice(["-std=c99", "-std=c11", "-std=gnu17"]), "-w"]
            args += [x for x, p in (("-g", .4), ("-fPIC", .5), ("-ffunction-sections", .2)) if rng.random() < p]
            r = subprocess.run(args, capture_output=True, timeout=60)
            if r.returncode == 0 and out.exists():
                yield out.read_bytes(), "application/x-object", {}


def _lzw_compress(data: bytes, maxbits: int) -> bytes:
    """The Unix ``compress`` (.Z) format: LZW, 9..maxbits-bit codes, block mode with CLEAR."""
    out = bytearray(b"\x1f\x9d" + bytes([0x80 | maxbits]))
    table = {bytes([i]): i for i in range(256)}
    nxt, bits, acc, nacc = 257, 9, 0, 0
    codes_in_group: list[int] = []

    def emit(code: int) -> None:
        nonlocal acc, nacc
        acc |= code << nacc
        nacc += bits
        while nacc >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nacc -= 8

    w = b""
    for byte in data:
        wc = w + bytes([byte])
        if wc in table:
            w = wc
            continue
        emit(table[w])
        codes_in_group.append(1)
        if nxt < (1 << maxbits):
            table[wc] = nxt
            nxt += 1
            if nxt > (1 << bits) and bits < maxbits:
                # compress(1) pads the code group of the old width to a multiple of 8 codes
                while len(codes_in_group) % 8:
                    emit(0)
                    codes_in_group.append(1)
                codes_in_group.clear()
                bits += 1
        w = bytes([byte])
    if w:
        emit(table[w])
    if nacc:
        out.append(acc & 0xFF)
    return bytes(out)


def gen_legacy(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Old and simple containers written from their specs: compress(1) .Z, uuencode, shell
    archives, zlib streams, BitTorrent metainfo, pcap captures, Sun raster, WBMP, Radiance HDR,
    Sun/NeXT .au and Creative .voc audio, and Mach-O objects."""
    import binascii
    import zlib

    for _ in range(n):
        payload = pool.text(rng, 200, 6000).encode("utf-8", "replace")
        yield _lzw_compress(payload, rng.choice([12, 14, 16])), "application/x-compress", {}
        name = rng.choice(_words(rng, pool, 4)).lower() + rng.choice([".txt", ".tar", ".bin", ".c"])
        raw = payload if rng.random() < .5 else bytes(rng.getrandbits(8) for _ in range(rng.randrange(50, 3000)))
        uu = "".join(binascii.b2a_uu(raw[i:i + 45]).decode() for i in range(0, len(raw), 45))
        yield f"begin {rng.choice(['644', '600', '755'])} {name}\n{uu}`\nend\n".encode(), "text/x-uuencode", {}
        files = [(rng.choice(_words(rng, pool, 3)).lower() + f"{k}.txt", pool.text(rng, 50, 1500))
                 for k in range(rng.randrange(1, 5))]
        shar = ["#!/bin/sh", "# This is a shell archive (produced by picohead).",
                "# To extract the files from this archive, save it to some FILE, remove",
                "# everything before the '#!/bin/sh' line above, then type 'sh FILE'.", "#"]
        for fn, body in files:
            shar += [f"echo x - {fn}", f"sed 's/^X//' >{fn} << 'END-of-{fn}'",
                     *("X" + ln for ln in body.splitlines()), f"END-of-{fn}"]
        yield ("\n".join(shar + ["exit", ""])).encode(), "application/x-shar", {}
        yield zlib.compress(payload, rng.choice([1, 6, 9, -1])), "application/zlib", {}
        yield _torrent(rng, pool), "application/x-bittorrent", {}
        yield _pcap(rng), "application/vnd.tcpdump.pcap", {}
        yield _sun_raster(rng), "image/x-sun-raster", {}
        w, h = rng.randrange(8, 200), rng.randrange(8, 200)
        yield (b"\x00\x00" + _mbint(w) + _mbint(h) + bytes(rng.getrandbits(8) for _ in range(((w + 7) // 8) * h)),
               "image/vnd.wap.wbmp", {})
        yield _radiance(rng), "image/vnd.radiance", {}
        yield _au(rng), "audio/basic", {}
        yield _voc(rng), "audio/x-voc", {}
        words = _words(rng, pool, 40)
        yield (macho.fat(rng, words) if rng.random() < .2 else macho.image(rng, words)), \
            "application/x-mach-binary", {}


# -- corpus v6: text and icon formats whose real files are few (beside real_formats.json's) ------
def _dot(rng: random.Random, pool: Pool) -> str:
    """A Graphviz graph as people and tools write them: directed or not, attributes, clusters."""
    directed = rng.random() < .7
    edge = "->" if directed else "--"
    words = [re.sub(r"\W", "_", w) for w in _words(rng, pool, 30)]
    lines = [f"{'strict ' if rng.random() < .1 else ''}{'digraph' if directed else 'graph'} "
             f"{rng.choice(['G', words[0], 'deps', 'g'])} {{"]
    if rng.random() < .6:
        lines.append(f"    rankdir={rng.choice(['LR', 'TB', 'RL'])};")
    if rng.random() < .5:
        lines.append(f"    node [shape={rng.choice(['box', 'ellipse', 'record', 'circle'])}"
                     f"{', fontname=' + chr(34) + 'Helvetica' + chr(34) if rng.random() < .4 else ''}];")
    nodes = [f"{w}{k}" if rng.random() < .3 else w for k, w in enumerate(words[1:rng.randrange(4, 30)])]
    if rng.random() < .3:
        lines.append(f"    subgraph cluster_{rng.randrange(9)} {{ label=\"{words[-1]}\"; "
                     + "; ".join(nodes[:3]) + "; }")
    for _ in range(rng.randrange(2, 40)):
        a, b = rng.choice(nodes), rng.choice(nodes)
        attr = f" [label=\"{rng.choice(words)}\"]" if rng.random() < .3 else ""
        lines.append(f"    {a} {edge} {b}{attr};")
    return "\n".join(lines + ["}"]) + "\n"


def _vrml(rng: random.Random, pool: Pool) -> str:
    """A VRML 2.0 (or 1.0) scene of simple shapes, transforms and materials."""
    if rng.random() < .2:
        return ("#VRML V1.0 ascii\n\nSeparator {\n" + "".join(
            f"  Translation {{ translation {rng.uniform(-5, 5):.2f} 0 {rng.uniform(-5, 5):.2f} }}\n"
            f"  {rng.choice(['Cube {}', 'Sphere { radius 1 }', 'Cone {}', 'Cylinder {}'])}\n"
            for _ in range(rng.randrange(1, 8))) + "}\n")
    out = ["#VRML V2.0 utf8", f"# {pool.text(rng, 5, 60).splitlines()[0] if rng.random() < .5 else ''}"]
    for _ in range(rng.randrange(1, 12)):
        color = " ".join(f"{rng.random():.2f}" for _ in range(3))
        geom = rng.choice([f"Box {{ size {rng.uniform(.1, 4):.2f} {rng.uniform(.1, 4):.2f} {rng.uniform(.1, 4):.2f} }}",
                           f"Sphere {{ radius {rng.uniform(.1, 3):.3f} }}",
                           f"Cylinder {{ radius {rng.uniform(.1, 2):.2f} height {rng.uniform(.1, 5):.2f} }}",
                           "IndexedFaceSet { coord Coordinate { point [ " + ", ".join(
                               " ".join(f"{rng.uniform(-3, 3):.3f}" for _ in range(3)) for _ in range(6))
                           + " ] } coordIndex [ 0 1 2 -1 3 4 5 -1 ] }"])
        out.append(f"Transform {{\n  translation {rng.uniform(-9, 9):.2f} {rng.uniform(-9, 9):.2f} "
                   f"{rng.uniform(-9, 9):.2f}\n  children Shape {{\n    appearance Appearance "
                   f"{{ material Material {{ diffuseColor {color} }} }}\n    geometry {geom}\n  }}\n}}")
    return "\n".join(out) + "\n"


def _cursor(rng: random.Random, pool: Pool) -> bytes:
    """A Windows cursor: Pillow's ICO writer, the resource type set to 2 (cursor) and each entry's
    planes/bit-count fields set to the hotspot, as cursor editors write them."""
    size = rng.choice([16, 24, 32, 48, 64])
    img = _scene(rng, pool).convert("RGBA").resize((size, size))
    data = bytearray(_save(img, "ICO", sizes=[(size, size)], bitmap_format="bmp"))
    data[2:4] = struct.pack("<H", 2)
    for k in range(struct.unpack("<H", data[4:6])[0]):
        off = 6 + 16 * k
        data[off + 4:off + 8] = struct.pack("<HH", rng.randrange(size), rng.randrange(size))
    return bytes(data)


def gen_described(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Graphviz graphs, VRML scenes and Windows cursors (``n`` each), beside the real files of
    ``real_formats.json``, which alone give too few a split for those labels."""
    for _ in range(n):
        yield _dot(rng, pool).encode(), "text/vnd.graphviz", {}
        yield _vrml(rng, pool).encode(), "model/vrml", {}
        yield _cursor(rng, pool), "image/x-win-bitmap", {}


# -- formats the wild suite holds that the MIME head had no label for ---------------------------
def _latin1(text: str) -> str:
    """Text a MIDI meta event can hold (mido writes them latin-1)."""
    return text.encode("latin-1", "replace").decode("latin-1")


def gen_midi(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Standard MIDI files written with mido: type 0 or 1, 1-6 tracks, random tempo, time and key
    signatures, program changes, controllers, pitch bends, notes and text events from the pool."""
    import mido

    for _ in range(n):
        mtype = rng.choice([0, 1, 1])
        f = mido.MidiFile(type=mtype, ticks_per_beat=rng.choice([96, 120, 192, 384, 480, 960]))
        for t in range(1 if mtype == 0 else rng.randrange(1, 7)):
            tr = mido.MidiTrack()
            f.tracks.append(tr)
            if rng.random() < .7:
                tr.append(mido.MetaMessage("track_name", name=_latin1(" ".join(_words(rng, pool, 2))[:40])))
            if t == 0:
                tr.append(mido.MetaMessage("set_tempo", tempo=rng.randrange(300_000, 1_200_000)))
                tr.append(mido.MetaMessage("time_signature", numerator=rng.choice([2, 3, 4, 6]),
                                           denominator=rng.choice([4, 8])))
                if rng.random() < .4:
                    tr.append(mido.MetaMessage("key_signature", key=rng.choice(["C", "G", "Am", "Eb"])))
                if rng.random() < .3:
                    tr.append(mido.MetaMessage("copyright", text=_latin1(" ".join(_words(rng, pool, 3))[:60])))
            ch = rng.randrange(16)
            tr.append(mido.Message("program_change", channel=ch, program=rng.randrange(128)))
            for _ in range(rng.randrange(0, 4)):
                tr.append(mido.Message("control_change", channel=ch, control=rng.choice([7, 10, 64, 91]),
                                       value=rng.randrange(128)))
            base = rng.randrange(36, 84)
            for _ in range(rng.randrange(4, 400)):
                note = min(127, max(0, base + rng.randrange(-12, 13)))
                tr.append(mido.Message("note_on", channel=ch, note=note, velocity=rng.randrange(1, 128),
                                       time=rng.choice([0, 0, 60, 120, 240, 480])))
                off = "note_off" if rng.random() < .6 else "note_on"  # note_on at 0 velocity is common
                tr.append(mido.Message(off, channel=ch, note=note, velocity=0,
                                       time=rng.choice([60, 120, 240, 480, 960])))
                if rng.random() < .02:
                    tr.append(mido.Message("pitchwheel", channel=ch, pitch=rng.randrange(-8192, 8192)))
            if rng.random() < .2:
                tr.append(mido.MetaMessage("text", text=_latin1(pool.text(rng, 5, 60).replace("\n", " "))))
        b = io.BytesIO()
        f.save(file=b)
        yield b.getvalue(), "audio/midi", {}


def gen_lz4(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """LZ4 frames (python-lz4 over liblz4) of pool text and files: random block sizes, linked or
    independent blocks, content and block checksums, stored content size, compression levels."""
    import lz4.frame

    sizes = [lz4.frame.BLOCKSIZE_DEFAULT, lz4.frame.BLOCKSIZE_MAX64KB, lz4.frame.BLOCKSIZE_MAX256KB,
             lz4.frame.BLOCKSIZE_MAX1MB, lz4.frame.BLOCKSIZE_MAX4MB]
    for _ in range(n):
        files = pool.some_files(rng, 1) if rng.random() < .5 else []
        data = files[0][1] if files else pool.text(rng, 100, 30000).encode("utf-8", "replace")
        yield lz4.frame.compress(
            data, compression_level=rng.choice([0, 1, 3, 9, 12]), block_size=rng.choice(sizes),
            block_linked=rng.random() < .5, content_checksum=rng.random() < .5,
            block_checksum=rng.random() < .2, store_size=rng.random() < .5), "application/x-lz4", {}


def _lzip(rng: random.Random, data: bytes) -> bytes:
    """One lzip member written from the format's specification: the header (``LZIP``, version 1,
    the coded dictionary size), a raw LZMA stream (lc 3, lp 0, pb 2, end marker) from liblzma, and
    the trailer (CRC-32, data size, member size)."""
    import zlib

    dict_log = rng.randrange(12, 24)
    body = lzma.compress(data, format=lzma.FORMAT_RAW, filters=[{
        "id": lzma.FILTER_LZMA1, "dict_size": 1 << dict_log, "lc": 3, "lp": 0, "pb": 2,
        "preset": rng.randrange(0, 10), "nice_len": rng.choice([16, 36, 64, 273])}])
    head = b"LZIP\x01" + bytes([dict_log]) + body
    return head + struct.pack("<IQQ", zlib.crc32(data), len(data), len(head) + 20)


def gen_lzip(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """lzip files from encoders the wild suite does not use: clzip and pdlzip (levels -0..-9,
    dictionary sizes, some split into members), tarlz (tar.lz archives of pool files: solid, per
    file, per block or per directory) and liblzma through Python (``_lzip``), each a producer
    (``gen:lzip-<encoder>``); a program that is not installed is left out
    (picohead.data.requirements names it). The wild suite's lzip files come from lzip and plzip."""
    have = [p for p in ("clzip", "pdlzip", "tarlz") if shutil.which(p)]
    td = Path(tempfile.mkdtemp())
    try:
        for i in range(n):
            files = pool.some_files(rng, rng.randrange(1, 6)) if rng.random() < .5 else []
            data = files[0][1] if files else pool.text(rng, 100, 30000).encode("utf-8", "replace")
            how = rng.choice(["python", *have])
            if how == "python":
                yield _lzip(rng, data), "application/x-lzip", {"source": "gen:lzip-liblzma"}
                continue
            out = td / f"{i}.lz"
            if how == "tarlz":
                folder = td / f"in{i}"
                folder.mkdir()
                names = []
                for k, (name, content) in enumerate(files or [("notes.txt", data)]):
                    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:60] or f"f{k}"
                    sub = folder / (rng.choice(_words(rng, pool, 2)).lower() if rng.random() < .3 else "")
                    sub.mkdir(exist_ok=True)
                    (sub / safe).write_bytes(content)
                    names.append(str((sub / safe).relative_to(folder)))
                cmd = ["tarlz", rng.choice(["--solid", "--no-solid", "--bsolid", "--dsolid"]),
                       f"-{rng.randrange(0, 10)}", "-c", "-f", str(out), "-C", str(folder), *names]
            else:
                src = td / f"{i}.dat"
                src.write_bytes(data)
                cmd = [how, "-k", "-f", f"-{rng.randrange(0, 10)}", "-o", str(out), str(src)]
                if rng.random() < .3:
                    cmd[4:4] = ["-s", str(1 << rng.randrange(12, 24))]
                if how == "clzip" and len(data) > 20000 and rng.random() < .3:
                    cmd[4:4] = ["-b", str(rng.randrange(100_000, 200_000))]
            p = subprocess.run(cmd, capture_output=True, timeout=120)
            if p.returncode == 0 and out.exists():  # each encoder is a producer of its own
                yield out.read_bytes(), "application/x-lzip", {"source": f"gen:lzip-{how}"}
    finally:
        shutil.rmtree(td, ignore_errors=True)


def gen_apk(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Android packages (picohead.data.apk): binary manifest, DEX, resource table, resources,
    v1 and/or v2/v3 signatures, sometimes pool files as assets. content-v12 had no APK label and
    read wild-dev's 25 APKs as JAR or ZIP."""
    for _ in range(n):
        files = pool.some_files(rng, rng.randrange(1, 4)) if rng.random() < .3 else []
        yield apk.package(rng, _words(rng, pool, 40), files), "application/vnd.android.package-archive", {}


def gen_cab(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Microsoft cabinet files written with cabarchive: 1-6 pool files, MSZIP-compressed or
    stored."""
    import cabarchive

    for _ in range(n):
        arc = cabarchive.CabArchive()
        files = pool.some_files(rng, rng.randrange(1, 7)) if rng.random() < .6 else []
        for k in range(rng.randrange(1, 4)) if not files else ():
            files.append((f"{_words(rng, pool, 1)[0].lower()}{k}.txt",
                          pool.text(rng, 50, 8000).encode("utf-8", "replace")))
        for name, data in files:
            name = re.sub(r"[^\w.-]", "_", name)[:60] or "file.bin"
            if rng.random() < .3:
                name = f"{_words(rng, pool, 1)[0][:12]}\\{name}"
            arc[name] = cabarchive.CabFile(data)
        yield arc.save(compress=rng.random() < .7), "application/vnd.ms-cab-compressed", {}


def _eot(rng: random.Random, ttf: bytes) -> bytes | None:
    """An Embedded OpenType file (the W3C EOT submission, versions 0x00010000, 0x00020001 and
    0x00020002, uncompressed font data) wrapping ``ttf``, its fields read from the font's OS/2,
    head and name tables; None for a font without them."""
    from fontTools.ttLib import TTFont

    f = TTFont(io.BytesIO(ttf))
    if "OS/2" not in f or "name" not in f or "head" not in f:
        return None
    os2, head, name = f["OS/2"], f["head"], f["name"]

    def nm(i: int) -> bytes:
        v = name.getDebugName(i) or ""
        return v.encode("utf-16-le")

    def sized(b: bytes) -> bytes:
        return struct.pack("<H", len(b)) + b

    version = rng.choice([0x00010000, 0x00020001, 0x00020002])
    panose = bytes([os2.panose.bFamilyType, os2.panose.bSerifStyle, os2.panose.bWeight,
                    os2.panose.bProportion, os2.panose.bContrast, os2.panose.bStrokeVariation,
                    os2.panose.bArmStyle, os2.panose.bLetterForm, os2.panose.bMidline,
                    os2.panose.bXHeight])
    ur = [os2.ulUnicodeRange1, os2.ulUnicodeRange2, os2.ulUnicodeRange3, os2.ulUnicodeRange4]
    cp = [getattr(os2, "ulCodePageRange1", 0), getattr(os2, "ulCodePageRange2", 0)]
    body = (panose + struct.pack("<BBIHH", 1, 1 if os2.fsSelection & 1 else 0, os2.usWeightClass,
                                 os2.fsType, 0x504C)
            + struct.pack("<4I", *ur) + struct.pack("<2I", *cp)
            + struct.pack("<I", head.checkSumAdjustment) + b"\0" * 16 + b"\0\0"
            + sized(nm(1)) + b"\0\0" + sized(nm(2)) + b"\0\0" + sized(nm(5)) + b"\0\0" + sized(nm(4)))
    if version >= 0x00020001:
        root = rng.choice(["", "http://example.org/", "https://fonts.example.net/"]).encode("utf-16-le")
        body += b"\0\0" + sized(root)
    if version == 0x00020002:
        # RootStringCheckSum, EUDCCodePage, Padding6, SignatureSize (no signature), EUDCFlags,
        # EUDCFontSize (no EUDC font)
        body += struct.pack("<II", 0, 0) + b"\0\0" + struct.pack("<H", 0) + struct.pack("<II", 0, 0)
    flags = 0
    total = 16 + len(body) + len(ttf)
    return struct.pack("<IIII", total, len(ttf), version, flags) + body + ttf


def gen_web_formats(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Embedded OpenType fonts (``_eot`` around subsets of the pool's real fonts, fontTools),
    Xfig 3.2 drawings (text format: header, colours, polylines, boxes, ellipses, arcs and text
    from the pool) and XHTML documents (1.0 strict/transitional, 1.1, XHTML5 and EPUB content
    documents, with the pool's prose)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    fonts = [p for p in pool.fonts if p.suffix.lower() == ".ttf" and p.stat().st_size < 1_500_000]
    rng.shuffle(fonts)
    for i in range(n):
        if fonts:
            try:
                f = TTFont(fonts[i % len(fonts)])
                opts = subset.Options()
                sub = subset.Subsetter(opts)
                sub.populate(text=pool.text(rng, 20, 300))
                sub.subset(f)
                b = io.BytesIO()
                f.save(b)
                eot = _eot(rng, b.getvalue())
                if eot:
                    yield eot, "application/vnd.ms-fontobject", {}
            except Exception:  # noqa: BLE001 - fontTools raises many kinds on odd fonts
                pass
        yield _xfig(rng, pool).encode("utf-8", "replace"), "image/x-xfig", {}
        yield _xhtml(rng, pool).encode("utf-8"), "application/xhtml+xml", {}


def _xfig(rng: random.Random, pool: Pool) -> str:
    ver = rng.choice(["3.2", "3.2", "3.1"])
    L = [f"#FIG {ver}" + rng.choice(["", f"  Produced by xfig version {ver}.{rng.choice(['5b', '5c', '7a', '8', '9'])}"])]
    if ver == "3.2":
        L += [rng.choice(["Landscape", "Portrait"]), rng.choice(["Center", "Flush Left"]),
              rng.choice(["Inches", "Metric"]), rng.choice(["Letter", "A4", "Legal"]),
              f"{rng.choice([100.0, 75.0, 50.0]):.2f}", rng.choice(["Single", "Multiple"]), "-2"]
    else:
        L += [rng.choice(["Landscape", "Portrait"]), rng.choice(["Center", "Flush Left"]),
              rng.choice(["Inches", "Metric"])]
    if rng.random() < .3:
        L.append("# " + pool.text(rng, 5, 60).replace("\n", " "))
    L.append(f"{rng.choice([1200, 80])} 2")
    for c in range(32, 32 + rng.randrange(0, 5)):
        L.append(f"0 {c} #{rng.randrange(1 << 24):06x}")
    for _ in range(rng.randrange(1, 30)):
        kind = rng.choice(["poly", "box", "ellipse", "text", "arc"])
        col, depth = rng.randrange(-1, 8), rng.randrange(0, 100)
        if kind in ("poly", "box"):
            pts = [(rng.randrange(0, 12000), rng.randrange(0, 9000)) for _ in range(rng.randrange(2, 8))]
            if kind == "box":
                (x0, y0), (x1, y1) = pts[:2]
                pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
            L.append(f"2 {1 if kind == 'poly' else 2} {rng.randrange(3)} {rng.randrange(1, 4)} {col} "
                     f"{rng.randrange(-1, 8)} {depth} -1 {rng.choice([-1, 20])} {rng.choice(['0.000', '4.000'])} "
                     f"0 0 -1 {rng.randrange(2)} 0 {len(pts)}")
            if L[-1].split()[13] == "1":
                L.append("\t1 1 1.00 60.00 120.00")
            L.append("\t " + " ".join(f"{x} {y}" for x, y in pts))
        elif kind == "ellipse":
            cx, cy, rx, ry = (rng.randrange(500, 11000), rng.randrange(500, 8000),
                              rng.randrange(50, 2000), rng.randrange(50, 2000))
            L.append(f"1 {rng.choice([1, 3])} 0 1 {col} 7 {depth} -1 -1 0.000 1 0.0000 {cx} {cy} {rx} {ry} "
                     f"{cx} {cy} {cx + rx} {cy + ry}")
        elif kind == "arc":
            x, y = rng.randrange(500, 11000), rng.randrange(500, 8000)
            L.append(f"5 1 0 1 {col} 7 {depth} -1 -1 0.000 0 {rng.randrange(2)} 0 0 {x}.000 {y}.000 "
                     f"{x - 300} {y} {x} {y - 300} {x + 300} {y}")
        else:
            words = " ".join(_words(rng, pool, rng.randrange(1, 6)))
            L.append(f"4 {rng.randrange(3)} {col} {depth} -1 {rng.randrange(0, 35)} {rng.choice([10, 12, 14, 18])} "
                     f"0.0000 4 {rng.randrange(100, 300)} {rng.randrange(200, 4000)} "
                     f"{rng.randrange(0, 12000)} {rng.randrange(0, 9000)} {words}\\001")
    return "\n".join(L) + "\n"


_XHTML_DOCTYPES = [
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">',
    "<!DOCTYPE html>", ""]


def _xhtml(rng: random.Random, pool: Pool) -> str:
    from xml.sax.saxutils import escape

    lang = rng.choice(["en", "de", "fr", "es", "it", "nl"])
    epub = rng.random() < .25
    ns = ' xmlns="http://www.w3.org/1999/xhtml"' + (' xmlns:epub="http://www.idpf.org/2007/ops"' if epub else "")
    head = [f"<title>{escape(' '.join(_words(rng, pool, rng.randrange(1, 6))))}</title>"]
    if rng.random() < .6:
        head.insert(0, rng.choice(['<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />',
                                   '<meta charset="utf-8" />']))
    if rng.random() < .5:
        head.append(f'<link rel="stylesheet" type="text/css" href="{rng.choice(["style", "main", "book"])}.css" />')
    body = []
    for _ in range(rng.randrange(1, 12)):
        k = rng.random()
        text = escape(pool.text(rng, 20, 600).replace("\n", " "))
        if k < .15:
            h = rng.randrange(1, 4)
            body.append(f"<h{h}>{escape(' '.join(_words(rng, pool, 4)))}</h{h}>")
        elif k < .25:
            items = "".join(f"<li>{escape(w)}</li>" for w in _words(rng, pool, rng.randrange(2, 7)))
            body.append(f"<ul>{items}</ul>")
        elif k < .3:
            body.append(f'<p><img src="images/{_words(rng, pool, 1)[0].lower()}.png" alt="" /><br />{text}</p>')
        else:
            body.append(f"<p>{text}</p>")
    if epub:
        body = [f'<section epub:type="{rng.choice(["chapter", "frontmatter", "bodymatter"])}">'] + body + ["</section>"]
    nl = rng.choice(["\n", "\n  ", ""])
    decl = rng.choice(['<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0" encoding="utf-8"?>', ""])
    doctype = rng.choice(_XHTML_DOCTYPES)
    parts = [p for p in (decl, doctype) if p]
    return ("\n".join(parts + [f'<html{ns} xml:lang="{lang}" lang="{lang}">',
                               f"<head>{nl}{nl.join(head)}\n</head>", f"<body>{nl}{nl.join(body)}\n</body>",
                               "</html>"]) + "\n")


def _packbits(row: bytes) -> bytes:
    """PackBits run-length encoding of one row (the PSD/TIFF RLE)."""
    out, i = bytearray(), 0
    while i < len(row):
        j = i + 1
        while j < len(row) and j - i < 128 and row[j] == row[i]:
            j += 1
        if j - i > 1:
            out += bytes([257 - (j - i)]) + row[i:i + 1]
            i = j
            continue
        j = i + 1
        while j < len(row) and j - i < 128 and (j + 1 >= len(row) or row[j] != row[j + 1]):
            j += 1
        out += bytes([j - i - 1]) + row[i:j]
        i = j
    return bytes(out)


def _psd(rng: random.Random, img: Any) -> bytes:
    """A flattened Photoshop document from its specification: the header, an empty colour-mode
    section, resolution (and sometimes version) resources, an empty layer section and the merged
    image raw or PackBits-compressed, 8 bits a channel in RGB, grayscale or bitmap-free modes."""
    mode = rng.choice(["RGB", "RGB", "L", "RGBA"])
    img = img.convert(mode)
    w, h = img.size
    chans = [img.getchannel(c).tobytes() for c in range(len(mode))]
    colour = 1 if mode == "L" else 3
    hdr = b"8BPS" + struct.pack(">H6xHIIHH", 1, len(chans), h, w, 8, colour)
    dpi = rng.choice([72, 96, 150, 300])
    res = [(0x03ED, struct.pack(">IHHIHH", dpi << 16, 1, 1, dpi << 16, 1, 1))]
    if rng.random() < .5:
        name = "picohead".encode("utf-16-be")
        res.append((0x0421, struct.pack(">IBI", 1, 1, len(name) // 2) + name + struct.pack(">I", 0)
                    + struct.pack(">I", 1)))
    blocks = b""
    for rid, body in res:
        body += b"\0" * (len(body) % 2)
        blocks += b"8BIM" + struct.pack(">HHI", rid, 0, len(body)) + body
    out = hdr + struct.pack(">I", 0) + struct.pack(">I", len(blocks)) + blocks + struct.pack(">I", 0)
    if rng.random() < .6:  # PackBits rows, byte counts first
        rows = [_packbits(c[y * w:(y + 1) * w]) for c in chans for y in range(h)]
        return out + struct.pack(">H", 1) + b"".join(struct.pack(">H", len(r)) for r in rows) + b"".join(rows)
    return out + struct.pack(">H", 0) + b"".join(chans)


def gen_raster_more(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    """Photoshop documents (written from the specification, ``_psd``) and AVIF images (Pillow's
    libavif writer: random quality, speed and subsampling) of the generators' scenes."""
    for _ in range(n):
        img = _scene(rng, pool)
        small = img.resize((max(1, img.width // 2), max(1, img.height // 2))) if rng.random() < .5 else img
        yield _psd(rng, small), "image/vnd.adobe.photoshop", {}
        yield (_save(img.convert(rng.choice(["RGB", "RGBA", "L"])), "AVIF",
                     quality=rng.choice([30, 50, 75, 90]), speed=rng.choice([6, 8, 10]),
                     subsampling=rng.choice(["4:2:0", "4:4:4"])), "image/avif", {})


def _mbint(v: int) -> bytes:
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.append(0x80 | (v & 0x7F))
        v >>= 7
    return bytes(reversed(out))


def _bencode(x: Any) -> bytes:
    if isinstance(x, int):
        return b"i%de" % x
    if isinstance(x, str):
        x = x.encode()
    if isinstance(x, bytes):
        return b"%d:%s" % (len(x), x)
    if isinstance(x, list):
        return b"l" + b"".join(_bencode(v) for v in x) + b"e"
    return b"d" + b"".join(_bencode(k) + _bencode(x[k]) for k in sorted(x)) + b"e"


_TORRENT_CLIENTS = ("mktorrent 1.1", "qBittorrent v4.5.2", "Transmission/3.00 (bb6b5a062e)",
                    "Transmission/4.0.5", "libtorrent", "uTorrent/3.5.5", "Deluge 2.1.1",
                    "Azureus/5.7.6.0", "py3createtorrent v1.1.0", "BitComet/1.98", "Tixati")


def _torrent(rng: random.Random, pool: Pool) -> bytes:
    """A metainfo file as clients write them: single- or multi-file (up to a few hundred files in
    nested folders, so that some heads are all file names), with or without ``announce``
    (trackerless files start ``d10:created by`` or ``d4:info``), ``announce-list``, web seeds
    (``url-list``), DHT ``nodes``, ``private`` and ``source`` flags, at random hosts."""
    words = [w.lower() for w in _words(rng, pool, 30) if w.isascii() and w.isalnum()] or ["data"]
    plen = rng.choice([16384, 32768, 65536, 262144, 1 << 20, 1 << 22])
    info: dict[str, Any] = {"name": rng.choice(["-", "_", ".", " "]).join(rng.sample(words, min(len(words), 3)))}
    if rng.random() < .4:
        total = info["length"] = rng.randrange(1000, 1 << 32)
    else:
        n = rng.choice([rng.randrange(2, 9), rng.randrange(9, 60), rng.randrange(60, 400)])
        exts = rng.sample([".mkv", ".mp3", ".flac", ".pdf", ".iso", ".txt", ".nfo", ".jpg", ".srt",
                           ".epub", ".zip", ".bin", ".dat", ".cue", ".log"], 4)
        dirs = [rng.choice(words) for _ in range(rng.randrange(1, 6))]
        info["files"] = [{"length": rng.randrange(1, 1 << 28),
                          "path": [*rng.sample(dirs, rng.randrange(0, min(3, len(dirs)) + 1)),
                                   f"{rng.randrange(1, 99):02d} {rng.choice(words)}{rng.choice(exts)}"]}
                         for _ in range(n)]
        total = sum(f["length"] for f in info["files"])
    info["piece length"] = plen
    info["pieces"] = bytes(rng.getrandbits(8) for _ in range(20 * min(400, total // plen + 1)))
    if rng.random() < .2:
        info["private"] = 1
    if rng.random() < .15:
        info["source"] = rng.choice(words).upper()

    def tracker() -> str:
        scheme = rng.choice(["http", "https", "udp", "udp"])
        host = f"{rng.choice(['tracker', 'tr', 'open', 'bt', 'announce'])}{rng.choice(['', '1', '2'])}." \
               f"{rng.choice(words)}.{rng.choice(['org', 'net', 'com', 'io', 'to', 'cc'])}"
        port = rng.choice(["", f":{rng.randrange(1024, 65535)}", ":6969", ":1337", ":80"])
        return f"{scheme}://{host}{port}{'' if scheme == 'udp' and rng.random() < .5 else '/announce'}"

    meta: dict[str, Any] = {"info": info}
    if rng.random() < .75:
        meta["announce"] = tracker()
    if rng.random() < .4:
        meta["announce-list"] = [[tracker()] for _ in range(rng.randrange(1, 8))]
    if rng.random() < .2:
        meta["url-list"] = [f"https://{rng.choice(words)}.example.{rng.choice(['org', 'net'])}/"
                            f"{rng.choice(words)}/" for _ in range(rng.randrange(1, 3))]
    if rng.random() < .15:
        meta["nodes"] = [[f"{rng.randrange(1, 224)}.{rng.randrange(256)}.{rng.randrange(256)}."
                          f"{rng.randrange(1, 255)}", rng.randrange(1024, 65535)]
                         for _ in range(rng.randrange(1, 5))]
    if rng.random() < .7:
        meta["creation date"] = rng.randrange(10**9, 18 * 10**8)
    if rng.random() < .5:
        meta["comment"] = " ".join(_words(rng, pool, rng.randrange(2, 12)))
    if rng.random() < .6:
        meta["created by"] = rng.choice(_TORRENT_CLIENTS)
    if rng.random() < .25:
        meta["encoding"] = "UTF-8"
    return _bencode(meta)


def _pcap(rng: random.Random) -> bytes:
    le = rng.random() < .8
    e = "<" if le else ">"
    snap = rng.choice([65535, 262144, 1500])
    out = bytearray(struct.pack(e + "IHHiIII", 0xA1B2C3D4 if rng.random() < .8 else 0xA1B23C4D, 2, 4, 0, 0,
                                snap, rng.choice([1, 1, 101, 113])))
    t = rng.randrange(10**9, 2 * 10**9)
    for _ in range(rng.randrange(1, 80)):
        proto = rng.choice([6, 17, 1])
        l4 = bytes(rng.getrandbits(8) for _ in range(rng.randrange(8, 400)))
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), rng.getrandbits(16), 0x4000,
                         rng.choice([64, 128, 255]), proto, 0, bytes([10, 0, rng.randrange(256), rng.randrange(256)]),
                         bytes([192, 168, rng.randrange(256), rng.randrange(256)])) + l4
        frame = bytes(rng.getrandbits(8) for _ in range(12)) + b"\x08\x00" + ip
        t += rng.randrange(0, 3)
        out += struct.pack(e + "IIII", t, rng.randrange(10**6), len(frame), len(frame)) + frame
    return bytes(out)


def _sun_raster(rng: random.Random) -> bytes:
    w, h, depth = rng.randrange(4, 160), rng.randrange(4, 160), rng.choice([1, 8, 24])
    row = ((w * depth + 15) // 16) * 2
    maptype, cmap = (1, bytes(rng.getrandbits(8) for _ in range(768))) if depth == 8 and rng.random() < .6 else (0, b"")
    data = bytes(rng.getrandbits(8) if rng.random() < .3 else 0 for _ in range(row * h))
    return struct.pack(">8I", 0x59A66A95, w, h, depth, len(data), 1, maptype, len(cmap)) + cmap + data


def _radiance(rng: random.Random) -> bytes:
    w, h = rng.randrange(4, 96), rng.randrange(4, 96)
    head = "#?RADIANCE\n" if rng.random() < .8 else "#?RGBE\n"
    head += "# made by picohead\n" if rng.random() < .5 else ""
    head += f"EXPOSURE={rng.uniform(0.1, 4):.3f}\n" if rng.random() < .3 else ""
    head += f"FORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n"
    base = [rng.getrandbits(8) for _ in range(4)]
    px = bytes((base[k % 4] + rng.randrange(-8, 9)) & 0xFF for k in range(4 * w * h))
    return head.encode() + px


def _au(rng: random.Random) -> bytes:
    enc, width = rng.choice([(1, 1), (2, 1), (3, 2), (4, 3), (5, 4), (6, 4)])
    rate, ch = rng.choice([8000, 11025, 22050, 44100]), rng.choice([1, 2])
    info = (b"picohead" + bytes(rng.randrange(1, 8))) if rng.random() < .5 else b"\0" * 4
    info += b"\0" * (-len(info) % 8)
    nfr = rng.randrange(200, 8000)
    f = rng.uniform(100, 2000)
    import math
    if enc == 6:
        data = b"".join(struct.pack(">f", 0.5 * math.sin(2 * math.pi * f * i / rate)) for i in range(nfr * ch))
    else:
        amp = (1 << (8 * width - 1)) - 1
        data = b"".join(int(amp * 0.5 * math.sin(2 * math.pi * f * i / rate)).to_bytes(width, "big", signed=True)
                        for i in range(nfr * ch))
    return struct.pack(">4sIIIII", b".snd", 24 + len(info), len(data) if rng.random() < .8 else 0xFFFFFFFF,
                       enc, rate, ch) + info + data


def _voc(rng: random.Random) -> bytes:
    ver = rng.choice([0x010A, 0x0114])
    out = bytearray(b"Creative Voice File\x1a" + struct.pack("<HHH", 26, ver, (~ver + 0x1234) & 0xFFFF))
    for _ in range(rng.randrange(1, 4)):
        rate = rng.choice([8000, 11025, 22050])
        samples = bytes(128 + int(100 * ((i * rng.randrange(1, 9)) % 64 - 32) / 32) for i in range(rng.randrange(200, 6000)))
        blk = bytes([256 - 1000000 // rate, 0]) + samples
        out += bytes([1]) + len(blk).to_bytes(3, "little") + blk
    out.append(0)
    return bytes(out)


GENERATORS: dict[str, Callable[..., Iterator[Sample]]] = {
    "images": gen_images, "svg": gen_svg, "archives": gen_archives, "sqlite": gen_sqlite,
    "office": gen_office, "libreoffice": gen_libreoffice, "fonts": gen_fonts,
    "crypto": gen_crypto, "pgp": gen_pgp,
    "pim": gen_pim, "tables": gen_tables, "diffs": gen_diffs, "pillow_more": gen_pillow_more,
    "wasm": gen_wasm, "objects": gen_objects, "legacy": gen_legacy,
    "linked": gen_linked, "web_formats": gen_web_formats, "midi": gen_midi, "lz4": gen_lz4, "cab": gen_cab, "raster_more": gen_raster_more,
    "lzip": gen_lzip, "apk": gen_apk, "described": gen_described,
}
