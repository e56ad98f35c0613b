"""Random-access byte sources that views read from.

A view never opens files itself: it gets a ByteSource (a real file, a pak
entry, a slice of another file) and reads ranges from it.
"""
from __future__ import annotations

import os
import threading
from typing import Protocol


class ByteSource(Protocol):
    size: int          # exact size in bytes, known up front
    mtime_ns: int      # modification time shown for everything derived from it

    def read_at(self, offset: int, size: int) -> bytes:
        """Return up to `size` bytes at `offset` (fewer only at the end)."""
        ...


class FileSource:
    """A real file on disk, read with pread (thread-safe, no shared offset)."""

    def __init__(self, path: str):
        self.path = path
        st = os.stat(path)
        self.size = st.st_size
        self.mtime_ns = st.st_mtime_ns
        self._fd: int | None = None
        self._lock = threading.Lock()

    def _fileno(self) -> int:
        if self._fd is None:
            with self._lock:
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return self._fd

    def read_at(self, offset: int, size: int) -> bytes:
        if offset >= self.size or size <= 0:
            return b""
        return os.pread(self._fileno(), min(size, self.size - offset), offset)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class BytesSource:
    """Bytes already in memory (an embedded file, a test fixture)."""

    def __init__(self, data: bytes, mtime_ns: int = 0):
        self.data = data
        self.size = len(data)
        self.mtime_ns = mtime_ns

    def read_at(self, offset: int, size: int) -> bytes:
        return bytes(self.data[offset : offset + size])


def read_all(src: ByteSource, limit: int | None = None) -> bytes:
    """The whole source (refusing sources larger than `limit`)."""
    if limit is not None and src.size > limit:
        raise ValueError(f"source of {src.size} bytes exceeds the {limit}-byte limit")
    return src.read_at(0, src.size)
