"""The regions after the pit lane: cameras, the 344-byte "various data"
block, the jam-file list, and the checksum."""
from __future__ import annotations

from dataclasses import dataclass, field

from gbxfs.formats.gp2.cursor import Cursor
from gbxfs.formats.gp2.errors import Gp2Error

CAMERA_SIZE = 32
END = 0xFFFF
VARIOUS_SIZE = 344      # fixed in every known track, whatever its table holds
VARIOUS_WORDS = 50
LAPS_INDEX = 11


@dataclass(frozen=True)
class Camera:
    index: int
    offset: int
    words: tuple[int, ...]    # 16 u16; word 0 is the track distance


@dataclass
class VariousData:
    offset: int
    words: tuple[int, ...]                  # the fixed 50-word table
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (u16 distance, s16 value)
    terminated: bool = False                # the pair list ended with 0xFFFF inside the block
    padding_nonzero: int = 0                # non-zero bytes after the terminator

    @property
    def laps(self) -> int:
        return self.words[LAPS_INDEX]


@dataclass
class JamFiles:
    offset: int
    object_offset: int     # 0x1020-relative offset of one internal object (starting lights)
    count_field: int       # not reliable: may exceed the number of paths
    paths: list[str] = field(default_factory=list)


def read_cameras(cur: Cursor) -> list[Camera]:
    cameras: list[Camera] = []
    while cur.peek_u16() != END:   # each record moves the cursor 32 bytes: bounded by the section
        at = cur.pos
        words = tuple(cur.u16() for _ in range(CAMERA_SIZE // 2))
        cameras.append(Camera(len(cameras), at, words))
    cur.pos += 2
    return cameras


def read_various(cur: Cursor) -> VariousData:
    start = cur.pos
    block = Cursor(cur.data, start, min(start + VARIOUS_SIZE, cur.end), "various-data block")
    block.need(VARIOUS_SIZE)
    various = VariousData(start, tuple(block.u16() for _ in range(VARIOUS_WORDS)))
    while block.pos + 2 <= block.end:
        if block.peek_u16() == END:
            block.pos += 2
            various.terminated = True
            break
        if block.pos + 4 > block.end:
            break
        various.pairs.append((block.u16(), block.s16()))
    various.padding_nonzero = sum(1 for b in cur.data[block.pos : block.end] if b)
    cur.pos = start + VARIOUS_SIZE
    return various


def read_jams(cur: Cursor) -> JamFiles:
    """Paths are read up to the end of the cursor (the checksum), not `count_field` times."""
    jams = JamFiles(cur.pos, cur.u32(), cur.u16())
    while cur.pos < cur.end:
        nul = cur.data.find(b"\0", cur.pos, cur.end)
        if nul < 0:
            raise Gp2Error("jam-file path is not NUL-terminated before the checksum", cur.pos)
        jams.paths.append(cur.data[cur.pos : nul].decode("latin-1"))
        cur.pos = nul + 1
    return jams
