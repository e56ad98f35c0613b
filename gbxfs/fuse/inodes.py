"""Inode numbers and the kernel's references to tree entries.

Inode numbers are derived from the entry's path (a 63-bit BLAKE2b hash), so
the same path gets the same number after a remount, like squashfuse. Two
paths hashing to the same number (about one chance in 10^9 at 100k live
inodes) are told apart by rehashing the later one with a salt; that number is
then only stable while the first one is known.

The table holds only the inodes the kernel knows: lookup and readdirplus
count up, forget counts down, and a node is dropped at zero. The root is
never dropped.

A node refers to its tree entry weakly: after `find` over a pak of a million
files the kernel knows a million inodes, and their entries must stay as
evictable as the cached listings that made them. An entry gone from the tree
is found again by its path (ops.py `_entry`); the root is held strongly.
Files the kernel only got from a listing have no node at all until asked
about: they are counted in fuse/leaves.py (16-byte slots, at most half full
after a rebuild: about 35 bytes each, against about 340 for a node with its path).
"""
from __future__ import annotations

import hashlib
import sys
import weakref
from array import array
from collections.abc import Callable

import pyfuse3

from gbxfs.fuse.leaves import Leaves
from gbxfs.tree.model import Access, Entry

ROOT_INODE = pyfuse3.ROOT_INODE
# listed files whose counting may wait (InodeTable.add_leaves): 1 MiB of inode numbers
PENDING_MAX = 1 << 17
INODE_MASK = (1 << 63) - 1
# what a full node keeps alive, counted for the cache's bound (nbytes): the object
# and its slots, its path, the weak reference to its entry and its table slot
# (a census of a mount with ~24k of them found about 14 MiB in all)
NODE_BYTES = 560


class Inode:
    __slots__ = ("inode", "path", "_ref", "mtime_ns", "access", "lookups", "leaves", "folder", "attrs", "up")
    _ref: Callable[[], Entry | None]

    def __init__(self, inode: int, path: str | None, entry: Entry | None, mtime_ns: int,
                 access: Access | None = None, folder: Inode | None = None):
        self.inode = inode
        self.path = path            # "" for the root, else "a/b/c"; None: a listed file not found yet
        self.entry = entry
        self.mtime_ns = mtime_ns    # effective: inherited from the nearest ancestor that has one
        self.access = access        # effective, inherited the same way (None: the defaults)
        self.lookups = 0
        self.leaves = 0             # listed files held compactly (fuse/leaves.py) in this folder
        self.folder = folder        # a listed file's folder (its node made for one request)
        self.attrs: pyfuse3.EntryAttributes | None = None   # the entry's finished EntryAttributes, when they are stable
        self.up = 0                 # the number of the folder it was last listed in (0: none): a hint

    @property
    def entry(self) -> Entry | None:
        """The tree entry, or None once the tree dropped it (find it again by path)."""
        return self._ref()

    @entry.setter
    def entry(self, entry: Entry | None) -> None:
        if entry is None:
            self._ref = _none
        else:
            self._ref = weakref.ref(entry) if self.path != "" else (lambda: entry)

    @property
    def parent_path(self) -> str:
        assert self.path is not None        # asked of a node found by its path
        return self.path.rpartition("/")[0]


def _none() -> None:
    return None


# the keyed hash's initial state, copied per path (cheaper than a new blake2b each time)
_HASH = hashlib.blake2b(digest_size=8, person=b"gbxfs-inode")
# os.fsencode's encoding, without its per-call look-ups (a hash per listed entry)
FS_ENCODING, FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def folder_hash(path: str | None):
    """The hash state after "<path>/" (nothing for the root): a copy updated with
    an encoded name gives path_inode's digest of the name's path, unsalted."""
    h = _HASH.copy()
    if path:
        h.update(f"{path}/".encode(FS_ENCODING, FS_ERRORS))
    return h


def path_inode(path: str, salt: int = 0) -> int:
    """The inode number for a path below the root (never 0 or the root's)."""
    h = _HASH.copy()
    h.update(path.encode(FS_ENCODING, FS_ERRORS))
    if salt:
        h.update(b"\0" + str(salt).encode())
    n = int.from_bytes(h.digest(), "little") & INODE_MASK
    return n if n > ROOT_INODE else path_inode(path, salt + 1)


