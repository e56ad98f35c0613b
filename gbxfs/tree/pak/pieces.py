"""Large stored (not compressed) pak entries read by pieces, and the pieces
after a sequential reader's position decrypted in the background; a large
compressed entry's verifying pass fed by decryption in the background.

A stored entry decrypts at any offset, but the kernel asks for 128 KiB at a
time: each piece of CHUNK bytes is decrypted once and kept in the entry's
cache, so the kernel's next reads of it are answered without a worker thread
(PakEntry.read_cached), and prefetch_pieces/prefetch let the FUSE layer have
the next pieces decrypted on the other core while the current one is served
(decryption releases the GIL). A mixin of PakEntry (tree/pak/entry.py),
which provides the attributes used here.

A compressed entry is served only once one pass inflated all of it (zlib's
Adler-32 at the end): that pass decrypts and inflates in turn. Asked before
the pass (its first read), prefetch_pieces offers the pass's input: prefetch
then decrypts it piece by piece on another thread (DecryptAhead), a few
pieces ahead of the pass, which takes them instead of decrypting them
(PakEntry._plain): the same bytes, decrypted by the same call, while zlib
inflates the previous ones.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from gbxfs.formats.pak import CHUNK, IN_PIECE

if TYPE_CHECKING:
    from gbxfs.formats.pak import PakFileRecord
    from gbxfs.tree.pak.group import EntryGroup

# pieces after the one a sequential reader is in that are decrypted in the background
PREFETCH_PIECES = 2
PIECE_WAIT = 10.0    # seconds a read waits for a background piece before decrypting it itself


class StoredPieces:
    _pending: dict[int, _Claim]   # piece offset -> set when its background decryption ends
    # PakEntry's, which this is a mixin of (entry.py)
    rec: PakFileRecord
    size: int
    checked: bool
    error: str | None
    _cache: Any
    _token: object
    _kind: str | None
    _ahead: DecryptAhead | None
    _group: EntryGroup

    if TYPE_CHECKING:
        @property
        def kind(self) -> str: ...
        def _plain(self, offset: int, size: int) -> bytes: ...
        def _plain_range(self, offset: int, size: int) -> bytes: ...

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
            # being decrypted in the background; one only claimed is this read's (its task may
            # wait for the worker thread this read holds)
            if busy is not None and busy.started and busy.wait(PIECE_WAIT):
                piece = self._cache.get(key)
            if piece is None:
                piece = self._plain(at, min(CHUNK, self.size - at))
                self._cache.put(key, piece, len(piece))
        return piece

    # False: the entry's _plain does not take DecryptAhead's pieces (version 6+ packs)
    decrypt_ahead = True

    def prefetch_pieces(self, offset: int) -> list[int]:
        """The pieces of a large verified stored entry worth decrypting in the
        background when a reader has reached `offset` (event loop): the piece
        there and the PREFETCH_PIECES after it that are neither cached nor
        under way; for a large compressed entry not verified yet (not known to
        be a GBX), [0] once: its verifying pass's input. They are claimed: call prefetch() for each."""
        if self.rec.compressed:
            ahead = not self.checked and self._ahead is None and self.decrypt_ahead and self.size > CHUNK
            return [0] if ahead and self._kind != "gbx" else []
        if not self.checked or self.error or self._kind != "raw" \
                or not self._pieces_wanted():
            return []
        out = []
        first = offset - offset % CHUNK
        for at in range(first, min(self.size, first + (PREFETCH_PIECES + 1) * CHUNK), CHUNK):
            if at not in self._pending and self._cache.get((self._token, at)) is None:
                self._pending[at] = _Claim()
                out.append(at)
        return out

    def prefetch(self, at: int) -> None:
        """Decrypt the piece at `at` into the cache (worker thread; claimed by
        prefetch_pieces); a compressed entry's: its verifying pass's input."""
        if self.rec.compressed:
            self._decrypt_ahead()
            return
        claim = self._pending.get(at)
        if claim is None:
            return      # not claimed (a file's first read asks before knowing its kind): read as asked
        claim.started = True
        try:
            key = (self._token, at)
            if self._cache.get(key) is None:
                piece = self._plain(at, min(CHUNK, self.size - at))
                self._cache.put(key, piece, len(piece))
        finally:
            busy = self._pending.pop(at, None)
            if busy is not None:
                busy.set()

    def _decrypt_ahead(self) -> None:
        """Decrypt the verifying pass's input ahead of it, until the pass is
        over (a large compressed raw entry not verified yet; worker thread)."""
        if self.checked or not self.decrypt_ahead or self.size <= CHUNK:
            return
        ahead = DecryptAhead(self._plain_range, self.rec.stored_size, lambda: not self.checked)
        with self._group.starting:
            if self._ahead is not None:
                return
            self._ahead = ahead     # first: the pass may start meanwhile
        if self.kind != "raw":
            ahead.stop()            # a GBX entry's pass decrypts as it parses
            return
        ahead.run()     # the pass stops it when over (PakEntry._verify); what is left is the pass's


