"""File-format (MIME) samples for the wild suite: whole fixture files of format libraries' test suites.

Reads ``picohead/recipes/wild/formats.json`` (``{"sources": [entry, ...]}``, entries as in
``picohead.wild.sources.files``): pinned git mirrors and registry packages whose take rules map
extensions and folders to labels. Every candidate must pass ``valid_format``, this module's own
structural check for the rule's label (magic numbers and structure at known offsets for binary
formats, a parse or shape check for text formats), so a fixture misnamed by its project, or one of a
different sub-type (a ``.mp4`` that is really QuickTime, a ``.so`` that is a PIE executable), is
dropped rather than mislabelled. Files under folders (or with names) saying fuzz, crash, corrupt,
broken, invalid, bad, malformed or truncated are dropped: they are broken on purpose and their true
type is unclear. Files named or foldered after corkami are dropped (reserved source).

Labels are the model's own spelling where the mime head has the type, otherwise what
``file --mime-type`` conventionally prints (shared-mime-info / IANA); ``LABEL_NOTES`` records each
choice that is not obvious.

What it does not do: call libmagic, ``file`` or Magika (they are the anchors the suite is scored
against), guess a type the rule did not name, or look inside archives for more samples.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import struct
import zipfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from xml.parsers import expat

from picohead.data.elf import elf_mime
from picohead.wild.sources.files import take
from picohead.wild.suite import StageWriter

log = logging.getLogger(__name__)

STAGE = "mime-fixtures"

# Spelling choices, label -> why. Model labels (picohead/recipes/content/spec.json, head "mime")
# are used as they are; the rest follow `file --mime-type` unless noted.
LABEL_NOTES: dict[str, str] = {
    "image/x-portable-anymap": "model's label for every Netpbm type (PBM/PGM/PPM/PNM/PAM); "
                               "file prints x-portable-bitmap/graymap/pixmap",
    "image/x-icon": "model's label for ICO (file: image/vnd.microsoft.icon); CUR is not taken",
    "image/heic": "HEIF with a HEVC major brand (heic, heix, hevc, hevx, heim, heis)",
    "image/heif": "HEIF with the generic major brand mif1/msf1 and no AVIF brand",
    "image/avif": "ISO-BMFF with major or compatible brand avif/avis",
    "image/vnd.adobe.photoshop": "PSD (version 1) and PSB (version 2) alike, as file prints",
    "audio/wav": "model's label (file: audio/x-wav)",
    "audio/aiff": "model's label for AIFF and AIFC (file: audio/x-aiff)",
    "audio/ogg": "every Ogg audio stream: Vorbis, Opus, Speex, FLAC-in-Ogg (the model's choice); "
                 "Ogg Theora video is not taken",
    "audio/mp4": "model's label for ISO-BMFF audio (M4A/M4B/M4P major brand; file: audio/x-m4a)",
    "audio/mpeg": "MPEG-1/2 audio layers I-III (.mp1/.mp2/.mp3), with or without an ID3v2 tag",
    "audio/aac": "ADTS or ADIF AAC streams (model's label; file: audio/x-hx-aac-adts)",
    "audio/x-ape": "Monkey's Audio ('MAC ')",
    "audio/x-wavpack": "WavPack ('wvpk')",
    "audio/x-musepack": "Musepack SV7 ('MP+') and SV8 ('MPCK')",
    "audio/x-dsf": "DSD stream file ('DSD ')",
    "audio/midi": "Standard MIDI file ('MThd')",
    "video/x-ms-asf": "ASF container, whatever the extension (.asf/.wma/.wmv), as file prints",
    "video/mp4": "ISO-BMFF with an MP4/ISO major brand (not qt, 3gp, M4A, M4V, heic, avif, ...)",
    "video/quicktime": "ftyp 'qt  ' or a classic QuickTime atom layout (moov/mdat/wide/free)",
    "video/3gpp": "ftyp 3gp*/3gg*/3ge* major brand",
    "video/3gpp2": "ftyp 3g2* major brand",
    "video/x-matroska": "EBML DocType 'matroska' (.mkv and .mka alike, as file prints)",
    "video/webm": "EBML DocType 'webm'",
    "video/mpeg": "MPEG-1/2 program stream or elementary video stream (0x000001BA/B3)",
    "application/x-executable": "model's label: ELF ET_EXEC, and ET_DYN with a PT_INTERP "
                                "(a PIE executable; newer file prints application/x-pie-executable)",
    "application/x-sharedlib": "ELF ET_DYN without a PT_INTERP program header",
    "application/x-object": "ELF ET_REL (relocatable object)",
    "application/vnd.microsoft.portable-executable": "model's label for PE images, EXE and DLL "
                                                     "(older file: application/x-dosexec)",
    "application/x-mach-binary": "Mach-O of any file type, thin or fat (universal)",
    "application/java-vm": "model's label for a Java class file (CAFEBABE, major >= 45)",
    "application/x-python-bytecode": "model's label (file: application/x-bytecode.python)",
    "application/x-rar": "RAR 1.5-4 and RAR 5 archives",
    "application/x-archive": "Unix ar archives that are not Debian packages",
    "application/x-iso9660-image": "'CD001' at sector 16 (0x8001)",
    "application/x-pem-file": "model's label for PEM (certificates, keys, CSRs; not PGP armour)",
    "application/pkix-cert": "model's label for a DER X.509 certificate",
    "application/pgp-keys": "model's label: armoured PGP PUBLIC/PRIVATE KEY BLOCK or a binary "
                            "key packet (tag 5 or 6) first",
    "text/tab-separated-values": "TSV with a consistent field count",
    "text/troff": "man/mdoc sources starting with a troff request or comment",
    "text/x-diff": "unified or context diffs (.diff/.patch)",
    "application/postscript": "PostScript and EPS ('%!PS', or the DOS EPS binary header)",
    "application/vnd.tcpdump.pcap": "classic libpcap capture (not pcapng)",
    "font/ttf": "model's label: sfnt with TrueType outlines (0x00010000 or 'true')",
    "font/otf": "model's label: sfnt with CFF outlines ('OTTO')",
    "application/vnd.ms-fontobject": "Embedded OpenType ('LP' at offset 34)",
}

_BROKEN = re.compile(r"(?i)(fuzz|crash|corrupt|broken|invalid|malformed|truncat|damaged|"
                     r"(^|[-_. ])bad([-_. ]|$)|corkami)")


def excluded_path(rel: str) -> bool:
    """True for a file under a folder (or with a name) that says it is broken on purpose, or that
    names corkami (whose files are a reserved source even when copied into other suites)."""
    return any(_BROKEN.search(part) for part in rel.split("/"))


# ---------------------------------------------------------------- helpers

def _u16(d: bytes, o: int, le: bool = True) -> int:
    return int(struct.unpack_from("<H" if le else ">H", d, o)[0]) if len(d) >= o + 2 else -1


def _u32(d: bytes, o: int, le: bool = True) -> int:
    return int(struct.unpack_from("<I" if le else ">I", d, o)[0]) if len(d) >= o + 4 else -1


def _text(d: bytes) -> str | None:
    """The data as text (UTF-8, UTF-16 with BOM, else Latin-1), None when it looks binary."""
    if d.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return d.decode("utf-16")
        except UnicodeDecodeError:
            return None
    if b"\0" in d[:65536]:
        return None
    try:
        return d.decode("utf-8-sig")
    except UnicodeDecodeError:
        t = d.decode("latin-1")
        ctrl = sum(1 for c in t[:65536] if ord(c) < 32 and c not in "\t\n\r\f\x1b")
        return None if ctrl > len(t[:65536]) // 100 else t


def _ftyp(d: bytes) -> tuple[bytes, set[bytes]] | None:
    """(major brand, compatible brands) of an ISO-BMFF file's leading ftyp box."""
    if len(d) < 16 or d[4:8] != b"ftyp":
        return None
    size = _u32(d, 0, le=False)
    if size < 16 or size > 4096:
        return None
    end = min(size, len(d))
    compat = {d[i:i + 4] for i in range(16, end - 3, 4)}
    return d[8:12], compat


