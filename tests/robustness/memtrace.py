"""Memory measuring for the memory audits (test_memory*.py): traced growth with
tracemalloc, and emptying a byte-bounded cache."""
from __future__ import annotations

import gc
import tracemalloc

from gbxfs.tree.cache import DURABLE, ByteLRU

MiB = 1 << 20


def flush(cache: ByteLRU) -> None:
    """Evict everything: one item as large as the cache pushes all others out
    (a durable one: a lower rank would not push out durable values within their share)."""
    cache.put(("test", "flush"), None, cache.max_bytes, rank=DURABLE)
    cache.put(("test", "flush"), None, 0)


class Traced:
    """Traced memory growth from construction to now, after a full collection."""

    def __enter__(self):
        self.started = not tracemalloc.is_tracing()
        if self.started:
            tracemalloc.start()
        gc.collect()
        self.base = tracemalloc.get_traced_memory()[0]
        return self

    def growth(self) -> int:
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - self.base

    def __exit__(self, *exc):
        if self.started:
            tracemalloc.stop()
