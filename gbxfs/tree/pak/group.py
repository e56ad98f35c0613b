"""What the entries of one open pak share (tree/pak/entry.py, pieces.py)."""
from __future__ import annotations

import threading


class EntryGroup:
    """What the entries of one archive share: whether any of them ever found an
    error (so that a folder need not look at each of its entries' while none
    did), and the lock that starts a compressed entry's decryption ahead once
    (pieces.py)."""

    __slots__ = ("any_error", "starting")

    def __init__(self) -> None:
        self.any_error = False
        self.starting = threading.Lock()
