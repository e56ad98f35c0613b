"""The chunk DSL: every construct, decoding and dumping, and declaration errors."""
from __future__ import annotations

import struct
import zlib

import pytest
from gbxfs.formats.gbx.writer import W

from gbxfs.formats.gbx.decl import DeclarationError
from gbxfs.formats.gbx.dump import dump_values, f32_repr
from gbxfs.formats.gbx.decl import Registry
from gbxfs.formats.gbx.nodes import NodeWalker, decode_bytes
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.reader import GbxReader


def reg(text: str) -> Registry:
    r = Registry.from_texts([("t.chunks", text)])
    assert not r.errors, r.errors
    return r


def decode(src: str, data: bytes, chunk_id: int = 0x01002000, **kw):
    r = reg(src)
    return decode_bytes(r.get(chunk_id), data, decls=r, **kw)


def errors_of(text: str) -> list[str]:
    return [str(e) for e in Registry.from_texts([("t.chunks", text)]).errors]


def test_scalar_fields_names_and_auto_names():
    src = """
01002000 "Test"
    uint32 version
    bool 0
    byte
    int16 delta (signed)
    float speed
    string name
"""
    data = W().u32(7).bool(False).u8(3).raw(struct.pack("<h", -2)).f32(1.5).string("abc").bytes()
    v = decode(src, data)
    assert v == {"version": 7, "_u1": False, "_u2": 3, "delta": -2, "speed": 1.5, "name": "abc"}
    assert reg(src).get(0x01002000).name == "Test"


def test_several_fields_on_one_line_like_the_seed():
    src = "01002000\n    uint32 version uint32 authorVersion string authorLogin\n"
    v = decode(src, W().u32(1).u32(2).string("me").bytes())
    assert v == {"version": 1, "authorVersion": 2, "authorLogin": "me"}


def test_type_words_as_names():
    # seed words are always types; aliases like color/id/node are names after a type
    src = "01002000\n    uint32 uint32 uint32\n    vec3 color\n    color\n    string id\n"
    data = W().u32(1).u32(2).u32(3).f32(1).f32(2).f32(3).f32(4).f32(5).f32(6).string("x").bytes()
    v = decode(src, data)
    assert v == {"_u1": 1, "_u2": 2, "_u3": 3, "color": (1.0, 2.0, 3.0), "_u4": (4.0, 5.0, 6.0), "id": "x"}


def test_unindented_body_as_in_the_seed():
    src = "01002000\nuint32 a\nif a == 1:\n    uint32 b\n01002001\nuint32 c\n"
    r = reg(src)
    assert decode_bytes(r.get(0x01002000), W().u32(1).u32(5).bytes()) == {"a": 1, "b": 5}
    assert decode_bytes(r.get(0x01002001), W().u32(9).bytes()) == {"c": 9}


def test_enum_labels_keep_int_behaviour_and_show_in_dump():
    src = "01002000\n    uint32 kind (0: (internal)EndMarker, 1: (old)Campaign,\n      2: Puzzle)\n    uint32 other (3: X)\n"
    v = decode(src, W().u32(1).u32(4).bytes())
    assert v["kind"] == 1 and v["kind"].label == "(old)Campaign"
    assert v["other"] == 4 and not hasattr(v["other"], "label")   # no label for unlisted values
    assert dump_values(v) == "kind = 1 ((old)Campaign)\nother = 4\n"


def test_duplicate_names_are_kept_and_expressions_see_the_latest():
    src = """
01002000
    uint32 n
    uint32 n
    uint32 items[n]
"""
    v = decode(src, W().u32(5).u32(2).u32(10).u32(11).bytes())
    assert v == {"n": 5, "n_2": 2, "items": [10, 11]}


def test_if_elif_else_and_c_style_operators():
    src = """
01002000
    uint32 version
    if version >= 3 && version != 5:
        uint32 a
    elif !(version == 5) || false:
        uint32 b
    else:
        uint32 c
"""
    assert decode(src, W().u32(4).u32(1).bytes()) == {"version": 4, "a": 1}
    assert decode(src, W().u32(2).u32(1).bytes()) == {"version": 2, "b": 1}
    assert decode(src, W().u32(5).u32(1).bytes()) == {"version": 5, "c": 1}


