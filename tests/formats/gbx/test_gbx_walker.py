"""The ReadNode walker: end marker, skippable chunks, unknown chunks, body status."""
from __future__ import annotations

import struct

import pytest
from gbxfs.formats.gbx.writer import END, SKIP, W, build_gbx, node_body

from gbxfs.formats import gbx
from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.decl import Registry
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.lookback import may_define_strings
from gbxfs.formats.gbx.nodes import decode_header_chunk, walk_body

DECLS = Registry.from_texts([("t.chunks", """
01002000
    uint32 a
01002001 skippable
    uint32 b
01002002
    noderef child
01002003 skippable
    lookbackstring s
""")])
CLASS = 0x01002000


def walk(body: bytes, num_nodes: int = 4, **kw):
    return walk_body(body, class_id=CLASS, num_nodes=num_nodes, decls=DECLS, **kw)


def u32(*vs: int) -> bytes:
    return struct.pack(f"<{len(vs)}I", *vs)


def test_declared_chunks_and_unknown_skippable_kept_raw():
    body = node_body([(0x01002000, u32(5), False), (0x01002FFF, b"opaque!", True), (0x01002001, u32(6), True)])
    res = walk(body)
    assert res.status == "complete" and res.error is None and res.read == len(body)
    c0, c1, c2 = res.main.chunks
    assert (c0.chunk_id, c0.values, c0.skippable, c0.raw, c0.offset, c0.size) == (0x01002000, {"a": 5}, False, u32(5), 4, 4)
    assert (c1.chunk_id, c1.values, c1.skippable, c1.raw, c1.error) == (0x01002FFF, None, True, b"opaque!", None)
    assert c1.offset == 8 + 12 and c1.size == 7
    assert (c2.values, c2.raw) == ({"b": 6}, u32(6))
    assert res.main.complete


def test_unknown_non_skippable_chunk_is_a_precise_error():
    body = node_body([(0x01002000, u32(5), False), (0x01002777, u32(1, 2, 3), False)])
    res = walk(body)
    assert res.status == "partial"
    e = res.error
    assert isinstance(e, GbxError) and e.chunk_id == 0x01002777 and e.offset == 8
    assert e.node == "#0 " + (classdb.class_name(CLASS) or "01002000")
    assert "unknown chunk 01002777 is not skippable" in str(e)
    assert len(res.main.chunks) == 1      # chunks before the error are kept


def test_unknown_first_chunk_means_failed():
    res = walk(node_body([(0x01002777, b"", False)]))
    assert res.status == "failed" and res.error.chunk_id == 0x01002777 and res.error.offset == 0


def test_skippable_chunk_with_wrong_size_stays_raw_with_error_and_walk_goes_on():
    body = node_body([(0x01002001, u32(6, 7), True), (0x01002000, u32(1), False)])
    res = walk(body)
    assert res.status == "complete"
    bad, good = res.main.chunks
    assert bad.values is None and "read 4 of the chunk's 8 bytes" in str(bad.error) and bad.raw == u32(6, 7)
    assert bad.error.chunk_id == 0x01002001
    assert good.values == {"a": 1}


def test_skippable_chunk_whose_decoding_fails_stays_raw():
    # a lookback string with a bad version inside a skippable chunk
    body = node_body([(0x01002003, u32(9, 0), True), (0x01002000, u32(1), False)])
    res = walk(body)
    assert res.status == "complete"
    assert res.main.chunks[0].values is None and "lookback string version 9" in str(res.main.chunks[0].error)


def test_skippable_size_beyond_body():
    w = W().u32(0x01002001).u32(SKIP).u32(1000).u32(1)
    res = walk(w.bytes())
    assert res.status == "failed" and "exceeds the 4 bytes left" in str(res.error)


def test_missing_end_marker_is_truncation():
    res = walk(u32(0x01002000, 5))
    assert res.status == "partial" and res.error.offset == 8


def test_bytes_after_the_main_node():
    res = walk(node_body([(0x01002000, u32(5), False)]) + b"xx")
    assert res.status == "partial" and "2 bytes after the main node" in str(res.error)


def test_nested_nodes_are_walked_and_listed():
    inner = u32(0x01002000, 7, END)
    body = node_body([(0x01002002, u32(1, CLASS) + inner, False), (0x01002002, u32(1), False)])
    res = walk(body)
    assert res.status == "complete"
    assert [n.index for n in res.nodes] == [0, 1]
    first, second = res.main.chunks
    assert first.values["child"].kind == "new" and first.values["child"].node.chunks[0].values == {"a": 7}
    assert second.values["child"].kind == "back"
    assert first.raw == u32(1, CLASS) + inner     # a chunk's raw bytes include its nested nodes


def test_error_inside_nested_node_names_the_inner_node_and_chunk():
    inner = u32(0x01002555, 0)
    body = node_body([(0x01002002, u32(2, CLASS) + inner, False)])
    res = walk(body)
    assert res.status == "partial"
    assert res.error.chunk_id == 0x01002555 and res.error.node.startswith("#2") and res.error.offset == 12


