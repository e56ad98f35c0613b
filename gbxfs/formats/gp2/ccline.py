"""The computer-car racing line, right after the track's 0xFFFF.

A 12-byte header, then segments `u8 length, u8 type` + 3 u16 (type 0x50,
8 bytes) or + 5 u16 (type 0x70, 12 bytes), ended by a 0x0000 word.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.errors import Gp2Error

SEGMENT_WORDS = {0x50: 3, 0x70: 5}


@dataclass(frozen=True)
class CcSegment:
    index: int
    offset: int
    length: int
    kind: int
    values: tuple[int, ...]   # 0x50: correction, sign/scale, radius; 0x70 adds sign2, radius2


@dataclass
class CcLine:
    offset: int
    end: int                  # just past the 0x0000 terminator
    start_x: int
    start_x_high: int
    start_y: int
    unknown: tuple[int, ...]  # four u16 of unknown meaning
    segments: list[CcSegment] = field(default_factory=list)

    @property
    def length_units(self) -> int:
        return sum(s.length for s in self.segments)


def read_ccline(cur: Cursor) -> CcLine:
    start = cur.pos
    x, x_high, y = cur.u8(), cur.u8(), cur.s16()
    unknown = tuple(cur.u16() for _ in range(4))
    line = CcLine(start, start, x, x_high, y, unknown)
    while True:
        at = cur.pos
        length, kind = cur.u8(), cur.u8()
        if length == 0 and kind == 0:
            break
        words = SEGMENT_WORDS.get(kind)
        if words is None:
            raise Gp2Error(f"CC-line segment type 0x{kind:02X} is neither 0x50 nor 0x70", at + 1)
        values = tuple(cur.u16() for _ in range(words))
        line.segments.append(CcSegment(len(line.segments), at, length, kind, values))
    line.end = cur.pos
    return line
