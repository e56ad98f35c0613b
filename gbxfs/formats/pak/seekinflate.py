"""Random access into a large zlib-compressed entry with bounded memory.

zlib cannot start mid-stream, so one verifying pass over the whole entry
makes checkpoints: a copy of the decompressor (about 40 KiB: its state and
32 KiB window) every `spacing` bytes of output, with the compressed offset
it resumes from. A read then inflates from the nearest checkpoint; the
output is handled in CHUNK-sized pieces that callers may cache.

Checkpoints live in the byte-bounded cache the inflater is given, never on
the inflater: an archive's entries together would otherwise keep ~1% of
everything ever read. A read resumes from the nearest checkpoint that
survived eviction (the start of the stream at worst) and puts back every
missing one it passes, so an evicted set is rebuilt by the reads that need it.

Nothing is served before the pass has reached the end of the zlib stream
with a matching Adler-32 and the declared size: a corrupt tail must not
make earlier bytes look trustworthy.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gbxfs.formats.pak.errors import PakError

CHUNK = 1 << 20           # output piece size (cache unit)
CHECKPOINT = 4 * CHUNK    # output distance between decompressor copies (at least)
MAX_CHECKPOINTS = 256     # beyond 1 GiB of output the distance grows: memory stays ~10 MiB
IN_PIECE = 1 << 18        # compressed bytes decrypted per step
FEED = 1 << 14            # compressed bytes handed to zlib per call: a decompressor copy keeps
                          # its unconsumed input alive, so a checkpoint pins at most this much
CHECKPOINT_COST = 41 << 10   # a decompressor copy, measured with tracemalloc (40.1 KiB), plus
                             # the record; its unconsumed input is charged on top

PlainAt = Callable[[int, int], bytes]   # (offset, size) -> compressed plain bytes


@dataclass(frozen=True)
class _Checkpoint:
    out_pos: int
    in_pos: int
    z: Any   # zlib decompressobj, copied again before every use


class SeekableInflate:
    """The `size` inflated bytes of a `stored_size`-byte zlib stream.
    `cache` (get/put(key, value, nbytes), e.g. ByteLRU) keeps the checkpoints
    under keys starting with `token`; without one, reads inflate from the start."""

    def __init__(self, plain_at: PlainAt, stored_size: int, size: int, cache: Any = None, token: Any = None):
        self._plain_at = plain_at
        self.stored_size = stored_size
        self.size = size
        self._cache = cache
        self._token = token if token is not None else object()
        self.verified = False
        self.spacing = max(CHECKPOINT, -(-size // (MAX_CHECKPOINTS * CHUNK)) * CHUNK)

    # -- checkpoints ----------------------------------------------------------------
    def _key(self, out_pos: int) -> tuple:
        return (self._token, "checkpoint", out_pos)

    def _keep(self, out_pos: int, in_pos: int, z: Any) -> None:
        if self._cache is None or self._cache.get(self._key(out_pos)) is not None:
            return
        cp = _Checkpoint(out_pos, in_pos, z.copy())
        self._cache.put(self._key(out_pos), cp, CHECKPOINT_COST + len(z.unconsumed_tail) + len(z.unused_data))

    def _nearest(self, offset: int) -> _Checkpoint:
        """The surviving checkpoint nearest before `offset` (the stream start at worst)."""
        if self._cache is not None:
            for k in range(min(offset // self.spacing, MAX_CHECKPOINTS + 1), 0, -1):
                cp = self._cache.get(self._key(k * self.spacing))
                if cp is not None:
                    return cp
        return _Checkpoint(0, 0, zlib.decompressobj())

    def checkpoints(self) -> int:
        """How many checkpoints are cached now (tests, info)."""
        if self._cache is None:
            return 0
        n = -(-self.size // self.spacing)
        return sum(self._cache.get(self._key(k * self.spacing)) is not None for k in range(1, n))

    # -- inflating ------------------------------------------------------------------
    def _run(self, cp: _Checkpoint, stop: int, index: bool, verify: bool) -> Iterator[tuple[int, bytes]]:
        """Inflate from `cp`, yielding (offset, piece) for each CHUNK-aligned
        piece of output, up to `stop`; with `index`, cache the checkpoints
        passed; with `verify`, check the stream's end afterwards."""
        z = cp.z.copy()
        out_pos, in_pos = cp.out_pos, cp.in_pos
        buf, at = b"", 0            # decrypted input, and how much of it zlib consumed
        parts: list[bytes] = []
        piece_start = out_pos
        while out_pos < stop:
            if at == len(buf) and in_pos < self.stored_size:
                buf, at = self._plain_at(in_pos, min(IN_PIECE, self.stored_size - in_pos)), 0
                in_pos += len(buf)
            want = min(CHUNK - out_pos % CHUNK, stop - out_pos)
            fed = min(FEED, len(buf) - at)
            try:
                out = z.decompress(memoryview(buf)[at:at + fed], want)
            except zlib.error as e:
                raise PakError(f"zlib data is corrupt after {out_pos} bytes: {e}") from None
            used = fed - len(z.unconsumed_tail)
            at += used
            if out:
                parts.append(out)
                out_pos += len(out)
            elif not used and (fed or in_pos >= self.stored_size):
                break  # input exhausted, or zlib makes no progress: nothing more will come
            if out_pos % CHUNK == 0 or out_pos == stop or z.eof:
                if parts:
                    yield piece_start, b"".join(parts)
                parts, piece_start = [], out_pos
                if index and out_pos % self.spacing == 0 and out_pos < self.size and not z.eof:
                    self._keep(out_pos, in_pos - (len(buf) - at), z)
            if z.eof:
                break
        if parts:
            yield piece_start, b"".join(parts)
        if verify:
            self._finish(z, out_pos, buf[at:], in_pos)

    def _finish(self, z: Any, out_pos: int, pending: bytes, in_pos: int) -> None:
        """After `size` bytes: the rest of the input must end the stream (the
        Adler-32 trailer) without producing another byte."""
        while not z.eof:
            if not pending:
                if in_pos >= self.stored_size:
                    break
                pending = self._plain_at(in_pos, min(IN_PIECE, self.stored_size - in_pos))
                in_pos += len(pending)
            fed = len(pending)
            try:
                extra = z.decompress(pending, 1)
            except zlib.error as e:
                raise PakError(f"zlib data is corrupt after {out_pos} bytes: {e}") from None
            if extra:
                raise PakError(f"entry inflates beyond its declared {self.size} bytes")
            pending = z.unconsumed_tail
            if len(pending) == fed:
                break
        if not z.eof:
            raise PakError(f"zlib stream ends early ({out_pos} of {self.size} bytes, no Adler-32 check)")
        if out_pos != self.size:
            raise PakError(f"entry inflates to {out_pos} bytes, the file table says {self.size}")
        self.verified = True

    def verify_pass(self, index: bool = True) -> Iterator[tuple[int, bytes]]:
        """The one sequential pass: yields (offset, piece) in order and raises
        PakError at the point the stream proves bad. With `index`, caches the
        checkpoints for later random access (a one-off extraction does not
        need them: later reads then inflate from the start)."""
        self.verified = False
        yield from self._run(_Checkpoint(0, 0, zlib.decompressobj()), self.size, index, verify=True)

    def pieces(self, offset: int, end: int) -> Iterator[tuple[int, bytes]]:
        """CHUNK-aligned pieces from the checkpoint nearest before `offset` up to
        the piece holding `end - 1` (callers cache them all)."""
        if not self.verified:
            raise PakError("entry has not been verified")
        end = min(end, self.size)
        if offset >= end:
            return
        end = min(self.size, -(-end // CHUNK) * CHUNK)  # whole pieces only: callers cache them
        yield from self._run(self._nearest(offset), end, index=True, verify=False)
