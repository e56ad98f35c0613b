"""When and where the mount's work runs: one Scheduler per mount, made by the
mount command and handed to the request handlers (fuse/ops.py, fuse/dirs.py).

The tree says what there is to do and whether an answer needs work (its
`wait=False` answers, tree/contract.py); this object decides when and where it
runs. Its rules:

1. The trio loop never waits for I/O, decryption, decompression, parsing or
   rendering. An answer the tree gives with wait=False is given on the loop;
   anything else runs in a worker thread.
2. At most `threads` worker threads run at once (one CapacityLimiter for every
   request and every background job), and fewer under memory pressure: the
   memory loop (fuse/memory.py) sets the limiter's tokens and the cache's bound
   from the process's RSS every GOVERN_EVERY seconds (tree/governor.py).
3. Work nobody waits for (a folder's read-ahead in the background, the next
   pieces of a large file read in order, the folders a walk enters next) runs
   in the same workers; its failure is logged, never raised: a request that
   later needs the same work does it again and answers EIO if it fails.
4. Opening a folder's child runs what the folder's read_ahead(name) prepares:
   `background` is started first (so the entries after this one are prepared
   on another core while this one is served), then `now` is waited for.
5. A first read of a file starts its prefetch before the read itself; every
   read that returned bytes starts the prefetch at where it ended.
6. A folder listed in a worker thread lists, in the same visit, the folders a
   walk asks for next (fuse/ahead.py): one thread hop for up to AHEAD folders.
7. A lookup in a folder that revalidates (a real folder) checks the disk in a
   worker thread, unless the folder's child(name, wait=False) can answer.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import trio

from gbxfs.fuse.ahead import Ahead, wants_ahead
from gbxfs.fuse.memory import MemoryLoop
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.logs import log_failure
from gbxfs.tree.model import Dir, Entry, File, Later

log = logging.getLogger("gbxfs.fuse")

# worker threads by default (-o threads)
THREADS = 8


class Scheduler:
    """The mount's worker threads and every decision of when work runs (rules above)."""

    def __init__(self, threads: int = THREADS, cache: ByteLRU | None = None):
        self.limiter = trio.CapacityLimiter(threads)
        self.ahead = Ahead()
        self._cache = cache

    # -- where work runs --------------------------------------------------

    async def work(self, fn: Callable, *args):
        """fn(*args) in a worker thread (rule 2), its result or its exception."""
        return await trio.to_thread.run_sync(fn, *args, limiter=self.limiter)

    def spawn(self, fn: Callable, *args) -> None:
        """Start fn(*args) in a worker thread, nobody waiting (rule 3)."""
        trio.lowlevel.spawn_system_task(self._background, fn, *args)

    async def _background(self, fn: Callable, *args) -> None:
        try:
            await self.work(fn, *args)
        except Exception as e:  # noqa: BLE001 - a handler's contract: EIO and one log line
            log_failure(log, e, "background %s failed", getattr(fn, "__qualname__", fn))

    async def run(self, outside: Callable[[], int] | None = None) -> None:
        """The memory loop (rule 2) until cancelled; `outside()`: bytes the mount keeps
        outside the cache (the kernel's inodes), charged to it."""
        await MemoryLoop(self._cache, outside, self.limiter).run()

    # -- the tree's answers ---------------------------------------------------

    async def children(self, folder: Dir) -> Mapping[str, Entry]:
        """The folder's listing (rule 1)."""
        kids = folder.children(wait=False)
        return kids if kids is not None else await self.work(folder.children)

    async def listing(self, folder: Dir, listed: Callable, context: Callable[[], tuple]) -> tuple:
        """listed(folder) -> (listing, sizes) in a worker thread, with the folders a
        walk enters next when the folder says so (rule 6); `context()`: where the
        folder is (fuse/ahead.py Ahead.list_with)."""
        if wants_ahead(folder):
            return await self.work(self.ahead.list_with, folder, *context(), listed)
        return await self.work(listed, folder)

    async def child(self, folder: Dir, name: str) -> Entry | None:
        """What a lookup of `name` in `folder` finds (rules 1 and 7)."""
        found = folder.child(name, wait=False)
        return await self.work(folder.child, name) if isinstance(found, Later) else found

    async def size(self, entry: Entry) -> int:
        """A file's exact size, 0 for a folder (rule 1)."""
        if not isinstance(entry, File):
            return 0
        size = entry.size(wait=False)
        return size if size is not None else await self.work(entry.size)

    async def opening(self, folder: Entry | None, name: str) -> None:
        """What opening `folder`'s child `name` prepares (rule 4)."""
        if not isinstance(folder, Dir):
            return
        plan = folder.read_ahead(name)
        if plan.background is not None:
            self.spawn(plan.background)
        if plan.now is not None:
            await self.work(plan.now)

    async def read(self, entry: File, offset: int, size: int) -> bytes:
        """Up to `size` bytes of `entry` at `offset` (rules 1 and 5)."""
        data = entry.read(offset, size, wait=False)
        if data is None:
            if not offset:      # a first read: what it will need, on the other core too
                self._prefetch(entry, 0)
            data = await self.work(entry.read, offset, size)
        if data:
            self._prefetch(entry, offset + len(data))
        return data

    def _prefetch(self, entry: File, offset: int) -> None:
        for job in entry.prefetch(offset):
            self.spawn(job)
