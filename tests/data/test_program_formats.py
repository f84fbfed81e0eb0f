"""picohead.data.program_formats: each generator writes files its type's readers accept, at
varied settings, labelled with types of the spec; a missing program skips only its types."""

from __future__ import annotations

import random
import struct
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from picohead.data import formats, program_formats
from picohead.data.labels import FORMATS, generic_mime
from picohead.data.requirements import PROGRAMS, SEARCH_PATH

ROOT = Path(__file__).resolve().parents[2]
POOL = formats.Pool(["The quick brown fox jumps over the lazy dog.\nA second line of prose.\n" * 30,
                     "Ein Beispieltext mit Wörtern.\nNoch eine Zeile hier.\n" * 30], [], [])
MIME_LABELS = set(next(h for h in __import__("json").loads(
    (ROOT / "picohead" / "recipes" / "content" / "spec.json").read_text())["heads"]
    if h["name"] == "mime")["labels"])


def _valid(mime: str, data: bytes) -> bool:
    """What the type's readers look at first (the bytes the model's head window holds)."""
    head = data[:1024]
    if mime == "application/x-raw-disk-image":  # exFAT boot sector, or an MBR/GPT table
        return head[3:11] == b"EXFAT   " or (head[510:512] == b"\x55\xaa" and any(head[446:510]))
    if mime == "application/vnd.squashfs":
        return head[:4] == b"hsqs"
    if mime == "application/x-coff":
        return struct.unpack("<H", head[:2])[0] in program_formats.COFF_MACHINES
    if mime == "application/vnd.hp-hpgl":
        return b"IN;" in head or b"\x1b." in head[:4]
    if mime == "application/vnd.hp-pcl":
        return head[:2] == b"\x1bE" or head[:2] == b"\x1b%" or b") HP-PCL XL" in head
    if mime == "video/x-ivf":
        return head[:4] == b"DKIF"
    if mime == "audio/x-rf64":
        return head[:4] == b"RF64" and head[8:16] == b"WAVEds64"
    if mime == "image/jxl":
        return head[:2] == b"\xff\x0a" or head[4:8] == b"JXL "
    if mime == "audio/x-musepack":
        return head[:4] == b"MPCK"
    if mime == "image/x-exr":
        return head[:4] == b"v/1\x01"
    if mime == "image/vnd.dxf":
        return head.lstrip().startswith(b"0\r\nSECTION") or head.lstrip().startswith(b"0\nSECTION")
    if mime == "application/epub+zip":
        z = zipfile.ZipFile(BytesIO(data))
        return z.namelist()[0] == "mimetype" and z.read("mimetype") == b"application/epub+zip"
    if mime.endswith("-flat-xml"):
        kind = mime.split(".")[-1].removesuffix("-flat-xml")
        return b"<office:document" in data and f"opendocument.{kind}".encode() in data[:4096]
    raise AssertionError(f"no check for {mime}")


def test_every_type_is_a_spec_label_with_a_family() -> None:
    made = {m for _, m, _ in program_formats.DISK_WRITERS} | {m for _, m, _ in program_formats.MEDIA_MORE2}
    made |= {"application/x-coff", "application/vnd.hp-hpgl", "application/vnd.hp-pcl",
             "application/epub+zip", "image/vnd.dxf",
             *(m for _, m in program_formats.FLAT_ODF.values())}
    assert made <= MIME_LABELS and made <= set(FORMATS)
    assert all(generic_mime(m) for m in made)
    assert generic_mime("application/epub+zip") == "application/zip"


@pytest.mark.parametrize("gen", sorted(program_formats.GENERATORS))
def test_generators_write_valid_files_at_varied_settings(gen: str) -> None:
    import shutil

    got = list(program_formats.GENERATORS[gen](random.Random(7), POOL, 3))
    if not got:
        lacking = [p for p in PROGRAMS if not shutil.which(p, path=SEARCH_PATH)]
        pytest.skip(f"none of {gen}'s programs here ({', '.join(lacking[:6])} ...)")
    for data, mime, _ in got:
        assert mime in MIME_LABELS, mime
        assert _valid(mime, data), (mime, data[:32])
    a = [d for d, _, _ in program_formats.GENERATORS[gen](random.Random(1), POOL, 2)]
    b = [d for d, _, _ in program_formats.GENERATORS[gen](random.Random(2), POOL, 2)]
    assert a != b  # randomized options and content, not one template


def test_every_dxf_version_is_written() -> None:
    """ezdxf refuses entities a version lacks (R12 has no LWPOLYLINE): every version the
    generator draws from writes a drawing (a corpus build lost the generator to this once)."""
    pytest.importorskip("ezdxf")
    for version in program_formats.DXF_VERSIONS:
        for seed in range(6):
            data = program_formats._dxf(random.Random(seed), POOL, version)
            assert data is not None and _valid("image/vnd.dxf", data), version


def test_a_missing_program_skips_only_its_types(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without cjxl the other media types are still written, and the missing one is logged."""
    import shutil

    if not all(shutil.which(p) for p in ("ffmpeg", "cjxl")):
        pytest.skip("needs ffmpeg and cjxl")
    real = shutil.which
    monkeypatch.setattr(program_formats.shutil, "which",
                        lambda p, path=None: None if p == "cjxl" else real(p, path=path))
    types = {m for _, m, _ in program_formats.gen_media_more2(random.Random(3), POOL, 1)}
    assert "image/jxl" not in types and "video/x-ivf" in types
