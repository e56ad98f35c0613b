"""Errors raised by the GBX parsers for bad input.

Every parser in gbxfs.formats.gbx raises only GbxError (or its subclass Truncated)
for truncated, corrupt or hostile input; anything else escaping is a bug.
The context fields are filled in as the error travels outwards (the reader knows the
offset, the node walker knows the chunk and the node), see `add_context`.
"""
from __future__ import annotations


class GbxError(Exception):
    """Bad GBX input. `reason` is the bare message; str() adds the context."""

    def __init__(self, reason: str, *, offset: int | None = None, chunk_id: int | None = None,
                 node: int | str | None = None, where: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        self.chunk_id = chunk_id
        self.node = node
        self.where = where  # "header", "body", "refs", ... (section of the file)
        self.decl: str | None = None  # declaration being decoded: "file.chunks:12 fieldName"

    def add_context(self, *, offset: int | None = None, chunk_id: int | None = None,
                    node: int | str | None = None, where: str | None = None) -> "GbxError":
        """Fill context fields that are still unknown (inner context wins); returns self."""
        if self.offset is None:
            self.offset = offset
        if self.chunk_id is None:
            self.chunk_id = chunk_id
        if self.node is None:
            self.node = node
        if self.where is None:
            self.where = where
        return self

    def __str__(self) -> str:
        parts = []
        if self.where:
            parts.append(self.where)
        if self.chunk_id is not None:
            parts.append(f"chunk {self.chunk_id:08X}")
        if self.node is not None:
            parts.append(f"node {self.node}")
        if self.offset is not None:
            parts.append(f"offset {self.offset:#x}")
        if self.decl:
            parts.append(f"reading {self.decl}")
        return f"{self.reason} ({', '.join(parts)})" if parts else self.reason

    def to_dict(self) -> dict:
        return {
            "reason": self.reason,
            "where": self.where,
            "offset": self.offset,
            "chunk_id": None if self.chunk_id is None else f"{self.chunk_id:08X}",
            "node": self.node,
            "decl": self.decl,
        }


class Truncated(GbxError):
    """The data ended before a declared item did."""
