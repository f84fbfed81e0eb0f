"""Imports run one way: ``picohead`` -> ``picohead_exporters`` -> ``picohead_runtime``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "picohead_runtime": (ROOT / "runtime" / "picohead_runtime", {"picohead", "picohead_exporters"}),
    "picohead_exporters": (ROOT / "exporters" / "picohead_exporters", {"picohead"}),
}


def _imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_a_package_never_imports_the_ones_above_it(package):
    root, above = LAYERS[package]
    bad = {
        str(p.relative_to(ROOT)): sorted(_imported(p) & above)
        for p in sorted(root.rglob("*.py"))
        if _imported(p) & above
    }
    assert not bad, f"{package} imports a package above it: {bad}"


def test_calibration_and_the_model_card_do_not_import_each_other():
    card = _modules(ROOT / "picohead" / "model_card.py")
    calibrate = _modules(ROOT / "picohead" / "calibrate.py")
    assert not ("picohead.model_card" in calibrate and "picohead.calibrate" in card)
    assert "picohead.model_card" not in calibrate


def _modules(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out
