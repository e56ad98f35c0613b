"""Collections, macroblocks, block infos, spawn models and materials of the corpus
(kind "other"): declarations from GBX.NET facts, checked by the node end markers and by
facts the files store twice (header vs body, references vs the reference table,
positions vs block coordinates)."""
from __future__ import annotations

import functools
import math

import pytest
from corpusdata import manifest_rows, parsed_gbx


pytestmark = pytest.mark.corpus


@functools.lru_cache(maxsize=None)
def parsed(suffix: str) -> tuple:
    """(path, Gbx) of the corpus files whose path ends with `suffix` (case-insensitive)."""
    return tuple((row["path"], parsed_gbx(row["path"])[1]) for row in manifest_rows()
                 if row["path"].lower().endswith(suffix.lower()))


def values(node, chunk_id: int) -> dict:
    c = node.chunk(chunk_id)
    assert c is not None and c.error is None, (f"{chunk_id:08X}", c and c.error)
    return c.values


def header(g, chunk_id: int) -> dict:
    return next(c.values for c in g.header.chunks if c.chunk_id == chunk_id)


def test_collection_body_repeats_the_header_and_points_at_its_files(corpus):
    files = parsed(".TMCollection.Gbx")
    assert files
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        desc, body = header(g, 0x03033001), values(g.body.main, 0x03033009)
        assert body["collection"] == desc["collection"], path
        if desc["version"] >= 4:
            assert body["vehicle"] == desc["vehicle"], path
        assert body["numZones"] == len(body["completeZoneList"]) > 0
        # zones are zone files (TM Sunrise) or zone nodes embedded in the collection (TM 1.0)
        zones = body["completeZoneList"] + [body["defaultZone"]]
        embedded = [ref for ref in zones if ref.kind != "external"]
        for ref in embedded:
            assert ref.node.complete and ref.node.class_name.startswith("CGameCtnZone"), (path, ref)
        if embedded:
            ids = [values(ref.node, 0x0305C003)["zoneId"] for ref in body["completeZoneList"]]
            assert len(set(ids)) == len(ids), (path, ids)
        # the small icon is stored only where the header names a collection icon file
        icons = values(g.body.main, 0x0303300D)
        assert icons["hasIconFid"] and icons["hasIconSmallFid"] == bool(desc["iconCollection"]), path
        # the default decoration: chunk 03033011, or 03033008 in TM 1.0
        deco = g.body.main.chunk(0x03033011) or g.body.main.chunk(0x03033008)
        kinds = {".TMZone": [ref for ref in zones if ref.kind == "external"],
                 ".Texture.": [icons[k] for k in ("iconFid", "iconSmallFid") if k in icons],
                 ".TMDecoration.": [values(g.body.main, deco.chunk_id)["defaultDecoration"]]}
        for part, refs in kinds.items():
            for ref in refs:
                assert ref.kind == "external" and part in ref.external.file_name, (path, ref)


def test_macroblock_object_spawns_lie_in_their_block_coordinates(corpus):
    """0310D00E: each item's absolute position lies in the block cell it names (blocks
    are 32 x 8 x 32 m in Valley and TM2020's Stadium, 8 x 2 x 8 m in ShootMania's Storm)."""
    block_size = {11: (32, 8, 32), 26: (32, 8, 32), 202: (8, 2, 8)}   # by collection id
    files = parsed(".Macroblock.Gbx")
    assert len(files) == 3
    spawns = 0
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        block_spawns = values(g.body.main, 0x0310D000)
        blocks = block_spawns["blockSpawns"]
        objects = values(g.body.main, 0x0310D00E)["objectSpawns"]
        assert len(blocks) == block_spawns["numBlockSpawns"], path
        # a macroblock holds blocks, items or both (Storm's AirCheckpoint: three items, no block)
        assert blocks or objects, path
        assert all(isinstance(b["blockModel"]["id"], str) and b["blockModel"]["id"] for b in blocks), path
        if path.endswith("/AirCheckpoint.Macroblock.Gbx"):
            assert not blocks and len(objects) == 3, path
        sx, sy, sz = block_size[header(g, 0x2E001003)["collection"]]
        for s in objects:
            x, y, z = s["absolutePositionInMap"]
            assert s["blockCoord"] == (math.floor(x / sx), math.floor(y / sy), math.floor(z / sz)), (path, s)
            assert s["itemModel"]["id"], path
            spawns += 1
    assert spawns >= 10


def test_block_info_names_itself_like_its_header(corpus):
    """0304E005 (body) names the block as the collector header 2E001003 does; its unit
    infos are read to their end markers and their clips are clip files."""
    checked = 0
    for path, g in parsed(".TMEDClassic.Gbx") + parsed(".TMEDRoad.Gbx"):
        units = g.body.main.chunk(0x0304E005)
        if units.values is None:
            # the Road block is damaged: its body is stored uncompressed, and right after
            # the item of a scene mobil it holds entries of a reference table (the names
            # of the header's .Solid.Gbx files) where a chunk id belongs
            e = g.body.error
            assert e.reason.startswith("unknown chunk") and "CSceneMobil" in str(e.node), path
            assert g.header.body_compression == "U", path
            after = g.body_bytes[e.offset:e.offset + 64]
            assert b".Solid.Gbx" in after and any(ref.file_name.encode() in after
                                                  for ref in g.refs.by_node_index().values()), path
            continue
        if path.endswith(".TMEDClassic.Gbx"):
            assert g.body.status == "complete", (path, g.body.error)
        v = units.values
        assert v["blockName"] == header(g, 0x2E001003)["name"], path
        for ref in v["groundUnits"] + v["airUnits"]:
            assert ref.kind == "new" and ref.node.complete, path
            for clip in values(ref.node, 0x03036000)["clips"]:
                assert clip is None or ".TMEDClip." in clip.external.file_name, path
        checked += 1
    assert checked >= 1


