"""The packed quantities of ghost samples: rotations and velocities.

Facts (the wiki's GBX page, docs/formats/README.md; confirmed on the
corpus, see tests/formats/gbx/test_ghost_samples.py):
- quat6: u16 angle (0..0xFFFF -> 0..pi), i16 axis heading (-pi..pi), i16 axis
  pitch (-pi/2..pi/2). The quaternion is (axis * sin(angle), cos(angle)),
  axis = (cos p cos h, cos p sin h, sin p): a rotation by 2*angle.
- quat3 (TrackMania 1.0, state version 2): the same three values in one byte
  each (u8 angle 0..255 -> 0..pi, i8 heading, i8 pitch).
- vec3_4 (velocity): i16 log-speed (speed = exp(v/1000), -0x8000 = 0), i8
  heading (-pi..pi), i8 pitch (-pi/2..pi/2); same direction formula. The
  tests check it against the finite difference of the positions.
"""
from __future__ import annotations

import math
import struct

_QUAT6 = struct.Struct("<Hhh").unpack_from
_QUAT3 = struct.Struct("<Bbb").unpack_from
_VEC34 = struct.Struct("<hbb").unpack_from

_PI = math.pi


def _direction(heading: float, pitch: float) -> tuple[float, float, float]:
    cp = math.cos(pitch)
    return (cp * math.cos(heading), cp * math.sin(heading), math.sin(pitch))


def _quat(angle: float, heading: float, pitch: float) -> tuple[float, float, float, float]:
    s = math.sin(angle)
    ax, ay, az = _direction(heading, pitch)
    return (ax * s, ay * s, az * s, math.cos(angle))


def quat6(buf: bytes, off: int) -> tuple[float, float, float, float]:
    a, h, p = _QUAT6(buf, off)
    return _quat(a * _PI / 0xFFFF, h * _PI / 0x7FFF, p * (_PI / 2) / 0x7FFF)


def quat3(buf: bytes, off: int) -> tuple[float, float, float, float]:
    a, h, p = _QUAT3(buf, off)
    return _quat(a * _PI / 0xFF, h * _PI / 0x7F, p * (_PI / 2) / 0x7F)


def vec3_4(buf: bytes, off: int) -> tuple[float, tuple[float, float, float]]:
    """(speed, velocity vector) from a packed 4-byte velocity."""
    mag, h, p = _VEC34(buf, off)
    speed = 0.0 if mag == -0x8000 else math.exp(mag / 1000.0)
    dx, dy, dz = _direction(h * _PI / 0x7F, p * (_PI / 2) / 0x7F)
    return speed, (speed * dx, speed * dy, speed * dz)
