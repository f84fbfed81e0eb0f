"""Text-language samples for the wild suite: sentences, two-word snippets and single words.

Reads ``picohead/recipes/wild/text.json``::

    {"per_kind": 300, "seed": "...",
     "sources": [{"kind": "git", "repo": "UniversalDependencies/UD_German-PUD",
                  "commit": "<40 hex>", "paths": ["de_pud-ud-test.conllu"],
                  "licence": "CC-BY-SA-3.0", "lang": "de", "format": "conllu"}, ...]}

Entry fields: ``repo``/``commit``/``paths`` name files of a bare git mirror (read through
``picohead.data.gitmirror`` at the pinned commit; every path must exist), ``lang`` is the label,
``licence`` an SPDX-like name, ``format`` is ``conllu`` (Universal Dependencies: ``# text =``
lines, surface tokens with their UPOS, multiword-token ranges merged) or ``lines`` (one sentence
a line, untagged, e.g. LASER's Tatoeba test sets). ``per_kind`` is the number of samples wanted
per language and kind, ``seed`` the seed of every draw. Several entries may share a repository
(one producer, ``git:owner/name``).

Each sentence of a producer is used at most once: as a ``sentence`` sample, or as the source of
one ``two_words`` snippet (two adjacent word tokens, joined as the text writes them: with a space,
or without one in ja/zh/th), or of one ``one_word`` sample (UPOS not PUNCT/NUM/SYM/X/PROPN, letters
only, at least 3 characters, 2 in ja/ko/zh). Untagged (``lines``) tokens count as words when they
carry no punctuation and do not start with a capital (names); Japanese lines are cut into script
runs: katakana runs of 3 or more are words, and two adjacent runs of at most 4 characters (a kanji
stem and the kana after it, say) make a pair. Cleaning: whitespace normalised (and
Vietnamese VTB's tokenised punctuation spacing undone, its LBKT/RBKT sentences dropped); sentences
of fewer than 3 words (ja/zh under 6 characters, th under 10) or over 400 characters dropped, as
are sentences whose letters are under 85 % in the language's script and, for Latin-script
languages other than English, sentences that read as English (English-only function words).
Japanese samples must hold kana, Chinese ones none. A language's quota is shared evenly across its
producers (water-filling: a producer short of its share leaves the rest to the others), and no
text is taken twice.

What it does not do: fetch (the mirror folder must hold every pinned repository), read train
files (the test and dev files the recipe names), normalise Unicode, or tokenise unsegmented text
(Thai and Chinese words come from the treebanks' tokens).
"""

from __future__ import annotations

import json
import logging
import random
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from picohead.data.gitmirror import MirrorError, open_mirror
from picohead.wild.suite import StageWriter

log = logging.getLogger(__name__)

KINDS = ("sentence", "two_words", "one_word")
LANGS = ("ar", "bg", "bn", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "he", "hi", "hu",
         "id", "it", "ja", "ko", "nb", "nl", "pl", "pt", "ro", "ru", "sk", "sv", "th", "tr", "uk",
         "vi", "zh")
NO_SPACE = frozenset({"ja", "zh", "th"})
_LATIN = frozenset({"LATIN"})
SCRIPTS: dict[str, frozenset[str]] = {
    **{lang: _LATIN for lang in ("cs", "da", "de", "en", "es", "fi", "fr", "hu", "id", "it", "nb",
                                 "nl", "pl", "pt", "ro", "sk", "sv", "tr", "vi")},
    **{lang: frozenset({"CYRILLIC"}) for lang in ("bg", "ru", "uk")},
    "el": frozenset({"GREEK"}), "ar": frozenset({"ARABIC"}), "fa": frozenset({"ARABIC"}),
    "he": frozenset({"HEBREW"}), "hi": frozenset({"DEVANAGARI"}), "bn": frozenset({"BENGALI"}),
    "th": frozenset({"THAI"}), "ko": frozenset({"HANGUL"}),
    "ja": frozenset({"CJK", "HIRAGANA", "KATAKANA"}), "zh": frozenset({"CJK"}),
}
BAD_UPOS = frozenset({"PUNCT", "NUM", "SYM", "X"})
RUN = "RUN"  # a script run of unsegmented untagged text: a pair half, never a word
WORD_BAD_UPOS = BAD_UPOS | {"PROPN", RUN}
JA_RUN_MAX = 4
SCRIPT_SHARE = 0.85
MAX_SENTENCE_CHARS = 400
# Function words that are English and no other treebank language's (a cheap "this is English").
_ENGLISH = frozenset({"the", "and", "of", "that", "with", "was", "this", "from", "have", "they",
                      "which", "would", "there", "their", "been", "were", "what", "about",
                      "are", "you"})
