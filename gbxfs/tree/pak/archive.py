"""An open TrackMania pak (version 3) in the tree: entered lazily.

    arc = PakArchive(read_at, size, key, cache=ctx.cache)   # decrypts the header only
    arc.header.md5_ok, arc.folders, arc.files (the FileTable, kept in the cache)
    arc.metadata().headers[index]             # GBX header bytes, no data decrypted
    arc.gbx_header(index)                     # one of them (what a GBX folder asks for)
    e = arc.entry(rec); e.size; e.check(); e.read(offset, n); e.pieces()

`read_at(offset, size)` returns up to `size` bytes of the pak (the caller's
I/O). Bad input raises PakError; per-entry problems stay on the entry. What
the bytes are is formats/pak's (archive.py: the version and header;
metadata.py; tablecheck.py); what is kept, and the locks that make each thing
once for all threads asking, are here.
"""
from __future__ import annotations

import sys
import threading
from typing import Any

from gbxfs.formats.pak import (
    COMPRESSED_FLAGS,
    FileTable,
    Metadata,
    PakError,
    PakFileRecord,
    PakHeader,
    PakKey,
    check_pak,
    peek_version,
    read_metadata,
    read_pak_header,
    static_error,
)
from gbxfs.tree.pak.entry import PakEntry
from gbxfs.tree.pak.group import EntryGroup
from gbxfs.tree.pak.pieces import NoCache
from gbxfs.tree.pak.tablecache import HeldTable, TableView


class PakArchive:
    def __init__(self, read_at, size: int, key: bytes, *, cache: Any = None, decls: Any = None,
                 verified_only: bool = False):
        self._read_at = read_at
        self.size = size
        self.version = peek_version(read_at, size)
        check_pak(self.version, size)
        self.key = PakKey(key)
        self._cache = cache if cache is not None else NoCache()
        self._token = object()   # this archive's cache key prefix
        # refuse (as an entry error) what no checksum can prove (verification.py)
        self.verified_only = verified_only
        self._decls = decls   # GBX chunk declarations for embedded GBX (None: the shipped ones)
        self.header: PakHeader = read_pak_header(read_at, size, self.key, self.version)
        # the file table lives in the cache (a million files: tens of MB), read again when evicted;
        # the header's `files` fetches it from there
        assert isinstance(self.header.files, FileTable)     # as read_header made it
        self._table = HeldTable(self.header.files, self._cache, (self._token, "table"), self._reload_table)
        self.file_count = self._table.count
        self.header.files = TableView(self._table)
        # what the entries share (any_error: a folder shows error.txt), and the entries
        # made, kept while the tree holds them (a listed folder, a file the kernel knows)
        self.entries = EntryGroup()
        self._lock = threading.Lock()

    @property
    def table_loads(self) -> int:
        """Times the file table was read (once, plus once per eviction)."""
        return self._table.loads

    def table(self) -> FileTable:
        """The file table: from the cache, or read again (once, however many
        threads ask at the same time) after it was evicted."""
        return self._table.get()

    def table_in_memory(self) -> FileTable | None:
        """The file table if it is in memory now (no reading needed), else None."""
        return self._table.in_memory()

    def _reload_table(self) -> FileTable:
        header = read_pak_header(self._read_at, self.size, self.key, self.version)
        if header.stored_md5 != self.header.stored_md5 or header.md5_ok != self.header.md5_ok:
            raise PakError("the pak's header changed since it was opened")
        assert isinstance(header.files, FileTable)          # as read_header made it
        return header.files

    @property
    def folders(self):
        return self.header.folders

    @property
    def files(self) -> FileTable:
        return self.table()

    def metadata(self) -> Metadata:
        """The metadata section, from the cache (up to 64 MiB inflated: it must
        not live as long as the archive; without a cache it is read per call)."""
        key = (self._token, "metadata")
        meta = self._cache.get(key)
        if meta is None:
            with self._lock:   # one thread decrypts and inflates; the others wait for its result
                meta = self._cache.get(key)
                if meta is None:
                    h = self.header
                    meta = read_metadata(self._read_at, self.size, self.key, h.meta_offset,
                                         h.meta_size, h.meta_stored_size, self.file_count)
                    self._cache.put(key, meta, metadata_cost(meta))
        return meta

    def gbx_header(self, index: int) -> bytes | None:
        """File `index`'s GBX header from the metadata section (None: no record)."""
        return self.metadata().headers.get(index)

    def static_error(self, size: int, stored_size: int, offset: int, flags: int) -> str | None:
        """What entry() of a file with these table fields would find wrong before
        reading anything (None: nothing), without making the entry."""
        return static_error(self.size, self.header.data_offset + offset, size, stored_size,
                            bool(flags & COMPRESSED_FLAGS))

    def entry(self, rec: PakFileRecord) -> PakEntry:
        return self.entries.entry(rec.index, lambda: PakEntry(
            self._read_at, self.size, self.key, self.header.data_offset, rec, self._cache, self._decls,
            self.verified_only, self.entries))


def metadata_cost(meta: Metadata) -> int:
    """What a Metadata keeps alive: its dict, the header bytes objects (each a
    copy, so the inflated records are freed) and their int keys."""
    per_key = sys.getsizeof(1 << 40)
    return (sys.getsizeof(meta) + sys.getsizeof(meta.headers) + len(meta.error or "") +
            sum(sys.getsizeof(v) + per_key for v in meta.headers.values()))
