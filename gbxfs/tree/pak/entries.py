"""A pak's entries in the tree: plain files read through the archive, embedded
GBX files as folders (every *.gbx entry, "no dummy write" ones included), and
the folders of the file table. Hashed names are shown typed (tree/pak/names.py).

Entries are files with the exact size of the file table, decrypted and
verified on first read; a folder shows error.txt once one of its entries is
known to be unverifiable.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from threading import Lock

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.pak import SMALL_ENTRY, FileTable, rows_of
from gbxfs.tree.cached import ITEM_OVERHEAD
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.parse import GbxParse
from gbxfs.tree.gbx.status import status_of_entry
from gbxfs.tree.gbx.view import open_gbx
from gbxfs.tree.model import BytesFile, Dir, Entry, Later, ReadAhead
from gbxfs.tree.pak.ahead import read_ahead, take_mark
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.tree.pak.archive6 import PackArchive
from gbxfs.tree.pak.columns import FileColumns
from gbxfs.tree.pak.entry import PakEntry
from gbxfs.tree.pak.files import PakEntryFile, PakEntrySource, _record_xattrs
from gbxfs.tree.pak.index import PakIndex
from gbxfs.tree.pak.info import ERROR_NAME, ERROR_XATTR, INFO_NAME, PROOF_XATTR
from gbxfs.tree.pak.listed import node_rows
from gbxfs.tree.rows import Rows


class PakGbxDir(Dir):
    """An embedded GBX as a folder. Opening it verifies the entry: verified
    bytes go through the registry (ctx.open_child); unverifiable ones get the
    GBX view with the metadata section's header and the error (original.gbx
    then answers EIO)."""

    __slots__ = ("_entry", "_arc", "_ctx", "_mtime", "_inner", "_ilock")

    def __init__(self, name: str, entry: PakEntry, arc: PakArchive | PackArchive, ctx: TreeContext, mtime_ns: int):
        super().__init__(name, mtime_ns=mtime_ns)
        self._entry, self._arc, self._ctx, self._mtime = entry, arc, ctx, mtime_ns
        self._inner: Entry | None = None
        self._ilock = threading.Lock()

    def _open(self) -> Entry:
        if self._inner is None:
            with self._ilock:
                if self._inner is None:
                    self._inner = self._make()
        return self._inner

    def _make(self) -> Entry:
        source = PakEntrySource(self._entry, self._mtime, archive=self._arc)
        err, walk = self._entry.verify()
        if walk is not None and walk.body is not None:      # a verified pass's walk has its body
            # the verifying pass parsed the entry: the view uses that parse, not a second one
            GbxParse(source, self._ctx).seed_body(walk.body, walk.result)
        if err is None and self._ctx.open_child is not None:
            return self._ctx.open_child(self.name, source)
        arc, index = self._arc, self._entry.rec.index   # the header only when needed: metadata is cached
        return open_gbx(self.name, source, self._ctx, header_bytes=lambda: arc.gbx_header(index), error=err)

    def _list(self) -> Mapping[str, Entry]:
        inner = self._open()
        if not isinstance(inner, Dir):   # the registry chose a plain file: show it inside, unchanged
            return {inner.name: inner}
        kids = inner.children()
        for k, v in inner.xattrs.items():
            self.xattrs.setdefault(k, v)
        err = self._entry.error
        if err is not None:
            self.xattrs[ERROR_XATTR] = err.encode("utf-8", "replace")
        if self._entry.proof is not None:
            self.xattrs[PROOF_XATTR] = self._entry.proof.encode()
        return kids

    def _find(self, name: str) -> Entry | None:
        """What the GBX folder finds by name, listed or not (embedded/, ghosts/)."""
        kids = self._list()
        inner = self._inner
        return inner.child(name) if isinstance(inner, Dir) else kids.get(name)

    @property
    def unlisted(self) -> frozenset[str]:
        """The GBX folder's names found by name but never listed (model.PartlyListedDir)."""
        inner = self._open()
        return getattr(inner, "unlisted", frozenset()) if inner.is_dir else frozenset()

    def _list_now(self) -> Mapping[str, Entry] | None:
        inner = self._inner
        if not isinstance(inner, Dir) or inner.children(wait=False) is None:
            return None
        return self._list()         # the inner listing at hand: only the attributes added

    def summary_header(self):
        """The GBX header for the folder's maps.csv / replays.csv: from the opened
        view when there is one, else from the pak's metadata section (no decryption
        of the entry)."""
        inner = self._inner
        if inner is not None and hasattr(inner, "summary_header"):
            return inner.summary_header()
        arc, index = self._arc, self._entry.rec.index
        return self._ctx.cache.get_or_make(("gbx.metaheader", arc, index), lambda: _meta_header(arc, index))

    def status(self):
        """The GBX file's status (gbxfs/tree/gbx/status.py), None when it is not shown as
        a GBX folder: needs the entry's bytes (decrypted, and its body parsed)."""
        return status_of_entry(self._open())


