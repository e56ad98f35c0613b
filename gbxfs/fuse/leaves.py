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

    def nbytes(self) -> int:
        return 20 * len(self._keys)     # the three arrays' slots

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
        return self.add_many((key,), folder, count) == 1

    def add_many(self, keys, folder: int, count: int = 1) -> int:
        """add(key, folder, count) for each of `keys` (a listing's files: one
        Python loop, not a call per file); how many were not held before."""
        if 3 * (self._used + len(keys)) > 2 * len(self._keys):
            self._grow(len(keys))
        table, dirs, counts = self._keys, self._dirs, self._counts
        mask = len(table) - 1
        new = used = 0
        for key in keys:
            i = key & mask
            spot = -1           # the first tombstone passed: reused if the key is not held
            while True:
                k = table[i]
                if k == key:
                    counts[i] += count
                    break
                if k == _FREE:
                    if spot < 0:
                        spot = i
                        used += 1
                    table[spot], dirs[spot], counts[spot] = key, folder, count
                    new += 1
                    break
                if k == _GONE and spot < 0:
                    spot = i
                i = (i + 1) & mask
        self._used += used
        self._live += new
        return new

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

    def _grow(self, extra: int = 1) -> None:
        keys, dirs, counts = self._keys, self._dirs, self._counts
        size = len(keys)
        while 3 * (self._live + extra) >= size:     # at most a third full after the rebuild
            size *= 2
        self._alloc(size)
        table, new_dirs, new_counts = self._keys, self._dirs, self._counts
        mask = size - 1
        for k, d, c in zip(keys, dirs, counts):
            if k > _GONE:       # a fresh table holds each key once and no tombstones
                i = k & mask
                while table[i] != _FREE:
                    i = (i + 1) & mask
                table[i], new_dirs[i], new_counts[i] = k, d, c
        self._used = self._live
