"""Gp2Track: a whole GP2 track file split into its regions, in file order.

`decode(data)` walks the regions of docs/formats/gp2.md one after another; each
region must end exactly where the next one begins (the offset table fixes
some starts, the terminators of the variable regions fix the others), so the
raw `sections` always rebuild the file byte for byte.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gbxfs.formats.gp2.ccline import CcLine, read_ccline
from gbxfs.formats.gp2.checksum import Checksum, read_checksum
from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.errors import Gp2Error
from gbxfs.formats.gp2.header import TrackHeader, read_header
from gbxfs.formats.gp2.objects import InternalObject, ObjectDefinition, read_internal_objects, read_object_definitions
from gbxfs.formats.gp2.offsets import BASE, TABLE_AT, TABLE_SIZE, OffsetTable, looks_like_gp2, read_offset_table
from gbxfs.formats.gp2.preamble import gp2info
from gbxfs.formats.gp2.sectors import UNIT_METRES, SectorStream, read_stream
from gbxfs.formats.gp2.setup import CarSetup
from gbxfs.formats.gp2.tail import VARIOUS_SIZE, Camera, JamFiles, VariousData, read_cameras, read_jams, read_various


@dataclass(frozen=True)
class Section:
    name: str
    offset: int
    data: bytes


@dataclass
class Gp2Track:
    size: int
    table: OffsetTable
    sections: list[Section]
    info: list[tuple[str, str]]          # #GP2INFO pairs from the leading block, if any
    internal_objects: list[InternalObject]
    object_definitions: list[ObjectDefinition]
    header: TrackHeader
    track: SectorStream
    ccline: CcLine
    setup: CarSetup
    pitlane: SectorStream
    cameras: list[Camera]
    various: VariousData
    jams: JamFiles

    def section(self, name: str) -> Section:
        return next(s for s in self.sections if s.name == name)

    @property
    def length_m(self) -> float:
        return self.track.length_units * UNIT_METRES

    @property
    def laps(self) -> int:
        return self.various.laps

    @cached_property
    def checksum(self) -> Checksum:
        # computed on first use: recognising a track (the tree's probe) needs
        # only the structure, and the sums cost as much as the whole walk
        return read_checksum(self.rebuild())

    def rebuild(self) -> bytes:
        return b"".join(s.data for s in self.sections)


def decode(data: bytes) -> Gp2Track:
    """The decoded track; Gp2Error if `data` is not a GP2 track or is broken."""
    data = bytes(data)
    table = read_offset_table(data[TABLE_AT : TABLE_AT + TABLE_SIZE], len(data))
    objects = read_internal_objects(data, table)
    objdefs = read_object_definitions(data, table)

    cur = Cursor(data, table.track, table.car_setup, "track data")
    header = read_header(cur)
    track = read_stream(cur, header.flags)
    cur.what = "CC line"
    ccline = read_ccline(cur)

    cur = Cursor(data, table.pitlane, table.checksum, "pit lane")
    pitlane = read_stream(cur, header.flags)
    cur.what = "camera list"
    cameras = read_cameras(cur)
    various = read_various(cur)
    cur.what = "jam-file block"
    jams = read_jams(cur)

    cuts = [("unused", 0), ("offset_table", TABLE_AT), ("object_count", BASE - 4),
            ("object_offsets", BASE), ("internal_objects", table.object_list_end),
            ("object_definitions", table.object_definitions), ("track", table.track),
            ("ccline", track.end), ("gap", ccline.end), ("car_setup", table.car_setup),
            ("pitlane", table.pitlane), ("cameras", pitlane.end),
            ("various", various.offset), ("jam_files", various.offset + VARIOUS_SIZE),
            ("checksum", table.checksum)]
    sections = _split(data, cuts)
    setup = CarSetup(table.car_setup, data[table.car_setup : table.pitlane])
    return Gp2Track(len(data), table, sections, gp2info(data[:TABLE_AT]), objects, objdefs,
                    header, track, ccline, setup, pitlane, cameras, various, jams)


def _split(data: bytes, cuts: list[tuple[str, int]]) -> list[Section]:
    ends = [off for _, off in cuts[1:]] + [len(data)]
    out = []
    for (name, start), end in zip(cuts, ends):
        if end < start:  # the readers are bounded, so this is a safety net
            raise Gp2Error(f"section {name} would end before it starts", start)
        out.append(Section(name, start, data[start:end]))
    return out


def parse(data: bytes) -> Gp2Track | None:
    """None when `data` is not a GP2 track at all (its offset table does not
    fit); Gp2Error when it looks like one but its structure is broken."""
    return decode(data) if probe(data) else None


def probe(data: bytes) -> bool:
    """True when the offset table says GP2 (cheap: looks at 32 bytes and the size)."""
    return looks_like_gp2(bytes(data[TABLE_AT : TABLE_AT + TABLE_SIZE]), len(data))
