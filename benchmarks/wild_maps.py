"""One label space for the wild benchmark: every tool's MIME answer folded onto the suite's names.

The suite's MIME labels are the model's spelling where the model has the type and the
shared-mime-info / IANA name otherwise. ``canonical_mime`` folds synonyms that name the same format
(``audio/x-wav`` = ``audio/wav``), the netpbm family onto the model's one label
(``image/x-portable-anymap``) and XHTML onto HTML (see ``SYNONYMS``); it is applied to truths and
to every tool's answer alike, so a comparison is one table. Magika's labels map through its own knowledge base's MIME type, except
where ``compare_maps.MAGIKA_MIME`` already says what they are in our spec. Code and natural
languages reuse ``compare_maps``. This module is the published mapping (the README links it).

What it does not do: run tools or score.
"""

from __future__ import annotations

from typing import Any

import compare_maps

SYNONYMS: dict[str, str] = {
    "audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav",
    "audio/x-flac": "audio/flac", "audio/x-aiff": "audio/aiff", "audio/x-m4a": "audio/mp4",
    "audio/m4a": "audio/mp4", "audio/x-midi": "audio/midi", "audio/mp3": "audio/mpeg",
    "audio/x-mpeg": "audio/mpeg", "audio/x-hx-aac-adts": "audio/aac", "audio/x-aac": "audio/aac",
    "audio/x-ogg": "audio/ogg", "application/ogg": "audio/ogg", "audio/opus": "audio/ogg",
    "audio/x-opus+ogg": "audio/ogg", "audio/x-vorbis+ogg": "audio/ogg",
    "video/x-m4v": "video/mp4",
    "image/vnd.microsoft.icon": "image/x-icon", "image/x-ico": "image/x-icon",
    "image/x-win-bitmap": "image/x-icon", "image/x-ms-bmp": "image/bmp",
    "image/x-bmp": "image/bmp", "image/x-targa": "image/x-tga", "image/tga": "image/x-tga",
    "image/x-portable-bitmap": "image/x-portable-anymap",
    "image/x-portable-graymap": "image/x-portable-anymap",
    "image/x-portable-greymap": "image/x-portable-anymap",
    "image/x-portable-pixmap": "image/x-portable-anymap",
    "image/x-portable-arbitrarymap": "image/x-portable-anymap",
    "image/x-xpm": "image/x-xpixmap", "image/svg": "image/svg+xml", "image/jpg": "image/jpeg",
    "image/x-eps": "application/postscript", "application/eps": "application/postscript",
    "image/heif": "image/heic", "image/x-photoshop": "image/vnd.adobe.photoshop",
    "application/x-gzip": "application/gzip", "application/x-bzip": "application/x-bzip2",
    "application/x-zstd": "application/zstd", "application/x-zip-compressed": "application/zip",
    "application/x-zip": "application/zip", "application/x-rar-compressed": "application/x-rar",
    "application/vnd.rar": "application/x-rar", "application/x-7z": "application/x-7z-compressed",
    "application/x-gtar": "application/x-tar", "application/x-ustar": "application/x-tar",
    "application/x-debian-package": "application/vnd.debian.binary-package",
    "application/x-pie-executable": "application/x-executable",
    "application/x-elf": "application/x-executable",
    "application/x-dosexec": "application/vnd.microsoft.portable-executable",
    "application/x-msdownload": "application/vnd.microsoft.portable-executable",
    "application/x-java-applet": "application/java-vm",
    "application/x-java-vm": "application/java-vm",
    "application/x-bytecode.python": "application/x-python-bytecode",
    "application/x-java-archive": "application/java-archive",
    "font/sfnt": "font/ttf", "application/x-font-ttf": "font/ttf", "application/font-sfnt": "font/ttf",
    "application/x-font-truetype": "font/ttf", "application/vnd.ms-opentype": "font/otf",
    "application/x-font-otf": "font/otf", "application/font-woff": "font/woff",
    "application/x-sqlite3": "application/vnd.sqlite3",
    "application/x-x509-ca-cert": "application/pkix-cert",
    "application/x-pem": "application/x-pem-file", "text/xml": "application/xml",
    "application/x-yaml": "application/yaml", "text/yaml": "application/yaml",
    "text/x-yaml": "application/yaml", "application/x-toml": "application/toml",
    "text/x-toml": "application/toml", "text/x-markdown": "text/markdown",
    "application/javascript": "text/javascript", "application/x-javascript": "text/javascript",
    "text/x-vcard": "text/vcard", "text/directory": "text/vcard",
    "text/x-gettext-translation": "text/x-po", "application/x-po": "text/x-po",
    "application/x-troff-man": "text/troff", "text/x-troff": "text/troff",
    "application/x-troff": "text/troff", "text/x-patch": "text/x-diff",
    "application/x-cab": "application/vnd.ms-cab-compressed",
    "application/x-iso-image": "application/x-iso9660-image",
    "application/x-rtf": "application/rtf", "text/rtf": "application/rtf",
    "application/x-wasm": "application/wasm", "application/csv": "text/csv",
    "application/x-mach-o": "application/x-mach-binary",
    "application/x-mach-o-executable": "application/x-mach-binary",
    "text/gettext-translation": "text/x-po", "text/tsv": "text/tab-separated-values",
    "application/x-font-woff2": "font/woff2",
    # code and markup (issue 22): file / shared-mime-info / Magika spellings onto picohead's
    # (picohead.data.labels.code_mime)
    "text/x-csrc": "text/x-c", "text/x-chdr": "text/x-c", "text/x-c++src": "text/x-c++",
    "text/x-c++hdr": "text/x-c++", "text/x-script.python": "text/x-python",
    "text/x-python3": "text/x-python", "application/x-python-code": "application/x-python-bytecode",
    "application/x-shellscript": "text/x-shellscript", "text/x-sh": "text/x-shellscript",
    "text/rust": "text/x-rust", "application/x-rust": "text/x-rust",
    "text/x-golang": "text/x-go", "application/x-php": "text/x-php",
    "application/x-perl": "text/x-perl", "text/x-perl-script": "text/x-perl",
    "application/x-ruby": "text/x-ruby", "text/x-script.ruby": "text/x-ruby",
    "application/x-sql": "application/sql", "text/x-sql": "application/sql",
    "application/x-scala": "text/x-scala", "application/x-tcl": "text/x-tcl", "text/tcl": "text/x-tcl",
    "application/typescript": "text/x-typescript", "text/typescript": "text/x-typescript",
    "application/x-typescript": "text/x-typescript", "application/x-powershell": "text/x-powershell",
    "text/x-lisp": "text/x-common-lisp", "text-ocaml": "text/x-ocaml",
    "text/x-objective-c": "text/x-objcsrc", "text/x-java-source": "text/x-java",
    "application/x-java": "text/x-java", "text/zig": "text/x-zig", "text/x-ada": "text/x-adasrc",
    "text/x-latex": "text/x-tex", "application/x-tex": "text/x-tex", "application/x-latex": "text/x-tex",
    "text/x-script.perl": "text/x-perl", "text/x-vbnet": "text/x-vb",
    "text/x-vbdotnet": "text/x-vb",
    # file types (issue 22)
    "application/x-pie-executable-shared": "application/x-sharedlib",
    "application/x-ndjson": "application/jsonl", "application/x-jsonlines": "application/jsonl",
    "application/jsonlines": "application/jsonl",
    "image/x-xbm": "image/x-xbitmap",
    "image/x-sgi-rgb": "image/x-sgi", "image/sgi": "image/x-sgi", "image/x-rgb": "image/x-sgi",
    "image/x-cmu-raster": "image/x-sun-raster", "image/x-rgbe": "image/vnd.radiance",
    "image/x-hdr": "image/vnd.radiance", "image/vnd.microsoft.icns": "image/x-icns",
    "audio/x-au": "audio/basic", "audio/au": "audio/basic",
    "audio/x-unknown-voc": "audio/x-voc",
    "text/x-info": "application/x-info",
    "application/x-font-pfb": "application/x-font-type1",
    "application/x-mach-o-binary": "application/x-mach-binary",
    "application/x-tcpdump": "application/vnd.tcpdump.pcap", "application/x-pcap": "application/vnd.tcpdump.pcap",
    "application/x-uuencode": "text/x-uuencode", "text/x-uue": "text/x-uuencode",
    "application/x-compressed-tar": "application/gzip", "image/svg+xml-gz": "image/svg+xml-compressed",
    "text/x-vcalendar": "text/calendar", "text/x-csv": "text/csv", "text/comma-separated-values": "text/csv",
    # XHTML is scored as HTML (2026-12-07): the suite's producers say which by file name only.
    # docutils' rst2html writes .html files with an XML declaration, the XHTML 1.0 DOCTYPE and the
    # XHTML namespace (file: text/xml); tidy -asxhtml writes .xhtml files with the HTML5 DOCTYPE and
    # the same namespace (file: text/html). Magika has one label for both. Either answer is right on
    # either file; an XHTML answer on XML or any other type stays wrong.
    "application/xhtml+xml": "text/html",
}


