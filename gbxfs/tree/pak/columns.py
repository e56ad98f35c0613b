"""A pak's files as its folder listings show them, decoded a block of files at a time.

`find` lists every folder of a pak once, and a pak folder holds a few files: a
listing that decodes its own names, unpacks its own fixed fields and tests its
own files spends most of its time on steps fixed per folder (about 14 us for a
folder of 7 files, about 10 of them fixed). Here that work is done for BLOCK
files at once, in folder order (PakIndex.ids: the table grouped by table folder,
so a folder's files are one run of positions), the first time a listing needs
one of them:

    names   the names shown before any is made unique: stored, decoded, typed
            where they have no extension (tree/pak/names.py)
    sizes   the file table's sizes (array of u32)
    marked  the positions of the few files a listing treats one by one, with
            why (`bits`): BAD, the table fields say the file cannot be read
            (the archive's static_rows); GBX, a GBX file shown as a folder;
            HIDDEN, a special file (a sub-path or no name: PakIndex.special)
            shown elsewhere or nowhere
    plain   every name of the block is one plain component (rows.plain_names)

A folder's listing is then a slice of a block (rarely of two) and a look at its
marks. Blocks live in ctx.cache, charged by what they keep and made again when
evicted (identical: the table does not change while the pak is open). Listing
one folder of a huge pak decodes one block, not the pak: the work is per file
of the block, in list comprehensions and C-level maps (no call per file but
typed_name's, for names without an extension).
"""
from __future__ import annotations

import bisect
import itertools
import operator
import sys
import weakref
from array import array
from collections.abc import Callable, Sequence

from gbxfs.formats.pak import FileTable
from gbxfs.tree.pak.index import PakIndex
from gbxfs.tree.pak.names import typed_name
from gbxfs.tree.rows import plain_names

# files per block: a block is made in about 0.3-0.5 ms (a first listing may run on
# the event loop, tree/pak/entries.py PakFolder._list_now), and its per-block steps
# (a cache look-up, a slice) are then shared by the hundred-odd folders it holds
BLOCK = 1024
BAD, GBX, HIDDEN = 1, 2, 4
# what a block keeps beside its names and sizes (object, lists, key, cache entry)
BLOCK_OVERHEAD = 512


class Block:
    __slots__ = ("names", "sizes", "marked", "bits", "plain", "nbytes", "__weakref__")

    def __init__(self, names: list[str], sizes: array, marks: dict[int, int]):
        self.names, self.sizes = names, sizes
        self.marked = sorted(marks)
        self.bits = [marks[j] for j in self.marked]
        self.plain = plain_names(names)
        # the names' strings (a listing shares them: counted here, where they are made),
        # the list, the sizes' buffer, the marks; a string's size bounded from all of
        # them joined (one C pass, not a call per name): 50 bytes and one per
        # character when all are ASCII, else at most 80 and four per character
        text = "".join(names)
        per_name, per_char = (50, 1) if text.isascii() else (80, 4)
        self.nbytes = (BLOCK_OVERHEAD + sys.getsizeof(names) + per_name * len(names) + per_char * len(text)
                       + sys.getsizeof(sizes) + 2 * sys.getsizeof(self.marked) + 32 * len(self.marked))


