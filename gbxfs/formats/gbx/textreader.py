"""TextGbxReader: the text format ('T' in the header) of the GameBox primitives.

Numbers and strings are one CRLF-terminated ASCII line each; class/chunk ids and
lookback indices are hex (as GBX.NET reads them), other integers decimal; raw byte
arrays stay raw. Everything else (state, limits, raw bytes) is GbxReader's.
"""
from __future__ import annotations

import builtins
import struct
from typing import Any

from .encoding import SKIP_MARKER
from .errors import GbxError, Truncated
from .reader import GbxReader
from .sources import BufferSource

MAX_LINE = 1 << 26           # longest line
_F32 = struct.Struct("<f")


class TextGbxReader(GbxReader):
    """Text-format GBX: one CRLF-terminated ASCII line per number or string."""

    text = True

    def line(self) -> str:
        buf = self._buf
        if buf is not None:
            assert self._end is not None        # in memory the end is known
            # look for CRLF window by window: a line is usually short
            start = self._pos
            limit = min(self._end, start + MAX_LINE)
            p = start
            while True:
                q = min(limit, p + 4096)
                idx = bytes(buf[p:q + 1]).find(b"\r\n")
                if idx >= 0:
                    data = bytes(self._take(p + idx - start))
                    self._take(2)
                    return data.decode("utf-8", "replace")
                if q >= limit:
                    raise Truncated("text line without CRLF", offset=self.offset_base + self.tell())
                p = q
        out = bytearray()
        while True:
            b = self._take(1)
            if b == b"\r":
                nxt = self._take(1)
                if nxt == b"\n":
                    return out.decode("utf-8", "replace")
                out += b
                b = nxt
            out += b
            if len(out) > MAX_LINE:
                raise self.error("text line too long")

    def _int(self, lo: int, hi: int, base: int = 10) -> int:
        at = self.tell()
        s = self.line().strip()
        try:
            v = int(s, base)
        except ValueError:
            raise self.error(f"expected a number, found {s[:40]!r}", at) from None
        if v < 0 and lo >= 0 and v >= -(hi + 1) // 2:
            v += hi + 1          # unsigned written as signed
        elif v > hi // 2 and lo < 0 and v <= hi:
            v -= hi + 1          # signed written as unsigned (GBX.NET writes -1 as 4294967295)
        if not lo <= v <= (hi if lo >= 0 else hi // 2):
            raise self.error(f"number {v} out of range", at)
        return v

    def u8(self) -> int:
        return self._int(0, 0xFF)

    def i8(self) -> int:
        return self._int(-0x80, 0xFF)

    def u16(self) -> int:
        return self._int(0, 0xFFFF)

    def i16(self) -> int:
        return self._int(-0x8000, 0xFFFF)

    def u32(self) -> int:
        return self._int(0, 0xFFFFFFFF)

    def i32(self) -> int:
        return self._int(-0x80000000, 0xFFFFFFFF)

    def u64(self) -> int:
        return self._int(0, (1 << 64) - 1)

    def i64(self) -> int:
        return self._int(-(1 << 63), (1 << 64) - 1)

    def u128(self) -> int:
        lo = self.u64()
        return lo | (self.u64() << 64)

    def hex32(self) -> int:
        at = self.tell()
        s = self.line().strip()
        try:
            v = int(s, 16)
        except ValueError:
            raise self.error(f"expected a hex id, found {s[:40]!r}", at) from None
        if not 0 <= v <= 0xFFFFFFFF:
            raise self.error(f"hex id {s} out of range", at)
        return v

    def chunk_id(self) -> int:
        return self.hex32()

    def f32(self) -> float:
        at = self.tell()
        s = self.line().strip()
        try:
            return _F32.unpack(_F32.pack(float(s)))[0]
        except (ValueError, OverflowError):
            raise self.error(f"expected a float, found {s[:40]!r}", at) from None

    def bool(self) -> bool:
        at = self.tell()
        s = self.line().strip().lower()
        if s in ("1", "true"):
            return True
        if s in ("0", "false"):
            return False
        raise self.error(f"expected a bool, found {s[:40]!r}", at)

    def vec2(self):
        return (self.f32(), self.f32())

    def vec3(self):
        return (self.f32(), self.f32(), self.f32())

    def vec4(self):
        return (self.f32(), self.f32(), self.f32(), self.f32())

    def floats(self, n):
        return tuple(self.f32() for _ in range(n))

    def ints(self, n):
        return tuple(self.i32() for _ in range(n))

    def array(self, fmt: str, n: int) -> list:
        self.check_count(n, 3)   # at least one digit + CRLF per number
        read = {"B": self.u8, "b": self.i8, "H": self.u16, "h": self.i16, "I": self.u32,
                "i": self.i32, "Q": self.u64, "q": self.i64, "f": self.f32}[fmt]
        return [read() for _ in range(n)]

    def string(self) -> str:
        return self.line()

    def id_index(self) -> int:
        at = self.tell()
        s = self.line().strip()
        if s == "4294967295" or s == "-1":
            return 0xFFFFFFFF
        try:
            return int(s, 16) & 0xFFFFFFFF
        except ValueError:
            raise self.error(f"expected a lookback index, found {s[:40]!r}", at) from None

    def skip_marker(self) -> builtins.bool:
        # The marker is a hex line "534B4950" in text files.
        if self._buf is None:
            raise self.error("text-format GBX needs an in-memory source")
        save = self._pos
        try:
            if self.hex32() == SKIP_MARKER:
                return True
        except GbxError:
            pass
        self._pos = save
        return False


def make_reader(source: Any, *, text: bool = False, **kw: Any) -> GbxReader:
    """A binary or text reader over `source` (bytes, BufferSource or pull source)."""
    return (TextGbxReader if text else GbxReader)(source, **kw)


def as_text_reader(r: GbxReader) -> TextGbxReader:
    """Continue a binary reader as a text reader at the same position (a text file's
    header starts with binary bytes); offsets stay relative to the original start."""
    if r._buf is not None:
        t = TextGbxReader(BufferSource(r._buf, r._pos, r._end), offset_base=r.offset_base)
        t._base = r._base
        return t
    assert r._log is not None               # a stream (no _buf) logs what it takes
    t = TextGbxReader(r._src, offset_base=r.offset_base)
    t._log = r._log        # offsets continue from the binary part
    t._pos = t._base = 0
    t._pos = len(r._log)
    t._end = r._end
    return t