# a folder of at most this many entries is listed from memory in well under a
# millisecond (no I/O, no parsing): no worker thread needed (PakFolder._list_now)
CHEAP_LISTING = 256
# what one listed entry keeps alive (its tree object, its PakEntry and record: a file is
# a row of the listing until asked for, tree/pak/listed.py, so an upper bound), measured
# with tracemalloc over listings of a pak's folders (about 1050 bytes: tests/tree/test_pak_table.py); rounded up
LISTED_ENTRY_COST = 1280


class PakTree:
    """What the folders of one open pak share: the archive, the index of its
    folders (tree/pak/index.py) and how entries are made. The table and the
    index live in ctx.cache (made again when evicted); so do the listings. An
    index the cache does not keep (no room beside a table held outside it,
    tree/pak/tablecache.py) is held here, counted in the cache's bound: made
    per listing, it cost a pass over the table per folder."""

    __slots__ = ("arc", "ctx", "mtime", "root_extra", "columns", "_index_key", "_bad", "_bad_rows", "_index",
                 "_index_lock")

    def __init__(self, arc: PakArchive | PackArchive, ctx: TreeContext, mtime: int, root_extra: list[Entry]):
        self.arc, self.ctx, self.mtime, self.root_extra = arc, ctx, mtime, root_extra
        # the files' shown names, sizes and marks, a block at a time (tree/pak/columns.py)
        self.columns = FileColumns(arc, ctx.cache, arc.version if ctx.typed_names else None,
                                   ctx.gbx_mode == "folder", self.static_rows)
        self._index_key = ("pak.index", arc)
        self._bad: Callable[[int, int, int, int], bool] | None = None
        self._bad_rows: Callable[..., list[int]] | None = None
        self._index: PakIndex | None = None
        self._index_lock = Lock()

    def file_row(self, rows: Rows, i: int, index: int) -> PakEntryFile:
        """The PakEntryFile of row i of a listing (tree/pak/listed.py), table index `index`."""
        return PakEntryFile(rows.names[i], self, index, rows.sizes[i], mtime_ns=self.mtime)

    def static_check(self):
        """Whether the archive's static_error names something for a file's table fields
        (made once: asked per listing made file by file)."""
        bad = self._bad
        if bad is None:
            static = self.arc.static_error
            bad = self._bad = lambda size, stored, offset, flags: static(size, stored, offset, flags) is not None
        return bad

    def static_rows(self):
        """static_check over a block's columns (made once: tree/pak/columns.py)."""
        rows = self._bad_rows
        if rows is None:
            rows = self._bad_rows = rows_of(self.static_check())
        return rows

    def index(self) -> PakIndex:
        index = self._index
        if index is not None:
            return index
        arc, cache = self.arc, self.ctx.cache
        index = cache.get_or_make(self._index_key, lambda: _made_index(arc.files))
        if cache.peek(self._index_key) is not index:
            with self._index_lock:
                if self._index is None and cache.peek(self._index_key) is not index:
                    self._index = index
                    cache.hold(index, index.nbytes)
        return index

    def in_memory(self) -> tuple[FileTable, PakIndex] | None:
        """The table and the index if both are in memory now (no reading or parsing needed).
        The index is looked at without counting a use (asked per folder listed: the
        table's use counts for both)."""
        index = self._index if self._index is not None else self.ctx.cache.peek(self._index_key)
        table = self.arc.table_in_memory() if index is not None else None
        return None if table is None else (table, index)

    def listing(self, node: int, have: tuple[FileTable, PakIndex] | None = None,
                parent: PakFolder | None = None) -> Rows:
        """The node's entries by name, in listing order, as rows (tree/pak/listed.py);
        `parent`: the folder listing them (its sub-folders' ahead_parent, tree/pak/ahead.py)."""
        table, index = have or (self.arc.files, self.index())
        ctx, arc, mtime = self.ctx, self.arc, self.mtime

        def make_folder(name: str, sub: int) -> Entry:
            folder = PakFolder(name, self, sub, cheap=index.size(sub) <= CHEAP_LISTING, mtime_ns=mtime)
            folder.ahead_parent = parent
            return folder

        def make_gbx(name: str, i: int) -> Entry:
            rec = table[i]
            e = PakGbxDir(name, arc.entry(rec), arc, ctx, mtime)
            e.xattrs.update(_record_xattrs(rec, name))
            return e

        # the root's generated files (.pak-info.txt; a pack's pack-info.txt, pack.xml) come
        # first and are never taken
        extras = self.root_extra if node == 0 else []
        reserved = _ROOT_RESERVED.union(e.name for e in extras) if node == 0 else _FOLDER_RESERVED
        return node_rows(self, node, table, index, extras, reserved, make_folder, make_gbx)


