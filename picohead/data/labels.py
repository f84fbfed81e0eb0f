"""How a fine label implies the coarse ones: code language -> coarse/subtype/mime, mime -> the rest.

One table per direction, so every sample gets coherent coarse/modality/subtype/mime labels from
the single fact an extractor knows (a code language, a text language, or a MIME type).
"""

from __future__ import annotations

from picohead_runtime.windows import looks_text

# code_lang -> (subtype, mime). Everything in code_lang is coarse "code", modality "text".
# MIME names: what `file --mime-type` prints where it knows the language (text/x-c, text/x-c++,
# text/x-java, text/x-shellscript, text/x-perl, text/x-php, text/x-ruby, text/x-tex), otherwise the
# shared-mime-info name (text/x-csharp, text/x-haskell, application/sql, ...), otherwise Magika's
# (text/x-swift, text/x-julia, ...), otherwise text/x-<language>. benchmarks/wild_maps.py folds the
# other spellings of each (text/x-csrc, application/x-shellscript, text/rust, ...) onto these.
MARKUP = {"html": "text/html", "xml": "application/xml", "markdown": "text/markdown",
          "tex": "text/x-tex"}
CONFIG = {"json": "application/json", "yaml": "application/yaml", "toml": "application/toml"}
BUILD = {"dockerfile": "text/x-dockerfile", "makefile": "text/x-makefile"}
SOURCE_MIME = {
    "assembly": "text/x-asm", "c": "text/x-c", "cpp": "text/x-c++", "csharp": "text/x-csharp",
    "css": "text/css", "clojure": "text/x-clojure", "common_lisp": "text/x-common-lisp",
    "elixir": "text/x-elixir", "emacs_lisp": "text/x-emacs-lisp", "erlang": "text/x-erlang",
    "fortran": "text/x-fortran", "go": "text/x-go", "groovy": "text/x-groovy",
    "haskell": "text/x-haskell", "java": "text/x-java", "javascript": "text/javascript",
    "kotlin": "text/x-kotlin", "lua": "text/x-lua", "matlab": "text/x-matlab", "nim": "text/x-nim",
    "ocaml": "text/x-ocaml", "objective_c": "text/x-objcsrc", "php": "text/x-php",
    "perl": "text/x-perl", "powershell": "text/x-powershell", "prolog": "text/x-prolog",
    "python": "text/x-python", "r": "text/x-r", "racket": "text/x-racket", "ruby": "text/x-ruby",
    "rust": "text/x-rust", "sql": "application/sql", "scala": "text/x-scala",
    "scheme": "text/x-scheme", "shell": "text/x-shellscript", "swift": "text/x-swift",
    "tcl": "text/x-tcl", "typescript": "text/x-typescript", "zig": "text/x-zig",
    "pascal": "text/x-pascal", "ada": "text/x-adasrc", "vim_script": "text/x-vim",
    "dart": "text/x-dart", "fsharp": "text/x-fsharp", "julia": "text/x-julia",
    "vbnet": "text/x-vb"}


def code_mime(lang: str) -> str:
    """The MIME type of a file in code language ``lang`` (KeyError: a language without one)."""
    for table in (MARKUP, CONFIG, BUILD, SOURCE_MIME):
        if lang in table:
            return table[lang]
    raise KeyError(lang)


def code_labels(lang: str) -> dict[str, str]:
    """Labels for a text file written in code language ``lang``."""
    sub = ("markup" if lang in MARKUP else "config" if lang in CONFIG
           else "build" if lang in BUILD else "source")
    return {"coarse": "code", "modality": "text", "subtype": sub, "mime": code_mime(lang),
            "code_lang": lang}


def text_labels(lang: str) -> dict[str, str]:
    """Labels for natural-language prose in ``lang``."""
    return {"coarse": "text", "modality": "text", "subtype": "prose", "mime": "text/plain",
            "text_lang": lang}


