"""Listing ahead: the folders a walk enters next, listed in the worker-thread
visit of the folder it asked for.

`find`, `du` or `cp -r` over a Tracks folder of thousands of maps enters the
map folders in their listing's order, and in each the same sub-folders
(header/). A folder whose listing needs work costs a worker-thread hop, which
on a busy machine costs more than listing a GBX folder's top level itself. So
when a folder has to be listed in a worker thread, the same visit lists the
folders the walk is likely to ask for next: its next siblings, and the folder
of the same name in its parent's next siblings that are listed already. The
walk then finds them listed (Dir.loaded) and is answered on the event loop.

Only folders that say so are listed ahead (`list_ahead`: a listing made from a
header of a few KB, not a pak's index), at most AHEAD per visit, looked for
among the next SCAN names. Nothing here changes what a listing holds, only
when it is made, and where listings are kept is the tree's business (a GBX
folder's header/ lives in the byte-bounded cache).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import Dir, Entry

log = logging.getLogger("gbxfs.fuse")

AHEAD = 32          # folders listed ahead per worker-thread visit
SCAN = 4 * AHEAD    # names looked at after the one asked for
ORDERS_KEPT = 2     # large listings whose positions by name are kept (a real folder of maps)
SMALL = 64          # a listing of at most this many names is searched, not remembered


def wants_ahead(entry: Entry | None) -> bool:
    return getattr(entry, "list_ahead", False)


class Ahead:
    """The next folders of a walk (worker threads share it)."""

    def __init__(self):
        # id(listing) -> (listing, names in order, name -> position)
        self._orders: dict[int, tuple[Mapping[str, Entry], list[str], dict[str, int]]] = {}
        self._lock = threading.Lock()

    def _after(self, kids: Mapping[str, Entry], name: str) -> list[str]:
        """The SCAN names after `name` in the listing `kids`."""
        if len(kids) <= SMALL:      # a GBX folder's own: no need to evict a large one's order
            names = list(kids)
            return names[names.index(name) + 1:][:SCAN] if name in kids else []
        order = self._orders.get(id(kids))
        if order is None or order[0] is not kids:
            names = list(kids)
            order = (kids, names, {n: i for i, n in enumerate(names)})
            with self._lock:
                self._orders[id(kids)] = order
                while len(self._orders) > ORDERS_KEPT:
                    self._orders.pop(next(iter(self._orders)))
        i = order[2].get(name)
        return [] if i is None else order[1][i + 1:i + 1 + SCAN]

    def _next(self, folder: Entry | None, name: str, pick: Callable[[Entry], Entry | None]) -> list[Dir]:
        kids = folder.peek() if isinstance(folder, Dir) else None
        if kids is None:
            return []
        out: list[Dir] = []
        for n in self._after(kids, name):
            e = kids.get(n)
            c = None if e is None else pick(e)
            if isinstance(c, Dir) and wants_ahead(c) and not c.revalidates and c.peek() is None:
                out.append(c)
                if len(out) == AHEAD:
                    break
        return out

    def folders(self, entry: Dir, name: str, parent: Entry | None, parent_name: str,
                grand: Entry | None) -> list[Dir]:
        """The folders to list with `entry` (called `name` in `parent`, itself called
        `parent_name` in `grand`): its next siblings not listed yet, else the
        same-named folders of its parent's next siblings (worker thread)."""
        if not wants_ahead(entry):
            return []
        out = self._next(parent, name, lambda e: e)
        if not out and wants_ahead(parent):
            out = self._next(grand, parent_name, lambda e: _listed(e, name))
        return out

    def list_with(self, entry: Dir, name: str, parent: Entry | None, parent_name: str,
                  grand: Entry | None, listed: Callable):
        """listed(entry), then the folders a walk asks for next (worker thread):
        a failure of theirs is logged and left for when they are asked for."""
        result = listed(entry)
        for c in self.folders(entry, name, parent, parent_name, grand):
            try:
                c.children()
            except Exception as e:  # noqa: BLE001 - work nobody asked for yet: logged, never raised
                log_failure(log, e, "listing %s ahead failed", c.name)
        return result


def _listed(folder: Entry, name: str) -> Entry | None:
    """`folder`'s child `name` if the folder is listed (no work), else None."""
    kids = folder.peek() if isinstance(folder, Dir) else None
    return None if kids is None else kids.get(name)