def _made_index(table: FileTable) -> tuple[PakIndex, int]:
    index = PakIndex(table)
    return index, index.nbytes


class PakFolder(Dir):
    """A folder inside a pak. Its listing is made from the pak's index when
    listed and kept in ctx.cache (costed per entry): evicted, it is made again,
    identical. error.txt appears once one of its entries is known to be
    unverifiable (found out when it is first read)."""

    __slots__ = ("_tree", "_node", "_cheap", "ahead_parent", "_key")

    def __init__(self, name: str, tree: PakTree, node: int, *, cheap: bool = False, **kw):
        super().__init__(name, **kw)
        self._tree, self._node, self._cheap = tree, node, cheap
        self.ahead_parent: PakFolder | None = None     # the folder listing this one (read-ahead)
        self._key = ("pak.list", tree.arc, node)

    def _listed(self, have: tuple | None = None, missed: bool = False) -> Rows:
        """The listing, from the cache or made (and cached) now (read-ahead calls
        this from worker threads). `have`: the table and index in memory.
        `missed`: the cache was just asked, so ask under the lock only."""
        cache = self._tree.ctx.cache
        kids = None if missed else cache.get(self._key)
        if kids is None:
            with self._lock:
                kids = cache.peek(self._key)     # made by another thread meanwhile?
                if kids is None:
                    kids = self._tree.listing(self._node, have, self)
                    cache.put(self._key, kids, LISTED_ENTRY_COST * len(kids.names) + ITEM_OVERHEAD)
        return kids

    def _list(self) -> Mapping[str, Entry]:
        return self._shown(self._listed())

    def _list_now(self) -> Mapping[str, Entry] | None:
        """The listing if kept, or made from the file table and index in memory when
        the folder is small (a few hundred objects, no I/O, no parsing: well under a
        millisecond, fine on the event loop), else None."""
        cache = self._tree.ctx.cache
        # a first listing (every folder `find` enters) misses: looked at without the lock
        kids = cache.get(self._key) if cache.peek(self._key) is not None else None
        if kids is None:
            have = self._tree.in_memory() if self._cheap else None
            if have is None:
                return None
            kids = self._listed(have, missed=True)
        return self._shown(kids)

    def _shown(self, kids: Rows) -> Mapping[str, Entry]:
        """The listing as shown: with error.txt once an entry is known to be unverifiable."""
        if not self._tree.arc.entries.any_error:    # no entry of the pak ever found bad: nothing to look for
            return kids
        # entries not made yet are unread: only a made one can know it is unverifiable
        bad = [(e.rec, e.error) for e in map(_pak_entry, kids.made()) if e is not None and e.error]
        if not bad or ERROR_NAME in kids:
            return kids
        text = "".join(f"{'/'.join(rec.parts)}: {err}\n" for rec, err in bad)
        self.xattrs[ERROR_XATTR] = bad[0][1].encode("utf-8", "replace")
        return {**kids, ERROR_NAME: BytesFile(ERROR_NAME, text.encode("utf-8", "replace"))}

    def _find(self, name: str) -> Entry | None:
        # a lookup needs no scan of every file's error: only error.txt does
        if name == ERROR_NAME:
            return self._list().get(name)
        return self._listed().get(name)

    def _find_now(self, name: str) -> Entry | None | Later:
        kids = self._list_now()
        return Later.LATER if kids is None else kids.get(name)

    def peek(self) -> Mapping[str, Entry] | None:
        # not counted as a use: asked per listed folder (its link count) and per getattr
        return self._tree.ctx.cache.peek(self._key)

    def _listed_file(self, name: str):
        """The listed entry `name` if the listing is cached, without counting as a use."""
        kids = self._tree.ctx.cache.peek(self._key)
        return kids.get(name) if kids is not None else None

    def read_ahead(self, name: str) -> ReadAhead:
        """Opening `name`: an unread small pak entry is verified with the small unread
        entries a tree walk opens after it, into the cache (tree/pak/ahead.py), so their
        reads are answered from the trio loop; and opening an entry read ahead, or in a
        batch being read ahead, starts the next batch in the background (once)."""
        e = self._listed_file(name)
        made = e.made if isinstance(e, PakEntryFile) else None
        background = partial(self._read_ahead, name, True) if made is not None and take_mark(made) else None
        wanted = (isinstance(e, PakEntryFile) and e.size() <= SMALL_ENTRY
                  and (made is None or not made.checked))
        return ReadAhead(partial(self._read_ahead, name) if wanted else None, background)

    def _read_ahead(self, name: str, background: bool = False) -> None:
        """Verify `name` and the small unread entries after it (worker thread). Not
        `background`: `name` in a batch in flight is waited for, not read again."""
        read_ahead(self, name, self._tree.arc.entries, background)

    def ahead_items(self, after: str | None) -> Iterator[tuple[str, object]]:
        """("dir", folder) or ("file", PakEntry) for the children listed from
        `after` on (all for None; nothing if `after` is not here), for ahead.py.
        Lists the folder if needed (worker thread)."""
        kids = self._listed()           # the listing itself: no error.txt check per batch
        start = 0 if after is None else kids.position(after)
        if start is None:
            return
        for e in map(kids.at, range(start, len(kids))):
            if isinstance(e, PakFolder):
                yield "dir", e
            elif isinstance(e, PakEntryFile):
                yield "file", e.entry


