"""Large stored (not compressed) pak entries read by pieces, and the pieces
after a sequential reader's position decrypted in the background.

A stored entry decrypts at any offset, but the kernel asks for 128 KiB at a
time: each piece of CHUNK bytes is decrypted once and kept in the entry's
cache, so the kernel's next reads of it are answered without a worker thread
(PakEntry.read_cached), and prefetch_pieces/prefetch let the FUSE layer have
the next pieces decrypted on the other core while the current one is served
(decryption releases the GIL). A mixin of PakEntry (formats/pak/entry.py),
which provides the attributes used here.
"""
from __future__ import annotations

import threading
from typing import Any

from gbxfs.formats.pak.seekinflate import CHUNK

# pieces after the one a sequential reader is in that are decrypted in the background
PREFETCH_PIECES = 2
PIECE_WAIT = 10.0    # seconds a read waits for a background piece before decrypting it itself


class StoredPieces:
    _pending: dict[int, threading.Event]   # piece offset -> set when its background decryption ends

    def _pieces_wanted(self) -> bool:
        """Pieces only for a large stored entry with a cache to keep them in."""
        return self.size > CHUNK and getattr(self._cache, "keeps", True)

    def _read_stored(self, offset: int, end: int) -> bytes:
        """A stored entry's bytes; a large one by CHUNK pieces, each decrypted
        once and kept in the cache: the kernel's next reads of the piece are
        then answered by read_cached (no worker thread)."""
        if not self._pieces_wanted():
            return self._plain(offset, end - offset)
        first = at = offset - offset % CHUNK
        parts = []
        while at < end:
            piece = self._stored_piece(at)
            parts.append(piece)
            at += len(piece)
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        return data[offset - first : end - first]

    def _stored_piece(self, at: int) -> bytes:
        key = (self._token, at)
        piece = self._cache.get(key)
        if piece is None:
            busy = self._pending.get(at)
            if busy is not None and busy.wait(PIECE_WAIT):   # being decrypted in the background
                piece = self._cache.get(key)
            if piece is None:
                piece = self._plain(at, min(CHUNK, self.size - at))
                self._cache.put(key, piece, len(piece))
        return piece

    def prefetch_pieces(self, offset: int) -> list[int]:
        """The pieces of a large verified stored entry worth decrypting in the
        background when a reader has reached `offset` (event loop): the piece
        there and the PREFETCH_PIECES after it that are neither cached nor
        under way. They are claimed: call prefetch() for each."""
        if not self.checked or self.error or self.rec.compressed or self._kind != "raw" \
                or not self._pieces_wanted():
            return []
        out = []
        first = offset - offset % CHUNK
        for at in range(first, min(self.size, first + (PREFETCH_PIECES + 1) * CHUNK), CHUNK):
            if at not in self._pending and self._cache.get((self._token, at)) is None:
                self._pending[at] = threading.Event()
                out.append(at)
        return out

    def prefetch(self, at: int) -> None:
        """Decrypt the piece at `at` into the cache (worker thread; claimed by prefetch_pieces)."""
        try:
            key = (self._token, at)
            if self._cache.get(key) is None:
                piece = self._plain(at, min(CHUNK, self.size - at))
                self._cache.put(key, piece, len(piece))
        finally:
            busy = self._pending.pop(at, None)
            if busy is not None:
                busy.set()


class NoCache:
    """Stands in for a cache when none is given: keeps nothing."""

    keeps = False   # read-through pieces would only be copies (pieces.py)

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def put(self, key: Any, value: Any, nbytes: int) -> None:
        pass

    def discard(self, key: Any) -> None:
        pass
