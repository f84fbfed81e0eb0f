"""A model folder may name its default tier in model.json; the bundled one does."""

import json

from picohead_runtime.model import DEFAULT_TIER, default_model_dir, folder_default_tier


def test_folder_default_tier(tmp_path):
    assert folder_default_tier(tmp_path) == DEFAULT_TIER
    (tmp_path / "model.json").write_text(json.dumps({"default_tier": "base"}))
    assert folder_default_tier(tmp_path) == "base"
    (tmp_path / "model.json").write_text("{broken")
    assert folder_default_tier(tmp_path) == DEFAULT_TIER


def test_bundled_default_tier_exists():
    folder = default_model_dir()
    tier = folder_default_tier(folder)
    assert (folder / f"{tier}.onnx").is_file()
