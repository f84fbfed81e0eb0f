"""Mach-O files written from scratch, laid out the way Apple's linker and compiler lay them out.

``image`` writes one thin Mach-O: an object file (one unnamed segment, sections straight after
the load commands, relocations, symbols), or an executable, dylib or bundle (``__PAGEZERO``,
``__TEXT`` from file offset 0 with the code at the end of its pages, ``__DATA_CONST``/``__DATA``,
``__LINKEDIT`` with fixups, function starts, symbols, strings and an ad-hoc code signature; the
usual ``dyld``, UUID, build-version, ``LC_MAIN`` and ``libSystem`` commands). 64-bit x86_64 and
arm64, or 32-bit i386 (older commands: ``LC_DYLD_INFO_ONLY``, ``LC_VERSION_MIN_MACOSX``).
``fat`` wraps thin images in a universal binary (``CA FE BA BE``, slices page-aligned), which
shares its magic with Java class files: the second word (a small slice count, not a class-file
version) tells them apart.

The code is made of each architecture's common instruction words (prologues, calls, loads,
returns) in random order, not a program; the strings and symbol names are words of the corpus's
text pool. What it does not do: produce a file that loads or runs, or sign anything for real
(the code directory's hashes are of the pages, but no certificate is involved, as with ``ld``'s
ad-hoc signatures).
"""

from __future__ import annotations

import hashlib
import random
import struct

# cputype, cpusubtype, page size, 64-bit
ARCHS = {"x86_64": (0x01000007, 3, 0x1000, True), "arm64": (0x0100000C, 0, 0x4000, True),
         "i386": (7, 3, 0x1000, False)}
OBJECT, EXECUTE, DYLIB, BUNDLE = 1, 2, 6, 8
LC_SEGMENT, LC_SYMTAB, LC_DYSYMTAB, LC_LOAD_DYLIB, LC_ID_DYLIB = 0x1, 0x2, 0xB, 0xC, 0xD
LC_LOAD_DYLINKER, LC_SEGMENT_64, LC_UUID, LC_CODE_SIGNATURE = 0xE, 0x19, 0x1B, 0x1D
LC_VERSION_MIN_MACOSX, LC_FUNCTION_STARTS, LC_DATA_IN_CODE, LC_SOURCE_VERSION = 0x24, 0x26, 0x29, 0x2A
LC_BUILD_VERSION, LC_MAIN, LC_DYLD_INFO_ONLY = 0x32, 0x80000028, 0x80000022
LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS = 0x80000033, 0x80000034
DYLIBS = ("/usr/lib/libSystem.B.dylib", "/usr/lib/libc++.1.dylib", "/usr/lib/libobjc.A.dylib",
          "/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation",
          "/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation",
          "/usr/lib/libz.1.dylib", "/usr/lib/libiconv.2.dylib", "@rpath/libswiftCore.dylib")


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _code(rng: random.Random, arch: str, n: int) -> bytes:
    """``n``-ish bytes of instruction words common in compiled code of ``arch``."""
    out = bytearray()
    if arch == "arm64":
        fixed = [0xA9BF7BFD, 0x910003FD, 0xD65F03C0, 0xA8C17BFD, 0xD503201F, 0xAA0003F3,
                 0xF9400000, 0xB9400000, 0x52800000, 0xD10043FF, 0x910043FF, 0xAA1303E0]
        while len(out) < n:
            r = rng.random()
            if r < .4:
                w = rng.choice(fixed)
            elif r < .6:
                w = 0x94000000 | rng.getrandbits(26)  # bl
            elif r < .8:
                w = 0xF9400000 | rng.getrandbits(22)  # ldr x, [x, #imm]
            else:
                w = 0x90000000 | rng.getrandbits(29) & 0x1FFFFFFF  # adrp
            out += struct.pack("<I", w)
        return bytes(out)
    pieces = [b"\x55\x48\x89\xe5", b"\x5d\xc3", b"\x48\x83\xec\x10", b"\x48\x83\xc4\x10",
              b"\x0f\x1f\x44\x00\x00", b"\x31\xc0", b"\x48\x89\xc7", b"\x89\x7d\xfc", b"\xc3", b"\x90"]
    if arch == "i386":
        pieces = [b"\x55\x89\xe5", b"\x5d\xc3", b"\x83\xec\x18", b"\x89\x04\x24", b"\x31\xc0",
                  b"\x8b\x45\x08", b"\xc3", b"\x90"]
    while len(out) < n:
        r = rng.random()
        if r < .55:
            out += rng.choice(pieces)
        elif r < .75:
            out += b"\xe8" + struct.pack("<i", rng.randrange(-40000, 40000))  # call
        elif r < .9:
            out += b"\x48\x8d\x05" + struct.pack("<i", rng.randrange(0, 60000))  # lea rip-rel
        else:
            out += b"\x8b" + bytes([rng.getrandbits(8)]) + struct.pack("<b", rng.randrange(-64, 64))
    return bytes(out)


