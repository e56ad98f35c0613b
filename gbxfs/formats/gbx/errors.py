"""Errors raised by the GBX parsers for bad input.

Every parser in gbxfs.formats.gbx raises only GbxError (or its subclass Truncated)
for truncated, corrupt or hostile input; anything else escaping is a bug.
The context fields are filled in as the error travels outwards (the reader knows the
offset, the node walker knows the chunk and the node), see `add_context`.
"""
from __future__ import annotations

from collections.abc import Callable


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
                    node: int | str | None = None, where: str | None = None) -> GbxError:
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

    def context(self, order: tuple[str, ...] = ("where", "chunk", "node", "offset", "decl"), *,
                chunk_name: Callable[[int], str | None] | None = None, offset_decimal: bool = False) -> list[str]:
        """The known context fields as short phrases ("chunk 03043007", "offset 0x1c"),
        in `order`. `chunk_name` adds a chunk's name, `offset_decimal` the decimal offset."""
        known: dict[str, str] = {}
        if self.where:
            known["where"] = self.where
        if self.chunk_id is not None:
            name = chunk_name(self.chunk_id) if chunk_name else None
            known["chunk"] = f"chunk {self.chunk_id:08X}" + (f" ({name})" if name else "")
        if self.node is not None:
            known["node"] = f"node {self.node}"
        if self.offset is not None:
            known["offset"] = f"offset {self.offset:#x}" + (f" ({self.offset})" if offset_decimal else "")
        if self.decl:
            known["decl"] = f"reading {self.decl}"
        return [known[k] for k in order if k in known]

    def __str__(self) -> str:
        parts = self.context()
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