def test_casts_and_functions_in_expressions():
    src = """
01002000
    uint16 w
    if (int16)w >= 0:
        uint8 pos
    else:
        uint8 neg
    let m = max(w, 3) + len("ab")
"""
    assert decode(src, W().u16(0xFFFF).u8(1).bytes()) == {"w": 0xFFFF, "neg": 1, "m": 0xFFFF + 2}
    assert decode(src, W().u16(2).u8(1).bytes()) == {"w": 2, "pos": 1, "m": 5}


def test_arrays_bytes_numbers_seed_spelling_and_expression_counts():
    src = """
01002000
    uint32 size
    byte[size] thumb
    byte data[size - 1]
    uint32 items[size]
    float fs[2]
    string names[2]
"""
    data = (W().u32(3).raw(b"abc").raw(b"de").u32(1).u32(2).u32(3).f32(0.5).f32(2.0)
            .string("x").string("y").bytes())
    v = decode(src, data)
    assert v == {"size": 3, "thumb": b"abc", "data": b"de", "items": [1, 2, 3], "fs": [0.5, 2.0],
                 "names": ["x", "y"]}


def test_hostile_array_count_fails_before_allocating():
    src = "01002000\n    uint32 n\n    uint32 items[n]\n"
    with pytest.raises(GbxError, match="needs at least"):
        decode(src, W().u32(1000).u32(1).bytes())
    src2 = "01002000\n    uint32 n\n    for each item in n:\n        uint32 x\n"
    with pytest.raises(GbxError, match="out of range"):
        decode(src2, W().u32(0xFFFFFFF0).bytes())


def test_loops_implicit_count_explicit_and_list_syntax():
    src = """
01002000
    uint32 numKeys
    for each key:
        float t
        uint32 numPoints
        for each point:
            uint32 p
    uint32 count
    list pairs[count]:
        uint32 a
    for each x in count - 1 as xs:
        uint32 b
"""
    data = (W().u32(2).f32(1.0).u32(1).u32(7).f32(2.0).u32(0)
            .u32(2).u32(10).u32(11).u32(12).bytes())
    v = decode(src, data)
    assert v == {
        "numKeys": 2,
        "keys": [{"t": 1.0, "numPoints": 1, "points": [{"p": 7}]}, {"t": 2.0, "numPoints": 0, "points": []}],
        "count": 2, "pairs": [{"a": 10}, {"a": 11}], "xs": [{"b": 12}],
    }


def test_implicit_loop_count_must_be_found():
    errs = errors_of("01002000\n    uint32 n\n    for each key:\n        uint32 x\n")
    assert len(errs) == 1 and "t.chunks:3" in errs[0] and "for each key in <count>" in errs[0]


def test_continue_and_continue_uncounted():
    src = """
01002000
    uint32 numBlocks
    for each block:
        uint32 flags
        if flags == 0xFFFFFFFF:
            continue uncounted
        if flags == 0:
            continue
        uint32 extra
"""
    data = W().u32(2).u32(0xFFFFFFFF).u32(0).u32(5).u32(9).bytes()
    v = decode(src, data)
    assert v["blocks"] == [{"flags": 0xFFFFFFFF}, {"flags": 0}, {"flags": 5, "extra": 9}]


def test_structs_nested_recursive_and_seeing_outer_fields():
    src = """
struct Pair
    uint32 a
    if version >= 2:
        uint32 b

struct Tree
    uint32 n
    Tree children[n]

01002000
    uint32 version
    Pair p
    Pair ps[2]
    Tree t
"""
    data = W().u32(2).u32(1).u32(2).u32(3).u32(4).u32(5).u32(6).u32(1).u32(0).bytes()
    v = decode(src, data)
    assert v["p"] == {"a": 1, "b": 2}
    assert v["ps"] == [{"a": 3, "b": 4}, {"a": 5, "b": 6}]
    assert v["t"] == {"n": 1, "children": [{"n": 0, "children": []}]}


