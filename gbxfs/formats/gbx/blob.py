"""A bounded little-endian cursor over self-contained blobs already in memory.

Ghost record data (a zlib stream inside a chunk) and map thumbnails have
grammars of their own, so they are read with this small cursor rather than the
container reader: every read is checked against the end, every count against
what is left, and every failure is a GbxError carrying the offset inside the blob.
"""
from __future__ import annotations

import builtins
import struct

from .errors import GbxError, Truncated
from .zinflate import inflate_exact

_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from

# No ghost payload comes close: a 1-hour TM2020 record is a few MiB.
MAX_INFLATED = 64 * 1024 * 1024


class BlobCursor:
    __slots__ = ("data", "pos", "what")

    def __init__(self, data: bytes | memoryview, what: str = "ghost data"):
        self.data = data
        self.pos = 0
        self.what = what

    @property
    def left(self) -> int:
        return len(self.data) - self.pos

    def need(self, n: int) -> None:
        if n < 0 or n > len(self.data) - self.pos:
            raise Truncated(f"{self.what}: need {n} bytes, {self.left} left", offset=self.pos)

    def u8(self) -> int:
        self.need(1)
        v = self.data[self.pos]
        self.pos += 1
        return v

    def u32(self) -> int:
        p = self.pos
        if p + 4 > len(self.data):
            self.need(4)            # raises, saying so
        self.pos = p + 4
        return _U32(self.data, p)[0]

    def i32(self) -> int:
        p = self.pos
        if p + 4 > len(self.data):
            self.need(4)            # raises, saying so
        self.pos = p + 4
        return _I32(self.data, p)[0]

    def bytes(self, n: int) -> builtins.bytes:
        self.need(n)
        v = self.data[self.pos:self.pos + n]
        self.pos += n
        return v if type(v) is builtins.bytes else builtins.bytes(v)    # a view's piece: copied

    def skip(self, n: int) -> None:
        self.need(n)
        self.pos += n

    def count(self, item_size: int, n: int | None = None) -> int:
        """Read (or take) an element count and check that many items can fit."""
        if n is None:
            n = self.i32()
        if n < 0 or n * max(item_size, 1) > self.left:
            raise GbxError(f"{self.what}: count {n} does not fit the {self.left} bytes left",
                           offset=self.pos)
        return n

    def i32_array(self, n: int | None = None) -> list[int]:
        n = self.count(4, n)
        v = list(struct.unpack_from(f"<{n}i", self.data, self.pos))
        self.pos += 4 * n
        return v

    def data_block(self) -> builtins.bytes:
        """u32 length + bytes (GameBox 'data' / MwBuffer)."""
        return self.bytes(self.count(1))

    def expect_end(self) -> None:
        if self.left:
            raise GbxError(f"{self.what}: {self.left} bytes left over after decoding", offset=self.pos)


def inflate(data: bytes, expected_size: int, what: str) -> bytes:
    """zlib-inflate `data` to exactly `expected_size` bytes, never more than MAX_INFLATED."""
    return inflate_exact(data, expected_size, what, MAX_INFLATED)
