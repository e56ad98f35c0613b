"""A thread-safe LRU cache bounded by the total size of its values in bytes.

get_or_make() makes each missing value once however many threads ask for it
at the same time: four concurrent first reads of one map's files cause one
parse, not four. The others wait for the first one's result."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable


class ByteLRU:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        # key -> [lock held while making it, threads making or waiting for it]
        self._making: dict[Hashable, list] = {}

    @property
    def current_bytes(self) -> int:
        return self._bytes

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return default
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: Any, nbytes: int) -> None:
        """Store `value`, costing `nbytes`. Values larger than the whole cache are not kept."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if nbytes > self.max_bytes:
                return
            self._items[key] = (value, nbytes)
            self._bytes += nbytes
            while self._bytes > self.max_bytes:
                _, (_, n) = self._items.popitem(last=False)
                self._bytes -= n

    def discard(self, key: Hashable) -> None:
        """Forget `key` (a value served for the last time: its bytes are the kernel's now)."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]

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
                    self.put(key, value, nbytes)
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
