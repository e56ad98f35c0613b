"""CGameGhost / CGameCtnGhost declarations on every ghost of the corpus (replays, ghost
files, and the ghosts maps carry for validation), checked by the skippable sizes and by
facts the game stores twice."""
from __future__ import annotations

import pytest

from ghost_corpus import parsed
from map_corpus import maps

pytestmark = pytest.mark.corpus
GHOST_CLASSES = {"CGameGhost", "CGameCtnGhost"}
UNSET = 0xFFFFFFFF
# Damaged chunks, checked to fail: this replay was rewritten by the trackmania-tas tools
# (its ghost ends with their 03092FFE "TICK" chunk), and its 0309200B says 0 checkpoints
# in 11 bytes where its own 0309201A counts 1 (test_checkpoint_list_has_the_counted_length).
KNOWN_BAD = {("replay_kacky_7241.Replay.Gbx", 0x0309200B)}


def ghost_nodes():
    """(path, node) for every ghost node of the corpus maps, replays and ghosts."""
    for row, g, *_ in (*maps(), *parsed()):
        for n in g.body.nodes:
            if n.class_name in GHOST_CLASSES:
                yield row["path"], n


def values(node, chunk_id: int) -> dict | None:
    c = node.chunk(chunk_id)
    return c.values if c is not None else None


def test_ghost_declarations_never_fail_on_the_corpus(corpus):
    """Every ghost chunk read decodes without an error of its own; skippable ones
    consume exactly their stored size (or the walker would record an error)."""
    bad, known, decoded = [], set(), 0
    for path, n in ghost_nodes():
        for c in n.chunks:
            if c.error is not None and c.error.chunk_id == c.chunk_id:
                key = (path.rsplit("/", 1)[-1], c.chunk_id)
                if key in KNOWN_BAD:
                    known.add(key)
                else:
                    bad.append((path, f"{c.chunk_id:08X}", str(c.error)))
            decoded += c.values is not None and c.skippable
    assert not bad, "\n".join(map(str, bad))
    assert known == KNOWN_BAD
    assert decoded > 300


def test_checkpoint_list_has_the_counted_length(corpus):
    """0309200B holds as many checkpoints as 0309201A counts, in count + 8 bytes per
    checkpoint and nothing after (its skippable size): the layout of every generation
    that stores both. The one 0309200B that no layout reads disagrees with its own
    0309201A, so it is damaged, not misread."""
    checked, damaged = 0, []
    for path, n in ghost_nodes():
        cps, count = n.chunk(0x0309200B), values(n, 0x0309201A)
        if cps is None or count is None:
            continue
        if (path.rsplit("/", 1)[-1], 0x0309200B) in KNOWN_BAD:
            stored = int.from_bytes(cps.raw[:4], "little")
            assert cps.values is None and stored != count["numCheckpoints"], path
            assert cps.size != 4 + 8 * stored and cps.size != 4 + 8 * count["numCheckpoints"], path
            damaged.append(path)
            continue
        assert cps.size == 4 + 8 * cps.values["numCheckpoints"], path
        assert len(cps.values["checkpoints"]) == count["numCheckpoints"], path
        checked += 1
    assert len(damaged) == len(KNOWN_BAD)
    assert checked >= 25


def test_tm2_validation_events_end_at_the_race_time(corpus):
    """03092025: the '_FakeFinishLine' input event is at the end of the events
    (eventsDuration), which is the race time of 03092005 when that is set."""
    checked = 0
    for path, n in ghost_nodes():
        v = values(n, 0x03092025)
        if not v or v["eventsDuration"] == 0:
            continue
        ev = v["validation"]
        names = ev["controlNames"]
        finish = [e["time"] - 100000 for e in ev["controlEntries"]
                  if names[e["controlNameIndex"]] == "_FakeFinishLine"]
        assert finish == [v["eventsDuration"]], path
        assert max(e["time"] - 100000 for e in ev["controlEntries"]) == v["eventsDuration"], path
        race = (values(n, 0x03092005) or {}).get("raceTime", UNSET)
        if race != UNSET:
            assert race == v["eventsDuration"], path
            checked += 1
    assert checked >= 5


def test_title_id_is_stored_only_with_validation_events(corpus):
    """03092028 holds the title id only when 03092025 recorded input events."""
    checked = 0
    for path, n in ghost_nodes():
        v, title = values(n, 0x03092025), values(n, 0x03092028)
        if v is None or title is None:
            continue
        assert ("validateTitleId" in title) == (v["eventsDuration"] != 0), path
        if title:
            assert title["validateTitleId"].endswith("@nadeo"), path
        checked += 1
    assert checked >= 20
