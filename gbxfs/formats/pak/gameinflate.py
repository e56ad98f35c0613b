"""The game's zlib buffering, reproduced exactly (docs/formats/pak.md).

The parser of an embedded GBX reads from a 0x400-byte output buffer. Only
when it is empty and more bytes are wanted is it refilled: while it is not
full, if zlib's input is empty read exactly one 0x100-byte page from the
decrypter, then inflate (Z_SYNC_FLUSH) into the remaining space. ivXor feeds
made while the buffer still holds bytes therefore land on a later page.
CPython's `decompress(data, max_length)` drives the real zlib the same way;
`unconsumed_tail` is zlib's leftover input (avail_in).
"""
from __future__ import annotations

import zlib

from gbxfs.formats.pak.cipher import PAGE
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.pull import RefillingSource

OUT_BUFFER = 0x400


class GameInflater(RefillingSource):
    """Pull source (`read(n)`, `remaining`) of the first `size` inflated bytes
    of a zlib stream pulled page by page from `stream` (fetch/feed). Every
    byte inflated is kept in `taken`."""

    _dry = "zlib data ends"

    def __init__(self, stream, size: int):
        super().__init__(size)
        self._stream = stream
        self._z = zlib.decompressobj()
        self._in = b""
        self.produced = 0      # bytes inflated so far (`consumed`: handed to the parser)
        self.taken = bytearray()
        self.input_done = False

    @property
    def eof(self) -> bool:
        """zlib saw the end of the stream (its Adler-32 matched, else it raised)."""
        return self._z.eof

    def _refill(self) -> bytes:
        """Fill the output buffer as the game does (see the module docstring)."""
        z = self._z
        parts = []
        space = OUT_BUFFER
        while space and not z.eof:
            if not self._in:
                self._in = self._stream.fetch(PAGE)
                if not self._in:
                    self.input_done = True
            fed = len(self._in)
            try:
                out = z.decompress(self._in, space)
            except zlib.error as e:
                raise PakError(f"zlib data is corrupt after {self.produced} bytes: {e}") from None
            self._in = z.unconsumed_tail
            if not out and fed and len(self._in) == fed:
                raise PakError("zlib made no progress")  # never seen; guards against a spin
            if out:
                parts.append(out)
                space -= len(out)
                self.produced += len(out)
                if self.produced > self.size:
                    raise PakError(f"entry inflates beyond its declared {self.size} bytes")
            elif self.input_done:
                break  # no input left and zlib has nothing more to give
        out = b"".join(parts)
        self.taken += out
        return out

    def drain(self) -> None:
        """Inflate the rest of the stream (after the parse) so that its end and
        Adler-32 are checked; the bytes join `taken`."""
        self._buf, self._off = b"", 0
        while not self._z.eof:
            before = self.produced
            self._refill()
            if self.produced == before and not self._z.eof:
                break
        self.consumed = self.produced
