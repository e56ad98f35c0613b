"""The derived files of GBX folders through a real mount (docs/formats/mount.md,
"Derived files"): a corpus mesh's mesh.glb and mesh.obj load with trimesh, on
disk and inside a pak, with the decoded vertex and triangle counts; stat gives
the size read; a map folder tells Dolphin its picture; a replay gives inputs."""
from __future__ import annotations

import io
import os
import shutil

import pytest
from corpusdata import corpus_path, manifest_rows

from gbxfs.formats.gbx.mesh.extract import build_mesh, mesh_node

trimesh = pytest.importorskip("trimesh")
pytestmark = [pytest.mark.mount, pytest.mark.corpus]

MESH = "Meshes/Arrow.Mesh.gbx"
REPLAY = "Gosu_B13-Obstacle_WR.Replay.Gbx"


def _decoded(data: bytes):
    from gbxfs.formats import gbx
    return build_mesh(mesh_node(gbx.parse(data).body.nodes), 0)


def test_mesh_glb_loads_with_trimesh(mounter, corpus, tmp_path):
    from gbxfs.formats.pak.writer import PakFile, write_packs
    src = tmp_path / "src"
    src.mkdir()
    data = (corpus / corpus_path(MESH)).read_bytes()
    (src / "Arrow.Mesh.Gbx").write_bytes(data)
    write_packs(src, {"P": [PakFile("Meshes/Arrow.Mesh.Gbx", data)]})
    shutil.copy(corpus / corpus_path(REPLAY), src / "r.Replay.Gbx")
    a_map = next(r["path"] for r in manifest_rows() if r["kind"] == "map" and "A01-Race" in r["path"])
    shutil.copy(corpus / a_map, src / "m.Map.Gbx")
    mp = mounter.mount(src)
    want = _decoded(data)
    for folder in (f"{mp}/Arrow.Mesh.Gbx", f"{mp}/P.pak/Meshes/Arrow.Mesh.Gbx"):
        glb = open(f"{folder}/mesh.glb", "rb").read()
        assert os.stat(f"{folder}/mesh.glb").st_size == len(glb)
        scene = trimesh.load(io.BytesIO(glb), file_type="glb", force="scene")
        assert sum(len(g.vertices) for g in scene.geometry.values()) == want.num_vertices
        assert sum(len(g.faces) for g in scene.geometry.values()) == want.num_triangles
        obj = trimesh.load(f"{folder}/mesh.obj", force="mesh", process=False)
        assert len(obj.faces) == want.num_triangles
        assert sorted(os.listdir(f"{folder}/mesh")) == ["mesh.glb", "mesh.lod1.glb", "mesh.lod1.mtl",
                                                         "mesh.lod1.obj", "mesh.mtl", "mesh.obj",
                                                         "textures.txt"]
    assert open(f"{mp}/m.Map.Gbx/.directory").read() == "[Desktop Entry]\nIcon=./thumbnail.jpg\n"
    rows = open(f"{mp}/r.Replay.Gbx/inputs.csv").read().splitlines()
    assert rows[0] == "time_ms,action,value" and len(rows) > 100
    assert open(f"{mp}/r.Replay.Gbx/inputs.txt").read().startswith("# ")
    assert open(f"{mp}/r.Replay.Gbx/ghost.svg").read().startswith("<svg")