def test_on_node_hook_order_and_stream_source():
    class Src:
        def __init__(self, d):
            self.d, self.p = d, 0

        def read(self, n):
            out = self.d[self.p:self.p + n]
            self.p += len(out)
            return out

    inner = u32(0x01002000, 7, END)
    body = node_body([(0x01002002, u32(1, CLASS) + inner, False), (0x01002FFF, b"zz", True)])
    seen = []
    res = walk_body(Src(body), class_id=CLASS, num_nodes=2, decls=DECLS, on_node=seen.append, size=len(body))
    assert res.status == "complete" and seen == [CLASS, CLASS]
    assert res.main.chunks[1].raw == b"zz"


def test_parse_on_a_built_file_with_header_chunk_decoding():
    decls_file = build_gbx(class_id=0x03078000, header_chunks=[(0x01001000, u32(1, 2) + b"ab", False)],
                           body=node_body([(0x03078004, u32(1, 0), False)]))
    g = gbx.parse(decls_file)
    assert g.header.chunks[0].values == {"number": 1, "dirs": [{"dirName": "ab"}]}
    assert g.body.status == "complete"
    assert g.body.main.chunks[0].values == {"keepPlaying": True, "ignored": 0}


def test_each_header_chunk_has_fresh_lookback_state():
    decls = Registry.from_texts([("t.chunks", "01002004 header\n    lookbackstring a\n    lookbackstring b\n"
                                              "01002005 header\n    lookbackstring c\n")])
    first = W()
    first.id("x").id("x")
    second = W()
    second.id("y")            # starts again with the version and index 1
    data = build_gbx(class_id=CLASS, header_chunks=[(0x01002004, first.bytes(), False),
                                                    (0x01002005, second.bytes(), False)])
    h = gbx.parse_header(data)
    for c in h.chunks:
        decode_header_chunk(c, decls=decls)
    assert [c.values for c in h.chunks] == [{"a": "x", "b": "x"}, {"c": "y"}]
    assert all(c.error is None for c in h.chunks)


def test_header_chunk_not_fully_read_is_an_error_on_that_chunk():
    decls = Registry.from_texts([("t.chunks", "01002004 header\n    uint32 a\n")])
    h = gbx.parse_header(build_gbx(class_id=CLASS, header_chunks=[(0x01002004, u32(1, 2), False)]))
    decode_header_chunk(h.chunks[0], decls=decls)
    assert h.chunks[0].values is None and "read 4 of the chunk's 8 bytes" in str(h.chunks[0].error)


def test_xml_flag_is_kept_on_the_declaration():
    decls = Registry.from_texts([("t.chunks", '03043005 "Community" header xml=xml\n    string xml\n')])
    d = decls.get(0x03043005, header=True)
    assert d.xml == "xml" and d.header and d.name == "Community"


# ---- lookback strings inside skippable chunks kept raw ---------------------------------------
LB_DECLS = Registry.from_texts([("t.chunks", """
01002010
    lookbackstring s
01002011 skippable
    lookbackstring s
""")])


def lookback_body(middle_id: int, middle: "callable") -> bytes:
    """Chunks 01002010 reading "A" (new), a skippable chunk written by `middle` with the
    same lookback state, then "B" (new) and back references to "A" and "B"."""
    w = W()
    parts = []

    def lb(s):
        w.buf = bytearray()
        w.id(s)
        return w.bytes()
    parts.append((0x01002010, lb("A"), False))
    w.buf = bytearray()
    middle(w)
    parts.append((middle_id, w.bytes(), True))
    parts += [(0x01002010, lb("B"), False), (0x01002010, lb("A"), False), (0x01002010, lb("B"), False)]
    return node_body(parts)


def lb_walk(body: bytes):
    return walk_body(body, class_id=CLASS, num_nodes=1, decls=LB_DECLS)


def test_raw_skippable_chunk_defining_strings_blocks_references_past_it():
    body = lookback_body(0x01002FFF, lambda w: w.id("Lost").u32(7))   # undeclared: kept raw
    res = lb_walk(body)
    assert res.status == "partial"
    values = [c.values for c in res.main.chunks if c.chunk_id == 0x01002010]
    # "A" (#1, before the raw chunk) still resolves; "B" is #3 in the file, but we only
    # saw 2 strings: that must be an error naming the raw chunk, not a wrong string
    assert values == [{"s": "A"}, {"s": "B"}, {"s": "A"}, None]
    e = res.error
    assert e.chunk_id == 0x01002010 and "lookback string #3" in str(e)
    # the raw chunk's data starts after chunk 1 (4 + version, index, length, "A" = 17)
    # and its own id, PIKS and size: 29
    assert "skippable chunk 01002FFF at 0x1d was kept raw after string #1" in str(e)


