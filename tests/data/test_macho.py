"""picohead.data.macho: thin and universal Mach-O files whose headers, load commands and segments
agree with each other (read back here by a small independent parser) and that `file` names
application/x-mach-binary."""
from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from picohead.data import macho

WORDS = "alpha beta gamma delta render parse Widget buffer stream cache".split()


def _thin(data: bytes) -> dict[str, object]:
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xFEEDFACF, 0xFEEDFACE)
    is64 = magic == 0xFEEDFACF
    _, cputype, _, filetype, ncmds, sizeofcmds, _ = struct.unpack("<7I", data[:28])
    off = 32 if is64 else 28
    end, cmds, segs = off + sizeofcmds, [], []
    for _ in range(ncmds):
        cmd, size = struct.unpack("<II", data[off:off + 8])
        assert size % (8 if is64 else 4) == 0 and off + size <= end
        cmds.append(cmd)
        if cmd in (macho.LC_SEGMENT_64, macho.LC_SEGMENT):
            fmt = "<16sQQQQ" if is64 else "<16sIIII"
            name, _, _, fileoff, filesize = struct.unpack(fmt, data[off + 8:off + 8 + struct.calcsize(fmt)])
            assert fileoff + filesize <= len(data), name
            segs.append(name.rstrip(b"\0").decode())
        if cmd == macho.LC_CODE_SIGNATURE:
            sig_off, sig_size = struct.unpack("<II", data[off + 8:off + 16])
            assert sig_off + sig_size == len(data) and data[sig_off:sig_off + 4] == b"\xfa\xde\x0c\xc0"
        off += size
    assert off == end
    return {"is64": is64, "cputype": cputype, "filetype": filetype, "cmds": cmds, "segs": segs}


def test_thin_images_of_every_kind_parse_back() -> None:
    rng = random.Random(0)
    for arch in macho.ARCHS:
        for ft in (macho.OBJECT, macho.EXECUTE, macho.DYLIB, macho.BUNDLE):
            got = _thin(macho.image(rng, WORDS, arch, ft))
            assert got["filetype"] == ft and got["cputype"] == macho.ARCHS[arch][0]
            if ft == macho.EXECUTE:
                assert macho.LC_MAIN in got["cmds"] and macho.LC_LOAD_DYLINKER in got["cmds"]
                assert got["segs"][:2] == (["__PAGEZERO", "__TEXT"] if got["is64"] else ["__TEXT", "__DATA"])
            if ft != macho.OBJECT:
                assert macho.LC_LOAD_DYLIB in got["cmds"] and got["segs"][-1] == "__LINKEDIT"


def test_universal_binary_slices_are_aligned_thin_images() -> None:
    rng = random.Random(1)
    for _ in range(5):
        data = macho.fat(rng, WORDS)
        magic, n = struct.unpack(">II", data[:8])
        assert magic == 0xCAFEBABE and 2 <= n <= 3  # a slice count, not a Java class version
        for i in range(n):
            cputype, _, off, size, align = struct.unpack(">5I", data[8 + 20 * i:28 + 20 * i])
            assert off % (1 << align) == 0 and off + size <= len(data)
            assert _thin(data[off:off + size])["cputype"] == cputype


@pytest.mark.skipif(shutil.which("file") is None, reason="no file(1) here")
def test_file_names_them_mach_binaries(tmp_path: Path) -> None:
    rng = random.Random(2)
    for i in range(12):
        p = tmp_path / f"m{i}"
        p.write_bytes(macho.fat(rng, WORDS) if i % 4 == 0 else macho.image(rng, WORDS))
        out = subprocess.run(["file", "-b", "--mime-type", str(p)], capture_output=True, text=True)
        assert out.stdout.strip() == "application/x-mach-binary", p
