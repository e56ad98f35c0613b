"""Decrypting many small entries of one pak with one read and one cipher call.

A read-ahead batch (tree/pak/ahead.py) verifies some 32 small entries in a
row. Decrypting each alone costs a pread, a file identity check and several
pycryptodome calls whose fixed overhead (ctypes buffers, about 15 us) is as
large as the Blowfish work of a 3 KB entry. Each entry is an 8-byte IV then
its ciphertext: put one after the other, the entries' bytes are one stream
of 8-byte blocks in which every entry's first ciphertext block follows its
own IV, so CBC over all of it (`PakKey.cbc_decrypt`: one ECB call and one
XOR with the bytes shifted by a block) gives every entry's plain bytes at
once; what the IV blocks decrypt to is dropped. Entries lying close together
in the pak are read with one read.

The bytes are exactly those of each entry decrypted alone, without ivXor
folds (PakEntry._whole): verification is unchanged and stays with the entry
(zlib's Adler-32, the GBX parse that also applies the folds).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from gbxfs.formats.pak.cipher import BLOCK, PakKey

ReadAt = Callable[[int, int], bytes]
# (read_at of the pak, its key, where the stream's IV is, ciphertext length: a multiple of 8)
Stream = tuple[ReadAt, PakKey, int, int]
# bytes between two entries read for nothing rather than making another read
# (one more pread and identity check cost about what reading 4 KiB more does)
MAX_GAP = 4096
MAX_SPAN = 4 << 20      # bytes read in one go at most


def decrypt_streams(streams: Sequence[Stream]) -> list[bytes | None]:
    """The plain bytes (no ivXor folds) of each stream, in the given order;
    None for one whose bytes could not all be read (its own read then reports
    why). Streams of different sources or keys are decrypted apart."""
    out: list[bytes | None] = [None] * len(streams)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (read_at, key, _, _) in enumerate(streams):
        groups.setdefault((id(read_at), id(key)), []).append(i)
    for members in groups.values():
        read_at, key = streams[members[0]][:2]
        members.sort(key=lambda i: streams[i][2])
        got = _read(read_at, streams, members)
        if got:
            _decrypt(key, streams, got, out)
    return out


def _read(read_at: ReadAt, streams: Sequence[Stream], members: list[int]) -> list[tuple[int, bytes | memoryview]]:
    """(stream, its IV and ciphertext) for the streams (sorted by start) whose bytes
    could be read: one read per run of streams at most MAX_GAP apart."""
    got: list[tuple[int, bytes | memoryview]] = []
    run: list[int] = []
    for n, i in enumerate(members):
        run.append(i)
        start, length = streams[i][2:]
        end = start + BLOCK + length
        nxt = streams[members[n + 1]][2] if n + 1 < len(members) else None
        if nxt is not None and end <= nxt <= end + MAX_GAP and nxt + BLOCK - streams[run[0]][2] <= MAX_SPAN:
            continue
        lo = streams[run[0]][2]
        try:
            raw = read_at(lo, end - lo)
        except OSError:
            raw = b""      # each entry's own read says what is wrong
        if len(raw) == end - lo:
            view = memoryview(raw)
            for j in run:
                o = streams[j][2] - lo
                got.append((j, view[o:o + BLOCK + streams[j][3]]))
        run = []
    return got


def _decrypt(key: PakKey, streams: Sequence[Stream], got: list[tuple[int, bytes | memoryview]],
             out: list[bytes | None]) -> None:
    """CBC over the streams' bytes put one after the other: each stream's first
    ciphertext block then follows its own IV, so one call decrypts them all."""
    joined = b"".join(raw for _, raw in got)
    plain = key.cbc_decrypt(joined[:BLOCK], joined[BLOCK:])
    at = 0          # where the stream's IV is in `joined`: its plain bytes are at the same offset
    for i, raw in got:
        out[i] = plain[at:at + streams[i][3]]
        at += len(raw)
