"""inputs.csv, inputs.txt and ghost.svg: what a replay's or ghost's first ghost
holds, beside ghost.csv.

Which files appear comes from the header alone:
- inputs.csv and ghost.svg: in every replay and ghost folder (both classes can
  hold a ghost with control entries). A ghost without control entries gives
  the CSV's header row alone, a ghost without samples an SVG that says so.
- inputs.txt (a TMInterface script): only where the header proves the file was
  written by TM United or Forever, the games TMInterface drives: a replay whose
  XML header chunk (03093001) names an exe version of theirs (`exever` 2.x,
  0.1.9.x or 0.2.x). A .Ghost.Gbx has no such header chunk, and later
  generations' inputs are not TMInterface's: no inputs.txt for them.
Content and size are made when read (lazy_size). Control entries that do not
decode make reading inputs.csv/inputs.txt answer EIO, and the reason is a line
of ghosts/error.txt (its listing decodes every ghost).
"""
from __future__ import annotations

import errno
import re

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.ghost.svg import render_svg
from gbxfs.formats.gbx.inputs import VALIDATION_CHUNKS, InputLog, input_log, render_inputs_csv, render_inputs_script
from gbxfs.tree.gbx.ghostfiles import Ghost
from gbxfs.tree.gbx.summary import strip_codes

REPLAY_XML = classdb.class_id("CGameCtnReplayRecord") | 0x001      # 03093001
# exe versions of TM United (0.1.9.x, 0.2.x) and Forever (2.x) as the XML header writes them
_SCRIPTABLE_EXE = re.compile(rb'\bexever="(2\.|0\.1\.9|0\.2\.)')
_NO_EVENTS = InputLog(VALIDATION_CHUNKS[1], ())


def header_proves_united_forever(header) -> bool:
    """True when the replay's XML header chunk names a TM United/Forever exe (raw
    bytes searched: nothing decoded at listing time)."""
    c = next((c for c in header.chunks if c.chunk_id == REPLAY_XML), None)
    return c is not None and _SCRIPTABLE_EXE.search(bytes(c.raw)) is not None


def ghost_inputs(g: Ghost | None) -> InputLog:
    """The input events of a ghost (none: a log without events)."""
    if g is None:
        return _NO_EVENTS
    try:
        return input_log(g.node) or _NO_EVENTS
    except GbxError as e:
        raise OSError(errno.EIO, f"control entries do not decode: {e} (see ghosts/error.txt)") from None


def inputs_problems(ghosts: list[Ghost]) -> list[tuple[str, BaseException]]:
    """ghosts/error.txt lines for ghosts whose control entries do not decode."""
    out: list[tuple[str, BaseException]] = []
    for i, g in enumerate(ghosts):
        try:
            input_log(g.node)
        except GbxError as e:
            out.append((f"ghost {i} inputs{' (inputs.csv, inputs.txt)' if i == 0 else ''}", e))
    return out


def render_csv(g: Ghost | None) -> bytes:
    return render_inputs_csv(ghost_inputs(g))


def render_script(g: Ghost | None, title: str) -> bytes:
    log = ghost_inputs(g)
    if log.events and not log.scriptable:
        raise OSError(errno.EIO, f"inputs.txt: the events are in chunk {log.chunk_id:08X}, "
                                 "not a TM United/Forever one")
    return render_inputs_script(log, title=title)


def ghost_title(g: Ghost | None) -> str:
    if g is None:
        return ""
    name = strip_codes(str(g.facts.get("player") or g.facts.get("login") or ""))
    t = g.facts.get("race_time_ms")
    time = f"{t / 1000:.3f} s" if isinstance(t, int) and 0 <= t < 0xFFFFFFFF else ""
    return " - ".join(str(x) for x in (name, time) if x)


def render_ghost_svg(g: Ghost | None) -> bytes:
    if g is None:
        return render_svg(None, title="no ghost in this file")
    cps = g.facts.get("checkpoints_ms")
    cps = [c for c in cps if isinstance(c, int) and 0 <= c < 0xFFFFFFFF] if cps else None
    return render_svg(g.track, checkpoints_ms=cps, title=ghost_title(g))
