"""The text-language wild source: CoNLL-U parsing, word and pair selection, cleaning, the quota
share, and ``build`` over a tiny bare git mirror (no network)."""

from __future__ import annotations

import json
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from picohead.data.producers import corpus_producers, is_reserved_key
from picohead.wild.sources import text as T
from picohead.wild.suite import read_jsonl

DE = """# sent_id = s1
# text = Wir gehen zum Bahnhof, sagte Anna.
1\tWir\twir\tPRON\t_\t_\t2\tnsubj\t_\t_
2\tgehen\tgehen\tVERB\t_\t_\t0\troot\t_\t_
3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_
3\tzu\tzu\tADP\t_\t_\t5\tcase\t_\t_
4\tdem\tder\tDET\t_\t_\t5\tdet\t_\t_
5\tBahnhof\tBahnhof\tNOUN\t_\t_\t2\tobl\t_\tSpaceAfter=No
6\t,\t,\tPUNCT\t_\t_\t7\tpunct\t_\t_
7\tsagte\tsagen\tVERB\t_\t_\t2\tparataxis\t_\t_
7.1\tsagte\tsagen\tVERB\t_\t_\t_\t_\t_\t_
8\tAnna\tAnna\tPROPN\t_\t_\t7\tnsubj\t_\tSpaceAfter=No
9\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""

JA = """# sent_id = j1
# text = 東京に行きました。
1\t東京\t東京\tPROPN\t_\t_\t3\tobl\t_\tSpaceAfter=No
2\tに\tに\tADP\t_\t_\t1\tcase\t_\tSpaceAfter=No
3\t行き\t行く\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
4\tました\tます\tAUX\t_\t_\t3\taux\t_\tSpaceAfter=No
5\t。\t。\tPUNCT\t_\t_\t3\tpunct\t_\tSpaceAfter=No

