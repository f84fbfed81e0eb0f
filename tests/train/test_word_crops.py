"""Word crops (TrainConfig.word_crop_prob): text rows cut to one to five whole words, the inputs
most of the wild suite's text is, with only the language heads left labelled."""

from __future__ import annotations

import numpy as np
import torch

from picohead.train import TrainConfig, word_crop_batch, word_excerpt
from picohead_runtime.windows import batch_windows

GERMAN = "Das ist ein ganz normaler deutscher Satz über das Wetter von morgen."
CHINESE = "这是一个完全正常的中文句子关于明天的天气情况"


def test_word_excerpts_are_whole_words_in_the_words_mix() -> None:
    rng = np.random.default_rng(0)
    words = GERMAN.rstrip(".").split()
    counts = []
    for _ in range(2000):
        out = word_excerpt(GERMAN.encode(), rng)
        assert out is not None
        got = out.decode("utf-8").rstrip(".").split()
        assert 1 <= len(got) <= 5
        # consecutive whole words of the text, never a word cut in half
        assert any(words[i : i + len(got)] == got for i in range(len(words)))
        counts.append(len(got))
    one = counts.count(1) / len(counts)
    two = counts.count(2) / len(counts)
    assert 0.35 < one < 0.45 and 0.25 < two < 0.35


def test_unspaced_script_is_cut_to_a_few_whole_characters() -> None:
    rng = np.random.default_rng(1)
    for _ in range(300):
        out = word_excerpt(CHINESE.encode(), rng)
        assert out is not None
        text = out.decode("utf-8")  # never a character cut in half
        assert 1 <= len(text) <= 8 and text in CHINESE


def test_no_word_gives_none() -> None:
    assert word_excerpt(b" \n\t ", np.random.default_rng(0)) is None


def test_word_crop_batch_cuts_text_rows_and_keeps_only_the_language_labels() -> None:
    wins = [GERMAN.encode() * 3, b"short text", GERMAN.encode() * 3, b"\x89PNG\r\n\x1a\n" + bytes(200)]
    x, lengths = batch_windows(wins)
    x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
    orig = x.clone()
    labels = (
        {"mime": np.array([1, 1, 1, 2]), "text_lang": np.array([3, 3, -1, -1]),
         "risk": np.zeros((4, 2))},
        {"mime": np.ones(4, dtype=bool), "text_lang": np.array([True, True, False, False]),
         "risk": np.ones(4, dtype=bool)},
    )
    changed = word_crop_batch(x, lengths, labels, TrainConfig(word_crop_prob=1.0),
                              np.random.default_rng(0))
    assert changed == 1  # row 1 is too short, rows 2 and 3 have no text language
    k = int(lengths[0])
    crop = bytes(x[0, :k].numpy()).decode("utf-8")
    assert 1 <= len(crop.split()) <= 5 and bool((x[0, k:] == 0).all())
    masks = labels[1]
    assert masks["text_lang"][0] and not masks["mime"][0] and not masks["risk"][0]
    for r in (1, 2, 3):
        assert torch.equal(x[r], orig[r]) and masks["mime"][r] and masks["risk"][r]


def test_word_crop_batch_relabels_risk_from_the_words() -> None:
    text = b"Write to anna.berg@example.org or call us. " * 4
    x, lengths = batch_windows([text])
    x, lengths = torch.from_numpy(x), torch.from_numpy(lengths)
    names = ("email", "phone")

    def relabel(excerpt: bytes, positive: list[str]) -> list[str]:
        return ["email"] if b"@" in excerpt else []

    seen = set()
    for seed in range(30):
        xb, lb = x.clone(), lengths.clone()
        lab = ({"text_lang": np.array([0]), "risk": np.array([[1.0, 0.0]])},
               {"text_lang": np.array([True]), "risk": np.array([True])})
        word_crop_batch(xb, lb, lab, TrainConfig(word_crop_prob=1.0), np.random.default_rng(seed),
                        {"risk": (relabel, names)})
        has = b"@" in bytes(xb[0, : int(lb[0])].numpy())
        assert lab[1]["risk"][0] and lab[0]["risk"][0, 0] == float(has)
        seen.add(has)
    assert seen == {True, False}
