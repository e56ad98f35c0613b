"""CGameGhost samples -> GhostTrack, from the fields the declarations decoded.

The sample containers (chunks 0303F005/0303F006, compressed, and 0303F003 of TM1.0 ..
Nations ESWC) are declared in chunks/ghost.chunks; the walker decodes them once, and
this module only cuts the decoded state buffer into sample records and decodes those
(ghost/vehicle.py). Field names used here are the declarations'. The recorded class
of an 0303F003 ghost is in chunk 0303F004.

`decode_ghost_chunk` takes a chunk's raw bytes instead (tests, tools): it decodes them
with the same declaration first.
"""
from __future__ import annotations

from typing import Any

from .. import classdb
from ..decl import registry
from ..errors import GbxError
from ..model import Chunk
from ..nodes import decode_bytes
from .model import GhostSample, GhostTrack
from .vehicle import CAR_CLASS_IDS, decode_car_sample, extra_columns, supported

NO_SAMPLES = 0xFFFFFFFF
OLD_SAMPLES = classdb.class_id("CGameGhost") | 0x003   # 0303F003


def _i32(v: int) -> int:
    """A u32 field read as the signed number the samples code means."""
    return v - (1 << 32) if v >= 1 << 31 else v


def _values(chunk: Chunk) -> dict[str, Any]:
    if chunk.values is None:
        raise chunk.error if chunk.error is not None else \
            GbxError(f"chunk {chunk.chunk_id:08X} was not decoded", chunk_id=chunk.chunk_id)
    return chunk.values


def ghost_track(chunk: Chunk, mobil: Chunk | None = None) -> GhostTrack | None:
    """The samples of a decoded CGameGhost sample chunk (0303F003, 0303F005 or
    0303F006); `mobil`: the node's 0303F004 chunk (0303F003 only). None when the chunk
    holds no samples. GbxError when the chunk was not decoded or the samples are bad."""
    v = _values(chunk)
    if chunk.chunk_id == OLD_SAMPLES:
        mobil_id = mobil.values.get("savedMobilClassId") if mobil is not None and mobil.values else None
        try:
            return decode_old_ghost(bytes(v["stateBuffer"]), list(v["sampleOffsets"]), list(v["sampleTimes"]),
                                    bool(v["isFixedTimeStep"]), _i32(v["samplePeriod"]), _i32(v["stateVersion"]),
                                    mobil_id)
        except GbxError as e:
            raise e.add_context(chunk_id=chunk.chunk_id) from None
    try:
        return _decode_new(v, deltas="sampleTimeDeltas" in v or "firstSampleTime" in v,
                           encoding=f"CGameGhost {chunk.chunk_id:08X}")
    except GbxError as e:
        raise e.add_context(chunk_id=chunk.chunk_id) from None


def decode_ghost_chunk(chunk_id: int, raw: bytes) -> GhostTrack | None:
    """ghost_track() for a chunk given as raw bytes (decoded with its declaration)."""
    decl = registry().get(chunk_id)
    if decl is None:
        raise GbxError(f"not a CGameGhost sample chunk: {chunk_id:08X}", chunk_id=chunk_id)
    try:
        values = decode_bytes(decl, raw, chunk_id=chunk_id)
    except GbxError as e:
        raise e.add_context(chunk_id=chunk_id) from None
    return ghost_track(Chunk(chunk_id, 0, len(raw), raw, values=values))


def _decode_new(v: dict[str, Any], *, deltas: bool, encoding: str) -> GhostTrack | None:
    mobil = v["savedMobilClassId"]
    if mobil == NO_SAMPLES:
        return None
    fixed = bool(v["isFixedTimeStep"])
    period = _i32(v["samplePeriod"])
    version = _i32(v["stateVersion"])
    states = bytes(v["stateBuffer"])
    n = _i32(v["numSamples"])
    if n < 0 or n > len(states):   # every record takes at least one byte
        raise GbxError(f"{n} samples in a {len(states)}-byte state buffer")
    sizes: list[int] | None = None
    uniform: Any = None             # a decoded value; read below only when n > 1
    if n > 1:
        uniform = v["sizePerSample"]
        if uniform == -1:
            sizes = [_i32(x) for x in v["sampleSizes"]]
        elif uniform <= 0 or uniform * (n - 1) > len(states):
            raise GbxError(f"{n} samples of {uniform} bytes do not fit a {len(states)}-byte buffer")
    times = None
    if not fixed:
        times = list(v["sampleTimeDeltas"] if deltas else v["sampleTimes"])   # a copy: the values stay as read
        if len(times) != n:
            raise GbxError(f"{len(times)} sample times for {n} samples")
        if deltas:
            for i in range(1, n):
                times[i] += times[i - 1]
    first_time = _i32(v["firstSampleTime"]) if fixed and deltas else 0
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
