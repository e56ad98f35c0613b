"""Header versions 3-6, binary and text, reference table, body compression checks
(files built by the test-side builder; corpus files in test_gbx_corpus.py)."""
from __future__ import annotations

import struct

import lzo
import pytest
from gbxfs.formats.gbx.writer import W, build_gbx, node_body

from gbxfs.formats import gbx
from gbxfs.formats.gbx.body import read_body
from gbxfs.formats.gbx.errors import GbxError, Truncated
from gbxfs.formats.gbx.header import header_length, parse_header, read_header
from gbxfs.formats.gbx.reader import GbxReader


def test_v6_binary_header_with_heavy_chunk():
    data = build_gbx(header_chunks=[(0x03043004, struct.pack("<I", 6), False), (0x03043005, b"<x/>", True)],
                     num_nodes=3)
    h = parse_header(data)
    assert (h.version, h.format_bytes, h.class_id, h.class_name) == (6, "BUUR", 0x03043000, "CGameCtnChallenge")
    assert h.user_data_size == 4 + 16 + 4 + 4
    assert [(c.chunk_id, c.size, c.heavy, c.raw) for c in h.chunks] == [
        (0x03043004, 4, False, struct.pack("<I", 6)), (0x03043005, 4, True, b"<x/>")]
    assert h.num_nodes == 3 and h.refs.externals == [] and h.body_offset == len(data)


@pytest.mark.parametrize("fmt", ["B", "T"])
def test_views_are_the_chunks_bytes_where_they_lie(fmt):
    """views=True: each chunk a view of the data given, the same bytes as the copies."""
    chunks = [(0x03043004, W(text=fmt == "T").u32(6).bytes(), False), (0x03043005, b"<x/>" * 9, True)]
    data = build_gbx(fmt=fmt, header_chunks=chunks, num_nodes=3)
    copied, viewed = parse_header(data), parse_header(data, views=True)
    for c, v in zip(copied.chunks, viewed.chunks, strict=True):
        assert type(c.raw) is bytes and isinstance(v.raw, memoryview) and v.raw.obj is data
        assert bytes(v.raw) == c.raw and (v.chunk_id, v.offset, v.size, v.heavy) == (c.chunk_id, c.offset, c.size, c.heavy)
        assert bytes(data[v.offset:v.offset + v.size]) == c.raw
    assert (viewed.num_nodes, viewed.body_offset) == (copied.num_nodes, copied.body_offset)


@pytest.mark.parametrize("version", [3, 4, 5])
def test_old_header_versions(version):
    ext = [{"flags": 0, "file": "Grass.dds", "node": 1, "use_file": True, "folder": 2}]
    folders = [("Media", [("Texture", [])])]
    data = build_gbx(version=version, class_id=0x24003000, num_nodes=2, externals=ext, folders=folders,
                     ancestor=3)
    h = parse_header(data)
    assert h.version == version and h.user_data_size is None and h.chunks == []
    assert h.unknown_byte == ("R" if version >= 4 else None)
    assert h.format_bytes == ("BUUR" if version >= 4 else "BUU")
    assert h.class_id == 0x03043000 and h.raw_class_id == 0x24003000      # remapped, raw kept
    e = h.refs.externals[0]
    assert h.refs.ancestor_level == 3 and h.refs.folders == ["Media", "Media/Texture"]
    assert (e.file_name, e.node_index, e.folder_index, e.path) == ("Grass.dds", 1, 2, "Media/Texture/Grass.dds")
    assert e.use_file is (True if version >= 5 else None)


def test_ref_table_resource_index_and_base_folder():
    ext = [{"flags": 4, "resource": 77, "node": 1}, {"flags": 0, "file": "a.gbx", "node": 2, "folder": 0}]
    h = parse_header(build_gbx(num_nodes=3, externals=ext))
    a, b = h.refs.externals
    assert (a.resource_index, a.file_name, a.folder_index) == (77, None, None)
    assert (b.path, b.use_file) == ("a.gbx", False)
    assert h.refs.by_node_index() == {1: a, 2: b}


