"""ghost.csv: one row per sample, a header row naming the columns.

Floats are written with repr-free fixed precision (6 decimals: micrometres
and micro-units, finer than any packed field) so files are stable and
grep-able; integers stay integers.
"""
from __future__ import annotations

from .model import GhostTrack


def _fmt(v) -> str:
    if isinstance(v, float):
        s = f"{v:.6f}".rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s
    return str(v)


def render_csv(track: GhostTrack) -> bytes:
    lines = [",".join(track.columns)]
    for s in track.samples:
        row = (s.time_ms, *s.position, *s.rotation, s.speed, *s.velocity, *s.extra)
        lines.append(",".join(_fmt(v) for v in row))
    return ("\n".join(lines) + "\n").encode("ascii")
