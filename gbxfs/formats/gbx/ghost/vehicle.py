"""One CSceneVehicleCar sample record of a CGameGhost buffer, by state version.

Layouts (versions seen in the corpus: 2 TM1.0, 7 Sunrise, 8 Nations ESWC,
9 United/Forever, 12 ManiaPlanet 3, 16 ManiaPlanet 4/Turbo):

- v2 (46 bytes): u8 flags, vec3 position, quat3 rotation, vec3_4 velocity,
  vec3_4 angular velocity, then 22 bytes of vehicle state of which only the
  first two words (forward and sideways speed) are decoded. Worked out from
  the corpus: the velocity decodes to the positions' finite difference only
  at offset 16, and the 3 bytes before it are a rotation whose axis is the
  car's up axis on flat ground.
- v3+ (all but 13): vec3 position, quat6 rotation, vec3_4 velocity, vec3_4
  angular velocity (26 bytes), then the vehicle state: field order and
  scales from GBX.NET's CSceneVehicleCar.Sample (facts only). The state sizes
  this gives (30, 34, 35, 42, 47 bytes for v7, 8, 9, 12, 16) match the sample
  sizes stored in the files, and forward speed matches the sample speed.
- v13 is a 2-byte network state; it is not decoded.
"""
from __future__ import annotations

import math
import struct

from ..errors import GbxError
from .codec import quat3, quat6, vec3_4

_POS = struct.Struct("<3f").unpack_from
_U16 = struct.Struct("<H").unpack_from

CAR_CLASS_IDS = (0x0A02B000, 0x0A103000)   # CSceneVehicleCar (and its older id)

_HMS = ("angvel_x", "angvel_y", "angvel_z")
_SPEEDS = ("speed_forward_mps", "speed_sideward_mps")   # names end with their unit
_V7 = _SPEEDS + ("rpm", "wheel_rot_fl_rad", "wheel_rot_fr_rad", "wheel_rot_rr_rad", "wheel_rot_rl_rad",
                 "steer", "gas", "brake", "turbo_strength", "steer_front_rad",
                 "damper_fl", "material_fl", "damper_fr", "material_fr",
                 "damper_rr", "material_rr", "damper_rl", "material_rl")
_V8 = _V7 + ("horn", "is_turbo")
_V9 = _V8 + ("dirt_blend",)

# bytes of vehicle state after the 26-byte position/rotation/velocity part
_STATE_SIZE = {7: 30, 8: 34, 9: 35, 10: 42, 11: 42, 12: 42, 14: 44, 15: 45, 16: 47}
_TAIL_ITEM = 12 + 6 + 1   # v11+: extra (vec3, quat6, byte) items announced in the state


def extra_columns(version: int) -> tuple[str, ...]:
    if version == 2:
        return _HMS + _SPEEDS
    if version in _STATE_SIZE:
        return _HMS + (_V7 if version == 7 else _V8 if version == 8 else _V9)
    return _HMS


def supported(version: int) -> bool:
    return version == 2 or (version >= 3 and version != 13)


def _speeds(buf: bytes, off: int) -> tuple[float, float]:
    fwd = _U16(buf, off)[0] / 65535 * 11000 - 1000
    side = _U16(buf, off + 2)[0] / 65535 * 2000 - 1000
    return fwd, side


def _state(buf: bytes, off: int, version: int) -> tuple:
    """The v7+ vehicle state fields at `off`, in extra_columns order."""
    b = buf
    fwd, side = _speeds(b, off)
    rpm = _U16(b, off + 4)[0] / 65535 * 30000
    wheels = tuple(_U16(b, off + 6 + 2 * i)[0] / 65535 * 1608.495 for i in range(4))
    p = off + 14
    steer = b[p] / 255 * 2 - 1
    gas = b[p + 1] / 255
    brake = b[p + 2] / 255
    p += 4                      # + one unknown byte
    if version >= 8:
        p += 1                  # unknown byte (GBX.NET: "should be always 0")
    p += 2                      # two unknown signed bytes
    turbo = b[p] / 255
    steer_front = b[p + 1] / 255 * 2 * math.pi - math.pi
    p += 2
    wheel_state = []
    for _ in range(4):
        wheel_state += [b[p] / 255 * 4 - 2, b[p + 1]]
        p += 2
    out = (fwd, side, rpm) + wheels + (steer, gas, brake, turbo, steer_front) + tuple(wheel_state)
    if version >= 8:
        flags = b[p]
        out += (flags & 3, int(bool(flags & 0x80)))
        p += 3
        if version >= 9:
            out += (b[p] / 255,)
    return out


def decode_car_sample(buf: bytes, version: int):
    """(position, rotation, speed, velocity, extra) of one sample record.
    Raises GbxError when the record is shorter than its version needs."""
    if version == 2:
        if len(buf) < 28:
            raise GbxError(f"vehicle state v2 record of {len(buf)} bytes, 28 needed")
        pos = _POS(buf, 1)
        rot = quat3(buf, 13)
        speed, vel = vec3_4(buf, 16)
        _, ang = vec3_4(buf, 20)
        return pos, rot, speed, vel, ang + _speeds(buf, 24)
    need = 26 + _STATE_SIZE.get(version, 0)
    if len(buf) < need:
        raise GbxError(f"vehicle state v{version} record of {len(buf)} bytes, {need} needed")
    pos = _POS(buf, 0)
    rot = quat6(buf, 12)
    speed, vel = vec3_4(buf, 18)
    _, ang = vec3_4(buf, 22)
    extra = ang
    if version in _STATE_SIZE:
        extra += _state(buf, 26, version)
        items = 0
        if version >= 11:
            # v10+ state byte 41 announces trailing (vec3, quat6, byte) items in bits 2..4
            items = (buf[26 + 41] >> 2) & 7
            if version == 11:
                items = min(items, 4)
        # an exact size is the structural check that the version's layout is right
        if len(buf) != need + items * _TAIL_ITEM:
            raise GbxError(f"vehicle state v{version} record of {len(buf)} bytes, "
                           f"{need + items * _TAIL_ITEM} expected")
    return pos, rot, speed, vel, extra
