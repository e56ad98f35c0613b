"""GbxReader primitives: lookback strings, node references (nodes.NodeWalker), limits,
stream sources, text."""
from __future__ import annotations

import struct

import pytest
from gbxfs.formats.gbx.writer import END, SKIP, W

from gbxfs.formats.gbx.decl import Registry
from gbxfs.formats.gbx.errors import GbxError, Truncated
from gbxfs.formats.gbx.model import ExternalRef
from gbxfs.formats.gbx.nodes import MAX_DEPTH, NodeWalker
from gbxfs.formats.gbx.reader import GbxReader
from gbxfs.formats.gbx.sources import BufferSource
from gbxfs.formats.gbx.textreader import TextGbxReader


class Stream:
    """A pull source that hands out bytes in exact pieces, like the pak layer."""

    def __init__(self, data: bytes):
        self.data, self.pos, self.calls = data, 0, 0

    def read(self, n: int) -> bytes:
        self.calls += 1
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out


def test_numbers_little_endian():
    r = GbxReader(struct.pack("<BHIiQfII", 1, 2, 3, -4, 5, 1.5, 1, 0) + bytes(range(16)))
    assert (r.u8(), r.u16(), r.u32(), r.i32(), r.u64(), r.f32()) == (1, 2, 3, -4, 5, 1.5)
    assert r.bool() is True and r.bool() is False
    assert r.u128() == int.from_bytes(bytes(range(16)), "little")
    assert r.at_end()


def test_truncated_reports_offset():
    r = GbxReader(b"\x01\x02")
    with pytest.raises(Truncated) as e:
        r.u32()
    assert e.value.offset == 0 and "need 4 bytes, 2 left" in str(e.value)


def test_hostile_string_length_fails_without_allocating():
    r = GbxReader(struct.pack("<I", 0xFFFFFFF0) + b"abc")
    with pytest.raises(GbxError, match="too large"):
        r.string()
    r = GbxReader(struct.pack("<I", 1000) + b"abc")
    with pytest.raises(Truncated, match="string of 1000 bytes"):
        r.string()


def test_lookback_new_reuse_empty_and_number():
    w = W()
    w.id("Stadium").id("Nadeo").id("Stadium").id("").id(26)
    r = GbxReader(w.bytes())
    assert [r.id() for _ in range(5)] == ["Stadium", "Nadeo", "Stadium", "", 26]
    assert r.ids.version == 3 and r.ids.strings == ["Stadium", "Nadeo"]


def test_lookback_index_0x80000000_also_adds_a_string():
    data = struct.pack("<II", 3, 0x80000000) + struct.pack("<I", 2) + b"ab" + struct.pack("<I", 0x80000001)
    r = GbxReader(data)
    assert (r.id(), r.id()) == ("ab", "ab")


def test_lookback_index_beyond_known_strings_is_an_error():
    r = GbxReader(struct.pack("<II", 3, 0x40000002))
    with pytest.raises(GbxError, match="#2 referenced, only 0 known") as e:
        r.id()
    assert e.value.offset == 4


def test_lookback_unsupported_version():
    with pytest.raises(GbxError, match="unsupported lookback string version 7"):
        GbxReader(struct.pack("<I", 7)).id()


def test_lookback_version_2_virtual_skipper():
    # VS2: version, index (global table position) and the string, every time
    data = b"".join(struct.pack("<II", 2, i) + struct.pack("<I", 3) + s for i, s in ((5, b"Acc"), (6, b"Sea")))
    r = GbxReader(data)
    assert (r.id(), r.id()) == ("Acc", "Sea") and r.at_end()


def test_lookback_state_reset_push_pop():
    w = W()
    w.id("a")
    w2 = W()
    w2.id("b")
    data = w.bytes() + w2.bytes() + struct.pack("<I", 0x40000001)
    r = GbxReader(data)
    assert r.id() == "a"
    r.push_ids()          # encapsulated: a fresh state, version read again
    assert r.id() == "b"
    r.pop_ids()
    assert r.id() == "a"  # index 1 refers to the outer list again
    r.reset_ids()
    assert r.ids.version is None and r.ids.strings == []


def test_meta_and_fileref():
    w = W()
    w.id("uid").id(26).id("author")
    w.raw(b"\x03" + bytes(32)).string("Skins/x.zip").string("http://u")
    w.raw(b"\x01").string("")                  # version 1, empty path: no locator
    w.raw(b"\x02").string("a.dds").string("loc")
    r = GbxReader(w.bytes())
    assert r.meta() == ("uid", 26, "author")
    assert r.fileref() == {"version": 3, "file": "Skins/x.zip", "checksum": bytes(32), "locator_url": "http://u"}
    assert r.fileref() == {"version": 1, "file": ""}
    assert r.fileref() == {"version": 2, "file": "a.dds", "locator_url": "loc"}
    assert r.at_end()


# ---- node references -----------------------------------------------------------------------
DECLS = Registry.from_texts([("t.chunks", "01002000\n    noderef child\n01002001\n    uint32 value\n")])


