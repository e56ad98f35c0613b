"""Work done between requests: the listings a walker is about to ask for.

`find`, `du`, `tar`, `cp -r` and file managers list a folder, then enter its
sub-folders, depth first and in listing order. Each request waits for the one
before it to be answered, so between an answer and the next request the daemon
sits idle while the kernel and the walker work on the other core. The folders
a readdirplus answer showed that were never listed are kept here (newest
first: the order a depth-first walk enters them), and a task of the mount's
own (IdleListings.run, started by fuse/runner.py's serve beside pyfuse3's
tasks) lists them one at a time whenever the trio loop has nothing else to
run and no request is queued: building a pak folder's listing then happens
off the walk's critical path.

"Nothing else to run" is trio's own notion (trio.testing.wait_all_tasks_blocked:
public, documented, and the only way trio offers to run at idle): the task
wakes only after the loop polled the FUSE device without a wait and found
no request, so a queued request, a worker thread's result or a signal always
goes before the next listing, and at most one listing stands between a
request's arrival and its answer.

Only listings that need no work beyond memory are made (Dir.listing_nowait:
no I/O, no parsing, the pak's table already read), and they go into the
byte-bounded cache as if listed. At most LIMIT folders wait; older ones are
dropped first. A failure is logged and forgotten: the request that later
lists the folder meets it again and answers it.
"""
from __future__ import annotations

import collections
import logging
from typing import Iterable

import trio
import trio.testing

from gbxfs.tree.model import Dir

log = logging.getLogger("gbxfs.fuse")

# folders waiting to be listed between requests at most
LIMIT = 1024


class IdleListings:
    """The folders waiting to be listed: filled by readdirplus answers
    (fuse/listing.py), emptied by run(). One per Operations; trio-loop only."""

    def __init__(self, limit: int = LIMIT):
        self._todo: collections.deque[Dir] = collections.deque(maxlen=limit)
        self._added = trio.lowlevel.ParkingLot()     # run() parks here while nothing waits

    def __bool__(self) -> bool:
        return bool(self._todo)

    def __len__(self) -> int:
        return len(self._todo)

    def add(self, folders: Iterable[Dir]) -> None:
        """Folders just shown, in listing order: the first is listed first."""
        self._todo.extend(reversed(list(folders)))
        if self._todo:
            self._added.unpark_all()

    def run_one(self) -> None:
        """List the newest waiting folder, if it can be without work."""
        folder = self._todo.pop()
        try:
            folder.listing_nowait()
        except Exception as e:      # the request that lists it will meet it again
            log.debug("listing %r between requests failed: %r", folder.name, e)

    async def run(self) -> None:
        """List the waiting folders, one each time the loop is idle, until cancelled."""
        while True:
            if not self._todo:
                await self._added.park()
                continue
            await trio.testing.wait_all_tasks_blocked()
            if self._todo:      # a request may have listed it meanwhile: it is then at hand
                self.run_one()
