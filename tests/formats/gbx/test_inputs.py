"""Replay inputs: inputs.csv has one row per decoded control entry on every corpus
ghost that holds them, and the TMInterface script replays the same key states."""
from __future__ import annotations

import csv
import io
import re

import pytest
from ghost_corpus import parsed

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.inputs import (TICK_INPUTS, VALIDATION_CHUNKS, InputEvent, InputLog, decode_events, input_log,
                                      render_inputs_csv, render_inputs_script, script_commands, script_time)

UNITED_FOREVER = VALIDATION_CHUNKS[1]
# one timed command of TMInterface's script syntax, as these scripts write them
SCRIPT_LINE = re.compile(r"^(\d*0) (press|rel) (up|down|left|right|enter)$|^(\d*0) (steer|gas) (-?\d+)$")


def _validation(names, entries):
    return {"controlNames": names,
            "controlEntries": [{"time": t, "controlNameIndex": i, "data": d} for t, i, d in entries]}


def test_decode_values_and_signs():
    v = _validation(["Steer", "Accelerate", "Gas"],
                    [(100020, 0, 0xFFFA29), (100010, 1, 1), (100500, 1, 0), (100030, 2, 0x000100), (99990, 0, 5)])
    ev = decode_events(v)
    # the game's steer sign is the opposite of TMInterface's: 0xFFFA29 is -1495 stored, 1495 right
    assert ev[0] == InputEvent(20, "Steer", 1495)
    assert ev[1] == InputEvent(10, "Accelerate", 1) and ev[2] == InputEvent(500, "Accelerate", 0)
    assert ev[3] == InputEvent(30, "Gas", -256)
    assert ev[4] == InputEvent(-10, "Steer", -5)
    kept = decode_events(_validation(["Steer", "_FakeDontInverseAxis"], [(100000, 0, 0xFFFA29)]))
    assert kept[0].value == -1495


def test_bad_control_index_is_a_gbx_error():
    with pytest.raises(GbxError, match="names control 3 of 1"):
        decode_events(_validation(["Steer"], [(100000, 3, 0)]))


def test_script_times_follow_the_tick_before():
    assert script_time(InputEvent(10, "Accelerate", 1)) == 0
    assert script_time(InputEvent(456, "SteerLeft", 1)) == 440
    assert script_time(InputEvent(450, "Respawn", 1)) == 440
    assert script_time(InputEvent(456, "Respawn", 1)) == 450


def test_script_collapses_the_state_before_start():
    log = InputLog(UNITED_FOREVER, (InputEvent(-2000, "Accelerate", 1), InputEvent(-1000, "Brake", 1),
                                    InputEvent(-500, "Brake", 0), InputEvent(-20, "Steer", 300),
                                    InputEvent(10, "SteerLeft", 1), InputEvent(1000, "Horn", 1),
                                    InputEvent(1234, "SteerLeft", 0)))
    assert script_commands(log) == [(0, "press up"), (0, "steer 300"), (0, "press left"), (1220, "rel left")]


def test_later_generations_give_no_script():
    log = InputLog(VALIDATION_CHUNKS[2], (InputEvent(10, "Accelerate", 1),))
    with pytest.raises(GbxError, match="TMInterface"):
        render_inputs_script(log)


def _replay_state(lines: list[str]) -> dict[int, dict[str, object]]:
    """The key and axis state after each time of a script (our own reading of the syntax)."""
    state: dict[str, object] = {}
    out = {}
    for line in lines:
        m = SCRIPT_LINE.match(line)
        assert m, line
        if m.group(1) is not None:
            t = int(m.group(1))
            state[m.group(3)] = m.group(2) == "press"
        else:
            t = int(m.group(4))
            state[m.group(5)] = int(m.group(6))
        out[t] = dict(state)
    return out


@pytest.mark.corpus
def test_corpus_rows_equal_control_entries(corpus):
    seen = scripts = 0
    for row, g, ghosts in parsed():
        for gh in ghosts:
            log = input_log(gh.node)
            chunks = [gh.node.chunk(c) for c in VALIDATION_CHUNKS]
            entries = [c.values["validation"]["controlEntries"] for c in chunks
                       if c is not None and c.values and c.values.get("validation")]
            entries = [e for e in entries if e]
            if not entries:     # TM2020: the tick records, if any (test_tick_inputs.py)
                assert log is None or log.chunk_id == TICK_INPUTS, row["path"]
                continue
            assert log is not None, row["path"]
            rows = list(csv.reader(io.StringIO(render_inputs_csv(log).decode())))
            assert rows[0] == ["time_ms", "action", "value"]
            assert len(rows) - 1 == len(entries[0]), row["path"]
            names = set(gh.node.chunk(log.chunk_id).values["validation"]["controlNames"])
            assert {r[1] for r in rows[1:]} <= names
            seen += 1
            if log.scriptable:
                text = render_inputs_script(log, title=row["path"]).decode()
                body = [ln for ln in text.splitlines() if not ln.startswith("#")]
                timeline = _replay_state(body)
                assert list(timeline) == sorted(timeline), row["path"]
                # the last state of every key equals the last event of its control in the race
                last = {}
                for e in log.events:
                    if e.action in ("Accelerate", "Brake", "SteerLeft", "SteerRight") and script_time(e) >= 0:
                        last[e.action] = e.value
                final = timeline[max(timeline)] if timeline else {}
                key = {"Accelerate": "up", "Brake": "down", "SteerLeft": "left", "SteerRight": "right"}
                for action, value in last.items():
                    assert final.get(key[action]) == bool(value), (row["path"], action)
                scripts += 1
    assert seen >= 25 and scripts >= 20
