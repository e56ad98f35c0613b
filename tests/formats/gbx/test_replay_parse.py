"""Replays and ghosts of the corpus parse completely (the README's coverage table),
and facts stored in independent places of one file agree."""
from __future__ import annotations

import collections
import re

import pytest

from ghost_corpus import generation_of, parsed

pytestmark = pytest.mark.corpus
UNSET = 0xFFFFFFFF


def test_body_status_per_generation(corpus, capsys):
    table = collections.defaultdict(lambda: [0, 0])
    failures = []
    for row, g, _ in parsed():
        gen = generation_of(row, g)
        table[gen][1] += 1
        if g.body.status == "complete":
            table[gen][0] += 1
        else:
            failures.append(f"{row['path']}: {g.body.status}: {g.body.error}")
    with capsys.disabled():
        print("\nreplays+ghosts body_status complete per generation:")
        for gen, (ok, n) in sorted(table.items()):
            print(f"  {gen:18} {ok}/{n}")
    assert table, "no replays or ghosts in the corpus manifest"
    assert not failures, "\n".join(failures)   # the README's table: 100% in every generation


def _xml(g) -> str | None:
    for c in g.header.chunks:
        if c.chunk_id == 0x03093001 and c.values:
            return c.values.get("xml")
    return None


def _header_values(g, chunk_id: int) -> dict:
    c = next((c for c in g.header.chunks if c.chunk_id == chunk_id), None)
    return c.values if c is not None and c.values else {}


def test_replay_header_time_matches_its_ghost(corpus):
    """03093000's record time (header) == the replay's own ghost's race time
    (03092005) == its last checkpoint (0309200B), when the game stored them."""
    checked = 0
    for row, g, ghosts in parsed():
        if row["kind"] != "replay" or not ghosts:
            continue
        header_time = _header_values(g, 0x03093000).get("raceTime")
        facts = ghosts[0].facts
        race = facts.get("race_time_ms")
        if header_time in (None, UNSET) or race in (None, UNSET):
            continue
        assert race == header_time, row["path"]
        cps = facts.get("checkpoints_ms")
        if cps:
            assert cps[-1] == race, row["path"]
        checked += 1
    assert checked >= 20


def test_header_xml_matches_header_chunk(corpus):
    """The Community XML (03093001) repeats the map uid and the best time of 03093000."""
    checked = 0
    for row, g, _ in parsed():
        xml = _xml(g)
        head = _header_values(g, 0x03093000)
        if not xml or not head.get("mapUid"):
            continue
        assert re.search(r'<(?:map|challenge)\b[^>]*\buid="%s"' % re.escape(head["mapUid"]), xml), row["path"]
        best = re.search(r'<times\b[^>]*\bbest="(-?\d+)"', xml)
        if best and head.get("raceTime") not in (None, UNSET):
            assert int(best.group(1)) == head["raceTime"], row["path"]
        checked += 1
    assert checked >= 15


def test_ghost_race_time_matches_checkpoints_and_samples(corpus):
    """A ghost's race time (03092005) is its last checkpoint (0309200B), and its
    samples (a different chunk or node) end at the finish: no earlier than one
    sample period before it, and no later than the 3 s the games keep recording."""
    checked = 0
    for row, _, ghosts in parsed():
        for gh in ghosts:
            race = gh.facts.get("race_time_ms")
            t = gh.track
            if race in (None, UNSET) or t is None or not t.samples:
                continue
            cps = gh.facts.get("checkpoints_ms")
            if cps:
                assert cps[-1] == race, row["path"]
            period = t.period_ms or 100
            last = t.samples[-1].time_ms
            assert race - period <= last <= race + 3000 + period, (row["path"], race, last)
            checked += 1
    assert checked >= 30
