"""info.txt: the track summary, one `name = value` line per fact, followed by
the offset and size of every raw section (grep-friendly, like GBX info.txt).
`describe(data)` gives the same text for `gbxfs info`."""
from __future__ import annotations

from gbxfs.formats.gp2.track import Gp2Track, decode

GAP_EDITOR_MARK = b"PDH\0"   # Paul Hoad's editor ends the gap with this


def _hex_pair(pair: tuple[int, int]) -> str:
    return f"0x{pair[0]:04X} 0x{pair[1]:04X}"


def info_lines(t: Gp2Track) -> list[tuple[str, object]]:
    gap = t.section("gap").data
    lines: list[tuple[str, object]] = [
        ("format", "GP2 track"),
        ("file_size", t.size),
        ("checksum", "ok" if t.checksum.ok else "bad"),
        ("checksum_stored", _hex_pair(t.checksum.stored)),
        ("checksum_computed", _hex_pair(t.checksum.computed)),
        ("sectors", len(t.track.sectors)),
        ("trailing_commands", len(t.track.trailing)),
        ("length_units", t.track.length_units),
        ("length_m", f"{t.length_m:.1f}"),
        ("laps", t.laps),
        ("objects", len(t.internal_objects)),
        ("object_definitions", len(t.object_definitions)),
        ("track_header_size", t.header.size),
        ("track_header_flags", f"0x{t.header.flags:04X}"),
        ("kerb_kind", t.header.kerb_kind),
        ("track_commands", len(t.track.commands)),
        ("ccline_segments", len(t.ccline.segments)),
        ("ccline_segments_0x70", sum(1 for s in t.ccline.segments if s.kind == 0x70)),
        ("ccline_length_units", t.ccline.length_units),
        ("gap_size", len(gap)),
        ("gap_nonzero_bytes", sum(1 for b in gap if b)),
        ("gap_editor_mark", "yes" if gap.endswith(GAP_EDITOR_MARK) else "no"),
        ("pit_sectors", len(t.pitlane.sectors)),
        ("pit_commands", len(t.pitlane.commands)),
        ("cameras", len(t.cameras)),
        ("jam_files", len(t.jams.paths)),
        ("jam_count_field", t.jams.count_field),
        ("unknown1", f"0x{t.table.unknown1:X}"),
        ("unknown2", f"0x{t.table.unknown2:X}"),
    ]
    for s in t.sections:
        lines.append((f"offset.{s.name}", f"0x{s.offset:X}"))
        lines.append((f"size.{s.name}", len(s.data)))
    lines += [(f"gp2info.{key}", value) for key, value in t.info]
    return lines


def render_info(t: Gp2Track) -> bytes:
    return "".join(f"{k} = {v}\n" for k, v in info_lines(t)).encode("utf-8")


def describe(data: bytes) -> str:
    """Summary text of a GP2 track for `gbxfs info`. Raises Gp2Error when
    `data` is not a GP2 track or is structurally broken (the reason is in
    the exception); a bad checksum is reported in the text, not raised."""
    return render_info(decode(data)).decode("utf-8")
