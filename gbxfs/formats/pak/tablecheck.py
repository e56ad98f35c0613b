"""What a pak entry's file table fields alone say about it, before any byte is read.

A listing asks this of every file it shows (tree/pak/entries.py), so it must
not need an entry object per file: static_error gives the reason, static_check
the same verdict as one cheap test.
"""
from __future__ import annotations

from typing import Callable

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
