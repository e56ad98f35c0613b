"""A pak's file table kept in the byte-bounded cache, read again when evicted.

    held = HeldTable(table, cache, key, reload)
    held.get()          # the table: from the cache, or `reload()` once for all threads asking
    held.in_memory()    # the table if no reading is needed now, else None
    held.loads          # times the table was read (1, plus 1 per reload)
    held.pinned         # True once the table is held here, outside the cache
    TableView(held)     # a Sequence of records that fetches the table per call

Both archive kinds (archive.py: versions 1-3, archive6.py: 6-18) keep their
FileTable this way: a million files make tens of MB, which must count in the
cache bound and leave with it rather than live as long as the archive.
Without a cache (a NoCache: the CLI's one-shot reads) the table is held.
A table the cache does not keep (larger than its bound, or than the room
left under it) is held too, for the archive's life, and counted in the
cache's bound as memory in use (ByteLRU.hold): read again per listing, a
million-file table was decrypted once per folder `find` entered.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from gbxfs.formats.pak import FileTable, PakFileRecord
from gbxfs.tree.pak.pieces import NoCache


class HeldTable:
    __slots__ = ("count", "loads", "_cache", "_key", "_reload", "_held", "pinned", "_pin_lock")

    def __init__(self, table: FileTable, cache: Any, key: Hashable, reload: Callable[[], FileTable]):
        self.count = len(table)
        self.loads = 1
        self._cache, self._key, self._reload = cache, key, reload
        self._held: FileTable | None = None
        self.pinned = False
        self._pin_lock = threading.Lock()
        if isinstance(cache, NoCache):
            self._held = table
        else:
            # costly: a table is decrypted again when evicted, as a parse is parsed again
            cache.put(key, table, table.nbytes, costly=True)
            self._pin_unless_kept(table)

    def _pin_unless_kept(self, table: FileTable) -> None:
        """Hold `table` here, counted in the cache's bound, if the cache did not keep it
        (once, however many threads find it missing)."""
        with self._pin_lock:
            if self._held is None and self._cache.peek(self._key) is not table:
                self._held, self.pinned = table, True
                self._cache.discard(self._key)      # counted once: as held from now on
                self._cache.hold(table, table.nbytes)
                self._cache.reserve(0)

    def get(self) -> FileTable:
        """The table: from the cache, or read again (once, however many threads
        ask at the same time) after it was evicted."""
        if self._held is not None:
            return self._held
        table = self._cache.get_or_make(self._key, self._make)
        if self._held is None and self._cache.peek(self._key) is not table:
            self._pin_unless_kept(table)
        return table

    def in_memory(self) -> FileTable | None:
        return self._held if self._held is not None else self._cache.get(self._key)

    def _make(self) -> tuple[FileTable, int]:
        self.loads += 1
        table = self._reload()
        return table, table.nbytes


class TableView(Sequence[PakFileRecord]):
    """A header's `files` while its archive is open: the table, wherever it is now."""

    __slots__ = ("_held",)

    def __init__(self, held: HeldTable):
        self._held = held

    def __len__(self) -> int:
        return self._held.count

    def __getitem__(self, i):
        return self._held.get()[i]

    def __iter__(self) -> Iterator[PakFileRecord]:
        return iter(self._held.get())
