"""CPlugSolid (TM 1.0 .. TMF .Solid.Gbx, blocks): a tree of CPlugTree nodes
(chunks/plug.chunks 0904F0xx), each with children, an optional location (flags bit 2)
and an optional visual with its shader (the material). A CPlugTreeVisualMip
(09015002) holds one subtree per level of detail: level k of the mesh takes its
k-th level, or its last when it has fewer."""
from __future__ import annotations

from .. import classdb
from ..errors import GbxError
from ..model import Node, NodeRef
from .model import Budget, Geom, Group
from .names import clean, ref_material_name
from .transform import IDENTITY, Affine, apply, compose, from_iso4
from .visual import visual_geometry

SOLID = classdb.class_id("CPlugSolid")
TREE = classdb.class_id("CPlugTree")
MIP = classdb.class_id("CPlugTreeVisualMip")
TRIANGLES = classdb.class_id("CPlugVisualIndexedTriangles")
SOLID_TREE_CHUNKS = (SOLID | 0x011, SOLID | 0x00D)
LOCATION_CHUNKS = (TREE | 0x01A, TREE | 0x019, TREE | 0x015, TREE | 0x018)
PROPERTY_CHUNKS = (TREE | 0x016, TREE | 0x017)
MAX_DEPTH = 256


def solid_tree(node: Node) -> Node | None:
    for cid in SOLID_TREE_CHUNKS:
        c = node.chunk(cid)
        if c is not None and c.values and isinstance(c.values.get("tree"), NodeRef):
            return c.values["tree"].node
    return None


def _values(node: Node, cids) -> dict:
    for cid in cids:
        c = node.chunk(cid)
        if c is not None and c.values is not None:
            return c.values
    return {}


def _mip_levels(node: Node) -> list[Node]:
    c = node.chunk(MIP | 0x002)
    if c is None or not c.values:
        return []
    return [lv["tree"].node for lv in c.values.get("levels") or ()
            if isinstance(lv.get("tree"), NodeRef) and lv["tree"].node is not None]


def tree_lods(root: Node) -> int:
    """How many levels of detail the tree's mips hold (1 without mips)."""
    most, stack, seen = 1, [root], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        levels = _mip_levels(n)
        most = max(most, len(levels))
        stack.extend(levels)
        stack.extend(r.node for r in _values(n, (TREE | 0x006,)).get("children") or ()
                     if isinstance(r, NodeRef) and r.node is not None)
    return most


def tree_geoms(root: Node, lod_index: int, budget: Budget, place: Affine = IDENTITY) -> list[Geom]:
    out: list[Geom] = []
    stack: list[tuple[Node, Affine, int]] = [(root, place, 0)]
    while stack:
        n, parent, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise GbxError(f"CPlugTree: deeper than {MAX_DEPTH} levels")
        loc = _values(n, LOCATION_CHUNKS)
        here = compose(parent, from_iso4(loc["location"])) if loc.get("location") is not None else parent
        props = _values(n, PROPERTY_CHUNKS)
        visual = props.get("visual")
        if isinstance(visual, NodeRef) and visual.node is not None and visual.node.class_id == TRIANGLES:
            geo = visual_geometry(visual.node)
            budget.charge(len(geo.positions), len(geo.triangles))
            material = clean(ref_material_name(props.get("shader")), "material")
            out.append(Geom(f"geom{len(out)}", apply(here, geo.positions), [Group(material, geo.triangles)], geo.uvs))
        levels = _mip_levels(n)
        if levels:
            stack.append((levels[min(lod_index, len(levels) - 1)], here, depth + 1))
        children = [r.node for r in _values(n, (TREE | 0x006,)).get("children") or ()
                    if isinstance(r, NodeRef) and r.node is not None]
        stack.extend((c, here, depth + 1) for c in reversed(children))
    return out
