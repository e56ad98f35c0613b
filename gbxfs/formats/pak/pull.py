"""Exact reads from a buffer that is refilled only once it is empty.

The pull sources the pak layer hands to parsers (`read(n)`: exactly n bytes
or Truncated; `remaining`) all work this way: PageReader refills with one
decrypted page, GameInflater with the game's zlib output buffer. When a
refill happens decides on which page an ivXor feed lands, so a source must
never fetch ahead of what the parser asks for (fetch_through: only bytes the
parser will read before any feed, whatever they hold).
"""
from __future__ import annotations

from gbxfs.formats.gbx.errors import Truncated


class RefillingSource:
    """Pull source over the first `size` bytes of what `_refill` produces."""

    _dry = "data ends"   # Truncated message when a refill brings nothing: "<_dry> N bytes short"

    def __init__(self, size: int):
        self.size = size
        self.consumed = 0
        self._buf = b""
        self._off = 0

    @property
    def remaining(self) -> int:
        return self.size - self.consumed

    def _refill(self) -> bytes:
        """The next piece (b"" when nothing more comes)."""
        raise NotImplementedError

    def take_buffered(self) -> bytes:
        """The rest of the buffer at hand (b"" if none), consumed, nothing
        refilled: for a parser of many small records, which parses them from it
        itself (header.py's folder table); give_back() returns what it did not
        parse, fetch_through() or read() bring more."""
        out = self._buf[self._off:self._off + self.size - self.consumed]
        self._off += len(out)
        self.consumed += len(out)
        return out

    def fetch_through(self, n: int) -> None:
        """Have the next `n` bytes (as many as are left, at most) in the buffer at
        hand, refilling now as often as they need: for a parser that knows they
        are all read before anything changes what a refill brings (a feed)."""
        want = min(n, self.size - self.consumed)
        pieces = [self._buf[self._off:]]
        have = len(pieces[0])
        while have < want:
            piece = self._refill()
            if not piece:
                break
            pieces.append(piece)
            have += len(piece)
        if len(pieces) > 1:
            self._buf, self._off = b"".join(pieces), 0

    def give_back(self, n: int) -> None:
        """Unconsume the last `n` bytes take_buffered() handed out (nothing was read since)."""
        if not 0 <= n <= self._off:
            raise ValueError(f"cannot give back {n} bytes, {self._off} were taken from the buffer")
        self._off -= n
        self.consumed -= n

    def read(self, n: int) -> bytes:
        off = self._off
        end = off + n
        if 0 < n <= self.size - self.consumed and end <= len(self._buf):
            # the common case, asked per field of a header: all in the buffer at hand
            self._off = end
            self.consumed += n
            return self._buf[off:end]
        if n < 0 or n > self.size - self.consumed:
            raise Truncated(f"need {n} bytes, {self.size - self.consumed} left", offset=self.consumed)
        parts = []
        need = n
        while need:
            avail = len(self._buf) - self._off
            if not avail:
                self._buf, self._off = self._refill(), 0
                avail = len(self._buf)
                if not avail:
                    raise Truncated(f"{self._dry} {need} bytes short", offset=self.consumed)
            k = min(avail, need)
            parts.append(self._buf[self._off : self._off + k])
            self._off += k
            need -= k
        self.consumed += n
        return parts[0] if len(parts) == 1 else b"".join(parts)
