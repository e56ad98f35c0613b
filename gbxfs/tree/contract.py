"""The contract between format views and the rest of the tree, written down.

A view is a function `factory(name, source, ctx) -> Dir` (ViewFactory) that
the opener registry (gbxfs/tree/openers.py) calls on a folder's first
listing. What it returns, and every entry below it, is a tree entry that the
FUSE adapter (gbxfs/fuse/) and the CLI consume through the methods here, and
nothing else. gbxfs/tree/model.py implements them; views subclass its File
and Dir.

The FUSE adapter answers on the trio event loop when an entry says the work
is trivial, and moves to a worker thread otherwise. So the non-blocking
methods below are promises: an entry that answers them wrongly stalls every
other request of the mount.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from gbxfs.tree.context import TreeContext
from gbxfs.tree.source import ByteSource


@runtime_checkable
class EntryContract(Protocol):
    """What every tree entry is, file or folder.

    name      its name in the parent folder (unique there).
    xattrs    extended attributes (str -> bytes), shown as user.* xattrs.
    mtime_ns  its own mtime, or None to inherit the nearest ancestor's.
    is_dir    True for folders (then the folder methods apply), False for files.

    Files:
    size()              the exact size in bytes: getattr reports it, and reads
                        never return more or fewer bytes than it says.
    read(off, n)        up to n bytes at off (short only at the end); may block.
                        Bytes that cannot be verified raise OSError(EIO), never
                        wrong bytes. `error` (str or None) says why beforehand.
    size_hint()         size() when known without any work (no I/O, parsing or
                        rendering), else None. Called on the event loop.
    lazy_size           True when size() needs work that listing the folder
                        must not cost (a body parse, an image encoded again):
                        a listing (readdirplus) then shows the file with
                        attributes that expire at once, and the exact size is
                        getattr's, computed when something stats the file
                        (find and ls do not; ls -l does). False: a listing
                        computes size() in a worker thread when size_hint()
                        is None.
    in_memory()         True when read() only slices bytes already in memory.
    read_nowait(off, n) read() when it cannot block, else None. Event loop.
    prefetch_offsets(o) pieces worth preparing in the background now that a
                        sequential reader reached o (event loop; claimed: each
                        gets one prefetch_at(piece) in a worker thread), so
                        that its next reads are answered by read_nowait.

    Folders:
    children()          name -> entry; may list, parse or read (worker thread).
    loaded()            True promises that the NEXT children() call answers
                        without work, even if a cache evicts the listing in
                        between (a cached listing is pinned until that call).
                        Called on the event loop.
    peek()              the children if ever listed, without listing (possibly
                        stale), else None. Called on the event loop.
    child(name)         what a lookup of `name` finds: children().get(name), or
                        an entry the folder has but does not list (body/nodes).
                        Without work when loaded() and not `revalidates`.
    checked_child(name) for a folder that revalidates: child(name) when it needs
                        no work now (a real folder's file checked on disk less
                        than a second ago by an earlier lookup), else None.
                        Called on the event loop.
    lists_from_memory   True when even a first children() is made from memory
                        (no I/O, no parsing): the event loop may call it.
    listing_nowait()    children() when loaded() or lists_from_memory, else None
                        (model.Dir's; a folder may answer both in one look). Event loop.
    wants_read_ahead(n) True when opening child n should run read_ahead(n)
                        (event loop); read_ahead(n) prepares n and the children
                        likely read next, or waits for n when a background
                        read_ahead is preparing it (worker thread).
    wants_prefetch(n)   True when opening child n should start
                        read_ahead(n, background=True) without waiting for it
                        (event loop; asked first: the children after n are
                        prepared while n is served).
    """

    name: str
    xattrs: dict[str, bytes]
    mtime_ns: int | None
    is_dir: bool


class FileContract(EntryContract, Protocol):
    error: str | None

    @property
    def lazy_size(self) -> bool: ...       # read only: a class constant or a property

    def size(self) -> int: ...
    def read(self, offset: int, size: int) -> bytes: ...
    def size_hint(self) -> int | None: ...
    def in_memory(self) -> bool: ...
    def read_nowait(self, offset: int, size: int) -> bytes | None: ...
    def prefetch_offsets(self, offset: int) -> list[int]: ...
    def prefetch_at(self, offset: int) -> None: ...


class FolderContract(EntryContract, Protocol):
    def children(self) -> Mapping[str, EntryContract]: ...
    def loaded(self) -> bool: ...
    def peek(self) -> Mapping[str, EntryContract] | None: ...
    def child(self, name: str) -> EntryContract | None: ...
    def checked_child(self, name: str) -> EntryContract | None: ...
    @property
    def lists_from_memory(self) -> bool: ...   # read only: a class constant or a property
    def listing_nowait(self) -> Mapping[str, EntryContract] | None: ...
    def wants_read_ahead(self, name: str) -> bool: ...
    def wants_prefetch(self, name: str) -> bool: ...
    def read_ahead(self, name: str, background: bool = False) -> None: ...


class ViewFactory(Protocol):
    """A format view: the folder for the file `name` with bytes `source`.
    Called once, on the first listing; it must not fail for bad input (a bad
    file is a folder with error.txt); an unexpected exception is shown the
    same way by the registry."""

    def __call__(self, name: str, source: ByteSource, ctx: TreeContext) -> FolderContract: ...
