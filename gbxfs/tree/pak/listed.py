"""A pak folder's listing as rows (tree/rows.py): names and sizes read from the
file table's columns, a plain file's entry (PakEntryFile) made on first use.

`find` lists every folder of a pak and opens no file: the listing is then slices
of the names and sizes the pak's blocks hold (tree/pak/columns.py: decoded and
typed once per block of files), with no object and no Python call per file. Where
names need fixing one by one (sub-paths, names that are not one plain component,
names to make unique) the listing is made file by file as before
(PakIndex.listing) and turned into rows.

A file whose table fields say it cannot be read has its entry made in the
listing (its folder shows error.txt at once); so has every GBX file shown as a
folder, and every sub-folder.
"""
from __future__ import annotations

from collections.abc import Callable

from gbxfs.formats.pak import FileTable
from gbxfs.tree.gbx.index import index_files
from gbxfs.tree.longnames import all_fit
from gbxfs.tree.model import Entry
from gbxfs.tree.pak.columns import GBX, FileColumns
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
    """The listing of index node `node` of `tree` (a PakTree: arc, ctx, mtime, columns):
    `extras` first (the root's generated files), then the node's folders and files
    as PakIndex.listing orders and names them. make_folder(name, node id) makes a
    sub-folder, make_gbx(name, table index) a GBX file shown as a folder."""
    arc, ctx, mtime = tree.arc, tree.ctx, tree.mtime
    got = _plain_rows(tree.columns, node, table, index, extras, reserved, make_folder)
    if got is None:
        rows = _file_by_file(tree, node, table, index, extras, reserved, make_folder, make_gbx)
        named_gbx = [n for n, e in zip(rows.names, rows.cells) if e.__class__ is not int and e.is_dir
                     and n[-4:].lower() == ".gbx"]
    else:
        names, cells, sizes, skip, marks = got
        # the files' names were tested; folders' are components of split names; extras' fixed
        rows = Rows(names, cells, sizes, mtime, tree.file_row, valid=True)
        named_gbx = [n for n in names[len(extras):skip] if n[-4:].lower() == ".gbx"] if skip else []
        for k, bits in marks:       # the few files the block marked (tree/pak/columns.py)
            k += skip
            if bits & GBX:          # marked in gbx_mode "folder" only
                cells[k] = make_gbx(names[k], cells[k])
                sizes[k] = -1
                named_gbx.append(names[k])
            else:                   # BAD: made now, so that an unreadable file shows in error.txt at once
                _ = rows.at(k).entry  # type: ignore[attr-defined]  # a BAD mark is a PakEntryFile's
    # maps.csv / replays.csv under names no archive entry has: only GBX folders can be
    # maps or replays (tree/gbx/index.py class_id_of), so a listing without any is not scanned
    if named_gbx:
        shown = dict.fromkeys(rows.names, _FILE)
        shown.update((n, e) for n, e in zip(rows.names, rows.cells) if e.__class__ is not int and e.is_dir)
        more = list(index_files(shown, ctx.cache, ("gbx.index", arc, node)))  # type: ignore[arg-type]  # _FILE: is_dir
        if more:        # one new listing for all of them, not one per file
            rows = Rows(rows.names + [e.name for e in more], rows.cells + more, rows.sizes + [-1] * len(more),
                        mtime, tree.file_row)
    return rows


def _plain_rows(columns: FileColumns, node: int, table: FileTable, index: PakIndex, extras: list[Entry],
                reserved: frozenset[str], make_folder: Callable[[str, int], Entry]):
    """(names, cells, sizes, how many rows come before the files, marks of the files:
    FileColumns.files) when no name of the node needs fixing (PakIndex.listing would
    show its folders, then its files, under the names `columns` gives them), else None."""
    got = index.spans(node)
    if got is None:
        return None
    subs, spans = got
    ids, files, sizes, marks, plain = columns.files(table, index, spans)
    # PakIndex.listing would change a name that is not one plain component, a name taken (made unique)
    if not plain and not plain_names(files):
        return None
    if not subs and not extras:     # most folders: files only, the rows are the files'
        if len(set(files)) != len(files) or not reserved.isdisjoint(files):
            return None
        return files, list(ids), list(sizes), 0, marks
    folders = [name for _, name, _ in subs]
    if not all_fit(folders):        # PakIndex.listing shortens them
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
    return shown, cells, row_sizes, skip, marks


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
            _ = e.entry     # made now: an unreadable file shows in error.txt at once
        return e

    kids: dict[str, Entry] = {e.name: e for e in extras}
    index.listing(node, table, reserved, typed, make_file, make_folder, kids, ctx.short_names)
    cells = list(kids.values())
    sizes = [e._size if e.__class__ is PakEntryFile else -1 for e in cells]
    return Rows(list(kids), cells, sizes, mtime, _made_already)


def _made_already(rows: Rows, i: int, token: int) -> Entry:
    raise AssertionError("a pak listing made file by file has every entry made")
