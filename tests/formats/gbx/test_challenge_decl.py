"""Map declarations on hand-built bodies (layouts written by hand with
gbxfs/formats/gbx/writer.py, which shares no code with the parser): block flags and the unassigned blocks,
03043013's 16-bit flags, items with waypoints, both metadata encodings, embedded
items; and hostile input (truncated, corrupted, huge counts) giving GbxError only."""
from __future__ import annotations

import io
import random
import struct
import zipfile

import pytest
from gbxfs.formats.gbx.writer import END, W, node_body

from gbxfs.formats import gbx
from gbxfs.formats.gbx.nodes import walk_body
from corpusdata import manifest_rows, parsed_gbx

MAP = 0x03043000


def walk(body: bytes, num_nodes: int = 8):
    return walk_body(body, class_id=MAP, num_nodes=num_nodes)


def block(w: W, name: str, x: int, flags: int, *, flags16: bool = False) -> W:
    w.id(name).u8(1).u8(x).u8(2).u8(3)
    return w.u16(flags) if flags16 else w.u32(flags)


def blocks_chunk(w: W, version: int | None, blocks: list, *, size=(32, 32, 32)) -> W:
    w.id("MapUid").id("Stadium").id("author")
    w.string("Name")
    w.id("Day").id("Stadium").id("Nadeo")
    for s in size:
        w.u32(s)
    w.bool(False)
    if version is not None:
        w.u32(version)
    w.u32(sum(1 for b in blocks if b[2] != 0xFFFFFFFF and not b[3]))
    return w


def test_block_list_with_unassigned_blocks_skin_and_waypoint():
    w = W()
    w.u32(0x0304301F)
    blocks_chunk(w, 6, [("A", 1, 0, False), ("U", 0, 0xFFFFFFFF, False), ("B", 2, 0x8000, False),
                        ("C", 3, 0x100000, False)])
    block(w, "A", 1, 0)
    block(w, "Unassigned1", 0xFF, 0xFFFFFFFF)          # inside the list, not counted
    block(w, "B", 2, 0x8000)
    w.id("skinAuthor")
    w.i32(1).u32(0x03059000)                           # skin: a new node (slot 1)
    w.u32(0x03059002).string("skin text").u8(0).string("").u8(0).string("")
    w.u32(END)
    block(w, "C", 3, 0x100000)
    w.i32(2).u32(0x2E009000)                           # waypoint: a new node (slot 2)
    w.u32(0x2E009000).u32(2).string("Checkpoint").u32(5)
    w.u32(END)
    block(w, "Unassigned1", 0xFF, 0xFFFFFFFF)          # trailing, after the counted ones
    block(w, "Unassigned1", 0xFF, 0xFFFFFFFF)
    w.u32(0x03043022).u32(1)                           # the next chunk must follow exactly
    w.u32(END)
    res = walk(w.bytes())
    assert res.status == "complete", res.error
    v = res.main.chunk(0x0304301F).values
    assert v["numBlocks"] == 3
    assert [b["block"]["blockName"] for b in v["blocks"]] == ["A", "Unassigned1", "B", "C"]
    assert len(v["trailingBlocks"]) == 2
    b, c = v["blocks"][2]["block"], v["blocks"][3]["block"]
    assert b["author"] == "skinAuthor"
    assert b["skin"].node.chunk(0x03059002).values["text"] == "skin text"
    wp = c["blockParameters"].node.chunk(0x2E009000).values
    assert (wp["tag"], wp["order"]) == ("Checkpoint", 5)
    assert res.main.chunk(0x03043022) is not None


def test_chunk_03043013_reads_16_bit_flags_without_version():
    w = W()
    w.u32(0x03043013)
    blocks_chunk(w, None, [("A", 1, 0, False), ("B", 2, 0, False)])
    block(w, "A", 1, 0x1234, flags16=True)
    block(w, "B", 2, 0x8000 - 1, flags16=True)
    w.u32(END)
    res = walk(w.bytes())
    assert res.status == "complete", res.error
    v = res.main.chunk(0x03043013).values
    assert [b["block"]["flags"] for b in v["blocks"]] == [0x1234, 0x7FFF]


