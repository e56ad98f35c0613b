"""What a pak's file table adds up to, in one pass over its raw fields.

    s = sums(table)      # s.files, s.compressed, s.encrypted, s.no_feed, s.size, s.stored_size
    s, ids = scan(table, wanted)   # the same, and the files FileTable.without_extension_in picks
    roots(table)         # the first path component of every file, sorted

A table may list a million files: these read the compact table's columns
(table.py) and make no record per file, so .pak-info.txt, pack-info.txt and
`gbxfs info` cost the table and a few integers.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from gbxfs.formats.pak.records import (
    COMPRESSED_FLAGS,
    FORCE_NO_CRYPT_FLAG,
    NO_FEED_FLAG,
    PACK_COMPRESSED_FLAGS,
    PUBLIC_FILE_FLAG,
    split_name,
)
from gbxfs.formats.pak.table import COLUMN_CHUNK, FileTable


@dataclass
class TableSums:
    files: int = 0
    compressed: int = 0
    encrypted: int = 0      # versions 6+: not flagged PublicFile/ForceNoCrypt; before: every file
    no_feed: int = 0        # the "no dummy write" flag
    size: int = 0
    stored_size: int = 0


def sums(table: FileTable) -> TableSums:
    """The counts PakFileRecord's properties would give, summed over the table."""
    return scan(table)[0]


def scan(table: FileTable, wanted: Callable[[int], bool] | None = None) -> tuple[TableSums, list[int]]:
    """sums(table), and with `wanted` (a test of class ids) the files
    FileTable.without_extension_in picks, in one pass over the columns
    (.pak-info.txt wants both: its typed names are such files)."""
    new = table.version >= 6
    compressed_bits = PACK_COMPRESSED_FLAGS if new else COMPRESSED_FLAGS
    clear_bits = (PUBLIC_FILE_FLAG | FORCE_NO_CRYPT_FLAG) if new else 0
    s = TableSums(files=len(table))
    counts: Counter[int] = Counter()
    picked: list[int] = []
    known: dict[int, bool] = {}
    for a in range(0, s.files, COLUMN_CHUNK):
        _, sizes, stored, _, class_ids, flags = table.columns(a, a + COLUMN_CHUNK)
        counts.update(flags)
        s.size += sum(sizes)
        s.stored_size += sum(stored)
        if wanted is not None:
            picked += table.without_extension_in(a, class_ids, wanted, known)
    # a few distinct flag values: each tested once
    s.compressed = sum(n for f, n in counts.items() if f & compressed_bits)
    s.encrypted = s.files - sum(n for f, n in counts.items() if f & clear_bits)
    s.no_feed = sum(n for f, n in counts.items() if f & NO_FEED_FLAG)
    return s, picked


def roots(table: FileTable) -> list[str]:
    """The first path component of every file: its folder's, or for a file of
    a folder without one (the root), its stored name's."""
    folders = table.folders
    used = set(table.folder)
    out = {folders[f].parts[0] for f in used if folders[f].parts}
    bare = {f for f in used if not folders[f].parts}
    if bare:
        for i, f in enumerate(table.folder):
            if f in bare:
                parts = split_name(table.stored_name(i))
                if parts:
                    out.add(parts[0])
    return sorted(out)
