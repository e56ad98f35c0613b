"""ghost.csv / ghost.txt / ghosts/<N>.csv: the ghosts of a replay or ghost file.

A ghost is a CGameCtnGhost node anywhere in the body (the main node of a
.Ghost.Gbx; the nodes a replay's ghost chunks point to, MediaTracker ghost
blocks included). Its samples come from whichever encoding it carries:
- CGameGhost chunk 0303F005/0303F006 (United .. Turbo) or 0303F003 (TM1.0 ..
  Nations ESWC), in the ghost node itself;
- a CPlugEntRecordData node (TM2020, ManiaPlanet 4) the ghost points to.
The race facts for ghost.txt come from the ghost's own chunks (declared in
chunks/ghost.chunks).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.ghost.csvfile import render_csv
from gbxfs.formats.gbx.ghost.entrecord import parse_record_chunk, vehicle_tracks
from gbxfs.formats.gbx.ghost.model import GhostTrack
from gbxfs.formats.gbx.ghost.samples import ghost_track
from gbxfs.formats.gbx.model import Node, NodeRef
from gbxfs.tree.gbx.cost import depth_first
from gbxfs.tree.gbx.values import walk_values

CTN_GHOST = classdb.class_id("CGameCtnGhost")
RECORD_DATA = classdb.class_id("CPlugEntRecordData")
_GAME_GHOST = classdb.class_id("CGameGhost")
SAMPLE_CHUNKS = (_GAME_GHOST | 0x005, _GAME_GHOST | 0x006)
OLD_SAMPLES, OLD_MOBIL = _GAME_GHOST | 0x003, _GAME_GHOST | 0x004


@dataclass(eq=False)
class Ghost:
    node: Node
    track: GhostTrack | None = None
    errors: list[GbxError] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def _refs(value: Any) -> Iterator[NodeRef]:
    """The node references anywhere in a decoded value (dicts, lists, tuples)."""
    for v in walk_values(value):
        if type(v) is NodeRef or isinstance(v, NodeRef):
            yield v


def all_nodes(nodes: list[Node]) -> list[Node]:
    """Every node of the body, in reading order: the listed ones and the nodes
    reachable through node references in decoded values (direct nodes)."""
    return depth_first(nodes, lambda n: (ref.node for c in n.chunks for ref in _refs(c.values)
                                         if ref.node is not None))


def find_ghosts(nodes: list[Node]) -> list[Ghost]:
    return [_ghost(n) for n in all_nodes(nodes) if n.class_id == CTN_GHOST]


def first_ghost_facts(nodes: list[Node]) -> dict[str, Any] | None:
    """The first ghost's facts (ghost_facts), from its chunks' values alone: no
    sample is decoded (info.txt, `gbxfs info`). None: no ghost."""
    first = next((n for n in all_nodes(nodes) if n.class_id == CTN_GHOST), None)
    return None if first is None else ghost_facts(first)


def _ghost(node: Node) -> Ghost:
    g = Ghost(node)
    g.facts = ghost_facts(node)
    try:
        g.track = _samples(node)
    except GbxError as e:
        g.errors.append(e.add_context(node=node.index))
    return g


def _samples(node: Node) -> GhostTrack | None:
    for chunk in node.chunks:
        if chunk.chunk_id in SAMPLE_CHUNKS:
            track = ghost_track(chunk)
            if track is not None:       # None: an empty CGameGhost (TM2020 keeps a record)
                return track
        if chunk.chunk_id == OLD_SAMPLES:
            return ghost_track(chunk, node.chunk(OLD_MOBIL))
    for chunk in node.chunks:
        for ref in _refs(chunk.values):
            if ref.node is not None and ref.node.class_id == RECORD_DATA:
                rec = ref.node.chunk(RECORD_DATA)
                if rec is not None:
                    tracks = vehicle_tracks(parse_record_chunk(bytes(rec.raw)))
                    if tracks:
                        track = tracks[0]
                        if len(tracks) > 1:
                            track.notes.append(f"{len(tracks) - 1} more vehicle entities in the record "
                                               f"data (sample counts {[len(t.samples) for t in tracks[1:]]})")
                        return track
    return None


# (CGameCtnGhost chunk index, field) pairs that carry each fact, first found wins
_FACTS = {
    # named as info.txt and the indexes name them (tree/gbx/summary.py)
    "race_time_ms": [(0x005, "raceTime")],
    "respawns": [(0x008, "respawns")],
    "stunt_score": [(0x00A, "stuntScore")],
    "player": [(0x000, "nickname"), (0x017, "nickname"), (0x015, "nickname"),
               (0x00D, "nickname"), (0x006, "nickname"), (0x003, "nickname")],
    "login": [(0x00F, "login")],
    "ghost_uid": [(0x00E, "ghostUid")],
    "map_uid": [(0x010, "mapUid")],
    "trigram": [(0x000, "ghostTrigram")],
    "zone": [(0x000, "ghostZone")],
    "club_tag": [(0x000, "ghostClubTag")],
}
UNSET = 0xFFFFFFFF


def ghost_facts(node: Node) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for fact, places in _FACTS.items():
        for index, name in places:
            c = node.chunk(CTN_GHOST | index)
            if c is not None and c.values and name in c.values and c.values[name] not in ("", None):
                facts[fact] = c.values[name]
                break
    cps = node.chunk(CTN_GHOST | 0x00B) or node.chunk(CTN_GHOST | 0x004)
    if cps is not None and cps.values and isinstance(cps.values.get("checkpoints"), list):
        facts["checkpoints_ms"] = [cp.get("time") for cp in cps.values["checkpoints"] if isinstance(cp, dict)]
    return facts


def render_ghost_txt(g: Ghost | None) -> bytes:
    if g is None:
        return b"samples = 0\nnote = no CGameCtnGhost node in this file\n"
    lines = []
    for k, v in g.facts.items():
        if isinstance(v, list):
            lines.append(f"{k} = {', '.join('unset' if x in (None, UNSET, -1) else str(x) for x in v)}")
        else:
            lines.append(f"{k} = {'unset' if v in (UNSET, -1) and k != 'stunt_score' else v}")
    t = g.track
    if t is not None:
        lines += [f"sample_encoding = {t.encoding}",
                  f"samples = {len(t.samples)}"]
        known = (("recorded_class", None if t.mobil_class_id is None else f"{t.mobil_class_id:08X}"),
                 ("state_version", t.state_version), ("sample_period_ms", t.period_ms),
                 ("sample_size", t.sample_size))
        lines += [f"{k} = {v}" for k, v in known if v is not None]
        if t.samples:
            lines += [f"first_sample_ms = {t.samples[0].time_ms}", f"last_sample_ms = {t.samples[-1].time_ms}"]
        lines += [f"note = {n}" for n in t.notes]
    else:
        lines.append("samples = 0")
    lines += [f"error = {e}" for e in g.errors]
    return ("\n".join(lines) + "\n").encode("utf-8", "replace")


def render_ghost_csv(g: Ghost | None) -> bytes:
    if g is None or g.track is None:
        return render_csv(GhostTrack(encoding="none"))   # the header row alone
    return render_csv(g.track)
