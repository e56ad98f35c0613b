"""A thread-safe LRU cache bounded by the total size of its values in bytes."""
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

    def get_or_make(self, key: Hashable, make: Callable[[], tuple[Any, int]]) -> Any:
        """Cached value, or make() -> (value, nbytes) stored and returned.
        make() runs outside the lock; two threads may both make on a miss."""
        sentinel = object()
        value = self.get(key, sentinel)
        if value is not sentinel:
            return value
        value, nbytes = make()
        self.put(key, value, nbytes)
        return value
