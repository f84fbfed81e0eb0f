"""The MIME head's labels (issue 22): every spec label has a label rule, every rule's labels are in
the spec, the mime_v2 recipe part loads and names no wild-suite producer, and the new generators
write files whose structure is what `file --mime-type` checks for."""

from __future__ import annotations

import gzip
import io
import json
import random
import struct
from importlib import resources
from xml.dom import minidom

import pytest

from picohead.data import formats
from picohead.data.harvest import Rule
from picohead.data.labels import FORMATS, code_labels, code_mime, format_labels

SPEC = json.loads((resources.files("picohead") / "recipes" / "content" / "spec.json")
                  .read_text(encoding="utf-8"))
HEADS = {h["name"]: set(h["labels"]) for h in SPEC["heads"]}


def test_every_mime_label_has_a_rule_and_the_head_is_large() -> None:
    code = {code_mime(lang) for lang in HEADS["code_lang"]}
    missing = sorted(m for m in HEADS["mime"] if m not in FORMATS and m not in code
                     and m != "text/plain")
    assert missing == []
    assert len(HEADS["mime"]) >= 150


def test_rules_only_name_spec_labels() -> None:
    for lang in HEADS["code_lang"]:
        for head, val in code_labels(lang).items():
            assert val in HEADS[head], (lang, head, val)
    for mime in FORMATS:
        for head, val in format_labels(mime).items():
            assert val in HEADS[head], (mime, head, val)


def test_code_languages_get_specific_types() -> None:
    assert code_mime("python") == "text/x-python" and code_mime("c") == "text/x-c"
    assert code_mime("cpp") == "text/x-c++" and code_mime("shell") == "text/x-shellscript"
    assert code_mime("javascript") == "text/javascript" and code_mime("rust") == "text/x-rust"
    mimes = [code_mime(lang) for lang in HEADS["code_lang"]]
    assert "text/plain" not in mimes
    assert len(set(mimes)) == len(mimes)  # one type per language
    with pytest.raises(KeyError):
        code_mime("klingon")


def test_mime_v2_loads_and_names_no_wild_producer() -> None:
    from picohead.data.producers import wild_producers
    from picohead.data.recipe import load_recipe

    part = json.loads((resources.files("picohead") / "recipes" / "content" / "mime_v2.json")
                      .read_text(encoding="utf-8"))
    names = {(e["kind"], e["name"]) for e in part["sources"]}
    r = load_recipe("content")
    assert names <= {(e["kind"], e["name"]) for e in r.entries}
    wp = wild_producers()
    assert [n for k, n in names if wp.owns(f"{k}:{n}", None)] == []
    for e in part["sources"]:
        for t in e["take"]:
            assert t["mime"] in HEADS["mime"]


def test_gunzip_rule_takes_a_man_page_as_troff() -> None:
    rule = Rule({"mime": "text/troff", "under": ["usr/share/man/"], "ext": [".gz"], "gunzip": True})
    assert rule.matches_path("usr/share/man/man1/ls.1.gz")
    assert not rule.matches_path("usr/share/doc/ls/changelog.gz")
    assert gzip.decompress(gzip.compress(b".TH LS 1\n")).startswith(b".TH")


POOL = formats.Pool(["The quick brown fox jumps over the lazy dog.\nA second line of prose.\n" * 30,
                     "Ein Beispieltext mit Wörtern.\nNoch eine Zeile hier.\n" * 30,
                     "Ελληνικά κείμενα και 中文文本 in one pool.\n" * 30], [], [])


def _e_type(data: bytes) -> int:
    """An ELF file's e_type in its own byte order (EI_DATA 2: big-endian, as on MIPS and s390x)."""
    return int.from_bytes(data[16:18], "big" if data[5] == 2 else "little")


def _pil(data: bytes):  # noqa: ANN202 - a PIL image
    import io

    from PIL import Image

    return Image.open(io.BytesIO(data))


