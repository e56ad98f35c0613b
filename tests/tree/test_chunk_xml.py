"""A chunk's .xml file comes from its declaration's `xml=` flag, and only from it."""
from __future__ import annotations

from gbxfs.formats.gbx.decl import registry
from gbxfs.formats.gbx.model import Chunk
from gbxfs.tree.gbx.chunkfiles import xml_text

COMMUNITY = 0x03043005          # declared with xml=xml


def test_the_flagged_field_is_the_xml_document():
    assert registry().get(COMMUNITY, header=True).xml == "xml"
    doc = "<header type='map'/>"
    assert xml_text(Chunk(COMMUNITY, 0, 0, b"", values={"xml": doc}, header=True)) == doc
    assert xml_text(Chunk(COMMUNITY, 0, 0, b"", values={"xml": ""}, header=True)) is None


def test_xml_looking_text_without_the_flag_is_no_xml_file():
    unflagged = next(d for d in registry().chunks.values() if d.xml is None)
    values = {"text": "<?xml version='1.0'?><a/>"}
    assert xml_text(Chunk(unflagged.chunk_id, 0, 0, b"", values=values, header=unflagged.header)) is None