def node(chunks: bytes) -> bytes:
    return chunks + struct.pack("<I", END)


def test_noderef_null_new_back_and_external():
    ext = ExternalRef(0, "Tex.dds", None, 3, True, 0, "Tex.dds")
    data = (struct.pack("<i", -1)                                  # null
            + struct.pack("<iI", 1, 0x01002000)                     # new node #1 of class 01002000
            + node(struct.pack("<Ii", 0x01002000, 2)                # its chunk: a new node #2
                   + struct.pack("<I", 0x01002000)                  # class id of #2
                   + node(struct.pack("<Ii", 0x01002000, 1)))       # #2 points back to #1
            + struct.pack("<i", 1)                                  # back-reference to #1
            + struct.pack("<i", 3))                                 # external node #3
    seen = []
    r = GbxReader(data, num_nodes=4, externals={3: ext}, walker=NodeWalker(DECLS), on_node=seen.append)
    assert r.walker.noderef(r) is None
    new = r.walker.noderef(r)
    assert new.kind == "new" and new.index == 1 and new.node.class_id == 0x01002000
    n1 = new.node
    child = n1.chunks[0].values["child"]
    assert child.kind == "new" and child.index == 2
    assert child.node.chunks[0].values["child"].kind == "back"
    assert child.node.chunks[0].values["child"].node is n1
    back = r.walker.noderef(r)
    assert back.kind == "back" and back.node is n1
    e = r.walker.noderef(r)
    assert e.kind == "external" and e.external is ext
    assert seen == [0x01002000, 0x01002000]            # on_node at each new node only
    assert [n.index for n in r.all_nodes] == [1, 2]
    assert r.at_end()


def test_noderef_index_outside_node_list():
    r = GbxReader(struct.pack("<iI", 5, 0x01002000), num_nodes=3, walker=NodeWalker(DECLS))
    with pytest.raises(GbxError, match="node index 5 outside the node list"):
        r.walker.noderef(r)


def test_noderef_in_encapsulation_has_no_index():
    data = struct.pack("<I", 0x01002001) + node(struct.pack("<II", 0x01002001, 9)) + struct.pack("<I", 0xFFFFFFFF)
    r = GbxReader(data, num_nodes=1, walker=NodeWalker(DECLS))
    with r.encapsulation():
        ref = r.walker.noderef(r)
        assert r.walker.noderef(r) is None
    assert ref.kind == "direct" and ref.index is None and ref.node.chunks[0].values == {"value": 9}
    assert r.nodes == {}                       # not added to the node list


def test_class_ids_are_remapped_for_nodes_and_on_node():
    # 24003000 (old CGameCtnChallenge) -> 03043000; chunk ids likewise
    decls = Registry.from_texts([("t.chunks", "03043011\n    uint32 a\n")])
    data = struct.pack("<iI", 1, 0x24003000) + node(struct.pack("<II", 0x24003011, 4))
    seen = []
    r = GbxReader(data, num_nodes=2, walker=NodeWalker(decls), on_node=seen.append)
    ref = r.walker.noderef(r)
    assert ref.node.class_id == 0x03043000 and ref.node.raw_class_id == 0x24003000
    assert ref.node.chunks[0].chunk_id == 0x03043011 and ref.node.chunks[0].raw_id == 0x24003011
    assert seen == [0x03043000]


def test_node_nesting_depth_is_bounded():
    decls = Registry.from_texts([("t.chunks", "01002000\n    node child\n")])
    data = struct.pack("<II", 0x01002000, 0x01002000) * (MAX_DEPTH + 5)
    r = GbxReader(data, walker=NodeWalker(decls))
    with pytest.raises(GbxError, match="nested deeper"):
        r.walker.direct_node(r)


# ---- stream sources --------------------------------------------------------------------------
def test_stream_source_gives_same_values_and_raw_bytes():
    w = W()
    w.u32(7).id("abc").id("abc").string("s").f32(2.5)
    data = w.bytes()
    mem, st = GbxReader(data), GbxReader(Stream(data))
    for r in (mem, st):
        assert (r.u32(), r.id(), r.id(), r.string(), r.f32()) == (7, "abc", "abc", "s", 2.5)
    assert st.raw(0, len(data)) == mem.raw(0, len(data)) == data
    assert st.tell() == mem.tell() == len(data)


def test_stream_skip_marker_pushback():
    data = struct.pack("<III", 0x01002001, SKIP, 4) + struct.pack("<II", 5, 0x01002001) + struct.pack("<I", 6)
    st = GbxReader(Stream(data))
    assert st.u32() == 0x01002001 and st.skip_marker() and st.u32() == 4 and st.u32() == 5
    assert st.u32() == 0x01002001
    assert not st.skip_marker()                  # not a marker: the bytes are put back
    assert st.u32() == 6 and st.tell() == len(data)
    assert st.raw(0, len(data)) == data