def _check(mime: str, data: bytes) -> None:
    """What libmagic looks for in each type (the structural part of `file --mime-type`)."""
    t = data.decode("utf-8", "replace")
    checks = {
        "text/vcard": lambda: t.startswith("BEGIN:VCARD") and t.rstrip().endswith("END:VCARD"),
        "text/calendar": lambda: t.startswith("BEGIN:VCALENDAR") and "END:VCALENDAR" in t,
        "text/csv": lambda: len({ln.count(",") + ln.count(";") + ln.count("|")
                                 for ln in t.splitlines()[:3]}) >= 1,
        "text/tab-separated-values": lambda: "\t" in t,
        "application/jsonl": lambda: all(json.loads(ln) is not None for ln in t.splitlines()),
        "application/geo+json": lambda: json.loads(t)["type"] == "FeatureCollection",
        "text/x-diff": lambda: ("\n--- " in "\n" + t or "\n*** " in "\n" + t) and "\n@@ " in t
                               or "\n***************" in t,
        "image/x-icns": lambda: data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data),
        "image/x-pcx": lambda: data[0] == 0x0A and data[2] == 1,
        "image/x-sgi": lambda: data[:2] == b"\x01\xda",
        "image/x-xbitmap": lambda: t.startswith("#define") and "_bits[]" in t,
        "application/postscript": lambda: data.startswith(b"%!PS"),
        "application/wasm": lambda: data[:8] == b"\0asm\x01\0\0\0",
        "application/x-object": lambda: data[:4] == b"\x7fELF" and _e_type(data) == 1,  # ET_REL
        "application/x-compress": lambda: data[:2] == b"\x1f\x9d",
        "text/x-uuencode": lambda: t.startswith("begin ") and t.endswith("end\n"),
        "application/x-shar": lambda: t.startswith("#!/bin/sh\n# This is a shell archive"),
        "application/zlib": lambda: data[0] == 0x78 and int.from_bytes(data[:2], "big") % 31 == 0,
        "application/x-bittorrent": lambda: data[:1] == b"d" and b"4:infod" in data,  # libmagic
        # knows the announce/comment/info starts only; trackerless files start with other keys
        "application/vnd.tcpdump.pcap": lambda: data[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                                                              b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"),
        "image/x-sun-raster": lambda: data[:4] == b"\x59\xa6\x6a\x95",
        "image/vnd.wap.wbmp": lambda: data[:2] == b"\0\0",
        "image/vnd.radiance": lambda: data.startswith((b"#?RADIANCE\n", b"#?RGBE\n")),
        "audio/basic": lambda: data[:4] == b".snd",
        "audio/x-voc": lambda: data.startswith(b"Creative Voice File\x1a"),
        "application/x-mach-binary": lambda: data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe")
                                             or data[:4] == b"\xca\xfe\xba\xbe" and data[4:7] == b"\0\0\0",
        "application/x-executable": lambda: data[:4] == b"\x7fELF" and _e_type(data) in (2, 3),
        "application/x-sharedlib": lambda: data[:4] == b"\x7fELF" and _e_type(data) == 3,
        "image/x-xfig": lambda: t.startswith("#FIG 3."),
        "application/xhtml+xml": lambda: 'xmlns="http://www.w3.org/1999/xhtml"' in t
                                         and minidom.parseString(data) is not None,
        "application/vnd.ms-fontobject": lambda: struct.unpack("<I", data[:4])[0] == len(data)
                                                 and data[34:36] == b"LP",
        "audio/midi": lambda: data[:4] == b"MThd" and b"MTrk" in data[:64],
        "application/x-lz4": lambda: data[:4] == b"\x04\x22\x4d\x18",
        "application/vnd.ms-cab-compressed": lambda: data[:4] == b"MSCF"
                                                     and struct.unpack("<I", data[8:12])[0] == len(data),
        "image/vnd.adobe.photoshop": lambda: data[:6] == b"8BPS\0\x01",
        "image/avif": lambda: data[4:12] == b"ftypavif",
        "video/x-ms-asf": lambda: data[:4] == b"\x30\x26\xb2\x75",
        "audio/x-wavpack": lambda: data[:4] == b"wvpk",
        "audio/x-w64": lambda: data[:4] == b"riff" and data[24:28] == b"wave",
        "audio/x-caf": lambda: data[:4] == b"caff",
        "video/3gpp": lambda: data[4:8] == b"ftyp" and data[8:11] == b"3gp",
        "text/vnd.graphviz": lambda: t.split(None, 1)[0] in ("digraph", "graph", "strict")
                                     and t.rstrip().endswith("}"),
        "model/vrml": lambda: t.startswith(("#VRML V2.0 utf8", "#VRML V1.0 ascii")),
        "image/x-win-bitmap": lambda: data[:4] == b"\0\0\x02\0" and _pil(data).format == "CUR",
    }
    assert checks[mime](), mime