def test_recursive_struct_depth_is_bounded():
    src = "struct T\n    uint32 n\n    T children[n]\n01002000\n    T t\n"
    data = W()
    for _ in range(100):
        data.u32(1)
    with pytest.raises(GbxError, match="nested deeper"):
        decode(src, data.bytes())


def test_meta_flattened_named_and_with_subnames():
    src = """
01002000
    meta (mapUid, environment, mapAuthor)
    meta decoration (timeOfDay, environment, envirAuthor)
    meta plain
"""
    w = W()
    w.id("uid").id("Stadium").id("me").id("Day").id("Stadium").id("Nadeo").id("a").id(26).id("")
    v = decode(src, w.bytes())
    assert v["mapUid"] == "uid" and v["environment"] == "Stadium" and v["mapAuthor"] == "me"
    assert v["decoration"] == {"timeOfDay": "Day", "environment": "Stadium", "envirAuthor": "Nadeo"}
    assert v["plain"] == {"id": "a", "collection": 26, "author": ""}


def test_read_chunk_merges_values_and_keeps_chunk_id():
    src = """
0304301F
    uint32 size
    if chunk_id != 0x03043013:
        uint32 version

03043013
    read chunk 0304301F
    ReadChunk(0x0304301F) string tail
"""
    r = reg(src)
    v = decode_bytes(r.get(0x03043013), W().u32(1).u32(2).string("t").bytes(), decls=r)
    assert v == {"size": 1, "size_2": 2, "tail": "t"}
    v = decode_bytes(r.get(0x0304301F), W().u32(1).u32(3).bytes(), decls=r)
    assert v == {"size": 1, "version": 3}


def test_markers_must_match():
    src = '01002000\n    "<Thumb>"\n    uint32 x\n'
    assert decode(src, b"<Thumb>" + W().u32(1).bytes()) == {"x": 1}
    with pytest.raises(GbxError, match="expected b'<Thumb>'"):
        decode(src, b"<Thumbs" + W().u32(1).bytes())


def test_encapsulated_block_has_its_own_lookback_state():
    src = """
01002000
    lookbackstring a
    encapsulated:
        lookbackstring b
        lookbackstring c
    lookbackstring d
"""
    outer = W()
    outer.id("x")
    inner = W()
    inner.id("y").id("y")
    data = outer.bytes() + inner.bytes() + W().u32(0x40000001).bytes()
    assert decode(src, data) == {"a": "x", "b": "y", "c": "y", "d": "x"}


def test_encapsulated_flag_on_a_chunk():
    src = "01002000 encapsulated\n    lookbackstring a\n"
    r = reg(src)
    w = W()
    w.id("q")
    reader = GbxReader(w.bytes(), walker=NodeWalker(r))
    reader.ids.version = 3
    reader.ids.strings.append("outer")
    assert r.get(0x01002000).decode(reader) == {"a": "q"}
    assert reader.ids.strings == ["outer"]     # restored after the chunk


def test_feed_calls_the_hook_with_bytes():
    src = """
0900F004
    float x
    float x2
    feed f32le(x - x2)
    string name
    feed ascii(name)[:4]
"""
    fed = []
    r = reg(src)
    reader = GbxReader(W().f32(3.0).f32(1.0).string("Vehicle").bytes(), walker=NodeWalker(r), feed=fed.append)
    r.get(0x0900F004).decode(reader)
    assert fed == [struct.pack("<f", 2.0), b"Vehi"]


def test_feed_without_hook_is_a_no_op():
    src = "01002000\n    uint32 x\n    feed u32le(x)\n"
    assert decode(src, W().u32(1).bytes()) == {"x": 1}


def test_assert_and_let():
    src = "01002000\n    uint32 ignored\n    assert ignored == 0xA\n    let double = ignored * 2\n"
    assert decode(src, W().u32(10).bytes()) == {"ignored": 10, "double": 20}
    with pytest.raises(GbxError, match="t.chunks:3: assertion failed"):
        decode(src, W().u32(11).bytes())


