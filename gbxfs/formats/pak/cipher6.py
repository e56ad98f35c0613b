"""The pack cipher of versions 6 and later (ManiaPlanet, TM2020).

Public facts (the Pak6 reader of GBX.NET.PAK):
- up to version 11 it is the version 3 cipher (cipher.PakKey);
- from version 12 the IV no longer is the previous ciphertext block:
  next_iv = (iv >> 47) ^ (iv * 9 mod 2^64) ^ ciphertext_block. The ivXor
  fold still goes into the IV at each 0x100-byte page start, so from then
  on it changes every later block too;
- from version 18 the block function is an 8-round Blowfish (blowfish8).

`pack_key(version, key)` returns an object with the PakKey stream interface
(`decrypter(iv)`, `encrypter(iv)`), so stream.EncryptedStream and the writer
run unchanged over every version. Streams of version 12+ cannot be entered
mid-way (the IV depends on every block before), so their entries are read
from the start.
"""
from __future__ import annotations

import struct

from Crypto.Cipher import Blowfish as _Blowfish

from gbxfs.formats.pak.blowfish8 import Blowfish
from gbxfs.formats.pak.cipher import BLOCK, PAGE, PakKey, calc_ivxor, swap32

_M64 = (1 << 64) - 1
CHAIN_VERSION = 12
SHORT_BLOWFISH_VERSION = 18
# The key of headers flagged "use default header key" (header flags bit 2): public.
DEFAULT_HEADER_KEY = bytes.fromhex("56eecbbbdeb6bc90a17dfceb761d59ce")


def next_iv(iv: int, cipher_block: int) -> int:
    return (iv >> 47) ^ ((iv * 9) & _M64) ^ cipher_block


class _Ecb16:
    """Standard 16-round Blowfish over little-endian words (pycryptodome, C speed)."""

    def __init__(self, key: bytes):
        self._ecb = _Blowfish.new(swap32(key), _Blowfish.MODE_ECB)

    def decrypt(self, data: bytes) -> bytes:
        return swap32(self._ecb.decrypt(swap32(data)))

    def encrypt(self, data: bytes) -> bytes:
        return swap32(self._ecb.encrypt(swap32(data)))


class _ChainStream:
    """One stream of the version 12+ chaining; the same state as cipher._Stream
    (pos, ivxor, folds, feed) so the pak streams and parsers use it alike."""

    __slots__ = ("_ecb", "_iv", "pos", "ivxor", "folds")

    def __init__(self, ecb, iv: bytes):
        self._ecb = ecb
        self._iv = int.from_bytes(iv, "little")
        self.pos = 0
        self.ivxor = 0
        self.folds: dict[int, int] = {}

    def feed(self, data: bytes) -> None:
        self.ivxor = calc_ivxor(self.ivxor, data)

    def _take_fold(self, at: int) -> None:
        if self.ivxor and at % PAGE == 0:
            self.folds[at] = self.ivxor
            self._iv ^= self.ivxor
            self.ivxor = 0

    def decrypt(self, cipher: bytes) -> bytes:
        if len(cipher) % BLOCK:
            raise ValueError("ciphertext length must be a multiple of 8")
        n = len(cipher) // BLOCK
        cs = struct.unpack(f"<{n}Q", cipher)
        ds = struct.unpack(f"<{n}Q", self._ecb.decrypt(cipher))
        out = [0] * n
        iv = self._iv
        for k in range(n):
            if self.ivxor:
                self._iv = iv
                self._take_fold(self.pos + k * BLOCK)
                iv = self._iv
            out[k] = ds[k] ^ iv
            iv = (iv >> 47) ^ ((iv * 9) & _M64) ^ cs[k]
        self._iv = iv
        self.pos += len(cipher)
        return struct.pack(f"<{n}Q", *out)

    def encrypt(self, plain: bytes) -> bytes:
        if len(plain) % BLOCK:
            raise ValueError("plaintext length must be a multiple of 8")
        n = len(plain) // BLOCK
        ps = struct.unpack(f"<{n}Q", plain)
        out = bytearray()
        for k in range(n):
            self._take_fold(self.pos + k * BLOCK)
            c = self._ecb.encrypt(struct.pack("<Q", ps[k] ^ self._iv))
            out += c
            self._iv = next_iv(self._iv, int.from_bytes(c, "little"))
        self.pos += len(plain)
        return bytes(out)


class ChainKey:
    """A version 12+ pack key: the PakKey interface over the chained cipher."""

    def __init__(self, key: bytes, version: int):
        if len(key) % 4 or not 4 <= len(key) <= 56:
            raise ValueError(f"Blowfish key must be 4..56 bytes, a multiple of 4 (got {len(key)})")
        self.key = bytes(key)
        self.version = version
        self._ecb = Blowfish(key, 8) if version >= SHORT_BLOWFISH_VERSION else _Ecb16(key)

    def decrypter(self, iv: bytes, pos: int = 0) -> _ChainStream:
        if pos:
            raise ValueError("a version 12+ pack stream can only be decrypted from its start")
        return _ChainStream(self._ecb, iv)

    def encrypter(self, iv: bytes) -> _ChainStream:
        return _ChainStream(self._ecb, iv)


def pack_key(version: int, key: bytes):
    """The stream cipher of a pack `version` with Blowfish `key`."""
    return ChainKey(key, version) if version >= CHAIN_VERSION else PakKey(key)


def header_key(header_flags: int, pack_key_bytes: bytes | None) -> bytes | None:
    """The Blowfish key of the encrypted header part, from the plain header's
    flags: bit 1 (0x1) private -> the pack's own key; bit 2 (0x2) default ->
    XORed with DEFAULT_HEADER_KEY (alone: the default key itself). None when
    the header is private and no key is known."""
    if header_flags & 1:
        if pack_key_bytes is None:
            return None
        base = pack_key_bytes
    else:
        base = bytes(16)
    if header_flags & 2:
        base = bytes(a ^ b for a, b in zip(base, DEFAULT_HEADER_KEY))
    return base


def header_encrypted(header_flags: int) -> bool:
    return bool(header_flags & 3)
