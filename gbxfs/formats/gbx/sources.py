"""Pull sources for GbxReader: `BufferSource` over bytes in memory (the reader reads
it in place), `Pushback` puts bytes back in front of a stream source (a peek)."""
from __future__ import annotations

from typing import Any

from .errors import Truncated


class BufferSource:
    """In-memory pull source over bytes/bytearray/memoryview (no copy)."""

    __slots__ = ("view", "pos", "end")

    def __init__(self, data: bytes | bytearray | memoryview, start: int = 0, end: int | None = None):
        view = memoryview(data)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        self.view = view
        self.end = len(view) if end is None else min(end, len(view))
        self.pos = min(start, self.end)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def read(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise Truncated(f"need {n} bytes, {self.end - self.pos} left", offset=self.pos)
        p = self.pos
        self.pos = p + n
        return bytes(self.view[p:p + n])


class Pushback:
    """A pull source with some bytes put back in front."""

    def __init__(self, src: Any, data: bytes):
        self.src = src
        self.head = bytes(data)

    def read(self, n: int) -> bytes:
        if not self.head:
            return self.src.read(n)
        h = self.head
        if n <= len(h):
            self.head = h[n:]
            return h[:n]
        self.head = b""
        return h + self.src.read(n - len(h))
