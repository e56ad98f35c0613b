"""Inode numbers and the kernel's references to tree entries.

Inode numbers are derived from the entry's path (a 63-bit BLAKE2b hash), so
the same path gets the same number after a remount, like squashfuse. Two
paths hashing to the same number (about one chance in 10^9 at 100k live
inodes) are told apart by rehashing the later one with a salt; that number is
then only stable while the first one is known.

The table holds only the inodes the kernel knows: lookup and readdirplus
count up, forget counts down, and a node is dropped at zero. The root is
never dropped. A node keeps the attributes last answered for its entry when
they cannot change (`attrs`), dropped when the path gets a new entry (a
changed source file, a re-listed real folder).
"""
from __future__ import annotations

import hashlib
import sys
from typing import Callable

import pyfuse3

from gbxfs.tree.model import Access, Entry

ROOT_INODE = pyfuse3.ROOT_INODE
_MASK = (1 << 63) - 1


class Inode:
    __slots__ = ("inode", "path", "entry", "mtime_ns", "access", "lookups", "attrs")

    def __init__(self, inode: int, path: str, entry: Entry, mtime_ns: int, access: Access | None = None):
        self.inode = inode
        self.path = path            # "" for the root, else "a/b/c"
        self.entry = entry
        self.mtime_ns = mtime_ns    # effective: inherited from the nearest ancestor that has one
        self.access = access        # effective, inherited the same way (None: the defaults)
        self.lookups = 0
        self.attrs = None           # the entry's finished EntryAttributes, when they are stable

    @property
    def parent_path(self) -> str:
        return self.path.rpartition("/")[0]


# the keyed hash's initial state, copied per path (cheaper than a new blake2b each time)
_HASH = hashlib.blake2b(digest_size=8, person=b"gbxfs-inode")
# os.fsencode's encoding, without its per-call look-ups (a hash per listed entry)
FS_ENCODING, FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def path_inode(path: str, salt: int = 0) -> int:
    """The inode number for a path below the root (never 0 or the root's)."""
    h = _HASH.copy()
    h.update(path.encode(FS_ENCODING, FS_ERRORS))
    if salt:
        h.update(b"\0" + str(salt).encode())
    n = int.from_bytes(h.digest(), "little") & _MASK
    return n if n > ROOT_INODE else path_inode(path, salt + 1)


class InodeTable:
    def __init__(self, root: Entry, root_mtime_ns: int):
        self.root = Inode(ROOT_INODE, "", root, root_mtime_ns, root.access)
        self._nodes: dict[int, Inode] = {ROOT_INODE: self.root}
        # called with a folder's node before it gets a new entry (its source changed)
        self.on_replace: Callable[[Inode], None] | None = None

    def __len__(self) -> int:
        return len(self._nodes)

    def get(self, inode: int) -> Inode | None:
        return self._nodes.get(inode)

    def number(self, path: str) -> int:
        """The inode number `path` has, or would get if remembered now."""
        return self.slot(path)[0]

    def slot(self, path: str) -> tuple[int, Inode | None]:
        """(the inode number `path` has or would get now, its node if the kernel knows it)."""
        salt = 0
        while True:
            inode = path_inode(path, salt)
            node = self._nodes.get(inode)
            if node is None or node.path == path:
                return inode, node
            salt += 1

    def child_path(self, parent: Inode, name: str) -> str:
        return f"{parent.path}/{name}" if parent.path else name

    def remember(self, path: str, entry: Entry, mtime_ns: int, inode: int | None = None,
                 access: Access | None = None) -> Inode:
        """Count one kernel reference to the entry at `path`."""
        if not path:
            node = self.root
        else:
            inode = inode if inode is not None else self.number(path)
            node = self._nodes.get(inode)
            if node is None:
                node = self._nodes[inode] = Inode(inode, path, entry, mtime_ns, access)
            else:
                # a re-listed real directory may have made a new entry for the same path
                old = node.entry
                if old is not entry or node.mtime_ns != mtime_ns or node.access != access:
                    node.attrs = None
                    if old is not entry and old is not None and old.is_dir and self.on_replace is not None:
                        self.on_replace(node)
                node.entry = entry
                node.mtime_ns = mtime_ns
                node.access = access
        node.lookups += 1
        return node

    def forget(self, inode: int, count: int) -> None:
        node = self._nodes.get(inode)
        if node is None:
            return
        node.lookups -= count
        if node.lookups <= 0 and inode != ROOT_INODE:
            del self._nodes[inode]

    def children_of(self, node: Inode) -> list[str]:
        """Names of the nodes directly below `node` that the kernel knows (a scan:
        only for the rare folder whose source changed)."""
        prefix = node.path + "/" if node.path else ""
        return [n.path[len(prefix):] for n in list(self._nodes.values())
                if n is not node and n.path.startswith(prefix) and "/" not in n.path[len(prefix):]]

    def find_path(self, path: str) -> Inode | None:
        if not path:
            return self.root
        return self.slot(path)[1]