@pytest.mark.parametrize("gen", ["pim", "tables", "diffs", "pillow_more", "wasm", "objects", "legacy",
                                 "midi", "lz4", "cab", "raster_more", "linked", "web_formats",
                                 "described"])
def test_new_generators_write_valid_files(gen: str, tmp_path) -> None:
    seen: dict[str, int] = {}
    for data, mime, _extra in formats.GENERATORS[gen](random.Random(7), POOL, 3):
        assert mime in HEADS["mime"] and mime in FORMATS
        (tmp_path / f"{len(seen)}.bin").write_bytes(data)
        _check(mime, data)
        seen[mime] = seen.get(mime, 0) + 1
    if gen in ("objects", "linked") and not seen:
        pytest.skip("no gcc here")
    assert seen and min(seen.values()) >= 1
    if gen != "diffs":  # two runs with other seeds differ (randomized options, not one template)
        a = [d for d, _, _ in formats.GENERATORS[gen](random.Random(1), POOL, 2)]
        b = [d for d, _, _ in formats.GENERATORS[gen](random.Random(2), POOL, 2)]
        assert a != b


def test_psd_writer_round_trips_through_pillow() -> None:
    from PIL import Image

    for seed in range(6):  # raw and PackBits image data, RGB, RGBA and grayscale
        rng = random.Random(seed)
        img = formats._scene(rng, POOL)
        im = Image.open(io.BytesIO(formats._psd(rng, img)))
        im.load()
        assert im.tobytes() == img.convert(im.mode).tobytes()


def test_eot_wraps_the_font_and_names_it(tmp_path) -> None:
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder([".notdef", "A"])
    fb.setupCharacterMap({65: "A"})
    pen = TTGlyphPen(None)
    pen.moveTo((0, 0)), pen.lineTo((500, 700)), pen.lineTo((1000, 0)), pen.closePath()
    fb.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "A": pen.glyph()})
    fb.setupHorizontalMetrics({".notdef": (500, 0), "A": (1000, 0)})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Picotest", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    b = io.BytesIO()
    fb.save(b)
    ttf = b.getvalue()
    for seed in range(3):  # the three versions
        eot = formats._eot(random.Random(seed), ttf)
        assert eot is not None and eot.endswith(ttf)
        size, font_size, version = struct.unpack("<III", eot[:12])
        assert size == len(eot) and font_size == len(ttf)
        assert version in (0x00010000, 0x00020001, 0x00020002)
        assert eot[34:36] == b"LP" and "Picotest".encode("utf-16-le") in eot
        _check("application/vnd.ms-fontobject", eot)


def test_packbits_round_trips() -> None:
    # the PSD round trip above decodes PackBits with Pillow; these are the edge cases of runs
    for row in (b"", b"a", b"aaaa", bytes(range(200)), b"ab" * 90 + b"c" * 300, b"x" * 129):
        packed = formats._packbits(row)
        assert _unpackbits(packed) == row
        assert len(packed) <= len(row) + (len(row) + 127) // 128


