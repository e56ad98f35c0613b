"""TM2020 inputs: the tick records of CGameCtnGhost 0309201D (formats/gbx/tickinputs.py).
On every corpus ghost that holds one, the stream decodes to its end, and its last
tick is the race time (a .Ghost.Gbx: the recording stops at the finish; a replay
may go on a few seconds after it); hand-made streams decode to the events written into them,
and streams the layout does not explain are refused, never half read."""
from __future__ import annotations

import csv
import io
import random

import pytest
from ghost_corpus import parsed

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.inputs import TICK_INPUTS, input_log, render_inputs_csv
from gbxfs.formats.gbx.tickinputs import decode_record


class _BitWriter:
    def __init__(self):
        self.bits: list[int] = []

    def put(self, value: int, n: int = 1) -> None:
        self.bits += [(value >> i) & 1 for i in range(n)]

    def bytes(self) -> bytes:
        out = bytearray((len(self.bits) + 7) // 8)
        for i, b in enumerate(self.bits):
            out[i >> 3] |= b << (i & 7)
        return bytes(out)


def _stream(ticks: list[dict], start_word: int = 2) -> tuple[bytes, list[tuple[int, str, int]]]:
    """A stream of `ticks` (each: steer/accel/brake or nothing) and the events it holds."""
    w = _BitWriter()
    want, prev = [], {}
    for i, t in enumerate(ticks):
        if i == 0:
            w.put(0)
            w.put(0)
            w.put(start_word, 34)
            want.append((i * 10, "StateBits", start_word))
        else:
            w.put(1)
        w.put(1)                     # same mouse
        if "steer" in t:
            w.put(0)
            w.put(t["steer"] & 0xFF, 8)
            w.put(t["accel"])
            w.put(t["brake"])
            for name, v in (("SteerByte", t["steer"]), ("Accelerate", t["accel"]), ("Brake", t["brake"])):
                if prev.get(name) != v:
                    want.append((i * 10, name, v))
                    prev[name] = v
        else:
            w.put(1)
    return w.bytes(), want


def _record(data: bytes, ticks: int, version: int = 12, offset: int = 0) -> dict:
    return {"inputVersion": version, "startOffset": offset, "ticks": ticks, "data": data}


@pytest.mark.parametrize("seed", range(5))
def test_a_written_stream_decodes_to_its_events(seed):
    rnd = random.Random(seed)
    ticks = [({"steer": rnd.randint(-127, 127), "accel": rnd.randint(0, 1), "brake": rnd.randint(0, 1)}
              if rnd.random() < 0.3 else {}) for _ in range(rnd.randint(1, 300))]
    data, want = _stream(ticks, start_word=rnd.choice([2, 3]))
    assert list(decode_record(_record(data, len(ticks)))) == want
    assert [e[0] - 1500 for e in want] == [e[0] for e in decode_record(_record(data, len(ticks), offset=-1500))]


def test_streams_the_layout_does_not_explain_are_refused():
    data, _ = _stream([{"steer": 5, "accel": 1, "brake": 0}] + [{}] * 20)
    with pytest.raises(GbxError, match="ends inside tick"):
        decode_record(_record(data, 40))                     # more ticks than the stream holds
    with pytest.raises(GbxError, match="not zero"):
        decode_record(_record(data + b"\x01", 21))           # bits after the last tick
    with pytest.raises(GbxError, match="version 11"):
        decode_record(_record(data, 21, version=11))
    foot, _ = _stream([{}] * 3, start_word=1)
    with pytest.raises(GbxError, match="on-foot"):
        decode_record(_record(foot, 3))


@pytest.mark.corpus
def test_every_corpus_tick_record_decodes_to_its_race_time(corpus):
    seen = exact = 0
    for row, _, ghosts in parsed():
        for gh in ghosts:
            c = gh.node.chunk(TICK_INPUTS)
            if c is None or not c.values or not c.values["inputs"]:
                continue
            rec = c.values["inputs"][0]
            log = input_log(gh.node)
            if log.chunk_id != TICK_INPUTS:
                continue
            race = gh.node.chunk(0x03092005).values["raceTime"]
            end = rec["startOffset"] + rec["ticks"] * 10
            assert end >= race, row["path"]
            if row["path"].lower().endswith(".ghost.gbx"):
                assert end - race <= 10, (row["path"], end, race)
                exact += 1
            times = [e.time_ms for e in log.events]
            assert times == sorted(times) and rec["startOffset"] <= times[0] < end
            rows = list(csv.reader(io.StringIO(render_inputs_csv(log).decode())))
            assert rows[0] == ["time_ms", "action", "value"] and len(rows) == len(log.events) + 1
            for e in log.events:
                if e.action in ("Accelerate", "Brake"):
                    assert e.value in (0, 1)
                elif e.action == "SteerByte":
                    assert -128 <= e.value <= 127
                else:
                    assert e.action == "StateBits" and 0 <= e.value < 1 << 34
            assert {"Accelerate", "SteerByte"} <= {e.action for e in log.events}, row["path"]
            seen += 1
    assert seen >= 12 and exact >= 6
