"""CGameGhost sample buffers (chunks 0303F003, 0303F005, 0303F006) -> GhostTrack.

Layouts (GBX seed page for 0303F005/006; GBX.NET's CGameGhost for the rest,
facts only; every field checked on the corpus):

0303F005: u32 uncompressedSize, u32 compressedSize, zlib data holding
    u32 savedMobilClassId (0xFFFFFFFF: no samples, TM2020 keeps them elsewhere)
    bool isFixedTimeStep, u32 ?, u32 samplePeriod (ms), u32 stateVersion,
    u32 size + byte stateBuffer[size]
    u32 numSamples; if >0: u32 firstSampleOffset; if >1: i32 sizePerSample
        (-1: u32 sampleSizes[numSamples-1]; the last sample is the remainder)
    if not fixed: u32 n + i32 times[n]
    0303F006 only ("archive version 1"): times are deltas, and a fixed-step
    ghost ends with u32 firstSampleTime.
0303F006: u32 isReplaying, then the 0303F005 layout.
0303F003 (TM1.0 .. Nations ESWC, not compressed): u32 size + stateBuffer,
    u32 n + i32 offsets[n], u32 m + i32 times[m], bool fixed, u32 period,
    u32 stateVersion. The recorded class is in chunk 0303F004.
"""
from __future__ import annotations

from .errors import GbxError
from .ghost_cursor import Cursor, inflate
from .ghost_model import GhostSample, GhostTrack
from .ghost_vehicle import CAR_CLASS_IDS, decode_car_sample, extra_columns, supported

NO_SAMPLES = 0xFFFFFFFF


def decode_ghost_chunk(chunk_id: int, raw: bytes) -> GhostTrack | None:
    """Decode the raw data of chunk 0303F005 or 0303F006 (ids after class-id
    remapping). None when the chunk holds no samples (savedMobilClassId -1)."""
    low = chunk_id & 0xFFF
    if low not in (5, 6):
        raise GbxError(f"not a CGameGhost sample chunk: {chunk_id:08X}", chunk_id=chunk_id)
    c = Cursor(raw, f"chunk {chunk_id:08X}")
    if low == 6:
        c.u32()  # isReplaying
    usize = c.u32()
    data = c.bytes(c.count(1, c.u32()))
    c.expect_end()
    inner = inflate(data, usize, f"chunk {chunk_id:08X} samples")
    try:
        return _decode_new(inner, deltas=low == 6, encoding=f"CGameGhost {chunk_id:08X}")
    except GbxError as e:
        raise e.add_context(chunk_id=chunk_id) from None


def _decode_new(inner: bytes, *, deltas: bool, encoding: str) -> GhostTrack | None:
    c = Cursor(inner, "ghost samples")
    mobil = c.u32()
    if mobil == NO_SAMPLES:
        return None
    fixed = c.u32() != 0
    c.u32()
    period = c.i32()
    version = c.i32()
    states = c.data_block()
    n = c.i32()
    if n < 0 or n > len(states):   # every record takes at least one byte
        raise GbxError(f"{n} samples in a {len(states)}-byte state buffer", offset=c.pos)
    sizes: list[int] | None = None
    uniform = None
    if n > 0:
        c.u32()  # firstSampleOffset
        if n > 1:
            uniform = c.i32()
            if uniform == -1:
                sizes = c.i32_array(n - 1)
            elif uniform <= 0 or uniform * (n - 1) > len(states):
                raise GbxError(f"{n} samples of {uniform} bytes do not fit a {len(states)}-byte buffer")
    times = None
    if not fixed:
        times = c.i32_array()
        if len(times) != n:
            raise GbxError(f"{len(times)} sample times for {n} samples")
        if deltas:
            for i in range(1, n):
                times[i] += times[i - 1]
    first_time = c.i32() if fixed and deltas else 0
    c.expect_end()
    if fixed and period <= 0 and n > 1:
        raise GbxError(f"fixed time step with period {period}")
    # cut the state buffer into records; the last record is the remainder
    records, p = [], 0
    for i in range(n):
        if i == n - 1:
            size = len(states) - p
        else:
            size = sizes[i] if sizes is not None else uniform
        if size < 0 or p + size > len(states):
            raise GbxError(f"sample {i} ({size} bytes at {p}) runs past the {len(states)}-byte buffer")
        records.append(states[p:p + size])
        p += size
    sample_times = times if times is not None else [first_time + i * period for i in range(n)]
    return _track(encoding, mobil, version, period if fixed else None,
                  uniform if uniform and uniform > 0 else None, records, sample_times)


def decode_old_ghost(states: bytes, offsets: list[int], times: list[int], fixed: bool,
                     period: int, version: int, mobil_class_id: int | None = None) -> GhostTrack | None:
    """Samples of chunk 0303F003 (fields as the chunk declaration decodes them)."""
    n = len(offsets)
    if n == 0:
        return None
    if any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[0] < 0 or offsets[-1] > len(states):
        raise GbxError("sample offsets are not increasing within the state buffer")
    bounds = list(offsets) + [len(states)]
    records = [states[bounds[i]:bounds[i + 1]] for i in range(n)]
    if fixed or len(times) != n:
        sample_times = [i * period for i in range(n)]
    else:
        sample_times = list(times)
    sizes = {b - a for a, b in zip(offsets, offsets[1:])}
    # TM1.0 stores no recorded class (no chunk 0303F004): its ghosts are always cars
    track = _track("CGameGhost 0303F003", mobil_class_id if mobil_class_id is not None else CAR_CLASS_IDS[0],
                   version, period if fixed else None, sizes.pop() if len(sizes) == 1 else None,
                   records, sample_times)
    if mobil_class_id is None:
        track.mobil_class_id = None
        track.notes.append("recorded class not stored (no chunk 0303F004); decoded as a vehicle")
    return track


def _track(encoding, mobil, version, period, size, records, times) -> GhostTrack:
    track = GhostTrack(encoding=encoding, mobil_class_id=mobil, state_version=version,
                       period_ms=period, sample_size=size)
    if mobil not in CAR_CLASS_IDS:
        track.notes.append(f"{len(records)} samples of class {mobil:08X}: only vehicles "
                           "(CSceneVehicleCar) are decoded")
        return track
    if not supported(version):
        track.notes.append(f"{len(records)} samples of vehicle state version {version}: not decoded")
        return track
    track.extra_columns = extra_columns(version)
    for i, (t, rec) in enumerate(zip(times, records)):
        try:
            pos, rot, speed, vel, extra = decode_car_sample(rec, version)
        except GbxError as e:
            raise GbxError(f"sample {i}: {e.reason}") from None
        track.samples.append(GhostSample(t, pos, rot, speed, vel, extra))
    return track


def decode_old_ghost_chunk(raw: bytes, mobil_class_id: int | None = None) -> GhostTrack | None:
    """Decode the raw data of chunk 0303F003 (layout in the module docstring)."""
    c = Cursor(raw, "chunk 0303F003")
    try:
        states = c.data_block()
        offsets = c.i32_array()
        times = c.i32_array()
        fixed = c.u32() != 0
        period = c.i32()
        version = c.i32()
        c.expect_end()
        return decode_old_ghost(states, offsets, times, fixed, period, version, mobil_class_id)
    except GbxError as e:
        raise e.add_context(chunk_id=0x0303F003) from None
