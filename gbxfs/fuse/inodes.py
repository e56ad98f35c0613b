"""Inode numbers and the kernel's references to tree entries.

An inode number is where the entry sits, not what its path hashes to: a folder
gets a small dense id the first time it is listed or looked into (kept for the
mount's life), and each of its entries the number

    folder id << SLOT_BITS | slot

where the slot is the entry's position in the folder's listing. A folder's
listing is immutable once made (the same names in the same order on every
walk: tests/tree holds it), so an entry whose listing was evicted from the
cache is found again from its number alone: its folder, found again the same
way up to the root, is listed again and the entry at that position taken. No
hash, no collision, no path string per entry.

Real folders (`Dir.revalidates`: they follow the disk) have no immutable
listing: a file added or removed moves every position after it. Their entries,
and the names a folder finds by lookup without listing them (a GBX folder's
embedded/), take their slot from the folder's name log instead: the NAMED bit
and the index of (name, stamp) in a list of every such pair the folder was asked
about, kept for the mount's life. The stamp is the mtime of a folder numbered
by position (a pak or GBX file shown as a folder), else None: a real folder and
a real file keep their numbers while they change, as on disk (a shell in a
folder stays there; a file rewritten in place is the same file with new
attributes), but a pak changed on disk is a new folder with a new number whose
positions number its new listing; its old number, and the old positions below
it, answer ESTALE rather than another file's bytes at a number the kernel holds
with the old file's attributes.

Numbers from the real file's (st_dev, st_ino) were the other choice: they would
not fit a slot without a table or a hash of their own, a folder made from a real
file (a pak) would need one rule for itself and another for its contents, and a
pak rewritten in place (cp over it) keeps its st_ino while its listing changes.
The log costs a name per real entry the kernel was told of: a real folder of
20,000 maps keeps 20,000 names.

Bit widths: SLOT_BITS = 32, the top one NAMED: 2^31 positions (a listing
longer than that shows its first 2^31 entries and logs a warning: its rows
alone would take hundreds of GB) and 2^31 names per folder; 2^31 - 1 folder
ids (numbers stay below 2^63). Past the last folder id, listing or looking
into a new folder fails with EIO (the mount would hold over 200 GB of folder
table by then). Numbers are stable while mounted, not across remounts.

The table holds only the nodes the kernel knows: lookup and readdirplus count
up, forget counts down, and a node is dropped at zero. The root is never
dropped. A node refers to its tree entry weakly (the root's strongly): after
`find` over a pak of a million files the kernel knows a million inodes, and
their entries must stay as evictable as the cached listings that made them.
Files the kernel only got from a listing have no node at all until asked
about: they are counted by position in fuse/leaves.py (4 bytes per entry of
their folder's listing), under their folder's node, which stays while it has any.
"""
from __future__ import annotations

import errno
import itertools
import weakref
from array import array
from collections.abc import Callable, Mapping

import pyfuse3

from gbxfs.fuse.leaves import Leaves
from gbxfs.tree.model import Access, Entry
from gbxfs.tree.rows import Rows

ROOT_INODE = pyfuse3.ROOT_INODE
SLOT_BITS = 32
SLOT_MASK = (1 << SLOT_BITS) - 1
NAMED = 1 << (SLOT_BITS - 1)        # the slot is an index in the folder's name log
POSITIONS = NAMED                   # positions a listing can number
FOLDERS_MAX = (1 << (63 - SLOT_BITS)) - 1
# what a full node keeps alive, counted for the cache's bound (nbytes): the object
# and its slots, the weak reference to its entry, its kept attributes and its table slot
NODE_BYTES = 560
# a folder id: its slot in the array of numbers and its dict entry
FOLDER_BYTES = 120
# a logged name: its (name, stamp) pair, its string, its dict entry and its list slot
NAME_BYTES = 256


