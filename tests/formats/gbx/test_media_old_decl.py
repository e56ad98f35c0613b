"""Declarations no corpus file exercises, on hand-built bodies written with gbxfs/formats/gbx/writer.py
from the layouts GBX.NET describes: the old MediaTracker blocks that stopped real
files (CameraGame 03084000/001 stored under TM Sunrise's class id, CControlEffectSimi
07010002, CCtnMediaBlockUiTMSimpleEvtsDisplay with its parent's 0307D000) and the
ManiaPlanet block flags of 0304301F (bits 19, 20, 18; real blocks after the counted ones);
and two versioned families: a campaign with its map group, and version-18 player scores."""
from __future__ import annotations

from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.writer import END, W


def test_old_camera_game_block_under_its_sunrise_class_id():
    w = W()
    w.u32(0x2406D000).f32(1.5).f32(4.0).i32(2)          # start, end, Internal
    w.u32(0x2406D001).f32(0.0).f32(3.0).i32(3).i32(7)   # Orbital, clip entity 7
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x2406D000, num_nodes=1)
    assert res.status == "complete", res.error
    assert res.main.class_name == "CGameCtnMediaBlockCameraGame"
    v0 = res.main.chunk(0x03084000).values
    assert (v0["timeClipStart"], v0["timeClipEnd"], v0["gameCamOld"]) == (1.5, 4.0, 2)
    v1 = res.main.chunk(0x03084001).values
    assert (v1["gameCamOld"], v1["clipEntId"]) == (3, 7)


def test_camera_game_002_reads_the_entity_only_after_an_anchor():
    for anchor, tail in (("", b""), ("Anchor", b"\x05\x00\x00\x00")):
        w = W()
        w.u32(0x03084002).f32(0.0).f32(1.0).id("Behind").id(anchor).raw(tail)
        w.u32(END)
        res = walk_body(w.bytes(), class_id=0x03084000, num_nodes=1)
        assert res.status == "complete", (anchor, res.error)
        v = res.main.chunk(0x03084002).values
        assert v["gameCamId"] == "Behind"
        assert ("clipEntId" in v) == bool(anchor)


def test_simple_events_display_block_of_nations_eswc():
    w = W()
    w.u32(0x24091001).f32(0.0).f32(9.5)                 # parent CCtnMediaBlockUi: times
    w.u32(0x24092001)
    for flag in (True, False, True, True, False):
        w.bool(flag)
    w.u32(0x24092002).bool(True)
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x24092000, num_nodes=1)
    assert res.status == "complete", res.error
    assert res.main.chunk(0x0307D001).values["timeClipEnd"] == 9.5
    v = res.main.chunk(0x24092001).values
    assert [v[k] for k in ("stuntFigures", "checkpoints", "endOfRace", "endOfLaps", "ghostsName")] == \
        [True, False, True, True, False]


def test_effect_simi_002_keys_have_opacity_and_depth_only():
    w = W()
    w.u32(0x07010002).u32(2)
    for t in (0.0, 2.0):
        w.f32(t).f32(0.25).f32(0.5).f32(0.0).f32(1.0).f32(2.0).f32(0.75).f32(0.5)
    w.bool(True)
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x07010000, num_nodes=1)
    assert res.status == "complete", res.error
    v = res.main.chunk(0x07010002).values
    assert [k["timeStamp"] for k in v["keys"]] == [0.0, 2.0]
    assert v["keys"][1]["opacity"] == 0.75 and v["keys"][1]["depth"] == 0.5
    assert v["centered"] is True


def _block(w: W, name: str, x: int, flags: int) -> W:
    return w.id(name).u8(0).u8(x).u8(1).u8(2).u32(flags)


