"""Corpus maps: the README's completeness claim, and cross-checks between independent
places of the same file (header XML vs the TmDesc/Common header chunks; body chunks vs
header chunks; lists vs the data they describe)."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
import zlib

import pytest

from gbxfs.formats import gbx
from gbxfs.formats.gbx import generation
from map_corpus import maps

pytestmark = pytest.mark.corpus

# chunk declarations owned by the map files (challenge*.chunks, block, anchored, metadata)
MAP_CLASSES = {"CGameCtnChallenge", "CGameCtnCollectorList", "CGameCtnChallengeParameters", "CGameCtnBlock",
               "CGameCtnBlockSkin", "CGameWaypointSpecialProperty", "CGameCtnAnchoredObject",
               "CScriptTraitsMetadata"}


def header(g, chunk_id: int) -> dict:
    for c in g.header.chunks:
        if c.chunk_id == chunk_id:
            assert c.error is None, c.error
            return c.values
    return {}


def body(node, chunk_id: int) -> dict | None:
    c = node.chunk(chunk_id) if node is not None else None
    return c.values if c is not None else None


def node_of(g, class_name: str):
    return next((n for n in g.body.nodes if n.class_name == class_name), None)


def test_corpus_has_maps_of_every_old_generation(corpus):
    gens = {gen for _, _, gen in maps()}
    assert set(generation.OLD_GENERATIONS) <= gens


def test_forever_and_older_maps_parse_completely(corpus):
    bad = [(gen, row["path"], str(g.body.error)) for row, g, gen in maps()
           if gen in generation.OLD_GENERATIONS and g.body.status != "complete"]
    assert not bad, "\n".join(map(str, bad))


def test_every_map_parses_completely(corpus):
    """The README's table: 100% of the corpus maps, every generation."""
    bad = [(gen, row["path"], g.body.status, str(g.body.error)) for row, g, gen in maps()
           if g.body.status != "complete"]
    assert maps() and not bad, f"{len(bad)}/{len(maps())} incomplete:\n" + "\n".join(map(str, bad))


def test_map_declarations_never_fail_on_corpus_maps(corpus):
    """Every chunk of the map classes that was read decodes without error of its own
    (skippable ones included: their size tells whether the declaration read exactly the
    right bytes). Errors raised inside nested nodes of other classes (MediaTracker clips)
    keep the inner chunk's id and are left to those classes' tests."""
    bad = []
    for row, g, _ in maps():
        for c in g.header.chunks:
            if c.error is not None:
                bad.append((row["path"], f"{c.chunk_id:08X}", str(c.error)))
        for n in g.body.nodes:
            if n.class_name in MAP_CLASSES:
                bad += [(row["path"], f"{c.chunk_id:08X}", str(c.error)) for c in n.chunks
                        if c.error is not None and c.error.chunk_id == c.chunk_id]
    assert not bad, "\n".join(map(str, bad))


def test_header_xml_matches_tmdesc_and_common(corpus):
    """03043005 (XML) against 03043002 (times, cost) and 03043003 (uid, name, author,
    environment) - written by the game from the same data into separate chunks."""
    checked = 0
    for row, g, _ in maps():
        xml = header(g, 0x03043005).get("xml")
        if not xml:
            continue
        root = ET.fromstring(xml)
        ident, desc, times = root.find("ident").attrib, root.find("desc").attrib, root.find("times").attrib
        tm, common = header(g, 0x03043002), header(g, 0x03043003)
        where = row["path"]
        assert ident["uid"] == common["mapUid"], where
        assert ident["author"] == common["mapAuthor"], where
        # the XML drops a leading byte-order mark; XML of TM United and older writes spaces as '+'
        name = common["mapName"].lstrip("\ufeff")
        assert ident["name"] in (name, name.replace(" ", "+")), where
        if isinstance(common["environment"], str):     # else a collection number; the XML has its name
            assert desc["envir"] == common["environment"], where
        for key, field in (("bronze", "bronzeTime"), ("silver", "silverTime"), ("gold", "goldTime"),
                           ("authortime", "authorTime")):
            assert int(times[key]) == tm[field], (where, key)
        if "authorscore" in times and "authorScore" in tm:
            assert int(times["authorscore"]) == tm["authorScore"], where
        cost = desc.get("displaycost", desc.get("price"))
        assert cost is not None and int(cost) == tm["cost"], where
        checked += 1
    assert checked >= 100


def test_block_chunk_repeats_the_common_header(corpus):
    """0304301F (body) starts with the map's ident, name and decoration, like 03043003."""
    checked = 0
    for row, g, _ in maps():
        common = header(g, 0x03043003)
        blocks = body(g.body.main, 0x0304301F) or body(g.body.main, 0x03043013)
        if not common or blocks is None:
            continue
        for key in ("mapUid", "environment", "mapAuthor", "mapName"):
            assert blocks[key] == common[key], (row["path"], key)
        # one ManiaPlanet map (MP4Lagoon B01) has a blank decoration in its header only
        if common.get("decoration", {}).get("timeOfDay"):
            assert blocks["decoration"] == common["decoration"], row["path"]
        checked += 1
    assert checked >= 100


def test_blocks_lie_inside_the_map(corpus):
    """Block coordinates against the map size: a misread block list shows up at once
    (it caught chunk 03043021 being eaten as block flags in TMUnlimiter maps)."""
    checked = 0
    for row, g, _ in maps():
        v = body(g.body.main, 0x0304301F) or body(g.body.main, 0x03043013)
        if v is None:
            continue
        shift = 1 if v.get("version", 0) >= 6 else 0   # ManiaPlanet stores x and z plus one
        for item in v["blocks"]:
            b = item["block"]
            if b["flags"] == 0xFFFFFFFF or (shift and b["flags"] & (1 << 29)):   # unassigned; free block
                continue
            assert isinstance(b["blockName"], str) and b["blockName"], row["path"]
            assert b["x"] - shift < v["sizeX"] and b["y"] < v["sizeY"] and b["z"] - shift < v["sizeZ"], \
                (row["path"], b)
        checked += 1
    assert checked >= 100


