"""A large pak file's first read asks for its verifying pass's input to be
decrypted on another core (tree/pak/files.py, tree/pak/pieces.py), without
making its entry on the event loop."""
from __future__ import annotations

import random
import threading
import time

from gbxfs.formats.pak.seekinflate import CHUNK
from gbxfs.formats.pak.writer import PakFile, write_packs
from gbxfs.tree.cache import ByteLRU
from gbxfs.tree.context import TreeContext
from gbxfs.tree.root import build_tree



def _data() -> bytes:
    """3 MiB, about 2:1 compressible: a large entry."""
    return random.Random(3).randbytes(3 * CHUNK).translate(bytes(0x41 + (b & 15) for b in range(256)))


def test_a_large_listed_file_offers_its_pass_input_before_its_entry_is_made(tmp_path):
    write_packs(tmp_path, {"P": [PakFile("D/big.bin", _data(), compress=True),
                                 PakFile("D/small.bin", _data()[:5000], compress=True)]})
    folder = build_tree(str(tmp_path), TreeContext(cache=ByteLRU(64 << 20))).children()["P.pak"].children()["D"]
    big, small = folder.children()["big.bin"], folder.children()["small.bin"]
    assert small.prefetch(0) == [] and big.prefetch(4096) == []
    jobs = big.prefetch(0)
    assert len(jobs) == 1 and big.made is None     # nothing made on the event loop
    producer = threading.Thread(target=jobs[0])
    producer.start()
    for _ in range(1000):           # its entry made, its decryption ahead started
        if big.made is not None and big.made._ahead is not None:
            break
        time.sleep(0.005)
    assert big.read(0, 3 * CHUNK) == _data()
    producer.join(10)
    assert not producer.is_alive() and big.prefetch(0) == []
