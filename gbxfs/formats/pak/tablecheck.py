"""What a pak entry's file table fields alone say about it, before any byte is read.

A listing asks this of every file it shows (tree/pak/entries.py), so it must
not need an entry object per file: static_error gives the reason from the fields
alone, rows_of runs a verdict over a block's columns.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

from gbxfs.formats.pak.cipher import align8


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


def rows_of(check: Callable[[int, int, int, int], bool]) -> Callable[..., list[int]]:
    """A test of one file's table fields (size, stored size, offset, flags; true: bad)
    over columns (FileTable.columns): the indices of the files it finds bad, in order."""
    return lambda sizes, stored, offsets, flags: list(itertools.compress(range(len(sizes)),
                                                                         map(check, sizes, stored, offsets, flags)))
