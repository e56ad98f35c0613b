"""The one exception type pak parsers raise for bad input."""
from __future__ import annotations


class PakError(Exception):
    """Bad, truncated or undecryptable pak data. `offset` is a byte offset in
    the pak (or packlist) when one is meaningful, else None."""

    def __init__(self, reason: str, offset: int | None = None):
        self.reason = reason
        self.offset = offset
        super().__init__(reason if offset is None else f"{reason} (at offset {offset:#x})")


class EntryError:
    """An entry's `error`: None while nothing is known to be wrong, else why its
    bytes cannot be served. Setting one also sets `EntryError.any_set` (for
    every entry of every archive, never cleared), so a folder showing error.txt
    for its bad entries need not look at each entry while none ever had one."""

    any_set = False
    _error: str | None = None

    @property
    def error(self) -> str | None:
        return self._error

    @error.setter
    def error(self, value: str | None) -> None:
        if value is not None:
            EntryError.any_set = True
        self._error = value