class _Claim(threading.Event):
    """A piece claimed for the background: set when done; `started` once a worker has it."""

    started = False


class DecryptAhead:
    """The plain bytes of a stream's IN_PIECE pieces from its start, decrypted
    by run() (a thread of its own) at most DEPTH pieces ahead of the one
    take() was last asked for. take() hands over a piece decrypted or under
    way (waiting for it); a piece run() has not started is the caller's to
    decrypt (None), and run() goes on after it: the two then share the
    decryption. Pieces are decrypted by the same call as the caller's
    (`plain_at`), so they are the same bytes."""

    DEPTH = 8
    IDLE = 1.0      # seconds between two looks at `wanted` while the caller does not move

    def __init__(self, plain_at, size: int, wanted=lambda: True):
        self._plain_at, self._size, self._wanted = plain_at, size, wanted
        self._cond = threading.Condition()
        self._ready: dict[int, bytes] = {}
        self._next = 0          # the first piece run() has not started
        self._used = 0          # where the caller is: pieces before it are not wanted
        self._done = False      # stopped, or failed: take() gives nothing more

    def run(self) -> None:
        cond = self._cond
        while True:
            with cond:
                while not self._done and self._next - self._used >= self.DEPTH * IN_PIECE:
                    if not cond.wait(self.IDLE) and not self._wanted():
                        self._done = True       # verified another way meanwhile: nobody will take them
                at = self._next
                if self._done:
                    self._ready.clear()
                if self._done or at >= self._size:
                    return
                self._next = at + min(IN_PIECE, self._size - at)
            try:
                data = self._plain_at(at, self._next - at)
            except Exception:  # noqa: BLE001 - the caller's own decryption reports it
                self.stop()
                return
            with cond:
                if at >= self._used and not self._done:
                    self._ready[at] = data
                cond.notify_all()

    def take(self, at: int, n: int) -> bytes | None:
        """The piece at `at` (`n` bytes), or None: the caller decrypts it."""
        if at % IN_PIECE or n != min(IN_PIECE, self._size - at):
            return None
        with self._cond:
            while True:
                data = self._ready.pop(at, None)
                if data is None and self._used <= at < self._next and not self._done:
                    self._cond.wait()       # under way
                    continue
                self._used = max(self._used, at + n)
                self._next = max(self._next, self._used)
                self._cond.notify_all()
                return data

    def stop(self) -> None:
        with self._cond:
            self._done = True
            self._ready.clear()
            self._cond.notify_all()


class NoCache:
    """Stands in for a cache when none is given: keeps nothing."""

    keeps = False   # read-through pieces would only be copies (pieces.py)

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def put(self, key: Any, value: Any, nbytes: int) -> None:
        pass

    def discard(self, key: Any) -> None:
        pass

    def take(self, key: Any, default: Any = None) -> Any:
        return default
