"""The virtual tree's node model, independent of FUSE.

A view of a file format builds these objects; the FUSE adapter and the CLI
walk them. Directories compute their children lazily, on first access, and
files know their exact size before any byte is read.
"""
from __future__ import annotations

import threading
from typing import Callable, Iterable, Mapping

Xattrs = dict[str, bytes]


class Entry:
    """Common part of files and directories."""

    __slots__ = ("name", "xattrs", "mtime_ns")

    def __init__(self, name: str, *, xattrs: Xattrs | None = None, mtime_ns: int | None = None):
        self.name = name
        self.xattrs: Xattrs = dict(xattrs or {})
        self.mtime_ns = mtime_ns  # None: inherit from the parent when presented

    is_dir = False


class File(Entry):
    """A regular file. Subclasses implement size() and read().

    `error` set means the bytes cannot be verified: reading answers EIO
    (and the CLI prints the reason)."""

    __slots__ = ("error",)

    def __init__(self, name: str, **kw):
        super().__init__(name, **kw)
        self.error: str | None = None

    def size(self) -> int:
        raise NotImplementedError

    def read(self, offset: int, size: int) -> bytes:
        raise NotImplementedError


class BytesFile(File):
    """A file whose content is already in memory."""

    __slots__ = ("data",)

    def __init__(self, name: str, data: bytes, **kw):
        super().__init__(name, **kw)
        self.data = data

    def size(self) -> int:
        return len(self.data)

    def read(self, offset: int, size: int) -> bytes:
        return bytes(self.data[offset : offset + size])


class RenderedFile(File):
    """A generated file, rendered once on first size() or read().

    The rendered bytes are kept (generated files are small text dumps);
    views that generate large content should use their own File subclass."""

    __slots__ = ("_render", "_data", "_lock")

    def __init__(self, name: str, render: Callable[[], bytes], **kw):
        super().__init__(name, **kw)
        self._render = render
        self._data: bytes | None = None
        self._lock = threading.Lock()

    def _get(self) -> bytes:
        data = self._data
        if data is None:
            with self._lock:
                if self._data is None:
                    self._data = bytes(self._render())
                data = self._data
        return data

    def size(self) -> int:
        return len(self._get())

    def read(self, offset: int, size: int) -> bytes:
        return self._get()[offset : offset + size]


class Dir(Entry):
    """A directory whose children are computed by `load` on first access."""

    __slots__ = ("_load", "_children", "_lock")
    is_dir = True

    def __init__(
        self,
        name: str,
        load: Callable[[], Iterable[Entry]] | None = None,
        children: Iterable[Entry] | None = None,
        **kw,
    ):
        super().__init__(name, **kw)
        self._load = load
        self._children: dict[str, Entry] | None = None
        self._lock = threading.Lock()
        if children is not None:
            self._children = {c.name: c for c in children}

    def children(self) -> Mapping[str, Entry]:
        kids = self._children
        if kids is None:
            with self._lock:
                if self._children is None:
                    loaded = self._load() if self._load else ()
                    self._children = {c.name: c for c in loaded}
                kids = self._children
        return kids

    def loaded(self) -> bool:
        return self._children is not None