# Names that dominate Tatoeba in caseless scripts (the capital-letter rule catches the others).
_TATOEBA_NAMES = frozenset({"টম", "টমের", "মেরি", "टॉम", "मैरी", "सामी", "سامي", "ليلى", "توم",
                            "ماري", "سامى", "لیلا"})
_JOINERS = frozenset({"\u200c", "\u200d"})  # ZWNJ/ZWJ inside Persian and Indic words
_WS = re.compile(r"\s+")
# UD_Vietnamese-VTB writes its text tokenised: a space before , . ; : ! ? ) and after (, and
# bracket placeholders.
_VI_BEFORE = re.compile(r" ([,.;:!?)\]])")
_VI_AFTER = re.compile(r"([(\[]) ")
_PLACEHOLDERS = ("LBKT", "RBKT")


@dataclass(frozen=True)
class Token:
    form: str
    upos: frozenset[str]  # empty for untagged text
    space_after: bool = True
    pair_ok: bool = True  # may be one half of a two-word snippet


@dataclass(frozen=True)
class Sentence:
    sent_id: str
    text: str
    tokens: tuple[Token, ...]


@dataclass(frozen=True)
class Sample:
    text: str
    kind: str
    sent_id: str
    path: str


def clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def clean_sentence(text: str, lang: str) -> str:
    """``clean``, and Vietnamese punctuation spacing undone; "" for a placeholder sentence."""
    t = clean(text)
    if lang == "vi":
        if any(p in t for p in _PLACEHOLDERS):
            return ""
        t = _VI_AFTER.sub(r"\1", _VI_BEFORE.sub(r"\1", t))
    return t


@lru_cache(maxsize=65536)
def script_of(ch: str) -> str | None:
    """The script word of a letter's Unicode name (``LATIN``, ``CJK``, ...); None if no letter."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    name = unicodedata.name(ch, "")
    if name.startswith(("KATAKANA", "HALFWIDTH KATAKANA")):
        return "KATAKANA"
    if name.startswith("FULLWIDTH LATIN"):
        return "LATIN"
    return name.split(" ", 1)[0] or None


def _has_kana(text: str) -> bool:
    return any(script_of(c) in ("HIRAGANA", "KATAKANA") for c in text)


def script_share(text: str, lang: str) -> float:
    """Share of the letters of ``text`` written in ``lang``'s script (0 when it has none)."""
    scripts = [s for s in map(script_of, text) if s is not None]
    if not scripts:
        return 0.0
    ok = SCRIPTS[lang]
    if lang == "ko":
        ok = ok | {"CJK"}
    return sum(s in ok for s in scripts) / len(scripts)


def _script_rule(text: str, lang: str) -> bool:
    if lang == "ja":
        return _has_kana(text)
    if lang == "zh":
        return not _has_kana(text)
    return True


def looks_english(text: str) -> bool:
    words = [w.strip(".,;:!?\"'()").lower() for w in text.split()]
    hits = sum(w in _ENGLISH for w in words)
    return hits >= 2 and hits >= 0.25 * len(words)


def sentence_ok(text: str, lang: str) -> bool:
    """A clean sentence (``clean`` applied) in the language's script, long enough, not English."""
    if not text or len(text) > MAX_SENTENCE_CHARS:
        return False
    if lang in NO_SPACE:
        if sum(script_of(c) is not None for c in text) < (10 if lang == "th" else 6):
            return False
    elif len(text.split()) < 3:
        return False
    if script_share(text, lang) < SCRIPT_SHARE or not _script_rule(text, lang):
        return False
    return not (SCRIPTS[lang] == _LATIN and lang != "en" and looks_english(text))


