"""Items, crystals, meshes and prefabs of the corpus (ManiaPlanet, ShootMania, TM2020):
declarations from GBX.NET facts, checked by the node end markers and by facts the
files store twice (indices into the file's own lists, counts against lengths)."""
from __future__ import annotations

import functools

import pytest
from corpusdata import manifest_rows, parsed_gbx

pytestmark = pytest.mark.corpus

CRYSTAL, SOLID2, SKEL, VERTEX_STREAM = 0x09003000, 0x090BB000, 0x090BA000, 0x09056000


@functools.lru_cache(maxsize=None)
def parsed(kind: str | None = None, suffix: str = ".gbx") -> tuple:
    """(path, Gbx) of the corpus GBX files of a manifest kind (items and "other" files
    when None) whose path ends with `suffix`."""
    kinds = (kind,) if kind else ("item", "other")
    return tuple((row["path"], parsed_gbx(row["path"])[1]) for row in manifest_rows()
                 if row["kind"] in kinds and row["path"].lower().endswith(suffix.lower()))


def nodes_of(class_id: int, files) -> list:
    return [(path, n) for path, g in files for n in g.body.nodes if n.class_id == class_id]


def values(node, chunk_id: int) -> dict:
    c = node.chunk(chunk_id)
    assert c is not None and c.error is None, (f"{chunk_id:08X}", c and c.error)
    return c.values


def test_every_corpus_item_parses_completely(corpus):
    items = parsed("item")
    assert len(items) >= 21
    for path, g in items:
        assert g.body.status == "complete", (path, g.body.error)


def test_item_type_in_the_body_repeats_the_header(corpus):
    """2E002015 (body) and 2E002000 (header) both give the item type; 2E002019 reads
    its model layout by it."""
    checked = 0
    for path, g in parsed("item"):
        header = next(c.values for c in g.header.chunks if c.chunk_id == 0x2E002000)
        c = g.body.main.chunk(0x2E002015)
        if c is None:
            continue
        assert c.values["objectInfoType"] == header["itemType"], path
        checked += 1
    assert checked >= 15


def _faces_and_positions(crystal: dict):
    """(number of positions, position indices of every face) of a Crystal struct."""
    if "editable" not in crystal:
        return crystal["numPositions"], [list(f["indices"]) for f in crystal["faces"]]
    mesh = crystal["editable"]["mesh"]
    return mesh["numPositions"], [[v["positionIndex"] for v in f["vertices"]] for f in mesh["faces"]]


def _crystals(files):
    for path, n in nodes_of(CRYSTAL, files):
        for c in n.chunks:
            if c.chunk_id == 0x09003005:
                for layer in c.values["layers"]:
                    if "crystal" in layer:
                        yield path, layer["crystal"]


def test_crystal_faces_index_their_own_positions_and_parts(corpus):
    """Every face of every geometry layer (embedded in items, or editable in .Crystal
    files) names positions of its own crystal, and a group (part) of its parts list;
    the faces have at least 3 vertices."""
    crystals = list(_crystals(parsed()))
    assert len(crystals) >= 20
    editable = 0
    for path, crystal in crystals:
        num_positions, faces = _faces_and_positions(crystal)
        assert faces and num_positions, path
        for indices in faces:
            assert len(indices) >= 3 and all(0 <= i < num_positions for i in indices), path
        if "editable" in crystal:
            editable += 1
            groups = [p["groupIndex"] for p in crystal["editable"]["faceProperties"]]
            assert all(0 <= gi < crystal["numParts"] for gi in groups), path
    assert editable >= 4


def test_crystal_editable_edges_join_used_vertex_handles(corpus):
    """An editable crystal's edges name vertex handles (index << 10 | generation) of
    its own vertex pool, and the mesh holds one position per used vertex handle."""
    checked = 0
    for path, crystal in _crystals(parsed(suffix=".Crystal.Gbx")):
        ed = crystal["editable"]
        pool = ed["vertexPool"]
        used = {i for i, h in enumerate(pool["handles"]) if not h["isFree"]}
        assert ed["mesh"]["numPositions"] == len(used), path
        for edge in ed["edges"]:
            for handle in (edge["vertexHandle1"], edge["vertexHandle2"]):
                assert handle >> 10 in used, path
        checked += 1
    assert checked >= 4


def test_vertex_streams_hold_one_value_per_vertex(corpus):
    """CPlugVertexStream: every stream array holds `count` values, and the positions
    stream exists when the stream holds data."""
    streams = 0
    for path, n in nodes_of(VERTEX_STREAM, parsed()):
        v = values(n, 0x09056000)
        if "streams" not in v:
            continue
        usages = [d["usage"] for d in v["dataDecls"]]
        assert 0 in usages, path
        for s in v["streams"]:
            data = next(s[k] for k in ("values", "packed", "colors", "blendIndices") if k in s)
            assert len(data) == v["count"], path
        streams += 1
    assert streams >= 3


def test_skeleton_joints_point_at_earlier_joints(corpus):
    """CPlugSkel: a joint's parent is -1 (root) or another joint of the skeleton."""
    skels = nodes_of(SKEL, parsed())
    assert len(skels) >= 6
    for path, n in skels:
        v = values(n, 0x090BA000)
        assert v["numJoints"] == len(v["joints"]) >= 1, path
        assert all(-1 <= j["parentIndex"] < v["numJoints"] for j in v["joints"]), path


def test_solid2_models_before_version_6_hold_their_visuals(corpus):
    """090BB000 below version 6 (ShootMania ObjectInfo) stores each geometry's visual
    node in place, and its material index names one of the model's material ids."""
    checked = 0
    for path, n in nodes_of(SOLID2, parsed()):
        c = n.chunk(0x090BB000)
        if c.values is None or c.values["version"] >= 6:
            continue
        v = c.values
        for geom in v["shadedGeoms"]:
            assert geom["visual"].node.class_id == 0x0901E000, path
            assert geom["materialIndex"] < v["numMaterialIds"], path
        checked += 1
    assert checked >= 5


def test_prefab_places_a_static_object_of_its_own(corpus):
    """CPlugPrefab (a class that archives itself): one entity count for the list it
    reads; a placed static object holds a CPlugSolid2Model of the file."""
    (path, g), = parsed(suffix=".Prefab.Gbx")
    assert g.body.status == "complete", g.body.error
    v = values(g.body.main, 0x09145000)
    assert v["numEnts"] == len(v["ents"]) >= 1
    statics = [e["model"].node for e in v["ents"] if e["model"] is not None and e["model"].node is not None
               and e["model"].node.class_id == 0x09159000]
    assert statics
    for node in statics:
        mesh = values(node, 0x09159000)["mesh"]
        assert mesh.node.class_id == SOLID2
