"""The virtual tree's node model, independent of FUSE.

A view of a file format builds these objects; the FUSE adapter and the CLI
walk them. Directories compute their children lazily, on first access, and
files know their exact size before any byte is read. The methods the rest
of the tree relies on, and what they promise, are written down in
gbxfs/tree/contract.py.
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

    # The FUSE layer answers from the event loop when these say the work is
    # trivial, and hops to a worker thread otherwise.
    def size_hint(self) -> int | None:
        """The size if known without any work (no I/O, parsing or rendering), else None."""
        return None

    def in_memory(self) -> bool:
        """True when read() only slices bytes already in memory."""
        return False

    def read_nowait(self, offset: int, size: int) -> bytes | None:
        """read() if it can answer without waiting (no I/O that could block,
        no decoding); None otherwise."""
        return self.read(offset, size) if self.in_memory() else None


class SourceFile(File):
    """A file whose bytes are a ByteSource's bytes, unchanged: a real file passed
    through, a raw archive entry. Its mtime is the source's."""

    __slots__ = ("source",)

    def __init__(self, name: str, source, **kw):
        kw.setdefault("mtime_ns", getattr(source, "mtime_ns", None))
        super().__init__(name, **kw)
        self.source = source

    def size(self) -> int:
        return self.source.size

    def size_hint(self) -> int | None:
        return self.source.size

    def read(self, offset: int, size: int) -> bytes:
        return self.source.read_at(offset, size)

    def read_nowait(self, offset: int, size: int) -> bytes | None:
        nowait = getattr(self.source, "read_at_nowait", None)
        return None if nowait is None else nowait(offset, size)


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

    def size_hint(self) -> int | None:
        return len(self.data)

    def in_memory(self) -> bool:
        return True


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

    def size_hint(self) -> int | None:
        data = self._data
        return None if data is None else len(data)

    def in_memory(self) -> bool:
        return self._data is not None


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
        """True when children() answers without work (no I/O, no parsing)."""
        return self._children is not None

    def peek(self) -> Mapping[str, Entry] | None:
        """The children if they were ever listed, without listing (possibly stale)."""
        return self._children
