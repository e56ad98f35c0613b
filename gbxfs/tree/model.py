"""The virtual tree's node model, independent of FUSE.

A view of a file format builds these objects; the FUSE adapter and the CLI
walk them. Directories compute their children lazily, on first access, and
files know their exact size before any byte is read. What the rest of the
tree may call, and what it promises, is written down in gbxfs/tree/contract.py;
the public methods here implement it once, over private hooks a view fills in:

    File: _exact_size() and _read(off, n), which may work; _known_size() and
          _read_now(off, n), which answer without work or None; prefetch(off).
    Dir:  _list() (may work) and _list_now() (without work, or None); _find(name)
          and _find_now(name) for lookups; peek(); read_ahead(name).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal, overload

from gbxfs.tree.acl import Access
from gbxfs.tree.contract import LATER, NO_READ_AHEAD, Later, ReadAhead

__all__ = ["LATER", "NO_READ_AHEAD", "Access", "BytesFile", "Dir", "Entry", "ErrorFolder", "File",
           "Later", "PartlyListedDir", "ReadAhead", "RealFile", "RenderedFile", "SourceFile", "Xattrs"]

Xattrs = dict[str, bytes]

class Entry:
    """Common part of files and directories."""

    # __weakref__: the FUSE inode table refers to entries weakly (an entry of an evicted
    # listing is made again from its path), so that it never holds a million of them
    __slots__ = ("name", "_xattrs", "mtime_ns", "access", "__weakref__")

    def __init__(self, name: str, *, xattrs: Xattrs | None = None, mtime_ns: int | None = None,
                 access: Access | None = None):
        self.name = name
        if xattrs:
            self.xattrs = dict(xattrs)      # through the setter: a subclass may keep them its way
        else:
            self._xattrs: Xattrs | None = None
        self.mtime_ns = mtime_ns  # None: inherit from the parent when presented
        self.access = access      # None: inherit from the parent when presented

    @property
    def xattrs(self) -> Xattrs:
        """The extended attributes, a dict made on first use: most entries have none
        (a walk of thousands of GBX folders keeps tens of thousands of entries)."""
        x = self._xattrs
        if x is None:
            x = self._xattrs = {}
        return x

    @xattrs.setter
    def xattrs(self, value: Xattrs) -> None:
        self._xattrs = value

    is_dir = False
    # True: a file's size needs work a listing must not do (a body parse, an image
    # encoded again): a listing shows the file without its size, which getattr
    # answers (exact) when something stats it. See tree/contract.py.
    if TYPE_CHECKING:   # read-only: a subclass may compute it (a property)
        @property
        def lazy_size(self) -> bool: ...
    else:
        lazy_size = False
    # True: the entry shows its access bits as they are (a real folder, a real file
    # passed through: RealFile); False: a folder made from a file adds x where r is
    # set, so reading the file means listing the folder, and a file made from a source
    # (a pak's files, a GBX folder's parts, the indexes) drops every x (tree/acl.py without_x)
    exact_mode = False


class File(Entry):
    """A regular file. Subclasses implement _exact_size() and _read(), and _known_size()
    and _read_now() when they can answer without work.

    `error` set means the bytes cannot be verified: reading answers EIO
    (and the CLI prints the reason)."""

    __slots__ = ("error",)

    def __init__(self, name: str, **kw):
        super().__init__(name, **kw)
        self.error: str | None = None

    @overload
    def size(self) -> int: ...
    @overload
    def size(self, wait: Literal[True]) -> int: ...
    @overload
    def size(self, wait: bool = ...) -> int | None: ...

    def size(self, wait: bool = True) -> int | None:
        """The exact size; wait=False: None unless known without any work."""
        known = self._known_size()
        return known if known is not None or not wait else self._exact_size()

    @overload
    def read(self, offset: int, size: int) -> bytes: ...
    @overload
    def read(self, offset: int, size: int, wait: Literal[True]) -> bytes: ...
    @overload
    def read(self, offset: int, size: int, wait: bool = ...) -> bytes | None: ...

    def read(self, offset: int, size: int, wait: bool = True) -> bytes | None:
        """Up to `size` bytes at `offset`; wait=False: None unless they are in memory."""
        return self._read(offset, size) if wait else self._read_now(offset, size)

    def prefetch(self, offset: int) -> list[Callable[[], None]]:
        """Work preparing the pieces a sequential reader at `offset` reads next
        (claimed: run each once, in a worker thread). None by default."""
        return []

    # -- hooks -------------------------------------------------------------

    def _exact_size(self) -> int:
        raise NotImplementedError

    def _read(self, offset: int, size: int) -> bytes:
        raise NotImplementedError

    def _known_size(self) -> int | None:
        """The size if known without any work (no I/O, parsing or rendering), else None."""
        return None

    def _read_now(self, offset: int, size: int) -> bytes | None:
        """_read() if it answers without waiting (no I/O that could block, no decoding)."""
        return None


class SourceFile(File):
    """A file whose bytes are a ByteSource's bytes, unchanged: a real file passed
    through, a raw archive entry. Its mtime is the source's."""

    __slots__ = ("source",)

    def __init__(self, name: str, source, **kw):
        kw.setdefault("mtime_ns", getattr(source, "mtime_ns", None))
        kw.setdefault("access", getattr(source, "access", None))
        super().__init__(name, **kw)
        self.source = source

    def _exact_size(self) -> int:
        return self.source.size

    def _known_size(self) -> int | None:
        return self.source.size

    def _read(self, offset: int, size: int) -> bytes:
        return self.source.read_at(offset, size)

    def _read_now(self, offset: int, size: int) -> bytes | None:
        nowait = getattr(self.source, "read_at_nowait", None)
        return None if nowait is None else nowait(offset, size)


