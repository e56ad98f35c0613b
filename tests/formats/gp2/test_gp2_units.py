"""Region readers on small hand-built inputs. Expected values come from the
rules in FORMAT.md (sections named in each test), worked by hand."""
from __future__ import annotations

import struct

import pytest

from gbxfs.formats.gp2 import Gp2Error, decode, parse
from gbxfs.formats.gp2.ccline import read_ccline
from gbxfs.formats.gp2.checksum import compute
from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.header import read_header
from gbxfs.formats.gp2.render_info import render_info
from gbxfs.formats.gp2.sectors import read_stream
from gbxfs.formats.gp2.tail import read_cameras, read_jams, read_various
from gp2_oracle import gp2_rows, read_corpus


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}H", *(v & 0xFFFF for v in values))


def sector(length: int, arc=0, height=0, flags=0, right=1, left=2) -> bytes:
    return struct.pack("<BBhhHBB", length, 0, arc, height, flags, right, left)


def cur(data: bytes, what="test") -> Cursor:
    return Cursor(data, 0, len(data), what)


# --- checksum (§10): a = byte sum, b = rol16(b, 3) + byte -------------------

def test_checksum_small_by_hand():
    # a = 1 + 2; b: 0 -> rol(0)+1 = 1 -> rol(1)+2 = 8+2 = 10
    assert compute(b"\x01\x02") == (3, 10)


def test_checksum_rotates_not_shifts():
    # b: 0x80 -> 0x400 -> 0x2000 -> rol(0x2000) = 0x0001 -> 0x0008 -> 0x0040
    assert compute(b"\x80" + bytes(5)) == (0x80, 0x40)


def test_checksum_sum_wraps():
    assert compute(b"\xff" * 300)[0] == (255 * 300) & 0xFFFF


# --- sector streams (§6.2, §6.3) --------------------------------------------

def test_commands_belong_to_next_sector():
    data = words(0x8105, 80) + sector(31) + words(0x8700) + sector(7) + words(0xFFFF)
    s = read_stream(cur(data), 0)
    assert [x.length for x in s.sectors] == [31, 7]
    first, second = s.sectors
    assert [(c.ident, c.arg0, c.args) for c in first.commands] == [(0x81, 5, (80,))]
    assert [(c.ident, c.args) for c in second.commands] == [(0x87, ())]
    assert s.trailing == [] and s.end == len(data)


def test_commands_after_last_sector_are_trailing():
    data = sector(3) + words(0x9B00, 0x9E00) + words(0xFFFF)
    s = read_stream(cur(data), 0)
    assert len(s.sectors) == 1
    assert [c.ident for c in s.trailing] == [0x9B, 0x9E]
    assert [i for i, _ in s.commands] == [1, 1]  # one past the last sector


def test_c5_takes_six_arguments_without_header_bit():
    data = words(0xC500, 1, 2, 3, 4, 5, 6) + sector(9) + words(0xFFFF)
    s = read_stream(cur(data), 0)
    assert s.sectors[0].commands[0].args == (1, 2, 3, 4, 5, 6)


def test_c5_takes_seven_arguments_with_header_bit_0x200():
    data = words(0xC500, 1, 2, 3, 4, 5, 6, 7) + sector(9) + words(0xFFFF)
    s = read_stream(cur(data), 0x200)
    assert s.sectors[0].commands[0].args == (1, 2, 3, 4, 5, 6, 7)
    assert s.sectors[0].length == 9


def test_b8_has_thirteen_arguments():
    data = words(0xB800, *range(13)) + sector(4) + words(0xFFFF)
    assert read_stream(cur(data), 0).sectors[0].commands[0].args == tuple(range(13))


def test_unknown_command_is_an_error():
    data = words(0xAE00, 1) + sector(1) + words(0xFFFF)   # 0xAE is GP3-only
    with pytest.raises(Gp2Error, match="0xAE"):
        read_stream(cur(data), 0)


def test_word_that_is_neither_sector_nor_command():
    with pytest.raises(Gp2Error, match="neither"):
        read_stream(cur(words(0x1234) + words(0xFFFF)), 0)


def test_missing_terminator_is_an_error():
    with pytest.raises(Gp2Error, match="runs past"):
        read_stream(cur(sector(1) + sector(2)), 0)


# --- track header (§6.1) -----------------------------------------------------

def _header(kind: int, colours: list[int]) -> bytes:
    return struct.pack("<H6hHBBH", 0, 0, 0, 0, 0, 0, 0, 0x200, 1, 2, kind) + words(*colours)


