"""The one exception type pak parsers raise for bad input."""
from __future__ import annotations


class PakError(Exception):
    """Bad, truncated or undecryptable pak data. `offset` is a byte offset in
    the pak (or packlist) when one is meaningful, else None."""

    def __init__(self, reason: str, offset: int | None = None):
        self.reason = reason
        self.offset = offset
        super().__init__(reason if offset is None else f"{reason} (at offset {offset:#x})")