class _Writer:
    """Load commands of one image, for 32- or 64-bit."""

    def __init__(self, is64: bool) -> None:
        self.is64 = is64
        self.cmds: list[bytes] = []

    def add(self, cmd: int, body: bytes) -> None:
        size = _align(8 + len(body), 8 if self.is64 else 4)
        self.cmds.append(struct.pack("<II", cmd, size) + body.ljust(size - 8, b"\0"))

    def segment(self, name: str, vmaddr: int, vmsize: int, fileoff: int, filesize: int,
                maxprot: int, initprot: int, sections: list[tuple[str, int, int, int, int]],
                flags: int = 0) -> None:
        """``sections``: (name, addr, size, offset, flags)."""
        seg = name.encode()
        if self.is64:
            body = struct.pack("<16sQQQQiiII", seg, vmaddr, vmsize, fileoff, filesize, maxprot,
                               initprot, len(sections), flags)
            for sname, addr, size, off, sflags in sections:
                body += struct.pack("<16s16sQQIIIIIIII", sname.encode(), seg, addr, size, off,
                                    2 if "text" in sname else 0, 0, 0, sflags, 0, 0, 0)
            self.add(LC_SEGMENT_64, body)
        else:
            body = struct.pack("<16sIIIIiiII", seg, vmaddr, vmsize, fileoff, filesize, maxprot,
                               initprot, len(sections), flags)
            for sname, addr, size, off, sflags in sections:
                body += struct.pack("<16s16sIIIIIIIII", sname.encode(), seg, addr, size, off,
                                    2 if "text" in sname else 0, 0, 0, sflags, 0, 0)
            self.add(LC_SEGMENT, body)

    def size(self) -> int:
        return sum(len(c) for c in self.cmds)


def _nlist(is64: bool, strx: int, ntype: int, sect: int, value: int) -> bytes:
    return (struct.pack("<IBBHQ", strx, ntype, sect, 0, value) if is64
            else struct.pack("<IBBhI", strx, ntype, sect, 0, value & 0xFFFFFFFF))


def _signature_size(ident: str, nbytes: int, page: int) -> int:
    return 20 + 88 + len(ident) + 1 + 32 * _align(nbytes, page) // page


def _signature(ident: str, data: bytes, page: int) -> bytes:
    """An ad-hoc code-signature superblob over ``data``: one code directory (version 0x20400,
    linker-signed ad hoc) with a SHA-256 hash per page; ``_signature_size`` bytes long."""
    ident_b = ident.encode() + b"\0"
    hashes = b"".join(hashlib.sha256(data[i:i + page]).digest() for i in range(0, len(data), page))
    hdr = 88
    cd = struct.pack(">IIIIIIIIIBBBBI", 0xFADE0C02, hdr + len(ident_b) + len(hashes), 0x20400,
                     0x20002, hdr + len(ident_b), hdr, 0, len(hashes) // 32, len(data), 32, 2, 0,
                     page.bit_length() - 1, 0).ljust(hdr, b"\0") + ident_b + hashes
    return struct.pack(">IIIII", 0xFADE0CC0, 20 + len(cd), 1, 0, 20) + cd


