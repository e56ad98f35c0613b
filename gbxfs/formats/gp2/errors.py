"""The one exception GP2 parsing raises for bad input."""
from __future__ import annotations


class Gp2Error(Exception):
    """A file that is not a valid GP2 track, or whose structure is broken.

    `offset` is the absolute file offset where the problem was found (None
    when it concerns the file as a whole), `reason` the plain explanation."""

    def __init__(self, reason: str, offset: int | None = None):
        self.reason = reason
        self.offset = offset
        where = f"offset 0x{offset:X}: " if offset is not None else ""
        super().__init__(where + reason)
