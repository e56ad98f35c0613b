"""Random access into a large zlib-compressed entry with bounded memory.

zlib cannot start mid-stream, so one verifying pass over the whole entry
keeps checkpoints: a copy of the decompressor (about 40 KiB: its state and
32 KiB window) every CHECKPOINT bytes of output, with the compressed offset
it resumes from. A read then inflates from the nearest checkpoint; the
output is handled in CHUNK-sized pieces that callers may cache.

Nothing is served before the pass has reached the end of the zlib stream
with a matching Adler-32 and the declared size: a corrupt tail must not
make earlier bytes look trustworthy.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from gbxfs.formats.pak.errors import PakError

CHUNK = 1 << 20           # output piece size (cache unit)
CHECKPOINT = 4 * CHUNK    # output distance between decompressor copies (at least)
MAX_CHECKPOINTS = 256     # beyond 1 GiB of output the distance grows: memory stays ~10 MiB
IN_PIECE = 1 << 18        # compressed bytes decrypted per step

PlainAt = Callable[[int, int], bytes]   # (offset, size) -> compressed plain bytes


@dataclass(frozen=True)
class _Checkpoint:
    out_pos: int
    in_pos: int
    z: Any   # zlib decompressobj, copied again before every use


class SeekableInflate:
    """The `size` inflated bytes of a `stored_size`-byte zlib stream."""

    def __init__(self, plain_at: PlainAt, stored_size: int, size: int):
        self._plain_at = plain_at
        self.stored_size = stored_size
        self.size = size
        self._checkpoints: list[_Checkpoint] = []
        self.verified = False
        self.spacing = max(CHECKPOINT, -(-size // (MAX_CHECKPOINTS * CHUNK)) * CHUNK)

    def _run(self, cp: _Checkpoint, stop: int, record: bool) -> Iterator[tuple[int, bytes]]:
        """Inflate from `cp`, yielding (offset, piece) for each CHUNK-aligned
        piece of output, up to `stop`; with `record`, keep checkpoints."""
        z = cp.z.copy()
        out_pos, in_pos = cp.out_pos, cp.in_pos
        pending = b""
        parts: list[bytes] = []
        piece_start = out_pos
        while out_pos < stop:
            if not pending and in_pos < self.stored_size:
                pending = self._plain_at(in_pos, min(IN_PIECE, self.stored_size - in_pos))
                in_pos += len(pending)
            want = min(CHUNK - out_pos % CHUNK, stop - out_pos)
            fed = len(pending)
            try:
                out = z.decompress(pending, want)
            except zlib.error as e:
                raise PakError(f"zlib data is corrupt after {out_pos} bytes: {e}") from None
            pending = z.unconsumed_tail
            if out:
                parts.append(out)
                out_pos += len(out)
            elif len(pending) == fed and (fed or in_pos >= self.stored_size):
                break  # input exhausted, or zlib makes no progress: nothing more will come
            if out_pos % CHUNK == 0 or out_pos == stop or z.eof:
                if parts:
                    yield piece_start, b"".join(parts)
                parts, piece_start = [], out_pos
                if record and out_pos % self.spacing == 0 and out_pos < stop and not z.eof:
                    self._checkpoints.append(_Checkpoint(out_pos, in_pos - len(pending), z.copy()))
            if z.eof:
                break
        if parts:
            yield piece_start, b"".join(parts)
        if record:
            self._finish(z, out_pos, pending, in_pos)

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
        PakError at the point the stream proves bad. With `index`, keeps the
        checkpoints for later random access (a one-off extraction does not
        need them: later reads then inflate from the start)."""
        self._checkpoints = [_Checkpoint(0, 0, zlib.decompressobj())]
        self.verified = False
        yield from self._run(self._checkpoints[0], self.size, record=True)
        if not index:
            del self._checkpoints[1:]

    def pieces(self, offset: int, end: int) -> Iterator[tuple[int, bytes]]:
        """CHUNK-aligned pieces from the checkpoint nearest before `offset` up to
        the piece holding `end - 1` (callers cache them all)."""
        if not self.verified:
            raise PakError("entry has not been verified")
        end = min(end, self.size)
        if offset >= end:
            return
        end = min(self.size, -(-end // CHUNK) * CHUNK)  # whole pieces only: callers cache them
        cp = self._checkpoints[min(offset // self.spacing, len(self._checkpoints) - 1)]
        yield from self._run(cp, end, record=False)
