"""Hostile meshes: bodies cut short and with counts and indices written over give
a mesh or GbxError (never another exception), and what the builder makes stays
within its limits and a memory bound."""
from __future__ import annotations

import random
import struct

import pytest
from corpusdata import corpus_body
from memtrace import MiB, Traced

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.mesh import model
from gbxfs.formats.gbx.mesh.extract import build_mesh, lod_count, mesh_node
from gbxfs.formats.gbx.mesh.glb import render_glb
from gbxfs.formats.gbx.mesh.obj import render_obj
from gbxfs.formats.gbx.model import Chunk, Node, NodeRef
from gbxfs.formats.gbx.nodes import walk_body

SAMPLES = ["Simple03.Mesh.gbx", "CPlugSolid TMF 001.Solid.Gbx", "HaloTournant.Crystal.Gbx",
           "CPlugPrefab TM2020 001.Prefab.Gbx", "CGameItemModel TM2020 002.Item.Gbx"]


def _meshes(body: bytes, kw: dict) -> None:
    """Build every level of the body's mesh: GbxError or bytes, nothing else."""
    nodes = walk_body(body, **kw).nodes
    try:
        n = mesh_node(nodes)
        if n is None:
            return
        for lod in range(lod_count(n)):
            m = build_mesh(n, lod)
            assert m.num_vertices <= model.MAX_VERTICES and m.num_triangles <= model.MAX_TRIANGLES
            render_obj(m)
            render_glb(m)
    except GbxError:
        pass


@pytest.mark.corpus
@pytest.mark.parametrize("needle", SAMPLES)
def test_cut_short_and_written_over(corpus, needle):
    body, kw = corpus_body(needle)
    rng = random.Random(needle)
    for cut in sorted({len(body) * k // 9 for k in range(1, 9)}):
        _meshes(body[:cut], kw)
    for _ in range(12):
        at = rng.randrange(0, max(1, len(body) - 4))
        value = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 0x10000, 3, 0])
        _meshes(body[:at] + struct.pack("<I", value) + body[at + 4:], kw)


def test_huge_vertex_count_costs_no_memory():
    """A count of a billion vertices over 36 bytes of data: refused before any array."""
    with Traced() as t:
        with pytest.raises(GbxError, match="bytes for 1000000000 vertices"):
            build_mesh(_solid2(_visual(1_000_000_000, [0, 1, 2], data=bytes(36))))
        assert t.growth() < 1 * MiB


def _visual(count: int, indices: list[int], *, stride: int = 12, data: bytes | None = None) -> Node:
    """A hand-made CPlugVisualIndexedTriangles with one vertex stream and an index buffer."""
    C = classdb.class_id
    stream = Node(None, C("CPlugVertexStream"), [Chunk(C("CPlugVertexStream"), 0, 0, b"", values={
        "count": count, "dataDecls": [{"flags1": (stride << 18) | (2 << 9), "usage": 0, "dataType": 2,
                                       "data": data if data is not None else bytes(stride * count)}]})])
    buf = Node(None, C("CPlugIndexBuffer"), [Chunk(C("CPlugIndexBuffer"), 0, 0, b"", values={
        "numIndices": len(indices), "indices": indices})])
    return Node(1, C("CPlugVisualIndexedTriangles"), [
        Chunk(C("CPlugVisual") | 0x00F, 0, 0, b"", values={"count": count, "vertexStreams": [NodeRef("new", 2, stream)]}),
        Chunk(C("CPlugVisualIndexed") | 0x001, 0, 0, b"", values={"hasIndexBuffer": True,
                                                                   "indexBuffer": NodeRef("direct", None, buf)})])


def _solid2(visual: Node) -> Node:
    C = classdb.class_id
    return Node(0, C("CPlugSolid2Model"), [Chunk(C("CPlugSolid2Model"), 0, 0, b"", values={
        "shadedGeoms": [{"visualIndex": 0, "materialIndex": 0, "lod": -1}],
        "visuals": [NodeRef("new", 1, visual)], "materials": []})])


def test_index_past_the_vertices_is_refused():
    with pytest.raises(GbxError, match="names a vertex outside"):
        build_mesh(_solid2(_visual(3, [0, 1, 3])))


def test_partial_triangle_is_refused():
    with pytest.raises(GbxError, match="whole number of triangles"):
        build_mesh(_solid2(_visual(3, [0, 1, 2, 0])))


def test_mesh_limits(monkeypatch):
    monkeypatch.setattr(model, "MAX_TRIANGLES", 1)
    with pytest.raises(GbxError, match="more than"):
        build_mesh(_solid2(_visual(3, [0, 1, 2, 2, 1, 0])))


def test_visual_index_out_of_range():
    n = _solid2(_visual(3, [0, 1, 2]))
    n.chunks[0].values["shadedGeoms"][0]["visualIndex"] = 7
    with pytest.raises(GbxError, match="names visual 7 of 1"):
        build_mesh(n)
