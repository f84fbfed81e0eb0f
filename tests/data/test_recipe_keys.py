"""Every corpus and licence recipe key is one the builder reads (issue 25): an unknown key fails,
naming the key and the file; "_comment"-style keys pass."""

from __future__ import annotations

import pytest


def _write_recipe(tmp_path, data):
    import json

    (tmp_path / "recipe.json").write_text(json.dumps(data))
    return tmp_path / "recipe.json"


ENTRY = {"kind": "deb", "name": "pkg", "version": None, "licence": "MIT",
         "take": [{"ext": [".py"], "code": "python"}]}


@pytest.mark.parametrize("data, where", [
    ({"sources": [ENTRY], "setings": {}}, "setings"),
    ({"sources": [ENTRY], "settings": {"cap_per_lable": 3}}, "settings.cap_per_lable"),
    ({"sources": [{**ENTRY, "unpack_inner": True}]}, r"sources\[0\]\.unpack_inner"),
    ({"sources": [{**ENTRY, "take": [{"ext": [".py"], "cdoe": "python"}]}]},
     r"sources\[0\]\.take\[0\]\.cdoe"),
    ({"sources": [{**ENTRY, "kind": "rpm"}]}, r"sources\[0\]\.kind"),
])
def test_recipe_rejects_unknown_keys_naming_key_and_file(tmp_path, data, where):
    from picohead.data.recipe import RecipeError, load_recipe

    _write_recipe(tmp_path, data)
    with pytest.raises(RecipeError, match=rf"recipe\.json: {where}"):
        load_recipe(str(tmp_path))


def test_recipe_comment_keys_and_the_shipped_recipes_load(tmp_path):
    from picohead.data.licence import load_head, load_licence_recipe
    from picohead.data.recipe import load_recipe

    _write_recipe(tmp_path, {"_comment": "why", "notes": ["n"],
                             "sources": [{**ENTRY, "_why": "a note on the entry"}]})
    assert load_recipe(str(tmp_path)).entries[0]["name"] == "pkg"
    assert len(load_recipe("content").entries) > 100
    root, rec = load_licence_recipe("licence")
    assert load_head(root, rec)["name"] == "licence"


@pytest.mark.parametrize("data, where", [
    ({"name": "t", "extras": []}, "extras"),
    ({"settings": {"cutz": [256]}}, "settings.cutz"),
    ({"extra": [{"kind": "deb", "name": "x", "take": []}]}, r"extra\[0\]\.take"),
])
def test_licence_recipe_rejects_unknown_keys(tmp_path, data, where):
    from picohead.data.licence import load_licence_recipe
    from picohead.data.recipe import RecipeError

    _write_recipe(tmp_path, data)
    with pytest.raises(RecipeError, match=rf"recipe\.json: {where}: unknown key"):
        load_licence_recipe(str(tmp_path))


def test_licence_head_file_rejects_unknown_keys(tmp_path):
    import json

    from picohead.data.licence import load_head
    from picohead.data.recipe import RecipeError

    (tmp_path / "head.json").write_text(json.dumps({"name": "licence", "labels": ["MIT"],
                                                    "lables": []}))
    with pytest.raises(RecipeError, match=r"head\.json: lables: unknown key"):
        load_head(tmp_path, {})


def test_recipe_include_files_add_entries_and_are_checked(tmp_path):
    import json

    from picohead.data.recipe import RecipeError, load_recipe

    _write_recipe(tmp_path, {"sources": [ENTRY], "include": ["more.json"], "notes": ["a"]})
    (tmp_path / "more.json").write_text(json.dumps(
        {"notes": ["b"], "sources": [{**ENTRY, "name": "pkg2"}]}))
    r = load_recipe(str(tmp_path))
    assert [e["name"] for e in r.entries] == ["pkg", "pkg2"]
    assert r.data["notes"] == ["a", "b"]
    (tmp_path / "more.json").write_text(json.dumps(
        {"sources": [{**ENTRY, "take": [{"ext": [".py"], "cdoe": "python"}]}]}))
    with pytest.raises(RecipeError, match=r"more\.json: sources\[0\]\.take\[0\]\.cdoe"):
        load_recipe(str(tmp_path))
    (tmp_path / "more.json").write_text(json.dumps({"sources": [], "extra": 1}))
    with pytest.raises(RecipeError, match=r"more\.json: extra: unknown key"):
        load_recipe(str(tmp_path))
    _write_recipe(tmp_path, {"sources": [ENTRY], "include": ["gone.json"]})
    with pytest.raises(RecipeError, match="gone.json"):
        load_recipe(str(tmp_path))
