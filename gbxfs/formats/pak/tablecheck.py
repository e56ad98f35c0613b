"""What a pak entry's file table fields alone say about it, before any byte is read.

A listing asks this of every file it shows (tree/pak/entries.py), so it must
not need an entry object per file: static_error gives the reason, static_check
the same verdict as one cheap test.
"""
from __future__ import annotations

import functools
import itertools
from array import array
from collections.abc import Callable, Sequence

from gbxfs.formats.pak.cipher import align8
from gbxfs.formats.pak.records import COMPRESSED_FLAGS


def static_error(file_size: int, start: int, size: int, stored_size: int, compressed: bool) -> str | None:
    """Why an entry cannot be read, from its file table fields alone (None: it may be).
    `start`: where its data begins in the pak (data offset + the entry's offset).
    The tree asks this of a listing's files without making an entry per file."""
    end = start + 8 + align8(stored_size)
    if end > file_size:
        return f"pak truncated: data ends at {end:#x}, the pak has {file_size:#x} bytes"
    if not compressed and stored_size < size:
        return f"stored entry holds {stored_size} bytes, the file table says {size}"
    if compressed and size and not stored_size:
        return "compressed entry has no data"
    return None


def static_check(file_size: int, data_offset: int) -> Callable[[int, int, int, int], bool]:
    """static_error's verdict as one test of a file's table fields (size, stored
    size, offset, flags): true exactly when static_error names something. A
    listing asks it of every file, so it is one call with the arithmetic inline."""
    limit = file_size - data_offset - 8     # static_error's end > file_size, moved over

    def bad(size: int, stored_size: int, offset: int, flags: int) -> bool:
        if offset + ((stored_size + 7) & ~7) > limit:
            return True
        if flags & COMPRESSED_FLAGS:
            return bool(size) and not stored_size
        return stored_size < size
    return bad


def static_rows(file_size: int, data_offset: int) -> Callable[[Sequence[int], Sequence[int], Sequence[int],
                                                               Sequence[int]], list[int]]:
    """static_check over columns (sizes, stored sizes, offsets, flags of many files,
    FileTable.columns): the indices of the files it finds bad, in order. A listing
    asks this per block of files (tree/pak/columns.py): for u32 arrays the test runs
    on all of them at once, each column one big integer of 64-bit lanes, in a few
    big-integer operations instead of a call per file."""
    bad = static_check(file_size, data_offset)
    limit = file_size - data_offset - 8

    one_by_one = rows_of(bad)

    def rows(sizes, stored, offsets, flags) -> list[int]:
        columns = (sizes, stored, offsets, flags)
        if not len(sizes) or limit < 0 or not all(isinstance(c, array) and c.typecode == "I" for c in columns):
            return one_by_one(sizes, stored, offsets, flags)
        return _lane_bits(_verdicts(*map(_lanes, columns), limit, len(sizes)), len(sizes))  # type: ignore[call-arg]  # *: four
    return rows


def rows_of(check: Callable[[int, int, int, int], bool]) -> Callable[..., list[int]]:
    """A static_check-like test over columns, file by file (a call per file)."""
    return lambda sizes, stored, offsets, flags: list(itertools.compress(range(len(sizes)),
                                                                         map(check, sizes, stored, offsets, flags)))


def _lanes(column: array) -> int:
    """The u32 values of `column` as one integer, value k in bits 64k..64k+31."""
    wide = array("I", bytes(8 * len(column)))
    wide[::2] = column
    return int.from_bytes(wide, "little")


def _verdicts(size: int, stored: int, offset: int, flags: int, limit: int, n: int) -> int:
    """static_check's verdict of every lane: bit 63 of lane k set when file k is bad.
    The fields' sums stay below 2**35 per lane, and with the added constants (at most
    2**63 - 1) below 2**64, so no sum or difference carries into the next lane: the
    lanes are tested independently."""
    ones, top, low, sevens, align, packed = _constants(n)

    def nonzero(x: int) -> int:           # bit 63 where a lane (< 2**63) is not 0
        return (x + low) & top
    # offset + align8(stored) > limit: past 2**63 - 1 once limit's complement is added
    end = offset + ((stored + sevens) & align)
    truncated = (end + ones * ((1 << 63) - 1 - limit)) & top
    compressed = nonzero(flags & packed)
    short = top ^ (((stored | top) - size) & top)       # stored < size: the borrow took bit 63
    empty = compressed & nonzero(size) & (top ^ nonzero(stored))
    return truncated | empty | ((top ^ compressed) & short)


@functools.lru_cache(maxsize=4)
def _constants(n: int) -> tuple[int, ...]:
    """_verdicts' lane constants for n lanes (made once per block size): 1, bit 63,
    2**63 - 1, 7, ~7 and COMPRESSED_FLAGS in every lane."""
    ones = int.from_bytes(b"\1\0\0\0\0\0\0\0" * n, "little")
    return ones, ones << 63, ones * ((1 << 63) - 1), ones * 7, ones * 0xFFFF_FFFF_FFFF_FFF8, ones * COMPRESSED_FLAGS


def _lane_bits(verdicts: int, n: int) -> list[int]:
    """The lanes (of n) whose bit 63 is set, in order. A few by lowest set bit; many
    (a hostile table's block of bad files) from the top byte of every lane, in one
    C pass: peeling the lowest bit copies the whole integer per bad file."""
    if verdicts.bit_count() > 16:
        return list(itertools.compress(range(n), verdicts.to_bytes(8 * n, "little")[7::8]))
    out = []
    while verdicts:
        lowest = verdicts & -verdicts
        out.append((lowest.bit_length() - 1) >> 6)
        verdicts ^= lowest
    return out
