"""Decrypting many entries with one read and one cipher call (batch.py) gives
exactly the bytes each entry decrypts to alone, and a read-ahead fed with
them verifies and serves what was written: ivXor folds of embedded GBX
entries included."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from gbxfs.formats.gbx import writer as gbx_writer
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.batch import MAX_GAP, decrypt_streams
from gbxfs.formats.pak.cipher import PakKey
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.stream import plain_range
from gbxfs.formats.pak.writer import PakFile, build_pak
from gbxfs.tree.cache import ByteLRU

KS = b"00112233445566778899AABBCCDDEEFF"


class _Buffer:
    """Bytes with read_at, counting the reads."""

    def __init__(self, data: bytes):
        self.data, self.reads = data, 0

    def read_at(self, offset: int, size: int) -> bytes:
        self.reads += 1
        return self.data[offset:offset + size]


# (gap before the stream: aligned, unaligned, overlapping, beyond MAX_GAP; ciphertext blocks)
_layout = st.lists(st.tuples(st.sampled_from([0, 0, 0, 8, 24, 3, 13, -8, -16, MAX_GAP, MAX_GAP + 8]),
                             st.integers(1, 40)), min_size=1, max_size=24)


@settings(max_examples=60, deadline=None)
@given(layout=_layout, seed=st.integers(0, 2**32 - 1))
def test_streams_decrypt_as_each_alone(layout, seed):
    rnd = random.Random(seed)
    keys = [PakKey(rnd.randbytes(16)), PakKey(rnd.randbytes(16))]
    buf = bytearray(rnd.randbytes(16))
    streams, plains = [], []
    for gap, blocks in layout:
        start = max(0, len(buf) + gap)
        buf += rnd.randbytes(start - len(buf)) if start > len(buf) else b""
        key = keys[rnd.randrange(2)]
        iv, plain = rnd.randbytes(8), rnd.randbytes(8 * blocks)
        enc = key.encrypter(iv).encrypt(plain)
        buf[start:start + 8 + len(enc)] = iv + enc    # an overlap overwrites the stream before
        streams.append((key, start, len(enc)))
        plains.append(plain)
    src = _Buffer(bytes(buf))
    order = list(range(len(streams)))
    rnd.shuffle(order)
    got = decrypt_streams([(src.read_at, streams[i][0], *streams[i][1:]) for i in order])
    for i, g in zip(order, got):
        key, start, length = streams[i]
        alone = plain_range(src.read_at, key, start, length, 0, length)
        assert g == alone
        # not overwritten by a later stream: the bytes written
        if all(s[1] >= start + 8 + length or s[1] + 8 + s[2] <= start for s in streams[i + 1:]):
            assert g == plains[i]


def test_a_short_or_failing_read_leaves_its_span_to_the_entries():
    key = PakKey(bytes(range(16)))
    a = bytes(8) + key.encrypter(bytes(8)).encrypt(bytes(64))
    data = a + a      # two contiguous streams, then one far away (its own span)
    data += bytes(MAX_GAP + 8) + a

    def cut(offset, size):
        return data[offset:offset + size][:-1] if offset == 0 else data[offset:offset + size]

    streams = [(cut, key, 0, 64), (cut, key, 72, 64), (cut, key, 144 + MAX_GAP + 8, 64)]
    assert decrypt_streams(streams) == [None, None, bytes(64)]

    def broken(offset, size):
        raise OSError(5, "changed on disk")

    assert decrypt_streams([(broken, key, 0, 64)]) == [None]


def _files(rnd: random.Random) -> list[PakFile]:
    out = []
    for i in range(40):
        data = rnd.randbytes(rnd.randrange(1, 9000)).translate(bytes(0x41 + (b & 15) for b in range(256)))
        if i % 5 == 4:      # an embedded GBX whose node feeds ivXor (or not: "no dummy write")
            body = gbx_writer.node_body([(0x03079FF0, data, True)])
            gbx = gbx_writer.build_gbx(class_id=0x03079000, body=body, empty_user_data=True)
            out.append(PakFile(f"G/g{i}.Clip.Gbx", gbx, compress=i % 3 != 0, feeds=i % 7 != 4))
        else:
            out.append(PakFile(f"R/f{i}.bin", data, compress=i % 3 != 0))
    return out


def test_a_pak_batch_is_each_entry_alone_and_reads_as_written():
    rnd = random.Random(5)
    files = _files(rnd)
    src = _Buffer(build_pak(files, KS))
    arc = PakArchive(src.read_at, len(src.data), derive_key(KS), cache=ByteLRU(64 << 20))
    entries = [arc.entry(rec) for rec in arc.files]
    by_path = {f.path.replace("/", "\\"): f.data for f in files}
    streams = [e.whole_stream() for e in entries]
    assert all(s is not None for s in streams)
    src.reads = 0
    plains = decrypt_streams(streams)
    assert src.reads == 1                   # the writer lays entries out one after the other
    folded = 0
    for e, plain in zip(entries, plains):
        assert plain == e._plain(0, e.length)
        assert e.read_ahead(plain) == e.size and e.checked and e.error is None
        folded += bool(e._folds)
        assert e.read_cached(0, e.size) == by_path["\\".join(e.rec.parts)]
    assert folded >= 4      # the ivXor folds of GBX entries were applied to batch bytes


def test_bytes_that_do_not_verify_are_refused_in_a_batch():
    rnd = random.Random(6)
    files = _files(rnd)
    by_path = {f.path.replace("/", "\\"): f.data for f in files}
    data = bytearray(build_pak(files, KS))
    arc = PakArchive(lambda o, n: bytes(data[o:o + n]), len(data), derive_key(KS), cache=ByteLRU(64 << 20))
    # compressed entries prove their bytes (zlib's Adler-32; a GBX one through zlib too)
    bad = {rec.index for rec in arc.files if rec.compressed and rec.index % 2}
    for i in bad:
        rec = arc.files[i]
        data[arc.entry(rec).start + 8 + rec.stored_size // 2] ^= 0x55
    entries = [arc.entry(rec) for rec in arc.files]
    for e, plain in zip(entries, decrypt_streams([e.whole_stream() for e in entries])):
        e.read_ahead(plain)
        if e.rec.index in bad:
            assert e.error is not None and e.read_cached(0, 1) is None
        else:
            assert e.error is None and e.read_cached(0, e.size) == by_path["\\".join(e.rec.parts)]