def _zip_names(d: bytes) -> list[str] | None:
    if not d.startswith(b"PK\x03\x04"):
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(d)) as z:
            return z.namelist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError):
        return None


def _zip_member(d: bytes, name: str, limit: int = 1 << 20) -> bytes | None:
    try:
        with zipfile.ZipFile(io.BytesIO(d)) as z:
            with z.open(name) as f:
                return f.read(limit)
    except (KeyError, zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError,
            RuntimeError):
        return None


def _zip_kind(d: bytes) -> str | None:
    """Which ZIP-based type the data is: ooxml label, ODF/EPUB mimetype, apk, jar or zip."""
    names = _zip_names(d)
    if names is None:
        return None
    s = set(names)
    if "[Content_Types].xml" in s:
        ct = _zip_member(d, "[Content_Types].xml") or b""
        for main, label in _OOXML_MAIN.items():
            if main in ct:
                return label
        return "ooxml-other"
    if "mimetype" in s:
        mt = (_zip_member(d, "mimetype", 200) or b"").strip().decode("ascii", "replace")
        return mt or "zip-mimetype"
    if "AndroidManifest.xml" in s and ("classes.dex" in s or "resources.arsc" in s):
        return "application/vnd.android.package-archive"
    if "META-INF/MANIFEST.MF" in s or any(n.endswith(".class") for n in names):
        return "application/java-archive"
    return "application/zip"


