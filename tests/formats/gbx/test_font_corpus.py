"""CPlugFontBitmap (.Font.Gbx) of the corpus. No public source describes these chunks;
font.chunks was worked out from the bytes, so the checks here are the facts the files
store twice: the character ranges of 0904E004 cover their index table exactly, every
index names a glyph of 0904E009, and the glyphs carry the characters the ranges map."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats import gbx

pytestmark = pytest.mark.corpus


def fonts() -> list[tuple[str, gbx.Gbx]]:
    return [(row["path"], parsed_gbx(row["path"])[1]) for row in manifest_rows()
            if row["path"].lower().endswith(".font.gbx")]


def test_every_corpus_font_parses_completely(corpus):
    files = fonts()
    assert len(files) == 3
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        ids = [c.chunk_id for c in g.body.main.chunks]
        assert ids == [0x0904E004, 0x0904E005, 0x0904E006, 0x0904E008, 0x0904E009], path
        assert all(c.error is None for c in g.body.main.chunks), path


def test_character_ranges_index_the_glyph_table(corpus):
    for path, g in fonts():
        charmap = g.body.main.chunk(0x0904E004).values
        glyphs = g.body.main.chunk(0x0904E009).values
        table, start = charmap["glyphIndices"], 0
        for r in charmap["ranges"]:
            assert r["tableStart"] == start, (path, r)
            assert r["tableDelta"] == r["tableStart"] - r["firstChar"], (path, r)
            start += r["lastChar"] - r["firstChar"] + 1
        assert start == charmap["numGlyphIndices"] == len(table), path
        chars = [glyph["char"] for glyph in glyphs["glyphs"]]
        assert max(table) < glyphs["numGlyphs"] == len(chars), path
        # a character that maps to a real glyph (not the missing-glyph box 0) is that glyph
        mapped = 0
        for r in charmap["ranges"]:
            for ch in range(r["firstChar"], r["lastChar"] + 1):
                index = table[ch + r["tableDelta"]]
                if index:
                    assert chars[index] == ch, (path, hex(ch), index)
                    mapped += 1
        assert mapped == len(chars) - 1, path
        for glyph in glyphs["glyphs"]:
            assert all(0.0 <= v <= 1.0 for v in glyph["uvMin"] + glyph["uvMax"]), (path, glyph)
        assert all(t.endswith(".dds") for page in glyphs["pages"] for t in page["textures"]), path
