"""The two 16-bit sums stored in the last 4 bytes of a GP2 track."""
from __future__ import annotations

from dataclasses import dataclass

from gbxfs.formats.gp2.cursor import u16_at


@dataclass(frozen=True)
class Checksum:
    stored: tuple[int, int]
    computed: tuple[int, int]

    @property
    def ok(self) -> bool:
        return self.stored == self.computed


def compute(body: bytes) -> tuple[int, int]:
    """(a, b): a = byte sum mod 2**16; b = rol16(b, 3) + byte for each byte."""
    a = sum(body) & 0xFFFF
    b = 0
    for byte in body:
        b = (((b << 3) | (b >> 13)) + byte) & 0xFFFF
    return a, b


def read_checksum(data: bytes) -> Checksum:
    end = len(data) - 4
    return Checksum((u16_at(data, end), u16_at(data, end + 2)), compute(data[:end]))