_OOXML_MAIN = {
    b"wordprocessingml.document.main+xml": (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    b"spreadsheetml.sheet.main+xml": (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    b"presentationml.presentation.main+xml": (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
}


def _ole_has(d: bytes, stream: str) -> bool:
    return d.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") and stream.encode("utf-16-le") in d


# ---------------------------------------------------------------- ELF / Mach-O / PE

_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")


def _macho(d: bytes) -> bool:
    if d[:4] in _MACHO:
        le = d[:4] in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")
        return 1 <= _u32(d, 12, le) <= 0x20 and len(d) >= 28  # filetype
    if d[:4] in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
        n = _u32(d, 4, le=False)
        return 1 <= n <= 20 and _u32(d, 8, le=False) & 0xFFFFFF in (7, 12, 18, 0x13, 0x17, 1, 6)
    return False


def _java_class(d: bytes) -> bool:
    return d[:4] == b"\xca\xfe\xba\xbe" and 45 <= _u16(d, 6, le=False) <= 80 and len(d) >= 10


def _pe(d: bytes) -> bool:
    if not d.startswith(b"MZ") or len(d) < 0x40:
        return False
    off = _u32(d, 0x3C)
    return 0 < off < len(d) - 4 and d[off:off + 4] == b"PE\0\0"


# ---------------------------------------------------------------- other binary checks

def _mp3(d: bytes) -> bool:
    if d.startswith(b"ID3") and len(d) > 10:
        size = (d[6] << 21) | (d[7] << 14) | (d[8] << 7) | d[9]
        o = 10 + size
        while o < len(d) and d[o] == 0 and o < 10 + size + 4096:
            o += 1  # padding after the tag
        if o >= len(d):
            return False
        d = d[o:]
    return (len(d) >= 4 and d[0] == 0xFF and d[1] & 0xE0 == 0xE0 and (d[1] >> 1) & 3 != 0
            and (d[2] >> 4) != 0xF and (d[2] >> 2) & 3 != 3)


def _adts(d: bytes) -> bool:
    if d.startswith(b"ADIF"):
        return True
    if d.startswith(b"ID3") and len(d) > 10:
        d = d[10 + ((d[6] << 21) | (d[7] << 14) | (d[8] << 7) | d[9]):]
    return len(d) >= 7 and d[0] == 0xFF and d[1] & 0xF6 == 0xF0


def _ogg_audio(d: bytes) -> bool:
    if not d.startswith(b"OggS") or len(d) < 28:
        return False
    body = d[27 + d[26]:27 + d[26] + 16]
    return body.startswith((b"\x01vorbis", b"OpusHead", b"Speex   ", b"\x7fFLAC", b"fLaC"))


def _ebml_doctype(d: bytes) -> bytes | None:
    if not d.startswith(b"\x1a\x45\xdf\xa3"):
        return None
    i = d.find(b"\x42\x82", 4, 64)
    if i < 0 or i + 3 > len(d):
        return None
    n = d[i + 2]
    if n & 0x80:
        n &= 0x7F
        return d[i + 3:i + 3 + n].rstrip(b"\0")
    return None


def _mov(d: bytes) -> bool:
    f = _ftyp(d)
    if f is not None:
        return f[0] == b"qt  "
    return len(d) >= 8 and d[4:8] in (b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot") and (
        _u32(d, 0, le=False) in (0, 1) or 8 <= _u32(d, 0, le=False) <= len(d) + (1 << 31))


_MP4_BRANDS = {b"isom", b"iso2", b"iso3", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42", b"avc1",
               b"dash", b"mmp4", b"MSNV", b"XAVC", b"NDAS", b"f4v ", b"cmfc", b"iso8", b"iso9"}
_HEIC_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis"}


def _bmff(brands: Callable[[bytes, set[bytes]], bool]) -> Callable[[bytes], bool]:
    def check(d: bytes) -> bool:
        f = _ftyp(d)
        return f is not None and brands(*f)
    return check


def _tga(d: bytes) -> bool:
    if len(d) < 18:
        return False
    idlen, cmtype, itype = d[0], d[1], d[2]
    w, h, depth = _u16(d, 12), _u16(d, 14), d[16]
    if cmtype not in (0, 1) or itype not in (1, 2, 3, 9, 10, 11) or not (w and h):
        return False
    if depth not in (8, 15, 16, 24, 32) or d[17] & 0xC0:
        return False
    if cmtype == 1 and (d[7] not in (15, 16, 24, 32) or itype not in (1, 9)):
        return False
    if cmtype == 0 and itype in (1, 9):
        return False
    return len(d) > 18 + idlen


def _bmp(d: bytes) -> bool:
    return (d.startswith(b"BM") and len(d) >= 26 and _u32(d, 14) in (12, 16, 40, 52, 56, 64, 108, 124)
            and _u32(d, 10) < max(len(d), 1 << 16))


def _ico(d: bytes) -> bool:
    if len(d) < 22 or d[:4] != b"\0\0\1\0":
        return False
    n = _u16(d, 4)
    if not 1 <= n <= 512:
        return False
    size, off = _u32(d, 14), _u32(d, 18)
    return d[9] == 0 and 6 + 16 * n <= off < len(d) and size > 0


def _pnm(d: bytes) -> bool:
    return (len(d) >= 3 and d[0:1] == b"P" and d[1:2] in b"1234567" and len(d[1:2]) == 1
            and d[2:3] in b" \t\r\n#")


def _der_len(d: bytes, o: int) -> tuple[int, int] | None:
    """(content length, offset of content) of the DER length at ``o``."""
    if o >= len(d):
        return None
    b = d[o]
    if b < 0x80:
        return b, o + 1
    n = b & 0x7F
    if not 1 <= n <= 4 or o + 1 + n > len(d):
        return None
    return int.from_bytes(d[o + 1:o + 1 + n], "big"), o + 1 + n


def _der_cert(d: bytes) -> bool:
    if not d.startswith(b"\x30"):
        return False
    outer = _der_len(d, 1)
    if outer is None or outer[0] + outer[1] != len(d):
        return False
    o = outer[1]
    if d[o:o + 1] != b"\x30":
        return False
    tbs = _der_len(d, o + 1)
    if tbs is None:
        return False
    first = d[tbs[1]:tbs[1] + 1]
    return first == b"\xa0" or (first == b"\x02" and d[tbs[1] + 1] < 0x80)


def _pgp_binary_key(d: bytes) -> bool:
    if len(d) < 8 or not d[0] & 0x80:
        return False
    b0 = d[0]
    if b0 & 0x40:
        tag, o = b0 & 0x3F, 1
        first = d[1]
        o = 2 if first < 192 else 3 if first < 224 else 6 if first == 255 else 0
    else:
        tag, lt = (b0 >> 2) & 0xF, b0 & 3
        o = {0: 2, 1: 3, 2: 5}.get(lt, 0)
    return bool(o) and tag in (5, 6) and d[o] in (3, 4, 5, 6)


def _cab(d: bytes) -> bool:
    return d.startswith(b"MSCF\0\0\0\0") and 36 <= _u32(d, 8) <= len(d) + 16 and d[24:26] in (
        b"\x03\x01", b"\x03\x00")


def _iso(d: bytes) -> bool:
    return any(d[o:o + 5] == b"CD001" for o in (0x8001, 0x8801, 0x9001))


def _tar(d: bytes) -> bool:
    if len(d) < 512:
        return False
    if d[257:262] == b"ustar":
        return True
    try:
        stored = int(d[148:156].split(b"\0")[0].strip() or b"-1", 8)
    except ValueError:
        return False
    calc = sum(d[:148]) + 8 * 32 + sum(d[156:512])
    return stored == calc and d[0] != 0


def _cpio(d: bytes) -> bool:
    return d.startswith((b"070707", b"070701", b"070702", b"\xc7\x71", b"\x71\xc7"))


def _bzip2(d: bytes) -> bool:
    return (len(d) >= 10 and d.startswith(b"BZh") and d[3:4] in b"123456789"
            and d[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90"))


def _zstd(d: bytes) -> bool:
    return d.startswith(b"\x28\xb5\x2f\xfd") or (
        len(d) >= 8 and d[1:4] == b"\x2a\x4d\x18" and d[0] & 0xF0 == 0x50)


def _eot(d: bytes) -> bool:
    return (len(d) >= 82 and d[34:36] == b"LP" and _u32(d, 8) in (0x00010000, 0x00020001, 0x00020002)
            and _u32(d, 0) <= len(d) + 4)


def _sfnt(d: bytes, tags: tuple[bytes, ...]) -> bool:
    if d[:4] not in tags or len(d) < 12:
        return False
    n = _u16(d, 4, le=False)
    return 1 <= n <= 100 and len(d) >= 12 + 16 * n


def _torrent(d: bytes) -> bool:
    return d.startswith(b"d") and b"4:infod" in d and d.rstrip(b"\r\n").endswith(b"e")


def _pcap(d: bytes) -> bool:
    return d[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1",
                     b"\xa1\xb2\x3c\x4d") and len(d) >= 24


def _mo(d: bytes) -> bool:
    return d[:4] in (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde") and len(d) >= 28


def _sqlite(d: bytes) -> bool:
    return d.startswith(b"SQLite format 3\0") and len(d) >= 100 and (
        _u16(d, 16, le=False) in (1,) or (_u16(d, 16, le=False) & (_u16(d, 16, le=False) - 1)) == 0)


def _pyc(d: bytes) -> bool:
    # magic: two little-endian bytes, then b"\r\n"; Python 1.x-3.x magics span 0x4E99..~0x0EFF
    return len(d) >= 8 and d[2:4] == b"\r\n" and (_u16(d, 0) in range(2800, 4000)
                                                   or _u16(d, 0) in range(20000, 63000))


# ---------------------------------------------------------------- text checks

_ROOT = re.compile(r"<([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)")


def _xml_root(t: str) -> str | None:
    """The local name of the root element of well-formed XML, else None."""
    p = expat.ParserCreate()
    root: list[str] = []

    def start(name: str, attrs: object) -> None:
        if not root:
            root.append(name.rsplit(":", 1)[-1])
    p.StartElementHandler = start
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        p.Parse(t.encode("utf-8"), True)
    except expat.ExpatError:
        return None
    return root[0] if root else None


def _xml(d: bytes) -> bool:
    t = _text(d)
    if t is None or not t.lstrip().startswith("<"):
        return False
    r = _xml_root(t)
    return r is not None and r.lower() not in ("svg", "html", "plist")


def _svg(d: bytes) -> bool:
    t = _text(d)
    return t is not None and t.lstrip().startswith("<") and (_xml_root(t) or "") == "svg"


def _html(d: bytes) -> bool:
    t = _text(d)
    if t is None:
        return False
    head = t[:2048].lower().lstrip()
    return head.startswith(("<!doctype html", "<html")) or (
        head.startswith(("<!--", "<?xml")) and ("<!doctype html" in head or "<html" in head))


def _json(d: bytes) -> bool:
    t = _text(d)
    if t is None or not t.strip().startswith(("{", "[")):
        return False
    try:
        json.loads(t)
    except ValueError:
        return False
    return True


def _delimited(delim: str) -> Callable[[bytes], bool]:
    def check(d: bytes) -> bool:
        t = _text(d)
        if t is None:
            return False
        lines = [x for x in t.splitlines()[:200] if x.strip()]
        if len(lines) < 2:
            return False
        try:
            rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delim))
        except csv.Error:
            return False
        counts = {len(r) for r in rows if r}
        return len(counts) == 1 and counts.pop() >= 2
    return check


def _starts(*prefixes: str) -> Callable[[bytes], bool]:
    def check(d: bytes) -> bool:
        t = _text(d)
        return t is not None and t.lstrip().upper().startswith(prefixes)
    return check


def _po(d: bytes) -> bool:
    t = _text(d)
    return t is not None and bool(re.search(r"(?m)^msgid\s+\"", t)) and bool(
        re.search(r"(?m)^msgstr(\[\d+\])?\s+\"", t))


def _diff(d: bytes) -> bool:
    t = _text(d)
    if t is None:
        return False
    return bool(re.search(r"(?m)^--- \S.*\n\+\+\+ \S.*\n@@ -\d+(,\d+)? \+\d+(,\d+)? @@", t)
                or re.search(r"(?m)^\*\*\* \S.*\n--- \S.*\n\*{15}", t)
                or re.search(r"(?m)^diff --git ", t))


_TROFF = re.compile(r"^(\.\\\"|'\\\"|\.(TH|Dd|Dt|SH|so|de|ig|TL|nr|ds|if)\b|\.\s*\\\")")


def _troff(d: bytes) -> bool:
    t = _text(d)
    if t is None:
        return False
    lines = [x for x in t.splitlines()[:40] if x.strip()]
    if not lines or not _TROFF.match(lines[0]):
        return False
    return bool(re.search(r"(?m)^\.(TH|Dd|SH|Sh|so)\b", t))


def _pem(d: bytes) -> bool:
    t = _text(d)
    if t is None:
        return False
    m = re.search(r"-----BEGIN ([A-Z0-9 ]+)-----", t)
    return m is not None and "PGP" not in m.group(1) and f"-----END {m.group(1)}-----" in t


def _pgp_keys(d: bytes) -> bool:
    t = _text(d)
    if t is None:
        return _pgp_binary_key(d)
    m = re.search(r"-----BEGIN PGP (PUBLIC|PRIVATE) KEY BLOCK-----", t)
    return m is not None and t.lstrip().startswith("-----BEGIN PGP") and (
        f"-----END PGP {m.group(1)} KEY BLOCK-----" in t)


def _xpm(d: bytes) -> bool:
    t = _text(d)
    return t is not None and t.lstrip().startswith("/* XPM */") and "static" in t[:512] and "{" in t


def _postscript(d: bytes) -> bool:
    return d.startswith((b"%!PS", b"\xc5\xd0\xd3\xc6", b"\x04%!PS"))


# ---------------------------------------------------------------- the table

def _zipk(label: str) -> Callable[[bytes], bool]:
    return lambda d: _zip_kind(d) == label


_ODF = "application/vnd.oasis.opendocument."
CHECKS: dict[str, Callable[[bytes], bool]] = {
    # images
    "image/png": lambda d: d.startswith(b"\x89PNG\r\n\x1a\n") and d[12:16] == b"IHDR",
    "image/jpeg": lambda d: d.startswith(b"\xff\xd8\xff"),
    "image/gif": lambda d: d[:6] in (b"GIF87a", b"GIF89a") and len(d) >= 13,
    "image/webp": lambda d: d[:4] == b"RIFF" and d[8:12] == b"WEBP" and d[12:15] == b"VP8",
    "image/bmp": _bmp,
    "image/tiff": lambda d: d[:4] in (b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"),
    "image/x-icon": _ico,
    "image/svg+xml": _svg,
    "image/x-portable-anymap": _pnm,
    "image/x-tga": _tga,
    "image/jp2": lambda d: d[:12] == b"\0\0\0\x0cjP  \r\n\x87\n" and d[20:24] == b"jp2 ",
    "image/heic": _bmff(lambda major, compat: major in _HEIC_BRANDS),
    "image/heif": _bmff(lambda major, compat: major in (b"mif1", b"msf1")
                        and not compat & {b"avif", b"avis"}),
    "image/avif": _bmff(lambda major, compat: major in (b"avif", b"avis")
                        or (major in (b"mif1", b"msf1") and bool(compat & {b"avif", b"avis"}))),
    "image/vnd.adobe.photoshop": lambda d: d[:4] == b"8BPS" and _u16(d, 4, le=False) in (1, 2),
    "image/x-icns": lambda d: d[:4] == b"icns" and 8 <= _u32(d, 4, le=False) <= len(d),
    "image/x-exr": lambda d: d.startswith(b"\x76\x2f\x31\x01"),
    "image/vnd.radiance": lambda d: d.startswith((b"#?RADIANCE", b"#?RGBE")),
    "image/jxl": lambda d: d.startswith((b"\xff\x0a", b"\0\0\0\x0cJXL \r\n\x87\n")),
    "image/x-xpixmap": _xpm,
    "image/vnd.djvu": lambda d: d[:8] == b"AT&TFORM" and d[12:16] in (b"DJVU", b"DJVM"),
    # audio
    "audio/mpeg": _mp3,
    "audio/aac": _adts,
    "audio/ogg": _ogg_audio,
    "audio/flac": lambda d: d.startswith(b"fLaC") and len(d) >= 42,
    "audio/wav": lambda d: d[:4] == b"RIFF" and d[8:12] == b"WAVE",
    "audio/aiff": lambda d: d[:4] == b"FORM" and d[8:12] in (b"AIFF", b"AIFC"),
    "audio/mp4": _bmff(lambda major, compat: major in (b"M4A ", b"M4B ", b"M4P ", b"F4A ")),
    "audio/x-ape": lambda d: d.startswith(b"MAC ") and 3800 <= _u16(d, 4) <= 4100,
    "audio/x-wavpack": lambda d: d.startswith(b"wvpk"),
    "audio/x-musepack": lambda d: d.startswith((b"MPCK", b"MP+")),
    "audio/x-dsf": lambda d: d.startswith(b"DSD \x1c\0\0\0"),
    "audio/midi": lambda d: d.startswith(b"MThd\0\0\0\x06"),
    # video
    "video/x-ms-asf": lambda d: d.startswith(bytes.fromhex("3026b2758e66cf11a6d900aa0062ce6c")),
    "video/mp4": _bmff(lambda major, compat: major in _MP4_BRANDS),
    "video/quicktime": _mov,
    "video/3gpp": _bmff(lambda major, compat: major[:3] in (b"3gp", b"3gg", b"3ge", b"3gs")),
    "video/3gpp2": _bmff(lambda major, compat: major[:3] == b"3g2"),
    "video/webm": lambda d: _ebml_doctype(d) == b"webm",
    "video/x-matroska": lambda d: _ebml_doctype(d) == b"matroska",
    "video/x-msvideo": lambda d: d[:4] == b"RIFF" and d[8:12] == b"AVI ",
    "video/x-flv": lambda d: d.startswith(b"FLV\x01"),
    "video/mpeg": lambda d: d[:4] in (b"\0\0\1\xba", b"\0\0\1\xb3"),
    # documents
    "application/pdf": lambda d: b"%PDF-" in d[:1024],
    "application/msword": lambda d: _ole_has(d, "WordDocument"),
    "application/vnd.ms-excel": lambda d: _ole_has(d, "Workbook") or _ole_has(d, "Book"),
    "application/vnd.ms-powerpoint": lambda d: _ole_has(d, "PowerPoint Document"),
    "application/rtf": lambda d: d.startswith(b"{\\rtf"),
    **{label: _zipk(label) for label in _OOXML_MAIN.values()},
    _ODF + "text": _zipk(_ODF + "text"),
    _ODF + "spreadsheet": _zipk(_ODF + "spreadsheet"),
    _ODF + "presentation": _zipk(_ODF + "presentation"),
    "application/epub+zip": _zipk("application/epub+zip"),
    # archives and compression
    "application/zip": _zipk("application/zip"),
    "application/java-archive": _zipk("application/java-archive"),
    "application/vnd.android.package-archive": _zipk("application/vnd.android.package-archive"),
    "application/x-tar": _tar,
    "application/gzip": lambda d: d.startswith(b"\x1f\x8b\x08"),
    "application/x-bzip2": _bzip2,
    "application/x-xz": lambda d: d.startswith(b"\xfd7zXZ\0"),
    "application/zstd": _zstd,
    "application/x-7z-compressed": lambda d: d.startswith(b"7z\xbc\xaf\x27\x1c"),
    "application/x-rar": lambda d: d.startswith((b"Rar!\x1a\x07\x00", b"Rar!\x1a\x07\x01\x00")),
    "application/vnd.ms-cab-compressed": _cab,
    "application/x-iso9660-image": _iso,
    "application/x-cpio": _cpio,
    "application/x-archive": lambda d: d.startswith(b"!<arch>\n") and not d[8:24].startswith(
        b"debian-binary"),
    "application/vnd.debian.binary-package": lambda d: d.startswith(b"!<arch>\ndebian-binary"),
    "application/x-rpm": lambda d: d.startswith(b"\xed\xab\xee\xdb"),
    # executables and bytecode
    "application/x-executable": lambda d: elf_mime(d) == "application/x-executable",
    "application/x-sharedlib": lambda d: elf_mime(d) == "application/x-sharedlib",
    "application/x-object": lambda d: elf_mime(d) == "application/x-object",
    "application/vnd.microsoft.portable-executable": _pe,
    "application/x-mach-binary": _macho,
    "application/java-vm": _java_class,
    "application/wasm": lambda d: d.startswith(b"\0asm") and _u32(d, 4) in (1, 0x1000d),
    "application/x-python-bytecode": _pyc,
    "application/vnd.sqlite3": _sqlite,
    # fonts
    "font/ttf": lambda d: _sfnt(d, (b"\0\1\0\0", b"true")),
    "font/otf": lambda d: _sfnt(d, (b"OTTO",)),
    "font/woff": lambda d: d.startswith(b"wOFF") and _u32(d, 8, le=False) == len(d),
    "font/woff2": lambda d: d.startswith(b"wOF2") and _u32(d, 8, le=False) == len(d),
    "application/vnd.ms-fontobject": _eot,
    # keys and certificates
    "application/x-pem-file": _pem,
    "application/pkix-cert": _der_cert,
    "application/pgp-keys": _pgp_keys,
    # text formats and other data
    "application/json": _json,
    "application/xml": _xml,
    "text/html": _html,
    "text/csv": _delimited(","),
    "text/tab-separated-values": _delimited("\t"),
    "text/calendar": _starts("BEGIN:VCALENDAR"),
    "text/vcard": _starts("BEGIN:VCARD"),
    "text/x-po": _po,
    "application/x-gettext-translation": _mo,
    "text/x-diff": _diff,
    "text/troff": _troff,
    "application/postscript": _postscript,
    "application/x-bittorrent": _torrent,
    "application/vnd.tcpdump.pcap": _pcap,
}


def valid_format(label: str, rel: str, data: bytes) -> bool:
    """Whether ``data`` (found at ``rel``) structurally is a ``label`` file. Unknown labels,
    empty files and files under broken-on-purpose (or corkami) folders are rejected."""
    check = CHECKS.get(label)
    if check is None or not data or excluded_path(rel):
        return False
    try:
        return bool(check(data))
    except (IndexError, ValueError, struct.error):
        return False


def recipe_path() -> Path:
    return Path(str(resources.files("picohead") / "recipes" / "wild" / "formats.json"))


def build(suite: Path, *, cache: Path, mirrors: Path, recipe: Path | None = None) -> list[Path]:
    """Take the fixture files of ``formats.json`` (stage ``mime-fixtures``) and of every other
    ``formats_*.json`` (stage ``mime-<stem>``) into ``suite``."""
    paths = [recipe] if recipe else [recipe_path(), *sorted(
        recipe_path().parent.glob("formats_*.json"))]
    out = []
    for path in paths:
        entries = json.loads(path.read_text(encoding="utf-8"))["sources"]
        w = StageWriter(suite, "mime")
        added = take(entries, w, cache=cache, mirrors=mirrors, validate=valid_format,
                     where=path.name)
        log.info("%s: %d files from %d sources", path.name, sum(added.values()), len(added))
        out.append(w.close(STAGE if path.name == "formats.json" else f"mime-{path.stem}"))
    return out
