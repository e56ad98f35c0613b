"""Blowfish with a configurable round count, in pure Python (version 18 packs).

ManiaPlanet/TM2020 packs of version 18 use Blowfish reduced to 8 rounds
(only P[0..9] keyed), and their reader runs the *encryption* routine over a
P array reversed after the key schedule. Running encryption with the first
ten P entries reversed is exactly an 8-round decryption with the P array as
scheduled, so here `decrypt` is plain 8-round decryption and `encrypt` its
inverse (what a writer needs). Words are little-endian like the rest of the
pak cipher.

No library offers a reduced-round Blowfish, so this is written out; the
constant tables are the hexadecimal digits of pi (Blowfish's definition),
computed once here rather than pasted. The 16-round instance of the same
code is checked against pycryptodome's Blowfish in the tests.
"""
from __future__ import annotations

import functools
import struct

_M32 = 0xFFFFFFFF


@functools.cache
def _pi_words() -> tuple[int, ...]:
    """The first 18 + 4*256 32-bit words of pi's fractional hexadecimal digits
    (Blowfish's initial P array then its four S-boxes)."""
    words = 18 + 1024
    bits = words * 32 + 64                       # guard bits against rounding in the last word
    one = 1 << bits

    def arctan_inv(x: int) -> int:               # arctan(1/x) in fixed point
        total = term = one // x
        x2, k, sign = x * x, 1, -1
        while term:
            term //= x2
            k += 2
            total += sign * (term // k)
            sign = -sign
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)  # Machin's formula
    frac = (pi - (3 << bits)) >> 64               # drop the integer part and the guard bits
    digits = frac.to_bytes(words * 4, "big")
    return struct.unpack(f">{words}I", digits)


class Blowfish:
    """Blowfish over little-endian 32-bit words with `rounds` rounds (16: the
    standard cipher; 8: version 18 packs). Key words are read little-endian,
    cycling through the key bytes."""

    def __init__(self, key: bytes, rounds: int = 16):
        if not key or rounds % 2 or not 2 <= rounds <= 16:
            raise ValueError("Blowfish needs a non-empty key and an even round count up to 16")
        init = _pi_words()
        self.n = rounds
        p = list(init[:18])
        self.s = [list(init[18 + 256 * i : 18 + 256 * (i + 1)]) for i in range(4)]
        j = 0
        for i in range(rounds + 2):
            word = 0
            for k in range(4):
                word |= key[j] << (8 * k)
                j = (j + 1) % len(key)
            p[i] ^= word
        self.p = p
        left = right = 0
        for i in range(0, rounds + 2, 2):
            left, right = self._enc(left, right)
            p[i], p[i + 1] = left, right
        for box in self.s:
            for i in range(0, 256, 2):
                left, right = self._enc(left, right)
                box[i], box[i + 1] = left, right

    def _enc(self, left: int, right: int) -> tuple[int, int]:
        p, s0, s1, s2, s3 = self.p, *self.s
        for i in range(self.n):
            left ^= p[i]
            right ^= ((((s0[left >> 24] + s1[(left >> 16) & 0xFF]) & _M32) ^ s2[(left >> 8) & 0xFF])
                      + s3[left & 0xFF]) & _M32
            left, right = right, left
        return right ^ p[self.n + 1], left ^ p[self.n]   # undo the last swap, then whiten

    def _dec(self, left: int, right: int) -> tuple[int, int]:
        p, s0, s1, s2, s3 = self.p, *self.s
        for i in range(self.n + 1, 1, -1):
            left ^= p[i]
            right ^= ((((s0[left >> 24] + s1[(left >> 16) & 0xFF]) & _M32) ^ s2[(left >> 8) & 0xFF])
                      + s3[left & 0xFF]) & _M32
            left, right = right, left
        return right ^ p[0], left ^ p[1]

    def _run(self, data: bytes, fn) -> bytes:
        if len(data) % 8:
            raise ValueError("Blowfish data must be a multiple of 8 bytes")
        words = struct.unpack(f"<{len(data) // 4}I", data)
        out = []
        for i in range(0, len(words), 2):
            out += fn(words[i], words[i + 1])
        return struct.pack(f"<{len(out)}I", *out)

    def encrypt(self, data: bytes) -> bytes:
        """ECB encryption of whole 8-byte blocks."""
        return self._run(data, self._enc)

    def decrypt(self, data: bytes) -> bytes:
        """ECB decryption of whole 8-byte blocks."""
        return self._run(data, self._dec)
