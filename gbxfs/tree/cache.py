"""A thread-safe LRU cache bounded by the total size of its values in bytes,
which keeps expensive values (parses) over cheap ones (rendered bytes), and
small durable summaries of them over both: see ByteLRU.

get_or_make() makes each missing value once however many threads ask for it
at the same time: four concurrent first reads of one map's files cause one
parse, not four. The others wait for the first one's result."""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

# Share of the bound that made values (get_or_make) may hold while they are kept
# ahead of plain put() values. Past it eviction is plain LRU again, so that the
# rest stays for rendered bytes (a large rendered file is not remade for every
# piece read) and the policy is never worse than LRU.
COSTLY_SHARE = 0.9
# Share of the bound that durable values may hold while they are kept ahead of
# everything else; past it the least recently used durable value goes first.
DURABLE_SHARE = 0.5

CHEAP, COSTLY, DURABLE = 0, 1, 2      # ranks: the order in which values are given up


class ByteLRU:
    """Three ranks under one byte bound. Values made by get_or_make (parses:
    expensive to make again) are "costly"; values stored by put() (rendered
    bytes, cheap to make again from a cached parse) are "cheap" unless put says
    otherwise. While the costly values stay within COSTLY_SHARE of the bound,
    eviction takes the least recently used cheap value first (a costly one only
    when no cheap one is left); past that share, the least recently used value
    of either kind. So a cache
    smaller than all the rendered files of two maps, but large enough for their
    two parses, keeps both parses and remakes only rendered bytes.

    "Durable" values (rank DURABLE) are small things distilled from a costly
    one that serve what it served (a body's digest: its listings and rendered
    chunk texts, see gbx/digest.py). They go last, while they hold at most
    DURABLE_SHARE of the bound: two parses that cannot both be kept are then
    made again only until their digests hold what is read, not on every read."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        # what eviction keeps to: max_bytes, unless the process's memory asks for
        # less (set_bound, tree/governor.py); what is too large to keep or show
        # at all is still decided by max_bytes
        self.bound = max_bytes
        # key -> (value, nbytes, rank); recency order per rank below, with
        # the tick of each key's last use to compare the ranks' oldest
        self._items: dict[Hashable, tuple[Any, int, int]] = {}
        self._used: dict[Hashable, int] = {}
        self._tick = 0
        self._order: tuple[OrderedDict, ...] = (OrderedDict(), OrderedDict(), OrderedDict())
        self._bytes = 0
        self._rank_bytes = [0, 0, 0]
        self._lock = threading.Lock()
        # bytes of the values being made now (see making), and who waits for room
        self._in_flight = 0
        self._makers = 0          # threads inside making(): one at a time
        # bytes of made values alive outside the cache (hold), under a lock of their own:
        # a value's finalizer releases them in whatever thread drops it
        self._held = 0
        self._held_lock = threading.Lock()
        self._holds: dict[int, weakref.finalize] = {}
        self._room = threading.Condition(threading.Lock())
        # key -> [lock held while making it, threads making or waiting for it]
        self._making: dict[Hashable, list] = {}

    @property
    def current_bytes(self) -> int:
        return self._bytes

    @property
    def costly_bytes(self) -> int:
        """Bytes of made values (costly and durable)."""
        return self._rank_bytes[COSTLY] + self._rank_bytes[DURABLE]

    def rank_bytes(self, rank: int) -> int:
        return self._rank_bytes[rank]

    def peek(self, key: Hashable) -> Any:
        """The value if cached (else None), without counting as a use and without
        the lock (one dict look-up: for questions the event loop asks per request)."""
        item = self._items.get(key)
        return None if item is None else item[0]

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return default
            self._order[item[2]].move_to_end(key)
            self._touch(key)
            return item[0]

    def _touch(self, key: Hashable) -> None:
        self._tick += 1
        self._used[key] = self._tick

    def _drop(self, key: Hashable) -> None:
        _, n, rank = self._items.pop(key)
        del self._order[rank][key]
        del self._used[key]
        self._bytes -= n
        self._rank_bytes[rank] -= n

    def _evict_one(self, keep: Hashable = None, rank: int = DURABLE) -> bool:
        """Evict one value by the policy above, never `keep`, and a durable one
        for a value of lower `rank` only past DURABLE_SHARE; False if none is left."""
        # each rank's oldest other than keep (keep is its rank's newest)
        cheap, costly, durable = (next((k for k in seg if k != keep), None) for seg in self._order)
        if durable is not None and self._rank_bytes[DURABLE] > DURABLE_SHARE * self.bound:
            victim = durable
        elif cheap is None and costly is None:
            victim = durable if rank == DURABLE else None
        elif cheap is None or costly is None:
            victim = costly if cheap is None else cheap
        elif self.costly_bytes > COSTLY_SHARE * self.bound:
            victim = min(cheap, costly, key=self._used.__getitem__)
        else:
            victim = cheap
        if victim is None:
            return False
        self._drop(victim)
        return True

    def put(self, key: Hashable, value: Any, nbytes: int, *, costly: bool = False,
            rank: int | None = None) -> None:
        """Store `value`, costing `nbytes`; `costly` if it is expensive to make again
        (or an explicit rank). Values larger than the whole cache are not kept, nor
        values of a lower rank than DURABLE larger than the room durable values
        within their share leave (they would not fit without evicting them)."""
        rank = int(costly) if rank is None else rank
        with self._lock:
            if key in self._items:
                self._drop(key)
            if nbytes > self.bound - (0 if rank == DURABLE else self._protected()):
                return       # too large for the cache, or for the room durable values leave
            self._items[key] = (value, nbytes, rank)
            self._order[rank][key] = None
            self._touch(key)
            self._bytes += nbytes
            self._rank_bytes[rank] += nbytes
            self._fit(key, rank)

    def _protected(self) -> int:
        """Bytes of durable values that a value of lower rank cannot evict."""
        return min(self._rank_bytes[DURABLE], int(DURABLE_SHARE * self.bound))

    def _fit(self, keep: Hashable, rank: int) -> None:
        """Evict until within the bound, less the room of values being made or
        held (making, hold: not in the cache, but in memory). A value that fits
        only by evicting durable values within their share is not kept itself
        (admission control: a parse
        as large as the cache would otherwise throw out the digests that spare
        making it again; the caller still gets the value it made)."""
        while self._bytes + self._in_flight + self._held > self.bound:
            if not self._evict_one(keep, rank):
                if keep in self._items:
                    self._drop(keep)
                return

    def grow(self, key: Hashable, nbytes: int) -> None:
        """`key`'s value now keeps `nbytes` more alive (a digest that took in more
        rendered text): count them, and evict others if that passes the bound.
        Nothing happens if `key` is no longer cached (its value is garbage then)."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return
            value, n, rank = item
            self._items[key] = (value, n + nbytes, rank)
            self._bytes += nbytes
            self._rank_bytes[rank] += nbytes
            if n + nbytes > self.bound:
                self._drop(key)
            self._fit(key, rank)

    def reserve(self, nbytes: int) -> None:
        """Evict values until `nbytes` more would fit beside the values being
        made now (making()) and held (hold()): room for a large value about to
        be made (a body walk), so that the process holds the bound, not a full
        cache on top of the walks in flight (16 readers at cache_mb=48 took the
        daemon to 196 MB with up to half the bound of parses kept through a walk;
        benchmarks/mount_memory.py). Cheap values go first, then the least
        recently used costly ones, then durable ones, least recently used first,
        even within their share: a walk's room is memory in use, and a walk as
        large as the bound beside half the bound of digests took the count a
        half past the bound (the digests spare a second walk, gbx/digest.py,
        but the bound comes first)."""
        with self._room:
            in_flight = self._in_flight + self._held
        with self._lock:
            cheap, costly, durable = self._order
            while self._bytes and self._bytes + min(nbytes + in_flight, self.bound) > self.bound:
                self._drop(next(iter(cheap or costly or durable)))

    def set_bound(self, nbytes: int) -> None:
        """Keep to `nbytes` (at most max_bytes) from now on, evicting down to it
        in the usual order (durable values last): the bound the process's memory
        allows (tree/governor.py). Values larger than it are made and used but
        not kept; what is too large to make at all stays max_bytes's to decide
        (callers read max_bytes), so content never depends on the bound."""
        with self._lock:
            self.bound = max(0, min(nbytes, self.max_bytes))
            self._fit(None, DURABLE)

    @contextmanager
    def making(self, nbytes: int) -> Iterator[Callable[[int], None]]:
        """Hold `nbytes` of room for a large value being made (a body walk) while
        making it: waits until no other thread is making one (one at a time),
        then evicts until the cache and the room of the value in flight fit in
        the bound (reserve), and values stored meanwhile keep to what that room
        leaves. Walks are pure Python, so running more at once gains nothing on
        the interpreter's one lock, but each holds its objects: 16 readers
        walking 16 bodies at once took the process far past the cache's bound,
        and so did two walks let in beside each other within half the bound,
        each then growing its room towards the whole bound. Yields `grow(more)`:
        the value being made turned out larger than its room (a walk counts
        what it builds), so the room grows by `more`, evicting for it. Not
        reentrant: nothing made inside a making() may use making() itself."""
        with self._room:
            while self._makers:
                self._room.wait()
            self._makers += 1
            self._in_flight = nbytes      # the one maker's room (see grow)

        def grow(more: int) -> None:
            with self._room:
                self._in_flight += more
            self.reserve(0)

        try:
            self.reserve(0)
            yield grow
        finally:
            with self._room:
                self._in_flight = 0
                self._makers -= 1
                self._room.notify_all()

    def hold(self, value: Any, nbytes: int) -> None:
        """Count `nbytes` for `value`, a made value not (yet) in the cache, until
        it is stored (get_or_make) or garbage: a parse too large to keep beside
        the digests is still used by its caller (rendering every chunk text of
        it), and that memory must leave room in the bound like a walk in flight."""
        with self._held_lock:
            self._held += nbytes
        self._holds[id(value)] = weakref.finalize(value, self._release, id(value), nbytes)

    def _release(self, ident: int, nbytes: int) -> int:
        with self._held_lock:
            self._held -= nbytes
        self._holds.pop(ident, None)
        return nbytes

    def _unhold(self, value: Any) -> int:
        """Stop counting `value`; the bytes it was held for (0 if it was not)."""
        f = self._holds.get(id(value))
        return (f() or 0) if f is not None else 0     # runs _release once, then detached

    @property
    def held_bytes(self) -> int:
        """Bytes counted for values being made or held (see making and hold)."""
        return self._in_flight + self._held

    def discard(self, key: Hashable) -> None:
        """Forget `key` (a value served for the last time: its bytes are the kernel's now)."""
        with self._lock:
            if key in self._items:
                self._drop(key)

    def take(self, key: Hashable, default: Any = None) -> Any:
        """The value, forgotten in the same step (discard after get: a value served for
        the last time, with one hold of the lock and no use counted), else `default`."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return default
            self._drop(key)
            return item[0]

    def get_or_make(self, key: Hashable, make: Callable[[], tuple[Any, int]], *, rank: int = COSTLY) -> Any:
        """Cached value, or make() -> (value, nbytes) stored (costly, or `rank`) and returned.

        make() runs outside the cache's lock (other keys stay usable, and make
        may itself use the cache), under a lock of its own key: a thread that
        misses while another makes the same key waits and takes its result. A
        value too large to keep is made again by the next caller."""
        sentinel = object()
        value = self.get(key, sentinel)
        if value is not sentinel:
            return value
        with self._lock:
            slot = self._making.setdefault(key, [threading.Lock(), 0])
            slot[1] += 1
        try:
            with slot[0]:
                value = self.get(key, sentinel)
                if value is sentinel:
                    value, nbytes = make()
                    held = self._unhold(value)  # counted in the cache from now on, if kept
                    self.put(key, value, nbytes, rank=rank)
                    if held and key not in self._items:
                        self.hold(value, held)      # not kept: still in memory,
                        self.reserve(0)             # so the cache makes its room
                return value
        finally:
            with self._lock:
                slot[1] -= 1
                if slot[1] == 0:
                    del self._making[key]

    def makers(self, key: Hashable) -> int:
        """Threads making `key` now or waiting for it (for tests and diagnostics)."""
        with self._lock:
            slot = self._making.get(key)
            return 0 if slot is None else slot[1]
