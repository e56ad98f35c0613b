"""RefillingSource: exact reads over refills, whatever the piece sizes."""
from __future__ import annotations

import random

import pytest

from gbxfs.formats.gbx.errors import Truncated
from gbxfs.formats.pak.pull import RefillingSource


class _Pieces(RefillingSource):
    def __init__(self, pieces: list[bytes], size: int):
        super().__init__(size)
        self._pieces = list(pieces)
        self.refills = 0

    def _refill(self) -> bytes:
        self.refills += 1
        return self._pieces.pop(0) if self._pieces else b""


@pytest.mark.parametrize("seed", range(6))
def test_reads_are_the_bytes_in_order(seed):
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(3000))
    cuts = sorted(rng.sample(range(1, len(data)), 20))
    pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    size = len(data) - rng.randrange(0, 50)     # the source ends before the last refill's end
    src = _Pieces(pieces, size)
    got, at = [], 0
    while at < size:
        n = min(rng.choice((0, 1, 4, 7, 64, 500)), size - at)
        piece = src.read(n)
        assert bytes(piece) == data[at:at + n] and src.consumed == at + n and src.remaining == size - at - n
        got.append(bytes(piece))
        at += n
    assert b"".join(got) == data[:size]
    assert src.refills <= len(pieces)           # never fetches a piece it does not need
    with pytest.raises(Truncated):
        src.read(1)                             # past `size`, though the piece has more


def test_a_source_that_runs_dry_is_truncated():
    src = _Pieces([b"abc", b"de"], 10)
    assert src.read(4) == b"abcd"
    with pytest.raises(Truncated):
        src.read(3)


@pytest.mark.parametrize("seed", range(4))
def test_a_parser_of_the_buffer_at_hand_reads_what_read_reads(seed):
    """take_buffered hands out the buffer at hand (nothing refilled), give_back
    returns its unparsed end, fetch_through refills ahead: interleaved with read(),
    the bytes come in order and no piece is fetched before it is asked for."""
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(4000))
    pieces = [data[a:a + 100] for a in range(0, len(data), 100)]
    size = len(data) - rng.randrange(50)
    src = _Pieces(pieces, size)
    got = bytearray()
    while src.remaining:
        step = rng.randrange(4)
        if step == 0:
            got += src.read(min(rng.randrange(1, 300), src.remaining))
        elif step == 1:
            refills = src.refills
            taken = src.take_buffered()
            assert src.refills == refills and src.consumed == len(got) + len(taken)
            keep = rng.randrange(len(taken) + 1)
            src.give_back(len(taken) - keep)
            got += taken[:keep]
        else:
            want = rng.randrange(1, 700)
            before = src.take_buffered()
            src.give_back(len(before))
            src.fetch_through(want)
            held = src.take_buffered()
            assert len(held) >= min(want, size - len(got))          # all of it at hand now
            # and a piece more only while fewer than `want` bytes were
            assert held[:len(before)] == before and (len(held) == len(before) or len(held) - 100 < want)
            src.give_back(len(held))
        assert bytes(got) == data[:len(got)] and src.consumed == len(got)
    assert bytes(got) == data[:size] and src.take_buffered() == b""
    with pytest.raises(ValueError):
        src.give_back(1 + src._off)
