"""A folder's listing as rows: names and sizes in lists, a file's entry made on first use.

A pak folder lists thousands of files that `find` never opens: an Entry object
per file (about a microsecond and a hundred bytes each) is made only when the
file is looked up, opened or read ahead, or when something iterates the
listing's values. Until then a row is its name, its size and a token the
listing's maker turns into the entry (a table index).

    rows = Rows(names, cells, sizes, mtime_ns, make)     # make(rows, i, token) -> the entry of row i
    rows[name], rows.get(name), name in rows, list(rows)    # a Mapping[str, Entry]
    rows.at(i)          # the entry of row i, made now if it was not yet
    rows.sizes[i]       # >= 0: a plain file of that size whose mtime is mtime_ns and
                        # whose access is None (inherited): the FUSE layer answers its
                        # readdirplus entry from the row; LAZY (-2): the same, but its
                        # size is getattr's (contract.py: lazy_size); -1: ask the entry

`cells[i]` is the entry, or (not made yet) an int handed to make(rows, i, token); the
same entry is returned every time (the FUSE layer compares entries by identity).
A row not made yet is a file: makers make folders with the listing.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping

from gbxfs.tree.longnames import all_fit
from gbxfs.tree.model import Entry

# a row's size: a plain file whose size a listing must not compute (its entry's lazy_size)
LAZY = -2


class Rows(Mapping):
    __slots__ = ("names", "cells", "sizes", "mtime_ns", "valid", "_make", "_where", "_making")

    def __init__(self, names: list[str], cells: list, sizes: list[int], mtime_ns: int | None,
                 make: Callable[[Rows, int, int], Entry], valid: bool | None = None):
        self.names = names
        self.cells = cells
        self.sizes = sizes
        self.mtime_ns = mtime_ns
        self._make = make
        # one entry per row, also when two requests name it at once (making one is
        # quick and rare: a lookup, an open)
        self._making = threading.Lock()
        self._where: dict[str, int] | None = None
        # every name one valid component (not empty, no "/", no NUL, not a dot name):
        # `valid` when the maker knows, else tested on the names joined (once per listing)
        self.valid = valid if valid is not None else plain_names(names)

    def _index(self) -> dict[str, int]:
        """name -> row (made on the first question by name: `find` asks none)."""
        where = self._where
        if where is None:
            where = self._where = dict(zip(self.names, range(len(self.names))))
        return where

    def at(self, i: int) -> Entry:
        x = self.cells[i]
        if x.__class__ is int:
            with self._making:
                x = self.cells[i]
                if x.__class__ is int:
                    x = self.cells[i] = self._make(self, i, x)
        return x

    def position(self, name: str) -> int | None:
        """The row of `name`, or None."""
        return self._index().get(name)

    def made(self) -> list[Entry]:
        """The entries made so far (none is made)."""
        return [x for x in self.cells if x.__class__ is not int]

    def folder_count(self) -> int:
        """How many rows are folders (a folder's link count), no entry made."""
        return sum(1 for x in self.cells if x.__class__ is not int and x.is_dir)

    def first_made(self, n: int) -> list[tuple[str, Entry]]:
        """(name, entry) of the rows among the first n whose entry is made (none is made)."""
        return [(self.names[i], x) for i, x in enumerate(self.cells[:n]) if x.__class__ is not int]

    def __getitem__(self, name: str) -> Entry:
        return self.at(self._index()[name])

    def get(self, name: str, default=None):
        i = self._index().get(name)
        return default if i is None else self.at(i)

    def __contains__(self, name) -> bool:
        return name in self._index()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def values(self) -> list[Entry]:  # type: ignore[override]  # a list made now, not a view
        """Every entry (made now where needed)."""
        return [self.at(i) for i in range(len(self.names))]

    def items(self) -> list[tuple[str, Entry]]:  # type: ignore[override]  # a list made now, not a view
        return list(zip(self.names, self.values()))

    def __repr__(self) -> str:
        return f"Rows({len(self.names)} names)"


def plain_names(names: list[str]) -> bool:
    """True when every name is one valid component: not empty, no "/", no NUL, not
    "." or "..", at most NAME_MAX bytes (tree/longnames.py) (tested on the names
    joined: no step per name)."""
    if not names:
        return True
    joined = f"/{'/'.join(names)}/"
    return ("\0" not in joined and joined.count("/") == len(names) + 1 and "//" not in joined
            and "/./" not in joined and "/../" not in joined and all_fit(names))

