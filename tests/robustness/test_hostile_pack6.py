"""Hostile ManiaPlanet/TM2020 packs through the whole tree: written by gbxfs's
own writer (every file flag, clear / default-key / private tables), then
truncated, bit-flipped and given huge counts. Every outcome must be a
documented one (listing, exact bytes, or EIO), within time and memory."""
from __future__ import annotations

import random
import struct

import pytest
from pack6_kit import FOLDERS, KEY, RAW, needs_lz4
from robust_walk import walk_files

from gbxfs.formats.pak.writer6 import PackFile, build_pack

KEYS = f"P.Pack.Gbx {KEY.hex()}\n".encode()


def _files() -> list:
    # no feeding GBX entries: the tree reads with the shipped declarations
    return [PackFile("Data/Sub/a.bin", RAW, public=True), PackFile("Data/Sub/b.bin", RAW, compress=True),
            PackFile("Data/c.bin", RAW[:999], no_crypt=True, compress=True),
            PackFile("Data/d.bin", RAW[:5000]), PackFile("Data/e.Clip.Gbx", RAW[:300], feeds=False)]


def _walk(pack: bytes, keys: bool = True):
    files = {"P.Pack.Gbx": pack}
    if keys:
        files["packlist.dat"] = KEYS      # a key file under the name the tree looks for
    return walk_files(files)


@pytest.mark.parametrize("version,flags", [(8, 0), (12, 2), (16, 1), (18, 3)])
def test_pack_reads_then_survives_truncation_and_flips(version, flags):
    needs_lz4(version)
    pack = build_pack(_files(), version=version, key=KEY, header_flags=flags, folders=FOLDERS)
    report = _walk(pack)
    assert not report.unreadable and report.files >= 6
    _walk(pack, keys=False)
    for cut in (11, 40, 60, len(pack) // 3, len(pack) // 2, len(pack) - 9, len(pack) - 1):
        _walk(pack[:cut])
    rnd = random.Random(version * 10 + flags)
    for _ in range(6):
        bad = bytearray(pack)
        for _ in range(3):
            bad[rnd.randrange(12, len(bad))] ^= 1 << rnd.randrange(8)
        _walk(bytes(bad))


def test_clear_table_with_huge_counts_and_sizes():
    pack = bytearray(build_pack(_files(), version=13, key=KEY, header_flags=0, folders=FOLDERS))
    from gbxfs.tree.pak.archive6 import PackArchive
    arc = PackArchive(lambda o, n: bytes(pack[o:o + n]), len(pack), None)
    start = arc.pack.header_size
    # the table's u32 fields after the md5 (offsets, sizes), then every later u32, one at a time
    for at in range(start + 16, start + 120, 4):
        for value in (0xFFFFFFFF, 0x7FFFFFFF, 0x10000):
            bad = bytearray(pack)
            bad[at:at + 4] = struct.pack("<I", value)
            _walk(bytes(bad))
