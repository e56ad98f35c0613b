"""The inodes of files the kernel got from a folder listing, kept compact.

pyfuse3 answers every readdir as readdirplus, so the kernel holds an inode
for every file a listing showed: after `find` over a pak of a million files,
a million of them, each to be counted until the kernel forgets it. An Inode
object per file (with its path) costs about 340 bytes; here a file listed
and not looked up on its own costs one slot of three arrays (inode number,
its folder's inode number, the count): 20 bytes, at most 2/3 full.

Open addressing with linear probing; a removed slot becomes a tombstone
(inode numbers 0 and 1 are never used: fuse/inodes.py), and the arrays are
rebuilt when slots in use pass 2/3.
"""
from __future__ import annotations

from array import array

_FREE, _GONE = 0, 1


class Leaves:
    __slots__ = ("_keys", "_dirs", "_counts", "_used", "_live")

    def __init__(self, capacity: int = 1024):
        self._alloc(capacity)
        self._live = 0

    def _alloc(self, capacity: int) -> None:
        self._keys = array("Q", bytes(8 * capacity))
        self._dirs = array("Q", bytes(8 * capacity))
        self._counts = array("I", bytes(4 * capacity))
        self._used = 0

    def __len__(self) -> int:
        return self._live

    def _find(self, key: int) -> int:
        """The slot holding `key`, else -1."""
        keys, mask = self._keys, len(self._keys) - 1
        i = key & mask
        while True:
            k = keys[i]
            if k == key:
                return i
            if k == _FREE:
                return -1
            i = (i + 1) & mask

    def get(self, key: int) -> tuple[int, int] | None:
        """(folder inode, count) of a listed file, else None."""
        i = self._find(key)
        return None if i < 0 else (self._dirs[i], self._counts[i])

    def add(self, key: int, folder: int, count: int = 1) -> bool:
        """Count `count` more references; True when the file was not held before."""
        i = self._find(key)
        if i >= 0:
            self._counts[i] += count
            return False
        if 3 * (self._used + 1) > 2 * len(self._keys):
            self._grow()
        keys, mask = self._keys, len(self._keys) - 1
        i = key & mask
        while keys[i] not in (_FREE, _GONE):
            i = (i + 1) & mask
        if keys[i] == _FREE:
            self._used += 1
        keys[i], self._dirs[i], self._counts[i] = key, folder, count
        self._live += 1
        return True

    def forget(self, key: int, count: int) -> tuple[int, int] | None:
        """Count `count` references less; (folder inode, references left)
        (0: the file is gone), or None for a file not held here."""
        i = self._find(key)
        if i < 0:
            return None
        left = max(0, self._counts[i] - count)
        folder = self._dirs[i]
        if left:
            self._counts[i] = left
        else:
            self._keys[i] = _GONE
            self._live -= 1
        return folder, left

    def pop(self, key: int) -> tuple[int, int] | None:
        """Remove a file (it became a full inode): (folder inode, its count)."""
        i = self._find(key)
        if i < 0:
            return None
        self._keys[i] = _GONE
        self._live -= 1
        return self._dirs[i], self._counts[i]

    def _grow(self) -> None:
        keys, dirs, counts = self._keys, self._dirs, self._counts
        size = len(keys)
        while 3 * self._live >= size:     # at most a third full after the rebuild
            size *= 2
        self._alloc(size)
        self._live = 0
        for k, d, c in zip(keys, dirs, counts):
            if k > _GONE:
                self.add(k, d, c)
