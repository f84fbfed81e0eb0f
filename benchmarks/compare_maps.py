"""Label mappings from each anchor's vocabulary to picohead's content spec, for benchmarks/compare.py.

Each anchor is scored only on the samples whose true label is one it can express (the image of its
map); an anchor answer with no mapping counts as wrong. The corpus labels code and prose by what
``picohead/data/labels.py`` says: every source file has MIME ``text/plain`` except CSS, JavaScript,
HTML, XML, Markdown, JSON, YAML and TOML, and Markdown/TeX/JSON/YAML/TOML/XML/HTML files are coarse
``code``. The maps follow those rules, so e.g. Magika's ``python`` is right for a ``text/plain`` file
labelled ``code_lang: python``.

What this does not do: run any tool (see ``compare_worker.py``) or score (``compare.py``).
"""

from __future__ import annotations

# -- Magika (standard_v3_3 labels) ------------------------------------------------------------------
# Binary formats and text formats with their own MIME in our spec.
MAGIKA_MIME: dict[str, str] = {
    "png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "bmp": "image/bmp", "tiff": "image/tiff", "ico": "image/x-icon", "svg": "image/svg+xml",
    "tga": "image/x-tga", "jp2": "image/jp2",
    "mp3": "audio/mpeg", "ogg": "audio/ogg", "wav": "audio/wav", "flac": "audio/flac",
    "mp4": "video/mp4", "webm": "video/webm", "mkv": "video/x-matroska", "qt": "video/quicktime",
    "flv": "video/x-flv",
    "pdf": "application/pdf", "ai": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "xlsb": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "doc": "application/msword", "xls": "application/vnd.ms-excel",
    "ppt": "application/vnd.ms-powerpoint", "rtf": "application/rtf",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odp": "application/vnd.oasis.opendocument.presentation",
    "zip": "application/zip", "xpi": "application/zip", "tar": "application/x-tar",
    "gzip": "application/gzip", "bzip": "application/x-bzip2", "xz": "application/x-xz",
    "sevenzip": "application/x-7z-compressed", "deb": "application/vnd.debian.binary-package",
    "jar": "application/java-archive",
    "elf": "application/x-executable", "pebin": "application/vnd.microsoft.portable-executable",
    "pythonbytecode": "application/x-python-bytecode", "javabytecode": "application/java-vm",
    "wasm": "application/wasm",
    "ttf": "font/ttf", "otf": "font/otf", "woff": "font/woff", "woff2": "font/woff2",
    "sqlite": "application/vnd.sqlite3", "pem": "application/x-pem-file",
    "crt": "application/pkix-cert",
    # corpus v3's types (wild_maps folds the same Magika labels onto them)
    "cab": "application/vnd.ms-cab-compressed", "midi": "audio/midi",
    "psd": "image/vnd.adobe.photoshop", "3gp": "video/3gpp",
    # text formats with a MIME of their own in our spec
    "html": "text/html", "css": "text/css", "javascript": "text/javascript",
    "scss": "text/css",  # lenient: plain CSS is valid SCSS, and Magika calls much CSS "scss"
    "json": "application/json", "jsonl": "application/json", "ipynb": "application/json",
    "xml": "application/xml", "vcxproj": "application/xml", "csproj": "application/xml",
    "rdf": "application/xml", "markdown": "text/markdown", "yaml": "application/yaml",
    "toml": "application/toml",
}
# Magika groups whose other labels are plain text in our spec (source code, prose, configs).
MAGIKA_TEXT_GROUPS = ("code", "text")
# Magika code labels whose name differs from our code_lang label (the rest are spelled alike)
MAGIKA_LANG = {"cs": "csharp", "vba": "vbnet", "objectivec": "objective_c", "asm": "assembly",
               "lisp": "common_lisp", "emacslisp": "emacs_lisp", "vim": "vim_script",
               "latex": "tex"}
# Magika labels that are coarse "code" in our spec although Magika files them under "text".
MAGIKA_CODE_TEXT = {"latex"}
COARSE_FROM_GROUP = {"image", "audio", "video", "archive", "executable", "font", "document"}


def magika_mime(label: str, group: str) -> str | None:
    """Our MIME label for a Magika answer (``None``: nothing in our spec)."""
    if label in MAGIKA_MIME:
        return MAGIKA_MIME[label]
    if group == "code":  # a language's own type since corpus v2 (picohead.data.labels.code_mime)
        from picohead.data.labels import code_mime

        try:
            return code_mime(MAGIKA_LANG.get(label, label))
        except KeyError:  # a language outside our code_lang labels
            return "text/plain"
    if group in MAGIKA_TEXT_GROUPS:
        return "text/plain"
    return None


def magika_coarse(label: str, group: str, formats: dict[str, tuple[str, str, str]]) -> str | None:
    """Our coarse label for a Magika answer; ``formats`` is picohead.data.labels.FORMATS."""
    mime = MAGIKA_MIME.get(label)
    if mime in formats:
        return formats[mime][0]
    if group == "code" or label in MAGIKA_CODE_TEXT or mime is not None:
        return "code"  # text formats with their own MIME (json, xml, ...) are code in our spec
    if group == "text":
        return "text"
    return group if group in COARSE_FROM_GROUP else None


