"""A pak's file table kept compact: columns, not an object per file.

A pak may list a million files. One record object each (with its name, its
path tuple and its fields) costs about a kilobyte per file; this table keeps
what the file table stores, packed:

    folder      array('i'), the folder index of each file
    name_ends   array('I'), where each stored name ends in `names`
    names       the stored names' bytes, one after the other
    fixed       the 28 fixed bytes of each record (unknown, size, stored size,
                offset, class id as u32; flags as u64), one after the other

about 36 bytes plus the name per file, the size of the table in the pak.
`table[i]` makes the PakFileRecord of file i when asked (the tree asks per
folder it lists). Version 6+ tables (header6) have more fields per file and
stay a list of records behind the same interface (`of_records`).
"""
from __future__ import annotations

import bisect
import struct
import sys
from array import array
from typing import Callable, Iterator, Sequence

from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.records import MAX_DEPTH, MAX_NAME, PakFileRecord, PakFolder, decode_name, split_name

FIXED = struct.Struct("<5IQ")
_HEAD = struct.Struct("<iI")
PIECE = 1 << 20        # bytes of the header decrypted per call while the table is read
# what one folder of the folder table keeps (object, path tuple, name strings); rounded up
FOLDER_COST = 400


class FileTable(Sequence[PakFileRecord]):
    __slots__ = ("folders", "folder", "name_ends", "names", "fixed", "_records")

    def __init__(self, folders: list[PakFolder], folder: array, name_ends: array, names: bytes, fixed: bytes,
                 records: list[PakFileRecord] | None = None):
        self.folders = folders
        self.folder = folder
        self.name_ends = name_ends
        self.names = names
        self.fixed = fixed
        self._records = records

    @classmethod
    def of_records(cls, folders: list[PakFolder], records: list[PakFileRecord]) -> "FileTable":
        """A table over records made elsewhere (version 6+ packs)."""
        return cls(folders, array("i", (r.folder for r in records)), array("I"), b"", b"", records)

    def __len__(self) -> int:
        return len(self.folder)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        if self._records is not None:
            return self._records[i]
        name = self.stored_name(i)
        f = self.folder[i]
        return PakFileRecord(i, f, name, self.folders[f].parts + split_name(name), *FIXED.unpack_from(self.fixed, 28 * i))

    def __iter__(self) -> Iterator[PakFileRecord]:
        return (self[i] for i in range(len(self)))

    def stored_name(self, i: int) -> str:
        if self._records is not None:
            return self._records[i].name
        return decode_name(self.names[self.name_ends[i - 1] if i else 0:self.name_ends[i]])

    def column(self, field: str) -> Sequence[int]:
        """One fixed field of every file: "size", "stored_size", "class_id", "flags"."""
        if self._records is not None:
            return [getattr(r, field) for r in self._records]
        words = memoryview(self.fixed).cast("I")
        k = ("unknown", "size", "stored_size", "offset", "class_id", "flags").index(field)
        if k < 5:
            return array("I", words[k::7])
        lo, hi = array("I", words[5::7]), array("I", words[6::7])
        return [a | b << 32 for a, b in zip(lo, hi)]

    def count_flags(self, mask: int) -> int:
        """How many files have any of the `mask` bits in their flags."""
        if self._records is not None:
            return sum(1 for r in self._records if r.flags & mask)
        words = memoryview(self.fixed).cast("I")
        lo, hi = mask & 0xFFFFFFFF, mask >> 32
        return sum(1 for a, b in zip(words[5::7], words[6::7]) if a & lo or b & hi)

    def last_names(self) -> Iterator[tuple[int, str]]:
        """(file, last component of its stored name, unsanitized) for every file."""
        for i in range(len(self)):
            yield i, self.stored_name(i).rpartition("\\")[2]

    def special(self) -> list[int]:
        """Files whose stored name is not one plain component (a backslash sub-path,
        or nothing left after splitting): where they show is decided one by one."""
        if self._records is not None:
            return [r.index for r in self._records if len(r.parts) != len(self.folders[r.folder].parts) + 1]
        found = set()
        ends, names = self.name_ends, self.names
        at = names.find(b"\\")
        while at >= 0:
            i = bisect.bisect_right(ends, at)
            found.add(i)
            at = names.find(b"\\", ends[i])
        prev = 0
        for i, e in enumerate(ends):     # empty names
            if e == prev:
                found.add(i)
            prev = e
        return sorted(i for i in found if len(split_name(self.stored_name(i))) != 1)

    @property
    def nbytes(self) -> int:
        """What the table keeps alive, for the cache's byte bound."""
        base = sys.getsizeof(self) + len(self.folders) * FOLDER_COST
        if self._records is not None:
            return base + 1024 * len(self._records)
        return (base + self.folder.itemsize * len(self.folder) + self.name_ends.itemsize * len(self.name_ends)
                + len(self.names) + len(self.fixed))


def read_files(more: Callable[[int], bytes], count: int, folders: list[PakFolder],
               digest) -> tuple[FileTable, int]:
    """Parse `count` file records from the plain bytes `more(n)` hands out (up
    to n at a time, b"" at the end), feeding exactly the table's bytes to
    `digest` (an md5 object). Returns the table and its size in bytes."""
    folder = array("i")
    name_ends = array("I")
    names = bytearray()
    fixed = bytearray()
    buf, pos, size, i = b"", 0, 0, 0
    head, fsize = _HEAD.unpack_from, FIXED.size
    add_folder, add_end = folder.append, name_ends.append
    while i < count:
        if pos + 8 > len(buf):
            buf, pos = _refill(more, buf, pos, digest, i, count)
            continue
        f, n = head(buf, pos)
        if n > MAX_NAME:
            raise PakError(f"file name of {n} bytes is too long (limit {MAX_NAME})")
        end = pos + 8 + n + fsize
        if end > len(buf):
            buf, pos = _refill(more, buf, pos, digest, i, count)
            continue
        add_folder(f)
        names += buf[pos + 8:end - fsize]
        add_end(len(names))
        fixed += buf[end - fsize:end]
        size += end - pos
        pos = end
        i += 1
    digest.update(buf[:pos])
    table = FileTable(folders, folder, name_ends, bytes(names), bytes(fixed))
    _check(table)
    return table, size


def _refill(more: Callable[[int], bytes], buf: bytes, pos: int, digest, i: int, count: int) -> tuple[bytes, int]:
    digest.update(buf[:pos])
    piece = more(PIECE)
    if not piece:
        raise PakError(f"pak header truncated: file {i} of {count} is cut off")
    return buf[pos:] + piece, 0


def _check(table: FileTable) -> None:
    """Every file in an existing folder, no path deeper than MAX_DEPTH."""
    n_folders = len(table.folders)
    if len(table) and not (0 <= min(table.folder) and max(table.folder) < n_folders):
        i = next(i for i, f in enumerate(table.folder) if not 0 <= f < n_folders)
        raise PakError(f"file {i} ({table.stored_name(i)!r}) is in folder {table.folder[i]}, "
                       f"the pak has {n_folders}")
    depth = [len(f.parts) for f in table.folders]
    deep = {j for j, d in enumerate(depth) if d >= MAX_DEPTH}
    check = table.special()
    if deep:
        check = sorted(set(check) | {i for i, f in enumerate(table.folder) if f in deep})
    for i in check:
        d = depth[table.folder[i]] + len(split_name(table.stored_name(i)))
        if d > MAX_DEPTH:
            raise PakError(f"file {i} is nested {d} levels deep (more than {MAX_DEPTH})")
