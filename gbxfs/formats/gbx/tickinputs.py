"""Input records stored tick by tick (CGameCtnGhost 0309201D, "player input
data"): how TM2020 keeps a ghost's inputs, where earlier games list control
entries in a validation chunk (inputs.py).

Each record (chunks/ghost.chunks) holds a format version, a start offset (ms,
the race time of tick 0, negative: the countdown), a tick count (10 ms each)
and a bit stream, read least significant bit first within each byte. For every
tick, in this order:
- 1 bit "same state"; when 0: 1 bit "horn only", then the state word: 2 bits
  when horn only, else 34 bits. While nothing has started, the word's low two
  bits say what the player drives: 2 or 3 a vehicle (1 is on foot);
- 1 bit "same mouse"; when 0: two 16-bit mouse accumulators;
- for a vehicle, 1 bit "same vehicle values"; when 0: the steer as a signed
  byte (-127..127), then 1 bit accelerate and 1 bit brake.
After the last tick only zero bits remain. Facts: GBX.NET's PlayerInputData
reader; proven on every TM2020 ghost and replay of the corpus (format version
12; vehicles whose low state bits are 2 and, e.g. vjeux+trackmania-tas
.../rank00002_23210.Ghost.Gbx, 3): each stream ends on its last tick with zero
bits left, and tick count x 10 + start offset is the ghost's race time rounded
up to 10 ms. A stream may stop inside its last tick (BigBang1112+gbx-net
.../GBX-NET 2 CGameCtnReplayRecord TM2020 001.Replay.Gbx: its last tick holds
one "same state" bit): that tick stores no change. Stopping earlier is an error. Version 11 (33-bit state words), on-foot values and the
meaning of the state word's bits are not proven by a corpus file: the first two
are refused (GbxError), the state word is given as it is stored.

Events ((race time in ms, action, value), which inputs.py makes InputEvents): Accelerate and Brake (1 pressed,
0 released), SteerByte (the stored signed byte, its sign as stored: its
direction is not proven) and StateBits (the whole state word, uninterpreted),
each when its value changes. Mouse accumulators are read, not written.
"""
from __future__ import annotations

from .errors import GbxError

Event = tuple[int, str, int]

PROVEN_VERSION = 12
STATE_BITS = 34
VEHICLE_STARTS = (2, 3)
ON_FOOT = 1
TICK_MS = 10


class _Bits:
    """A bit stream, least significant bit of each byte first."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes):
        self.data, self.pos, self.end = data, 0, len(data) * 8

    def bit(self) -> int:
        p = self.pos
        if p >= self.end:
            raise EOFError
        self.pos = p + 1
        return (self.data[p >> 3] >> (p & 7)) & 1

    def number(self, n: int) -> int:
        v = 0
        for i in range(n):
            v |= self.bit() << i
        return v

    def rest_is_zero(self) -> bool:
        return all(not (self.data[p >> 3] >> (p & 7)) & 1 for p in range(self.pos, self.end))


def _tick(r: _Bits, started: int, prev: dict, t: int, out: list) -> int:
    """Read one tick; returns what the player drives (0 while not started)."""
    if not r.bit():
        word = r.number(2) if r.bit() else r.number(STATE_BITS)
        if started == 0:
            started = word & 3
            if started == ON_FOOT:
                raise GbxError("on-foot input values: their layout is not proven on a corpus file")
        if prev.get("StateBits") != word:
            out.append((t, "StateBits", word))
            prev["StateBits"] = word
    if not r.bit():
        r.number(32)                # two 16-bit mouse accumulators
    if started in VEHICLE_STARTS and not r.bit():
        steer = r.number(8)
        values = (("SteerByte", steer - 256 if steer >= 128 else steer), ("Accelerate", r.bit()), ("Brake", r.bit()))
        for name, v in values:
            if prev.get(name) != v:
                out.append((t, name, v))
                prev[name] = v
    return started


def decode_record(record: dict) -> tuple[Event, ...]:
    """The events of one decoded player input record of 0309201D."""
    version = int(record["inputVersion"])
    if version != PROVEN_VERSION:
        raise GbxError(f"player input data version {version}: only version {PROVEN_VERSION} is proven")
    offset = record.get("startOffset") or 0
    r = _Bits(bytes(record["data"]))
    out: list[Event] = []
    prev: dict[str, int] = {}
    started = 0
    for i in range(record["ticks"]):
        try:
            started = _tick(r, started, prev, offset + i * TICK_MS, out)
        except EOFError:
            if i == record["ticks"] - 1:     # the last tick: no change stored after this point
                break
            raise GbxError(f"player input data ends inside tick {i} of {record['ticks']}") from None
    if not r.rest_is_zero():
        raise GbxError(f"player input data: {r.end - r.pos} bits after the last tick are not zero")
    return tuple(out)


def tick_events(values: dict) -> tuple[Event, ...]:
    """The events of a decoded 0309201D chunk (its first record: one per player)."""
    records = values.get("inputs") or []
    return decode_record(records[0]) if records else ()
