"""readdirplus answers: a folder's listing as the kernel gets it, entry by entry.

`find` over a Packs folder is a readdirplus of every folder, each entry with
its attributes, and the kernel counts a reference to each (fuse/leaves.py).
The listing is rows (tree/rows.py): nearly every entry is then a file row with
its size, inheriting its folder's mtime and access, whose entry is not even made,
and with no inode node of its own: it takes the short way, numbered by its
folder's id and its position (fuse/inodes.py), one EntryAttributes shared by
all such files (changed per file: pyfuse3 copies it into the reply at once) and
the references counted by position in one pass per reply. Everything else goes
the general way (InodeTable.remember_listed: a node per folder, which `find`
opens next), its attributes from attrs.make_attributes, but for folders not
listed yet, which share one EntryAttributes as files do. A real folder's
entries are numbered from its name log (inodes.py). "." and ".." get only what
the kernel keeps of them (SharedAttributes.dot).
"""
from __future__ import annotations

import itertools
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping

import pyfuse3

from gbxfs.fuse.attrs import DIR_MODE, AttrPolicy, file_attributes, file_owner, file_size, make_attributes, needs_work
from gbxfs.fuse.inodes import POSITIONS, SLOT_BITS, Inode, InodeTable
from gbxfs.tree.longnames import too_long
from gbxfs.tree.model import Dir, Entry
from gbxfs.tree.rows import LAZY, Rows

log = logging.getLogger("gbxfs.fuse")

# os.fsencode's encoding, without its per-call look-ups (a name per listed entry)
FS_ENCODING, FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

# entries per worker-thread hop when a listing needs sizes computed
READDIR_BATCH = 128

class DirHandle:
    __slots__ = ("node", "entry", "rows", "index", "size", "parent", "sizes")

    def __init__(self, node: Inode, entry: Dir):
        self.node = node
        self.entry = entry      # held while the folder is open
        # the snapshot taken on the first readdir (snapshot()): the listing's rows, whose
        # names never change, so offsets stay valid for this handle even if the directory
        # is re-listed meanwhile; position p >= 2 is row p - 2 ("." and ".." come first)
        self.rows: Rows | None = None
        self.index: list[int] | None = None     # each row's position in the listing, when names were skipped
        self.size = 0           # the listing's length (names skipped included)
        self.parent = node      # the node ".." shows (set with the snapshot)
        self.sizes: dict[int, int] | None = None    # sizes made with the listing, by position


def inherit(entry: Entry, parent: Inode):
    """An entry's mtime and access: its own, else its parent's (views show the
    mtime and the permissions of the file they come from)."""
    return (entry.mtime_ns if entry.mtime_ns is not None else parent.mtime_ns,
            entry.access if entry.access is not None else parent.access)


def listed_with_sizes(folder: Dir) -> tuple[Mapping[str, Entry], dict[str, int]]:
    """The folder's listing and the sizes that need work of its first READDIR_BATCH
    entries (worker thread): a folder listed in a worker thread is not visited
    a second time for them (a pak's .pak-info.txt). A row's entry not made yet
    has its size in the row."""
    kids = folder.children()
    first = kids.first_made(READDIR_BATCH) if isinstance(kids, Rows) else itertools.islice(kids.items(), READDIR_BATCH)
    return kids, {n: file_size(e) for n, e in first if needs_work(e) and not e.lazy_size}


def _as_rows(kids: Mapping[str, Entry], mtime: int) -> Rows:
    """A listing of entries as rows, the size in the row of each file that takes
    reply_listed's short way: a file inheriting the folder's mtime and access
    whose size is known without work, or is getattr's (LAZY)."""
    cells = list(kids.values())
    sizes = [-1 if e.is_dir or e.access is not None or (e.mtime_ns is not None and e.mtime_ns != mtime)
             else size if (size := e.size(wait=False)) is not None else LAZY if e.lazy_size else -1 for e in cells]  # type: ignore[attr-defined]  # a file (not is_dir)
    return Rows(list(kids), cells, sizes, mtime, _made)


