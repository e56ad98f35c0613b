"""Reading files of ManiaPlanet/TM2020 packs (versions 6-18): MB/s per cipher
family, clear vs encrypted, stored vs compressed.

    .venv/bin/python benchmarks/pack_read.py [--mb 4]

Builds packs with the project's writer (one file each: 1/4 random, 3/4
zeros), then times the first full read of the file through PackArchive
(which includes decryption, decompression and verification). Versions 11,
12 and 18 stand for the three cipher families (version 3 CBC; the 12+ IV
chain; the 8-round Blowfish of 18, which runs in Python). Not a test:
numbers to read, not assertions. Version 18 needs the lz4 package.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gbxfs.formats.pak.writer6 import PackFile, build_pack  # noqa: E402
from gbxfs.tree.cache import ByteLRU  # noqa: E402
from gbxfs.tree.pak.archive6 import PackArchive  # noqa: E402

KEY = bytes(range(16))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=4)
    args = ap.parse_args()
    size = int(args.mb * (1 << 20))
    data = os.urandom(size // 4) + bytes(size - size // 4)
    print(f"{'version':>7} {'file':<22} {'read MB/s':>10}")
    for version in (11, 12, 18):
        for compress in (False, True):
            for public in (True, False):
                pack = build_pack([PackFile("D/a.bin", data, compress=compress, public=public)],
                                  version=version, key=KEY)
                # the mount's default cache: an encrypted entry is decrypted once into it
                arc = PackArchive(lambda o, n: pack[o:o + n], len(pack), KEY, cache=ByteLRU(256 << 20))
                entry = arc.entry(arc.files[0])
                t = time.perf_counter()
                assert entry.read(0, size) == data
                dt = time.perf_counter() - t
                kind = f"{'compressed' if compress else 'stored'} {'clear' if public else 'encrypted'}"
                print(f"{version:>7} {kind:<22} {size / dt / 1e6:>10.1f}")


if __name__ == "__main__":
    main()
