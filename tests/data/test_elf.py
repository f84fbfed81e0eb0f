"""The ELF label from the header (picohead.data.elf), shared by the corpus build and the wild suite."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from picohead.data.build import _elf_by_header
from picohead.data.elf import elf_mime
from picohead.data.labels import format_labels
from picohead.data.store import BlobStore


def _elf(e_type: int, interp: bool = False, *, is64: bool = True, le: bool = True,
         phnum: int = 2) -> bytes:
    e = "<" if le else ">"
    if is64:
        hdr = bytearray(64)
        struct.pack_into(e + "Q", hdr, 32, 64)
        struct.pack_into(e + "HH", hdr, 54, 56, phnum)
        phent = 56
    else:
        hdr = bytearray(52)
        struct.pack_into(e + "I", hdr, 28, 52)
        struct.pack_into(e + "HH", hdr, 42, 32, phnum)
        phent = 32
    hdr[:6] = b"\x7fELF" + bytes([2 if is64 else 1, 1 if le else 2])
    struct.pack_into(e + "H", hdr, 16, e_type)
    phs = bytearray(phent * phnum)
    for i in range(phnum):  # PT_LOAD, and PT_INTERP last when asked
        struct.pack_into(e + "I", phs, i * phent, 3 if interp and i == phnum - 1 else 1)
    return bytes(hdr + phs)


@pytest.mark.parametrize("is64,le", [(True, True), (False, True), (True, False), (False, False)])
def test_header_decides_the_label(is64: bool, le: bool) -> None:
    assert elf_mime(_elf(1, is64=is64, le=le)) == "application/x-object"
    assert elf_mime(_elf(2, is64=is64, le=le)) == "application/x-executable"
    assert elf_mime(_elf(3, interp=True, is64=is64, le=le)) == "application/x-executable"
    assert elf_mime(_elf(3, is64=is64, le=le)) == "application/x-sharedlib"


def test_not_elf_or_not_told() -> None:
    assert elf_mime(b"") is None
    assert elf_mime(b"\x7fELF") is None  # too short for a header
    assert elf_mime(b"MZ" + bytes(100)) is None
    assert elf_mime(_elf(4)) is None  # a core dump is none of the three
    bad_class = bytearray(_elf(3))
    bad_class[4] = 7
    assert elf_mime(bytes(bad_class)) is None
    # a program header table cut off by the end of the data holds no PT_INTERP
    assert elf_mime(_elf(3, interp=True)[:64 + 56]) == "application/x-sharedlib"


def test_build_relabels_elf_by_header(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    labels = {"mime": {"application/x-executable", "application/x-sharedlib",
                       "application/x-object", "text/plain"}}
    lib_in_bin = store.record(_elf(3), {**format_labels("application/x-executable"), "risk": []},
                              source="deb:a", group="g", prov={})
    pie_as_lib = store.record(_elf(3, interp=True), format_labels("application/x-sharedlib"),
                              source="deb:b", group="g", prov={})
    exe = store.record(_elf(2), format_labels("application/x-executable"), source="deb:c",
                       group="g", prov={})
    broken = store.record(b"\x7fELF" + bytes(8), format_labels("application/x-executable"),
                          source="deb:d", group="g", prov={})
    text = store.record(_elf(3), {"mime": "text/plain"}, source="deb:e", group="g", prov={})
    changed = _elf_by_header(tmp_path, [lib_in_bin, pie_as_lib, exe, broken, text], labels)
    assert lib_in_bin["labels"]["mime"] == "application/x-sharedlib"
    assert lib_in_bin["labels"]["risk"] == []  # other heads' labels stay
    assert pie_as_lib["labels"]["mime"] == "application/x-executable"
    assert exe["labels"]["mime"] == broken["labels"]["mime"] == "application/x-executable"
    assert text["labels"]["mime"] == "text/plain"  # only ELF labels are read from the header
    assert changed == {"application/x-executable -> application/x-sharedlib": 1,
                       "application/x-sharedlib -> application/x-executable": 1}


def test_elf_generators_draw_cross_compilers(monkeypatch: pytest.MonkeyPatch) -> None:
    """gen_linked and gen_objects compile with the native gcc for ~40 % of the files and with the
    cross compilers found on PATH (formats.ELF_TARGETS) for the rest; nothing without gcc."""
    import random
    from collections import Counter

    from picohead.data import formats

    found = {"gcc": "/n/gcc", "mips-linux-gnu-gcc": "/c/mips-linux-gnu-gcc",
             "i686-linux-gnu-gcc": "/c/i686-linux-gnu-gcc"}
    monkeypatch.setattr(formats.shutil, "which", found.get)
    ccs = formats._c_compilers()
    assert ccs == ["/n/gcc", "/c/i686-linux-gnu-gcc", "/c/mips-linux-gnu-gcc"]  # ELF_TARGETS order
    rng = random.Random(0)
    picks = Counter(formats._pick_compiler(rng, ccs) for _ in range(2000))
    assert 0.35 < picks["/n/gcc"] / 2000 < 0.45
    assert min(picks["/c/i686-linux-gnu-gcc"], picks["/c/mips-linux-gnu-gcc"]) > 500
    assert formats._pick_compiler(rng, ["/n/gcc"]) == "/n/gcc"
    monkeypatch.setattr(formats.shutil, "which", lambda p: None)
    assert formats._c_compilers() == []


def test_cross_compiled_objects_are_other_machines() -> None:
    """With the cross compilers installed (the README's corpus apt line), gen_objects' files
    carry other e_machine values than x86-64's 62 and are still labelled objects."""
    import random
    import shutil

    from picohead.data import formats

    if not (shutil.which("gcc") and shutil.which("mips-linux-gnu-gcc")):
        pytest.skip("needs gcc and gcc-mips-linux-gnu")
    pool = formats.Pool(["a few words of text to quote"] * 8, [], [], ["int x;"])
    machines = set()
    for data, mime, _ in formats.gen_objects(random.Random(3), pool, 12):
        assert mime == "application/x-object" and data[:4] == b"\x7fELF"
        le = data[5] == 1
        machines.add(int.from_bytes(data[18:20], "little" if le else "big"))
    assert len(machines) >= 3 and machines - {62}
