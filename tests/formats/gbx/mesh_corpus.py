"""Corpus files that hold a mesh, and what their decoded values say the mesh of
level 0 holds, counted straight from the chunk values (not through the mesh
builder): vertices, triangles and, where no placement moves them, bounds."""
from __future__ import annotations

import functools

from corpusdata import manifest_rows, parsed_gbx

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.mesh.extract import mesh_node

C = classdb.class_id
VERTEX_CHUNKS = tuple(C("CPlugVisual") | i for i in (0x008, 0x00A, 0x00C, 0x00D, 0x00E, 0x00F))


@functools.lru_cache(maxsize=None)
def mesh_files() -> tuple:
    """(manifest path, parse, mesh node) of every corpus file with a mesh node."""
    out = []
    for row in manifest_rows():
        if row["kind"] in ("chunk", "map") or not row["path"].lower().endswith(".gbx"):
            continue
        try:
            g = parsed_gbx(row["path"])[1]
        except Exception:
            continue
        n = mesh_node(g.body.nodes)
        if n is not None:
            out.append((row["path"], g, n))
    return tuple(out)


def _visual_counts(visual) -> tuple[int, int, tuple | None]:
    vc = next(c.values for c in visual.chunks if c.chunk_id in VERTEX_CHUNKS)
    ib = visual.chunk(C("CPlugVisualIndexed") | 0x001)
    if ib is not None:
        buf = ib.values["indexBuffer"].node
        c = buf.chunk(C("CPlugIndexBuffer")) or buf.chunk(C("CPlugIndexBuffer") | 0x001)
        n = c.values["numIndices"]
    else:
        n = visual.chunk(C("CPlugVisualIndexed")).values["numIndices"]
    return vc["count"], n // 3, vc.get("boundingBox")


def _solid2(node) -> list:
    v = node.chunk(C("CPlugSolid2Model")).values
    levels = sorted({g["lod"] for g in v["shadedGeoms"]} - {-1}) or [0]
    out = []
    for g in v["shadedGeoms"]:
        if g["lod"] in (-1, levels[0]):
            ref = g["visual"] if "visual" in g else v["visuals"][g["visualIndex"]]
            out.append(_visual_counts(ref.node))
    return out


def _tree(root) -> list:
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        for c in n.chunks:
            vals = c.values or {}
            if c.chunk_id == C("CPlugTree") | 0x006:
                stack += [r.node for r in vals["children"] if r.node is not None]
            elif c.chunk_id in (C("CPlugTree") | 0x016, C("CPlugTree") | 0x017):
                vis = vals.get("visual")
                if vis is not None and vis.node is not None and vis.node.class_id == C("CPlugVisualIndexedTriangles"):
                    out.append(_visual_counts(vis.node))
            elif c.chunk_id == C("CPlugTreeVisualMip") | 0x002 and vals["levels"]:
                stack.append(vals["levels"][0]["tree"].node)
    return out


def expected(node) -> dict:
    """vertices, triangles, and bounds (None when placements move the geometry)."""
    cls = node.class_name
    if cls == "CPlugSolid2Model":
        parts = _solid2(node)
        boxes = [b for _, _, b in parts]
        bounds = None
        if boxes and all(b is not None for b in boxes):     # stored as centre, half extent
            bounds = (tuple(min(b[i] - b[i + 3] for b in boxes) for i in range(3)),
                      tuple(max(b[i] + b[i + 3] for b in boxes) for i in range(3)))
        return {"vertices": sum(p[0] for p in parts), "triangles": sum(p[1] for p in parts), "bounds": bounds}
    if cls == "CPlugSolid":
        tree = next(c.values["tree"].node for c in node.chunks
                    if c.chunk_id in (C("CPlugSolid") | 0x011, C("CPlugSolid") | 0x00D) and c.values.get("tree"))
        parts = _tree(tree)
        return {"vertices": sum(p[0] for p in parts), "triangles": sum(p[1] for p in parts), "bounds": None}
    if cls == "CPlugPrefab":
        parts = []
        for ent in node.chunk(C("CPlugPrefab")).values["ents"]:
            m = ent["model"].node if ent["model"] is not None else None
            if m is not None and m.class_name in ("CPlugStaticObjectModel", "CPlugDynaObjectModel"):
                m = m.chunk(m.class_id).values["mesh"].node
            if m is not None and m.class_name == "CPlugSolid2Model":
                parts += _solid2(m)
        return {"vertices": sum(p[0] for p in parts), "triangles": sum(p[1] for p in parts), "bounds": None}
    assert cls == "CPlugCrystal", cls
    verts = tris = 0
    pts = []
    for layer in node.chunk(C("CPlugCrystal") | 0x005).values["layers"]:
        if layer["layerType"] != 0 or layer.get("isVisible") is False:
            continue
        cr = layer["crystal"]
        if "editable" in cr:
            positions, sizes = cr["editable"]["mesh"]["positions"], [f["numVertices"] for f in cr["editable"]["mesh"]["faces"]]
        else:
            positions, sizes = cr["positions"], [f["numVertices"] for f in cr["faces"]]
        verts += len(positions)
        tris += sum(s - 2 for s in sizes if s >= 3)
        pts += positions
    bounds = (tuple(min(p[i] for p in pts) for i in range(3)), tuple(max(p[i] for p in pts) for i in range(3)))
    return {"vertices": verts, "triangles": tris, "bounds": bounds}
