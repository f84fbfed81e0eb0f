"""benchmarks/wild_maps.py: the one MIME label space of the wild benchmark folds spellings of one
format together for truths and answers alike, and keeps different formats apart."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import wild_maps  # noqa: E402


def test_spellings_of_one_format_fold_and_parameters_are_dropped() -> None:
    assert wild_maps.canonical_mime("audio/x-wav") == "audio/wav"
    assert wild_maps.canonical_mime("Text/XML; charset=utf-8") == "application/xml"
    assert wild_maps.canonical_mime("image/x-portable-pixmap") == "image/x-portable-anymap"
    assert wild_maps.canonical_mime(None) is None


def test_xhtml_and_html_are_one_type_but_xml_stays_apart() -> None:
    # docutils writes XHTML 1.0 as .html and tidy -asxhtml writes HTML5-doctype XHTML as .xhtml:
    # either answer is right on either file, an XHTML answer on XML is not
    assert wild_maps.canonical_mime("application/xhtml+xml") == wild_maps.canonical_mime("text/html")
    assert wild_maps.canonical_mime("application/xhtml+xml") != wild_maps.canonical_mime("text/xml")


def test_every_synonym_points_at_a_name_that_is_not_itself_folded() -> None:
    # one step is enough: no chain a -> b -> c leaves two names for one format
    assert not [k for k, v in wild_maps.SYNONYMS.items() if v in wild_maps.SYNONYMS]
