"""The CSV files of a GP2 track folder. Every table has a header row; values
are raw integers as stored (s16 where the format says signed), flags and
command ids in hex. Commands after the last sector record carry the sector
index len(sectors), the position A2D calls an extra zero-length section."""
from __future__ import annotations

import csv
import io

from gbxfs.formats.gp2.commands import command_table
from gbxfs.formats.gp2.objects import ANGLE_UNITS_PER_DEGREE
from gbxfs.formats.gp2.offsets import BASE
from gbxfs.formats.gp2.sectors import SectorStream
from gbxfs.formats.gp2.track import Gp2Track


def _csv(header: list[str], rows) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def _deg(value: int) -> str:
    return f"{value / ANGLE_UNITS_PER_DEGREE:.2f}"


def render_objects(t: Gp2Track) -> bytes:
    """Object definitions; `ref` is the value a 0x80 command uses to name one."""
    return _csv(
        ["index", "offset", "ref", "id", "detail", "unknown1", "distance", "angle_x",
         "angle_x_deg", "angle_z", "angle_z_deg", "unknown2", "height", "id2"],
        ([d.index, f"0x{d.offset:X}", d.table_offset, d.ident, d.detail, d.unknown1,
          d.distance, d.angle_x, _deg(d.angle_x), d.angle_z, _deg(d.angle_z), d.unknown2,
          d.height, d.ident2] for d in t.object_definitions))


def render_internal_objects(t: Gp2Track) -> bytes:
    return _csv(["index", "offset", "rel_offset", "size", "first_word"],
                ([o.index, f"0x{o.offset:X}", o.offset - BASE, len(o.data),
                  f"0x{int.from_bytes(o.data[:2], 'little'):04X}"] for o in t.internal_objects))


def render_sectors(stream: SectorStream) -> bytes:
    return _csv(["sector", "offset", "length", "arc", "height", "flags", "right_verge",
                 "left_verge", "commands"],
                ([s.index, f"0x{s.offset:X}", s.length, s.arc, s.height, f"0x{s.flags:04X}",
                  s.right_verge, s.left_verge, len(s.commands)] for s in stream.sectors))


def render_commands(stream: SectorStream) -> bytes:
    names = command_table()
    return _csv(["sector", "command", "arg0", "args", "offset", "name"],
                ([index, f"0x{c.ident:02X}", c.arg0, " ".join(map(str, c.args)),
                  f"0x{c.offset:X}", names[c.ident].name] for index, c in stream.commands))


def render_ccline(t: Gp2Track) -> bytes:
    def row(s):
        values = list(s.values) + [""] * (5 - len(s.values))
        return [s.index, f"0x{s.offset:X}", s.length, f"0x{s.kind:02X}", *values]
    return _csv(["segment", "offset", "length", "type", "correction", "sign", "radius",
                 "sign2", "radius2"], (row(s) for s in t.ccline.segments))


def render_cameras(t: Gp2Track) -> bytes:
    header = ["camera", "offset", "distance"] + [f"word{i}" for i in range(1, 16)]
    return _csv(header, ([c.index, f"0x{c.offset:X}", *c.words] for c in t.cameras))
