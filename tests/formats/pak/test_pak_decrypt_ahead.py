"""A large compressed entry's verifying pass fed by decryption on another
thread (tree/pak/pieces.py DecryptAhead): the same bytes, each piece
decrypted once, and a corrupt entry still refused."""
from __future__ import annotations

import random
import threading
import time

import pytest

from gbxfs.tree.pak import pieces
from gbxfs.tree.pak.archive import PakArchive
from gbxfs.formats.pak.cipher import PAGE
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.packlist import derive_key
from gbxfs.formats.pak.seekinflate import CHUNK, IN_PIECE
from gbxfs.formats.pak.writer import PakFile, build_pak
from gbxfs.tree.cache import ByteLRU

KS = b"0123456789ABCDEF0123456789ABCDEF"


def _data() -> bytes:
    # about 2:1 compressible, 3 MiB: several IN_PIECE pieces of input
    return random.Random(3).randbytes(3 * CHUNK).translate(bytes(0x41 + (b & 15) for b in range(256)))


def _entry(corrupt: bool = False):
    pak = bytearray(build_pak([PakFile("D/big.bin", _data(), compress=True)], KS))
    arc = PakArchive(lambda o, n: bytes(pak[o:o + n]), len(pak), derive_key(KS), cache=ByteLRU(64 << 20))
    e = arc.entry(arc.files[0])
    if corrupt:     # a byte of its last piece
        at = e.start + 8 + e.rec.stored_size - 100
        pak[at] ^= 0x55
    return e


def _calls(e) -> list[tuple[int, int]]:
    """Offsets the entry's own decryption is called for, from now on."""
    got: list[int] = []
    real = e._plain_range

    def spy(offset, size):
        got.append((offset, size))
        return real(offset, size)
    e._plain_range = spy
    return got


def test_the_pass_takes_pieces_decrypted_ahead_each_once():
    e = _entry()
    calls = _calls(e)     # (offset, size) of each decryption
    assert e.prefetch_pieces(0) == [0]
    producer = threading.Thread(target=e.prefetch, args=(0,))
    producer.start()
    _until(lambda: len(calls) > 1)      # it has started (a pass starting first decrypts what it needs)
    assert e.read(0, 1 << 20) == _data()[: 1 << 20]
    producer.join(10)
    assert not producer.is_alive()
    pieces_of_input = -(-e.rec.stored_size // IN_PIECE)
    # every piece of the pass's input decrypted once (besides the kind's peek at the first page)
    assert sorted(at for at, n in calls if n > PAGE) == [i * IN_PIECE for i in range(pieces_of_input)]
    assert e.read(2 * CHUNK, CHUNK) == _data()[2 * CHUNK:]
    assert e.prefetch_pieces(0) == []       # verified: nothing more to decrypt ahead


def _until(cond) -> None:
    for _ in range(1000):
        if cond():
            return
        time.sleep(0.005)
    raise AssertionError("timed out")


def test_a_piece_not_started_is_the_callers_and_run_goes_on_after_it():
    made: list[int] = []
    a = pieces.DecryptAhead(lambda at, n: made.append(at) or bytes([at // IN_PIECE]) * n, 4 * IN_PIECE)
    assert a.take(0, IN_PIECE) is None          # run() has not started it: the caller decrypts
    a.DEPTH = 1
    t = threading.Thread(target=a.run)
    t.start()
    _until(lambda: made)                        # run() goes on after the caller's piece
    assert made == [IN_PIECE]
    assert a.take(IN_PIECE, IN_PIECE) == bytes([1]) * IN_PIECE
    _until(lambda: len(made) == 2)
    assert a.take(2 * IN_PIECE, IN_PIECE) == bytes([2]) * IN_PIECE
    _until(lambda: len(made) == 3)
    assert a.take(3 * IN_PIECE, IN_PIECE) == bytes([3]) * IN_PIECE
    t.join(5)
    assert made == [IN_PIECE, 2 * IN_PIECE, 3 * IN_PIECE] and not t.is_alive()
    assert a.take(IN_PIECE + 8, 16) is None     # not one of its pieces


def test_run_ends_when_stopped_or_not_wanted():
    a = pieces.DecryptAhead(lambda at, n: bytes(n), 64 * IN_PIECE)
    t = threading.Thread(target=a.run)
    t.start()
    a.stop()
    t.join(5)
    assert not t.is_alive()
    wanted = [True]
    b = pieces.DecryptAhead(lambda at, n: bytes(n), 64 * IN_PIECE, lambda: wanted[0])
    b.IDLE = 0.01
    t = threading.Thread(target=b.run)
    t.start()
    wanted[0] = False           # verified another way: nobody takes its pieces
    t.join(5)
    assert not t.is_alive()


def test_a_corrupt_entry_is_refused_with_its_input_decrypted_ahead():
    e = _entry(corrupt=True)
    producer = threading.Thread(target=e.prefetch, args=(0,))
    producer.start()
    with pytest.raises(PakError):
        e.read(0, 1 << 20)
    producer.join(10)
    assert e.error and not producer.is_alive()



def test_a_read_does_not_wait_for_a_stored_piece_only_claimed(monkeypatch):
    """A claimed piece's background task may be queued behind the very worker thread
    the read holds: the read decrypts it itself unless a worker has started it."""
    pak = build_pak([PakFile("D/big.bin", _data(), compress=False)], KS)
    arc = PakArchive(lambda o, n: pak[o:o + n], len(pak), derive_key(KS), cache=ByteLRU(64 << 20))
    e = arc.entry(arc.files[0])
    assert e.read(0, 10) == _data()[:10]
    assert e.prefetch_pieces(CHUNK) == [CHUNK, 2 * CHUNK]
    monkeypatch.setattr(pieces._Claim, "wait", lambda self, timeout=None: pytest.fail("waited"))
    assert e.read(CHUNK + 5, 100) == _data()[CHUNK + 5:CHUNK + 105]
    e.prefetch(CHUNK)               # its task, late: the piece is there, nothing to do
    e.prefetch(2 * CHUNK)
    assert not e._pending and e.read(2 * CHUNK, 10) == _data()[2 * CHUNK:2 * CHUNK + 10]
