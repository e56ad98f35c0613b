"""MediaTracker declarations on the corpus: every clip node of the maps and of the clip
files reaches its end marker right after its chunks (a layout one byte off would not),
and values the game keeps in order come out in order."""
from __future__ import annotations

import functools
import math

import pytest
from corpusdata import manifest_rows, parsed_gbx

from map_corpus import maps

pytestmark = pytest.mark.corpus

# chunks declared from GBX.NET facts for ManiaPlanet / Turbo / TM2020 blocks: each must
# be met and decoded somewhere in the corpus
NEW_MEDIA_CHUNKS = {0x03165000, 0x03166000, 0x03186000, 0x03186001, 0x0329F000, 0x03161000, 0x03195000,
                    0x03133000, 0x03133001, 0x0312A001, 0x03172000, 0x030EB000, 0x0316C000, 0x03129000,
                    0x0316D000, 0x03139000, 0x03139001}


@functools.lru_cache(maxsize=None)
def clip_files() -> tuple:
    return tuple((row, parsed_gbx(row["path"])[1]) for row in manifest_rows()
                 if row["path"].lower().endswith(".clip.gbx"))


def media_nodes():
    for row, g, *_ in (*maps(), *clip_files()):
        for n in g.body.nodes:
            name = n.class_name or ""
            # 030EB000 is CGameCtnMediaBlockSpectators (classes.tsv: CGameLoadProgress)
            if name.startswith("CGameCtnMedia") or name == "CGameControlCameraFree" or n.class_id == 0x030EB000:
                yield row["path"], g, n


def test_clip_files_parse_completely(corpus):
    assert len(clip_files()) == 3
    bad = [(row["path"], str(g.body.error)) for row, g in clip_files() if g.body.status != "complete"]
    assert not bad, bad


def test_media_nodes_end_right_after_their_chunks(corpus):
    seen, bad = set(), []
    for path, g, n in media_nodes():
        if g.body.status != "complete":
            continue          # a file stopped elsewhere may stop inside a clip node
        if not n.complete:
            bad.append((path, n.index, n.class_name, str(n.error)))
        for c in n.chunks:
            if c.error is not None:
                bad.append((path, n.index, f"{c.chunk_id:08X}", str(c.error)))
            elif c.values is not None:
                seen.add(c.chunk_id)
    assert not bad, "\n".join(map(str, bad))
    assert NEW_MEDIA_CHUNKS <= seen, sorted(f"{c:08X}" for c in NEW_MEDIA_CHUNKS - seen)


def _key_lists(values):
    """Every list of dicts with a timeStamp in decoded values (nested too)."""
    if isinstance(values, dict):
        for v in values.values():
            yield from _key_lists(v)
    elif isinstance(values, list) and values and isinstance(values[0], dict):
        if "timeStamp" in values[0]:
            yield values
        for v in values:
            yield from _key_lists(v)


def test_media_keys_are_in_time_order(corpus):
    """Keys are stored by time: a misread key layout breaks the order (or reads NaN).
    (Not every older block: the MP4 test clip's CGameCtnMediaBlockTime has keys at
    0, 1, 0, 60 s, each with its time as value, read to its end marker.)"""
    checked = 0
    for path, _, n in media_nodes():
        for c in n.chunks:
            time_speed = c.chunk_id == 0x03085000 and n.class_id == 0x03129000   # 2-float keys
            if (c.chunk_id not in NEW_MEDIA_CHUNKS and not time_speed) or c.values is None:
                continue
            for keys in _key_lists(c.values):
                times = [k["timeStamp"] for k in keys]
                assert all(math.isfinite(t) for t in times), (path, f"{c.chunk_id:08X}")
                assert times == sorted(times), (path, f"{c.chunk_id:08X}", times)
                checked += len(keys) > 1
    assert checked >= 15


def test_entity_blocks_hold_record_data(corpus):
    """0329F000: the entity block's node reference is a decoded CPlugEntRecordData."""
    checked = 0
    for path, _, n in media_nodes():
        c = n.chunk(0x0329F000)
        if c is None:
            continue
        rec = c.values["recordData"]
        assert rec.node.class_name == "CPlugEntRecordData", path
        assert rec.node.complete and rec.node.chunk(0x0911F000).values is not None, path
        checked += 1
    assert checked >= 4
