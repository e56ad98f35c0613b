"""A pak's file table kept compact: the table's own bytes, not an object per file.

A pak may list a million files. One record object each (with its name, its
path tuple and its fields) costs about a kilobyte per file; this table keeps

    raw         the plain bytes of the file table but the 8 bytes stored before each
                name (i32 folder, u32 name length: `folder` and `offsets` tell them):
                per file the name, then 28 fixed bytes (unknown, size, stored size,
                offset, class id as u32; flags as u64)
    offsets     array('I'), where each file's record starts in `raw`
    folder      array('i'), the folder index of each file (the tree groups by it)

so 36 bytes plus the stored name per file (8 more, kept twice, took 8 MB of a
million-file table). `table[i]` makes the PakFileRecord
of file i when asked (the tree asks per folder it lists). Reading the table is
one pass that only finds where each record starts. Version 6+ packs
(header6.py) store the same records with more fixed bytes after the name
(`tail`: a checksum from version 14, one more size from 17): the same table
keeps them.
"""
from __future__ import annotations

import bisect
import io
import itertools
import operator
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence

from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.records import MAX_DEPTH, MAX_NAME, PakFileRecord, PakFolder, decode_name, split_name

FIXED = struct.Struct("<5IQ")
_CHECKSUM_VERSION, _SIZE2_VERSION = 14, 17
_HEAD = struct.Struct("<iI")
_U64 = struct.Struct("<Q")
_FIVE = struct.Struct("<5I")
# files per columns() call of a pass over a whole table (about 2 MB of columns)
COLUMN_CHUNK = 1 << 16
_PARTS = operator.attrgetter("parts")
_FIELDS = ("unknown", "size", "stored_size", "offset", "class_id", "flags")
PIECE = 1 << 20        # bytes of the header decrypted per call while the table is read, at most
# what the first piece asks for per file besides its fixed bytes (a short name), and
# a piece's least size (_more)
NAME_GUESS = 8
MIN_PIECE = 1024
# what one folder of the folder table keeps (object, path tuple, name strings); rounded up
FOLDER_COST = 400


def tail_of(version: int) -> struct.Struct:
    """The fixed bytes after a file's name: FIXED, and in version 6+ packs
    (unknown, size, stored size, offset, class id) as u32, [17+: u32 size2],
    [14+: 16-byte checksum], flags as u64."""
    if version < _CHECKSUM_VERSION:
        return FIXED
    return struct.Struct("<5I" + "I" * (version >= _SIZE2_VERSION) + "16sQ")


