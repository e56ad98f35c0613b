"""The virtual tree's node model, independent of FUSE.

A view of a file format builds these objects; the FUSE adapter and the CLI
walk them. Directories compute their children lazily, on first access, and
files know their exact size before any byte is read. The methods the rest
of the tree relies on, and what they promise, are written down in
gbxfs/tree/contract.py.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

Xattrs = dict[str, bytes]
# (permission bits, uid, gid) of the real file or folder an entry comes from, and
# its extended POSIX ACL (the xattr's bytes) when it has one (tree/acl.py)
Access = tuple[int, int, int] | tuple[int, int, int, bytes]


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

    def prefetch_offsets(self, offset: int) -> list[int]:
        """Offsets of pieces worth preparing in the background now that a reader
        has reached `offset` (event loop; they are claimed: call prefetch_at)."""
        return []

    def prefetch_at(self, offset: int) -> None:
        """Prepare the piece at `offset` for read_nowait (worker thread)."""


class SourceFile(File):
    """A file whose bytes are a ByteSource's bytes, unchanged: a real file passed
    through, a raw archive entry. Its mtime is the source's."""

    __slots__ = ("source",)

    def __init__(self, name: str, source, **kw):
        kw.setdefault("mtime_ns", getattr(source, "mtime_ns", None))
        kw.setdefault("access", getattr(source, "access", None))
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

    def listing_nowait(self) -> Mapping[str, Entry] | None:
        """children() if it answers without work (loaded() or lists_from_memory),
        else None. Called on the event loop."""
        if self.loaded() or self.lists_from_memory:
            return self.children()
        return None

    # True when child() checks the disk (a real folder): call it from a worker thread
    revalidates = False

    def checked_child(self, name: str) -> Entry | None:
        """For a folder that revalidates: child(name) when it needs no work now (the
        file was checked recently), else None (ask child() in a worker thread).
        Called on the event loop."""
        return None

    # True when even a first listing is only objects made from memory (no I/O, no
    # parsing): the event loop may list it directly
    if TYPE_CHECKING:   # read-only: a subclass may compute it (a property)
        @property
        def lists_from_memory(self) -> bool: ...
    else:
        lists_from_memory = False

    # True when a walk may list this folder before it is asked for (fuse/ahead.py):
    # its listing costs a header read of a few KB, not an archive's index
    list_ahead = False

    def wants_read_ahead(self, name: str) -> bool:
        """True when opening child `name` should also run read_ahead (event loop)."""
        return False

    def wants_prefetch(self, name: str) -> bool:
        """True when opening child `name` should start read_ahead(name, True)
        in the background, without waiting for it (event loop)."""
        return False

    def read_ahead(self, name: str, background: bool = False) -> None:
        """Prepare `name` and the children likely read after it (worker thread);
        `background`: nobody waits for `name` (started by wants_prefetch)."""

    def child(self, name: str) -> Entry | None:
        """The child called `name` (what a lookup asks for)."""
        return self.children().get(name)


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

    def children(self) -> Mapping[str, Entry]:
        listed = self._listed
        if listed is None:
            every = super().children()
            with self._lock:
                if self._listed is None:    # one dict of the listed, one of the others (few)
                    self._listed = {n: e for n, e in every.items() if n not in self._unlisted}
                    self._children = {n: e for n, e in every.items() if n in self._unlisted}
                listed = self._listed
        return listed

    def peek(self) -> Mapping[str, Entry] | None:
        return None if self._children is None else self.children()

    def child(self, name: str) -> Entry | None:
        entry = self.children().get(name)
        others = self._children       # set by children(), just called
        return entry if entry is not None or others is None else others.get(name)


class ErrorFolder(Dir):
    """A file that could not be shown as a folder at all: its listing only
    explains why (error.txt and the like). A mount of that single file fails
    with `reason` instead of showing it."""

    __slots__ = ("reason",)

    def __init__(self, name: str, reason: str, children: Iterable[Entry], **kw):
        super().__init__(name, children=children, **kw)
        self.reason = reason