def _pak_entry(e: Entry) -> PakEntry | None:
    """The PakEntry behind a listed entry, if made (never makes one)."""
    if isinstance(e, PakEntryFile):
        return e.made
    if isinstance(e, PakGbxDir):
        return e._entry
    return None


def _meta_header(arc: PakArchive | PackArchive, index: int):
    """(header or None, cost) from a pak's metadata record of one GBX file."""
    data = arc.gbx_header(index)
    if not data:
        return None, 256
    try:
        h = parse_header(data, refs=False)
    except GbxError:
        return None, 256
    return h, 2 * len(data) + 4096


# names the view itself puts in folders: an archive entry never takes them
_ROOT_RESERVED = frozenset({INFO_NAME, ERROR_NAME})
_FOLDER_RESERVED = frozenset({ERROR_NAME})


def build_tree(arc: PakArchive | PackArchive, ctx: TreeContext, mtime: int, name: str, root_extra: list[Entry]) -> Dir:
    """The pak's root folder: `root_extra` (pak-info.txt and the like), then the
    folders and entries of the file table (empty folders included), each folder
    listed when first visited (tree/pak/index.py decides names and order)."""
    tree = PakTree(arc, ctx, mtime, root_extra)
    return PakFolder(name, tree, 0, mtime_ns=mtime)