class RealFile(SourceFile):
    """A real file of the source passed through: the one file shown with its own
    mode as it is, x bits included (tree/openers.py open_entry)."""

    __slots__ = ()
    exact_mode = True


class BytesFile(File):
    """A file whose content is already in memory."""

    __slots__ = ("data",)

    def __init__(self, name: str, data: bytes, **kw):
        super().__init__(name, **kw)
        self.data = data

    def _exact_size(self) -> int:
        return len(self.data)

    def _read(self, offset: int, size: int) -> bytes:
        return bytes(self.data[offset : offset + size])

    _known_size = _exact_size
    _read_now = _read


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

    def _exact_size(self) -> int:
        return len(self._get())

    def _read(self, offset: int, size: int) -> bytes:
        return self._get()[offset : offset + size]

    def _known_size(self) -> int | None:
        data = self._data
        return None if data is None else len(data)

    def _read_now(self, offset: int, size: int) -> bytes | None:
        data = self._data
        return None if data is None else data[offset : offset + size]


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

    @overload
    def children(self) -> Mapping[str, Entry]: ...
    @overload
    def children(self, wait: Literal[True]) -> Mapping[str, Entry]: ...
    @overload
    def children(self, wait: bool = ...) -> Mapping[str, Entry] | None: ...

    def children(self, wait: bool = True) -> Mapping[str, Entry] | None:
        """name -> entry; wait=False: None unless it answers without work."""
        return self._list() if wait else self._list_now()

    def peek(self) -> Mapping[str, Entry] | None:
        """The children if they were ever listed, without listing (possibly stale)."""
        return self._children

    @overload
    def child(self, name: str) -> Entry | None: ...
    @overload
    def child(self, name: str, wait: Literal[True]) -> Entry | None: ...
    @overload
    def child(self, name: str, wait: bool = ...) -> Entry | None | Later: ...

    def child(self, name: str, wait: bool = True) -> Entry | None | Later:
        """What a lookup of `name` finds (None: nothing); wait=False: LATER when
        finding it needs work."""
        return self._find(name) if wait else self._find_now(name)

    def read_ahead(self, name: str) -> ReadAhead:
        """What opening child `name` may prepare (contract.py ReadAhead): nothing here."""
        return NO_READ_AHEAD

    # True when the folder may change on disk (a real folder): see contract.py
    revalidates = False

    # True when a walk may list this folder before it is asked for (fuse/ahead.py):
    # its listing costs a header read of a few KB, not an archive's index
    list_ahead = False

    # -- hooks -------------------------------------------------------------

    def _list(self) -> Mapping[str, Entry]:
        kids = self._children
        if kids is None:
            with self._lock:
                if self._children is None:
                    loaded = self._load() if self._load else ()
                    self._children = {c.name: c for c in loaded}
                kids = self._children
        return kids

    def _list_now(self) -> Mapping[str, Entry] | None:
        """The listing if it needs no work (made already), else None. A folder listed
        from memory in well under a millisecond (no I/O, no parsing) may list here."""
        return self._children

    def _find(self, name: str) -> Entry | None:
        return self._list().get(name)

    def _find_now(self, name: str) -> Entry | None | Later:
        """_find(name) when it needs no work now, else LATER (event loop)."""
        return LATER if self._list_now() is None else self._find(name)


class PartlyListedDir(Dir):
    """A folder some of whose children are found by name (lookup, a path) but not
    listed: what a whole-folder walk (find, du, grep -r, cp -r) should not descend
    into, such as the hundreds of thousands of per-chunk dumps of the body nodes."""

    __slots__ = ("_unlisted", "_listed")
    _load: Callable[[], Iterable[Entry]]        # always given here

    def __init__(self, name: str, load: Callable[[], Iterable[Entry]], unlisted: frozenset[str], **kw):
        super().__init__(name, load=load, **kw)
        self._unlisted = unlisted
        self._listed: dict[str, Entry] | None = None

    @property
    def unlisted(self) -> frozenset[str]:
        """Names child() may find that children() never lists (for tools that walk everything)."""
        return self._unlisted

    def _list(self) -> Mapping[str, Entry]:
        listed = self._listed
        if listed is None:
            every = super()._list()
            with self._lock:
                if self._listed is None:    # one dict of the listed, one of the others (few)
                    self._listed = {n: e for n, e in every.items() if n not in self._unlisted}
                    self._children = {n: e for n, e in every.items() if n in self._unlisted}
                listed = self._listed
        return listed

    def peek(self) -> Mapping[str, Entry] | None:
        return None if self._children is None else self._list()

    def _list_now(self) -> Mapping[str, Entry] | None:
        return None if self._children is None else self._list()

    def _find(self, name: str) -> Entry | None:
        entry = self._list().get(name)
        others = self._children       # set by _list(), just called
        return entry if entry is not None or others is None else others.get(name)


class ErrorFolder(Dir):
    """A file that could not be shown as a folder at all: its listing only
    explains why (error.txt and the like). A mount of that single file fails
    with `reason` instead of showing it."""

    __slots__ = ("reason",)

    def __init__(self, name: str, reason: str, children: Iterable[Entry], **kw):
        super().__init__(name, children=children, **kw)
        self.reason = reason
