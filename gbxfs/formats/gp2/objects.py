"""Internal objects (3D shapes, kept as opaque blobs) and object definitions
(the 16-byte placement records that track command 0x80 points at)."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from gbxfs.formats.gp2.errors import Gp2Error
from gbxfs.formats.gp2.offsets import BASE, OffsetTable

OBJDEF_SIZE = 16
_OBJDEF = struct.Struct("<BBhhhhhhh")
ANGLE_UNITS_PER_DEGREE = 65536 / 360


@dataclass(frozen=True)
class InternalObject:
    index: int       # position in the offset list (the list is not in file order)
    offset: int      # absolute file offset
    data: bytes      # up to the next object (padding and stray trailing bytes included)


@dataclass(frozen=True)
class ObjectDefinition:
    index: int
    offset: int      # absolute file offset
    table_offset: int  # byte offset inside the table: the value command 0x80 uses
    ident: int
    detail: int
    unknown1: int
    distance: int    # from the track centre, positive to the right
    angle_x: int
    angle_z: int
    unknown2: int
    height: int
    ident2: int


def read_internal_objects(data: bytes, table: OffsetTable) -> list[InternalObject]:
    """Blobs in list order. An object runs up to the next higher offset in the
    list, the highest one up to the object definitions."""
    start, end = table.object_list_end, table.object_definitions
    offsets = list(struct.unpack_from(f"<{table.object_count}I", data, BASE))
    absolute = [o + BASE for o in offsets]
    for i, off in enumerate(absolute):
        if not start <= off < end:
            raise Gp2Error(f"internal object {i} offset 0x{off:X} is outside "
                           f"0x{start:X}..0x{end:X}", BASE + 4 * i)
    bounds = sorted(set(absolute)) + [end]
    next_of = {b: bounds[i + 1] for i, b in enumerate(bounds[:-1])}
    return [InternalObject(i, off, bytes(data[off : next_of[off]]))
            for i, off in enumerate(absolute)]


def read_object_definitions(data: bytes, table: OffsetTable) -> list[ObjectDefinition]:
    start = table.object_definitions
    count = (table.track - start) // OBJDEF_SIZE
    out = []
    for i in range(count):
        off = start + i * OBJDEF_SIZE
        fields = _OBJDEF.unpack_from(data, off)
        out.append(ObjectDefinition(i, off, i * OBJDEF_SIZE, *fields))
    return out
