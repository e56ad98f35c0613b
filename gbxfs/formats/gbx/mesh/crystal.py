"""CPlugCrystal (item editor meshes, inside items and blocks): its geometry
layers (09003005 layer type 0), each a crystal of polygons over a position array,
with a material index per polygon naming an entry of 09003003. Polygons are
split into triangles as a fan from their first vertex. An embedded crystal (the
form items carry) lists a polygon's position indices; an editable one (saved by
the editor) lists its vertices."""
from __future__ import annotations

from .. import classdb
from ..errors import GbxError
from ..model import Node
from .model import Budget, Geom, Group, Tri
from .names import clean, ref_material_name

CRYSTAL = classdb.class_id("CPlugCrystal")
GEOMETRY_LAYER = 0


def _material_names(node: Node) -> list[str]:
    c = node.chunk(CRYSTAL | 0x003)
    if c is None or not c.values:
        return []
    return [m.get("materialName") or ref_material_name(m.get("materialUserInst")) for m in c.values.get("materials") or ()]


def _index(v) -> int:
    return v["index"] if isinstance(v, dict) else int(v)


def _polygons(crystal: dict) -> tuple[list, list[tuple[list[int], int]]]:
    """(positions, [(position indices, material index)]) of one crystal."""
    if "editable" in crystal:
        mesh = crystal["editable"]["mesh"]
        mats = crystal.get("faceMaterials") or []
        polys = []
        for i, f in enumerate(mesh["faces"]):
            m = mats[i]["materialIndex"] if i < len(mats) else -1
            polys.append(([v["positionIndex"] for v in f["vertices"]], m))
        return mesh["positions"], polys
    return crystal["positions"], [(list(f["indices"]), _index(f.get("materialIndex", -1))) for f in crystal["faces"]]


def crystal_geoms(node: Node, budget: Budget) -> list[Geom]:
    c = node.chunk(CRYSTAL | 0x005)
    if c is None or c.values is None:
        raise GbxError("CPlugCrystal: no decoded layers (09003005)")
    names = _material_names(node)
    out = []
    for li, layer in enumerate(c.values.get("layers") or ()):
        if layer.get("layerType") != GEOMETRY_LAYER or "crystal" not in layer or layer.get("isVisible") is False:
            continue
        try:
            positions, polys = _polygons(layer["crystal"])
        except (KeyError, TypeError) as e:
            raise GbxError(f"CPlugCrystal layer {li}: decoded values lack {e}") from None
        groups: dict[int, list[Tri]] = {}
        n = len(positions)
        budget.charge(n, 0)
        for p, m in polys:
            if len(p) < 3:
                continue
            budget.charge(0, len(p) - 2)
            tris = groups.setdefault(m, [])
            tris.extend((p[0], p[k], p[k + 1]) for k in range(1, len(p) - 1))
        gs = [Group(clean(names[m] if 0 <= m < len(names) else "", f"material{m}"), t) for m, t in groups.items()]
        name = clean(str(layer.get("layerName") or ""), f"layer{li}")
        out.append(Geom(name, [tuple(map(float, v)) for v in positions], gs))  # type: ignore[misc]  # vec3: 3 floats
    return out