def _made(rows: Rows, i: int, token: int) -> Entry:
    raise AssertionError("a listing of entries has every entry made")


def snapshot(inodes: InodeTable, h: DirHandle, kids: Mapping[str, Entry], sizes: dict[str, int] | None = None) -> None:
    """Set the handle's rows: the listing's (tree/rows.py) or made from its entries,
    without the names that are not one valid component; `sizes`
    (listed_with_sizes) become the handle's sizes by position."""
    h.parent = inodes.parent_of(h.node) or h.node
    rows = kids if isinstance(kids, Rows) else _as_rows(kids, h.node.mtime_ns)
    h.size = len(rows.names)
    if not rows.valid or h.size > POSITIONS:
        keep = []
        for k, n in enumerate(rows.names[:POSITIONS]):
            if n and n != "." and n != ".." and "/" not in n and "\0" not in n and not too_long(n):
                keep.append(k)
            else:
                log.warning("%s: skipping entry with an invalid name %r", h.node.name or "/", n)
        if h.size > POSITIONS:
            log.warning("%s: showing the first %d of %d entries", h.node.name or "/", POSITIONS, h.size)
        h.index = keep
        rows = Rows([rows.names[k] for k in keep], [rows.at(k) for k in keep], [rows.sizes[k] for k in keep],
                    rows.mtime_ns, _made)
    h.rows = rows
    if sizes:
        h.sizes = {pos: sizes[n] for pos, n in enumerate(rows.names, 2) if n in sizes}


DOTS = (b".", b"..")
class SharedAttributes:
    """The attributes readdirplus replies share, one set per mount (Operations makes
    it), changed per entry and copied into the reply at once by readdir_reply
    (nothing awaits in between):
    - "." and "..": they take no reference, and of their entries the kernel keeps only
      the inode number and the file type (it links no attributes for these two
      names), so they get these rather than their folders' full attributes, which a
      folder's node keeps only once made anyway;
    - the short way's files, which differ only in number and size: one for all files
      of the folders that share mtime, owner and policy (a pak's);
    - folders not listed yet, which differ only in number (link count 1)."""

    __slots__ = ("_dot", "_file", "_folder")

    def __init__(self) -> None:
        self._dot = pyfuse3.EntryAttributes()
        self._dot.st_mode = DIR_MODE
        self._file: tuple[tuple, pyfuse3.EntryAttributes] | None = None
        self._folder: tuple[tuple, pyfuse3.EntryAttributes] | None = None

    def dot(self, node: Inode) -> pyfuse3.EntryAttributes:
        """The attributes a readdirplus entry "." or ".." for `node` needs: its own if
        kept (attrs.stable), else its number and the folder type."""
        if node.attrs is not None:
            return node.attrs
        self._dot.st_ino = node.inode
        return self._dot

    def file(self, mtime: int, owner: tuple[int, int, int], policy: AttrPolicy) -> pyfuse3.EntryAttributes:
        key = (mtime, owner, policy.entry_timeout, policy.attr_timeout)
        kept = self._file
        if kept is None or kept[0] != key:
            kept = self._file = key, file_attributes(0, 0, mtime, policy, *owner)
        return kept[1]

    def folder(self, entry: Dir, mtime: int, access, policy: AttrPolicy) -> pyfuse3.EntryAttributes:
        key = (mtime, access, entry.exact_mode, policy.entry_timeout, policy.attr_timeout, policy.uid, policy.gid)
        kept = self._folder
        if kept is None or kept[0] != key:
            kept = self._folder = key, make_attributes(0, entry, mtime, 0, policy, access, None)
        return kept[1]


def _lazy_attributes(mtime: int, owner: tuple[int, int, int], policy: AttrPolicy) -> pyfuse3.EntryAttributes:
    """The short way's attributes of a file whose size is getattr's (a LAZY row):
    size 0, expired at once, so that a stat asks getattr. Made per reply (rare
    enough: the rows of header/ folders and the like)."""
    a = file_attributes(0, 0, mtime, policy, *owner)
    a.attr_timeout = 0
    return a


