"""The player's own TmForever files (TmForever/Scores, TmForever/Config): the corpus
Scores, FidCache and SystemConfig files decode completely and agree with facts stored
elsewhere (calendar dates, the cached replays themselves); hand-built bodies for the
branches no corpus file holds (GBX.NET facts)."""
from __future__ import annotations

import datetime
import struct
from pathlib import PurePosixPath

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.writer import END, SKIP, W, node_body


def _files(suffix: str) -> list[str]:
    return [r["path"] for r in manifest_rows() if "/TmForever/" in r["path"] and r["path"].endswith(suffix)]


def _dates(value, out: list) -> list:
    """Every decoded SystemTime (a dict with date and time) inside `value`."""
    if isinstance(value, dict):
        if "date" in value and "dayOfWeek" in value:
            out.append(value)
        for v in value.values():
            _dates(v, out)
    elif isinstance(value, list):
        for v in value:
            _dates(v, out)
    return out


@pytest.mark.corpus
def test_scores_files_are_complete_and_their_dates_are_calendar_dates(corpus):
    paths = _files(".Scores.Gbx")
    assert len(paths) == 2
    for path in paths:
        g = parsed_gbx(path)[1]
        assert g.body.status == "complete", (path, g.body.error)
        scores = g.body.main.chunk(0x0308D004).values
        assert scores["scoreVersion"] == 18 and len(scores["scores"]) == scores["numScores"] > 0
        dates = [d for n in g.body.nodes for c in n.chunks for d in _dates(c.values, [])]
        set_dates = [d for d in dates if d["date"]]
        assert set_dates, path
        for d in set_dates:
            # the stored day of the week is the calendar's (Sunday 0): the packing is right
            day = datetime.date(d["year"], d["month"], d["day"])
            assert d["dayOfWeek"] == (day.weekday() + 1) % 7, (path, d)
            assert d["hour"] < 24 and d["minute"] < 60 and d["second"] < 60 and d["milliseconds"] < 1000
        assert all(d["time"] == 0 for d in dates if not d["date"])


@pytest.mark.corpus
def test_official_scores_rank_the_player_in_nested_zones(corpus):
    ranked = 0
    for path in _files(".Scores.Gbx"):
        g = parsed_gbx(path)[1]
        official = [n for n in g.body.nodes if n.class_name == "CGamePlayerOfficialScores"]
        assert official, path
        for n in official:
            ranks = n.chunk(0x03095001).values["filteredPlayerRanks"]
            zones = [r["zone"] for r in ranks]
            if not zones:
                continue
            ranked += 1
            assert zones[0] == "World" and all(b.startswith(a + "|") for a, b in zip(zones, zones[1:])), zones
            for r in ranks:
                high = r["score"].node.chunk(0x03047002).values
                assert high["rank"] <= high["count"], (path, high)
    assert ranked >= 2


@pytest.mark.corpus
def test_fid_cache_matches_the_cached_replays(corpus):
    paths = _files("/User.FidCache.Gbx")
    assert len(paths) == 2
    compared = 0
    for path in paths:
        g = parsed_gbx(path)[1]
        assert g.body.status == "complete", (path, g.body.error)
        caches = [ref.node for ref in g.body.main.chunk(0x01026000).values["nods"]]
        assert [c.class_name for c in caches] == ["CPlugFileFidCache"] * 3
        tracks = caches[0].chunk(0x09049000).values
        assert tracks["rootEnumFullName"] == ":user:\\Tracks\\"
        folders, files, headers = tracks["folders"], tracks["files"], tracks["cachedHeaders"]
        assert [h["fileIndex"] for h in headers] == list(range(len(files)))
        offset = 0
        for f, h in zip(files, headers):
            assert f["headerOffset"] == offset
            offset += 6 + h["headerSize"]
            folder = folders[f["folderIndex"]]
            parts = [folder["name"]]
            while folder["parentIndex"] != -1:
                folder = folders[folder["parentIndex"]]
                parts.insert(0, folder["name"])
            replay = f"{PurePosixPath(path).parent.parent}/Tracks/{''.join(parts)}{f['name']}".replace("\\", "/")
            rows = [r for r in manifest_rows() if r["path"] == replay]
            if not rows:
                continue
            # the cache holds the file's size and its light header chunks, byte for byte
            assert int(rows[0]["size"]) == f["fileSize"], replay
            real = {c.chunk_id: c.raw for c in parsed_gbx(replay)[1].header.chunks}
            light = [c["chunkId"] for c in h["headerChunks"] if not c["chunkSize"] & 0x80000000]
            assert h["headerChunkData"] == b"".join(real[cid] for cid in light), replay
            compared += 1
        assert tracks["headerDataSize"] == offset + 4
    assert compared >= 2