def test_text_format_v6_and_v3():
    chunk_data = W(text=True).u32(6).bytes()
    data = build_gbx(fmt="T", header_chunks=[(0x03043004, chunk_data, False)], num_nodes=1)
    assert data[5:9] == b"TUUR" and b"03043000\r\n" in data
    h = parse_header(data)
    assert h.text and h.class_id == 0x03043000 and h.chunks[0].raw == chunk_data and h.num_nodes == 1
    h3 = parse_header(build_gbx(version=3, fmt="T", class_id=0x09011000))
    assert h3.text and h3.class_name == "CPlugBitmap" and h3.format_bytes == "TUU"


def test_text_format_whole_file_with_body():
    decl_body = W(text=True)
    decl_body.hex32(0x01001000).u32(1).string("Media\\").hex32(0xFACADE01)
    data = build_gbx(fmt="T", class_id=0x01001000, body=decl_body.bytes())
    g = gbx.parse(data)
    assert g.body.status == "complete", g.body.error
    assert g.body.main.chunks[0].values == {"number": 1, "dirs": [{"dirName": "Media\\"}]}


def test_header_chunk_sizes_must_add_up():
    data = bytearray(build_gbx(header_chunks=[(0x03043004, b"abcd", False)]))
    # userDataSize is right after "GBX" 06 00 "BUUR" classId
    struct.pack_into("<I", data, 13, struct.unpack_from("<I", data, 13)[0] + 1)
    with pytest.raises(GbxError, match="add up to 16 bytes, userDataSize says 17"):
        parse_header(bytes(data) + b"\0")


def test_header_chunk_overflowing_user_data():
    w = W()
    w.raw(b"GBX").raw(struct.pack("<H", 6)).raw(b"BUCR").u32(0x03043000)
    w.u32(12).u32(1).u32(0x03043004).u32(100)
    with pytest.raises(GbxError, match="overflows userDataSize 12"):
        parse_header(w.bytes() + bytes(50))


def test_an_overflowing_chunk_is_located_at_its_table_entry():
    w = W()
    w.raw(b"GBX").raw(struct.pack("<H", 6)).raw(b"BUCR").u32(0x03043000)
    w.u32(4 + 16 + 8).u32(2).u32(0x03043004).u32(4).u32(0x03043005).u32(5)
    data = w.bytes() + bytes(8) + bytes(8)
    with pytest.raises(GbxError, match="header chunk 03043005 of 5 bytes overflows userDataSize 28") as e:
        parse_header(data)
    assert e.value.offset == 17 + 4 + 8          # the second entry, after the count and the first


def test_header_chunk_count_cannot_exceed_user_data():
    w = W()
    w.raw(b"GBX").raw(struct.pack("<H", 6)).raw(b"BUCR").u32(0x03043000).u32(8).u32(0x10000000).u32(0)
    with pytest.raises(GbxError, match="cannot fit"):
        parse_header(w.bytes())


@pytest.mark.parametrize("mutate, message", [
    (lambda d: b"GBY" + d[3:], "not a GBX file"),
    (lambda d: d[:3] + struct.pack("<H", 7) + d[5:], "unsupported header version 7"),
    (lambda d: d[:5] + b"X" + d[6:], "format byte is 'X'"),
    (lambda d: d[:7] + b"Z" + d[8:], "body compression byte"),
    (lambda d: d[:8] + b"Q" + d[9:], "fourth format byte"),
])
def test_bad_format_bytes(mutate, message):
    with pytest.raises(GbxError, match=message):
        parse_header(mutate(build_gbx()))


def test_compressed_ref_table_is_rejected_clearly():
    with pytest.raises(GbxError, match="compressed reference table"):
        parse_header(build_gbx(ref_comp="C"))


def test_external_index_outside_num_nodes():
    with pytest.raises(GbxError, match="external node index 5 outside numNodes 2"):
        parse_header(build_gbx(num_nodes=2, externals=[{"flags": 4, "resource": 1, "node": 5}]))


