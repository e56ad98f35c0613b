"""What the entries of one open pak share (tree/pak/entry.py, pieces.py, ahead.py)."""
from __future__ import annotations

import threading


class EntryGroup:
    """What the entries of one archive share: whether any of them ever found an
    error (so that a folder need not look at each of its entries' while none
    did), the lock that starts a compressed entry's decryption ahead once
    (pieces.py), and the entries claimed by a read-ahead batch in flight
    (ahead.py), guarded by `progress`, whose waiters are readers waiting for one
    of them."""

    __slots__ = ("any_error", "starting", "claims", "progress")

    def __init__(self) -> None:
        self.any_error = False
        self.starting = threading.Lock()
        self.claims: dict = {}      # PakEntry -> True
        self.progress = threading.Condition()
