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
import gzip
import io
import logging
import lzma
import os
import random
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
logging.getLogger("fontTools").setLevel(logging.ERROR)

Sample = tuple[bytes, str, dict[str, Any]]
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


class Pool:
    """Real prose/code snippets and real files to fill generated formats with."""

    def __init__(self, texts: list[str], files: list[Path], fonts: list[Path]) -> None:
        # control characters are not allowed in XML-based documents (docx, xlsx, odt, ...)
        clean = [_CONTROL.sub("", t) for t in texts]
        self.texts = [t for t in clean if t.strip()] or ["lorem ipsum dolor sit amet"]
        self.files = files
        self.fonts = fonts

    def text(self, rng: random.Random, lo: int = 200, hi: int = 3000) -> str:
        t = rng.choice(self.texts)
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


def gen_images(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    def one(mime: str) -> Sample:
        img = _scene(rng, pool)
        if mime == "image/png":
            if rng.random() < 0.3:
                img = img.convert("P", palette=1, colors=rng.choice([4, 16, 256]))
            return _save(img, "PNG", compress_level=rng.randrange(10), optimize=rng.random() < .2), mime, {}
        if mime == "image/jpeg":
            return _save(img.convert(rng.choice(["RGB", "L"])), "JPEG", quality=rng.randrange(20, 98),
                         progressive=rng.random() < .3, subsampling=rng.choice([0, 1, 2])), mime, {}
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
            return _save(img.convert(rng.choice(["RGB", "L", "1"])), "PPM"), mime, {}
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
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as tf:
        for name, data in files:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = 1_600_000_000
            tf.addfile(ti, io.BytesIO(data))
    return b.getvalue()


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
        yield gzip.compress(blob, rng.randrange(1, 10), mtime=rng.randrange(2**31)), "application/gzip", {}
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
                p = subprocess.run(["cpio", "-o", "-H", rng.choice(["newc", "odc", "crc"]), "--quiet"], cwd=src,
                                   input=names.encode(), capture_output=True, check=True)
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
        if rng.random() < .5:
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


def _office_docs(rng: random.Random, pool: Pool, n: int) -> Iterator[Sample]:
    import docx
    import openpyxl
    import pptx
    import xlwt
    from fpdf import FPDF
    from odf.opendocument import OpenDocumentPresentation, OpenDocumentSpreadsheet, OpenDocumentText
    from odf.table import Table, TableCell, TableRow
    from odf.text import H, P

    def cells(k: int) -> list[list[Any]]:
        return [[rng.choice([pool.text(rng, 1, 30), rng.randrange(10**5), round(rng.random() * 1000, 2)])
                 for _ in range(rng.randrange(1, 8))] for _ in range(k)]

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
        for row in cells(rng.randrange(1, 60)):
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
        sh = xb.add_sheet(re.sub(r"[^\w ]", "", pool.text(rng, 3, 20)).strip()[:28] or "Sheet1")
        for r, row in enumerate(cells(rng.randrange(1, 60))):
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
        for row in cells(rng.randrange(1, 40)):
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
    """Legacy binary Office formats, RTF and PDF through headless LibreOffice (batch conversion)."""
    soffice = shutil.which("soffice")
    if not soffice:
        log.warning("soffice not found: skipping doc/ppt/rtf (apt-get install libreoffice-writer-nogui ...)")
        return
    import docx
    import pptx

    targets = [("docx", "doc:MS Word 97", "application/msword"), ("docx", "rtf", "application/rtf"),
               ("pptx", "ppt", "application/vnd.ms-powerpoint"), ("docx", "pdf", "application/pdf")]
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
    from concurrent.futures import ThreadPoolExecutor

    td = tempfile.mkdtemp()
    tasks: list[tuple[tuple[list[str], str], str]] = []
    for i in range(n):
        for ext, mime, codec in AUDIO:
            dur = round(rng.uniform(0.3, 2.5), 2)
            src = rng.choice([f"sine=frequency={rng.randrange(50, 4000)}:duration={dur}",
                              f"anoisesrc=d={dur}:c={rng.choice(['white', 'pink', 'brown'])}:a={rng.random():.2f}",
                              f"aevalsrc=sin({rng.randrange(100, 900)}*2*PI*t)*sin({rng.randrange(1, 9)}*t):d={dur}"])
            out = f"{td}/{i}_{ext}.{ext}"
            cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", src,
                   "-ar", str(rng.choice([8000, 16000, 48000] if ext == "opus" else [8000, 16000, 22050, 44100, 48000])),
                   "-ac", str(rng.choice([1, 2])),
                   *codec]
            if ext in ("mp3", "ogg", "aac", "m4a", "opus"):
                cmd += ["-b:a", f"{rng.choice([32, 64, 96, 128, 192])}k"]
            if rng.random() < .3 and ext in ("mp3", "ogg", "flac", "m4a"):
                cmd += ["-metadata", f"title={pool.text(rng, 3, 40)}"]
            tasks.append(((cmd + [out], out), mime))
        for ext, mime, codec in VIDEO:
            dur = round(rng.uniform(0.2, 0.8), 2)
            w, h = rng.choice([(64, 48), (96, 64), (160, 120), (128, 128), (176, 144), (320, 240)])
            src = rng.choice(["testsrc", "testsrc2", "smptebars", "mandelbrot", "rgbtestsrc", "cellauto"])
            vs = f"{src}=size={w}x{h}:rate={rng.choice([10, 15, 24, 25, 30])}" if src != "cellauto" else f"cellauto=size={w}x{h}"
            out = f"{td}/{i}_{ext}.{ext}"
            cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-threads", "1", "-y", "-f", "lavfi", "-i", vs,
                   "-t", str(dur)]
            if rng.random() < .5 and ext != "flv":
                cmd += ["-f", "lavfi", "-i", f"sine=frequency={rng.randrange(100, 2000)}:duration={dur}", "-shortest"]
            cmd += codec
            if ext == "mpg":
                cmd += ["-r", "25"]
            if ext == "webm":
                cmd += ["-c:a", "libvorbis"]
            if ext in ("mp4", "mov", "mkv", "avi") and rng.random() < .3:
                cmd += ["-metadata", f"title={pool.text(rng, 3, 40)}"]
            tasks.append(((cmd + [out], out), mime))
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for (_, mime), data in zip(tasks, ex.map(_ffmpeg_job, [t for t, _ in tasks])):
            if data:
                yield data, mime, {}
    shutil.rmtree(td, ignore_errors=True)


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


GENERATORS: dict[str, Callable[..., Iterator[Sample]]] = {
    "images": gen_images, "svg": gen_svg, "archives": gen_archives, "sqlite": gen_sqlite,
    "office": gen_office, "libreoffice": gen_libreoffice, "fonts": gen_fonts,
    "crypto": gen_crypto, "pgp": gen_pgp,
}