class Inode:
    __slots__ = ("inode", "name", "_ref", "mtime_ns", "access", "lookups", "leaves", "attrs")
    _ref: Callable[[], Entry | None]

    def __init__(self, inode: int, name: str | None, entry: Entry | None, mtime_ns: int,
                 access: Access | None = None):
        self.inode = inode
        self.name = name            # its name in its folder ("" for the root; None: not found yet)
        self.entry = entry
        self.mtime_ns = mtime_ns    # effective: inherited from the nearest ancestor that has one
        self.access = access        # effective, inherited the same way (None: the defaults)
        self.lookups = 0
        self.leaves = 0             # listed files counted by position (fuse/leaves.py) in this folder
        self.attrs: pyfuse3.EntryAttributes | None = None   # the entry's finished EntryAttributes, when they are stable

    @property
    def entry(self) -> Entry | None:
        """The tree entry, or None once the tree dropped it (found again from the number)."""
        return self._ref()

    @entry.setter
    def entry(self, entry: Entry | None) -> None:
        if entry is None:
            self._ref = _none
        else:
            self._ref = weakref.ref(entry) if self.inode != ROOT_INODE else (lambda: entry)


def _none() -> None:
    return None


def stamp(entry: Entry) -> int | None:
    """What tells a logged entry from a new one under the same name: the mtime of
    a folder numbered by position (a file shown as a folder), else None (a real
    folder, a file: the same number while it changes, as on disk)."""
    return entry.mtime_ns if entry.is_dir and not entry.revalidates else None  # type: ignore[attr-defined]  # a Dir


def position(kids: Mapping[str, Entry], name: str) -> int | None:
    """The position of `name` in the listing `kids`, or None."""
    if isinstance(kids, Rows):
        return kids.position(name)
    if name not in kids:
        return None
    return list(kids).index(name)       # a folder's own dict: a few dozen names


def at_position(kids: Mapping[str, Entry], k: int) -> tuple[str | None, Entry | None]:
    """(name, entry) at position k of the listing `kids`, or (None, None)."""
    if k >= len(kids):
        return None, None
    if isinstance(kids, Rows):
        return kids.names[k], kids.at(k)
    return next(itertools.islice(kids.items(), k, None))


