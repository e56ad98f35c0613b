"""A thread-safe LRU cache bounded by the total size of its values in bytes,
which keeps expensive values (parses) over cheap ones (rendered bytes): see ByteLRU.

get_or_make() makes each missing value once however many threads ask for it
at the same time: four concurrent first reads of one map's files cause one
parse, not four. The others wait for the first one's result."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable


# Share of the bound that made values (get_or_make) may hold while they are kept
# ahead of plain put() values. Past it eviction is plain LRU again, so that the
# rest stays for rendered bytes (a large rendered file is not remade for every
# piece read) and the policy is never worse than LRU.
COSTLY_SHARE = 0.9


class ByteLRU:
    """Two segments under one byte bound. Values made by get_or_make (parses:
    expensive to make again) are "costly"; values stored by put() (rendered
    bytes, cheap to make again from a cached parse) are "cheap" unless put says
    otherwise. While the costly values stay within COSTLY_SHARE of the bound,
    eviction takes the least recently used cheap value first (a costly one only
    when no cheap one is left); past that share, the least recently used value
    of either kind. So a cache
    smaller than all the rendered files of two maps, but large enough for their
    two parses, keeps both parses and remakes only rendered bytes."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        # key -> (value, nbytes, costly); recency order per segment below, with
        # the tick of each key's last use to compare the two segments' oldest
        self._items: dict[Hashable, tuple[Any, int, bool]] = {}
        self._used: dict[Hashable, int] = {}
        self._tick = 0
        self._order: tuple[OrderedDict, OrderedDict] = (OrderedDict(), OrderedDict())  # cheap, costly
        self._bytes = 0
        self._costly_bytes = 0
        self._lock = threading.Lock()
        # key -> [lock held while making it, threads making or waiting for it]
        self._making: dict[Hashable, list] = {}

    @property
    def current_bytes(self) -> int:
        return self._bytes

    @property
    def costly_bytes(self) -> int:
        return self._costly_bytes

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
        _, n, costly = self._items.pop(key)
        del self._order[costly][key]
        del self._used[key]
        self._bytes -= n
        if costly:
            self._costly_bytes -= n

    def _evict_one(self, keep: Hashable = None) -> bool:
        """Evict one value by the policy above, never `keep`; False if none is left."""
        # each segment's oldest other than keep (keep is its segment's newest)
        cheap, costly = (next((k for k in seg if k != keep), None) for seg in self._order)
        if cheap is None or costly is None:
            victim = costly if cheap is None else cheap
        elif self._costly_bytes > COSTLY_SHARE * self.max_bytes:
            victim = min(cheap, costly, key=self._used.__getitem__)
        else:
            victim = cheap
        if victim is None:
            return False
        self._drop(victim)
        return True

    def put(self, key: Hashable, value: Any, nbytes: int, *, costly: bool = False) -> None:
        """Store `value`, costing `nbytes`; `costly` if it is expensive to make again.
        Values larger than the whole cache are not kept."""
        with self._lock:
            if key in self._items:
                self._drop(key)
            if nbytes > self.max_bytes:
                return
            self._items[key] = (value, nbytes, costly)
            self._order[costly][key] = None
            self._touch(key)
            self._bytes += nbytes
            if costly:
                self._costly_bytes += nbytes
            while self._bytes > self.max_bytes and self._evict_one(keep=key):
                pass

    def reserve(self, nbytes: int) -> None:
        """Evict values until `nbytes` more would fit: room for a large value about
        to be made (a body parse), so that the process holds the cache plus that
        one value, not a full cache on top of it. Cheap values go first, then the
        least recently used costly ones, but the most recent costly values worth
        up to half the bound stay: with two maps read in turn, making one's parse
        must not throw out the other's, or every read would parse again. So while
        a value is made the process may hold up to half the bound beyond it."""
        with self._lock:
            cheap, costly = self._order
            while self._bytes + min(nbytes, self.max_bytes) > self.max_bytes:
                if cheap:
                    self._drop(next(iter(cheap)))
                elif costly and self._costly_bytes > self.max_bytes // 2:
                    self._drop(next(iter(costly)))
                else:
                    break

    def discard(self, key: Hashable) -> None:
        """Forget `key` (a value served for the last time: its bytes are the kernel's now)."""
        with self._lock:
            if key in self._items:
                self._drop(key)

    def get_or_make(self, key: Hashable, make: Callable[[], tuple[Any, int]]) -> Any:
        """Cached value, or make() -> (value, nbytes) stored and returned.

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
                    self.put(key, value, nbytes, costly=True)
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
