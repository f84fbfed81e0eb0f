"""The MIME label of an ELF file, read from its header: the one definition the corpus and the wild
suite share.

``application/x-object`` is a relocatable file (ET_REL); ``application/x-executable`` is ET_EXEC,
or ET_DYN with a PT_INTERP program header (a PIE executable: newer ``file`` prints
``application/x-pie-executable`` for it); ``application/x-sharedlib`` is ET_DYN without PT_INTERP.
A file's path (``usr/bin`` against ``usr/lib``) does not decide it. Only the ELF header and the
program header table are read (both sit at the start of a file, inside a blob's kept head); core
dumps and other ELF types, and anything that is not well-formed ELF, get None.
"""
from __future__ import annotations

import struct

ELF_MIMES = frozenset({"application/x-object", "application/x-executable",
                       "application/x-sharedlib"})
_PT_INTERP = 3
_MAX_PHNUM = 256


def elf_mime(data: bytes) -> str | None:
    """One of ``ELF_MIMES`` for an ELF file's bytes, None when the header does not say."""
    if len(data) < 52 or not data.startswith(b"\x7fELF") or data[4] not in (1, 2) \
            or data[5] not in (1, 2):
        return None
    e = "<" if data[5] == 1 else ">"
    is64 = data[4] == 2
    (e_type,) = struct.unpack_from(e + "H", data, 16)
    if e_type == 1:
        return "application/x-object"
    if e_type == 2:
        return "application/x-executable"
    if e_type != 3:
        return None
    try:
        if is64:
            (phoff,) = struct.unpack_from(e + "Q", data, 32)
            phentsize, phnum = struct.unpack_from(e + "HH", data, 54)
        else:
            (phoff,) = struct.unpack_from(e + "I", data, 28)
            phentsize, phnum = struct.unpack_from(e + "HH", data, 42)
    except struct.error:
        return None
    # a program header cut off by the end of the data is not PT_INTERP
    interp = any(len(data) >= o + 4 and struct.unpack_from(e + "I", data, o)[0] == _PT_INTERP
                 for o in (phoff + i * phentsize for i in range(min(phnum, _MAX_PHNUM))))
    return "application/x-executable" if interp else "application/x-sharedlib"

