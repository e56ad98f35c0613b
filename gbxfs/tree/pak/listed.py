"""A pak folder's listing as rows (tree/rows.py): names and sizes read from the
file table's columns, a plain file's entry (PakEntryFile) made on first use.

`find` lists every folder of a pak and opens no file: the listing is then the
table's names decoded and its size column, with no object and no Python call
per file. Where names need fixing one by one (sub-paths, names that are not one
plain component, untyped names to type, names to make unique) the listing is made
file by file as before (PakIndex.listing) and turned into rows.

A file whose table fields say it cannot be read has its entry made in the
listing (its folder shows error.txt at once); so has every GBX file shown as a
folder, and every sub-folder.
"""
from __future__ import annotations

import itertools
import operator
from typing import Callable

from gbxfs.formats.pak.table import FileTable
from gbxfs.tree.gbx.index import index_files
from gbxfs.tree.model import Entry
from gbxfs.tree.pak.files import PakEntryFile
from gbxfs.tree.pak.index import PakIndex
from gbxfs.tree.pak.names import typed_name
from gbxfs.tree.rows import Rows, plain_names


class _PlainFile:
    """What index_files needs to know of a file not made: that it is no folder."""
    __slots__ = ()
    is_dir = False


_FILE = _PlainFile()


def node_rows(tree, node: int, table: FileTable, index: PakIndex, extras: list[Entry], reserved: frozenset[str],
              make_folder: Callable[[str, int], Entry], make_gbx: Callable[[str, int], Entry]) -> Rows:
    """The listing of index node `node` of `tree` (a PakTree: arc, ctx, mtime):
    `extras` first (the root's generated files), then the node's folders and files
    as PakIndex.listing orders and names them. make_folder(name, node id) makes a
    sub-folder, make_gbx(name, table index) a GBX file shown as a folder."""
    arc, ctx, mtime = tree.arc, tree.ctx, tree.mtime
    make = tree.file_row        # a row's PakEntryFile
    got = _plain_rows(node, table, index, extras, reserved, arc.version if ctx.typed_names else None, make_folder)
    if got is None:
        rows = _file_by_file(tree, node, table, index, extras, reserved, make_folder, make_gbx)
        named_gbx = [n for n, e in zip(rows.names, rows.cells) if e.__class__ is not int and e.is_dir
                     and n[-4:].lower() == ".gbx"]
    else:
        names, cells, sizes, (file_sizes, stored, offsets, flags) = got
        # the files' names were tested; folders' are components of split names; extras' fixed
        rows = Rows(names, cells, sizes, mtime, make, valid=True)
        skip = len(names) - len(stored)         # the extras and the folders
        named_gbx = [n for n in names[len(extras):skip] if n[-4:].lower() == ".gbx"] if skip else []
        if stored and ctx.gbx_mode == "folder":
            # every GBX is a folder (docs/formats/mount.md), "no dummy write" (no feeds) entries too
            files = names[skip:]
            lower = map(str.lower, files)
            for k in itertools.compress(range(len(files)), map(operator.and_, map(bool, file_sizes),
                                                                map(str.endswith, lower, itertools.repeat(".gbx")))):
                rows.cells[skip + k] = make_gbx(files[k], rows.cells[skip + k])
                rows.sizes[skip + k] = -1
                named_gbx.append(files[k])
        bad = tree.static_check()       # both archive kinds: a file's table fields say it is unreadable
        for k in itertools.compress(range(len(stored)), map(bad, file_sizes, stored, offsets, flags)):
            if rows.sizes[skip + k] >= 0:       # a plain file (a GBX folder verifies when opened)
                rows.at(skip + k).entry     # made now: an unreadable file shows in error.txt at once
    # maps.csv / replays.csv under names no archive entry has: only GBX folders can be
    # maps or replays (tree/gbx/index.py class_id_of), so a listing without any is not scanned
    if named_gbx:
        shown = dict.fromkeys(rows.names, _FILE)
        shown.update((n, e) for n, e in zip(rows.names, rows.cells) if e.__class__ is not int and e.is_dir)
        more = list(index_files(shown, ctx.cache, ("gbx.index", arc, node)))
        if more:        # one new listing for all of them, not one per file
            rows = Rows(rows.names + [e.name for e in more], rows.cells + more, rows.sizes + [-1] * len(more),
                        mtime, make)
    return rows


def _plain_rows(node: int, table: FileTable, index: PakIndex, extras: list[Entry], reserved: frozenset[str],
                typed: int | None, make_folder: Callable[[str, int], Entry]):
    """(names, cells, sizes, (sizes, stored sizes, offsets, flags) of the files) when
    no name of the node needs fixing (PakIndex.listing would show its folders, then its
    files, under their stored names, typed for a pak of version `typed` where they have
    no extension; None: never typed), else None."""
    plain = index.plain(node)
    if plain is None:
        return None
    subs, ids = plain
    files, (_, sizes, stored, offsets, class_ids, flags) = table.named_columns(ids)
    folders = [name for _, name, _ in subs]
    if typed is not None:       # a name without an extension gets its class's (PakIndex.listing)
        for k in [k for k, name in enumerate(files) if "." not in name]:
            files[k] = typed_name(files[k], class_ids[k], typed) or files[k]
    # PakIndex.listing would change a name that is not one plain component, a name taken (made unique)
    if not plain_names(files):
        return None
    shown = [e.name for e in extras] if extras else []
    skip = len(shown) + len(folders)
    shown += folders
    shown += files
    if len(set(shown)) != len(shown) or not (reserved.isdisjoint(folders) and reserved.isdisjoint(files)):
        return None
    cells: list = list(extras) if extras else []
    cells += [make_folder(name, sub) for _, name, sub in subs]
    cells += ids
    row_sizes = [-1] * skip
    row_sizes += sizes
    return shown, cells, row_sizes, (sizes, stored, offsets, flags)


def _file_by_file(tree, node: int, table: FileTable, index: PakIndex, extras: list[Entry], reserved: frozenset[str],
                  make_folder: Callable[[str, int], Entry], make_gbx: Callable[[str, int], Entry]) -> Rows:
    """PakIndex.listing's names, every entry made (sub-paths, names to fix)."""
    arc, ctx, mtime = tree.arc, tree.ctx, tree.mtime
    gbx_folders = ctx.gbx_mode == "folder"
    bad = tree.static_check()
    version = arc.version
    typed_names = ctx.typed_names

    def typed(name: str, class_id: int) -> str | None:
        return typed_name(name, class_id, version) if typed_names else None

    def make_file(name: str, i: int, fixed: tuple) -> Entry:
        _, size, stored_size, offset, _, flags = fixed
        if gbx_folders and size and name.lower().endswith(".gbx"):
            return make_gbx(name, i)
        e = PakEntryFile(name, tree, i, size, mtime_ns=mtime)
        if bad(size, stored_size, offset, flags):
            e.entry         # made now: an unreadable file shows in error.txt at once
        return e

    kids: dict[str, Entry] = {e.name: e for e in extras}
    index.listing(node, table, reserved, typed, make_file, make_folder, kids)
    cells = list(kids.values())
    sizes = [e._size if e.__class__ is PakEntryFile else -1 for e in cells]
    return Rows(list(kids), cells, sizes, mtime, _made_already)


def _made_already(rows: Rows, i: int, token: int) -> Entry:
    raise AssertionError("a pak listing made file by file has every entry made")