def test_every_truncation_of_a_header_is_a_handled_error():
    data = build_gbx(version=6, header_chunks=[(0x03043004, b"abcd", True)], num_nodes=2,
                     externals=[{"flags": 0, "file": "x", "node": 1, "folder": 1}], folders=[("F", [])])
    parse_header(data)
    for n in range(len(data)):
        with pytest.raises(GbxError):
            parse_header(data[:n])


def test_pak_metadata_style_header_without_refs():
    data = build_gbx(header_chunks=[(0x03043004, b"abcd", False)], num_nodes=4)
    h = read_header(GbxReader(data), refs=False)
    assert h.refs is None and h.body_offset is None and h.header_end == len(data) - 4


# ---- body -------------------------------------------------------------------------------------
BODY = node_body([(0x01001000, struct.pack("<I", 0), False)])


def test_lzo_body_round_trip_and_sizes():
    data = build_gbx(class_id=0x01001000, body_comp="C", body=BODY)
    g = gbx.parse(data)
    assert g.body_data.compressed and g.body_data.uncompressed_size == len(BODY)
    assert g.body_bytes == BODY and g.body.status == "complete"


def _compressed(usize: int, payload: bytes) -> tuple[bytes, int]:
    head = build_gbx(class_id=0x01001000, body_comp="U")
    return head + struct.pack("<II", usize, len(payload)) + payload, len(head)


def test_lzo_declared_size_mismatch_is_an_error():
    comp = lzo.compress(BODY, 1, False)
    for usize in (len(BODY) - 1, len(BODY) + 1):
        data, off = _compressed(usize, comp)
        with pytest.raises(GbxError):
            read_body(data, off, "C")


def test_lzo_compressed_size_beyond_data():
    head = build_gbx(class_id=0x01001000)
    data = head + struct.pack("<II", 10, 1000) + b"x" * 10
    with pytest.raises(Truncated, match="compressed body size 1000 exceeds the 10 bytes present"):
        read_body(data, len(head), "C")


def test_lzo_impossible_or_huge_uncompressed_size_is_refused_before_allocating():
    data, off = _compressed(0xFFFFFFFF, b"x" * 10)
    with pytest.raises(GbxError, match="exceeds the .* byte limit"):
        read_body(data, off, "C")
    data, off = _compressed(100000, b"x" * 10)
    with pytest.raises(GbxError, match="impossible for 10 compressed bytes"):
        read_body(data, off, "C")


def test_lzo_garbage_payload():
    data, off = _compressed(64, bytes(range(200, 240)))
    with pytest.raises(GbxError):
        read_body(data, off, "C")


def test_parse_reports_unreadable_body_as_failed():
    data = build_gbx(class_id=0x01001000, body_comp="C", body=BODY)
    g = gbx.parse(data[:-3])
    assert g.body.status == "failed" and isinstance(g.body.error, GbxError)


def test_header_length_is_what_a_v6_binary_header_without_externals_takes():
    data = build_gbx(header_chunks=[(0x03043004, struct.pack("<I", 6), False), (0x03043005, b"<x/>" * 50, True)],
                     num_nodes=3)
    h = parse_header(data)
    assert header_length(data[:17]) == h.body_offset == len(data)     # no externals: through their count
    assert header_length(data[:16]) is None                            # too short to tell
    ext = [{"flags": 0, "file": "Grass.dds", "node": 1, "use_file": True, "folder": 0}]
    with_refs = build_gbx(header_chunks=[(0x03043004, struct.pack("<I", 6), False)], num_nodes=3, externals=ext)
    assert header_length(with_refs) < parse_header(with_refs).body_offset       # externals follow: more
    for version in (3, 4, 5):       # no userDataSize: the prefix does not tell
        assert header_length(build_gbx(version=version, class_id=0x24003000, num_nodes=2)) is None
    assert header_length(b"GBX\x06\x00T" + bytes(11)) is None      # text: sizes are not where binary has them
