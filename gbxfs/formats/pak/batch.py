"""Decrypting many small entries of one pak with one read and one cipher call.

A read-ahead batch (tree/pak/ahead.py) verifies some 32 small entries in a
row. Decrypting each alone costs a pread, a file identity check and several
pycryptodome calls whose fixed overhead (ctypes buffers, about 15 us) is as
large as the Blowfish work of a 3 KB entry. Entries usually lie one after
the other in the pak, each an 8-byte IV then its ciphertext, so a run of
them is one span of 8-byte blocks in which every entry's first ciphertext
block follows its own IV: CBC over the whole span (`PakKey.cbc_decrypt`,
one ECB call and one XOR with the span shifted by a block) gives every
entry's plain bytes at once; what the IV blocks decrypt to is dropped.

The bytes are exactly those of each entry decrypted alone, without ivXor
folds (PakEntry._whole): verification is unchanged and stays with the entry
(zlib's Adler-32, the GBX parse that also applies the folds).
"""
from __future__ import annotations

from typing import Callable, Sequence

from gbxfs.formats.pak.cipher import BLOCK, PakKey

ReadAt = Callable[[int, int], bytes]
# (read_at of the pak, its key, where the stream's IV is, ciphertext length: a multiple of 8)
Stream = tuple[ReadAt, PakKey, int, int]
# ciphertext between two entries read and decrypted for nothing rather than starting
# a new span (a pak may leave gaps; one more pread costs about what 4 KiB of Blowfish does)
MAX_GAP = 4096
MAX_SPAN = 4 << 20      # bytes read and decrypted in one go at most


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
        run: list[int] = []
        lo = end = 0
        for i in members:
            start, length = streams[i][2:]
            if run and not (0 <= start - end <= MAX_GAP and (start - end) % BLOCK == 0
                            and start + BLOCK + length - lo <= MAX_SPAN):
                _span(read_at, key, streams, run, lo, end, out)
                run = []
            if not run:
                lo = start
            run.append(i)
            end = start + BLOCK + length
        _span(read_at, key, streams, run, lo, end, out)
    return out


def _span(read_at: ReadAt, key: PakKey, streams, run: list[int], lo: int, end: int,
          out: list[bytes | None]) -> None:
    try:
        raw = read_at(lo, end - lo)
    except OSError:
        return      # each entry's own read says what is wrong
    if len(raw) != end - lo:
        return
    # plain[k] is the block after raw block k: an entry whose IV is at o has its plain bytes at o
    plain = key.cbc_decrypt(raw[:BLOCK], raw[BLOCK:])
    for i in run:
        o = streams[i][2] - lo
        out[i] = plain[o:o + streams[i][3]]
