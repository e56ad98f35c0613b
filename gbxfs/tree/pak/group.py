"""What the entries of one open pak share (tree/pak/entry.py, pieces.py, ahead.py)."""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any


class EntryGroup:
    """What the entries of one archive share: whether any of them ever found an
    error (so that a folder need not look at each of its entries' while none
    did), the lock that starts a compressed entry's decryption ahead once
    (pieces.py), and the entries claimed by a read-ahead batch in flight
    (ahead.py), guarded by `progress`, whose waiters are readers waiting for one
    of them. It also keeps the entries made (entry()), weakly: one entry per
    file while anything uses it."""

    __slots__ = ("any_error", "starting", "claims", "progress", "_made", "_making")

    def __init__(self) -> None:
        self.any_error = False
        self.starting = threading.Lock()
        self.claims: dict = {}      # PakEntry -> True
        self.progress = threading.Condition()
        self._made: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self._making = threading.Lock()

    def entry(self, index: int, make: Callable[[], Any]) -> Any:
        """File `index`'s entry: the one in use, else make()'s, made once however
        many threads ask at the same time."""
        e = self._made.get(index)
        if e is None:
            with self._making:
                e = self._made.get(index)
                if e is None:
                    e = self._made[index] = make()
        return e