# mime -> (coarse, subtype, modality) for file formats made by real encoders or taken from packages.
FORMATS: dict[str, tuple[str, str, str]] = {
    "image/png": ("image", "raster", "binary"),
    "image/jpeg": ("image", "raster", "binary"),
    "image/gif": ("image", "raster", "binary"),
    "image/webp": ("image", "raster", "binary"),
    "image/bmp": ("image", "raster", "binary"),
    "image/tiff": ("image", "raster", "binary"),
    "image/x-icon": ("image", "icon", "binary"),
    "image/svg+xml": ("image", "vector", "text"),
    "image/x-portable-anymap": ("image", "raster", "binary"),
    "image/x-tga": ("image", "raster", "binary"),
    "image/jp2": ("image", "raster", "binary"),
    "audio/mpeg": ("audio", "lossy_audio", "binary"),
    "audio/ogg": ("audio", "lossy_audio", "binary"),
    "audio/wav": ("audio", "lossless_audio", "binary"),
    "audio/flac": ("audio", "lossless_audio", "binary"),
    "audio/aac": ("audio", "lossy_audio", "binary"),
    "audio/mp4": ("audio", "lossy_audio", "binary"),
    "audio/aiff": ("audio", "lossless_audio", "binary"),
    "video/mp4": ("video", "video", "binary"),
    "video/webm": ("video", "video", "binary"),
    "video/x-matroska": ("video", "video", "binary"),
    "video/quicktime": ("video", "video", "binary"),
    "video/x-msvideo": ("video", "video", "binary"),
    "video/x-flv": ("video", "video", "binary"),
    "video/mpeg": ("video", "video", "binary"),
    "application/pdf": ("document", "pdf", "binary"),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
        ("document", "word_processing", "binary"),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":
        ("document", "spreadsheet", "binary"),
    "application/vnd.openxmlformats-officedocument.presentationml.presentation":
        ("document", "presentation", "binary"),
    "application/msword": ("document", "word_processing", "binary"),
    "application/vnd.ms-excel": ("document", "spreadsheet", "binary"),
    "application/vnd.ms-powerpoint": ("document", "presentation", "binary"),
    "application/rtf": ("document", "rich_text", "text"),
    "application/vnd.oasis.opendocument.text": ("document", "word_processing", "binary"),
    "application/vnd.oasis.opendocument.spreadsheet": ("document", "spreadsheet", "binary"),
    "application/vnd.oasis.opendocument.presentation": ("document", "presentation", "binary"),
    "application/zip": ("archive", "archive", "binary"),
    "application/x-tar": ("archive", "archive", "binary"),
    "application/gzip": ("archive", "compressed", "binary"),
    "application/x-bzip2": ("archive", "compressed", "binary"),
    "application/x-xz": ("archive", "compressed", "binary"),
    "application/zstd": ("archive", "compressed", "binary"),
    "application/x-7z-compressed": ("archive", "archive", "binary"),
    "application/x-cpio": ("archive", "archive", "binary"),
    "application/x-archive": ("archive", "archive", "binary"),
    "application/vnd.debian.binary-package": ("archive", "package", "binary"),
    "application/java-archive": ("archive", "package", "binary"),
    "application/x-executable": ("executable", "native", "binary"),
    "application/vnd.microsoft.portable-executable": ("executable", "native", "binary"),
    "application/x-python-bytecode": ("executable", "bytecode", "binary"),
    "application/java-vm": ("executable", "bytecode", "binary"),
    "application/wasm": ("executable", "bytecode", "binary"),
    "font/ttf": ("font", "font", "binary"),
    "font/otf": ("font", "font", "binary"),
    "font/woff": ("font", "font", "binary"),
    "font/woff2": ("font", "font", "binary"),
    "application/vnd.sqlite3": ("database", "database", "binary"),
    "application/x-pem-file": ("crypto", "key", "text"),
    "application/pkix-cert": ("crypto", "certificate", "binary"),
    "application/pgp-keys": ("crypto", "pgp", "binary"),
    # corpus v2 (issue 22): the types a Debian/Ubuntu system is full of, and more of the wild
    # suite's types; names as `file --mime-type` / shared-mime-info print them.
    "application/x-gettext-translation": ("document", "translation", "binary"),
    "text/x-po": ("document", "translation", "text"),
    "text/troff": ("document", "manual", "text"),
    "application/x-info": ("document", "manual", "text"),
    "text/x-texinfo": ("document", "manual", "text"),
    "application/postscript": ("document", "pdf", "text"),
    "text/csv": ("document", "data", "text"),
    "text/tab-separated-values": ("document", "data", "text"),
    "application/jsonl": ("document", "data", "text"),
    "application/geo+json": ("document", "data", "text"),
    "text/vcard": ("document", "data", "text"),
    "text/calendar": ("document", "data", "text"),
    "text/x-diff": ("document", "patch", "text"),
    "application/x-sharedlib": ("executable", "native", "binary"),
    "application/x-object": ("executable", "native", "binary"),
    "application/x-mach-binary": ("executable", "native", "binary"),
    "image/x-xpixmap": ("image", "raster", "text"),
    "image/x-xbitmap": ("image", "raster", "text"),
    "image/x-icns": ("image", "icon", "binary"),
    "image/x-pcx": ("image", "raster", "binary"),
    "image/x-sgi": ("image", "raster", "binary"),
    "image/svg+xml-compressed": ("image", "vector", "binary"),
    "application/x-font-type1": ("font", "font", "binary"),
    "application/zlib": ("archive", "compressed", "binary"),
    "application/x-bittorrent": ("document", "data", "binary"),
    "application/vnd.tcpdump.pcap": ("database", "database", "binary"),
    "application/x-compress": ("archive", "compressed", "binary"),
    "text/x-uuencode": ("archive", "compressed", "text"),
    "application/x-shar": ("archive", "archive", "text"),
    "image/x-sun-raster": ("image", "raster", "binary"),
    "image/vnd.wap.wbmp": ("image", "raster", "binary"),
    "image/vnd.radiance": ("image", "raster", "binary"),
    "audio/basic": ("audio", "lossless_audio", "binary"),
    "audio/x-voc": ("audio", "lossless_audio", "binary"),
    # corpus v3: types of the wild suite the head had no label for (12 % of its MIME files)
    "audio/midi": ("audio", "sequenced_audio", "binary"),
    "image/vnd.adobe.photoshop": ("image", "raster", "binary"),
    "image/avif": ("image", "raster", "binary"),
    "application/vnd.ms-fontobject": ("font", "font", "binary"),
    "image/x-xfig": ("image", "vector", "text"),
    "application/xhtml+xml": ("code", "markup", "text"),
    "video/x-ms-asf": ("video", "video", "binary"),
    "audio/x-wavpack": ("audio", "lossless_audio", "binary"),
    "audio/x-w64": ("audio", "lossless_audio", "binary"),
    "audio/x-caf": ("audio", "lossless_audio", "binary"),
    "video/3gpp": ("video", "video", "binary"),
    "application/x-lz4": ("archive", "compressed", "binary"),
    "application/x-lzip": ("archive", "compressed", "binary"),
    "application/vnd.android.package-archive": ("archive", "package", "binary"),
    "application/vnd.ms-cab-compressed": ("archive", "archive", "binary"),
    # corpus v6: types of the wild suite the head had no label for, written by programs the suite
    # does not run (picohead.data.program_formats)
    "application/x-raw-disk-image": ("archive", "archive", "binary"),
    "application/vnd.squashfs": ("archive", "archive", "binary"),
    "application/x-coff": ("executable", "native", "binary"),
    "application/vnd.hp-hpgl": ("document", "pdf", "text"),
    "application/vnd.hp-pcl": ("document", "pdf", "binary"),
    "video/x-ivf": ("video", "video", "binary"),
    "audio/x-rf64": ("audio", "lossless_audio", "binary"),
    "image/jxl": ("image", "raster", "binary"),
    "audio/x-musepack": ("audio", "lossy_audio", "binary"),
    "image/x-exr": ("image", "raster", "binary"),
    "image/vnd.dxf": ("image", "vector", "text"),
    "application/epub+zip": ("document", "word_processing", "binary"),
    "application/vnd.oasis.opendocument.text-flat-xml": ("document", "word_processing", "text"),
    "application/vnd.oasis.opendocument.spreadsheet-flat-xml": ("document", "spreadsheet", "text"),
    # corpus v6, real files only (benchmarks/real_formats_pick.py)
    "text/vnd.graphviz": ("document", "data", "text"),
    "model/vrml": ("document", "data", "text"),
    "image/x-win-bitmap": ("image", "icon", "binary"),
}


