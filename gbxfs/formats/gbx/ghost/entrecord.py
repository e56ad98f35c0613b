"""TM2020 / ManiaPlanet 4 record data (CPlugEntRecordData, chunk 0911F000).

Newer games record every entity of a race (cars, checkpoints, the clock...)
in one blob; the car's samples are what ghost.csv shows. Facts from public
sources (GBX.NET's CPlugEntRecordData and CSceneVehicleVis.EntRecordDelta,
refined by vjeux/trackmania-tas), checked here by consuming every blob of the
corpus to its last byte and by the velocity-vs-position test:

chunk: u32 version, u32 uncompressedSize, u32 compressedSize, zlib blob
blob:  i32 startMs, i32 endMs
       i32 n, n x desc {u32 classId, i32, i32, i32, data, i32}
       v>=2: i32 n, n x notice {i32, i32, v>=4: u32 classId}
       entities: while u8 != 0:
           i32 descIndex, i32, i32 startMs, i32 endMs, v>=6: i32
           v>=11: i32 n; if n: i32 sampleSize, n x i32 time deltas, then the
                  samples column by column, each byte a running u8 sum
           v<11:  while u8 != 0: i32 time, data sample
           v>=2:  while u8 != 0: i32, i32 time, data     (entity events)
       v>=3: while u8 != 0: i32, i32, data
             v>=8: i32 lists (else 1); each: while u8 != 0: i32, data,
                   v>=9: data; v>=10: i32 period
A CSceneVehicleVis (0A018000) sample (>= 103 bytes) holds the car transform
at byte 47: vec3 position, quat6 rotation, vec3_4 velocity (ghost_codec).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .. import classdb
from ..blob import BlobCursor, inflate
from ..errors import GbxError
from .codec import quat6, vec3_4
from .model import GhostSample, GhostTrack

VEHICLE_VIS = classdb.class_id("CSceneVehicleVis")
RECORD_CHUNK = classdb.class_id("CPlugEntRecordData") | 0x000   # 0911F000
MIN_VEHICLE_SAMPLE = 103
_POS = struct.Struct("<3f").unpack_from
_U16 = struct.Struct("<H").unpack_from
_TAU = 6.283185307179586

VEHICLE_COLUMNS = ("gear", "rpm_raw", "steer", "gas", "brake", "side_speed", "turbo_time",
                   "ground_contact", "wheel_rot_fl_rad", "wheel_rot_fr_rad", "wheel_rot_rr_rad", "wheel_rot_rl_rad",
                   "damper_fl", "damper_fr", "damper_rr", "damper_rl", "wetness")


@dataclass(eq=False)
class Entity:
    desc_index: int
    class_id: int | None
    start_ms: int
    end_ms: int
    times: list[int] = field(default_factory=list)
    samples: list[bytes] = field(default_factory=list)


@dataclass(eq=False)
class RecordData:
    version: int
    start_ms: int
    end_ms: int
    class_ids: list[int]
    entities: list[Entity]


def parse_record_chunk(raw: bytes) -> RecordData:
    """The raw data of chunk 0911F000 -> RecordData."""
    c = BlobCursor(raw, "chunk 0911F000")
    version = c.u32()
    if version < 5:
        raise GbxError(f"record data version {version} (stored uncompressed) is not decoded",
                       chunk_id=RECORD_CHUNK)
    usize = c.u32()
    data = c.bytes(c.count(1, c.u32()))
    c.expect_end()
    try:
        return parse_record_blob(inflate(data, usize, "record data"), version)
    except GbxError as e:
        raise e.add_context(chunk_id=RECORD_CHUNK) from None


def parse_record_blob(blob: bytes, version: int) -> RecordData:
    c = BlobCursor(blob, "record data")
    start, end = c.i32(), c.i32()
    class_ids = []
    for _ in range(c.count(20)):
        class_ids.append(c.u32())
        c.i32(), c.i32(), c.i32()
        c.data_block()
        c.i32()
    if version >= 2:
        for _ in range(c.count(8)):
            c.i32(), c.i32()
            if version >= 4:
                c.u32()
    entities = []
    more = c.u8()
    while more:
        desc = c.i32()
        c.i32()
        e = Entity(desc, class_ids[desc] if 0 <= desc < len(class_ids) else None, c.i32(), c.i32())
        if version >= 6:
            c.i32()
        if version >= 11:
            _read_columns(c, e)
        else:
            while c.u8():
                e.times.append(c.i32())
                e.samples.append(c.data_block())
        entities.append(e)
        more = c.u8()
        if version >= 2:
            while c.u8():
                c.i32(), c.i32()
                c.data_block()
    if version >= 3:
        while c.u8():
            c.i32(), c.i32()
            c.data_block()
        lists = c.count(1) if version >= 8 else 1
        for _ in range(lists):
            while c.u8():
                c.i32()
                c.data_block()
                if version >= 9:
                    c.data_block()
            if version >= 10:
                c.i32()
    c.expect_end()
    return RecordData(version, start, end, class_ids, entities)


def _read_columns(c: BlobCursor, e: Entity) -> None:
    """v11+ samples: time deltas, then byte columns delta-coded across samples."""
    n = c.count(4)
    if n == 0:
        return
    size = c.i32()
    if size < 0 or size * n > c.left:
        raise GbxError(f"{n} samples of {size} bytes do not fit the {c.left} bytes left", offset=c.pos)
    t = 0
    for d in c.i32_array(n):
        t += d
        e.times.append(t)
    block = c.bytes(size * n)
    rows = [bytearray(size) for _ in range(n)]
    for col in range(size):
        acc = 0
        base = col * n
        for i in range(n):
            acc = (acc + block[base + i]) & 0xFF
            rows[i][col] = acc
    e.samples = [bytes(r) for r in rows]


def vehicle_tracks(rec: RecordData) -> list[GhostTrack]:
    """One track per car entity, the fullest first (a ghost may also carry a
    decimated copy of its car with a handful of samples)."""
    cars = [e for e in rec.entities if e.class_id == VEHICLE_VIS and e.samples]
    cars.sort(key=lambda e: -len(e.samples))
    return [_track(e, rec.version) for e in cars]


def _track(e: Entity, version: int) -> GhostTrack:
    sizes = {len(s) for s in e.samples}
    track = GhostTrack(encoding=f"CPlugEntRecordData v{version}", mobil_class_id=VEHICLE_VIS,
                       sample_size=sizes.pop() if len(sizes) == 1 else None,
                       extra_columns=VEHICLE_COLUMNS)
    if len(e.times) > 1:
        gaps = [b - a for a, b in zip(e.times, e.times[1:])]
        track.period_ms = max(set(gaps), key=gaps.count)
    for t, d in zip(e.times, e.samples):
        if len(d) < MIN_VEHICLE_SAMPLE:
            track.notes.append(f"sample at {t} ms has {len(d)} bytes, {MIN_VEHICLE_SAMPLE} needed; skipped")
            continue
        speed, vel = vec3_4(d, 65)
        track.samples.append(GhostSample(t, _POS(d, 47), quat6(d, 59), speed, vel, _vehicle_fields(d)))
    return track


def _vehicle_fields(d: bytes) -> tuple:
    wheels = tuple((d[6 + 2 * i] / 255 + d[7 + 2 * i]) * _TAU for i in range(4))
    dampers = tuple((d[23 + 2 * i] / 255 - 0.5) * 4 for i in range(4))
    brake = d[18] / 255
    return ((d[91] - 1) / 4, d[5], (d[14] / 255 - 0.5) * 2, d[15] / 255 + brake, brake,
            (_U16(d, 2)[0] / 65536 - 0.5) * 2000, d[21] / 255, d[89] & 1) + wheels + dampers + (d[101] / 255,)