def test_spawn_model_and_material_files_parse_completely(corpus):
    files = parsed(".Spawn.Gbx") + parsed(".Mat.Gbx")
    assert len(files) == 8
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
    (_, spawn), = parsed(".Spawn.Gbx")
    loc = values(spawn.body.main, 0x2E00E000)["loc"]
    rows = [loc[0:3], loc[3:6], loc[6:9]]       # the rotation part of an iso4 is orthonormal
    for i, a in enumerate(rows):
        for j, b in enumerate(rows):
            assert math.isclose(sum(p * q for p, q in zip(a, b)), float(i == j), abs_tol=1e-5)


def test_surface_materials_repeat_in_the_surface_data(corpus):
    """0900C003 version 0: the trailing data holds one byte per material, its surface
    id, as the material list says (ShootMania shape and item)."""
    checked = 0
    for path, g in parsed(".Shape.gbx") + parsed(".ObjectInfo.gbx"):
        for n in g.body.nodes:
            c = n.chunk(0x0900C003)
            if c is None:
                continue
            v = c.values
            assert v is not None, (path, c.error)
            if v["version"] == 0 and not any(m["hasMaterial"] for m in v["materials"]):
                assert v["data"] == bytes(m["surfaceId"] for m in v["materials"]), path
                checked += 1
    assert checked >= 2


def _visual_indices(n):
    """(vertex count, triangle indices) of a CPlugVisualIndexed node, or None."""
    count = next((c.values["count"] for c in n.chunks
                  if c.chunk_id >> 12 == 0x09006 and c.values and "count" in c.values), None)
    for c in n.chunks:
        if c.chunk_id == 0x0906A000:
            return count, c.values["indices"]
        if c.chunk_id == 0x0906A001 and c.values["hasIndexBuffer"]:
            return count, c.values["indexBuffer"].node.chunks[0].values["indices"]
    return None


def test_solids_parse_and_their_triangles_index_their_own_vertices(corpus):
    """CPlugSolid files of five generations parse completely. In each visual, the
    triangle indices (CPlugVisualIndexed, or its index buffer node) address exactly the
    vertices CPlugVisual declared (count, another chunk): the highest index is count - 1."""
    files = parsed(".Solid.Gbx")
    assert len(files) == 5
    visuals = 0
    for path, g in files:
        assert g.body.status == "complete", (path, g.body.error)
        for n in g.body.nodes:
            found = _visual_indices(n)
            if found is None:
                continue
            count, indices = found
            assert count and len(indices) % 3 == 0 and max(indices) == count - 1, (path, n.index)
            vertices = next(c.values["vertices"] for c in n.chunks if c.chunk_id in (0x0902C003, 0x0902C004))
            assert len(vertices) == count, (path, n.index)
            visuals += 1
    assert visuals >= 40


def test_solid_collision_meshes_index_their_own_vertices(corpus):
    """Surface meshes (0900D002 old, 0900C003 in a GmSurf): triangle indices < vertex count."""
    meshes = 0
    for path, g in parsed(".Solid.Gbx"):
        for n in g.body.nodes:
            for c in n.chunks:
                if c.chunk_id == 0x0900D002:
                    mesh = c.values["mesh"]
                elif c.chunk_id == 0x0900C003 and c.values["surf"]["surfType"] == 7:
                    mesh = c.values["surf"]["mesh"]
                else:
                    continue
                tris = mesh.get("cookedTriangles") or mesh.get("triangles")
                assert tris, path
                assert all(0 <= i < mesh["numVertices"] for t in tris for i in t["indices"]), path
                meshes += 1
    assert meshes >= 4


def test_train_wagon_refers_to_its_files_and_its_curve_is_consistent(corpus):
    """0911C000's references are the shape, mesh and sound files of the reference table;
    its acceleration curve has one y (0501A002) per x (05002001), xs ascending."""
    (path, g), = parsed(".Wagon.Gbx")
    assert g.body.status == "complete", g.body.error
    v = values(g.body.main, 0x0911C000)
    for key, part in (("shape", ".Shape."), ("mesh", ".Mesh."), ("soundRailContact", ".Sound.")):
        assert v[key].kind == "external" and part in v[key].external.file_name, key
    curve = v["accelCurve"].node
    xs, ys = values(curve, 0x05002001)["xs"], values(curve, 0x0501A002)["ys"]
    assert len(xs) == len(ys) > 1 and xs == sorted(xs)


def test_solid2_model_geometries_point_into_its_own_lists(corpus):
    """090BB000: each shaded geometry names a visual and a material of the model's own
    lists, and the visual's triangles index exactly its vertices."""
    (path, g), = parsed(".Solid2.Gbx")
    assert g.body.status == "complete", g.body.error
    v = values(g.body.main, 0x090BB000)
    for geom in v["shadedGeoms"]:
        assert geom["visualIndex"] < len(v["visuals"]) and geom["materialIndex"] < len(v["materials"])
    assert all(m.kind == "external" and ".Material." in m.external.file_name for m in v["materials"])
    for ref in v["visuals"]:
        count, indices = _visual_indices(ref.node)
        assert max(indices) == count - 1 and len(indices) % 3 == 0