def format_labels(mime: str, *, subtype: str | None = None, modality: str | None = None
                  ) -> dict[str, str]:
    """Labels for a file of format ``mime`` (``subtype``/``modality`` override the table)."""
    coarse, sub, mod = FORMATS[mime]
    return {"coarse": coarse, "modality": modality or mod, "subtype": subtype or sub, "mime": mime}


# The generic answer of each MIME family, for a head that is unsure of the specific type
# (content-v8's fallbacks, picohead_runtime.spec.HeadSpec.fallbacks): a ZIP container is still a
# ZIP file, any text format is still text, any other binary is still bytes.
GENERIC_TEXT, GENERIC_BINARY, GENERIC_ZIP = "text/plain", "application/octet-stream", "application/zip"
ZIP_CONTAINERS = frozenset({
    "application/java-archive", "application/epub+zip", "application/vnd.android.package-archive",
    "application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.oasis.opendocument.presentation",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation"})
_CODE_MIMES = frozenset((*MARKUP.values(), *CONFIG.values(), *BUILD.values(),
                         *SOURCE_MIME.values()))


def generic_mime(mime: str | None) -> str | None:
    """The generic type of ``mime``'s family (``application/zip``, ``text/plain`` or
    ``application/octet-stream``); ``mime`` itself when it is a generic; None for a type this
    table does not know (its family cannot be told)."""
    if mime is None:
        return None
    if mime in (GENERIC_TEXT, GENERIC_BINARY, GENERIC_ZIP):
        return mime
    if mime in ZIP_CONTAINERS:
        return GENERIC_ZIP
    if mime in _CODE_MIMES or mime.startswith("text/"):
        return GENERIC_TEXT
    if mime in FORMATS:
        return GENERIC_TEXT if FORMATS[mime][2] == "text" else GENERIC_BINARY
    return None


def generic_of_bytes(data: bytes) -> str:
    """The generic type a file's own bytes show, for a type :func:`generic_mime` cannot place (the
    wild suite's HEIC, RAR, DXF, ...): ``application/zip`` for a ZIP local header at offset 0,
    ``text/plain`` for text (:func:`looks_text`), else ``application/octet-stream`` -- what
    ``file --mime-type`` falls back to for content it has no rule for. It reads no other magic
    numbers: it is no classifier."""
    if data.startswith(b"PK\x03\x04"):
        return GENERIC_ZIP
    return GENERIC_TEXT if looks_text(data) else GENERIC_BINARY


def short_input_labels(data: bytes) -> dict[str, str]:
    """Labels of a made-up 1-4-byte training input (``TrainConfig.short_labels``): text bytes
    (:func:`looks_text`) are coarse ``text``, modality ``text`` and ``text/plain``, as ``file``
    calls them; other bytes are only modality ``binary`` (no head has a generic binary type); an
    empty input gets no label. Subtype and the language heads stay unset: a few bytes tell none."""
    if not data:
        return {}
    if looks_text(data):
        return {"coarse": "text", "modality": "text", "mime": GENERIC_TEXT}
    return {"modality": "binary"}