def test_baked_blocks_lie_inside_the_map_or_its_border(corpus):
    """03043048 (generated blocks) uses 0304301F's block layout: the coordinates of
    every baked block fit the map size of 0304301F, plus the one-block border the
    game bakes decoration into (x and z from 0 to size + 1, y up to size: a TM2020 map
    has baked loop ends at y 40 of 40)."""
    checked = 0
    for row, g, _ in maps():
        baked, blocks = body(g.body.main, 0x03043048), body(g.body.main, 0x0304301F)
        if baked is None:
            continue
        assert blocks is not None and baked["version"] == blocks["version"], row["path"]
        real = [item["block"] for item in baked["bakedBlocks"] if item["block"]["flags"] != 0xFFFFFFFF]
        assert len(real) == baked["numBakedBlocks"], row["path"]
        for b in real:
            assert isinstance(b["blockName"], str) and b["blockName"], row["path"]
            assert b["x"] <= blocks["sizeX"] + 1 and b["y"] <= blocks["sizeY"] and b["z"] <= blocks["sizeZ"] + 1, \
                (row["path"], b)
        checked += 1
    assert checked >= 30


def test_tm10_block_nodes_lie_inside_the_map(corpus):
    seen = 0
    for row, g, gen in maps():
        v = body(g.body.main, 0x0304300F)
        if v is None:
            continue
        assert gen == "TM 1.0", row["path"]
        assert len(v["blocks"]) == v["numBlocks"]
        for item in v["blocks"]:
            b = body(item["block"].node, 0x03057002)
            assert b["x"] < v["sizeX"] and b["y"] < v["sizeY"] and b["z"] < v["sizeZ"], (row["path"], b)
            assert b["collection"] == v["environment"], row["path"]
        seen += 1
    assert seen == 3


def test_challenge_parameters_repeat_the_medal_times(corpus):
    checked = 0
    for row, g, _ in maps():
        tm = header(g, 0x03043002)
        params = node_of(g, "CGameCtnChallengeParameters")
        for cid in (0x0305B004, 0x0305B00A):
            medals = body(params, cid)
            if medals is None or tm.get("version", 0) < 1:
                continue
            for key in ("bronzeTime", "silverTime", "goldTime", "authorTime"):
                assert medals[key] == tm[key], (row["path"], f"{cid:08X}", key)
            checked += 1
    assert checked >= 140


def test_body_author_chunk_repeats_the_header_author(corpus):
    checked = 0
    for row, g, _ in maps():
        head, tail = header(g, 0x03043008), body(g.body.main, 0x03043042)
        if head and tail is not None:
            for key in ("authorVersion", "authorLogin", "authorNick", "authorZone", "authorExtraInfo"):
                assert tail[key] == head[key], (row["path"], key)
            checked += 1
    assert checked >= 20


def test_embedded_item_list_matches_the_zip(corpus):
    """03043054: the item idents listed before the zip against the zip's own directory."""
    with_items = 0
    for row, g, _ in maps():
        v = body(g.body.main, 0x03043054)
        if v is None:
            continue
        names = []
        if v["zipSize"]:
            with zipfile.ZipFile(io.BytesIO(v["zipFile"])) as z:
                assert z.testzip() is None, row["path"]
                names = [i.filename for i in z.infolist() if not i.is_dir()]
        # the zip holds the listed item/block models, plus files of their own (a
        # ManiaPlanet map: each item's .Shape.gbx and .Mesh.gbx next to its .Item.gbx)
        models = [n for n in names if n.lower().endswith((".item.gbx", ".block.gbx"))]
        assert len(v["items"]) == len(models), row["path"]
        for item in v["items"]:
            assert any(n.endswith("/" + item["name"].replace("\\", "/")) for n in models), (row["path"], item)
        stems = {m.rsplit(".", 2)[0] for m in models}
        assert all(n.rsplit(".", 2)[0] in stems for n in names), row["path"]
        with_items += bool(names)
    assert with_items >= 2


def test_lightmap_cache_inflates_to_its_declared_size(corpus):
    checked = 0
    for row, g, _ in maps():
        v = body(g.body.main, 0x0304303D)
        if v and v.get("compressedData"):
            assert len(zlib.decompress(v["compressedData"])) == v["uncompressedSize"], row["path"]
            for frame in v["frameImages"]:
                assert frame["image"][:2] == b"\xff\xd8" or frame["image"][8:12] == b"WEBP", row["path"]
            checked += 1
    assert checked >= 5


def test_thumbnails_are_whole_jpegs(corpus):
    checked = 0
    for row, g, _ in maps():
        v = header(g, 0x03043007)
        if v.get("version") and v["thumbSize"]:
            assert v["thumb"][:2] == b"\xff\xd8" and v["thumb"][-2:] == b"\xff\xd9", row["path"]
            checked += 1
    assert checked >= 90


def test_metadata_names_are_text_and_types_resolve(corpus):
    """03043044 in both encodings: every trait has a name and a value of its type."""
    versions = set()
    for row, g, _ in maps():
        v = body(g.body.main, 0x03043044)
        if v is None:
            continue
        meta = v["metadata"]
        versions.add(meta["version"])
        for trait in meta["traits"]:
            assert isinstance(trait["name"], str) and trait["name"].isprintable(), row["path"]
            assert trait["type"]["kind"] != 0, row["path"]
    assert {2, 5, 6} <= versions
