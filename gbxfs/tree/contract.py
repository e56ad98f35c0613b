"""The contract between format views and the rest of the tree, written down.

A view is a function `factory(name, source, ctx) -> Dir` (ViewFactory) that
the opener registry (gbxfs/tree/openers.py) calls on a folder's first
listing. What it returns, and every entry below it, is a tree entry that the
FUSE adapter (gbxfs/fuse/) and the CLI consume through what is written here,
and nothing else. gbxfs/tree/model.py implements it; views subclass its File
and Dir and fill in their private hooks (model.py says which).

Two parts, as an archive mounter's contract has (a mount source's operations
and the file-info record they answer with):

- the facts of an entry (EntryFacts): plain attributes, read on the event loop,
  never work;
- the operations (FileContract, FolderContract): seven, three for files and four
  for folders. Work that would block answers `wait=False` with None (or LATER):
  the caller then asks again with `wait=True` in a worker thread. When that
  happens, and whether prepared work (prefetch, read_ahead) runs at all, is the
  adapter's scheduler's decision (gbxfs/fuse/scheduler.py), never the tree's:
  the tree only says what work there is.

Rules of the contract:
1. An entry's facts and its file's size never change for a given entry object
   (a changed real file gets a new entry); a folder that may change on disk says
   `revalidates`.
2. Listings are identical on every call for folders that do not revalidate, in
   names, order, kinds and sizes (an evicted listing is made again, the same).
3. `wait=False` never does I/O, decryption, decompression or parsing: it is
   called on the event loop, and an entry that works there stalls every other
   request of the mount.
4. Bytes that cannot be verified are never returned: read raises OSError(EIO),
   and a file's `error` says why beforehand.
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from gbxfs.tree.acl import Access

if TYPE_CHECKING:
    from gbxfs.tree.context import TreeContext
    from gbxfs.tree.source import ByteSource


class Later(enum.Enum):
    """child(name, wait=False)'s answer when finding `name` needs work (None
    already means "no such name")."""
    LATER = "later"


LATER = Later.LATER

class ReadAhead(NamedTuple):
    """What opening a folder's child may prepare (folder.read_ahead(name)):
    `now` before the open is answered (worker thread), `background` without
    waiting for it. None: nothing to do."""
    now: Callable[[], None] | None
    background: Callable[[], None] | None


NO_READ_AHEAD = ReadAhead(None, None)


@runtime_checkable
class EntryFacts(Protocol):
    """What every tree entry is, file or folder: read without work.

    name         its name in the parent folder (unique there).
    is_dir       True for folders (FolderContract), False for files (FileContract).
    mtime_ns     its own mtime, or None to inherit the nearest ancestor's.
    access       its source's access (Access), or None to inherit the ancestor's.
    exact_mode   True: shown with its access bits as they are (a real file or folder);
                 False: a folder made from a file adds x where r is set, a file made
                 from a source drops every x (tree/acl.py).
    xattrs       extended attributes (str -> bytes), shown as user.* xattrs.

    Files also have:
    error        None, or why the bytes cannot be verified (read answers EIO).
    lazy_size    True when size() needs work a listing must not cost (a body parse,
                 an image encoded again): a listing shows the file with attributes
                 that expire at once, and the exact size is getattr's, computed when
                 something stats the file (find and ls do not; ls -l does). False: a
                 listing computes size() in a worker thread when size(wait=False) is None.
    Folders also have:
    revalidates  True when the folder may change on disk (a real folder): its
                 listing and lookups check the disk, and nothing of it may be kept.
    list_ahead   True when a walk may list this folder before it is asked for: its
                 listing costs a header of a few KB, not an archive's index.
    """

    name: str
    is_dir: bool
    mtime_ns: int | None
    access: Access | None
    exact_mode: bool

    @property
    def xattrs(self) -> dict[str, bytes]: ...


@runtime_checkable
class FileContract(EntryFacts, Protocol):
    """A file's operations.

    size(wait)          the exact size in bytes: getattr reports it, and reads
                        never return more or fewer bytes than it says. wait=False:
                        None unless known without any work.
    read(off, n, wait)  up to n bytes at off (short only at the end); may block.
                        wait=False: None unless the bytes are in memory already.
    prefetch(off)       work worth doing in the background now that a sequential
                        reader reached off (each item prepares one piece, so that
                        the next reads answer with wait=False); asked on the event
                        loop, it claims what it returns: run each item once.
    """

    error: str | None

    @property
    def lazy_size(self) -> bool: ...

    # the signatures only; model.File's overloads say that wait=True never answers None
    def size(self, wait: bool = True) -> int | None: ...
    def read(self, offset: int, size: int, wait: bool = True) -> bytes | None: ...
    def prefetch(self, offset: int) -> list[Callable[[], None]]: ...


@runtime_checkable
class FolderContract(EntryFacts, Protocol):
    """A folder's operations.

    children(wait)      name -> entry, in the folder's order; may list, parse or
                        read. wait=False: None unless it answers without work (a
                        listing kept, or one made from memory in well under a
                        millisecond).
    peek()              the children if ever listed, without listing (possibly stale
                        for a folder that revalidates), else None: for attributes
                        (a folder's link count) and for planning, never for answers.
    child(name, wait)   what a lookup of `name` finds: children().get(name), or an
                        entry the folder has but does not list (body/nodes). None:
                        no such name. wait=False: LATER when finding it needs work.
    read_ahead(name)    ReadAhead: what opening child `name` may prepare, now and in
                        the background (an archive's next small entries).
    """

    @property
    def revalidates(self) -> bool: ...
    @property
    def list_ahead(self) -> bool: ...

    # the signatures only; model.Dir's overloads say that wait=True never answers None/LATER
    def children(self, wait: bool = True) -> Mapping[str, EntryFacts] | None: ...
    def peek(self) -> Mapping[str, EntryFacts] | None: ...
    def child(self, name: str, wait: bool = True) -> EntryFacts | None | Later: ...
    def read_ahead(self, name: str) -> ReadAhead: ...


# the operations, by kind: what the adapter may call (tests/tree/test_contract.py holds
# every view and the adapter to these)
FILE_OPERATIONS = ("size", "read", "prefetch")
FOLDER_OPERATIONS = ("children", "peek", "child", "read_ahead")


class ViewFactory(Protocol):
    """A format view: the folder for the file `name` with bytes `source`.
    Called once, on the first listing; it must not fail for bad input (a bad
    file is a folder with error.txt); an unexpected exception is shown the
    same way by the registry."""

    def __call__(self, name: str, source: ByteSource, ctx: TreeContext) -> FolderContract: ...