def test_stream_peeks_do_not_nest_the_source():
    """A pak entry's map peeks at thousands of chunk ids; each peek that puts bytes back
    must not wrap the source one level deeper (the reads then hit Python's recursion limit)."""
    n = 5000
    data = struct.pack(f"<{n}I", *range(1, n + 1))
    st = GbxReader(Stream(data))
    for i in range(1, n + 1):
        assert not st.skip_marker() and st.peek_u32() == i and st.u32() == i
    assert st.tell() == len(data) and st.peek_u32() is None


def test_stream_truncation():
    r = GbxReader(Stream(b"\x01\x02\x03"))
    with pytest.raises(Truncated):
        r.u32()


def test_limit_blocks_reading_past_a_chunk():
    r = GbxReader(struct.pack("<II", 1, 2))
    with r.limit(4):
        assert r.u32() == 1
        with pytest.raises(Truncated):
            r.u32()
    assert r.u32() == 2


def test_buffer_source_window():
    src = BufferSource(b"xxABCDyy", 2, 6)
    r = GbxReader(src)
    assert r.bytes(4) == b"ABCD" and r.at_end() and r.tell() == 4


# ---- text format -----------------------------------------------------------------------------
def test_text_reader_primitives():
    w = W(text=True)
    w.u32(42).i32(-1).f32(0.5).bool(True).string("a\nb").hex32(0x03043000)
    w.id("Stadium").id("Stadium").id("")
    data = w.bytes() + b"4294967295\r\n"
    r = TextGbxReader(data)
    assert r.u32() == 42 and r.i32() == -1 and r.f32() == 0.5 and r.bool() is True
    assert r.string() == "a\nb"                  # a lone LF belongs to the string
    assert r.hex32() == 0x03043000
    assert (r.id(), r.id(), r.id()) == ("Stadium", "Stadium", "")
    assert r.i32() == -1                         # signed written as unsigned
    assert r.at_end()


def test_text_reader_errors():
    with pytest.raises(GbxError, match="expected a number"):
        TextGbxReader(b"abc\r\n").u32()
    with pytest.raises(Truncated, match="without CRLF"):
        TextGbxReader(b"12").u32()
    with pytest.raises(GbxError, match="out of range"):
        TextGbxReader(b"300\r\n").u8()


def test_a_leading_bom_is_dropped_from_decoded_strings():
    bom = "\ufeff".encode("utf-8")
    data = struct.pack("<I", len(bom) + 3) + bom + b"abc" + struct.pack("<I", 5) + b"a" + bom + b"c"
    r = GbxReader(data)
    assert r.string() == "abc"                      # leading: dropped
    assert r.string() == "a\ufeffc"                 # elsewhere: kept, it is text
    assert r.tell() == len(data)


class _Announcing:
    """A pull source that announces more bytes than it has (a pak entry's data ending
    before its size): it raises Truncated with an offset in its own frame."""

    def __init__(self, data: bytes, size: int):
        self.data, self.size, self.consumed = data, size, 0

    @property
    def remaining(self) -> int:
        return self.size - self.consumed

    def read(self, n: int) -> bytes:
        if self.consumed + n > len(self.data):
            raise Truncated("data ends", offset=1000 + self.consumed)
        self.consumed += n
        return self.data[self.consumed - n:self.consumed]


def test_a_source_that_ends_early_is_truncated_where_the_reader_is():
    r = GbxReader(_Announcing(struct.pack("<IH", 7, 1), 12), offset_base=40)
    assert r.u32() == 7
    with pytest.raises(Truncated) as e:
        r.u32()
    assert e.value.offset == 44 and "data ends" in e.value.reason


@pytest.mark.parametrize("left", [0, 1, 2, 3])
def test_no_skip_marker_with_fewer_than_4_bytes_left_in_memory_or_stream(left):
    data = b"PIKS"[:left]
    for r in (GbxReader(data), GbxReader(_Announcing(data, left))):
        assert r.skip_marker() is False and r.tell() == 0
        with pytest.raises(Truncated) as e:
            r.u32()
        assert e.value.offset == 0


def test_a_bad_bool_in_a_fused_run_is_named_and_stops_the_reader_alike():
    """Runs of fixed-size fields are read with one unpack (in memory by the generated
    decoders, which also fuse enum integers, and by the closures on a stream, which do
    not): a bad bool is reported at its own line either way, and the reader stops right
    after it, as a read of that field alone would."""
    reg = Registry.from_texts([("t.chunks", "01001000\n    uint32 a (0: A)\n    uint32 b\n    bool c\n"
                                            "    uint32 d (0: D)\n    float e\n")])
    decl = reg.get(0x01001000)
    data = struct.pack("<IIIIf", 0, 1, 2, 0, 1.0)
    for r in (GbxReader(data), GbxReader(_Announcing(data, len(data)))):
        with pytest.raises(GbxError) as e:
            decl.decode(r)
        assert e.value.decl == "t.chunks:4 c" and e.value.offset == 8 and r.tell() == 12
