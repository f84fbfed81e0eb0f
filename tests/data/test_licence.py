"""Licence dataset builder: DEP-5 parsing, label normalisation, cuts, dedup, split by package."""

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from picohead.cli import main
from picohead.data.licence import (
    Text,
    build_licence,
    cuts,
    harvest_upstream,
    licence_body,
    normalise,
    parse_dep5,
    signature_ok,
)
from picohead.dataset import load_manifest
from picohead_runtime.spec import ModelSpec

DEP5 = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: demo
# a comment line

Files: *
Copyright: 2020 Someone
License: GPL-2+

Files: lib/*
Copyright: 2019 Other
License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 .
 THE SOFTWARE IS PROVIDED "AS IS".

License: GPL-2+
 This program is free software; you can redistribute it and/or modify
 it under the terms of the GNU General Public License version 2.
 .
 On Debian systems, see /usr/share/common-licenses/GPL-2.
"""

MIT = "Permission is hereby granted, free of charge, to any person obtaining a copy\n" * 3
GPL2 = "GNU GENERAL PUBLIC LICENSE\n   Version 2, June 1991\n" + "Everyone is permitted.\n" * 40


def test_parse_dep5_bodies_and_package_licence():
    d = parse_dep5(DEP5)
    assert d is not None and d.files_star == "GPL-2+"
    names = [n for n, _ in d.bodies]
    assert names == ["Expat", "GPL-2+"]  # 'Files: *' has no body: no sample
    body = d.bodies[1][1]
    assert body.startswith("This program is free software;")
    assert "\n\nOn Debian systems" in body  # " ." became a blank line, indentation removed
    assert "License:" not in body  # the short name never leaks into the sample
    assert parse_dep5("This package was debianized by ...\n\nLicense: GPL\n") is None


def test_licence_body_keeps_deeper_indentation():
    name, body = licence_body("ISC\n   Permission to use\n .\n   more")
    assert name == "ISC" and body == "  Permission to use\n\n  more"


@pytest.mark.parametrize(
    "raw,want",
    [
        ("GPL-2+", "GPL-2"), ("GPL-2.0-or-later", "GPL-2"), ("gplv3", "GPL-3"),
        ("GPL-3.0-only", "GPL-3"), ("LGPL-2.1+", "LGPL-2.1"), ("LGPL-2.0+", "LGPL-2"),
        ("LGPL-3+", "LGPL-3"), ("AGPL-3+", "AGPL-3"), ("Expat", "MIT"), ("MIT", "MIT"),
        ("Apache-2", "Apache-2.0"), ("Apache-2.0", "Apache-2.0"), ("BSD-3-Clause", "BSD-3-clause"),
        ("bsd-2-clause", "BSD-2-clause"), ("MPL-2.0", "MPL-2.0"), ("zlib", "Zlib"),
        ("Artistic", "Artistic"), ("public-domain", "public-domain"), ("ISC", "ISC"),
        ("CC0-1.0", "CC0-1.0"), ("Vim", "Vim"),
    ],
)
def test_normalise(raw, want):
    assert normalise(raw) == (want, "")


@pytest.mark.parametrize(
    "raw,why",
    [
        ("GPL-2+ with OpenSSL exception", "exception variant"),
        ("GPL-1+ or Artistic", "compound expression"),
        ("MIT/X11", "compound expression"), ("Apache-2.0 and MIT", "compound expression"),
        ("other", "vague name"), ("GPL", "vague name"), ("BSD", "vague name"), ("", "empty"),
    ],
)
def test_normalise_drops(raw, why):
    assert normalise(raw) == (None, why)


def test_cuts_whole_then_head_cuts_on_line_ends():
    text = "".join(f"line {i:03d} of the licence text\n" for i in range(100))  # ~3 KB
    got = dict(cuts(text, [256, 1024, 4096]))
    assert list(got) == ["whole", "head256", "head1024"]  # 4096 > text: no cut
    assert got["whole"] == text
    assert len(got["head256"].encode()) <= 256 and text.startswith(got["head256"])
    assert got["head256"].endswith("text")  # cut on a line end


def test_signature_checks_upstream_files(tmp_path):
    assert signature_ok("MIT", MIT) and not signature_ok("Apache-2.0", MIT)
    assert signature_ok("GPL-2", GPL2) and not signature_ok("GPL-3", GPL2)
    assert not signature_ok("GPL-2", "GNU LESSER GENERAL PUBLIC LICENSE\nVersion 2.1, ...")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "LICENSE").write_text(MIT)
    (tmp_path / "pkg" / "COPYING").write_text(GPL2)  # declared MIT: this one is not kept
    (tmp_path / "pkg" / "license.py").write_text("x = 1")
    stats: Counter[str] = Counter()
    got = list(harvest_upstream(tmp_path, "MIT", group="npm:x", source="npm:x",
                                prov={"package": "x"}, depth=1, stats=stats))
    assert [t.prov["path"] for t in got] == ["pkg/LICENSE"] and got[0].name == "MIT"
    assert stats["upstream files: text lacks the declared licence's signature"] == 1


def _recipe(tmp_path, mins):
    r = tmp_path / "recipe"
    r.mkdir()
    (r / "recipe.json").write_text(json.dumps({
        "name": "t", "version": 1, "spec": "head.json",
        "settings": {"cuts": [256], "cap_per_group_label": 50, "cap_per_label": 1000,
                     "min_per_split": mins, "train_groups": ["src:base-files"]}}))
    (r / "head.json").write_text(json.dumps(
        {"name": "licence", "labels": ["MIT", "GPL-2", "ISC", "Zlib"]}))
    return r


def _texts():
    texts = []
    for i in range(40):  # 40 packages, two licences each, one text shared by all (dedup)
        g = f"src:p{i:02d}"
        for name, body in (("Expat", f"MIT text of package {i}\n" + MIT),
                           ("GPL-2+", f"GPL notice {i}: version 2 of the License\n" * 3),
                           ("GPL-2+", "the very same notice in every package, long enough")):
            texts.append(Text(name, body, g, f"deb:p{i:02d}-bin",
                              {"package": f"p{i:02d}-bin", "kind": "deb", "version": "1",
                               "licence": "GPL-2+", "path": "usr/share/doc/x/copyright",
                               "origin": "dep5"}))
    texts.append(Text("ISC", "Permission to use, copy, modify ... ISC", "src:p00", "deb:p00-bin",
                      {"package": "p00-bin", "origin": "dep5"}))
    texts.append(Text("GPL-2", GPL2, "src:base-files", "deb:base-files",
                      {"package": "base-files", "origin": "common-licenses"}))
    return texts


def test_build_splits_by_package_dedups_and_drops_thin_labels(tmp_path):
    out = tmp_path / "out"
    card = build_licence(out, tmp_path / "cache", recipe=str(_recipe(
        tmp_path, {"train": 5, "val": 2, "test": 2})), texts=_texts())
    assert list(card["labels"]) == ["MIT", "GPL-2"]
    assert "ISC" in card["dropped_labels"] and "Zlib" in card["dropped_labels"]
    head = json.loads((out / "head.json").read_text())
    assert head["labels"] == ["MIT", "GPL-2"]
    spec = ModelSpec.from_dict({"name": "t", "heads": [head]})
    prov = [json.loads(x) for x in (out / "provenance.jsonl").read_text().splitlines()]
    split_of_group: dict[str, set[str]] = {}
    for p in prov:
        split_of_group.setdefault(p["group"], set()).add(p["split"])
        assert {"package", "origin", "cut", "group", "label"} <= set(p)
        if p["package"] != "p00-bin" or p["label"] != "ISC":
            assert {"version", "licence", "path"} <= set(p) or p["origin"] == "common-licenses"
    assert all(len(s) == 1 for s in split_of_group.values())  # a package is in one split
    assert split_of_group["src:base-files"] == {"train"}
    seen = set()
    for split in ("train", "val", "test"):
        data = load_manifest(out / f"{split}.jsonl", spec)
        assert len(data) == card["splits"][split] > 0
        for rec in (out / f"{split}.jsonl").read_text().splitlines():
            r = json.loads(rec)
            assert r["split"] == split and set(r) == {"id", "path", "labels", "source", "split"}
            text = " ".join((out / r["path"]).read_text().split())
            assert text not in seen  # no sample twice, in any split
            seen.add(text)
    # the shared notice is kept once; the long GPL text also gives a head cut
    assert sum("the very same notice" in t for t in seen) == 1
    assert {p["cut"] for p in prov if p["origin"] == "common-licenses"} == {"whole", "head256"}
    assert "# Licence dataset" in (out / "DATASET_CARD.md").read_text()


def test_cli_licence_offline_with_empty_cache(tmp_path):
    r = CliRunner().invoke(main, ["data", "licence", "--out", str(tmp_path / "o"), "--cache",
                                  str(tmp_path / "c"), "--recipe", str(_recipe(
                                      tmp_path, {"train": 1, "val": 1, "test": 1})),
                                  "--offline"])
    assert r.exit_code == 0, r.output
    assert "wrote 0 samples" in r.output
