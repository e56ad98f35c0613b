"""Nadeo's little-endian Blowfish-CBC with the ivXor twist (docs/formats/pak.md).

The game's Blowfish reads key and blocks as little-endian 32-bit words; a
standard (big-endian) Blowfish gives the same result when every 4-byte group
is byte-reversed before and after. pycryptodome's CBC mode does the chaining
at C speed: CBC commutes with that reversal because XOR is bytewise.

The twist: a 64-bit `ivXor`, changed only by `feed()`, is folded into the IV
of the first block of each 0x100-byte page of ciphertext (pages counted from
the first byte after the 8-byte plain IV) at the moment that block is
fetched, then reset to zero. Because the stateful CBC objects chain on
ciphertext, the fold is a fix-up of the first plain block of the page:
plain = D(C) ^ prev ^ ivXor.
"""
from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from typing import Any

from Crypto.Cipher import Blowfish
from Crypto.Util.strxor import strxor

BLOCK = 8
PAGE = 0x100
_MASK64 = (1 << 64) - 1

if array("I").itemsize != 4:  # pragma: no cover - every mainstream platform has 4-byte 'I'
    raise ImportError("gbxfs.formats.pak.cipher needs a 4-byte array('I')")


def swap32(data: bytes | bytearray) -> bytes:
    """Byte-reverse every 4-byte group (len(data) must be a multiple of 4)."""
    words = array("I", data)
    words.byteswap()
    return words.tobytes()


def calc_ivxor(ivxor: int, data: bytes) -> int:
    """Fold `data` into ivXor: per byte, rotate the 64-bit value left by 13
    and XOR (byte | 0xAA) into it (per unsigned byte; docs/formats/pak.md)."""
    for b in data:
        ivxor = (((ivxor << 13) | (ivxor >> 51)) & _MASK64) ^ (b | 0xAA)
    return ivxor


def _xor8(block: bytes | bytearray, value: int) -> bytes:
    return (int.from_bytes(block, "little") ^ value).to_bytes(BLOCK, "little")


class PakKey:
    """A pak's 16-byte Blowfish key, ready to make stream (de|en)crypters."""

    def __init__(self, key: bytes):
        if len(key) % 4 or not 4 <= len(key) <= 56:
            raise ValueError(f"Blowfish key must be 4..56 bytes, a multiple of 4 (got {len(key)})")
        self.key = bytes(key)
        self._swapped = swap32(key)
        # Blowfish's key schedule costs ~250 us, more than decrypting a small
        # entry: decryption runs CBC itself over one ECB object per key (ECB
        # decryption of a whole buffer, then one XOR with the shifted ciphertext:
        # two C calls, both releasing the GIL). An ECB object keeps no state
        # between calls (its key schedule is only read), so threads share it.
        self._ecb: Any = None

    def _cbc(self, iv: bytes):
        return Blowfish.new(self._swapped, Blowfish.MODE_CBC, iv=swap32(iv))

    def ecb(self):
        """The key's ECB object (Blowfish's big-endian words: feed it swap32'd blocks),
        made on first use. Two threads making it at once make two equal ones, and
        the last kept replaces the other: no lock needed."""
        e = self._ecb
        if e is None:
            e = self._ecb = Blowfish.new(self._swapped, Blowfish.MODE_ECB)
        return e

    def cbc_decrypt(self, prev: bytes, cipher: bytes) -> bytes:
        """CBC-decrypt `cipher` (a multiple of 8 bytes) whose previous
        ciphertext block (or IV) is `prev`, without ivXor folds."""
        if not cipher:
            return b""
        raw = bytearray(len(cipher))
        self.ecb().decrypt(swap32(cipher), output=raw)
        return strxor(swap32(raw), prev + cipher[:-BLOCK] if len(cipher) > BLOCK else prev)

    def decrypter(self, iv: bytes, pos: int = 0) -> Decrypter:
        """A CBC stream starting after `iv` (8 bytes: the plain IV, or the
        ciphertext block before `pos` when resuming mid-stream)."""
        return Decrypter(_Chain(self, iv), pos)

    def encrypter(self, iv: bytes) -> Encrypter:
        return Encrypter(_LazyCbc(self, iv))