def is_letters(form: str, lang: str) -> bool:
    """Letters (and combining marks, and ZWNJ/ZWJ) of the language's script only."""
    if not form or form[0] in _JOINERS or form[-1] in _JOINERS:
        return False
    ok = SCRIPTS[lang]
    for c in form:
        cat = unicodedata.category(c)
        if cat.startswith("M") or c in _JOINERS:
            continue
        if not cat.startswith("L") or script_of(c) not in ok:
            return False
    return unicodedata.category(form[0]).startswith("L")


def min_word_len(lang: str) -> int:
    return 2 if lang in ("ja", "ko", "zh") else 3


def word_ok(tok: Token, lang: str, *, min_len: int | None = None, names: bool = False) -> bool:
    """A word token: no excluded UPOS (PROPN too unless ``names``), letters of the script only."""
    bad = BAD_UPOS if names else WORD_BAD_UPOS
    if tok.upos & bad:
        return False
    if len(tok.form) < (min_word_len(lang) if min_len is None else min_len):
        return False
    if not is_letters(tok.form, lang):
        return False
    if not tok.upos and not names:  # untagged: a capital or a known name marks a proper noun
        if tok.form[0].isupper() or tok.form in _TATOEBA_NAMES:
            return False
    return True


def words(s: Sentence, lang: str) -> list[str]:
    return [t.form for t in s.tokens if word_ok(t, lang) and _script_rule(t.form, lang)]


def pairs(s: Sentence, lang: str) -> list[str]:
    """Two adjacent word tokens as the sentence writes them (checked against its text)."""
    out = []
    text = clean(s.text)
    for a, b in zip(s.tokens, s.tokens[1:]):
        if not (a.pair_ok and b.pair_ok):
            continue
        if not (word_ok(a, lang, min_len=1, names=bool(a.upos))
                and word_ok(b, lang, min_len=1, names=bool(b.upos))):
            continue
        if lang in NO_SPACE:
            cands = [a.form + b.form, f"{a.form} {b.form}"]
            if not a.space_after:
                cands.reverse()
        else:
            if not a.space_after:
                continue
            cands = [f"{a.form} {b.form}"]
        pair = next((c for c in cands if c in text), None)
        if pair is None or sum(script_of(c) is not None for c in pair) < (3 if lang in NO_SPACE
                                                                           else 4):
            continue
        if _script_rule(pair, lang):
            out.append(pair)
    return out


def parse_conllu(text: str) -> Iterator[Sentence]:
    """Sentences of a CoNLL-U file: ``# text``, ``# sent_id`` and the surface tokens."""
    sent_id, stext = "", ""
    toks: list[list[Any]] = []  # [form, upos set, space_after, last word id covered]

    def flush() -> Sentence | None:
        if not stext:
            return None
        return Sentence(sent_id, stext, tuple(Token(f, frozenset(u), sp) for f, u, sp, _ in toks))

    for line in text.splitlines():
        if not line.strip():
            s = flush()
            if s is not None:
                yield s
            sent_id, stext, toks = "", "", []
            continue
        if line.startswith("#"):
            key, _, val = line[1:].partition("=")
            key = key.strip()
            if key == "sent_id":
                sent_id = val.strip()
            elif key == "text":
                stext = val.strip()
            continue
        cols = line.split("\t")
        if len(cols) < 10 or "." in cols[0]:
            continue
        space = "SpaceAfter=No" not in cols[9].split("|")
        if "-" in cols[0]:
            _, _, end = cols[0].partition("-")
            toks.append([cols[1], set(), space, int(end)])
            continue
        wid = int(cols[0])
        if toks and toks[-1][3] >= wid:
            toks[-1][1].add(cols[3])  # a word inside a multiword token
            continue
        toks.append([cols[1], {cols[3]}, space, wid])
    s = flush()
    if s is not None:
        yield s


