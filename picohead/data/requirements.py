"""What a corpus build needs installed, and what is missing on this machine.

The content recipe makes office documents, fonts, archives, media and keys with real encoders
(``picohead.data.formats``): the ``[data]`` extra's Python packages and a few programs from apt.
Without one, the build skips that encoder's formats with a log line, and a reproduction quietly
trains on a different corpus. :func:`missing` lists what is absent so that ``picohead train
--recipe`` and ``picohead data build`` can refuse to start (exit 2, naming what to install) unless
told to go on without (``--allow-missing-encoders``).

What it does not do: install anything, or check versions (the README's install steps pin them).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass

# import name -> pip package (the [data] extra in pyproject.toml)
PYTHON_PACKAGES: dict[str, str] = {
    "PIL": "Pillow",
    "fontTools": "fonttools",
    "brotli": "brotli",
    "docx": "python-docx",
    "openpyxl": "openpyxl",
    "pptx": "python-pptx",
    "odf": "odfpy",
    "xlwt": "xlwt",
    "fpdf": "fpdf2",
    "cryptography": "cryptography",
    "mido": "mido",
    "lz4": "lz4",
    "cabarchive": "cabarchive",
    "ezdxf": "ezdxf",
}
# program -> apt package (the programs picohead.data.formats runs)
PROGRAMS: dict[str, str] = {
    "ffmpeg": "ffmpeg",
    "7z": "p7zip-full",
    "cpio": "cpio",
    "ar": "binutils",
    "zstd": "zstd",
    "gpg": "gnupg",
    "soffice": "libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui",
    "jar": "default-jdk-headless",
    "gcc": "gcc",
    "clzip": "clzip",
    "pdlzip": "pdlzip",
    "tarlz": "tarlz",
    # cross compilers for ELF files of other architectures (formats.ELF_TARGETS)
    "i686-linux-gnu-gcc": "gcc-i686-linux-gnu libc6-dev-i386-cross",
    "arm-linux-gnueabihf-gcc": "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross",
    "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
    "mips-linux-gnu-gcc": "gcc-mips-linux-gnu libc6-dev-mips-cross",
    "powerpc64le-linux-gnu-gcc": "gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross",
    "riscv64-linux-gnu-gcc": "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross",
    "s390x-linux-gnu-gcc": "gcc-s390x-linux-gnu libc6-dev-s390x-cross",
    # corpus v6's program-made formats (picohead.data.program_formats)
    "mkfs.exfat": "exfatprogs",
    "sfdisk": "fdisk",
    "gensquashfs": "squashfs-tools-ng",
    "nasm": "nasm",
    "x86_64-w64-mingw32-gcc": "gcc-mingw-w64-x86-64",
    "i686-w64-mingw32-gcc": "gcc-mingw-w64-i686",
    "gnuplot": "gnuplot-nox",
    "gs": "ghostscript",
    "cjxl": "libjxl-tools",
    "mpcenc": "musepack-tools",
    "oiiotool": "openimageio-tools",
    "pandoc": "pandoc",
}
# the filesystem makers live in sbin, which a user's PATH may lack
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
ALLOW_FLAG = "--allow-missing-encoders"


@dataclass(frozen=True)
class Missing:
    """What this machine lacks for a full corpus build."""

    python: tuple[str, ...] = ()  # pip package names
    programs: tuple[str, ...] = ()  # program names

    def __bool__(self) -> bool:
        return bool(self.python or self.programs)

    def message(self) -> str:
        """One line naming what is missing and the commands that install it."""
        parts = []
        if self.python:
            parts.append(f'Python packages {", ".join(self.python)} (pip install -e ".[data]")')
        if self.programs:
            apt = sorted({PROGRAMS[p] for p in self.programs})
            parts.append(f"programs {', '.join(self.programs)} (apt-get install {' '.join(apt)})")
        return (
            "the corpus build would skip the formats of missing encoders: "
            + "; ".join(parts)
            + f"; install them, or pass {ALLOW_FLAG} to build without those formats"
        )


def missing() -> Missing:
    """The ``[data]`` packages and encoder programs not found on this machine."""
    python = tuple(
        pkg for mod, pkg in PYTHON_PACKAGES.items() if importlib.util.find_spec(mod) is None
    )
    programs = tuple(p for p in PROGRAMS if shutil.which(p, path=SEARCH_PATH) is None)
    return Missing(python=python, programs=programs)
