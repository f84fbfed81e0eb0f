"""Short text from word lists (picohead.data.words through the harvest take rule "words")."""

from __future__ import annotations

import gzip
import json
import random
from collections import defaultdict
from pathlib import Path

import msgpack
import pytest

from picohead.data import words
from picohead.data.harvest import harvest
from picohead.data.recipe import RecipeError, check_recipe
from picohead.data.store import BlobStore

ROOT = Path(__file__).resolve().parents[2]
SPEC = json.loads((ROOT / "picohead/recipes/content/spec.json").read_text(encoding="utf-8"))
LABELS = {h["name"]: set(h["labels"]) for h in SPEC["heads"]}
DE_WORDS = ["Haus", "Baum", "gehen", "schön", "Straße", "Fenster", "laufen", "Wasser"]


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "usr/share/hunspell").mkdir(parents=True)
    dic = "8\n" + "\n".join(f"{w}/ABC" if i % 2 else f"{w}/XY\tst:{w}" for i, w in enumerate(DE_WORDS))
    (root / "usr/share/hunspell/de_DE.dic").write_text(dic + "\nКот/Q\n1234\n", encoding="utf-8")
    (root / "usr/share/dict").mkdir(parents=True)
    (root / "usr/share/dict/zh").write_text("中国 5 ns\n我们 3 r\n电脑 2 n\nabc 1 x\n", encoding="utf-8")
    packed = msgpack.packb([{"format": "cB", "version": 1}, ["の", "です"], ["東京", "日本語"]])
    (root / "large_ja.msgpack.gz").write_bytes(gzip.compress(packed))
    (root / "usr/share/dict/ru").write_bytes("дом\nкот\nмир\n".encode("koi8-r"))
    return root


def _entry(rules: list[dict]) -> dict:
    return {"kind": "deb", "name": "fake-dict", "version": "1.0", "licence": "GPL-2+",
            "take": rules}


def _run(tmp_path: Path, rules: list[dict]) -> tuple[list[dict], Path]:
    root = _tree(tmp_path)
    out = tmp_path / "out"
    recs = harvest(_entry(rules), root, "1.0", BlobStore(out), default_cap=800, cuts_per_file=0,
                   spec_labels=LABELS)
    return recs, out


def _text(out: Path, r: dict) -> str:
    return (out / r["path"]).read_text(encoding="utf-8")


def test_hunspell_flags_stripped_lengths_labels_provenance(tmp_path: Path) -> None:
    recs, out = _run(tmp_path, [{"words": {"lang": "de", "cap": 200}, "name": ["de_DE.dic"]}])
    assert 50 < len(recs) <= 200
    allowed = {w.lower() for w in DE_WORDS}
    counts: dict[int, int] = defaultdict(int)
    for r in recs:
        t = _text(out, r)
        assert "/" not in t and "\t" not in t and "st:" not in t and "Кот" not in t
        parts = t.rstrip(".!?").split(" ")
        assert 1 <= len(parts) <= 5
        assert {p.lower() for p in parts} <= allowed
        counts[len(parts)] += 1
        assert r["labels"]["text_lang"] == "de" and r["labels"]["text_lang"] in LABELS["text_lang"]
        for head, val in r["labels"].items():
            assert set(val if isinstance(val, list) else [val]) <= LABELS[head], (head, val)
        prov = r["prov"]
        assert prov["package"] == "fake-dict" and prov["version"] == "1.0"
        assert prov["licence"] == "GPL-2+" and prov["producer"] == "deb:fake-dict"
        assert len(prov["file_sha256"]) == 64 and prov["path"].endswith("de_DE.dic")
        assert r["group"] == "deb:fake-dict#de"  # split by producer, not by word
    # every length occurs (few one-word samples here: an 8-word list has few distinct ones)
    assert counts[1] > 0 and counts[2] > 0 and sum(counts[k] for k in (3, 4, 5)) > 0


def test_cjk_joined_without_spaces_and_ranked_list(tmp_path: Path) -> None:
    recs, out = _run(tmp_path, [{"words": {"lang": "zh", "cap": 30}, "name": ["zh"]},
                                {"words": {"lang": "ja", "cap": 30}, "name": ["large_ja.msgpack.gz"]}])
    zh = [_text(out, r) for r in recs if r["labels"]["text_lang"] == "zh"]
    ja = [r for r in recs if r["labels"]["text_lang"] == "ja"]
    assert zh and ja
    assert all(" " not in t and "abc" not in t for t in zh)
    assert any(len(t.rstrip("。")) >= 4 for t in zh)  # several words, joined as Chinese writes them
    assert all(" " not in _text(out, r) for r in ja) and all(r["prov"]["ranked"] for r in ja)


def test_encoding_option(tmp_path: Path) -> None:
    recs, out = _run(tmp_path, [{"words": {"lang": "ru", "encoding": "koi8-r", "cap": 10},
                                 "name": ["ru"]}])
    assert recs and all(set(_text(out, r).lower()) <= set("домктир .!?") for r in recs)


def test_word_order_helpers() -> None:
    assert words.hunspell_words("3\nab/X\nc\\/d/Y\nef\tpo:noun\n") == ["ab", "c/d", "ef"]
    rng = random.Random(0)
    n = [words.n_words(rng) for _ in range(4000)]
    assert set(n) == {1, 2, 3, 4, 5}
    assert 0.35 < n.count(1) / len(n) < 0.45 and 0.25 < n.count(2) / len(n) < 0.35


def test_rule_rejects_unknown_keys_and_languages(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="unknown key"):
        _run(tmp_path, [{"words": {"lang": "de", "flags": 1}, "name": ["de_DE.dic"]}])
    with pytest.raises(RecipeError, match="lang"):
        words.rule_options({"lang": "xx"})
    with pytest.raises(RecipeError, match="object"):
        words.rule_options("de")


def test_words_recipe_covers_every_text_language_twice() -> None:
    f = ROOT / "picohead/recipes/content/words.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    check_recipe({"sources": data["sources"]}, f)
    producers: dict[str, set[str]] = defaultdict(set)
    for e in data["sources"]:
        assert e.get("version") and e.get("licence")
        for rule in e["take"]:
            lang = words.rule_options(rule["words"])["lang"]
            producers[lang].add(f"{e['kind']}:{e['name']}")
    assert set(producers) == LABELS["text_lang"]
    assert all(len(p) >= 2 for p in producers.values()), producers