class FileColumns:
    """The blocks of one open pak's files, for its PakTree (tree/pak/entries.py)."""

    __slots__ = ("_arc", "_cache", "_typed", "_gbx_folders", "_check", "_live")

    def __init__(self, arc, cache, typed: int | None, gbx_folders: bool, check: Callable[[], Callable]):
        """`typed`: the pak version whose classes type names without an extension
        (None: never typed); `gbx_folders`: GBX files show as folders (gbx_mode
        "folder"); `check()`: the archive's static_rows (asked when a block is made)."""
        self._arc, self._cache, self._typed, self._gbx_folders, self._check = arc, cache, typed, gbx_folders, check
        # block number -> a weak reference to the block the cache keeps (dead once evicted:
        # at most one small entry per block ever made, about 0.1 byte per file of the pak)
        self._live: dict[int, weakref.ref] = {}

    def files(self, table: FileTable, index: PakIndex, spans: list[tuple[int, int]]):
        """(table indices, names, sizes, marks, plain) of the files at `spans`
        (PakIndex.spans: positions in folder order) in table order, the special
        files left out; marks: (row, bits) of the rows marked BAD or GBX, in row
        order; plain: every name is one plain component (False: maybe not)."""
        sizes: array[int] | list[int]
        if len(spans) == 1:
            a, b = spans[0]
            k = a // BLOCK
            if a < b and k == (b - 1) // BLOCK:     # a folder's run within one block: slices
                blk, o = self._block(table, index, k), k * BLOCK
                names, sizes = blk.names[a - o:b - o], blk.sizes[a - o:b - o]
                marks = _marks(blk, a - o, b - o, 0) if blk.marked else []
                plain = blk.plain
            else:
                names, sizes, marks, plain = self._span(table, index, a, b)
            ids: Sequence[int] = index.ids(a, b)
        else:
            ids, names, sizes, marks, plain = [], [], [], [], True
            for a, b in spans:
                n, s, m, p = self._span(table, index, a, b)
                marks += [(len(names) + k, bits) for k, bits in m]
                ids += index.ids(a, b)
                names += n
                sizes += s
                plain = plain and p
            if len(spans) > 1:      # several table folders shown as one: table order across them
                ids, names, sizes, marks = _reordered(sorted(range(len(ids)), key=ids.__getitem__),
                                                      ids, names, sizes, marks)
        if marks and any(bits & HIDDEN for _, bits in marks):
            hidden = {k for k, bits in marks if bits & HIDDEN}
            ids, names, sizes, marks = _reordered([k for k in range(len(names)) if k not in hidden],
                                                  ids, names, sizes, marks)
        return ids, names, sizes, marks, plain

    def _span(self, table: FileTable, index: PakIndex, a: int, b: int):
        """(names, sizes, marks, plain) of positions a..b, block by block."""
        names: list[str]
        names, sizes, marks, plain = [], array("I"), [], True
        while a < b:
            k = a // BLOCK
            blk, o = self._block(table, index, k), k * BLOCK
            stop = min(b, o + BLOCK)
            marks += _marks(blk, a - o, stop - o, len(names))
            names += blk.names[a - o:stop - o]
            sizes += blk.sizes[a - o:stop - o]
            plain = plain and blk.plain
            a = stop
        return names, sizes, marks, plain

    def _block(self, table: FileTable, index: PakIndex, k: int) -> Block:
        """Block k: while the cache keeps it, through a weak reference (asked per folder
        listed: no lock, no key); else from the cache, or made now. Its uses are not
        counted: evicted, it is made again. Not get_or_make: a listing on the event
        loop must not wait for a worker thread making the same block; two threads
        making it at once make identical blocks (the last one stays)."""
        ref = self._live.get(k)
        blk = ref() if ref is not None else None
        if blk is None:
            key = ("pak.cols", self._arc, k)
            blk = self._cache.get(key)
            if blk is None:
                blk = self._make(table, index, k)
                self._cache.put(key, blk, blk.nbytes, costly=True)    # shared by every listing of its folders
            self._live[k] = weakref.ref(blk)
        return blk

    def _make(self, table: FileTable, index: PakIndex, k: int) -> Block:
        ids = index.ids(k * BLOCK, min((k + 1) * BLOCK, len(table)))
        names, (_, sizes, stored, offsets, class_ids, flags) = table.named_columns(ids)
        typed = self._typed
        if typed is not None:       # a name without an extension gets its class's (PakIndex.listing)
            for j in [j for j, name in enumerate(names) if "." not in name]:
                names[j] = typed_name(names[j], class_ids[j], typed) or names[j]
        n = range(len(names))
        marks = dict.fromkeys(self._check()(sizes, stored, offsets, flags), BAD)
        if self._gbx_folders:
            # every GBX with bytes is a folder (docs/formats/mount.md), "no dummy write" (no feeds) ones too
            gbx = map(str.endswith, map(str.lower, names), itertools.repeat(".gbx"))
            for j in itertools.compress(n, map(operator.and_, map(bool, sizes), gbx)):
                marks[j] = marks.get(j, 0) | GBX
        special = index.special
        if special and not special.isdisjoint(ids):
            for j in [j for j, i in enumerate(ids) if i in special]:
                marks[j] = marks.get(j, 0) | HIDDEN
        return Block(names, sizes if isinstance(sizes, array) else array("I", sizes), marks)


def _marks(blk: Block, a: int, b: int, shift: int) -> list[tuple[int, int]]:
    """(row, bits) of the block's marked positions a..b, as rows from `shift` on."""
    marked = blk.marked
    if not marked:
        return []
    lo, hi = bisect.bisect_left(marked, a), bisect.bisect_left(marked, b)
    return [(j - a + shift, bits) for j, bits in zip(marked[lo:hi], blk.bits[lo:hi])]


def _reordered(keep: list[int], ids, names, sizes, marks):
    """ids, names, sizes and marks of rows `keep` (old row numbers, in their new order)."""
    where = {k: r for r, k in enumerate(keep)}
    marks = sorted((where[k], bits) for k, bits in marks if k in where)
    return [ids[k] for k in keep], [names[k] for k in keep], [sizes[k] for k in keep], marks