def test_items_chunk_with_anchored_objects_and_waypoint():
    for version in (4, 7, 8):
        inner = W()
        inner.u32(10).u32(2)
        for i in range(2):
            inner.u32(0x03101000)                          # a direct node: class id, chunks
            inner.u32(0x03101002).u32(7 if version < 8 else 8)
            inner.id(f"Item{i}.Item.Gbx").id(26).id("author")
            for f in (0.5, 1.0, 1.5):
                inner.f32(f)
            inner.u8(1).u8(2).u8(3).id("")
            for f in (32.0, 8.0, 32.0):
                inner.f32(f)
            if i == 1:
                inner.u32(0x2E009000).u32(0x2E009000).u32(1).u32(7).u32(3).u32(END)
            else:
                inner.u32(0xFFFFFFFF)
            inner.u16(0)
            inner.raw(b"\0" * 12).f32(1.0)                # pivot, scale
            if version >= 8:
                inner.raw(b"\0" * 24)
            inner.u32(END)
        if version < 8:
            inner.u32(1).u32(0).u32(1)                     # one connected pair (0 deletes 1)
        if version >= 5:
            for _ in range(4 if version != 6 else 3):
                inner.u32(0)
            inner.u32(2).i32(-1).i32(-1)
        data = inner.bytes()
        w = W()
        w.u32(0x03043040).u32(0x534B4950).u32(12 + len(data))
        w.u32(version).u32(0).u32(len(data)).raw(data)
        w.u32(END)
        res = walk(w.bytes())
        assert res.status == "complete", res.error
        c = res.main.chunk(0x03043040)
        assert c.error is None, (version, c.error)
        items = [i["item"].node for i in c.values["items"]]
        assert [n.chunk(0x03101002).values["itemFile"] for n in items] == ["Item0.Item.Gbx", "Item1.Item.Gbx"]
        wp = items[1].chunk(0x03101002).values["waypointSpecialProperty"].node.chunk(0x2E009000).values
        assert (wp["spawn"], wp["order"]) == (7, 3)


def small_len(n: int) -> bytes:
    return bytes([n]) if n < 128 else bytes([0x80 | (n & 0x7F)]) + struct.pack("<H", n >> 7)


def small_str(s: str) -> bytes:
    b = s.encode()
    return small_len(len(b)) + b


def metadata_chunk(traits: bytes) -> bytes:
    w = W()
    w.u32(0x03043044).u32(0x534B4950).u32(8 + 4 + len(traits) + 4)
    w.u32(0).u32(4 + len(traits) + 4).u32(0x11002000).raw(traits).u32(END)
    w.u32(END)
    return w.bytes()


def test_metadata_old_encoding():
    t = W()
    t.u32(2).u32(2)
    t.string("Count").u32(2).i32(-7)                   # Integer
    t.string("Names").u32(7).u32(0).u32(5)             # Array: key Void, value Text
    t.u32(2).string("a").string("bc")
    res = walk(metadata_chunk(t.bytes()))
    assert res.status == "complete", res.error
    traits = res.main.chunk(0x03043044).values["metadata"]["traits"]
    assert traits[0]["name"] == "Count" and traits[0]["value"]["integer"] == -7
    assert [e["value"]["text"] for e in traits[1]["value"]["entries"]] == ["a", "bc"]


def test_metadata_type_table_encoding_with_long_lengths_and_structs():
    long_text = "x" * 300                              # needs the 3-byte small length
    types = bytes([4]) + bytes([1]) + bytes([3]) + bytes([7, 0, 2])
    struct_members = W()
    struct_members.u8(15).u8(2).string("S").string("a").u8(2).string("b").u8(5)
    types += struct_members.bytes()
    body = struct.pack("<I", 6) + types + small_len(4)
    body += small_str("Flag") + small_len(0) + b"\x01"
    body += small_str("Real") + small_len(1) + struct.pack("<f", 2.5)
    body += small_str("Times") + small_len(2) + small_len(3) + struct.pack("<3i", 10, 20, 30)
    body += small_str(long_text) + small_len(3) + struct.pack("<i", 4) + small_str("four")
    res = walk(metadata_chunk(body))
    assert res.status == "complete", res.error
    traits = res.main.chunk(0x03043044).values["metadata"]["traits"]
    assert [t["name"] for t in traits] == ["Flag", "Real", "Times", long_text]
    assert traits[0]["value"]["boolean"] == 1
    assert traits[1]["value"]["number"] == 2.5
    assert [e["value"]["integer"] for e in traits[2]["value"]["entries"]] == [10, 20, 30]
    members = traits[3]["value"]["members"]
    assert members[0]["value"]["integer"] == 4 and members[1]["value"]["text"] == "four"


