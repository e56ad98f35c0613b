"""Plain records for decoded ghost samples (what ghost.csv shows).

A ghost is a track of vehicle states sampled over time. Every encoding the
games used (CGameGhost sample buffers from TM1.0 to TM Turbo, TM2020's
CPlugEntRecordData) is decoded into the same shape, so one CSV writer serves
them all: fixed columns first (time, position, rotation quaternion, speed,
velocity), then the further fields that this encoding's version yields.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]   # x, y, z, w

# Columns every track has, in CSV order; the unit ends the name (ms, metres, m/s).
BASE_COLUMNS = ("time_ms", "x_m", "y_m", "z_m", "qx", "qy", "qz", "qw", "speed_mps", "vx_mps", "vy_mps", "vz_mps")


@dataclass(eq=False)
class GhostSample:
    time_ms: int
    position: Vec3
    rotation: Quat
    speed: float          # m/s, the magnitude of `velocity`
    velocity: Vec3        # m/s, world axes
    # further fields of this encoding, in the track's `extra_columns` order
    extra: tuple = ()


@dataclass(eq=False)
class GhostTrack:
    """One recorded vehicle: its samples plus how they were stored."""
    encoding: str                     # e.g. "CGameGhost 0303F005", "CPlugEntRecordData"
    samples: list[GhostSample] = field(default_factory=list)
    extra_columns: tuple[str, ...] = ()
    mobil_class_id: int | None = None  # class of the recorded object (0A02B000 CSceneVehicleCar, ...)
    state_version: int | None = None   # version of the per-sample state record
    period_ms: int | None = None       # time between samples
    sample_size: int | None = None     # bytes per sample record, when uniform
    notes: list[str] = field(default_factory=list)   # what was not decoded, and why

    @property
    def columns(self) -> tuple[str, ...]:
        return BASE_COLUMNS + self.extra_columns