class _LazyCbc:
    """A CBC encrypter made on the first encrypt: the writer makes one stream
    per entry, and the key schedule (~250 us) would dominate writing a pak of
    a million empty entries, which encrypt nothing."""

    __slots__ = ("_key", "_iv", "_cbc")

    def __init__(self, key: PakKey, iv: bytes):
        self._key, self._iv = key, iv
        self._cbc: Any = None

    def encrypt(self, plain: bytes) -> bytes:
        if self._cbc is None:
            self._cbc = self._key._cbc(self._iv)
        return self._cbc.encrypt(plain)


class _Chain:
    """CBC decryption state of one stream over its key's shared ECB: the last
    ciphertext block seen (the same interface as a pycryptodome CBC object)."""

    __slots__ = ("_key", "_prev")

    def __init__(self, key: PakKey, iv: bytes):
        self._key = key
        self._prev = bytes(iv)

    def decrypt(self, cipher: bytes) -> bytes:
        out = self._key.cbc_decrypt(self._prev, cipher)
        if cipher:
            self._prev = cipher[-BLOCK:]
        return out


class _Stream:
    __slots__ = ("_cbc", "pos", "ivxor", "folds")

    def __init__(self, cbc, pos: int = 0):
        self._cbc = cbc
        self.pos = pos      # ciphertext bytes processed since the IV
        self.ivxor = 0
        # stream offset of each block that received a non-zero ivXor -> the value;
        # enough to re-decrypt the stream later at random offsets without re-parsing
        self.folds: dict[int, int] = {}

    def feed(self, data: bytes) -> None:
        self.ivxor = calc_ivxor(self.ivxor, data)

    def _fold(self, plain: bytes) -> bytes:
        """`plain` (the next bytes of the stream) with the pending ivXor folded
        into the first block of the page it lands on, if it lands in them;
        records the fold and advances `pos`. Decrypting and encrypting both
        apply it to the plaintext side (P = D(C) ^ prev ^ ivXor)."""
        at = -self.pos % PAGE
        if self.ivxor and at < len(plain):
            self.folds[self.pos + at] = self.ivxor
            plain = plain[:at] + _xor8(plain[at : at + BLOCK], self.ivxor) + plain[at + BLOCK :]
            self.ivxor = 0
        self.pos += len(plain)
        return plain


class Decrypter(_Stream):
    """Sequential decryption of one CBC stream; the caller supplies ciphertext."""

    __slots__ = ()

    def decrypt(self, cipher: bytes) -> bytes:
        return self.fold(self.decrypt_ahead(cipher))

    def decrypt_ahead(self, cipher: bytes) -> bytes:
        """The next ciphertext's plain bytes without the ivXor fold and without
        advancing `pos`: a reader decrypting ahead hands them to fold() page by
        page, at the moment each page is fetched (the fold touches only the
        first plain block of a page)."""
        if len(cipher) % BLOCK:
            raise ValueError("ciphertext length must be a multiple of 8")
        return self._cbc.decrypt(cipher)

    def fold(self, plain: bytes) -> bytes:
        """Plain bytes from decrypt_ahead, in order, as fetched: the pending fold applied."""
        return self._fold(plain)


class Encrypter(_Stream):
    """The inverse of Decrypter: the same ivXor fold, applied to the plaintext
    before chaining (C = E(P ^ prev ^ ivXor))."""

    __slots__ = ()

    def encrypt(self, plain: bytes) -> bytes:
        if len(plain) % BLOCK:
            raise ValueError("plaintext length must be a multiple of 8")
        return swap32(self._cbc.encrypt(swap32(self._fold(plain))))


def apply_folds(plain: bytes, offset: int, folds: Sequence[tuple[int, int]]) -> bytes:
    """XOR recorded ivXor folds (sorted (stream offset, value) pairs) into
    `plain`, which starts at stream offset `offset` (8-aligned) and was
    decrypted without them."""
    if not folds:
        return plain
    end = offset + len(plain)
    i = bisect.bisect_left(folds, (offset, -1))
    if i == len(folds) or folds[i][0] >= end:
        return plain
    out = bytearray(plain)
    while i < len(folds) and folds[i][0] < end:
        at, v = folds[i]
        j = at - offset
        out[j : j + BLOCK] = _xor8(out[j : j + BLOCK], v)
        i += 1
    return bytes(out)


def align8(n: int) -> int:
    return (n + BLOCK - 1) & ~(BLOCK - 1)


__all__ = ["BLOCK", "PAGE", "PakKey", "Decrypter", "Encrypter", "calc_ivxor", "swap32", "align8", "apply_folds"]
