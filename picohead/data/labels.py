"""How a fine label implies the coarse ones: code language -> coarse/subtype/mime, mime -> the rest.

One table per direction, so every sample gets coherent coarse/modality/subtype/mime labels from
the single fact an extractor knows (a code language, a text language, or a MIME type).
"""

from __future__ import annotations

# code_lang -> (subtype, mime). Everything in code_lang is coarse "code", modality "text".
MARKUP = {"html": "text/html", "xml": "application/xml", "markdown": "text/markdown", "tex": "text/plain"}
CONFIG = {"json": "application/json", "yaml": "application/yaml", "toml": "application/toml"}
BUILD = {"dockerfile": "text/plain", "makefile": "text/plain"}
SOURCE_MIME = {"css": "text/css", "javascript": "text/javascript"}


def code_labels(lang: str) -> dict[str, str]:
    """Labels for a text file written in code language ``lang``."""
    if lang in MARKUP:
        sub, mime = "markup", MARKUP[lang]
    elif lang in CONFIG:
        sub, mime = "config", CONFIG[lang]
    elif lang in BUILD:
        sub, mime = "build", BUILD[lang]
    else:
        sub, mime = "source", SOURCE_MIME.get(lang, "text/plain")
    return {"coarse": "code", "modality": "text", "subtype": sub, "mime": mime, "code_lang": lang}


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
}


def format_labels(mime: str, *, subtype: str | None = None, modality: str | None = None
                  ) -> dict[str, str]:
    """Labels for a file of format ``mime`` (``subtype``/``modality`` override the table)."""
    coarse, sub, mod = FORMATS[mime]
    return {"coarse": coarse, "modality": modality or mod, "subtype": subtype or sub, "mime": mime}
