"""Producer identity per sample, the per-producer cap and the breadth table (synthetic records)."""

from __future__ import annotations

from collections import Counter

from picohead.data.breadth import breadth, cap_producers, producer_of, under_floor


def _rec(i: int, source: str, **labels: str) -> dict:
    """A record; producer names end in letters (normalise takes a trailing version number off)."""
    return {"id": f"{source}-{i}", "source": source, "labels": dict(labels), "prov": {}}


def test_producer_is_the_project_across_ecosystems() -> None:
    assert producer_of(_rec(0, "deb:python3-pygments")) == producer_of(_rec(0, "pypi:Pygments"))
    assert producer_of(_rec(0, "debsrc:pygments")) == "pygments"
    assert producer_of(_rec(0, "risk:deb:python3-pygments")) == "pygments"  # the host's
    assert producer_of(_rec(0, "gen:images")) == "gen:images"
    assert producer_of(_rec(0, "git:someone/tool")) == "tool"
    r = _rec(0, "gen:av")
    r["prov"] = {"producer": "program:ffmpeg"}
    assert producer_of(r) == "program:ffmpeg"


def _shares(recs: list[dict], head: str, lab: str) -> Counter:
    return Counter(producer_of(r) for r in recs if r["labels"].get(head) == lab)


def test_cap_holds_for_every_fine_label() -> None:
    recs = [_rec(i, "deb:big", code_lang="go", mime="text/x-go") for i in range(500)]
    for p in range(11):
        recs += [_rec(i, f"pypi:small{chr(97 + p)}", code_lang="go", mime="text/x-go")
                 for i in range(20 + p)]
    kept, unmet = cap_producers(recs, 0.1)
    for head, lab in (("code_lang", "go"), ("mime", "text/x-go")):
        c = _shares(kept, head, lab)
        assert max(c.values()) <= 0.1 * sum(c.values()), c
        assert len(c) == 12  # capped, no producer dropped
    assert "code_lang=go" not in unmet
    assert len(kept) < len(recs)


def test_label_with_too_few_producers_keeps_its_data_and_is_flagged() -> None:
    recs = [_rec(i, "deb:only", code_lang="nim") for i in range(300)]
    recs += [_rec(i, "deb:other", code_lang="nim") for i in range(5)]
    kept, unmet = cap_producers(recs, 0.1)
    assert len(kept) == len(recs)
    assert unmet == {"code_lang=nim": 2}


def test_cap_never_leaves_a_label_under_keep_at_least() -> None:
    recs = [_rec(i, "deb:huge", code_lang="toml") for i in range(1000)]
    for p in range(10):
        recs += [_rec(i, f"npm:tiny{chr(97 + p)}", code_lang="toml") for i in range(2)]
    kept, unmet = cap_producers(recs, 0.1, keep_at_least=300)
    assert len(kept) >= 300 and "code_lang=toml" in unmet
    strict, _ = cap_producers(recs, 0.1)
    assert len(strict) < 40  # the share alone would leave 20 + 2


def test_exempt_records_are_neither_capped_nor_counted() -> None:
    recs = [_rec(i, "risk:deb:big", code_lang="go") for i in range(200)]
    recs += [_rec(i, f"deb:p{chr(97 + p)}", code_lang="go") for p in range(10) for i in range(5)]
    kept, _ = cap_producers(recs, 0.1, exempt=lambda r: r["source"].startswith("risk:"))
    assert len(kept) == len(recs)


def test_breadth_table_counts_producers_per_split_and_flags_floors() -> None:
    recs = []
    for p in range(25):
        for i, split in enumerate(("train", "train", "val", "test")):
            recs.append(dict(_rec(i, f"deb:p{chr(97 + p)}", code_lang="python"), split=split))
    for p in range(3):
        recs.append(dict(_rec(0, f"deb:q{chr(97 + p)}", text_lang="de"), split="train"))
    t = breadth(recs, floor=20, floor_large=50, large={"python"})
    row = t["code_lang"]["python"]
    assert row["samples"] == {"train": 50, "val": 25, "test": 25}
    assert row["producers"] == {"train": 25, "val": 25, "test": 25}
    assert row["producers_total"] == 25 and row["floor"] == 50 and row["under_floor"]
    assert row["top_share"] == 0.04 and not row["over_share"]
    assert t["text_lang"]["de"]["top_share"] == round(1 / 3, 4)
    assert set(under_floor(t)) == {"code_lang=python", "text_lang=de"}
    assert not breadth(recs, floor=20, floor_large=20, large={"python"})["code_lang"]["python"][
        "under_floor"]
