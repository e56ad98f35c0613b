"""The offset table at 0x1000: the content signature of a GP2 track.

Recognition rests on this table alone (32 bytes plus the file size), so a
caller can decide "GP2 or not" without reading the whole file: the
checksum offset must land exactly 4 bytes before the end of the file and the
section offsets must be in file order with the sizes the format fixes. A
random file, packlist.dat, or an F1GP (GP1) track - whose table is 16-bit and
0x1010-based - fails these checks.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from gbxfs.formats.gp2.errors import Gp2Error

TABLE_AT = 0x1000          # the offset table follows the 4 KiB leading block
BASE = 0x1020              # the table's offsets are relative to this address
TABLE_SIZE = BASE - TABLE_AT  # 7 u32 + the internal-object count = 32 bytes
SETUP_SIZE = 38            # the pit lane always starts 38 bytes after the car setup
TRACK_HEADER_MIN = 28
CHECKSUM_SIZE = 4
GP1_MARKER = 0x1010        # u16 at 0x1000 in F1GP files (their offsets are 0x1010-based)

_TABLE = struct.Struct("<8I")


@dataclass(frozen=True)
class OffsetTable:
    """Absolute file offsets (the stored values + 0x1020) and the raw unknowns."""
    unknown1: int          # in-memory address of file offset 0x1020 when authored
    unknown2: int          # pointer 90 bytes into one internal object
    checksum: int
    object_definitions: int
    track: int
    car_setup: int
    pitlane: int
    object_count: int

    @property
    def object_list_end(self) -> int:
        return BASE + 4 * self.object_count


def read_offset_table(head: bytes, file_size: int) -> OffsetTable:
    """Check the 32 bytes at 0x1000 against the file size; Gp2Error if they
    do not describe a GP2 track. `head` must be exactly those 32 bytes."""
    if file_size < BASE + CHECKSUM_SIZE or len(head) < TABLE_SIZE:
        raise Gp2Error(f"too short for a GP2 track ({file_size} bytes)")
    fields = _TABLE.unpack_from(head, 0)
    try:
        return _check(fields, file_size)
    except Gp2Error:
        if fields[0] & 0xFFFF == GP1_MARKER:
            raise Gp2Error("F1GP (GP1) track file (16-bit, 0x1010-based offset table), "
                           "not a GP2 track", TABLE_AT) from None
        raise


def _check(fields: tuple[int, ...], file_size: int) -> OffsetTable:
    unknown1, unknown2, checksum, objdefs, track, setup, pitlane, count = fields
    table = OffsetTable(unknown1, unknown2, checksum + BASE, objdefs + BASE,
                        track + BASE, setup + BASE, pitlane + BASE, count)
    if table.checksum + CHECKSUM_SIZE != file_size:
        raise Gp2Error(f"checksum offset 0x{table.checksum:X} is not 4 bytes before the end "
                       f"of the file ({file_size} bytes)", TABLE_AT + 8)
    if not table.object_list_end <= table.object_definitions <= table.track:
        raise Gp2Error("internal-object list, object definitions and track data "
                       "are not in file order", TABLE_AT + 0xC)
    if (table.track - table.object_definitions) % 16:
        raise Gp2Error("object definitions are not a whole number of 16-byte records",
                       TABLE_AT + 0xC)
    if table.track + TRACK_HEADER_MIN >= table.car_setup:
        raise Gp2Error("no room for track data before the car setup", TABLE_AT + 0x14)
    if table.pitlane != table.car_setup + SETUP_SIZE:
        raise Gp2Error("pit lane does not start 38 bytes after the car setup", TABLE_AT + 0x18)
    if table.pitlane >= table.checksum:
        raise Gp2Error("pit lane starts after the checksum", TABLE_AT + 0x18)
    return table


def looks_like_gp2(head: bytes, file_size: int) -> bool:
    """True when the 32 bytes at 0x1000 are a consistent GP2 offset table."""
    try:
        read_offset_table(head, file_size)
    except Gp2Error:
        return False
    return True