class InodeTable:
    """Full nodes for folders and for files the kernel looked up; files it only
    got from a listing are counted compactly (fuse/leaves.py) under their
    folder's node, which stays while it has any. Such a file's node is made for
    each request, its path and entry found again from its folder's listing
    (ops.py `_entry`). Leaves are not checked for hash collisions (their paths
    are not kept): at a million inodes a collision has a chance of about 10^-7."""

    def __init__(self, root: Entry, root_mtime_ns: int):
        self.root = Inode(ROOT_INODE, "", root, root_mtime_ns, root.access)
        self._nodes: dict[int, Inode] = {ROOT_INODE: self.root}
        # full(inode): the full node with this number (never a listed file's made-up one)
        self.full = self._nodes.get
        self._leaves = Leaves()
        # listed files not counted in _leaves yet: (folder inode, their inodes), counted
        # when a file the kernel holds from a listing is first asked about (_flush).
        # `find` lists every file and asks about none: it never pays for them
        self._pending: list[tuple[int, array]] = []
        self._pending_count = 0

    def __len__(self) -> int:
        self._flush()
        return len(self._nodes) + len(self._leaves)

    def nbytes(self) -> int:
        """About the memory the table keeps (read from any thread: lengths only;
        listed files not counted yet are 8 bytes each in their arrays)."""
        return NODE_BYTES * len(self._nodes) + self._leaves.nbytes() + 8 * self._pending_count

    def _flush(self) -> None:
        """Count the pending listed files in _leaves, as add_leaves did at once: a
        file that became a full node meanwhile (looked up) adds to its lookups."""
        if not self._pending:
            return
        pending, self._pending, self._pending_count = self._pending, [], 0
        nodes = self._nodes
        for folder_inode, keys in pending:
            held = nodes.keys() & keys
            if held:
                for k in held:
                    nodes[k].lookups += 1
                keys = [k for k in keys if k not in held]  # type: ignore[assignment]  # add_many takes a list too
            new = self._leaves.add_many(keys, folder_inode)
            folder = nodes.get(folder_inode)
            if folder is not None and new != len(keys) + len(held):     # add_leaves counted them all
                folder.leaves += new - len(keys) - len(held)
                self._drop_unused(folder)

    def get(self, inode: int) -> Inode | None:
        node = self._nodes.get(inode)
        if node is None:
            self._flush()
            leaf = self._leaves.get(inode)
            folder = None if leaf is None else self._nodes.get(leaf[0])
            if leaf is not None and folder is not None:
                node = Inode(inode, None, None, folder.mtime_ns, folder.access, folder)
                node.lookups = leaf[1]
        return node

    def remember_listed(self, folder: Inode, path: str, entry: Entry, mtime_ns: int, inode: int,
                        access: Access | None = None) -> None:
        """Count the kernel's reference to an entry a listing of `folder` showed:
        compactly for a file not known otherwise."""
        if entry.is_dir or inode in self._nodes or folder.inode not in self._nodes:
            self.remember(path, entry, mtime_ns, inode, access).up = folder.inode
        elif self._leaves.add(inode, folder.inode):
            folder.leaves += 1

    def add_leaves(self, folder: Inode, inodes: list[int]) -> None:
        """remember_listed for files a listing of `folder` showed that have no
        node (full(inode) is None), `folder` having one: counted when first needed
        (_flush), the folder's node kept meanwhile."""
        self._pending.append((folder.inode, array("Q", inodes)))
        folder.leaves += len(inodes)
        self._pending_count += len(inodes)
        if self._pending_count > PENDING_MAX:      # 8 bytes each: repeated listings must not pile up
            self._flush()

    def number(self, path: str) -> int:
        """The inode number `path` has, or would get if remembered now."""
        salt = 0
        while True:
            inode = path_inode(path, salt)
            node = self._nodes.get(inode)
            if node is None or node.path == path:
                return inode
            salt += 1

    def child_path(self, parent: Inode, name: str) -> str:
        return f"{parent.path}/{name}" if parent.path else name

    def remember(self, path: str, entry: Entry, mtime_ns: int, inode: int | None = None,
                 access: Access | None = None) -> Inode:
        """Count one kernel reference to the entry at `path`."""
        node: Inode | None
        if not path:
            node = self.root
        else:
            inode = inode if inode is not None else self.number(path)
            node = self._nodes.get(inode)
            if node is None:
                node = self._nodes[inode] = Inode(inode, path, entry, mtime_ns, access)
                # looked up on its own now: a full node (no probe while no leaf is counted:
                # a first `find`, its files pending; _flush merges those)
                leaf = self._leaves.pop(inode) if len(self._leaves) else None
                if leaf is not None:
                    node.lookups = leaf[1]
                    self._unleaf(leaf[0])
            else:
                # a re-listed real directory may have made a new entry for the same path
                if node.entry is not entry or node.mtime_ns != mtime_ns or node.access != access:
                    node.attrs = None
                node.entry = entry
                node.mtime_ns = mtime_ns
                node.access = access
        node.lookups += 1
        return node

    def forget(self, inode: int, count: int) -> None:
        self._flush()       # a pending listing may hold references to a full node too
        node = self._nodes.get(inode)
        if node is None:
            leaf = self._leaves.forget(inode, count)
            if leaf is not None and not leaf[1]:
                self._unleaf(leaf[0])
            return
        node.lookups -= count
        self._drop_unused(node)

    def _unleaf(self, folder_inode: int) -> None:
        folder = self._nodes.get(folder_inode)
        if folder is not None:
            folder.leaves -= 1
            self._drop_unused(folder)

    def _drop_unused(self, node: Inode) -> None:
        if node.lookups <= 0 and node.leaves <= 0 and node.inode != ROOT_INODE:
            del self._nodes[node.inode]

    def parent_of(self, node: Inode) -> Inode | None:
        """The node of `node`'s folder (None: not known): the folder it was listed
        in when that is still the node of its path, else found by the path."""
        if not node.path:
            return None
        up, path = self._nodes.get(node.up), node.parent_path
        return up if up is not None and up.path == path else self.find_path(path)

    def find_path(self, path: str) -> Inode | None:
        if not path:
            return self.root
        node = self.get(self.number(path))
        if node is not None and node.path is None:
            node.path = path
        return node
