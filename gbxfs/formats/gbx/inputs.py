"""Replay inputs: the input events a ghost's validation chunk records, as
inputs.csv (one row per event) and as a TMInterface input script (inputs.txt).

Where the events are: CGameCtnGhost chunks 03092011 (TM United), 03092019
(TM United Forever, Nations Forever) and 03092025 (ManiaPlanet, Turbo), all
decoded by the GhostValidation struct of chunks/ghost.chunks. Each entry is
(time, control name index, 32-bit data):
- time is the race time in ms plus 100000 (events before the start are below);
- digital controls (Accelerate, Brake, SteerLeft, SteerRight, Respawn, Horn,
  the _Fake* markers) store 0 when released and a non-zero word when pressed
  (1 in United/Forever, 1 or 128 in ManiaPlanet and Turbo);
- analog controls (Steer, Gas, AccelerateReal, BrakeReal) store a signed
  24-bit value in the low three bytes. For Steer and Gas the game's sign is
  the opposite of TMInterface's (where -65536 is full left), unless the
  control names hold `_FakeDontInverseAxis`.

The TMInterface script follows its published syntax: one timed command a line,
`TIME press KEY`, `TIME rel KEY`, `TIME steer VALUE`, `TIME gas VALUE`, TIME in
milliseconds ending in 0. Keys: up (Accelerate), down (Brake), left
(SteerLeft), right (SteerRight), enter (Respawn). An input recorded at race
time t acts from the game tick before it (TMInterface's documentation: a script's
time 0 is applied at the game's first input tick, 10 ms, the time the replay
stores): a press or steer at t shows at floor(t/10)*10 - 10, a respawn at
floor(t/10)*10 (one tick earlier when t is a multiple of 10). State reached before time 0 is written at time 0.
TMInterface drives TM United/Nations Forever only, so scripts are made for
03092011/03092019 events; later generations give inputs.csv alone. TM2020
stores no control entries: its inputs are records of every tick in chunk
0309201D (tickinputs.py), used when no validation chunk holds events.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import classdb
from .errors import GbxError
from .model import Node
from .tickinputs import tick_events

CTN_GHOST = classdb.class_id("CGameCtnGhost")
# the validation chunks, oldest first; TMInterface scripts for the first two only
VALIDATION_CHUNKS = (CTN_GHOST | 0x011, CTN_GHOST | 0x019, CTN_GHOST | 0x025)
SCRIPT_CHUNKS = VALIDATION_CHUNKS[:2]
TICK_INPUTS = CTN_GHOST | 0x01D          # TM2020: a record of every tick (tickinputs.py)

TIME_OFFSET = 100000
ANALOG = frozenset({"Steer", "Gas", "AccelerateReal", "BrakeReal"})
INVERTED_AXES = frozenset({"Steer", "Gas"})
NO_INVERSION = "_FakeDontInverseAxis"
KEYS = {"Accelerate": "up", "Brake": "down", "SteerLeft": "left", "SteerRight": "right", "Respawn": "enter"}
AXES = {"Steer": "steer", "Gas": "gas"}
TICK_MS = 10


@dataclass(frozen=True, slots=True)
class InputEvent:
    time_ms: int      # race time (negative before the start)
    action: str       # the control's name as the game stores it
    value: int        # digital: 1 pressed, 0 released; analog: signed, TMInterface's sign; tickinputs.py: as stored


@dataclass(frozen=True)
class InputLog:
    chunk_id: int                 # which validation chunk held the events
    events: tuple[InputEvent, ...]
    exe_version: str = ""

    @property
    def scriptable(self) -> bool:
        """True when TMInterface can play these events (United/Forever chunks)."""
        return self.chunk_id in SCRIPT_CHUNKS


def _signed24(data: int) -> int:
    v = data & 0xFFFFFF
    return v - 0x1000000 if v & 0x800000 else v


def decode_events(validation: dict) -> tuple[InputEvent, ...]:
    """The events of a decoded GhostValidation value, one per control entry."""
    names = validation.get("controlNames") or []
    entries = validation.get("controlEntries") or []
    keep_sign = NO_INVERSION in names
    out = []
    for i, e in enumerate(entries):
        index = e["controlNameIndex"]
        if index >= len(names):
            raise GbxError(f"control entry {i} names control {index} of {len(names)}")
        name, data = names[index], e["data"]
        if name in ANALOG:
            value = _signed24(data)
            if name in INVERTED_AXES and not keep_sign:
                value = -value
        else:
            value = 1 if data else 0
        out.append(InputEvent(e["time"] - TIME_OFFSET, name, value))
    return tuple(out)


def input_log(node: Node) -> InputLog | None:
    """The input events of a CGameCtnGhost node (None: it holds no events)."""
    for chunk_id in VALIDATION_CHUNKS:
        c = node.chunk(chunk_id)
        if c is None or not c.values:
            continue
        validation = c.values.get("validation")
        if not validation or not validation.get("controlEntries"):
            continue
        try:
            events = decode_events(validation)
        except GbxError as e:
            raise e.add_context(chunk_id=chunk_id, node=node.index) from None
        return InputLog(chunk_id, events, validation.get("validateExeVersion") or "")
    c = node.chunk(TICK_INPUTS)
    if c is not None and c.values and c.values.get("inputs"):
        try:
            events = tuple(InputEvent(*e) for e in tick_events(c.values))
        except GbxError as e:
            raise e.add_context(chunk_id=TICK_INPUTS, node=node.index) from None
        return InputLog(TICK_INPUTS, events)
    return None


def render_inputs_csv(log: InputLog) -> bytes:
    lines = ["time_ms,action,value"]
    lines += [f"{e.time_ms},{e.action},{e.value}" for e in log.events]
    return ("\n".join(lines) + "\n").encode("utf-8")


def script_time(event: InputEvent) -> int:
    """The TMInterface time of an event: the tick it acts from (see the module doc)."""
    tick = event.time_ms // TICK_MS * TICK_MS
    if event.action == "Respawn":
        return tick - TICK_MS if event.time_ms % TICK_MS == 0 else tick
    return tick - TICK_MS


def _command(event: InputEvent) -> str | None:
    if event.action in KEYS:
        return f"{'press' if event.value else 'rel'} {KEYS[event.action]}"
    if event.action in AXES:
        return f"{AXES[event.action]} {event.value}"
    return None     # _Fake* markers, Horn: nothing TMInterface replays


def script_commands(log: InputLog) -> list[tuple[int, str]]:
    """(time, command) pairs in event order. Commands before time 0 collapse into the
    state they leave, written at 0 (released keys and a zero steer are not written)."""
    if not log.scriptable:
        raise GbxError(f"chunk {log.chunk_id:08X}: TMInterface scripts are for TM United / Nations Forever inputs")
    early: dict[str, str] = {}
    timed: list[tuple[int, str]] = []
    for e in log.events:
        cmd = _command(e)
        if cmd is None:
            continue
        t = script_time(e)
        if t < 0:
            early[e.action] = cmd
        else:
            timed.append((t, cmd))
    start = [(0, cmd) for cmd in early.values() if not cmd.startswith("rel ") and not cmd.endswith(" 0")]
    return start + timed


def render_inputs_script(log: InputLog, *, title: str = "") -> bytes:
    exe = " ".join(log.exe_version.split())[:80] or "an unknown executable"
    lines = [f"# {' '.join(title.split())}" if title else "# replay inputs",
             f"# recorded by {exe}; TMInterface script syntax"]
    lines += [f"{t} {cmd}" for t, cmd in script_commands(log)]
    return ("\n".join(lines) + "\n").encode("utf-8")