def canonical_mime(m: str | None) -> str | None:
    if m is None:
        return None
    m = m.strip().lower().split(";", 1)[0]
    return SYNONYMS.get(m, m)


_KB: dict[str, dict[str, Any]] | None = None


def _magika_kb() -> dict[str, dict[str, Any]]:
    global _KB
    if _KB is None:
        import json
        from importlib import resources

        p = resources.files("magika") / "config" / "content_types_kb.min.json"
        _KB = json.loads(p.read_text(encoding="utf-8"))
    return _KB


def magika_mime(label: str) -> str | None:
    """The suite's MIME name for a Magika content-type label (None: it has none)."""
    if label in compare_maps.MAGIKA_MIME:
        return canonical_mime(compare_maps.MAGIKA_MIME[label])
    info = _magika_kb().get(label)
    if info is None or not info.get("mime_type") or info["mime_type"] == "application/octet-stream":
        return None
    return canonical_mime(info["mime_type"])


def magika_vocab() -> set[str]:
    """Every suite MIME name some Magika output label maps onto (standard_v3_3's output space)."""
    import json
    from importlib import resources

    models = resources.files("magika") / "models"
    labels: set[str] = set()
    for d in models.iterdir():
        cfg = d / "config.min.json"
        if cfg.is_file():
            labels |= set(json.loads(cfg.read_text(encoding="utf-8"))["target_labels_space"])
    return {m for lab in labels if (m := magika_mime(lab))}


def lang(code: str | None) -> str | None:
    return compare_maps.lang(code)


def pygments_lang(aliases: list[str] | None) -> str | None:
    return compare_maps.pygments_lang(aliases)


def guesslang_lang(answer: list[str] | None) -> str | None:
    return compare_maps.GUESSLANG.get(answer[0]) if answer else None


PYGMENTS_VOCAB = set(compare_maps.PYGMENTS.values())
GUESSLANG_VOCAB = set(compare_maps.GUESSLANG.values())
DETECT_SECRETS_FLAGS = compare_maps.DETECT_SECRETS_SHARED
detect_secrets_flags = compare_maps.detect_secrets_flags