def _unpackbits(data: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(data):
        n = data[i]
        if n < 128:
            out += data[i + 1:i + 2 + n]
            i += 2 + n
        elif n > 128:
            out += data[i + 1:i + 2] * (257 - n)
            i += 2
        else:
            i += 1
    return bytes(out)


def test_second_av_generator_writes_each_type(tmp_path) -> None:
    import shutil

    if not shutil.which("ffmpeg"):
        pytest.skip("no ffmpeg here")
    got = list(formats.gen_av_more(random.Random(3), POOL, 1, 2))
    assert sorted({m for _, m, _ in got}) == sorted({m for _, m, _, _ in formats.AV_MORE})
    for data, mime, _ in got:
        _check(mime, data)


def test_lzw_round_trip_matches_compress_format(tmp_path) -> None:
    import shutil
    import subprocess

    data = b"TOBEORNOTTOBEORTOBEORNOT#" * 200 + bytes(range(256)) * 4
    z = formats._lzw_compress(data, 16)
    assert z[:3] == b"\x1f\x9d\x90"
    gz = shutil.which("gzip")  # gzip -d reads .Z files
    if gz is None:
        pytest.skip("no gzip")
    (tmp_path / "a.Z").write_bytes(z)
    out = subprocess.run([gz, "-dc", str(tmp_path / "a.Z")], capture_output=True)
    assert out.returncode == 0 and out.stdout == data


def test_every_mime_label_has_a_family_generic():
    import json
    from pathlib import Path

    from picohead.data.labels import generic_mime

    spec = json.loads((Path(__file__).resolve().parents[2] / "picohead" / "recipes" / "content"
                       / "spec.json").read_text())
    mimes = next(h["labels"] for h in spec["heads"] if h["name"] == "mime")
    fam = {m: generic_mime(m) for m in mimes}
    assert None not in fam.values()
    assert fam["application/vnd.oasis.opendocument.text"] == "application/zip"
    assert fam["text/x-python"] == fam["application/json"] == "text/plain"
    assert fam["image/png"] == "application/octet-stream"
    assert generic_mime("application/x-no-such-type") is None


def test_generic_of_bytes_places_types_the_tables_do_not_know():
    from picohead.data.labels import generic_of_bytes

    assert generic_of_bytes(b"PK\x03\x04\x14\x00rest") == "application/zip"
    assert generic_of_bytes(b"0\nSECTION\n2\nHEADER\n") == "text/plain"  # DXF
    assert generic_of_bytes("caf\u00e9 na\u00efve".encode()[:-1]) == "text/plain"  # cut character
    assert generic_of_bytes(b"\x00\x00\x00\x18ftypheic") == "application/octet-stream"  # NUL
    assert generic_of_bytes(b"Rar!\x1a\x07\x01\xff\xfe header") == "application/octet-stream"  # not UTF-8


def test_av_generator_varies_mpeg_mp4_mp3_and_aiff_as_their_writers_do() -> None:
    import shutil

    if not shutil.which("ffmpeg"):
        pytest.skip("no ffmpeg here")
    got = list(formats.gen_av(random.Random(5), POOL, 12, 2))
    mpeg = [d for d, m, _ in got if m == "video/mpeg"]
    starts = {d[:4] for d in mpeg}
    # a program stream (pack header) and a bare elementary stream (sequence header) both occur
    assert starts == {b"\0\0\1\xba", b"\0\0\1\xb3"}
    mp4 = [d for d, m, _ in got if m == "video/mp4"]
    brands = {d[8:12].decode() for d in mp4}
    assert all(d[4:8] == b"ftyp" for d in mp4) and brands <= set(formats.MP4_BRANDS)
    assert len(brands) >= 3
    # MPEG audio: ID3-tagged MP3 and bare frames (layer II among them); AIFF and AIFF-C
    assert {d[:3] == b"ID3" for d, m, _ in got if m == "audio/mpeg"} == {True, False}
    assert {d[8:12] for d, m, _ in got if m == "audio/aiff"} == {b"AIFF", b"AIFC"}


def _bdecode(b: bytes, i: int = 0) -> tuple[object, int]:
    c = b[i:i + 1]
    if c == b"i":
        j = b.index(b"e", i)
        return int(b[i + 1:j]), j + 1
    if c in (b"l", b"d"):
        items, i = [], i + 1
        while b[i:i + 1] != b"e":
            v, i = _bdecode(b, i)
            items.append(v)
        if c == b"l":
            return items, i + 1
        keys = items[::2]
        assert keys == sorted(keys)  # bencoded dictionaries are sorted by key
        return dict(zip(keys, items[1::2])), i + 1
    j = b.index(b":", i)
    n = int(b[i:j])
    return b[j + 1:j + 1 + n], j + 1 + n


def test_torrents_decode_and_vary_like_clients_write_them() -> None:
    rng, heads, many = random.Random(4), set(), 0
    for _ in range(80):
        data = formats._torrent(rng, POOL)
        meta, end = _bdecode(data)
        assert end == len(data) and isinstance(meta, dict)
        info = meta[b"info"]
        assert len(info[b"pieces"]) % 20 == 0 and (b"length" in info) != (b"files" in info)
        many += len(info.get(b"files", [])) >= 60
        heads.add(data[:6])
    # with and without announce (trackerless files start with another key), some long file lists
    assert b"d8:ann" in heads and len(heads) >= 4 and many >= 3


def test_diffs_patch_source_files_when_the_pool_has_code() -> None:
    code = ["#include <stdio.h>\n" + "".join(f"int f{i}(int x) {{\n    return x * {i};\n}}\n"
                                            for i in range(300))]
    pool = formats.Pool(["Plain words of prose, one line after another.\n" * 200], [], [], code)
    got = [d.decode() for d, m, _ in formats.gen_diffs(random.Random(1), pool, 40)]
    on_code = [t for t in got if "return x *" in t]
    assert len(on_code) >= 15 and all(_checked("text/x-diff", t.encode()) for t in got)
    assert any(t.startswith("diff --git") or "\ndiff --git" in t for t in on_code)


def _checked(mime: str, data: bytes) -> bool:
    _check(mime, data)
    return True


def test_lzip_members_from_every_encoder_test_clean(tmp_path) -> None:
    import shutil
    import subprocess

    got = list(formats.gen_lzip(random.Random(2), POOL, 24))
    assert got and all(d[:5] == b"LZIP\x01" and m == "application/x-lzip" for d, m, _ in got)
    sources = {e["source"] for _, _, e in got}
    assert "gen:lzip-liblzma" in sources
    tester = shutil.which("clzip") or shutil.which("lzip")
    if tester is None:
        pytest.skip("no lzip decoder here")
    # every encoder installed writes members (the wild suite's lzip is a decoder, not theirs)
    assert sources == {"gen:lzip-liblzma"} | {f"gen:lzip-{p}" for p in ("clzip", "pdlzip", "tarlz")
                                               if shutil.which(p)}
    for k, (data, _, _) in enumerate(got):
        (tmp_path / f"{k}.lz").write_bytes(data)
        assert subprocess.run([tester, "-t", str(tmp_path / f"{k}.lz")]).returncode == 0


def test_apks_are_zip_archives_with_android_parts() -> None:
    import zipfile

    for data, mime, _ in formats.gen_apk(random.Random(6), POOL, 12):
        assert mime == "application/vnd.android.package-archive"
        z = zipfile.ZipFile(io.BytesIO(data))
        assert z.testzip() is None
        names = z.namelist()
        assert {"AndroidManifest.xml", "classes.dex", "resources.arsc"} <= set(names)
        assert z.read("AndroidManifest.xml")[:4] == b"\x03\x00\x08\x00"  # a binary XML chunk
        dex = z.read("classes.dex")
        assert dex[:4] == b"dex\n" and struct.unpack("<I", dex[32:36])[0] == len(dex)
        signed_v2 = b"APK Sig Block 42" in data
        assert signed_v2 or any(n.startswith("META-INF/") and n.endswith(".SF") for n in names)


def test_jpeg_and_netpbm_files_vary_as_their_writers_do() -> None:
    from PIL import Image

    rng, heads = random.Random(3), set()
    for _ in range(40):
        img = formats._scene(rng, POOL)
        for data in (formats._jpeg(rng, POOL, img), formats._pnm(rng, POOL, img)):
            Image.open(io.BytesIO(data)).load()  # every one decodes
            heads.add(data[:4] if data[:1] == b"\xff" else data[:2])
    assert {b"\xff\xd8\xff\xe0", b"\xff\xd8\xff\xdb"} <= heads  # JFIF first, or no APP segment
    assert {b"P1", b"P2", b"P3"} & heads and {b"P4", b"P5", b"P6"} & heads  # plain and raw


def test_pyc_headers_of_many_cpython_releases() -> None:
    src = [b"def f(x):\n    return x + 1\n" * 10] * 60
    got = [d for d, _, _ in formats.gen_pyc(random.Random(0), POOL, 60, src)]
    magics = {struct.unpack("<H", d[:2])[0] for d in got}
    known = {m for _, m, _ in formats.PYC_VERSIONS}
    assert all(d[2:4] == b"\r\n" for d in got) and len(magics & known) >= 8
    for d in got:  # the header length matches the release: the marshalled code starts after it
        head = {m: h for _, m, h in formats.PYC_VERSIONS}.get(struct.unpack("<H", d[:2])[0], 16)
        assert d[head] in (0x63, 0xE3)  # a code object ('c', with or without the ref flag)


def test_apk_entry_order_and_zipalign_vary_as_the_build_tools_write_them() -> None:
    import zipfile

    firsts, aligned = set(), 0
    for data, _, _ in formats.gen_apk(random.Random(8), POOL, 30):
        z = zipfile.ZipFile(io.BytesIO(data))
        firsts.add(z.namelist()[0])
        for info in z.infolist():
            if info.compress_type == zipfile.ZIP_STORED:
                off = info.header_offset
                n, e = struct.unpack("<HH", data[off + 26:off + 30])
                aligned += (off + 30 + n + e) % 4 == 0 and b"\x35\xd9" in data[off + 30 + n:off + 30 + n + e]
    assert {"AndroidManifest.xml", "resources.arsc", "classes.dex"} <= firsts and aligned >= 10


def test_gzip_headers_vary_and_every_file_decompresses() -> None:
    rng, flags, oses = random.Random(9), set(), set()
    for k in range(60):
        data = POOL.text(rng, 100, 3000).encode() * 2
        z = formats._gzip(rng, data, f"notes{k}.txt")
        assert z[:3] == b"\x1f\x8b\x08" and gzip.decompress(z) == data  # multi-member too
        flags.add(z[3])
        oses.add(z[9])
    assert {0, 0x08} <= flags and len(oses) >= 3


@pytest.mark.slow
def test_libreoffice_writes_spreadsheets_with_its_own_compound_file_layout(tmp_path) -> None:
    """LibreOffice's XLS files start with the allocation table, not xlwt's BOF record (wild XLS
    files of that layout were read as DOC when xlwt was the only spreadsheet writer)."""
    import shutil
    import subprocess

    if shutil.which("soffice") is None:
        pytest.skip("no soffice here")
    xls = [d for d, m, _ in formats.gen_libreoffice(random.Random(3), POOL, 2)
           if m == "application/vnd.ms-excel"]
    assert len(xls) == 2
    for k, data in enumerate(xls):
        assert data[:8] == bytes.fromhex("d0cf11e0a1b11ae1")
        assert data[512:516] == b"\xfd\xff\xff\xff"  # the FAT's own sector first
        assert "Workbook".encode("utf-16-le") in data
        (tmp_path / f"{k}.xls").write_bytes(data)
        if shutil.which("file"):
            out = subprocess.run(["file", "-b", "--mime-type", str(tmp_path / f"{k}.xls")],
                                 capture_output=True, text=True).stdout.strip()
            assert out == "application/vnd.ms-excel"


def test_ustar_archives_take_long_file_names_cut_to_its_100_bytes() -> None:
    import tarfile

    long = "é" * 70 + ".txt"  # 144 bytes in UTF-8
    for fmt, want in ((tarfile.USTAR_FORMAT, 100), (tarfile.GNU_FORMAT, 144), (tarfile.PAX_FORMAT, 144)):
        names = tarfile.open(fileobj=io.BytesIO(formats._tar([(long, b"x"), ("a.c", b"y")], fmt))).getnames()
        assert [len(n.encode()) for n in names] == [want, 3]
        assert names[0].endswith(".txt")