async def reply_listed(h: DirHandle, pos: int, token, inodes: InodeTable, policy: AttrPolicy,
                       work: Callable[..., Awaitable], common: SharedAttributes) -> None:
    """readdirplus replies for the handle's entries from position pos on (pos >= 2:
    "." and ".." are the caller's); entry i is followed by offset i + 1. `work(fn)`
    runs fn in a worker thread (sizes that need work, READDIR_BATCH at a time)."""
    rows, dirnode = h.rows, h.node
    assert rows is not None     # snapshot() made them
    names, row_sizes, index = rows.names, rows.sizes, h.index
    fid = inodes.folder_id(dirnode.inode)
    # a real folder's entries are numbered from its name log, any other's by position
    logged = h.entry.revalidates
    base, full, reply = fid << SLOT_BITS, inodes.full, pyfuse3.readdir_reply
    mtime = dirnode.mtime_ns
    shared = lazy = None       # made when the first file takes the short way
    # listed files hang off the folder's node (fuse/leaves.py) while it has one
    leaves: list[int] | None = [] if full(dirnode.inode) is dirnode else None
    # a row's size given (>= 0): a file with the rows' mtime and the folder's access
    short = leaves is not None and rows.mtime_ns == mtime and not logged
    sizes = h.sizes or {}       # sizes computed in a worker thread, by position
    size: int | None
    for k in range(pos - 2, len(names)):
        name = names[k]
        bname = name.encode(FS_ENCODING, FS_ERRORS)
        slot = k if index is None else index[k]
        ino = base | slot       # a real folder's: numbered below, from its name log
        size = row_sizes[k]
        if (size >= 0 or size == LAZY) and short and full(ino) is None:
            if size >= 0:
                if shared is None:
                    shared = common.file(mtime, file_owner(dirnode.access, policy), policy)
                attrs = shared
                attrs.st_size = size
                attrs.st_blocks = (size + 511) >> 9
            else:       # its size is getattr's: size 0, attributes that expire at once (contract.py)
                if lazy is None:
                    lazy = _lazy_attributes(mtime, file_owner(dirnode.access, policy), policy)
                attrs = lazy
            attrs.st_ino = ino
            if not reply(token, bname, attrs, k + 3):
                break
            leaves.append(slot)  # type: ignore[union-attr]  # short: a list
            continue
        pos = k + 2
        entry = rows.at(k)
        if logged:
            ino = inodes.named(fid, name, entry)
        is_dir = entry.is_dir
        size = 0 if is_dir else entry.size(wait=False)  # type: ignore[attr-defined]  # a file
        if size is None:
            size = sizes.get(pos)
        unsized = size is None and entry.lazy_size      # its size is getattr's (contract.py)
        if unsized:
            size = 0
        if size is None:
            if leaves:       # counted before waiting: the kernel has them
                inodes.add_leaves(dirnode, leaves, h.size)
                leaves.clear()
            batch = [rows.at(j) for j in range(k, min(k + READDIR_BATCH, len(names)))]
            got = await work(lambda batch=batch: [None if e.lazy_size else file_size(e) for e in batch])
            sizes = dict(zip(range(pos, pos + len(got)), got))
            size = sizes[pos]
        emtime, access = inherit(entry, dirnode)
        if not is_dir:
            attrs = make_attributes(ino, entry, emtime, size, policy, access)
            if unsized:
                attrs.attr_timeout = 0      # expired at once: a stat asks getattr, which has the size
        elif (kids := entry.peek()) is None:  # type: ignore[attr-defined]  # a folder: never listed, link count 1
            attrs = common.folder(entry, emtime, access, policy)  # type: ignore[arg-type]  # a folder
            attrs.st_ino = ino
        else:
            attrs = make_attributes(ino, entry, emtime, size, policy, access, kids)
        if not reply(token, bname, attrs, pos + 1):
            break       # refused (buffer full): shown by the next call
        # the kernel now holds a reference (readdirplus)
        inodes.remember_listed(dirnode, h.size, ino, name, entry, emtime, access)
    if leaves:
        inodes.add_leaves(dirnode, leaves, h.size)
