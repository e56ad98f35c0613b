"""The human summary of a map, replay or ghost: what info.txt starts with and
what maps.csv / replays.csv hold, one row per file.

Values are picked by field name from the decoded header chunks (the chunk
layouts live in the .chunks declarations; this module knows only which
declared names mean "the map's name", "the author time", ...). The first chunk
that declares a field wins, top-level fields before nested ones.

One fact, one name, in info.txt, ghost.txt, `gbxfs info` and the indexes
(tests/cli/test_field_names.py holds them to it): `map_uid` is a map's uid,
a map's own in its row and the map a replay was driven on in a replay's, so
maps.csv and replays.csv join on it; `race_time_ms` a ghost's race time (a
bare `time_ms` is a sample's or an input's time in ghost.csv, inputs.csv);
`kind` what the file is: map, replay or ghost (as `gbxfs coverage` says).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.collections import collection_name
from gbxfs.formats.gbx.model import Labeled

MAP, REPLAY, GHOST = map(classdb.class_id, ("CGameCtnChallenge", "CGameCtnReplayRecord", "CGameCtnGhost"))

# summary field -> the declared fields that carry it, in order of preference: one
# spelling per fact in every declaration (mapUid, mapName, nickname...), so a
# field lists several names only where different facts stand in for one another
# (the map's author ident, else its author chunk's login; a replay's driver, else
# its ghost header's player, else the replay's author)
MAP_FIELDS: dict[str, tuple[str, ...]] = {
    "name": ("mapName",),
    "author": ("mapAuthor", "authorLogin"),
    "author_nick": ("authorNick",),
    "environment": ("environment",),
    "bronze_ms": ("bronzeTime",),
    "silver_ms": ("silverTime",),
    "gold_ms": ("goldTime",),
    "author_ms": ("authorTime",),
    "map_uid": ("mapUid",),
}
REPLAY_FIELDS: dict[str, tuple[str, ...]] = {
    "player": ("nickname", "authorNick"),
    "login": ("login", "authorLogin"),
    "race_time_ms": ("raceTime",),
    "map_uid": ("mapUid",),
}
# ghost facts (gbxfs/tree/gbx/ghostfiles.py, named alike) that fill what a header lacks
GHOST_FACTS = ("player", "login", "race_time_ms", "map_uid")
UNSET_TIMES = (-1, 0xFFFFFFFF)

MAP_COLUMNS = ("file", "name", "name_plain", "author", "author_nick", "environment",
               "bronze_ms", "silver_ms", "gold_ms", "author_ms", "map_uid")
# no checkpoints_ms column: no replay or ghost header of any generation carries
# checkpoint times (only the ghosts' body chunks do), and the index is made of
# headers; info.txt shows them from the first ghost (docs/formats/mount.md)
REPLAY_COLUMNS = ("file", "kind", "player", "player_plain", "login", "race_time_ms", "map_uid")

_CODE = re.compile(r"\$(\$|[0-9a-fA-F]{1,3}|[lLhHpP](?:\[[^\]]*\])?|.|\Z)", re.S)


def strip_codes(text: str) -> str:
    """Text without its $-formatting codes ($fff colours, $o bold, $l[url] links...);
    `$$` is a dollar sign."""
    return _CODE.sub(lambda m: "$" if m.group(1) == "$" else "", text)


def kind(class_id: int | None) -> str | None:
    return {MAP: "map", REPLAY: "replay", GHOST: "ghost"}.get(class_id)  # type: ignore[arg-type]  # None: no kind


def _fields(values: Any) -> Iterable[tuple[str, Any]]:
    """(name, value) of one chunk's values, top level first, then nested dicts."""
    if not isinstance(values, dict):
        return
    nested = []
    for k, v in values.items():
        if isinstance(v, dict):
            nested.append(v)
        else:
            yield k, v
    for v in nested:
        yield from _fields(v)


def pick(header, wanted: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """Summary fields from a header whose chunks are decoded (decode_header)."""
    found: dict[str, dict[str, Any]] = {}
    for c in header.chunks:
        for k, v in _fields(c.values):
            if v in ("", None) or isinstance(v, (bytes, bytearray, list)):
                continue
            found.setdefault(k, {"v": v})
    out: dict[str, Any] = {}
    for field, names in wanted.items():
        for n in names:
            if n in found:
                v = found[n]["v"]
                out[field] = int(v) if isinstance(v, Labeled) else v
                break
    return out


def decode_header(h) -> None:
    """Decode the header chunks with the declarations (once; fills chunk.values)."""
    if getattr(h, "_gbxfs_decoded", False):
        return
    from gbxfs.formats.gbx import decode_header_chunks
    decode_header_chunks(h)
    h._gbxfs_decoded = True


def summary(header, ghost_facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary fields of a map, replay or ghost header ({} for other classes);
    `ghost_facts` (a replay's first ghost, a ghost file's own) fill what the header lacks."""
    k = kind(header.class_id)
    if k is None:
        return {}
    decode_header(header)
    if k == "map":
        out = pick(header, MAP_FIELDS)
        if "environment" in out:      # a collection number (ManiaPlanet on) by its name
            env = out["environment"]
            out["environment"] = collection_name(env) or f"unknown collection {env}"
        if isinstance(out.get("name"), str):
            out["name_plain"] = strip_codes(out["name"])
        return out
    out = pick(header, REPLAY_FIELDS)
    for field in GHOST_FACTS:
        if field not in out and ghost_facts and ghost_facts.get(field) not in (None, ""):
            out[field] = ghost_facts[field]
    if isinstance(out.get("player"), str):
        out["player_plain"] = strip_codes(out["player"])
    if ghost_facts and ghost_facts.get("checkpoints_ms"):
        out["checkpoints_ms"] = ghost_facts["checkpoints_ms"]
    return out


def race_time(ms: Any) -> str:
    """24540 -> "0:24.540"; unset -> "unset"."""
    if not isinstance(ms, int) or isinstance(ms, bool) or ms in UNSET_TIMES or ms < 0:
        return "unset"
    return f"{ms // 60000}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


_TIMES = ("bronze_ms", "silver_ms", "gold_ms", "author_ms", "race_time_ms")


def times_ms(values: Iterable[Any]) -> str:
    """Checkpoint times as one cell / line: "8450, 16230, unset"."""
    return ", ".join(str(x) if x not in (None, *UNSET_TIMES) else "unset" for x in values)


def summary_pairs(fields: dict[str, Any]) -> list[tuple[str, object]]:
    """info.txt's first lines: name = value, times also as m:ss.mmm."""
    out: list[tuple[str, object]] = []
    order = [k for k in (*MAP_COLUMNS, *REPLAY_COLUMNS, "checkpoints_ms") if k in fields]
    for k in dict.fromkeys(order):
        v = fields[k]
        if k == "checkpoints_ms":
            out.append((k, times_ms(v)))
            out.append(("checkpoints", ", ".join(race_time(x) for x in v)))
        elif k in _TIMES:
            out.append((k, v if v not in UNSET_TIMES else "unset"))
            out.append((k[:-3] if k.endswith("_time_ms") else k[:-3] + "_time", race_time(v)))
        else:
            out.append((k, v))
    return out


def row(file_name: str, header, columns: tuple[str, ...]) -> list[str]:
    """One maps.csv / replays.csv row from a header alone."""
    fields = summary(header)
    fields["file"] = file_name
    fields["kind"] = kind(header.class_id)
    cells = []
    for c in columns:
        v = fields.get(c)
        cells.append("" if v is None or (c in _TIMES and v in UNSET_TIMES) else str(v))
    return cells