def image(rng: random.Random, words: list[str], arch: str = "", filetype: int = 0) -> bytes:
    """One thin Mach-O of ``arch`` (random when empty) and ``filetype`` (object, executable,
    dylib or bundle; random when 0) with ``words`` in its strings and symbol names."""
    arch = arch or rng.choice(["x86_64", "arm64", "arm64", "i386"])
    cputype, subtype, page, is64 = ARCHS[arch]
    if arch == "arm64" and rng.random() < .2:
        subtype = 0x80000002  # arm64e
    filetype = filetype or rng.choice([OBJECT, EXECUTE, EXECUTE, DYLIB, BUNDLE])
    words = [w for w in words if w.isascii() and w.isalnum()] or ["main"]
    code = _code(rng, arch, rng.randrange(64, 6000))
    tails = ("", ": %s", " %d", "\n")
    cstr = b"".join((" ".join(rng.sample(words, min(len(words), rng.randrange(1, 6))))
                     + rng.choice(tails)).encode() + b"\0" for _ in range(rng.randrange(1, 25)))
    names = sorted({("_" + w.lower()) for w in rng.sample(words, min(len(words), rng.randrange(2, 12)))})
    names = ["_main" if filetype == EXECUTE else names[0], *names[1:]]
    strtab = b" \0" + b"".join(n.encode() + b"\0" for n in names)
    strx = [2 + sum(len(n) + 1 for n in names[:i]) for i in range(len(names))]
    hsz = 32 if is64 else 28
    build = struct.pack("<IIII", 1 if arch != "arm64" or rng.random() < .7 else 2,
                        rng.choice([0x0A0F00, 0x0B0000, 0x0C0000, 0x0D0000, 0x0E0000]),
                        rng.choice([0x0D0300, 0x0E0000, 0x0E0200, 0x0F0000]), 1) + \
        struct.pack("<II", 3, rng.choice([0x03A50000, 0x04640000, 0x0478050E]))
    if filetype == OBJECT:
        w = _Writer(is64)
        nsect_sizes = [("__text", len(code), 0x80000400), ("__cstring", len(cstr), 2)]
        # sizes of the commands to come, to know where the sections start
        cmds_size = (72 + 80 * 2 if is64 else 56 + 68 * 2) + 24 + 24 + 80
        off = hsz + cmds_size
        secs, data, addr = [], b"", 0
        for name, size, fl in nsect_sizes:
            secs.append((name, addr, size, off + len(data), fl))
            data += code if name == "__text" else cstr
            addr += size
        w.segment("", 0, len(data), off, len(data), 7, 7, secs)
        w.add(LC_BUILD_VERSION, build)
        relocs = b"".join(struct.pack("<iI", rng.randrange(0, max(1, len(code) - 4)) & ~3,
                                      (rng.randrange(len(names)) | 0x6D000000))
                          for _ in range(rng.randrange(0, 12)))
        symoff = off + len(data) + len(relocs)
        syms = b"".join(_nlist(is64, strx[i], 0x0F, 1, rng.randrange(len(code))) for i in range(len(names)))
        w.add(LC_SYMTAB, struct.pack("<IIII", symoff, len(names), symoff + len(syms), len(strtab)))
        w.add(LC_DYSYMTAB, struct.pack("<18I", 0, 0, 0, len(names), len(names), 0, *[0] * 12))
        hdr = struct.pack("<IIIIIII", 0xFEEDFACF if is64 else 0xFEEDFACE, cputype, subtype, OBJECT,
                          len(w.cmds), w.size(), 0x2000) + (b"\0" * 4 if is64 else b"")
        return hdr + b"".join(w.cmds) + data + relocs + syms + strtab

    base = 0x100000000 if is64 and filetype == EXECUTE else 0
    w = _Writer(is64)
    dyld = rng.sample(DYLIBS[1:], rng.randrange(0, 4))
    ncmds_guess = 2048  # room for the commands; the code sits at the end of __TEXT's pages
    text_size = _align(hsz + ncmds_guess + len(code) + len(cstr), page)
    text_off = text_size - len(code) - len(cstr)
    data_size = page
    link_off = text_size + data_size
    fixups = bytes(rng.getrandbits(8) for _ in range(rng.randrange(48, 400)))
    starts = bytes(rng.randrange(1, 128) for _ in range(rng.randrange(2, 40))) + b"\0"
    starts = starts.ljust(_align(len(starts), 8), b"\0")
    syms = b"".join(_nlist(is64, strx[i], 0x0F, 1, base + text_off + rng.randrange(len(code)))
                    for i in range(len(names)))
    link = fixups + starts + syms + strtab
    link = link.ljust(_align(len(link), 16), b"\0")
    sig_off = link_off + len(link)
    signed = arch == "arm64" or rng.random() < .3
    ident = names[0].lstrip("_") or "a.out"
    sig_size = _signature_size(ident, sig_off, 4096) if signed else 0
    if filetype == EXECUTE and is64:
        w.segment("__PAGEZERO", 0, base, 0, 0, 0, 0, [])
    w.segment("__TEXT", base, text_size, 0, text_size, 5, 5,
              [("__text", base + text_off, len(code), text_off, 0x80000400),
               ("__cstring", base + text_off + len(code), len(cstr), text_off + len(code), 2)])
    w.segment("__DATA_CONST" if is64 else "__DATA", base + text_size, data_size, text_size,
              data_size, 3, 3, [("__got" if is64 else "__data", base + text_size, 8 * len(dyld) + 8,
                                 text_size, 6 if is64 else 0)], 0x10 if is64 else 0)
    w.segment("__LINKEDIT", base + link_off, _align(len(link) + sig_size, page), link_off,
              len(link) + sig_size, 1, 1, [])
    if is64:
        w.add(LC_DYLD_CHAINED_FIXUPS, struct.pack("<II", link_off, len(fixups) // 2))
        w.add(LC_DYLD_EXPORTS_TRIE, struct.pack("<II", link_off + len(fixups) // 2,
                                                len(fixups) - len(fixups) // 2))
    else:
        w.add(LC_DYLD_INFO_ONLY, struct.pack("<10I", link_off, 8, 0, 0, 0, 0, 0, 0,
                                             link_off + 8, len(fixups) - 8))
    symoff = link_off + len(fixups) + len(starts)
    w.add(LC_SYMTAB, struct.pack("<IIII", symoff, len(names), symoff + len(syms), len(strtab)))
    w.add(LC_DYSYMTAB, struct.pack("<18I", 0, 0, 0, len(names), len(names), 0, *[0] * 12))
    if filetype in (EXECUTE,):
        w.add(LC_LOAD_DYLINKER, struct.pack("<I", 12) + b"/usr/lib/dyld\0")
    w.add(LC_UUID, rng.randbytes(16))
    if is64:
        w.add(LC_BUILD_VERSION, build)
    else:
        w.add(LC_VERSION_MIN_MACOSX, struct.pack("<II", 0x0A0600 + rng.randrange(0, 8) * 0x100, 0x0A0C00))
    w.add(LC_SOURCE_VERSION, struct.pack("<Q", 0))
    if filetype == EXECUTE:
        w.add(LC_MAIN, struct.pack("<QQ", text_off, 0))
    if filetype == DYLIB:
        id_path = f"@rpath/lib{rng.choice(words).lower()}.dylib".encode() + b"\0"
        w.add(LC_ID_DYLIB, struct.pack("<IIII", 24, 2, 0x10000, 0x10000) + id_path)
    for path in ["/usr/lib/libSystem.B.dylib", *dyld]:
        w.add(LC_LOAD_DYLIB, struct.pack("<IIII", 24, 2, rng.choice([0x05470000, 0x0A0D0000, 0x04D20000]),
                                         0x10000) + path.encode() + b"\0")
    w.add(LC_FUNCTION_STARTS, struct.pack("<II", link_off + len(fixups), len(starts)))
    w.add(LC_DATA_IN_CODE, struct.pack("<II", link_off + len(fixups) + len(starts), 0))
    if signed:
        w.add(LC_CODE_SIGNATURE, struct.pack("<II", sig_off, sig_size))
    flags = {EXECUTE: 0x00200085, DYLIB: 0x00100085, BUNDLE: 0x00000085}[filetype]
    hdr = struct.pack("<IIIIIII", 0xFEEDFACF if is64 else 0xFEEDFACE, cputype, subtype, filetype,
                      len(w.cmds), w.size(), flags) + (b"\0" * 4 if is64 else b"")
    head = hdr + b"".join(w.cmds)
    if len(head) > text_off:  # more commands than the room left: one more page of __TEXT
        return image(rng, words, arch, filetype)
    got = b"".join(struct.pack("<Q" if is64 else "<I", rng.getrandbits(32) | (1 << 31))
                   for _ in range(len(dyld) + 1))
    body = (head.ljust(text_off, b"\0") + code + cstr + got.ljust(data_size, b"\0") + link)
    return body + (_signature(ident, body, 4096) if signed else b"")


def fat(rng: random.Random, words: list[str]) -> bytes:
    """A universal binary of two or three thin images of one file type (x86_64 + arm64, and
    sometimes i386), each slice aligned to 2^12 or 2^14 bytes."""
    filetype = rng.choice([EXECUTE, EXECUTE, DYLIB, BUNDLE])
    archs = ["x86_64", "arm64"] + (["i386"] if rng.random() < .2 else [])
    rng.shuffle(archs)
    slices = [(a, image(rng, words, a, filetype)) for a in archs]
    out = bytearray(struct.pack(">II", 0xCAFEBABE, len(slices)))
    off = 0x1000 if rng.random() < .5 else 0x4000
    table, blobs = [], bytearray()
    for a, data in slices:
        align = 14 if a == "arm64" else 12
        off = _align(off, 1 << align)
        cputype, subtype, _, _ = ARCHS[a]
        table.append(struct.pack(">IIIII", cputype, subtype, off, len(data), align))
        blobs += b"\0" * (off - (8 + 20 * len(slices)) - len(blobs)) + data
        off += len(data)
    out += b"".join(table) + blobs
    return bytes(out)
