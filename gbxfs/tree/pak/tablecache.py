"""A pak's file table kept in the byte-bounded cache, read again when evicted.

    held = HeldTable(table, cache, key, reload)
    held.get()          # the table: from the cache, or `reload()` once for all threads asking
    held.in_memory()    # the table if no reading is needed now, else None
    held.loads          # times the table was read (1, plus 1 per reload)
    TableView(held)     # a Sequence of records that fetches the table per call

Both archive kinds (archive.py: versions 1-3, archive6.py: 6-18) keep their
FileTable this way: a million files make tens of MB, which must count in the
cache bound and leave with it rather than live as long as the archive.
Without a cache (a NoCache: the CLI's one-shot reads) the table is held.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from gbxfs.formats.pak import FileTable, PakFileRecord
from gbxfs.tree.pak.pieces import NoCache


class HeldTable:
    __slots__ = ("count", "loads", "_cache", "_key", "_reload", "_held")

    def __init__(self, table: FileTable, cache: Any, key: Hashable, reload: Callable[[], FileTable]):
        self.count = len(table)
        self.loads = 1
        self._cache, self._key, self._reload = cache, key, reload
        self._held: FileTable | None = None
        if isinstance(cache, NoCache):
            self._held = table
        else:
            # costly: a table is decrypted again when evicted, as a parse is parsed again
            cache.put(key, table, table.nbytes, costly=True)

    def get(self) -> FileTable:
        """The table: from the cache, or read again (once, however many threads
        ask at the same time) after it was evicted."""
        if self._held is not None:
            return self._held
        return self._cache.get_or_make(self._key, self._make)

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

    def __getitem__(self, i):  # type: ignore[override]
        return self._held.get()[i]

    def __iter__(self) -> Iterator[PakFileRecord]:
        return iter(self._held.get())
