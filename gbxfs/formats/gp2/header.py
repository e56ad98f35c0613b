"""The track header (28, 32 or 36 bytes) in front of the track sector stream."""
from __future__ import annotations

from dataclasses import dataclass

from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.errors import Gp2Error

KERB_TWO_COLOUR = 3
KERB_THREE_COLOUR = 4
# Fixed number of kerb colour words per kind; kind 4 may carry more (Adelaide has 8).
KERB_WORDS = {KERB_TWO_COLOUR: 4, KERB_THREE_COLOUR: 6}
COMMAND_MIN = 0x8000  # a word at or above this starts a command


@dataclass(frozen=True)
class TrackHeader:
    offset: int
    size: int
    start_angle: int
    start_height: int
    start_y: int
    start_z: int
    start_x: int
    start_width: int
    pole_side: int
    flags: int          # bit 0x200 selects the long form of command 0xC5
    right_verge: int
    left_verge: int
    kerb_kind: int
    kerb_colours: tuple[int, ...]


def read_header(cur: Cursor) -> TrackHeader:
    start = cur.pos
    angle = cur.u16()
    height, y, z, x, width, pole = cur.s16s(6)
    flags = cur.u16()
    right, left = cur.u8(), cur.u8()
    kind_at = cur.pos
    kind = cur.u16()
    if kind not in KERB_WORDS:
        raise Gp2Error(f"unknown kerb kind {kind} in the track header (expected 3 or 4)", kind_at)
    colours = [cur.u16() for _ in range(KERB_WORDS[kind])]
    if kind == KERB_THREE_COLOUR:
        # Further palette-index words (< 0x100) belong to the header until the
        # first command word; Adelaide's 36-byte header depends on this.
        # A first sector with no command would be read as colours here - every
        # known track starts with a command, and nothing in the file says more.
        while cur.peek_u16() < 0x100:
            colours.append(cur.u16())
        if cur.peek_u16() < COMMAND_MIN:
            raise Gp2Error("track header is not followed by a command", cur.pos)
    return TrackHeader(start, cur.pos - start, angle, height, y, z, x, width, pole,
                       flags, right, left, kind, tuple(colours))
