"""Player profiles: the two TrackMania Forever profiles of the corpus parse completely,
and facts they store twice agree (header vs body, file name vs profile name, a packed
date vs its own day of the week); the ManiaPlanet profile chunk records (0308C07E),
which no corpus file holds, decode as GBX.NET describes them on built bytes."""
from __future__ import annotations

import datetime
import struct

import pytest
from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx.decl.registry import registry
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.nodes import decode_bytes
from gbxfs.formats.gbx.writer import W


def profiles() -> list[tuple[str, object]]:
    return [(row["path"], parsed_gbx(row["path"])[1]) for row in manifest_rows()
            if row["path"].endswith(".Profile.Gbx")]


def values(node, chunk_id: int) -> dict:
    c = node.chunk(chunk_id)
    assert c is not None and c.error is None, (f"{chunk_id:08X}", c and c.error)
    return c.values


@pytest.mark.corpus
def test_tmf_profiles_parse_completely_and_repeat_their_header(corpus):
    files = profiles()
    assert len(files) >= 2
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        head = next(c for c in g.header.chunks if c.chunk_id == 0x0308C000)
        n = struct.unpack_from("<I", head.raw, 0)[0]
        login = head.raw[4:4 + n].decode()
        key = head.raw[8 + n:]
        account = values(g.body.main, 0x0308C069)
        assert account["onlineLogin"] == login, path
        assert account["onlineSupportKeyHex"] == key.hex().upper(), path
        assert values(g.body.main, 0x0308C05B)["profileName"] == path.rsplit("/", 1)[1].split(".")[0]


@pytest.mark.corpus
def test_tmf_profile_dates_agree_with_their_day_of_the_week(corpus):
    """The packed system time (0308C040, 0308C04C) stores the day of the week too."""
    seen = 0
    for path, g in profiles():
        for chunk_id in (0x0308C040, 0x0308C04C):
            t = values(g.body.main, chunk_id)["time"]
            if t["year"] == 0:
                continue
            day = datetime.date(t["year"], t["month"], t["day"])
            assert t["dayOfWeek"] == (day.weekday() + 1) % 7, (path, f"{chunk_id:08X}", t)
            seen += 1
    assert seen >= 3


@pytest.mark.corpus
def test_tmf_profile_input_bindings_name_the_race_actions(corpus):
    for path, g in profiles():
        ref = values(g.body.main, 0x0308C04B)["bindingsConfig"]
        bindings = values(ref.node, 0x13006000)["bindings"]
        devices = values(ref.node, 0x13006001)["devices"]
        assert {"Accelerate", "Brake", "Steer left", "Steer right", "Give up"} <= {b["action"] for b in bindings}
        assert {b["deviceId"] for b in bindings} <= set(devices), path


def test_maniaplanet_profile_chunk_records_decode_by_class():
    """0308C07E: a known class (EditorSettings, node from archive version 2) decodes its
    node chunks inside the size-prefixed data; an unknown class stays raw."""
    reg = registry()
    node = W().u32(2).u32(2).u32(0x03163001).u32(0).u32(1234).u32(0xFACADE01).bytes()
    raw = b"\x01\x02\x03"
    data = (W().u32(2).u32(3).u32(0x40000000).string("profile").string("Name").u32(2)
            .u32(0x03163000).string("Editor").string("TM").string("c1").u32(1700000000).u32(0)
            .u32(len(node)).raw(node)
            .u32(0x03999000).string("X").string("TM").string("c2").u32(1).u32(2).u32(len(raw)).raw(raw)).bytes()
    v = decode_bytes(reg.get(0x0308C07E), data, decls=reg, chunk_id=0x0308C07E)
    editor, unknown = v["profileChunks"]
    settings = editor["data"]["profileChunk"].node
    assert settings.complete and settings.chunk(0x03163001).values["mapEditorCoppersLimit"] == 1234
    assert unknown["data"]["unknownData"] == raw
    with pytest.raises(GbxError):       # the last record's data one byte short
        decode_bytes(reg.get(0x0308C07E), data[:-1], decls=reg, chunk_id=0x0308C07E)
