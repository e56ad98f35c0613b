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

from typing import Callable

from gbxfs.formats.gbx.errors import Truncated
from gbxfs.formats.pak.cipher import BLOCK, PAGE, PakKey, align8, apply_folds
from gbxfs.formats.pak.errors import PakError

ReadAt = Callable[[int, int], bytes]


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
    `length` bytes of ciphertext (a multiple of 8) after it."""

    def __init__(self, read_at: ReadAt, key: PakKey, start: int, length: int):
        super().__init__(key.decrypter(read_exact(read_at, start, BLOCK, "IV")))
        self._read_at = read_at
        self.start = start
        self.length = length

    def fetch(self, n: int = PAGE) -> bytes:
        """The next min(n, left) plain bytes (b"" at the end)."""
        n = min(n, self.length - self.pos)
        if n <= 0:
            return b""
        at = self.start + BLOCK + self.pos
        return self._cipher.decrypt(read_exact(self._read_at, at, n, "encrypted data"))


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


class PageReader:
    """Pull source (`read(n)`, `remaining`) over the first `size` plain bytes of
    a stream, fetching whole pages only when a byte of the next page is needed.
    Every byte handed out is kept in `taken` (the entry's original bytes)."""

    def __init__(self, stream, size: int, keep: bool = True):
        self._stream = stream
        self._buf = b""
        self._off = 0
        self.size = size
        self.consumed = 0
        self.taken = bytearray() if keep else None

    @property
    def remaining(self) -> int:
        return self.size - self.consumed

    def read(self, n: int) -> bytes:
        if n < 0 or n > self.size - self.consumed:
            raise Truncated(f"need {n} bytes, {self.size - self.consumed} left", offset=self.consumed)
        parts = []
        need = n
        while need:
            avail = len(self._buf) - self._off
            if not avail:
                self._buf = self._stream.fetch(PAGE)
                self._off = 0
                avail = len(self._buf)
                if not avail:
                    raise Truncated(f"encrypted data ends {need} bytes short", offset=self.consumed)
            k = min(avail, need)
            parts.append(self._buf[self._off : self._off + k])
            self._off += k
            need -= k
        data = parts[0] if len(parts) == 1 else b"".join(parts)
        self.consumed += n
        if self.taken is not None:
            self.taken += data
        return data


def plain_range(read_at: ReadAt, key: PakKey, start: int, length: int, offset: int, size: int,
                folds: list[tuple[int, int]] = ()) -> bytes:
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
