"""The kernel's references to files it got from a folder listing, counted by position.

pyfuse3 answers every readdir as readdirplus, so the kernel holds an inode
for every file a listing showed: after `find` over a pak of a million files,
a million of them, each to be counted until the kernel forgets it. An Inode
object per file costs a few hundred bytes; a listed file's number is its
folder's id and its position in the folder's listing (fuse/inodes.py), so
here it is one cell of an array of counts per folder, as long as the folder's
listing: 4 bytes per entry, made when a listing's files are first counted and
dropped when the last of them is forgotten.
"""
from __future__ import annotations

from array import array

CELL_BYTES = 4          # a count
FOLDER_BYTES = 256      # a folder's array object, its dict entries and its count of files


class Leaves:
    """Counts of references by (folder id, position)."""

    def __init__(self) -> None:
        self._counts: dict[int, array] = {}     # folder id -> a count per position
        self._live: dict[int, int] = {}         # folder id -> positions with a count
        self._total = 0
        self._cells = 0

    def __len__(self) -> int:
        return self._total

    def nbytes(self) -> int:
        """About the memory held (read from any thread: numbers only)."""
        return CELL_BYTES * self._cells + FOLDER_BYTES * len(self._live)

    def add_many(self, fid: int, slots, size: int) -> int:
        """Count one more reference to each position in `slots` of folder `fid`,
        whose listing has `size` entries; how many were not counted before."""
        counts = self._counts.get(fid)
        if counts is None:
            counts = self._counts[fid] = array("I", (0,)) * size
            self._live[fid] = 0
            self._cells += size
        elif len(counts) < size:        # a new listing for the same folder number (its file changed)
            self._cells += size - len(counts)
            counts.extend(array("I", (0,)) * (size - len(counts)))
        new = 0
        for k in slots:
            c = counts[k]
            if not c:
                new += 1
            counts[k] = c + 1
        self._live[fid] += new
        self._total += new
        return new

    def count(self, fid: int, k: int) -> int:
        """The references counted at position k of folder `fid` (0: none)."""
        counts = self._counts.get(fid)
        return counts[k] if counts is not None and k < len(counts) else 0

    def forget(self, fid: int, k: int, n: int) -> int | None:
        """Count n references less; the references left (0: the file is gone), or
        None for a file not counted here."""
        counts = self._counts.get(fid)
        if counts is None or k >= len(counts) or not counts[k]:
            return None
        left = max(0, counts[k] - n)
        counts[k] = left
        if not left:
            self._gone(fid)
        return left

    def pop(self, fid: int, k: int) -> int:
        """Remove a file (it became a full inode): its count (0: not counted here)."""
        counts = self._counts.get(fid)
        if counts is None or k >= len(counts) or not counts[k]:
            return 0
        got = counts[k]
        counts[k] = 0
        self._gone(fid)
        return got

    def _gone(self, fid: int) -> None:
        self._total -= 1
        self._live[fid] -= 1
        if not self._live[fid]:
            self._cells -= len(self._counts.pop(fid))
            del self._live[fid]

    def items(self):
        """(folder id, position, count) of every file counted."""
        for fid, counts in self._counts.items():
            for k, c in enumerate(counts):
                if c:
                    yield fid, k, c
