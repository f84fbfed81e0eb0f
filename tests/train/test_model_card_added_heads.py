"""Model card: the optional "Added heads" section from docs/*-head.md blocks."""

from picohead.model_card import ADDED_BEGIN, ADDED_END, added_heads_section, update_added_heads


def test_added_heads_section_and_update(tmp_path):
    (tmp_path / "docs").mkdir()
    assert added_heads_section(tmp_path) == []  # no docs, no section
    doc = tmp_path / "docs" / "licence-head.md"
    doc.write_text(f"# Licence head\n\nintro\n\n{ADDED_BEGIN}\n| tier | acc |\n|---|---|\n"
                   f"| pro | 69 % |\n{ADDED_END}\n\nmore\n")
    (tmp_path / "docs" / "other-head.md").write_text("# no block here\n")
    lines = added_heads_section(tmp_path)
    assert lines[1] == "## Added heads"
    assert "| pro | 69 % |" in "\n".join(lines) and "intro" not in "\n".join(lines)
    assert any("[docs/licence-head.md](docs/licence-head.md)" in x for x in lines)
    card = tmp_path / "MODEL_CARD.md"
    card.write_text("# Model card: content\n\n## Known failure modes\n\n- one\n")
    assert update_added_heads(card)
    text = card.read_text()
    assert text.startswith("# Model card: content") and text.count("## Added heads") == 1
    assert not update_added_heads(card)  # idempotent
    doc.write_text(doc.read_text().replace("69 %", "70 %"))
    assert update_added_heads(card)
    text = card.read_text()
    assert "70 %" in text and "69 %" not in text and "- one" in text
