"""ByteLRU.take: a value served for the last time leaves the cache in one step."""
from __future__ import annotations

from gbxfs.tree.cache import ByteLRU


def test_take_hands_the_value_over_and_forgets_it():
    cache = ByteLRU(1 << 20)
    cache.put("a", b"x" * 100, 100)
    cache.put("b", b"y" * 50, 50)
    assert cache.take("a") == b"x" * 100
    assert cache.current_bytes == 50
    assert cache.get("a") is None and cache.take("a", "gone") == "gone"
    assert cache.get("b") == b"y" * 50
    # what is left is still evicted by the bound as before
    cache.put("c", b"z" * (1 << 20), 1 << 20)
    assert cache.current_bytes <= 1 << 20
