"""Encrypted streams of a pak and the exact-read source over them.

Every encrypted region of a pak (header, each entry, metadata) is one CBC
stream: an 8-byte plain IV, then ciphertext. Parsers pull it in 0x100-byte
pages (`fetch`) because the ivXor fold lands at page starts at fetch time.

Two streams share that interface: `EncryptedStream` decrypts pak bytes, and
`EncryptingStream` (used by the writer) encrypts known plaintext. Running the
same parse over the encrypting stream reproduces exactly when the reader
fetches each page, hence where each feed lands.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from gbxfs.formats.pak.cipher import BLOCK, PAGE, PakKey, align8, apply_folds
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.pull import RefillingSource

ReadAt = Callable[[int, int], bytes]
READ_AHEAD = 1 << 16   # ciphertext decrypted per call by EncryptedStream
# what a pak header's stream decrypts ahead first, doubling up to READ_AHEAD: its length
# is the rest of the file, and a small pak's whole header is a few pages
HEADER_AHEAD = 1 << 12


def read_exact(read_at: ReadAt, offset: int, size: int, what: str) -> bytes:
    data = read_at(offset, size) if size else b""
    if len(data) != size:
        raise PakError(f"pak truncated: {what} needs {size} bytes at {offset:#x}, got {len(data)}", offset)
    return data


class _CipherStream:
    """What both streams share: the position, the recorded ivXor folds and
    the feeds, all kept by their (de|en)crypter."""

    def __init__(self, cipher):
        self._cipher = cipher

    @property
    def pos(self) -> int:
        return self._cipher.pos

    @property
    def folds(self) -> dict[int, int]:
        return self._cipher.folds

    def feed(self, data: bytes) -> None:
        self._cipher.feed(data)


class EncryptedStream(_CipherStream):
    """Sequential decryption of the stream whose IV is at `start`, with
    `length` bytes of ciphertext (a multiple of 8) after it.

    Parsers fetch pages, but each page's decryption is not a call of its own:
    the stream decrypts up to READ_AHEAD bytes in one call and folds ivXor
    into each page when it is fetched, which is when the game applies it.
    `ahead`: what the first call decrypts at least, doubled per call up to
    READ_AHEAD (a stream whose end is far beyond what is read: a header)."""

    def __init__(self, read_at: ReadAt, key: PakKey, start: int, length: int, plain: bytes | None = None,
                 ahead: int = READ_AHEAD):
        super().__init__(key.decrypter(read_exact(read_at, start, BLOCK, "IV")))
        self._read_at = read_at
        self.start = start
        self.length = length
        self._step = ahead
        self._ahead = b""      # decrypted, not yet fetched, not yet folded
        self._at = 0
        if plain is not None and len(plain) == length and hasattr(self._cipher, "decrypt_ahead"):
            # the whole stream decrypted already (without folds): only the folds are left to do
            self._ahead = plain

    def fetch(self, n: int = PAGE) -> bytes:
        """The next min(n, left) plain bytes (b"" at the end)."""
        n = min(n, self.length - self.pos)
        if n <= 0:
            return b""
        if not hasattr(self._cipher, "decrypt_ahead"):
            # version 12+ chaining: a fold changes every later block, no decrypting ahead
            at = self.start + BLOCK + self.pos
            return self._cipher.decrypt(read_exact(self._read_at, at, n, "encrypted data"))
        if len(self._ahead) - self._at < n:
            left = self._ahead[self._at:]
            done = self.pos + len(left)           # ciphertext already decrypted
            need = n - len(left)
            k = min(max(need, self._step), self.length - done)
            self._step = min(2 * self._step, READ_AHEAD)
            raw = self._read_at(self.start + BLOCK + done, k)
            if len(raw) < need:    # only what is needed now must exist: report it as a plain read would
                raw = read_exact(self._read_at, self.start + BLOCK + done, need, "encrypted data")
            raw = raw[: len(raw) & ~(BLOCK - 1)]
            self._ahead, self._at = left + self._cipher.decrypt_ahead(raw), 0
        plain = self._ahead[self._at : self._at + n]
        self._at += n
        return self._cipher.fold(plain)


class EncryptingStream(_CipherStream):
    """The writer's twin of EncryptedStream: `fetch` hands out the next plain
    bytes and appends their ciphertext, folding ivXor exactly as a reader's
    fetch would unfold it."""

    def __init__(self, key: PakKey, iv: bytes, plain: bytes):
        super().__init__(key.encrypter(iv))
        self._plain = bytes(plain) + bytes(align8(len(plain)) - len(plain))
        self.length = len(self._plain)
        self.out = bytearray(iv)

    def fetch(self, n: int = PAGE) -> bytes:
        p = self.pos
        n = min(n, self.length - p)
        if n <= 0:
            return b""
        plain = self._plain[p : p + n]
        self.out += self._cipher.encrypt(plain)
        return plain

    def finish(self) -> bytes:
        """IV + ciphertext of the whole stream (fetching what nobody read)."""
        while self.fetch(1 << 20):
            pass
        return bytes(self.out)


class PageReader(RefillingSource):
    """Pull source (`read(n)`, `remaining`) over the first `size` plain bytes of
    a stream, fetching whole pages only when a byte of the next page is needed."""

    _dry = "encrypted data ends"

    def __init__(self, stream, size: int):
        super().__init__(size)
        self._stream = stream
        self._fetched = bytearray()

    def _refill(self) -> bytes:
        page = self._stream.fetch(PAGE)
        self._fetched += page
        return page

    def read_upto(self, n: int) -> bytes:
        """Up to `n` next bytes (b"" at the end; fewer at the end of a piece),
        decrypted in pieces of about `n` bytes rather than page by page. Only for
        what follows the last feed (the rest of a header): bytes read this way
        are not kept for `taken`."""
        n = min(n, self.size - self.consumed)
        if n <= 0:
            return b""
        if self._off >= len(self._buf):
            self._buf, self._off = self._stream.fetch(-(-n // PAGE) * PAGE), 0
        out = self._buf[self._off:self._off + n]
        self._off += len(out)
        self.consumed += len(out)
        return out

    @property
    def taken(self) -> bytes:
        """Every byte handed out so far (the entry's original bytes): the
        fetched pages up to what was read."""
        return bytes(self._fetched[: self.consumed])


def plain_range(read_at: ReadAt, key: PakKey, start: int, length: int, offset: int, size: int,
                folds: Sequence[tuple[int, int]] = ()) -> bytes:
    """Plain bytes [offset, offset+size) of a stream (IV at `start`, `length`
    ciphertext bytes), decrypted at random: CBC needs only the ciphertext
    block before `offset`. Recorded ivXor folds are re-applied."""
    end = min(offset + size, length)
    if offset >= end:
        return b""
    lo = offset & ~(BLOCK - 1)
    hi = align8(end)
    prev_at = start + lo  # the IV when lo == 0, else the previous ciphertext block
    raw = read_exact(read_at, prev_at, BLOCK + hi - lo, "encrypted data")
    plain = key.decrypter(raw[:BLOCK], pos=lo).decrypt(raw[BLOCK:])
    plain = apply_folds(plain, lo, folds)
    return plain[offset - lo : end - lo]