def test_inflate_block_reads_the_inflated_bytes():
    src = """
0303F005
    uint32 uncompressedSize
    uint32 compressedSize
    byte compressedData[compressedSize]
    inflate compressedData size uncompressedSize:
        uint32 classID
        string s
"""
    inner = W().u32(0x0A).string("hello").bytes()
    comp = zlib.compress(inner)
    data = W().u32(len(inner)).u32(len(comp)).raw(comp).bytes()
    v = decode(src, data, chunk_id=0x0303F005)
    assert v["classID"] == 0x0A and v["s"] == "hello"
    bad = W().u32(len(inner) + 1).u32(len(comp)).raw(comp).bytes()
    with pytest.raises(GbxError, match="inflates to"):
        decode(src, bad, chunk_id=0x0303F005)


def test_sized_block_reads_exactly_its_bytes():
    src = """
01002000
    uint32 size
    sized size:
        string s
        byte rest[remaining]
    uint32 after
"""
    data = W().u32(11).string("abc").raw(b"\x01\x02\x03\x04").u32(7).bytes()
    v = decode(src, data)
    assert v["s"] == "abc" and v["rest"] == b"\x01\x02\x03\x04" and v["after"] == 7
    short = "01002000\n    uint32 size\n    sized size:\n        uint32 a\n    uint32 after\n"
    with pytest.raises(GbxError, match="t.chunks:3: 4 bytes of the sized block left unread"):
        decode(short, W().u32(8).u32(1).u32(2).u32(3).bytes())
    with pytest.raises(GbxError, match="need 4 bytes, 2 left"):
        decode(short, W().u32(2).u32(1).u32(3).bytes())


def test_value_from_a_branch_that_did_not_run_is_a_decode_error():
    src = "01002000\n    uint32 v\n    if v == 1:\n        uint32 n\n    uint32 items[n]\n"
    with pytest.raises(GbxError, match="'n' was not read"):
        decode(src, W().u32(0).bytes())


def test_bool_out_of_range_is_an_error():
    with pytest.raises(GbxError, match="bool is 0x2"):
        decode("01002000\n    bool b\n", W().u32(2).bytes())


def test_decode_must_consume_exactly_the_chunk():
    with pytest.raises(GbxError, match="read 4 of 8 bytes"):
        decode("01002000\n    uint32 a\n", W().u32(1).u32(2).bytes())


def test_text_mode_decoding():
    src = "01002000\n    uint32 n\n    float f\n    string s\n    uint32 xs[n]\n    byte raw[2]\n"
    data = W(text=True).u32(2).f32(0.25).string("hi").u32(5).u32(6).bytes() + b"ab"
    v = decode(src, data, text=True)
    assert v == {"n": 2, "f": 0.25, "s": "hi", "xs": [5, 6], "raw": b"ab"}


@pytest.mark.parametrize("text, message", [
    ("01002000\n    uint32 a\n    uint32 b[c]\n", "t.chunks:3: unknown name c"),
    ("01002000\n    uint33 a\n", "t.chunks:2: unknown statement or type 'uint33'"),
    ("01002000\n    Vec9 a\n", "t.chunks:2: unknown type 'Vec9'"),
    ("01002000\n    uint32 a\n      uint32 b\n", "t.chunks:3: unexpected indented block"),
    ("01002000\n    elif a:\n        uint32 b\n", "t.chunks:2: elif without a matching if"),
    ("01002000\n    uint32 a\n    if a == 1:\n", "t.chunks:3: if needs an indented block"),
    ("01002000 sometimes\n    uint32 a\n", "t.chunks:1: unknown chunk flag 'sometimes'"),
    ("01002000 (skipable)\n    uint32 a\n", "t.chunks:1: unknown chunk flag 'skipable' (did you mean 'skippable'?"),
    ("01002000 (header, unverifed)\n    uint32 a\n", "t.chunks:1: unknown chunk flag 'unverifed'"),
    ("01002000\n    uint32 version = 10\n", "t.chunks:2: '= value' after a field is not part of the language"),
    ("01002000\n    uint32 a\n    if __import__('os'):\n        uint32 b\n", "t.chunks:3: only the functions"),
    ("01002000\n    uint32 a\n    if a ** 2:\n        uint32 b\n", "t.chunks:3: BinOp not allowed"),
    ("01002000\n    uint32 a\n    if [x for x in a]:\n        uint32 b\n", "t.chunks:3: ListComp not allowed"),
    ("01002000\n    uint32 a (\n", "t.chunks:2: unclosed parenthesis"),
    ("01002000\n    read chunk 01002999\n", "t.chunks:2: read chunk 01002999: no declaration"),
    ("01002000\n    read chunk 01002000\n", "t.chunks:2: read chunk 01002000 reads itself"),
    ("01002000 xml=missing\n    string xml\n", "t.chunks:1: xml=missing"),
    ("    uint32 a\n", "t.chunks:1: indented line outside a chunk"),
    ("01002000\n    uint32 a\n    if a:\n        continue\n", "t.chunks:4: continue outside a loop"),
])
def test_declaration_errors_name_file_and_line(text, message):
    errs = errors_of(text)
    assert len(errs) == 1 and errs[0].startswith(message), errs


