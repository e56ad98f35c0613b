"""The 38-byte computer-car setup. Only the byte layout is certain; the
field meanings follow Arg2Data (A2D), and Paul Hoad's editor reads grip and
brake balance from other bytes (11/13), so the two sources disagree there."""
from __future__ import annotations

import struct
from dataclasses import dataclass

SETUP_BIAS = 0x97   # wings and gears are stored with this added


@dataclass(frozen=True)
class CarSetup:
    offset: int
    raw: bytes

    @property
    def front_wing(self) -> int:
        return self.raw[0] - SETUP_BIAS

    @property
    def rear_wing(self) -> int:
        return self.raw[1] - SETUP_BIAS

    @property
    def gears(self) -> tuple[int, ...]:
        return tuple(b - SETUP_BIAS for b in self.raw[2:8])

    @property
    def tyre_compound(self) -> int:
        return self.raw[8]

    @property
    def brake_balance(self) -> int:
        return struct.unpack_from("<b", self.raw, 9)[0]

    def s16(self, at: int) -> int:
        return struct.unpack_from("<h", self.raw, at)[0]

    def fields(self) -> list[tuple[str, int]]:
        """(name, value) in file order, names per A2D."""
        out = [("front_wing", self.front_wing), ("rear_wing", self.rear_wing)]
        out += [(f"gear{i + 1}", g) for i, g in enumerate(self.gears)]
        out += [("tyre_compound", self.tyre_compound), ("brake_balance", self.brake_balance),
                ("grip", self.s16(10)), ("acceleration", self.s16(18)),
                ("air_resistance", self.s16(20)), ("fuel_load", self.s16(26))]
        return out
