"""Sector streams (track data and pit lane): commands, 10-byte sector
records, ended by 0xFFFF.

Each 16-bit word decides what follows: 0xFFFF ends the stream, a high byte
0x00 starts a sector record (so sector lengths are 0..255), a high byte of
0x80 or more is a command (low byte = Arg0) followed by a fixed number of
s16 arguments from the command table. Commands belong to the next sector;
commands after the last sector, before 0xFFFF, are kept as trailing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gbxfs.formats.gp2.commands import lookup
from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.errors import Gp2Error

END = 0xFFFF
UNIT_METRES = 4.8768  # one length unit is 16 feet


@dataclass(frozen=True)
class Command:
    offset: int
    ident: int
    arg0: int
    args: tuple[int, ...]   # s16 arguments after the command word


@dataclass(frozen=True)
class Sector:
    index: int
    offset: int
    length: int
    arc: int
    height: int
    flags: int
    right_verge: int
    left_verge: int
    commands: tuple[Command, ...]   # the commands placed before this record


@dataclass
class SectorStream:
    offset: int
    end: int                          # offset just past the 0xFFFF terminator
    sectors: list[Sector] = field(default_factory=list)
    trailing: list[Command] = field(default_factory=list)

    @property
    def commands(self) -> list[tuple[int, Command]]:
        """(sector index, command) pairs; trailing commands get index len(sectors)."""
        out = [(s.index, c) for s in self.sectors for c in s.commands]
        out += [(len(self.sectors), c) for c in self.trailing]
        return out

    @property
    def length_units(self) -> int:
        return sum(s.length for s in self.sectors)


def read_stream(cur: Cursor, header_flags: int) -> SectorStream:
    stream = SectorStream(cur.pos, cur.pos)
    pending: list[Command] = []
    while True:
        at = cur.pos
        word = cur.peek_u16()
        if word == END:
            cur.pos += 2
            break
        high = word >> 8
        if high == 0:
            length, _, arc, height, flags = cur.u8(), cur.u8(), cur.s16(), cur.s16(), cur.u16()
            right, left = cur.u8(), cur.u8()
            stream.sectors.append(Sector(len(stream.sectors), at, length, arc, height, flags,
                                         right, left, tuple(pending)))
            pending = []
        elif high >= 0x80:
            spec = lookup(high, at)
            cur.pos += 2
            pending.append(Command(at, high, word & 0xFF, cur.s16s(spec.count(header_flags))))
        else:
            raise Gp2Error(f"word 0x{word:04X} in {cur.what} is neither a sector "
                           f"record nor a command", at)
    stream.trailing = pending
    stream.end = cur.pos
    return stream