class InodeTable:
    """Folder ids, name logs, full nodes for folders and for files the kernel
    looked up, and the counts of files it only got from a listing (fuse/leaves.py).
    Changed on the event loop only; nbytes() is read from any thread."""

    def __init__(self, root: Entry, root_mtime_ns: int):
        self.root = Inode(ROOT_INODE, "", root, root_mtime_ns, root.access)
        self._nodes: dict[int, Inode] = {ROOT_INODE: self.root}
        # full(inode): the full node with this number (never a listed file's made-up one)
        self.full = self._nodes.get
        self._leaves = Leaves()
        self._ids: dict[int, int] = {}          # folder number -> folder id
        self._folders = array("Q", (0,))        # folder id -> folder number (id 0 unused)
        # folder id -> its name log: (name, stamp) -> index, and the pairs by index
        self._logs: dict[int, tuple[dict[tuple[str, int | None], int], list[tuple[str, int | None]]]] = {}
        self._logged = 0

    def __len__(self) -> int:
        return len(self._nodes) + len(self._leaves)

    def nbytes(self) -> int:
        """About the memory the table keeps (read from any thread: lengths only)."""
        return (NODE_BYTES * len(self._nodes) + self._leaves.nbytes() + FOLDER_BYTES * len(self._folders)
                + NAME_BYTES * self._logged)

    # -- numbers ---------------------------------------------------------

    def folder_id(self, folder: int) -> int:
        """The id of the folder numbered `folder`, given now if it has none."""
        fid = self._ids.get(folder)
        if fid is None:
            fid = len(self._folders)
            if fid > FOLDERS_MAX:
                raise OSError(errno.ENOSPC, "no folder id left for this mount")
            self._folders.append(folder)
            self._ids[folder] = fid
        return fid

    def named(self, fid: int, name: str, entry: Entry) -> int:
        """The number of `name` (whose entry is `entry`) in the folder with id `fid`
        from its name log."""
        log = self._logs.get(fid)
        if log is None:
            log = self._logs[fid] = ({}, [])
        key = (name, stamp(entry))
        index = log[0].get(key)
        if index is None:
            index = len(log[1])
            if index >= NAMED:
                raise OSError(errno.ENOSPC, "no slot left in this folder's name log")
            log[0][key] = index
            log[1].append(key)
            self._logged += 1
        return fid << SLOT_BITS | NAMED | index

    def logged(self, inode: int) -> tuple[str, int | None] | None:
        """(name, stamp) a NAMED number stands for (None: a position, or not logged)."""
        slot = inode & SLOT_MASK
        if not slot & NAMED:
            return None
        log = self._logs.get(inode >> SLOT_BITS)
        keys = log[1] if log is not None else ()
        return keys[slot - NAMED] if slot - NAMED < len(keys) else None

    def parent_number(self, inode: int) -> int | None:
        """The number of the folder an entry's number was given in (None: the root)."""
        return None if inode == ROOT_INODE else self._folders[inode >> SLOT_BITS]

    # -- nodes -----------------------------------------------------------

    def get(self, inode: int) -> Inode | None:
        """The node the kernel holds with this number (a listed file's made now), or None."""
        node = self._nodes.get(inode)
        if node is None and inode > SLOT_MASK:
            count = self._leaves.count(inode >> SLOT_BITS, inode & SLOT_MASK)
            if count:
                folder = self._nodes[self._folders[inode >> SLOT_BITS]]    # kept while it has leaves
                node = Inode(inode, None, None, folder.mtime_ns, folder.access)
                node.lookups = count
        return node

    def node_of(self, inode: int) -> Inode:
        """get(inode), else a node not held, its entry to be found from its number."""
        node = self.get(inode)
        return node if node is not None else Inode(inode, None, None, 0)

    def parent_of(self, node: Inode) -> Inode | None:
        """The node of `node`'s folder (held or made now); None for the root."""
        up = self.parent_number(node.inode)
        return None if up is None else self.node_of(up)

    def remember_listed(self, folder: Inode, size: int, inode: int, name: str, entry: Entry, mtime_ns: int,
                        access: Access | None = None) -> None:
        """Count the kernel's reference to an entry a listing of `folder` (of `size`
        entries) showed: by position for a file not known otherwise."""
        if entry.is_dir or inode & NAMED or inode in self._nodes or folder.inode not in self._nodes:
            self.remember(inode, name, entry, mtime_ns, access)
        else:
            self.add_leaves(folder, [inode & SLOT_MASK], size)

    def add_leaves(self, folder: Inode, slots: list[int], size: int) -> None:
        """Count a reference to the files at `slots` of `folder`'s listing of `size`
        entries, none with a node; `folder` is a full node (kept while it has any)."""
        folder.leaves += self._leaves.add_many(self._ids[folder.inode], slots, size)

    def remember(self, inode: int, name: str | None, entry: Entry, mtime_ns: int,
                 access: Access | None = None) -> Inode:
        """Count one kernel reference to the entry numbered `inode`."""
        node = self._nodes.get(inode)
        if node is None:
            node = self._nodes[inode] = Inode(inode, name, entry, mtime_ns, access)
            # looked up on its own now: a full node, with the count it had as a listed file
            if len(self._leaves) and not inode & NAMED:
                count = self._leaves.pop(inode >> SLOT_BITS, inode & SLOT_MASK)
                if count:
                    node.lookups = count
                    self._unleaf(inode)
        elif inode != ROOT_INODE:
            # a re-listed real directory may have made a new entry for the same name
            if node.entry is not entry or node.mtime_ns != mtime_ns or node.access != access:
                node.attrs = None
            node.entry = entry
            node.mtime_ns = mtime_ns
            node.access = access
            node.name = name if name is not None else node.name
        node.lookups += 1
        return node

    def forget(self, inode: int, count: int) -> None:
        node = self._nodes.get(inode)
        if node is None:
            if inode > SLOT_MASK and self._leaves.forget(inode >> SLOT_BITS, inode & SLOT_MASK, count) == 0:
                self._unleaf(inode)
            return
        node.lookups -= count
        self._drop_unused(node)

    def _unleaf(self, inode: int) -> None:
        """A listed file numbered `inode` is no longer counted by position."""
        folder = self._nodes.get(self._folders[inode >> SLOT_BITS])
        if folder is not None:
            folder.leaves -= 1
            self._drop_unused(folder)

    def _drop_unused(self, node: Inode) -> None:
        if node.lookups <= 0 and node.leaves <= 0 and node.inode != ROOT_INODE:
            del self._nodes[node.inode]