def test_raw_skippable_chunk_without_new_strings_keeps_the_numbering():
    body = lookback_body(0x01002FFF, lambda w: w.id("A").u32(7))      # only a back reference
    res = lb_walk(body)
    assert res.status == "complete", res.error
    assert [c.values for c in res.main.chunks if c.chunk_id == 0x01002010] == \
        [{"s": "A"}, {"s": "B"}, {"s": "A"}, {"s": "B"}]


def test_declared_skippable_chunk_strings_count_when_it_decodes():
    body = lookback_body(0x01002011, lambda w: w.id("Kept"))
    res = lb_walk(body)
    assert res.status == "complete", res.error
    assert res.main.chunks[1].values == {"s": "Kept"}
    assert res.main.chunks[-1].values == {"s": "B"}


def test_failed_skippable_chunk_forgets_its_strings_and_blocks_references_past_it():
    # the declaration reads the new string, then leaves 4 bytes: inexact, so kept raw
    body = lookback_body(0x01002011, lambda w: w.id("Half").u32(7))
    res = lb_walk(body)
    bad = res.main.chunks[1]
    assert bad.values is None and "read 12 of the chunk's 16 bytes" in str(bad.error)
    assert res.status == "partial" and "skippable chunk 01002011" in str(res.error)
    assert [c.values for c in res.main.chunks[2:]] == [{"s": "B"}, {"s": "A"}, None]


@pytest.mark.parametrize("raw, expected", [
    (b"", False),
    (u32(1, 2, 3), False),
    (u32(0x40000000, 2) + b"ab", True),                 # a new string
    (u32(0x80000000, 0), True),                         # a new empty string (other flag)
    (u32(0x40000000, 3) + b"ab", False),                # its length runs past the chunk
    (b"\x01" + u32(0x40000000, 1) + b"x", True),        # at any byte offset
    (u32(0x40000001, 0x40000002), False),               # back references add nothing
])
def test_may_define_strings(raw, expected):
    assert may_define_strings(raw) is expected


def test_may_define_strings_text_format():
    assert may_define_strings(b"40000000\r\n3\r\nabc\r\n", text=True)
    assert not may_define_strings(b"40000001\r\n", text=True)


def test_node_class_selects_a_layout_per_class():
    """One chunk id, two layouts by the class of the node being walked (as 03085000 in
    CGameCtnMediaBlockTime and CGameCtnMediaBlockTimeSpeed)."""
    decls = Registry.from_texts([("t.chunks", """
01002002
    noderef child
01002012
    if node_class == 0x03129000:
        uint16 short
    else:
        uint32 long
""")])
    inner = u32(0x01002012) + struct.pack("<H", 7) + u32(END)
    body = node_body([(0x01002012, u32(5), False), (0x01002002, u32(1, 0x03129000) + inner, False)])
    res = walk_body(body, class_id=CLASS, num_nodes=2, decls=decls)
    assert res.status == "complete", res.error
    assert res.main.chunks[0].values == {"long": 5}
    assert res.nodes[1].chunks[0].values == {"short": 7}


def test_node_fields_of_earlier_chunks_are_visible():
    """node.<field>: the latest earlier chunk of the same node that has the field (as
    CPlugVisual3D reads CPlugVisual's vertex count)."""
    decls = Registry.from_texts([("t.chunks", """
01002020
    uint32 count
01002021
    uint32 values[node.count]
01002022
    uint32 x[node.missing]
""")])
    body = node_body([(0x01002020, u32(1), False), (0x01002020, u32(2), False), (0x01002021, u32(7, 8), False)])
    res = walk_body(body, class_id=CLASS, num_nodes=1, decls=decls)
    assert res.status == "complete", res.error
    assert res.main.chunks[2].values == {"values": [7, 8]}
    res = walk_body(node_body([(0x01002022, b"", False)]), class_id=CLASS, num_nodes=1, decls=decls)
    assert "'node.missing' was not read" in str(res.error)


def test_inline_node_has_no_class_id_and_does_not_feed():
    """`inline node <class> <name>`: a node whose class the layout implies - its chunks
    follow at once (CPlugVisualIndexed's index buffer); no ReadNode, so no on_node."""
    decls = Registry.from_texts([("t.chunks", """
01002030
    inline node 09057000 buffer (comment)
    uint32 after
09057000
    uint32 flags
""")])
    body = node_body([(0x01002030, u32(0x09057000, 5, END, 9), False)])
    seen = []
    res = walk_body(body, class_id=CLASS, num_nodes=1, decls=decls, on_node=seen.append)
    assert res.status == "complete", res.error
    v = res.main.chunks[0].values
    assert v["buffer"].kind == "direct" and v["buffer"].node.class_id == 0x09057000
    assert v["buffer"].node.chunks[0].values == {"flags": 5} and v["after"] == 9
    assert seen == [CLASS]           # the main node only
