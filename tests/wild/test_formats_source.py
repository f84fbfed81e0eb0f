"""valid_format: small hand-made instances of each family pass, mislabelled ones fail."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import pytest

from picohead.wild.sources.files import check_entry
from picohead.wild.sources.formats import (
    CHECKS,
    LABEL_NOTES,
    excluded_path,
    recipe_path,
    valid_format,
)


def _zip(members: dict[str, bytes], first: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        if first:
            z.writestr(first, members.pop(first))
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


def _elf(e_type: int, interp: bool = False) -> bytes:
    hdr = bytearray(64)
    hdr[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<HH", hdr, 16, e_type, 62)
    struct.pack_into("<Q", hdr, 32, 64)  # e_phoff
    struct.pack_into("<HH", hdr, 54, 56, 1)  # e_phentsize, e_phnum
    ph = bytearray(56)
    struct.pack_into("<I", ph, 0, 3 if interp else 1)
    return bytes(hdr + ph)


PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + b"\0" * 17
GIF = b"GIF89a\x01\0\x01\0\0\0\0;"
JPEG = b"\xff\xd8\xff\xe0\0\x10JFIF\0" + b"\0" * 20
WAV = b"RIFF\x24\0\0\0WAVEfmt " + b"\0" * 24
WEBP = b"RIFF\x1a\0\0\0WEBPVP8L" + b"\0" * 14
ICO = b"\0\0\1\0\1\0" + bytes([16, 16, 0, 0, 1, 0, 32, 0]) + struct.pack("<II", 40, 22) + b"\0" * 40
TAR = bytearray(1024)
TAR[:5] = b"a.txt"
TAR[257:263] = b"ustar\0"
FTYP = struct.pack(">I", 24) + b"ftyp"
DOCX = _zip({"[Content_Types].xml": b'<Types><Override ContentType="application/vnd.openxmlformats-'
             b'officedocument.wordprocessingml.document.main+xml"/></Types>',
             "word/document.xml": b"<w:document/>"})
ODT = _zip({"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": b"<x/>"},
           first="mimetype")
EPUB = _zip({"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<c/>"},
            first="mimetype")
JAR = _zip({"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n", "A.class": b"\xca\xfe\xba\xbe"})
ZIP = _zip({"readme.txt": b"hello"})

def _der_cert() -> bytes:
    version = bytes.fromhex("a003020102")
    serial = bytes.fromhex("020101")
    tbs = b"\x30" + bytes([len(version + serial)]) + version + serial
    body = tbs + bytes.fromhex("300d06092a864886f70d01010b0500") + bytes.fromhex("030100")
    return b"\x30" + bytes([len(body)]) + body


GOOD = [
    ("image/png", PNG), ("image/gif", GIF), ("image/jpeg", JPEG), ("audio/wav", WAV),
    ("image/webp", WEBP), ("image/x-icon", ICO), ("application/x-tar", bytes(TAR)),
    ("application/pdf", b"junk\n%PDF-1.4\n%%EOF"),
    ("video/mp4", FTYP + b"isom\0\0\0\0isomavc1"), ("audio/mp4", FTYP + b"M4A \0\0\0\0M4A mp42"),
    ("image/heic", FTYP + b"heic\0\0\0\0mif1heic"), ("image/avif", FTYP + b"avif\0\0\0\0avifmif1"),
    ("video/quicktime", FTYP[:4] + b"ftypqt  \0\0\0\0qt  \0\0\0\0"),
    ("video/webm", b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm\x42\x87\x81\x02"),
    ("video/x-matroska", b"\x1a\x45\xdf\xa3\xa3\x42\x82\x88matroska\x42\x87\x81\x04"),
    ("audio/ogg", b"OggS\0\x02" + b"\0" * 20 + b"\x01\x1e\x01vorbis" + b"\0" * 22),
    ("audio/flac", b"fLaC\0\0\0\x22" + b"\0" * 34), ("audio/mpeg", b"ID3\3\0\0\0\0\0\0\xff\xfb\x90\x64"),
    ("application/x-executable", _elf(2)), ("application/x-executable", _elf(3, interp=True)),
    ("application/x-sharedlib", _elf(3)), ("application/x-object", _elf(1)),
    ("application/vnd.microsoft.portable-executable",
     b"MZ" + b"\0" * 58 + struct.pack("<I", 64) + b"PE\0\0" + b"\0" * 20),
    ("application/x-mach-binary", b"\xcf\xfa\xed\xfe\x07\0\0\x01\x03\0\0\0\x02\0\0\0" + b"\0" * 16),
    ("application/java-vm", b"\xca\xfe\xba\xbe\0\0\0\x34\0\x10"),
    ("application/wasm", b"\0asm\1\0\0\0"), ("application/vnd.sqlite3",
                                              b"SQLite format 3\0\x10\0" + b"\0" * 90),
    ("application/gzip", b"\x1f\x8b\x08\0\0\0\0\0\0\3"), ("application/x-xz", b"\xfd7zXZ\0\0\4"),
    ("application/x-bzip2", b"BZh91AY&SY" + b"\0" * 10), ("application/zstd", b"\x28\xb5\x2f\xfd\0"),
    ("application/x-7z-compressed", b"7z\xbc\xaf\x27\x1c\0\4"), ("application/x-rar", b"Rar!\x1a\x07\0"),
    ("application/x-iso9660-image", b"\0" * 0x8001 + b"CD001\1"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", DOCX),
    ("application/vnd.oasis.opendocument.text", ODT), ("application/epub+zip", EPUB),
    ("application/java-archive", JAR), ("application/zip", ZIP),
    ("font/ttf", b"\0\1\0\0\0\1\0\0\0\0\0\0" + b"\0" * 16), ("font/woff2", b"wOF2\0\1\0\0\0\0\0\x0c"),
    ("application/pkix-cert", _der_cert()),
    ("application/x-pem-file", b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
    ("application/pgp-keys", b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQ\n"
                             b"-----END PGP PUBLIC KEY BLOCK-----\n"),
    ("application/pgp-keys", b"\x99\x01\x0d\x04" + b"\0" * 8),
    ("application/json", b'{"a": [1, 2]}'), ("application/xml", b"<?xml version='1.0'?><a><b/></a>"),
    ("image/svg+xml", b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>'),
    ("text/csv", b"a,b,c\n1,2,3\n4,5,6\n"), ("text/calendar", b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"),
    ("text/vcard", b"BEGIN:VCARD\r\nVERSION:3.0\r\nEND:VCARD\r\n"),
    ("text/x-po", b'msgid "Hello"\nmsgstr "Hallo"\n'),
    ("text/x-diff", b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"),
    ("text/troff", b'.\\" comment\n.TH HELLO 1\n.SH NAME\nhello\n'),
    ("application/x-bittorrent", b"d8:announce3:url4:infod4:name1:xee"),
    ("image/x-portable-anymap", b"P6\n1 1\n255\n\0\0\0"), ("audio/midi", b"MThd\0\0\0\x06\0\0\0\1\0\x60"),
    ("application/x-tar", bytes(TAR)),
]

BAD = [
    ("image/png", JPEG), ("image/jpeg", PNG), ("image/gif", PNG), ("audio/wav", WEBP),
    ("image/webp", WAV), ("video/mp4", FTYP + b"qt  \0\0\0\0qt  \0\0\0\0"),
    ("audio/mp4", FTYP + b"isom\0\0\0\0isomavc1"), ("image/heic", FTYP + b"avif\0\0\0\0avifmif1"),
    ("video/webm", b"\x1a\x45\xdf\xa3\xa3\x42\x82\x88matroska\x42\x87\x81\x04"),
    ("application/x-sharedlib", _elf(3, interp=True)), ("application/x-executable", _elf(1)),
    ("application/java-vm", b"\xca\xfe\xba\xbe\0\0\0\x02\x01\0\0\x07"),  # a fat Mach-O
    ("application/x-mach-binary", b"\xca\xfe\xba\xbe\0\0\0\x34\0\x10"),  # a class file
    ("application/zip", DOCX), ("application/zip", JAR), ("application/java-archive", ZIP),
    ("application/vnd.oasis.opendocument.text", EPUB),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", DOCX),
    ("application/x-tar", b"\0" * 1024), ("application/json", b"{not json"),
    ("application/xml", b"<a><b></a>"), ("application/xml", b'<svg xmlns="x"/>'),
    ("text/csv", b"a,b,c\n1,2\n"), ("application/pkix-cert", bytes.fromhex("3006020100020100")),
    ("application/x-pem-file", b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("font/ttf", b"OTTO\0\1\0\0" + b"\0" * 24), ("application/gzip", b"BZh91AY&SY"),
    ("audio/ogg", b"OggS\0\x02" + b"\0" * 20 + b"\x01\x2a\x80theora" + b"\0" * 22),
    ("image/x-unknown", PNG),
]


@pytest.mark.parametrize("label,data", GOOD, ids=[g[0] for g in GOOD])
def test_accepts(label: str, data: bytes) -> None:
    assert valid_format(label, "fixtures/sample", data)


@pytest.mark.parametrize("label,data", BAD, ids=[b[0] for b in BAD])
def test_rejects_mislabelled(label: str, data: bytes) -> None:
    assert not valid_format(label, "fixtures/sample", data)


@pytest.mark.parametrize("rel", ["tests/fuzz/x.png", "test/corrupt-files/a.png", "bad/a.png",
                                 "data/truncated.png", "corkami/pocs/a.png", "t/Invalid/a.png"])
def test_broken_on_purpose_paths_excluded(rel: str) -> None:
    assert excluded_path(rel)
    assert not valid_format("image/png", rel, PNG)


def test_ordinary_paths_kept() -> None:
    for rel in ("tests/images/badge.png", "fixtures/fixture.png", "samples/baddie.png"):
        assert not excluded_path(rel)
        assert valid_format("image/png", rel, PNG)


def test_recipe_entries_are_well_formed() -> None:
    entries = json.loads(recipe_path().read_text(encoding="utf-8"))["sources"]
    assert entries
    for e in entries:
        check_entry(e, "formats.json")
        for r in e["take"]:
            assert r["label"] in CHECKS, r["label"]


def test_label_notes_cover_known_labels() -> None:
    assert set(LABEL_NOTES) <= set(CHECKS)
