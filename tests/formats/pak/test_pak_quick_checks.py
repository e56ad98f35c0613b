"""The quick forms of two per-file questions a pak's opening and listing ask:
metadata.header_end (a GBX header's length, as read_header finds it) and
tablecheck.rows_of (a verdict over columns, as a listing asks static_error of a
block of files). Each must agree with the full form it stands for."""
from __future__ import annotations

import itertools
import random
import struct
from array import array

import pytest

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.pak.tablecheck import rows_of, static_error
from gbxfs.formats.pak.metadata import header_end
from gbxfs.formats.pak.records import COMPRESSED_FLAGS


def _header(chunks: list[tuple[int, bytes, bool]], num_nodes: int = 3, fmt: bytes = b"BUCR",
            version: int = 6) -> bytes:
    user = b""
    if chunks:
        user = struct.pack("<I", len(chunks))
        user += b"".join(struct.pack("<II", cid, len(data) | (heavy << 31)) for cid, data, heavy in chunks)
        user += b"".join(data for _, data, _ in chunks)
    return b"GBX" + struct.pack("<H", version) + fmt + struct.pack("<II", 0x03043000, len(user)) + user + \
        struct.pack("<I", num_nodes)


def _full_end(data: bytes, pos: int) -> int | None:
    try:
        return pos + parse_header(data[pos:], refs=False).header_end
    except GbxError:
        return None


SAMPLES = [
    _header([]),
    _header([(0x03043002, b"\x01" * 57, False), (0x03043003, b"x" * 200, False), (0x03043007, b"", True)]),
    _header([(0x03043008, b"abc", True)], num_nodes=0, fmt=b"BUUE"),
]


def test_header_end_is_read_headers_end():
    for h in SAMPLES:
        data = b"\x07" * 5 + h + b"GBX trailing records"
        assert header_end(data, 5) == _full_end(data, 5) == 5 + len(h)


def test_header_end_never_differs_from_read_header_on_damaged_headers():
    """Seeded byte damage: the quick form either leaves the header to read_header
    (None) or finds the very end read_header finds."""
    rng = random.Random(12)
    quick = 0
    for h in SAMPLES:
        for _ in range(3000):
            data = bytearray(h + b"\0" * 8)
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(h))] = rng.choice((0, 1, 4, 0x42, 0x55, 0x80, 0xFF, rng.randrange(256)))
            got = header_end(bytes(data), 0)
            if got is not None:
                quick += 1
                assert got == _full_end(bytes(data), 0), bytes(data)
        # cut short: never read past the records
        for cut in range(len(h)):
            got = header_end(h[:cut], 0)
            assert got is None or got == _full_end(h[:cut], 0)
    assert quick > 1000     # the damage left many headers whole (the unknown byte, class ids, chunk data)


def test_header_end_leaves_other_kinds_to_read_header():
    assert header_end(_header([], fmt=b"TUUR"), 0) is None     # text
    assert header_end(_header([], version=5), 0) is None


def _verdict(file_size: int, data_offset: int):
    """static_error's verdict over a file's table fields, as the tree asks it (tree/pak/archive.py)."""
    return lambda size, stored, offset, flags: static_error(file_size, data_offset + offset, size, stored,
                                                            bool(flags & COMPRESSED_FLAGS)) is not None


def test_static_error_names_each_case():
    file_size, data_offset = 4000, 1000
    compressed = next(iter(f for f in (1, 2, 4, 8, 16, 32, 64, 128, 256) if f & COMPRESSED_FLAGS))
    seen = set()
    for size, stored, offset, flags in itertools.product(
            (0, 1, 7, 8, 100, 2990), (0, 1, 7, 8, 9, 100, 2984, 2985, 2991, 2992, 2993),
            (0, 1, 8, 2984, 2992, 3000), (0, compressed, COMPRESSED_FLAGS)):
        want = static_error(file_size, data_offset + offset, size, stored, bool(flags & COMPRESSED_FLAGS))
        seen.add(want.split(":")[0] if want else None)
    assert {None, "pak truncated", "compressed entry has no data", "stored entry holds 8 bytes, the file table says 100"} <= seen


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rows_of_finds_the_files_static_error_names(seed):
    """rows_of runs a verdict over a block's columns (arrays or lists): the indices of
    the files static_error names, in order, around every edge of its tests (the data's
    end, a short stored size, a compressed entry without data)."""
    rng = random.Random(seed)
    file_size, data_offset = rng.choice([(4000, 1000), (1 << 32, 100), (1000, 993), (1000, 1000)])
    bad = _verdict(file_size, data_offset)
    rows = rows_of(bad)
    limit = file_size - data_offset - 8
    near = [0, 1, 7, 8, 9, 100, limit - 9, limit - 8, limit - 7, limit - 1, limit, limit + 1, (1 << 32) - 1]
    near = [v for v in near if 0 <= v < 1 << 32]
    flag_values = [0, 1, 2, 4, 0x80, COMPRESSED_FLAGS, 0x7D, 0xFFFF_FFFF]
    for n in (1, 2, 7, 64, 1000):
        cols = [array("I", (rng.choice(near) for _ in range(n))) for _ in range(3)]
        cols.append(array("I", (rng.choice(flag_values) for _ in range(n))))
        want = [k for k in range(n) if static_error(file_size, data_offset + cols[2][k], cols[0][k], cols[1][k],
                                                    bool(cols[3][k] & COMPRESSED_FLAGS))]
        assert rows(*cols) == want
        assert rows(*map(list, cols)) == want
    assert rows(array("I"), array("I"), array("I"), array("I")) == []
