"""A model folder may name its default tier in model.json; the bundled one does."""

import json

import pytest

from picohead_runtime.model import (
    DEFAULT_TIER,
    ModelError,
    default_model_dir,
    default_tier_note,
    folder_default_tier,
)


def test_folder_default_tier(tmp_path):
    assert folder_default_tier(tmp_path) == DEFAULT_TIER
    (tmp_path / "model.json").write_text(json.dumps({"default_tier": "base", "_note": "x"}))
    assert folder_default_tier(tmp_path) == "base"


@pytest.mark.parametrize("doc, match", [
    ("{broken", "not valid JSON"),
    ("[1]", "JSON object"),
    ('{"default_teir": "pro"}', "unknown key 'default_teir'"),
    ('{"default_tier": 3}', "default_tier must be"),
    ('{"tiers": "pro"}', "tiers must be"),
])
def test_a_bad_model_json_is_an_error_naming_the_file(tmp_path, doc, match):
    (tmp_path / "model.json").write_text(doc)
    with pytest.raises(ModelError, match=match) as e:
        folder_default_tier(tmp_path)
    assert "model.json" in str(e.value)
    assert match.split("'")[0] in default_tier_note(tmp_path)  # --help says so, no traceback


def test_bundled_default_tier_exists():
    folder = default_model_dir()
    tier = folder_default_tier(folder)
    assert (folder / f"{tier}.onnx").is_file()