def script_runs(text: str) -> list[tuple[str, str | None]]:
    """Maximal runs of one script (marks join the run before them); non-letters are runs of
    their own with script None."""
    runs: list[tuple[str, str | None]] = []
    for c in text:
        sc = script_of(c)
        if sc is None and unicodedata.category(c).startswith("M") and runs and runs[-1][1]:
            sc = runs[-1][1]
        if runs and runs[-1][1] == sc and sc is not None:
            runs[-1] = (runs[-1][0] + c, sc)
        else:
            runs.append((c, sc))
    return runs


def _ja_tokens(line: str) -> tuple[Token, ...]:
    """Script runs as tokens: katakana runs of 3 or more are words; kanji and kana runs of at most
    ``JA_RUN_MAX`` characters are pair halves (a kanji stem and its kana, roughly two tokens)."""
    toks = []
    for run, sc in script_runs(line):
        if sc is None:
            if not run.isspace():
                toks.append(Token(run, frozenset({"PUNCT"}), False))
            continue
        word = sc == "KATAKANA" and len(run) >= 3
        toks.append(Token(run, frozenset() if word else frozenset({RUN}), False,
                          pair_ok=len(run) <= JA_RUN_MAX))
    return tuple(toks)


def _is_punct(c: str) -> bool:
    return unicodedata.category(c)[0] in "PS"


def parse_lines(text: str, lang: str) -> Iterator[Sentence]:
    """One untagged sentence a line; tokens split at spaces (script runs for Japanese)."""
    for n, line in enumerate(text.splitlines(), 1):
        line = clean(line)
        if not line:
            continue
        if lang == "ja":
            toks = _ja_tokens(line)
        else:
            # a token with punctuation attached is no word and breaks adjacency
            toks = tuple(Token(t, frozenset({"PUNCT"}) if any(map(_is_punct, t)) else frozenset())
                         for t in line.split(" "))
        yield Sentence(f"line-{n}", line, toks)


def draw(sentences: Iterable[Sentence], lang: str, rng: random.Random, limit: int,
         seen: set[str], path_of: dict[str, str]) -> dict[str, list[Sample]]:
    """Up to ``limit`` samples of each kind, each sentence used at most once, in a seeded order;
    the kind that has fewest so far is tried first. ``seen`` holds texts already taken."""
    pool = list(sentences)
    rng.shuffle(pool)
    got: dict[str, list[Sample]] = {k: [] for k in KINDS}
    for s in pool:
        if all(len(v) >= limit for v in got.values()):
            break
        for kind in sorted(KINDS, key=lambda k: (len(got[k]), KINDS.index(k))):
            if len(got[kind]) >= limit:
                continue
            if kind == "sentence":
                t = clean_sentence(s.text, lang)
                cands = [t] if sentence_ok(t, lang) else []
            elif kind == "two_words":
                cands = pairs(s, lang)
            else:
                cands = words(s, lang)
            cands = [c for c in dict.fromkeys(cands) if c not in seen]
            if not cands:
                continue
            pick = cands[0] if kind == "sentence" else rng.choice(cands)
            seen.add(pick)
            got[kind].append(Sample(pick, kind, s.sent_id, path_of.get(s.sent_id, "")))
            break
    return got