@pytest.mark.parametrize("kind, colours, size", [
    (3, [1, 2, 3, 4], 28),                      # two-colour kerbs
    (4, [1, 2, 3, 4, 5, 6], 32),                 # three-colour kerbs (Aida)
    (4, [0x39, 0x39, 0x29, 0x29, 0x39, 0x39, 0x9C, 0x9C], 36),  # Adelaide's longer list
])
def test_header_sizes(kind, colours, size):
    data = _header(kind, colours) + words(0xAC00) + bytes(8)
    h = read_header(cur(data))
    assert h.size == size and h.kerb_colours == tuple(colours) and h.flags == 0x200


def test_header_unknown_kerb_kind():
    with pytest.raises(Gp2Error, match="kerb kind"):
        read_header(cur(_header(5, [1, 2, 3, 4]) + words(0xAC00)))


# --- CC line (§7) ------------------------------------------------------------

def test_ccline_segment_sizes():
    data = bytes(12) + bytes([10, 0x50]) + words(1, 2, 3) + bytes([20, 0x70]) + words(1, 2, 3, 4, 5)
    line = read_ccline(cur(data + words(0)))
    assert [(s.length, s.kind, len(s.values)) for s in line.segments] == [(10, 0x50, 3), (20, 0x70, 5)]
    assert line.end == 12 + 8 + 12 + 2 and line.length_units == 30


def test_ccline_unknown_segment_type():
    with pytest.raises(Gp2Error, match="0x60"):
        read_ccline(cur(bytes(12) + bytes([10, 0x60]) + bytes(10)))


# --- cameras, various data, jam files (§10) ----------------------------------

def test_cameras_end_with_two_byte_terminator():
    data = words(*range(16)) + words(*range(16, 32)) + words(0xFFFF) + b"rest"
    c = cur(data)
    cams = read_cameras(c)
    assert [cam.words[0] for cam in cams] == [0, 16] and c.pos == 66


def test_various_block_is_344_bytes_with_laps_at_index_11():
    table = list(range(50))
    table[11] = 72
    block = words(*table) + words(0, 0, 19, 1, 0xFFFF)
    block += bytes(344 - len(block))
    c = cur(block + b"next")
    v = read_various(c)
    assert v.laps == 72 and v.pairs == [(0, 0), (19, 1)] and v.terminated
    assert c.pos == 344


def test_jam_paths_read_to_the_end_not_the_count():
    data = struct.pack("<IH", 0x54E4, 3) + b"gamejams\\a.jam\0gamejams\\b.jam\0"
    j = read_jams(cur(data))
    assert j.count_field == 3 and j.paths == ["gamejams\\a.jam", "gamejams\\b.jam"]
    assert j.object_offset == 0x54E4


def test_jam_path_without_nul():
    with pytest.raises(Gp2Error, match="NUL"):
        read_jams(cur(struct.pack("<IH", 0, 1) + b"gamejams\\a.jam"))


# --- whole files -------------------------------------------------------------

def test_not_gp2_gives_none():
    assert parse(b"") is None
    assert parse(bytes(0x2000)) is None
    with pytest.raises(Gp2Error, match="too short"):
        decode(b"packlist")


@pytest.mark.parametrize("row", gp2_rows()[:1], ids=["first GP2 track"])
def test_bad_checksum_is_reported_not_fatal(corpus, row):
    data = bytearray(read_corpus(row))
    data[100] ^= 0xFF  # inside the unused leading block: structure untouched
    t = decode(bytes(data))
    assert not t.checksum.ok
    assert "checksum = bad" in render_info(t).decode().splitlines()
    assert t.rebuild() == bytes(data)


# --- leading block (§2) and describe() ----------------------------------------

def test_gp2info_pairs_from_editor_saved_tracks():
    from gbxfs.formats.gp2.preamble import gp2info
    block = b"#GP2INFO|Name|Phoenix|Laps|72|#" + bytes(100)
    assert gp2info(block) == [("Name", "Phoenix"), ("Laps", "72")]
    assert gp2info(b"\xef" * 4096) == []


@pytest.mark.parametrize("row", gp2_rows()[:1], ids=["first GP2 track"])
def test_describe_for_gbxfs_info(corpus, row):
    from gbxfs.formats.gp2 import describe
    text = describe(read_corpus(row))
    assert "format = GP2 track" in text.splitlines()
    with pytest.raises(Gp2Error):
        describe(b"not a track")
