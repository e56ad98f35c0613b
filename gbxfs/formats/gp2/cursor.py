"""Bounds-checked little-endian reads over an in-memory GP2 file.

Every read checks against an explicit end (a section limit, not only the
file size), so a corrupt length or a missing terminator becomes a Gp2Error
at the point where it overruns instead of an IndexError or a silent read
into the next section.
"""
from __future__ import annotations

import struct

from gbxfs.formats.gp2.errors import Gp2Error

_U16 = struct.Struct("<H")
_S16 = struct.Struct("<h")
_U32 = struct.Struct("<I")


class Cursor:
    __slots__ = ("data", "pos", "end", "what")

    def __init__(self, data: bytes, pos: int, end: int, what: str):
        self.data = data
        self.pos = pos
        self.end = min(end, len(data))
        self.what = what  # names the section in error messages

    def need(self, n: int) -> None:
        if self.pos + n > self.end:
            raise Gp2Error(
                f"{self.what} runs past its end at 0x{self.end:X} "
                f"(needs {n} more bytes)", self.pos)

    def take(self, n: int) -> bytes:
        self.need(n)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return bytes(out)

    def u8(self) -> int:
        self.need(1)
        self.pos += 1
        return self.data[self.pos - 1]

    def peek_u16(self) -> int:
        self.need(2)
        return _U16.unpack_from(self.data, self.pos)[0]

    def u16(self) -> int:
        value = self.peek_u16()
        self.pos += 2
        return value

    def s16(self) -> int:
        self.need(2)
        self.pos += 2
        return _S16.unpack_from(self.data, self.pos - 2)[0]

    def u32(self) -> int:
        self.need(4)
        self.pos += 4
        return _U32.unpack_from(self.data, self.pos - 4)[0]

    def s16s(self, n: int) -> tuple[int, ...]:
        self.need(2 * n)
        values = struct.unpack_from(f"<{n}h", self.data, self.pos)
        self.pos += 2 * n
        return values


def u16_at(data: bytes, pos: int) -> int:
    if pos < 0 or pos + 2 > len(data):
        raise Gp2Error("file too short for a 16-bit value here", pos)
    return _U16.unpack_from(data, pos)[0]

