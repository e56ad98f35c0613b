"""An open ManiaPlanet/TM2020 pack (.Pack.Gbx, "NadeoPak" versions 6-18) in
the tree, opened as far as the keys at hand allow (formats/pak/archive6.py).

    arc = PackArchive(read_at, size, key_or_None, cache=ctx.cache)
    arc.pack            # the plain header (packgbx.PackHeader), always
    arc.table_error     # why the file table is not shown (private header, no key), else None
    arc.files, arc.folders, arc.entry(rec)   # files: a table.FileTable kept in the cache (tablecache.py)
"""
from __future__ import annotations

from typing import Any

from gbxfs.formats.pak import (
    FileTable,
    Metadata,
    Pack6Table,
    PakError,
    PakFileRecord,
    check_pack,
    pack_key,
    peek_version,
    read_pack_header,
    read_pack_table,
    static_error6,
)
from gbxfs.tree.pak.entry6 import PackEntry
from gbxfs.tree.pak.group import EntryGroup
from gbxfs.tree.pak.pieces import NoCache
from gbxfs.tree.pak.tablecache import HeldTable, TableView


class PackArchive:
    def __init__(self, read_at, size: int, key: bytes | None, *, cache: Any = None, decls: Any = None,
                 verified_only: bool = False):
        self._read_at = read_at
        self.size = size
        self.version = peek_version(read_at, size)
        check_pack(self.version)
        self.pack = read_pack_header(read_at, size)
        self.key = key
        self._cache = cache if cache is not None else NoCache()
        # refuse (as an entry error) what no checksum can prove (verification.py)
        self.verified_only = verified_only
        self._decls = decls
        self._cipher = pack_key(self.version, key) if key is not None else None
        self.table: Pack6Table | None = None
        self.table_error: str | None = None
        self.data_offset = 0
        self.entries = EntryGroup()     # what they share (as PakArchive's)
        self._table: HeldTable | None = None
        self._empty = FileTable.empty(version=self.version)
        self.table = self._read_table()
        if self.table is not None:
            # as archive.py: the file table lives in the cache, read again when evicted
            assert isinstance(self.table.files, FileTable)  # as read_table made it
            self._table = HeldTable(self.table.files, self._cache, (object(), "table"), self._reload_table)
            self.table.files = TableView(self._table)

    @property
    def header_flags(self) -> int:
        return self.pack.decrypt_flags

    @property
    def header_mode(self) -> str:
        f = self.header_flags & 3
        return {0: "clear", 2: "default key (public)", 1: "private key", 3: "private key + default key"}[f]

    def _read_table(self) -> Pack6Table | None:
        got = read_pack_table(self._read_at, self.size, self.version, self.pack, self.key)
        self.table_error, self.data_offset = got.error, got.data_offset
        return got.table

    def _reload_table(self) -> FileTable:
        again = self._read_table()
        t = self.table
        assert t is not None        # a table to reload is one that was read
        if again is None or (again.stored_md5, again.plain_size) != (t.stored_md5, t.plain_size):
            raise PakError("the pack's file table changed since it was opened")
        assert isinstance(again.files, FileTable)   # as read_table made it
        return again.files

    @property
    def table_loads(self) -> int:
        """Times the file table was read (once, plus once per eviction; 0: no table)."""
        return self._table.loads if self._table else 0

    @property
    def folders(self):
        return self.table.folders if self.table else []

    @property
    def files(self) -> FileTable:
        """The file table: from the cache, or read again (once for all threads asking)."""
        return self._table.get() if self._table else self._empty

    def table_in_memory(self) -> FileTable | None:
        """The file table if it is in memory now (no reading needed), else None."""
        return self._table.in_memory() if self._table else self._empty

    def metadata(self) -> Metadata:
        """Versions 6+ keep GBX headers in a section whose layout is not public: none here."""
        return Metadata()

    def gbx_header(self, index: int) -> bytes | None:
        return None

    def static_error(self, size: int, stored_size: int, offset: int, flags: int) -> str | None:
        """What entry() of a file with these table fields would find wrong before
        reading anything (None: nothing), without making the entry."""
        return static_error6(self.size, self.data_offset + offset, size, stored_size, flags, self.version,
                             self._cipher is not None)

    def entry(self, rec: PakFileRecord) -> PackEntry:
        return self.entries.entry(rec.index, lambda: PackEntry(
            self._read_at, self.size, self._cipher, self.data_offset, rec, self._cache, self._decls,
            self.verified_only, self.entries))