def test_embedded_items_chunk():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Items/A/B.Item.Gbx", b"GBX...")
    zdata = buf.getvalue()
    inner = W()
    inner.u32(1).id("A\\B.Item.Gbx").id(26).id("me")
    inner.u32(len(zdata)).raw(zdata)
    inner.u32(1).string("Textures\\t.dds")
    data = inner.bytes()
    w = W()
    w.u32(0x03043054).u32(0x534B4950).u32(12 + len(data)).u32(1).u32(0).u32(len(data)).raw(data).u32(END)
    res = walk(w.bytes())
    v = res.main.chunk(0x03043054).values
    assert v["items"][0]["name"] == "A\\B.Item.Gbx" and v["zipFile"] == zdata
    assert v["textures"][0]["name"] == "Textures\\t.dds"


def test_huge_block_count_without_data_fails_fast():
    w = W()
    w.u32(0x0304301F)
    blocks_chunk(w, 6, [])
    w.buf[-4:] = struct.pack("<I", 0xFFFFFF)             # numBlocks: 16M, with no data behind
    w.u32(END)
    res = walk(w.bytes())
    assert res.status != "complete" and isinstance(res.error, gbx.GbxError)


@pytest.mark.corpus
def test_damaged_corpus_maps_give_gbx_errors_only(corpus):
    """Truncations and byte flips of real map bodies: a status and a GbxError, never
    another exception (and no hang)."""
    rng = random.Random(5)
    rows = [r for r in manifest_rows() if r["kind"] == "map"]
    for row in rng.sample(rows, 12):
        g = parsed_gbx(row["path"])[1]
        data = g.body_bytes
        for _ in range(6):
            cut = rng.randrange(len(data))
            damaged = bytearray(data[:cut] if rng.random() < 0.4 else data)
            for _ in range(rng.randrange(1, 8)):
                if damaged:
                    damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            res = walk_body(bytes(damaged), class_id=g.header.raw_class_id, num_nodes=g.header.num_nodes)
            if bytes(damaged) == data:          # the flips wrote what was there
                assert res.status == g.body.status == "complete"
            assert res.status in ("complete", "partial", "failed")
            if res.status == "complete":
                assert res.error is None
            else:
                assert isinstance(res.error, gbx.GbxError)


def vsk_desc(version: int) -> bytes:
    """Header chunk 21080001 (Virtual Skipper) laid out field by field."""
    w = W().u8(version)
    if version < 1:
        w.id("uid").id("Sea").id("me").string("Regatta")
    w.bool(True).u32(7)
    if version < 1:
        w.u8(0)
    w.u8(0)
    if version < 9:
        w.u8(2)                                    # boatName: Melges
    else:
        w.id("Boat\nsite\nid")
    if version >= 12:
        w.id("boatAuthor")
    for b in (1, 0, 6, 2, 3, 0, 4):                # raceMode .. startDelay
        w.u8(b)
    w.u32(1200)
    if version >= 2:
        w.u32(600000).bool(True).bool(False).bool(True).u8(5)
        w.f32(2.5)
        if version == 4:
            w.u8(0)
        w.u32(30000)
        if version >= 5:
            w.i32(-15).u8(0)
            if version in (6, 7):
                w.bool(False).string("x")
            if version >= 7:
                w.bool(True)
            if version >= 10:
                w.u32(4).u8(3)
            if version >= 13:
                w.bool(True)
            if version >= 14:
                w.bool(False).bool(True)
    return w.bytes()


@pytest.mark.parametrize("version", [0, 4, 7, 14])
def test_virtual_skipper_desc(version):
    from gbxfs.formats.gbx.decl import registry
    from gbxfs.formats.gbx.nodes import decode_bytes
    v = decode_bytes(registry().get(0x21080001, header=True), vsk_desc(version))
    assert v["startTime"] == 1200 and v["windDirection"] == 6 and v["weather"] == 3
    if version < 9:
        assert v["boatName"] == 2 and str(v["boatName"].label) == "Melges"
    if version >= 14:
        assert v["spawnPoints"] == 4 and v["startSailUp"] is True