class FileTable(Sequence[PakFileRecord]):
    __slots__ = ("folders", "raw", "offsets", "folder", "grouped", "version", "tail", "_special", "_empty_only",
                 "__weakref__")

    def __init__(self, folders: list[PakFolder], raw: bytes | bytearray, offsets: array, folder: array,
                 grouped: bool, empty: list[int] | None = None, version: int = 3):
        self.folders = folders
        self.raw = raw
        self.offsets = offsets
        self.folder = folder
        self.grouped = grouped        # files listed folder by folder (folder indices never decrease)
        self.version = version        # the pak's: how many fixed bytes follow a name (tail_of)
        self.tail = tail_of(version)
        self._special: list[int] | None = empty    # until special() runs: the files with an empty name
        self._empty_only = True

    @classmethod
    def empty(cls, folders: Sequence[PakFolder] = (), version: int = 3) -> FileTable:
        return cls(list(folders), b"", array("I"), array("i"), True, version=version)

    def __len__(self) -> int:
        return len(self.folder)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        at, end = self.offsets[i], self._end(i) - self.tail.size
        f = self.folder[i]
        name = decode_name(self.raw[at:end])
        parts = self.folders[f].parts + split_name(name)
        fields = self.tail.unpack_from(self.raw, end)
        v = self.version
        if v < 6:
            return PakFileRecord(i, f, name, parts, *fields)
        return PakFileRecord(i, f, name, parts, *fields[:5], fields[-1], v,  # type: ignore[call-arg]  # *: five fields
                             fields[-2] if v >= _CHECKSUM_VERSION else None, fields[5] if v >= _SIZE2_VERSION else None)

    def __iter__(self) -> Iterator[PakFileRecord]:
        return (self[i] for i in range(len(self)))

    def _end(self, i: int) -> int:
        """Where file i's record ends: the next one's start, or the end of the table."""
        return self.offsets[i + 1] if i + 1 < len(self.offsets) else len(self.raw)

    def stored_name(self, i: int) -> str:
        return decode_name(self.raw[self.offsets[i]:self._end(i) - self.tail.size])

    def row(self, i: int) -> tuple[str, tuple[int, int, int, int, int, int]]:
        """File i's stored name and fixed fields (as fixed_fields() gives them),
        without making its record."""
        raw = self.raw
        at, end = self.offsets[i], self._end(i) - self.tail.size
        if self.tail is FIXED:
            return decode_name(raw[at:end]), FIXED.unpack_from(raw, end)
        return decode_name(raw[at:end]), _FIVE.unpack_from(raw, end) + _U64.unpack_from(raw, end + self.tail.size - 8)

    def rows(self, indices: Iterable[int]) -> Iterator[tuple[int, str, tuple[int, int, int, int, int, int]]]:
        """(i, stored name, fixed fields) of each file i of `indices`, as row(i)
        gives them, made column by column (a folder's listing: no call per file,
        the fixed fields unpacked by one map over the records' ends)."""
        ids = list(indices)
        if self.tail is not FIXED:
            row = self.row
            return ((i, *row(i)) for i in ids)
        raw, offsets, back = self.raw, self.offsets, FIXED.size
        starts = [offsets[i] for i in ids]
        ends = [e - back for e in self._ends_of(ids)]
        try:
            names = [raw[at:end].decode("utf-8") for at, end in zip(starts, ends)]
        except UnicodeDecodeError:
            names = [decode_name(raw[at:end]) for at, end in zip(starts, ends)]
        return zip(ids, names, map(FIXED.unpack_from, itertools.repeat(raw), ends))

    def named_columns(self, ids) -> tuple[list[str], tuple[Sequence[int], ...]]:
        """The stored names (decoded as rows() does) and the six columns (as columns()
        gives them) of files `ids` (a range, an array or a list, in any order: a
        block of a pak's files in folder order, tree/pak/columns.py), in a few passes
        with no call per file."""
        if not len(ids):
            return [], ((),) * len(_FIELDS)
        raw, offsets, back = self.raw, self.offsets, self.tail.size
        if isinstance(ids, range) and ids.step == 1:
            heads: Sequence[int] = offsets[ids.start:ids.stop]
            ends: array[int] | list[int] = offsets[ids.start + 1:ids.stop + 1]
            if ids.stop == len(offsets):       # the last record ends at the end of the table
                ends.append(len(raw))
        else:
            heads = [offsets[i] for i in ids]
            ends = self._ends_of(ids)
        try:
            names = [raw[h:e - back].decode() for h, e in zip(heads, ends)]
        except UnicodeDecodeError:
            names = [decode_name(raw[h:e - back]) for h, e in zip(heads, ends)]
        return names, self._columns_at(ends)

    def _ends_of(self, ids) -> list[int]:
        """Where the records `ids` end (any order): the next record's start, the end
        of the table for the last record (found by one search, not a test per file)."""
        offsets = self.offsets
        try:
            k = ids.index(len(offsets) - 1)
        except ValueError:
            return [offsets[i + 1] for i in ids]
        ends = [offsets[i + 1] for i in ids[:k]]
        ends.append(len(self.raw))
        ends += [offsets[i + 1] for i in ids[k + 1:]]
        return ends

    def fixed_fields(self) -> Iterator[tuple[int, int, int, int, int, int]]:
        """(unknown, size, stored size, offset, class id, flags) of every file, in order."""
        raw, ends = self.raw, self._ends()
        if self.tail is FIXED:
            fixed = FIXED.unpack_from
            for end in ends:
                yield fixed(raw, end - FIXED.size)
            return
        head, flags, back = _FIVE.unpack_from, _U64.unpack_from, self.tail.size
        for end in ends:
            yield head(raw, end - back) + flags(raw, end - 8)

    def columns(self, start: int = 0, stop: int | None = None) -> tuple[Sequence[int], ...]:
        """The fixed fields of files start..stop (all by default) as six columns
        (unknown, size, stored size, offset, class id, flags), made in C: sums over
        the table and tests per class id run over these without a Python step per
        file. Callers take a large table COLUMN_CHUNK files at a time (bounded memory)."""
        raw, n = self.raw, len(self.offsets)
        stop = n if stop is None else min(stop, n)
        if start >= stop:
            return ((),) * len(_FIELDS)
        ends = self.offsets[start + 1:stop + 1]     # a record's fixed fields are its last bytes
        if stop == n:
            ends.append(len(raw))
        return self._columns_at(ends)

    def _columns_at(self, ends: Sequence[int]) -> tuple[Sequence[int], ...]:
        """columns() of the records ending at `ends`."""
        raw, back = self.raw, self.tail.size
        if self.tail is FIXED and sys.byteorder == "little":
            # the fixed tails joined are 7 u32 words per file (flags a u64: its low and high words)
            words = array("I")
            words.frombytes(b"".join([raw[end - back:end] for end in ends]))
            high = words[6::7]
            flags = words[5::7] if not any(high) else [lo | hi << 32 for lo, hi in zip(words[5::7], high)]
            return words[0::7], words[1::7], words[2::7], words[3::7], words[4::7], flags
        if self.tail is FIXED:
            return tuple(zip(*map(FIXED.unpack_from, itertools.repeat(raw), [end - back for end in ends])))
        head, tail_flags = _FIVE.unpack_from, _U64.unpack_from
        return tuple(zip(*[head(raw, end - back) + tail_flags(raw, end - 8) for end in ends]))

    def _ends(self) -> Iterator[int]:
        """Where each record ends: the next one's start (the fixed fields are its last bytes)."""
        if not self.offsets:
            return iter(())
        return itertools.chain(itertools.islice(self.offsets, 1, None), (len(self.raw),))

    def column(self, field: str) -> list[int]:
        """One fixed field of every file: "size", "stored_size", "class_id", "flags"..."""
        k = _FIELDS.index(field)
        return [t[k] for t in self.fixed_fields()]

    def without_extension_in(self, a: int, class_ids: Sequence[int], wanted: Callable[[int], bool],
                             known: dict[int, bool]) -> list[int]:
        """Files whose class id is `wanted` and whose stored name's last part has no "."
        (no name decoded, no record made), among files a, a + 1, ... whose class ids
        are `class_ids` (a chunk of columns()' column: a pass that has it at hand,
        tablesum.scan, needs no second one). `known`: wanted's answers so far,
        shared by the chunks of one pass (asked once per class id)."""
        for c in set(class_ids).difference(known):
            known[c] = wanted(c)
        ok = {c for c, v in known.items() if v}
        if not ok:
            return []
        raw, offsets, tail = self.raw, self.offsets, self.tail.size
        ids = list(itertools.compress(itertools.count(a), map(ok.__contains__, class_ids)))
        if not ids:
            return []
        starts = [offsets[i] for i in ids]      # each name's bytes: starts[k]:ends[k]
        ends = [e - tail for e in self._ends_of(ids)]
        # no "." after the last backslash: the last "." (or -1) comes before the last
        # backslash (or is -1 too); a few calls in C per file, no name sliced
        dots = map(raw.rfind, itertools.repeat(b"."), starts, ends)
        cuts = map(raw.rfind, itertools.repeat(b"\\"), starts, ends)
        return list(itertools.compress(ids, map(operator.le, dots, cuts)))

    def names_longer_than(self, limit: int) -> list[int]:
        """Files whose stored name is more than `limit` bytes (from the records'
        lengths: no name decoded, no record made)."""
        over = limit + self.tail.size       # a record: the name, the fixed tail
        lengths = map(operator.sub, self._ends(), self.offsets)
        return list(itertools.compress(itertools.count(), map(over.__lt__, lengths)))

    def special(self) -> list[int]:
        """Files whose stored name is not one plain component (a backslash sub-path,
        or nothing left after splitting): where they show is decided one by one."""
        if self._special is None or self._empty_only:
            self._special, self._empty_only = self._find_special(), False
        return self._special

    def _find_special(self) -> list[int]:
        found = set()
        raw, offsets = self.raw, self.offsets
        at = raw.find(b"\\")
        while at >= 0:      # a backslash in a name, or in the binary fields (then skipped)
            i = bisect.bisect_right(offsets, at) - 1
            if at < self._end(i) - self.tail.size:     # in the name (offsets[i] <= at)
                found.add(i)
            at = raw.find(b"\\", at + 1)
        found.update(self._special or ())    # the empty names read_files found
        return sorted(i for i in found if len(split_name(self.stored_name(i))) != 1)

    @property
    def nbytes(self) -> int:
        """What the table keeps alive, for the cache's byte bound."""
        base = sys.getsizeof(self) + len(self.folders) * FOLDER_COST + sys.getsizeof(self.raw)
        return base + self.offsets.itemsize * len(self.offsets) + self.folder.itemsize * len(self.folder)


