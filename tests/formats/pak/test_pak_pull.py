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
