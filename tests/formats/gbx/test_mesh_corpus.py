"""Meshes of the corpus: mesh.obj and mesh.glb of every mesh-bearing file load
with trimesh, hold as many vertices and triangles as the decoded arrays, span the
decoded bounds, and every level of detail's glb passes the Khronos glTF Validator.

trimesh splits a file per material: from OBJ it keeps each material's referenced
vertices, from glTF each primitive's whole vertex accessor, so the vertex counts it
reports are checked against those rules, and the files' own vertex counts (OBJ `v`
lines, glTF POSITION accessors) against the decoded arrays."""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from mesh_corpus import expected, mesh_files
from requires import skip_or_fail

from gbxfs.formats.gbx.mesh.extract import build_mesh, lod_count
from gbxfs.formats.gbx.mesh.glb import render_glb
from gbxfs.formats.gbx.mesh.obj import render_mtl, render_obj

trimesh = pytest.importorskip("trimesh")
ROOT = Path(__file__).resolve().parents[3]
VALIDATOR = Path(os.environ.get("GBXFS_GLTF_VALIDATOR", ROOT / ".tools/gltf-validator/node_modules/gltf-validator"))
RUNNER = ROOT / "tests/tools/validate_gltf.js"


def _close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def _glb_json(data: bytes) -> dict:
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n])


def _write(mesh, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mesh.obj").write_bytes(render_obj(mesh))
    (folder / "mesh.mtl").write_bytes(render_mtl(mesh))
    (folder / "mesh.glb").write_bytes(render_glb(mesh))
    return folder / "mesh.obj", folder / "mesh.glb"


@pytest.mark.corpus
def test_every_mesh_file_loads_with_its_decoded_counts(corpus, tmp_path):
    files = mesh_files()
    classes = {n.class_name for _, _, n in files}
    assert len(files) >= 40 and classes == {"CPlugSolid", "CPlugSolid2Model", "CPlugCrystal", "CPlugPrefab"}
    for k, (path, _, node) in enumerate(files):
        mesh = build_mesh(node, 0)
        want = expected(node)
        assert (mesh.num_vertices, mesh.num_triangles) == (want["vertices"], want["triangles"]), path
        assert mesh.num_triangles > 0, path
        lo, hi = mesh.bounds()
        if want["bounds"] is not None:
            assert _close(lo, want["bounds"][0], 1e-3) and _close(hi, want["bounds"][1], 1e-3), (path, mesh.bounds(), want)
        obj, glb = _write(mesh, tmp_path / str(k))
        text = obj.read_text()
        assert sum(1 for ln in text.splitlines() if ln.startswith("v ")) == want["vertices"], path
        m = trimesh.load(obj, process=False, force="mesh")
        referenced = sum(len({i for t in gr.triangles for i in t}) for g in mesh.geoms for gr in g.groups)
        assert (len(m.vertices), len(m.faces)) == (referenced, want["triangles"]), path
        assert _close(m.bounds[0], lo, 2e-6 + 1e-6 * max(map(abs, lo))) and _close(m.bounds[1], hi, 2e-6 + 1e-6 * max(map(abs, hi))), path
        doc = _glb_json(glb.read_bytes())
        positions = {p["attributes"]["POSITION"] for me in doc["meshes"] for p in me["primitives"]}
        assert sum(doc["accessors"][a]["count"] for a in positions) == want["vertices"], path
        s = trimesh.load(glb, process=False)
        geoms = list(s.geometry.values())
        assert sum(len(g.faces) for g in geoms) == want["triangles"], path
        per_primitive = sum(len(g.positions) * len([gr for gr in g.groups if gr.triangles]) for g in mesh.geoms)
        assert sum(len(g.vertices) for g in geoms) == per_primitive, path
        assert _close(s.bounds[0], lo, 1e-4) and _close(s.bounds[1], hi, 1e-4), path


@pytest.mark.corpus
def test_visual_bounds_equal_their_stored_boxes(corpus):
    """Every visual with a stored box (centre, half extent): its vertices span it."""
    from gbxfs.formats.gbx import classdb
    from gbxfs.formats.gbx.mesh.visual import visual_geometry
    from gbxfs.formats.gbx.mesh.walk import reachable
    tri = classdb.class_id("CPlugVisualIndexedTriangles")
    seen = 0
    for path, g, _ in mesh_files():
        for n in reachable(g.body.nodes):
            if n.class_id != tri:
                continue
            geo = visual_geometry(n)
            if geo.box is None or not geo.positions:
                continue
            b = geo.box
            lo = [min(p[i] for p in geo.positions) for i in range(3)]
            hi = [max(p[i] for p in geo.positions) for i in range(3)]
            assert _close(lo, [b[i] - b[i + 3] for i in range(3)], 2e-3), path
            assert _close(hi, [b[i] + b[i + 3] for i in range(3)], 2e-3), path
            seen += 1
    assert seen >= 40


@pytest.mark.corpus
def test_every_level_of_detail_passes_the_gltf_validator(corpus, tmp_path):
    node_bin = shutil.which("node")
    if node_bin is None or not (VALIDATOR / "package.json").exists():
        skip_or_fail(f"node or the glTF validator is missing ({VALIDATOR}; scripts/setup installs it where npm is)",
                     "GBXFS_REQUIRE_GLTF_VALIDATOR")
    glbs, lods = [], 0
    for k, (path, _, node) in enumerate(mesh_files()):
        for lod in range(lod_count(node)):
            mesh = build_mesh(node, lod)
            if lod:
                assert mesh.num_triangles > 0, (path, lod)
                lods += 1
            f = tmp_path / f"{k}.lod{lod}.glb"
            f.write_bytes(render_glb(mesh))
            glbs.append(f)
    assert lods >= 10
    out = subprocess.run([node_bin, str(RUNNER), str(VALIDATOR), *map(str, glbs)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert len(report) == len(glbs)
    bad = {f: r for f, r in report.items() if r["errors"]}
    assert not bad, bad