def magika_shared(labels_groups: dict[str, str], formats: dict[str, tuple[str, str, str]]
                  ) -> tuple[set[str], set[str]]:
    """(our MIME labels, our coarse labels) that some Magika label maps onto."""
    mimes = {m for lab, g in labels_groups.items() if (m := magika_mime(lab, g))}
    coarse = {c for lab, g in labels_groups.items() if (c := magika_coarse(lab, g, formats))}
    return mimes, coarse


# -- natural languages: fastText lid.176 and langid.py --------------------------------------------
LANG_ALIASES = {"no": "nb", "iw": "he", "in": "id"}


def lang(code: str | None) -> str | None:
    """An ISO 639-1 answer in our spelling (Norwegian ``no`` is our ``nb``)."""
    if code is None:
        return None
    return LANG_ALIASES.get(code, code)


# -- code languages ---------------------------------------------------------------------------------
# Pygments lexer aliases -> our code_lang; the first alias of the guessed lexer found here wins.
PYGMENTS: dict[str, str] = {
    "c": "c", "cpp": "cpp", "csharp": "csharp", "css": "css", "clojure": "clojure",
    "common-lisp": "common_lisp", "dart": "dart", "elixir": "elixir", "emacs-lisp": "emacs_lisp",
    "erlang": "erlang", "fsharp": "fsharp", "fortran": "fortran", "fortranfixed": "fortran",
    "go": "go", "groovy": "groovy", "html": "html", "haskell": "haskell", "java": "java",
    "javascript": "javascript", "julia": "julia", "kotlin": "kotlin", "lua": "lua",
    "matlab": "matlab", "nim": "nim", "ocaml": "ocaml", "objective-c": "objective_c",
    "html+php": "php", "javascript+php": "php", "css+php": "php", "xml+php": "php", "php": "php", "perl": "perl", "powershell": "powershell",
    "prolog": "prolog", "python": "python", "python2": "python", "r": "r", "racket": "racket",
    "ruby": "ruby", "rust": "rust", "sql": "sql", "mysql": "sql", "postgresql": "sql",
    "plpgsql": "sql", "tsql": "sql", "sqlite3": "sql", "googlesql": "sql", "scala": "scala", "scheme": "scheme",
    "bash": "shell", "sh": "shell", "zsh": "shell", "swift": "swift", "tcl": "tcl",
    "typescript": "typescript", "vbnet": "vbnet", "zig": "zig", "delphi": "pascal",
    "pascal": "pascal", "ada": "ada", "vim": "vim_script", "tex": "tex", "latex": "tex",
    "json": "json", "yaml": "yaml", "toml": "toml", "xml": "xml", "markdown": "markdown",
    "docker": "dockerfile", "dockerfile": "dockerfile", "make": "makefile",
    "makefile": "makefile", "gas": "assembly", "nasm": "assembly", "tasm": "assembly",
    "ca65": "assembly", "armasm": "assembly",
}


def pygments_lang(aliases: list[str] | None) -> str | None:
    for a in aliases or ():
        if a in PYGMENTS:
            return PYGMENTS[a]
    return None


# @vscode/vscode-languagedetection (guesslang's 54 languages) -> our code_lang.
GUESSLANG: dict[str, str] = {
    "asm": "assembly", "c": "c", "cs": "csharp", "cpp": "cpp", "clj": "clojure", "css": "css",
    "dart": "dart", "dockerfile": "dockerfile", "erl": "erlang", "ex": "elixir", "f90": "fortran",
    "go": "go", "groovy": "groovy", "hs": "haskell", "html": "html", "java": "java",
    "jl": "julia", "js": "javascript", "json": "json", "kt": "kotlin", "lisp": "common_lisp",
    "lua": "lua", "makefile": "makefile", "matlab": "matlab", "md": "markdown", "ml": "ocaml",
    "mm": "objective_c", "pas": "pascal", "php": "php", "pl": "perl", "pm": "perl",
    "prolog": "prolog", "ps1": "powershell", "py": "python", "r": "r", "rb": "ruby",
    "rs": "rust", "scala": "scala", "sh": "shell", "sql": "sql", "swift": "swift", "tcl": "tcl",
    "tex": "tex", "toml": "toml", "ts": "typescript", "xml": "xml", "yaml": "yaml",
}

# -- risk flags: detect-secrets plugin secret types -> our risk labels -----------------------------
DETECT_SECRETS: dict[str, str] = {
    "Private Key": "private_key",
    "JSON Web Token": "jwt",
    "Secret Keyword": "password",
    "Basic Auth Credentials": "password",
    "Base64 High Entropy String": "api_key",
    "Hex High Entropy String": "api_key",
}
DETECT_SECRETS_ENTROPY = {"Base64 High Entropy String", "Hex High Entropy String"}
DETECT_SECRETS_IGNORED = {"IP Public Address"}  # no such flag in our spec
DETECT_SECRETS_SHARED = ("api_key", "jwt", "private_key", "password")  # no e-mail/phone plugins


def detect_secrets_flags(types: list[str], *, entropy: bool = True) -> list[str]:
    """Our risk labels for the secret types found in one file. Every provider-token plugin
    (AWS, GitHub, Slack, Stripe, ...) is an ``api_key``; ``entropy=False`` drops the two
    high-entropy plugins, the main source of false positives on hashes and UUIDs."""
    out = set()
    for t in types:
        if t in DETECT_SECRETS_IGNORED or (not entropy and t in DETECT_SECRETS_ENTROPY):
            continue
        out.add(DETECT_SECRETS.get(t, "api_key"))
    return sorted(out)