def test_parenthesised_words_without_a_flag_stay_a_comment():
    r = reg("01002000 (all fields are ignored) (skippable)\n    uint32 a\n")
    d = r.get(0x01002000)
    assert d.flags == {"skippable"} and d.definition.comment == "all fields are ignored"


def test_duplicate_chunk_declarations_are_reported():
    r = Registry.from_texts([("a.chunks", "01002000\n    uint32 a\n"), ("b.chunks", "01002000\n    uint32 b\n")])
    assert len(r.errors) == 1 and "b.chunks:1" in str(r.errors[0]) and "a.chunks:1" in str(r.errors[0])
    assert r.get(0x01002000) is not None        # the first one stays usable


def test_header_and_body_declarations_of_one_id():
    r = reg("03093002 header\n    uint32 version\n03093002\n    uint32 size\n")
    assert r.get(0x03093002, header=True).definition.body[0].name == "version"
    assert r.get(0x03093002).definition.body[0].name == "size"
    only_body = reg("03043011\n    uint32 a\n")
    assert only_body.get(0x03043011, header=True) is not None   # falls back to the other kind


def test_a_broken_file_does_not_hide_other_files():
    r = Registry.from_texts([("bad.chunks", "01002000\n    uint32 a (\n"), ("good.chunks", "01002001\n    uint32 b\n")])
    assert len(r.errors) == 1 and isinstance(r.errors[0], DeclarationError)
    assert r.get(0x01002001) is not None


def test_dump_format():
    values = {"a": 1, "f": 0.1, "s": 'x"y', "b": True, "raw": b"\x01\x02", "big": bytes(100),
              "v": (1.0, 2.5, 0.1), "nums": [1, 2], "items": [{"x": 1}, {"x": 2}], "d": {"k": "v"},
              "none": None}
    assert dump_values(values) == (
        'a = 1\nf = 0.1\ns = "x\\"y"\nb = true\nraw = <2 bytes: 0102>\n'
        "big = <100 bytes: 00000000000000000000000000000000...>\n"
        "v = (1, 2.5, 0.1)\nnums = [1, 2]\nitems: 2 items\n  [0]\n    x = 1\n  [1]\n    x = 2\n"
        'd:\n  k = "v"\nnone = null\n')


def test_f32_repr_is_shortest_round_trip():
    x = struct.unpack("<f", struct.pack("<f", 1.1))[0]
    assert x != 1.1 and f32_repr(x) == "1.1"
    assert f32_repr(3.0) == "3" and f32_repr(float("nan")) == "nan"


def test_f32_texts_remembered_are_the_computed_ones():
    """A dump's F32Texts remembers recent texts: asking again, after it filled and
    emptied, or for the other zero, gives what f32_repr gives."""
    from gbxfs.formats.gbx import dump
    texts = dump.F32Texts()
    assert (texts[0.0], texts[-0.0], texts[0.0]) == ("0", "-0", "0")
    assert texts[float("nan")] == "nan" and not texts
    xs = [struct.unpack("<f", struct.pack("<f", i / 7))[0] for i in range(1, dump.F32_TEXTS_MAX + 50)]
    first = [texts[x] for x in xs]
    assert first == [f32_repr(x) for x in xs] == [texts[x] for x in xs]
    assert 0 < len(texts) <= dump.F32_TEXTS_MAX