def test_player_score_version_15_reads_its_league_scores():
    w = W()
    w.u32(0x0308D001).string("player").id("login").i32(15).u32(1)
    w.id("MapUid").id("Stadium").id("Nadeo").i32(45678)
    w.i32(10).i32(20).i32(30).raw(b"\x02\x00\x03\x00")             # v5
    w.i32(999).i32(0).i32(0)                                        # v6-v8
    w.u32(0).u32(0).u32(0).u32(0)                                   # v9: two dates (none)
    w.u32(2)                                                        # two league scores
    w.i32(5).i32(-1).i32(-1)                                        # version 5: two null nodes
    w.i32(3).i32(7).i32(8).string("league").u32(10).u32(0).string("x")   # version 3
    w.i32(0).i32(-1).i32(3)                                         # v10-v12
    w.u8(0).string("A01").i32(45000).i32(-1)                        # v13-v15
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x0308D000, num_nodes=1)
    assert res.status == "complete", res.error
    leagues = res.main.chunk(0x0308D001).values["scores"][0]["leagueScores"]
    assert [x["leagueScoreVersion"] for x in leagues] == [5, 3]
    assert leagues[1]["numHighScores"] == 0 and "x" in leagues[1].values()


def _display(chunk_id: int, data: bytes) -> dict:
    body = node_body([(0x0B005020, W().bool(False).raw(node_body([(chunk_id, data, True)])).bytes(), True)])
    res = walk_body(body, class_id=0x0B005000, num_nodes=1)
    assert res.status == "complete", res.error
    display = res.main.chunk(0x0B005020).values["display"].node
    c = display.chunk(chunk_id)
    assert c.error is None, c.error
    return c.values


def test_display_flags_stored_as_numbers_other_than_0_or_1():
    assert _display(0x0B013004, struct.pack("<I", 0x19F32C))["disableColorWMask"] == 0x19F32C
    assert _display(0x0B013017, struct.pack("<I", 7))["enableRenderReadBack"] == 7
    v = _display(0x0B013026, struct.pack("<6I", 0x19F32C, 2, 0, 0, 1, 0x100))
    assert (v["disableShadowBufferRaw"], v["ignoreDriverCrashesRaw"]) == (0x19F32C, 0x100)


def test_system_config_052_with_and_without_the_background_quality():
    for ints, background in (((1, 2, 3, 1, 4, 8), None), ((1, 2, 3, 1, 4, 8, 2), 2)):
        data = struct.pack(f"<{len(ints)}i", *ints)
        w = W().u32(0x0B005052).u32(SKIP).u32(len(data)).raw(data).u32(END)
        res = walk_body(w.bytes(), class_id=0x0B005000, num_nodes=1)
        c = res.main.chunk(0x0B005052)
        assert res.status == "complete" and c.error is None, (res.error, c.error)
        assert c.values["tmMaxOpponents"] == 8 and c.values.get("tmBackgroundQuality") == background


def test_campaign_skill_scores_read_each_list_with_its_own_version():
    w = W().u32(0x0308D007).u32(1)
    w.i32(4).i32(7).string("Nations").i32(9)                        # version 4, then its int (v3+)
    w.i32(1).u32(1).string("World").i32(12)                         # filtered scores, version 1
    w.i32(2).u32(1).string("World").i32(13).i32(14)                 # medals scores, version 2
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x0308D000, num_nodes=1)
    assert res.status == "complete", res.error
    skill = res.main.chunk(0x0308D007).values["campaignSkillScores"][0]
    assert len(skill["filteredScores"][0]) == 2 and len(skill["filteredMedalsScores"][0]) == 3