def read_files(more: Callable[[int], bytes], count: int, folders: list[PakFolder],
               digest, version: int = 3) -> tuple[FileTable, int]:
    """Parse `count` file records of a version `version` pak from the plain
    bytes `more(n)` hands out (up to n at a time, b"" at the end), feeding
    exactly the table's bytes to `digest` (an md5 object). Returns the table
    and its size in bytes."""
    # parsed records go to `out` (FileTable.raw), whose value has exactly its length (a
    # bytearray grown by pieces keeps up to an eighth spare, and a copy to bytes took 45 MB
    # more while a million-file table was read); `raw`: the bytes not in `out` yet, as
    # stored, from `base` on (about a piece), from the start of file `done`
    out, raw, offsets, folder = io.BytesIO(), bytearray(), array("I"), array("i")
    head = _HEAD.unpack_from
    step = 8 + tail_of(version).size      # a record's bytes but its name
    add_offset, add_folder = offsets.append, folder.append
    base = pos = have = i = done = 0
    empty = []
    while i < count:
        # every record wholly in `raw` whose name is neither empty nor too long, in as
        # short a step as can be (a pak may list a million files)
        limit = have - 8
        for i in range(i, count):   # noqa: B007, B020 - i goes on from where it was, and is read after the loop
            if pos > limit:
                break
            f, n = head(raw, pos)
            end = pos + step + n
            if end > have or not 0 < n <= MAX_NAME:
                break
            add_offset(base + pos - 8 * i)
            add_folder(f)
            pos = end
        else:
            break
        # file i: cut off at the end of `raw`, or its name is empty or too long
        if pos + 8 > have:
            raw, base, pos, done = _more(more, out, digest, offsets, raw, base, pos, done, i, count, step)
            have = len(raw)
            continue
        f, n = head(raw, pos)
        if n > MAX_NAME:
            raise PakError(f"file name of {n} bytes is too long (limit {MAX_NAME})")
        end = pos + step + n
        if end > have:
            raw, base, pos, done = _more(more, out, digest, offsets, raw, base, pos, done, i, count, step)
            have = len(raw)
            continue
        add_offset(base + pos - 8 * i)
        add_folder(f)
        empty.append(i)
        pos = end
        i += 1
    _moved(out, digest, offsets, raw, base, pos, done)
    del raw
    data = out.getvalue()       # the buffer itself, cut to its length: no copy
    # listed folder by folder: one test per file, in C
    grouped = all(map(operator.le, folder, itertools.islice(folder, 1, None)))
    table = FileTable(folders, data, offsets, folder, grouped, empty=empty, version=version)
    _check(table)
    return table, base + pos


