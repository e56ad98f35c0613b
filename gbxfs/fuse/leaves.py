"""The inodes of files the kernel got from a folder listing, kept compact.

pyfuse3 answers every readdir as readdirplus, so the kernel holds an inode
for every file a listing showed: after `find` over a pak of a million files,
a million of them, each to be counted until the kernel forgets it. An Inode
object per file (with its path) costs about 340 bytes; here a file listed
and not looked up on its own costs one slot of three arrays (inode number,
the number its folder has in a short list of folders, the count): 16 bytes,
at most 2/3 full and at most half full after a rebuild.

Open addressing with linear probing; a removed slot becomes a tombstone
(inode numbers 0 and 1 are never used: fuse/inodes.py), and the arrays are
rebuilt when slots in use pass 2/3. The table is split in SHARDS by high bits
of the inode number (hashes: evenly), each rebuilt on its own: a rebuild holds
two copies of one shard, not of the whole table (at a million files, a whole
rebuild held 60 MB at once, as much as the file table of the pak listed).
"""
from __future__ import annotations

from array import array
from collections.abc import Iterator

_FREE, _GONE = 0, 1
SHARDS = 64
_SHIFT = 56             # bits 56-61 of a 63-bit inode number pick its shard
SLOT_BYTES = 16         # a slot of the three arrays
FOLDER_BYTES = 128      # a folder's number in the list, its dict entry and its count of files


class _Shard:
    __slots__ = ("keys", "dirs", "counts", "used", "live")

    def __init__(self, capacity: int):
        self._alloc(capacity)

    def _alloc(self, capacity: int) -> None:
        # made by repetition: exactly `capacity` items (from bytes, an array keeps 1/16 spare)
        self.keys = array("Q", (0,)) * capacity
        self.dirs = array("I", (0,)) * capacity     # the folder's number (Leaves._folders)
        self.counts = array("I", (0,)) * capacity
        self.used = 0           # slots holding a key or a tombstone
        self.live = 0           # slots holding a key

    def find(self, key: int) -> int:
        """The slot holding `key`, else -1."""
        keys, mask = self.keys, len(self.keys) - 1
        i = key & mask
        while True:
            k = keys[i]
            if k == key:
                return i
            if k == _FREE:
                return -1
            i = (i + 1) & mask

    def add(self, keys, fid: int, count: int) -> int:
        """Count `count` more references to each of `keys` (new ones in folder
        `fid`); how many were not held before."""
        if 3 * (self.used + len(keys)) > 2 * len(self.keys):
            self._grow(len(keys))
        table, dirs, counts = self.keys, self.dirs, self.counts
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
                    table[spot], dirs[spot], counts[spot] = key, fid, count
                    new += 1
                    break
                if k == _GONE and spot < 0:
                    spot = i
                i = (i + 1) & mask
        self.used += used
        self.live += new
        return new

    def _grow(self, extra: int) -> None:
        keys, dirs, counts, live = self.keys, self.dirs, self.counts, self.live
        size = len(keys)
        while 2 * (live + extra) > size:        # at most half full after the rebuild
            size *= 2
        self._alloc(size)
        table, new_dirs, new_counts = self.keys, self.dirs, self.counts
        mask = size - 1
        for k, d, c in zip(keys, dirs, counts):
            if k > _GONE:       # a fresh table holds each key once and no tombstones
                i = k & mask
                while table[i] != _FREE:
                    i = (i + 1) & mask
                table[i], new_dirs[i], new_counts[i] = k, d, c
        self.used = self.live = live


class Leaves:
    __slots__ = ("_shards", "_live", "_folders", "_folder_ids", "_files", "_spare")

    def __init__(self, capacity: int = 1024):
        per = 8
        while per * SHARDS < capacity:
            per *= 2
        self._shards = [_Shard(per) for _ in range(SHARDS)]
        self._live = 0
        # folders by number: their inode, how many files they hold here (0: the number is free)
        self._folders: list[int] = []
        self._files: list[int] = []
        self._folder_ids: dict[int, int] = {}
        self._spare: list[int] = []

    def __len__(self) -> int:
        return self._live

    def nbytes(self) -> int:
        return SLOT_BYTES * sum(len(s.keys) for s in self._shards) + FOLDER_BYTES * len(self._folders)

    def _shard(self, key: int) -> _Shard:
        return self._shards[(key >> _SHIFT) & (SHARDS - 1)]

    def get(self, key: int) -> tuple[int, int] | None:
        """(folder inode, count) of a listed file, else None."""
        s = self._shard(key)
        i = s.find(key)
        return None if i < 0 else (self._folders[s.dirs[i]], s.counts[i])

    def add(self, key: int, folder: int, count: int = 1) -> bool:
        """Count `count` more references; True when the file was not held before."""
        return self.add_many((key,), folder, count) == 1

    def add_many(self, keys, folder: int, count: int = 1) -> int:
        """add(key, folder, count) for each of `keys` (a listing's files: one
        Python loop per shard, not a call per file); how many were not held before."""
        fid = self._folder_ids.get(folder)
        if fid is None:
            fid = self._spare.pop() if self._spare else len(self._folders)
            if fid == len(self._folders):
                self._folders.append(folder)
                self._files.append(0)
            else:
                self._folders[fid] = folder
            self._folder_ids[folder] = fid
        groups: dict[int, list[int]] = {}
        for key in keys:
            groups.setdefault((key >> _SHIFT) & (SHARDS - 1), []).append(key)
        shards = self._shards
        new = sum(shards[s].add(ks, fid, count) for s, ks in groups.items())
        self._live += new
        self._files[fid] += new
        if not self._files[fid]:
            self._free(fid)
        return new

    def _free(self, fid: int) -> None:
        del self._folder_ids[self._folders[fid]]
        self._spare.append(fid)

    def _gone(self, s: _Shard, i: int) -> None:
        """Slot i of shard s no longer holds a file."""
        s.keys[i] = _GONE
        s.live -= 1
        self._live -= 1
        fid = s.dirs[i]
        self._files[fid] -= 1
        if not self._files[fid]:
            self._free(fid)

    def forget(self, key: int, count: int) -> tuple[int, int] | None:
        """Count `count` references less; (folder inode, references left)
        (0: the file is gone), or None for a file not held here."""
        s = self._shard(key)
        i = s.find(key)
        if i < 0:
            return None
        left = max(0, s.counts[i] - count)
        folder = self._folders[s.dirs[i]]
        if left:
            s.counts[i] = left
        else:
            self._gone(s, i)
        return folder, left

    def pop(self, key: int) -> tuple[int, int] | None:
        """Remove a file (it became a full inode): (folder inode, its count)."""
        s = self._shard(key)
        i = s.find(key)
        if i < 0:
            return None
        got = self._folders[s.dirs[i]], s.counts[i]
        self._gone(s, i)
        return got

    def items(self) -> Iterator[tuple[int, int, int]]:
        """(inode, folder inode, count) of every file held."""
        for s in self._shards:
            for k, d, c in zip(s.keys, s.dirs, s.counts):
                if k > _GONE:
                    yield k, self._folders[d], c