def test_maniaplanet_block_flags_and_real_trailing_blocks():
    w = W()
    w.u32(0x0304301F)
    w.id("Uid").id("Canyon").id("author").string("Map").id("Day").id("Canyon").id("Nadeo")
    w.u32(36).u32(36).u32(36).bool(False).u32(6)
    w.u32(3)                                            # counted (real) blocks
    _block(w, "Phy", 1, 0x80000)                        # bit 19: a char physics property
    w.u32(0xFFFFFFFF)                                   # null node reference
    _block(w, "Cards", 2, 0x40000 | 0x20000)            # bit 18: card events; 17: no data
    w.u32(1).i32(4).i32(5).u32(2).id("Ev1").id("Coll").id("A").id("Ev2").id("Coll").id("A")
    _block(w, "Unassigned1", 0xFF, 0xFFFFFFFF)          # not counted
    _block(w, "Wp", 3, 0x100000)                        # bit 20: waypoint property
    w.u32(0xFFFFFFFF)
    _block(w, "Late", 4, 0x1000)                        # a real block after the counted ones
    w.u32(0x03043022).u32(1)
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x03043000, num_nodes=4)
    assert res.status == "complete", res.error
    v = res.main.chunk(0x0304301F).values
    assert [b["block"]["blockName"] for b in v["blocks"]] == ["Phy", "Cards", "Unassigned1", "Wp"]
    cards = v["blocks"][1]["block"]["squareCardEventIds"]
    assert [m[0] for m in cards[0]["cardEvents"]] == ["Ev1", "Ev2"]   # (id, collection, author)
    assert [b["block"]["blockName"] for b in v["trailingBlocks"]] == ["Late"]
    assert res.main.chunk(0x03043022) is not None


def test_tmf_block_version_1_reads_no_waypoint_for_bit_20():
    w = W()
    w.u32(0x0304301F)
    w.id("Uid").id("Stadium").id("author").string("Map").id("Day").id("Stadium").id("Nadeo")
    w.u32(32).u32(32).u32(32).bool(False).u32(1)
    w.u32(1)
    _block(w, "A", 1, 0x100000)
    w.u32(0x03043022).u32(1)
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x03043000, num_nodes=2)
    assert res.status == "complete", res.error
    assert "blockParameters" not in res.main.chunk(0x0304301F).values["blocks"][0]["block"]


def test_campaign_with_a_map_group_node():
    w = W()
    w.u32(0x03090006).id("Campaign1")
    w.u32(0x03090000).u32(10).u32(1).i32(1).u32(0x0308F000)      # group: a new node (slot 1)
    w.u32(0x0308F002).string("White")
    w.u32(0x0308F00B).u32(1).u32(2)                              # list version 1 + 2 = 3
    for name in ("A01", "A02"):
        w.id(name).id("Stadium").id("Nadeo").string(f"Campaigns\\{name}.Challenge.Gbx")
    w.u32(END)
    w.u32(0x0309000D).u32(2)
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x03090000, num_nodes=2)
    assert res.status == "complete", res.error
    assert res.main.chunk(0x0309000D).values["unlockType"] == 2
    group = res.main.chunk(0x03090000).values["challengeGroups"][0].node
    maps = group.chunk(0x0308F00B).values["mapInfos"]
    assert [m["filePath"] for m in maps] == ["Campaigns\\A01.Challenge.Gbx", "Campaigns\\A02.Challenge.Gbx"]
    assert all(set(m) == {"map", "filePath"} for m in maps)          # version 3: no flag


def test_player_score_version_18_map_scores():
    w = W()
    w.u32(0x0308D004).string("player").string("$fffNick").id("login").i32(18).u32(1)
    w.id("MapUid").id("Stadium").id("Nadeo").i32(45678)             # map, personal best
    w.i32(10).i32(20).i32(30).raw(b"\x02\x00\x03\x00")              # play times, resets, finishes
    w.i32(999).i32(0).i32(0)                                        # v6-v8
    # v9: two packed dates, 2021-04-17 (a Saturday) 14:09:19.601 and none
    w.u32(2021 | 4 << 16 | 6 << 20 | 17 << 23).u32(14 | 9 << 5 | 19 << 11 | 601 << 17).u32(0).u32(0)
    w.i32(0).i32(-1).i32(3)                                         # v10-v12
    w.u8(0).string("A01")                                           # v13
    w.i32(45000).i32(-1)                                            # v14, v15
    w.i32(-1).i32(-1).i32(-1).i32(-1)                               # v17
    w.i32(1).i32(2).i32(3).raw(b"\x00\x00\x00\x00")                 # v18
    w.u32(END)
    res = walk_body(w.bytes(), class_id=0x0308D000, num_nodes=1)
    assert res.status == "complete", res.error
    s = res.main.chunk(0x0308D004).values["scores"][0]
    assert (s["personalBest"], s["officialMedal"], s["mapName"], s["officialBestRecord"]) == (45678, 3, "A01", 45000)
    t = s["officialRecordTime"]
    assert [t[k] for k in ("year", "month", "dayOfWeek", "day", "hour", "minute", "second", "milliseconds")] \
        == [2021, 4, 6, 17, 14, 9, 19, 601]
    assert s["time2"]["year"] == 0
