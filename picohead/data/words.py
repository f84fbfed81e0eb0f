"""Short text: 1-5-word samples drawn from a language's word list, labelled with its text language.

A recipe take rule ``"words": {"lang": "de"}`` (optionally ``"encoding"``, ``"ranked"``,
``"cap"``) on a package entry reads each matched file as a word list and emits up to ``cap``
samples (default ``CAP``) of 1..5 words: 40 % one word, 30 % two, 30 % three to five, joined as the
language writes them (a space, nothing for zh/ja/th), sometimes with a capitalised first letter or a
trailing mark. Word lists it reads, by file name:

- ``*.dic`` -- a hunspell/myspell dictionary: the count line is skipped and affix flags
  (``word/ABC``) and morphological fields are stripped; stems only, affixes are not expanded;
- ``*.msgpack.gz`` -- a wordfreq ``cBpack`` list (words in bins of falling frequency), ranked;
- a ChaSen/ipadic ``.dic`` (S-expressions) -- its headwords (``見出し語``);
- anything else -- one entry per line, its first tab-, comma- or space-separated column
  (``/usr/share/dict`` word lists, ``word<TAB>count`` lists, dictd ``.index`` headwords).

A word counts only when it is written in the language's script (a Cyrillic word in a German list,
digits or markup are left out). Ranked lists (wordfreq, or a rule with ``"ranked": true``) draw
words biased to the frequent end; dictionaries draw uniformly. Every sample's group is its
producer and language, so the split keeps one dictionary package's words together. It does not
expand affix rules, segment text, or check that a word is not also a word of another language.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import re
from typing import Any

from picohead.data.labels import text_labels
from picohead.data.recipe import RecipeError
from picohead.data.risk import detect
from picohead.data.store import BlobStore

CAP = 600  # samples per (producer, language) unless the rule says otherwise
RULE_KEYS = frozenset({"lang", "encoding", "ranked", "cap"})
NO_SPACE = frozenset({"zh", "ja", "th"})
UNCASED = frozenset({"ar", "fa", "he", "hi", "bn", "ja", "ko", "th", "zh"})
MAX_WORD = 40
RANKED_TOP = 60000  # a ranked list is cut here before drawing

_LATIN = "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
_CYR = "\u0400-\u04ff"
_ARAB = "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff\u200c"
_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
SCRIPT = {
    **{lang: _LATIN for lang in ("cs", "da", "de", "en", "es", "fi", "fr", "hu", "id", "it", "nb",
                                 "nl", "pl", "pt", "ro", "sk", "sv", "tr", "vi")},
    "ar": _ARAB, "fa": _ARAB, "bg": _CYR, "ru": _CYR, "uk": _CYR + "\u02bc",
    "bn": "\u0980-\u09ff\u200c\u200d", "hi": "\u0900-\u097f\u200c\u200d",
    "el": "\u0370-\u03ff\u1f00-\u1fff", "he": "\u0590-\u05ff",
    "ja": _HAN + "\u3040-\u30ff\u30fc", "zh": _HAN, "ko": "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f",
    "th": "\u0e00-\u0e7f",
}
_WORD = {lang: re.compile(f"[{cs}]+(?:['\u2019\\-][{cs}]+)*") for lang, cs in SCRIPT.items()}
MARKS = {"ja": "。", "zh": "。"}


class WordsError(RecipeError):
    pass


def rule_options(value: Any) -> dict[str, Any]:
    """The checked ``words`` value of a take rule (unknown keys and languages are refused)."""
    if not isinstance(value, dict):
        raise WordsError(f"take rule 'words' must be an object with 'lang', got {value!r}")
    extra = sorted(set(value) - RULE_KEYS)
    if extra:
        raise WordsError(f"words.{extra[0]}: unknown key; allowed: {', '.join(sorted(RULE_KEYS))}")
    if value.get("lang") not in SCRIPT:
        raise WordsError(f"words.lang: {value.get('lang')!r} has no script table here")
    return value


def _decode(data: bytes, encoding: str | None) -> str:
    if encoding:
        return data.decode(encoding, "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start >= len(data) - 4:  # a read cut inside the last character
            return data[:e.start].decode("utf-8")
        return data.decode("latin-1")


def hunspell_words(text: str) -> list[str]:
    """The stems of a hunspell ``.dic``: count line skipped, ``/FLAGS`` and fields stripped."""
    out: list[str] = []
    lines = text.splitlines()
    if lines and lines[0].strip().isdigit():
        lines = lines[1:]
    for line in lines:
        if not line.strip() or line.startswith(("#", "\t")):
            continue
        entry = re.split(r"[\t ]", line.strip(), maxsplit=1)[0]
        entry = re.split(r"(?<!\\)/", entry, maxsplit=1)[0].replace("\\/", "/")
        if entry:
            out.append(entry)
    return out


def cbpack_words(data: bytes) -> list[str]:
    """Words of a wordfreq ``cBpack`` file (gzip'd msgpack: a header, then bins of falling
    frequency), most frequent first."""
    import msgpack  # only wordfreq lists need it

    packed = msgpack.unpackb(gzip.decompress(data), raw=False)
    if not packed or not isinstance(packed[0], dict) or packed[0].get("format") != "cB":
        raise WordsError("not a wordfreq cBpack list")
    return [w for bin_ in packed[1:] for w in bin_]


def chasen_words(text: str) -> list[str]:
    """The headwords (見出し語) of a ChaSen/ipadic ``.dic`` file."""
    return re.findall(r"\(見出し語 \(([^ ()]+)", text)


def _is_chasen(data: bytes) -> bool:
    return any("見出し語".encode(enc) in data[:4096] for enc in ("utf-8", "euc-jp"))


def line_words(text: str) -> list[str]:
    """The first tab-, comma- or space-separated column of every line."""
    out = []
    for line in text.splitlines():
        w = re.split(r"[\t, ]", line.strip(), maxsplit=1)[0].strip()
        if w and not w.startswith("#"):
            out.append(w)
    return out


def read_words(rel: str, data: bytes, lang: str, encoding: str | None = None) -> tuple[list[str], bool]:
    """(words in the language's script, in list order, without duplicates; whether ranked)."""
    base = rel.rsplit("/", 1)[-1]
    if base.endswith(".msgpack.gz"):
        raw, ranked = cbpack_words(data), True
    elif base.endswith(".dic") and not _is_chasen(data):
        raw, ranked = hunspell_words(_decode(data, encoding)), False
    else:
        if base.endswith(".gz"):
            data = gzip.decompress(data)
        text = _decode(data, encoding)
        raw = chasen_words(text) if _is_chasen(data) else line_words(text)
        ranked = False
    pat = _WORD[lang]
    seen: set[str] = set()
    out = []
    for w in raw:
        if len(w) <= MAX_WORD and pat.fullmatch(w) and w not in seen:
            seen.add(w)
            out.append(w)
    return out, ranked


def n_words(rng: random.Random) -> int:
    """1 (40 %), 2 (30 %) or 3..5 (30 %)."""
    x = rng.random()
    return 1 if x < 0.4 else 2 if x < 0.7 else rng.randint(3, 5)


def snippet(words: list[str], lang: str, rng: random.Random, ranked: bool) -> str:
    """One sample: 1..5 words of ``words`` joined as ``lang`` writes them."""
    k = n_words(rng)
    if ranked:  # biased to the frequent end, still reaching the tail
        picks = [words[int(len(words) * rng.random() ** 2.5)] for _ in range(k)]
    else:
        picks = [rng.choice(words) for _ in range(k)]
    s = ("" if lang in NO_SPACE else " ").join(picks)
    if lang not in UNCASED and rng.random() < 0.2:
        s = s[:1].upper() + s[1:]
    if k > 1 and rng.random() < 0.15:
        s += MARKS.get(lang, rng.choice(".!?"))
    return s


def records(rule: dict[str, Any], rel: str, data: bytes, rng: random.Random, store: BlobStore,
            source: str, prov: dict[str, Any]) -> list[dict[str, Any]]:
    """The short-text records of one word-list file (group: producer and language)."""
    opts = rule_options(rule["words"])
    lang = opts["lang"]
    words, ranked = read_words(rel, data, lang, opts.get("encoding"))
    ranked = bool(opts.get("ranked", ranked))
    if ranked:
        words = words[:RANKED_TOP]
    if not words:
        return []
    cap = int(opts.get("cap", CAP))
    group = f"{source}#{lang}"
    prov = dict(prov, producer=source, file_sha256=hashlib.sha256(data).hexdigest(),
                words=len(words), ranked=ranked)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _ in range(cap * 3):
        if len(out) >= cap:
            break
        s = snippet(words, lang, rng, ranked)
        if s in seen:
            continue
        seen.add(s)
        b = s.encode("utf-8")
        lab = dict(text_labels(lang), risk=detect(b))
        out.append(store.record(b, lab, source=source, group=group,
                                prov=prov))
    return out
