"""CPlugSolid2Model (ManiaPlanet / TM2020 .Mesh.Gbx, items, prefabs): shaded
geometries, each a visual, a material index and a level of detail (090BB000,
chunks/plug.chunks). A geometry of level -1 shows at every level."""
from __future__ import annotations

from .. import classdb
from ..errors import GbxError
from ..model import Node, NodeRef
from .model import Budget, Geom, Group
from .names import clean, node_material_name, ref_material_name
from .transform import IDENTITY, Affine, apply
from .visual import visual_geometry

SOLID2 = classdb.class_id("CPlugSolid2Model")


def _model(node: Node) -> dict:
    c = node.chunk(SOLID2)
    if c is None or c.values is None:
        raise GbxError("CPlugSolid2Model: no decoded 090BB000 chunk")
    return c.values


def lods(node: Node) -> list[int]:
    """The levels of detail a model stores, finest first ([0] when it names none)."""
    levels = sorted({g.get("lod", -1) for g in _model(node).get("shadedGeoms") or ()} - {-1})
    return levels or [0]


def _material_names(v: dict) -> list[str]:
    if v.get("materialIds"):
        return list(v["materialIds"])
    if v.get("materials"):
        return [ref_material_name(r) for r in v["materials"]]
    if v.get("customMaterials"):
        return [m.get("materialName") or ref_material_name(m.get("materialUserInst")) for m in v["customMaterials"]]
    if v.get("materialInsts"):
        return [ref_material_name(r) for r in v["materialInsts"]]
    return []


def solid2_geoms(node: Node, lod_index: int, budget: Budget, place: Affine = IDENTITY,
                 prefix: str = "") -> list[Geom]:
    v = _model(node)
    levels = lods(node)
    if lod_index >= len(levels):
        return []
    level = levels[lod_index]
    visuals = v.get("visuals") or []
    names = _material_names(v)
    out = []
    for i, sg in enumerate(v.get("shadedGeoms") or ()):
        lod = sg.get("lod", -1)
        if lod not in (-1, level):
            continue
        ref = sg.get("visual")
        if ref is None:
            k = sg["visualIndex"]
            if not 0 <= k < len(visuals):
                raise GbxError(f"CPlugSolid2Model: shaded geometry {i} names visual {k} of {len(visuals)}")
            ref = visuals[k]
        if not isinstance(ref, NodeRef) or ref.node is None:
            raise GbxError(f"CPlugSolid2Model: shaded geometry {i}: its visual was not read")
        geo = visual_geometry(ref.node)
        budget.charge(len(geo.positions), len(geo.triangles))
        m = sg.get("materialIndex", -1)
        material = clean(names[m] if 0 <= m < len(names) else "", f"material{m}")
        out.append(Geom(f"{prefix}geom{i}", apply(place, geo.positions), [Group(material, geo.triangles)], geo.uvs))
    return out


__all__ = ["SOLID2", "lods", "solid2_geoms", "node_material_name"]