"""


def test_parse_conllu_merges_multiword_tokens_and_skips_empty_nodes() -> None:
    (s,) = list(T.parse_conllu(DE))
    assert s.sent_id == "s1" and s.text == "Wir gehen zum Bahnhof, sagte Anna."
    forms = [t.form for t in s.tokens]
    assert forms == ["Wir", "gehen", "zum", "Bahnhof", ",", "sagte", "Anna", "."]
    zum = s.tokens[2]
    assert zum.upos == {"ADP", "DET"} and zum.space_after
    assert not s.tokens[3].space_after


def test_words_exclude_propn_punct_and_short() -> None:
    (s,) = list(T.parse_conllu(DE))
    assert T.words(s, "de") == ["Wir", "gehen", "zum", "Bahnhof", "sagte"]


def test_pairs_are_adjacent_as_written() -> None:
    (s,) = list(T.parse_conllu(DE))
    # "Bahnhof," has a comma between it and "sagte"; "sagte Anna" keeps the name (pairs may)
    assert T.pairs(s, "de") == ["Wir gehen", "gehen zum", "zum Bahnhof", "sagte Anna"]


def test_japanese_pairs_join_without_space_and_need_kana() -> None:
    (s,) = list(T.parse_conllu(JA))
    assert T.pairs(s, "ja") == ["東京に", "に行き", "行きました"]
    assert T.words(s, "ja") == ["行き", "ました"]  # 東京 is PROPN, に too short
    assert T.words(s, "zh") == []  # kana is no Chinese


def test_sentence_ok_rules() -> None:
    assert T.sentence_ok("Wir gehen zum Bahnhof.", "de")
    assert not T.sentence_ok("Zwei Wörter", "de")
    assert not T.sentence_ok("This is the house that Jack built with them.", "de")
    assert T.sentence_ok("This is the house that Jack built.", "en")
    assert not T.sentence_ok("Мы идём на вокзал сегодня.", "de")
    assert T.sentence_ok("东京是日本的首都。", "zh")
    assert not T.sentence_ok("東京に行きました。", "zh")
    assert T.sentence_ok("東京に行きました。", "ja")
    assert not T.sentence_ok("東京", "ja")


def test_script_and_letters() -> None:
    assert T.is_letters("می\u200cکنند", "fa")
    assert T.is_letters("বাচ্চা", "bn")  # vowel signs and virama are marks
    assert not T.is_letters("abc1", "en")
    assert not T.is_letters("дом", "en")
    assert T.script_share("abc дом", "ru") == pytest.approx(0.5)


def test_vietnamese_sentence_spacing() -> None:
    assert T.clean_sentence("Theo chân ( cửu vạn ) , chúng tôi .", "vi") == \
        "Theo chân (cửu vạn), chúng tôi."
    assert T.clean_sentence("A LBKT b RBKT c", "vi") == ""
    assert T.clean_sentence("  a \t b  ", "fr") == "a b"


def test_parse_lines_marks_punctuation_and_names() -> None:
    (s,) = list(T.parse_lines("Tom sagte, dass er kommt.\n", "de"))
    assert T.words(s, "de") == ["dass"]  # Tom (capital), "sagte," and "kommt." carry more
    assert T.pairs(s, "de") == ["dass er"]
    (j,) = list(T.parse_lines("コンピューターを使う。\n", "ja"))
    assert T.words(j, "ja") == ["コンピューター"] and T.pairs(j, "ja") == []  # "を使" is short
    (k,) = list(T.parse_lines("東京に行きました。\n", "ja"))
    assert T.words(k, "ja") == [] and T.pairs(k, "ja") == ["東京に", "行きました"]


def test_share_waterfills() -> None:
    assert T.share({"a": 500, "b": 500}, 300) == {"a": 150, "b": 150}
    assert T.share({"a": 20, "b": 500}, 300) == {"a": 20, "b": 280}
    assert T.share({"a": 10, "b": 5}, 300) == {"a": 10, "b": 5}
    assert sum(T.share({"a": 400, "b": 400, "c": 400}, 300).values()) == 300


def test_draw_uses_each_sentence_once() -> None:
    sents = [T.Sentence(f"s{i}", f"Wir gehen heute {w} zum Bahnhof.",
                        tuple(T.Token(f, frozenset({"NOUN"})) for f in
                              ["Wir", "gehen", "heute", w, "zum", "Bahnhof"]))
             for i, w in enumerate(["schnell", "langsam", "gerne", "leise", "oft", "selten"])]
    got = T.draw(sents, "de", random.Random(1), 2, set(), {})
    assert {k: len(v) for k, v in got.items()} == {"sentence": 2, "two_words": 2, "one_word": 2}
    ids = [s.sent_id for v in got.values() for s in v]
    assert len(ids) == len(set(ids))


def test_recipe_producers_are_independent() -> None:
    cfg = json.loads(T.recipe_path().read_text(encoding="utf-8"))
    cp = corpus_producers()
    langs = Counter()
    for e in cfg["sources"]:
        key = f"git:{e['repo']}"
        assert not cp.owns(key) and not is_reserved_key(key), key
        assert len(e["commit"]) == 40 and e["paths"] and e["licence"]
        langs[e["lang"]] += 1
    assert set(langs) == set(T.LANGS) and len(T.LANGS) == 32
    assert min(langs.values()) >= 2


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def _mirror(tmp: Path, mirrors: Path, repo: str, files: dict[str, str]) -> str:
    work = tmp / "work" / repo.replace("/", "+")
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    for name, body in files.items():
        (work / name).write_text(body, encoding="utf-8")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "data")
    commit = _git(work, "rev-parse", "HEAD")
    _git(tmp, "clone", "-q", "--bare", str(work), str(mirrors / repo.replace("/", "+")))
    return commit


def _conllu(prefix: str, n: int) -> str:
    nouns = ["Haus", "Baum", "Hund", "Katze", "Stadt", "Wald", "Berg", "Fluss", "Weg", "Tisch",
             "Stuhl", "Buch"]
    out = []
    for i in range(n):
        a, b = nouns[i % len(nouns)], nouns[(i * 5 + 3) % len(nouns)]
        tag = prefix + "".join(chr(97 + int(d)) for d in str(i))  # letters only: 12 -> "bc"
        w = [("Das", "DET"), (a + tag, "NOUN"), ("sieht", "VERB"), ("den", "DET"), (b, "NOUN"),
             ("heute", "ADV")]
        text = " ".join(f for f, _ in w) + "."
        rows = [f"{j}\t{f}\t{f}\t{u}\t_\t_\t0\tdep\t_\t{'SpaceAfter=No' if j == len(w) else '_'}"
                for j, (f, u) in enumerate(w, 1)]
        rows.append(f"{len(w) + 1}\t.\t.\tPUNCT\t_\t_\t0\tpunct\t_\t_")
        out.append(f"# sent_id = {prefix}{i}\n# text = {text}\n" + "\n".join(rows) + "\n\n")
    return "".join(out)


def test_build_over_a_fake_mirror(tmp_path: Path) -> None:
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    c1 = _mirror(tmp_path, mirrors, "UniversalDependencies/UD_German-A",
                 {"de_a-ud-test.conllu": _conllu("a", 30), "README.md": "x"})
    c2 = _mirror(tmp_path, mirrors, "UniversalDependencies/UD_German-B",
                 {"de_b-ud-test.conllu": _conllu("b", 30)})
    lines = "\n".join(f"Ich lese heute {w} ein Buch." for w in
                      ["gern", "oft", "selten", "abends", "morgens", "wieder", "still", "laut"])
    c3 = _mirror(tmp_path, mirrors, "someone/tatoeba-lines", {"deu.txt": lines + "\n"})
    recipe = tmp_path / "text.json"
    recipe.write_text(json.dumps({"per_kind": 6, "seed": "t", "sources": [
        {"kind": "git", "repo": "UniversalDependencies/UD_German-A", "commit": c1,
         "paths": ["de_a-ud-test.conllu"], "licence": "CC-BY-SA-4.0", "lang": "de"},
        {"kind": "git", "repo": "UniversalDependencies/UD_German-B", "commit": c2,
         "paths": ["de_b-ud-test.conllu"], "licence": "CC-BY-SA-4.0", "lang": "de"},
        {"kind": "git", "repo": "someone/tatoeba-lines", "commit": c3, "paths": ["deu.txt"],
         "licence": "CC-BY-2.0-FR", "lang": "de", "format": "lines"},
    ]}), encoding="utf-8")
    suite = tmp_path / "suite"
    out = T.build(suite, cache=tmp_path / "cache", mirrors=mirrors, recipe=recipe)
    assert out == suite / ".stages" / "text_lang.jsonl"
    recs = list(read_jsonl(out))
    kinds = Counter(r["kind"] for r in recs)
    assert kinds == {"sentence": 6, "two_words": 6, "one_word": 6}
    assert {r["label"] for r in recs} == {"de"}
    per = Counter((r["producer"], r["kind"]) for r in recs)
    assert all(per[(p, k)] == 2 for p in {r["producer"] for r in recs} for k in kinds)
    used = Counter((r["producer"], r["prov"]["sent_id"]) for r in recs)
    assert max(used.values()) == 1  # a sentence gives one sample at most
    for r in recs:
        body = (suite / r["path"]).read_bytes().decode("utf-8")
        assert body == body.strip() and r["prov"]["version"] in (c1, c2, c3)
        if r["kind"] == "one_word":
            assert " " not in body and body.isalpha()
        if r["kind"] == "two_words":
            assert len(body.split(" ")) == 2
    again = T.build(tmp_path / "suite2", cache=tmp_path / "cache", mirrors=mirrors, recipe=recipe)
    assert [r["id"] for r in read_jsonl(again)] == [r["id"] for r in recs]  # deterministic


def test_build_fails_on_a_missing_path(tmp_path: Path) -> None:
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    c = _mirror(tmp_path, mirrors, "UniversalDependencies/UD_German-A", {"a.conllu": DE})
    recipe = tmp_path / "text.json"
    recipe.write_text(json.dumps({"sources": [
        {"kind": "git", "repo": "UniversalDependencies/UD_German-A", "commit": c,
         "paths": ["missing.conllu"], "licence": "x", "lang": "de"}]}), encoding="utf-8")
    with pytest.raises(T.MirrorError):
        T.build(tmp_path / "suite", cache=tmp_path, mirrors=mirrors, recipe=recipe)


def test_build_skips_a_source_without_a_mirror_and_says_so(tmp_path: Path) -> None:
    """A partly fetched mirror folder: the sources present are built, the absent one is a
    recorded skip (which ``wild.py build --max-skipped`` counts), not a failed builder."""
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    c = _mirror(tmp_path, mirrors, "UniversalDependencies/UD_German-A",
                {"a.conllu": _conllu("a", 30)})
    recipe = tmp_path / "text.json"
    recipe.write_text(json.dumps({"per_kind": 4, "seed": "t", "sources": [
        {"kind": "git", "repo": "UniversalDependencies/UD_German-A", "commit": c,
         "paths": ["a.conllu"], "licence": "x", "lang": "de"},
        {"kind": "git", "repo": "someone/absent", "commit": "0" * 40, "paths": ["b.conllu"],
         "licence": "x", "lang": "de"}]}), encoding="utf-8")
    out = T.build(tmp_path / "suite", cache=tmp_path, mirrors=mirrors, recipe=recipe)
    recs = list(read_jsonl(out))
    assert recs and {r["producer"] for r in recs} == {"git:UniversalDependencies/UD_German-A"}
    skipped = json.loads((out.parent / "text_lang.skipped.json").read_text())
    assert [s["producer"] for s in skipped] == ["git:someone/absent"]