def _moved(out: io.BytesIO, digest, offsets: array, raw: bytearray, base: int, pos: int, done: int) -> None:
    """raw[:pos] (at `base` in the table as stored: files `done` to the last one read)
    fed to `digest` and written to `out` without the 8 bytes before each name."""
    view = memoryview(raw)
    digest.update(view[:pos])
    heads = [offsets[j] + 8 * j - base for j in range(done, len(offsets))]
    ends = heads[1:]
    ends.append(pos)
    out.write(b"".join([view[h + 8:e] for h, e in zip(heads, ends)]))


def _more(more: Callable[[int], bytes], out: io.BytesIO, digest, offsets: array, raw: bytearray, base: int,
          pos: int, done: int, i: int, count: int, step: int) -> tuple[bytearray, int, int, int]:
    """raw[:pos] (files done..i-1, parsed) moved to `out` (_moved), the rest with the
    next piece appended: (the new `raw`, where it starts in the table as stored, 0,
    i). The header stream goes on
    into the entries' data, so the piece asked for is what the files left take,
    guessed from the records read so far (at first: a record's fixed bytes and
    NAME_GUESS each), with a little to spare: a small table is not decrypted
    several times over, a large one comes in a few pieces."""
    _moved(out, digest, offsets, raw, base, pos, done)
    rest = raw[pos:]
    base += pos
    per = base / i if i else step + NAME_GUESS
    want = int((count - i) * per * (1 + 1 / 16)) - len(rest)
    piece = more(min(PIECE, max(MIN_PIECE, want)))
    if not piece:
        raise PakError(f"pak header truncated: file {i} of {count} is cut off")
    rest += piece
    return rest, base, 0, len(offsets)


def _check(table: FileTable) -> None:
    """Every file in an existing folder, no path deeper than MAX_DEPTH."""
    n_folders = len(table.folders)
    column = table.folder
    if not len(table):
        bad = False
    elif table.grouped:         # ascending: its ends are its least and its largest
        bad = not (0 <= column[0] and column[-1] < n_folders)
    else:                       # one pass: as unsigned words, a negative index is above any valid one
        bad = max(memoryview(column).cast("B").cast("I")) >= n_folders
    if bad:
        i = next(i for i, f in enumerate(table.folder) if not 0 <= f < n_folders)
        raise PakError(f"file {i} ({table.stored_name(i)!r}) is in folder {table.folder[i]}, "
                       f"the pak has {n_folders}")
    depth = list(map(len, map(_PARTS, table.folders)))
    deep = {j for j, d in enumerate(depth) if d >= MAX_DEPTH} if max(depth, default=0) >= MAX_DEPTH else ()
    check = table.special()
    if deep:
        check = sorted(set(check) | {i for i, f in enumerate(table.folder) if f in deep})
    for i in check:
        d = depth[table.folder[i]] + len(split_name(table.stored_name(i)))
        if d > MAX_DEPTH:
            raise PakError(f"file {i} is nested {d} levels deep (more than {MAX_DEPTH})")
