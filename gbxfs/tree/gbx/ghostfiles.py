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

from dataclasses import dataclass, field
from typing import Any, Iterator

from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.ghost_csv import render_csv
from gbxfs.formats.gbx.ghost_data import decode_ghost_chunk, decode_old_ghost_chunk
from gbxfs.formats.gbx.ghost_entrecord import parse_record_chunk, vehicle_tracks
from gbxfs.formats.gbx.ghost_model import GhostTrack
from gbxfs.formats.gbx.model import Node, NodeRef

CTN_GHOST = 0x03092000
RECORD_DATA = 0x0911F000
SAMPLE_CHUNKS = (0x0303F005, 0x0303F006)
OLD_SAMPLES, OLD_MOBIL = 0x0303F003, 0x0303F004


@dataclass(eq=False)
class Ghost:
    node: Node
    track: GhostTrack | None = None
    errors: list[GbxError] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def _refs(value: Any) -> Iterator[NodeRef]:
    """The node references anywhere in a decoded value (dicts, lists, tuples).
    Iterative, with exact type tests: maps hold hundreds of thousands of values."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is int or t is float or t is bool or v is None:   # most values: nothing inside
            continue
        if t is dict:
            stack.extend(v.values())
        elif t is list or t is tuple:
            stack.extend(v)
        elif t is NodeRef:
            yield v
        elif isinstance(v, (dict, list, tuple)):   # subclasses: rare, take the slow path
            stack.extend(v.values() if isinstance(v, dict) else v)
        elif isinstance(v, NodeRef):
            yield v


def all_nodes(nodes: list[Node]) -> list[Node]:
    """Every node of the body, in reading order: the listed ones and the nodes
    reachable through node references in decoded values (direct nodes)."""
    seen: set[int] = set()
    out: list[Node] = []

    def visit(n: Node) -> None:
        if id(n) in seen:
            return
        seen.add(id(n))
        out.append(n)
        for c in n.chunks:
            for ref in _refs(c.values):
                if ref.node is not None:
                    visit(ref.node)

    for n in nodes:
        visit(n)
    return out


def find_ghosts(nodes: list[Node]) -> list[Ghost]:
    return [_ghost(n) for n in all_nodes(nodes) if n.class_id == CTN_GHOST]


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
            track = decode_ghost_chunk(chunk.chunk_id, chunk.raw)
            if track is not None:       # None: an empty CGameGhost (TM2020 keeps a record)
                return track
        if chunk.chunk_id == OLD_SAMPLES:
            mobil = node.chunk(OLD_MOBIL)
            mobil_id = int.from_bytes(mobil.raw[:4], "little") if mobil and len(mobil.raw) >= 4 else None
            return decode_old_ghost_chunk(chunk.raw, mobil_id)
    for chunk in node.chunks:
        for ref in _refs(chunk.values):
            if ref.node is not None and ref.node.class_id == RECORD_DATA:
                rec = ref.node.chunk(RECORD_DATA)
                if rec is not None:
                    tracks = vehicle_tracks(parse_record_chunk(rec.raw))
                    if tracks:
                        track = tracks[0]
                        if len(tracks) > 1:
                            track.notes.append(f"{len(tracks) - 1} more vehicle entities in the record "
                                               f"data (sample counts {[len(t.samples) for t in tracks[1:]]})")
                        return track
    return None


# (chunk, field) pairs that carry each fact, first found wins
_FACTS = {
    "race_time_ms": [(0x03092005, "raceTime")],
    "respawns": [(0x03092008, "respawns")],
    "stunt_score": [(0x0309200A, "stuntScore")],
    "nickname": [(0x03092000, "ghostNickname"), (0x03092017, "ghostNickname"), (0x03092015, "ghostNickname"),
                 (0x0309200D, "ghostNickname"), (0x03092006, "ghostNickname"), (0x03092003, "ghostNickname")],
    "login": [(0x0309200F, "ghostLogin")],
    "ghost_uid": [(0x0309200E, "ghostUid")],
    "map_uid": [(0x03092010, "validateMapUid")],
    "trigram": [(0x03092000, "ghostTrigram")],
    "zone": [(0x03092000, "ghostZone")],
    "club_tag": [(0x03092000, "ghostClubTag")],
}
UNSET = 0xFFFFFFFF


def ghost_facts(node: Node) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for fact, places in _FACTS.items():
        for cid, name in places:
            c = node.chunk(cid)
            if c is not None and c.values and name in c.values and c.values[name] not in ("", None):
                facts[fact] = c.values[name]
                break
    cps = node.chunk(0x0309200B) or node.chunk(0x03092004)
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
        if t.mobil_class_id is not None:
            lines.append(f"recorded_class = {t.mobil_class_id:08X}")
        if t.state_version is not None:
            lines.append(f"state_version = {t.state_version}")
        if t.period_ms is not None:
            lines.append(f"sample_period_ms = {t.period_ms}")
        if t.sample_size is not None:
            lines.append(f"sample_size = {t.sample_size}")
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
