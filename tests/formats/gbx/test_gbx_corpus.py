"""Every GBX of the corpus (kinds map, replay, ghost, item, other): header with a known
class name, header chunk sizes adding up, LZO bodies of exactly the declared size,
and a body walk that ends in a status (never an exception)."""
from __future__ import annotations

import struct

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats import gbx
from gbxfs.formats.gbx.body import read_body

GBX_KINDS = {"map", "replay", "ghost", "item", "other"}
COMPLETE_KINDS = {"map", "replay", "ghost", "item"}
ROWS = [r for r in manifest_rows() if r["kind"] in GBX_KINDS]
IDS = [r["path"].rsplit("/", 1)[-1] for r in ROWS]


@pytest.fixture(scope="module")
def parsed(corpus):
    """Each file parsed once for the whole session (shared with the other corpus tests)."""
    return lambda row: parsed_gbx(row["path"])


@pytest.mark.corpus
@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_header(parsed, row):
    data, g = parsed(row)
    h = g.header
    assert h.class_name, f"class {h.class_id:08X} has no name"
    # the manifest's summary names the stored class id and format
    fmt = row["format"].split()
    assert fmt[2] == h.format_bytes and int(fmt[4], 16) == h.raw_class_id
    # header chunk table, re-read independently: sizes add up to userDataSize
    size = struct.unpack_from("<I", data, 13)[0]
    count = struct.unpack_from("<I", data, 17)[0] if size else 0
    table = [struct.unpack_from("<II", data, 21 + 8 * i) for i in range(count)]
    assert size == h.user_data_size
    if size:          # an empty user data block has no chunk count at all
        assert 4 + sum(8 + (s & 0x7FFFFFFF) for _, s in table) == size
    assert [(c.raw_id or c.chunk_id, c.size, c.heavy) for c in h.chunks] == \
        [(cid, s & 0x7FFFFFFF, bool(s >> 31)) for cid, s in table]


@pytest.mark.corpus
@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_body(parsed, row):
    data, g = parsed(row)
    h = g.header
    if row["kind"] in COMPLETE_KINDS:     # the README: every corpus map, replay, ghost and item
        assert g.body.status == "complete", g.body.error
    else:
        assert g.body.status in ("complete", "partial", "failed"), g.body.status
    assert g.body_data is not None, g.body.error
    if h.body_compression == "C":
        usize, csize = struct.unpack_from("<II", data, h.body_offset)
        assert len(g.body_bytes) == usize == g.body_data.uncompressed_size
        assert g.body_data.compressed_size == csize and g.body_data.trailing == len(data) - h.body_offset - 8 - csize
    else:
        assert g.body_bytes == data[h.body_offset:]
    if g.body.status == "complete":
        assert g.body.error is None and g.body.read == len(g.body_bytes) and g.body.main.complete
    else:
        assert isinstance(g.body.error, gbx.GbxError) and g.body.error.offset is not None


@pytest.mark.corpus
def test_corpus_has_every_body_compression(parsed):
    seen = {parsed(r)[1].header.format_bytes for r in ROWS}
    assert {"BUCR", "BUUR", "BUCE"} <= seen


@pytest.mark.corpus
def test_read_body_matches_parse(parsed):
    row = next(r for r in ROWS if "BUCR" in r["format"])
    data, g = parsed(row)
    assert read_body(data, g.header.body_offset, "C").data == g.body_bytes