def share(avail: dict[str, int], total: int) -> dict[str, int]:
    """Water-filling: an even share of ``total`` per producer, a short one's rest to the others."""
    take = dict.fromkeys(avail, 0)
    left = total
    while left > 0:
        open_ = sorted(p for p in avail if take[p] < avail[p])
        if not open_:
            break
        each = max(1, left // len(open_))
        for p in open_:
            if left <= 0:
                break
            n = min(each, avail[p] - take[p], left)
            take[p] += n
            left -= n
    return take


def recipe_path() -> Path:
    return Path(str(resources.files("picohead") / "recipes" / "wild" / "text.json"))


def load(entries: list[dict[str, Any]], mirrors: Path) -> dict[tuple[str, str], list[Any]]:
    """(lang, repo) -> [sentences, {sent_id: path}, commit, licence], read from the mirrors."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for e in entries:
        if e.get("kind") != "git":
            raise ValueError(f"text source {e.get('repo')}: only git entries are supported")
        lang, repo, fmt = e["lang"], e["repo"], e.get("format", "conllu")
        if lang not in SCRIPTS:
            raise ValueError(f"{repo}: unknown language {lang!r}")
        m = open_mirror(mirrors, repo)
        commit = m.resolve(e["commit"])
        files = {p: oid for p, oid, _ in m.files(commit, e["paths"])}
        missing = [p for p in e["paths"] if p not in files]
        if missing:
            raise MirrorError(f"{repo}@{commit[:12]}: no {', '.join(missing)}")
        g = groups.setdefault((lang, repo), [[], {}, commit, e["licence"]])
        if g[2] != commit:
            raise ValueError(f"{repo}: two commits pinned for {lang}")
        texts = dict(m.read([files[p] for p in e["paths"]]))
        for p in e["paths"]:
            text = texts[files[p]].decode("utf-8")
            sents = parse_conllu(text) if fmt == "conllu" else parse_lines(text, lang)
            for s in sents:
                s = Sentence(f"{p}#{s.sent_id}", s.text, s.tokens)
                g[0].append(s)
                g[1][s.sent_id] = p
    for g in groups.values():  # one copy of a sentence repeated within a producer
        uniq: dict[str, Sentence] = {}
        for s in g[0]:
            uniq.setdefault(clean(s.text), s)
        g[0] = list(uniq.values())
    return groups


def build(suite: Path, *, cache: Path, mirrors: Path, recipe: Path | None = None) -> Path:
    """Write ``.stages/text_lang.jsonl`` (and blobs) from the pinned sources; the stage path."""
    del cache  # git sources only; kept for the common builder signature
    cfg = json.loads((recipe or recipe_path()).read_text(encoding="utf-8"))
    per_kind = int(cfg.get("per_kind", 300))
    seed = str(cfg.get("seed", "picohead-wild-text"))
    by_group: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in cfg["sources"]:
        by_group[(e["lang"], e["repo"])].append(e)
    seen: set[str] = set()
    drawn: dict[tuple[str, str], dict[str, list[Sample]]] = {}
    meta: dict[tuple[str, str], tuple[str, str]] = {}
    w = StageWriter(suite, "text_lang")
    for key in sorted(by_group):  # one producer's sentences in memory at a time
        try:  # no mirror: skipped, counted against the build's --max-skipped as files' are
            open_mirror(mirrors, key[1])
        except MirrorError as err:
            log.warning("text_lang %s: git:%s skipped: %s", key[0], key[1], err)
            w.skip(f"git:{key[1]}", str(err))
            continue
        # a mirror without a pinned path is a recipe error and fails the builder
        sents, path_of, commit, licence = load(by_group[key], mirrors)[key]
        meta[key] = (commit, licence)
        rng = random.Random(f"{seed}:{key[0]}:{key[1]}")
        drawn[key] = draw(sents, key[0], rng, per_kind, seen, path_of)
    counts: Counter[tuple[str, str]] = Counter()
    by_lang: dict[str, list[str]] = defaultdict(list)
    for lang, repo in sorted(drawn):
        by_lang[lang].append(repo)
    for lang in sorted(by_lang):
        for kind in KINDS:
            avail = {r: len(drawn[(lang, r)][kind]) for r in by_lang[lang]}
            for repo, n in sorted(share(avail, per_kind).items()):
                commit, licence = meta[(lang, repo)]
                for smp in drawn[(lang, repo)][kind][:n]:
                    rec = w.add(smp.text.encode("utf-8"), lang, producer=f"git:{repo}",
                                licence=licence, path=smp.path, version=commit, kind=kind,
                                sent_id=smp.sent_id.split("#", 1)[-1])
                    counts[(lang, kind)] += rec is not None
    for lang in sorted(by_lang):
        row = ", ".join(f"{k} {counts[(lang, k)]}" for k in KINDS)
        log.info("text_lang %s: %s (%d producers)", lang, row, len(by_lang[lang]))
        short = [k for k in KINDS if counts[(lang, k)] < min(200, per_kind)]
        if short:
            log.warning("text_lang %s: under 200 %s", lang, ", ".join(short))
    return w.close()
