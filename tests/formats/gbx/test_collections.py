"""Collection ids as names (gbxfs/formats/gbx/collections.py): every map of the
corpus that stores its collection as a number names the same environment as the
envir= of its own XML header."""
from __future__ import annotations

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx import generation
from gbxfs.formats.gbx.collections import collection_name
from gbxfs.formats.gbx.errors import GbxError


def test_names_numbers_and_the_rest():
    assert collection_name("Stadium") == "Stadium"
    assert collection_name(12) == "Canyon"
    assert collection_name(0xFFFFFFFF) == "Unassigned"
    assert collection_name(12345) is None
    assert collection_name(True) is None and collection_name(None) is None


@pytest.mark.corpus
def test_every_numbered_collection_of_the_corpus_is_its_xml_envir(corpus):
    checked, ids = 0, set()
    for row in manifest_rows():
        if row["kind"] != "map":
            continue
        try:
            _, g = parsed_gbx(row["path"])
        except (GbxError, OSError):
            continue
        stored = generation._header_values(g, generation._MAP | 0x003).get("environment")
        envir = generation._xml(g).get("envir")
        if isinstance(stored, int) and envir:
            assert collection_name(stored) == envir, row["path"]
            checked += 1
            ids.add(stored)
    assert checked >= 25 and len(ids) >= 7     # 11, 12, 13, 16, 26, 28, 202 today
