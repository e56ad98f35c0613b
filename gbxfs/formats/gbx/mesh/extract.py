"""The mesh of a parsed GBX body, one level of detail at a time.

The model is the first mesh-bearing node in reading order (the main node of a
.Solid/.Mesh/.Crystal/.Prefab file; inside an item, the crystal or
CPlugSolid2Model its entity model holds): CPlugPrefab (its static and dynamic
object models' meshes, each placed), CPlugSolid (its tree), CPlugSolid2Model,
CPlugCrystal. A block item holds a crystal per variant: the first is taken.
"""
from __future__ import annotations

from .. import classdb
from ..errors import GbxError
from ..model import Node, NodeRef
from .crystal import CRYSTAL, crystal_geoms
from .model import Budget, Mesh, check_geom
from .solid2 import SOLID2, lods, solid2_geoms
from .transform import from_quat
from .tree import SOLID, solid_tree, tree_geoms, tree_lods
from .walk import reachable

PREFAB = classdb.class_id("CPlugPrefab")
STATIC_OBJECT = classdb.class_id("CPlugStaticObjectModel")
DYNA_OBJECT = classdb.class_id("CPlugDynaObjectModel")
MESH_CLASSES = (PREFAB, SOLID, SOLID2, CRYSTAL)


def mesh_node(nodes: list[Node]) -> Node | None:
    """The node the mesh comes from, None when the body holds no mesh-bearing node."""
    found = [n for n in reachable(nodes) if n.class_id in MESH_CLASSES]
    for cls in MESH_CLASSES:      # a prefab or solid before the meshes it holds
        for n in found:
            if n.class_id == cls and _holds_geometry(n):
                return n
    return None


def _holds_geometry(n: Node) -> bool:
    """False for a solid without a tree and a CPlugSolid2Model without shaded geometries
    (an item's placeholder: its real mesh is elsewhere)."""
    if n.class_id == SOLID:
        return solid_tree(n) is not None
    if n.class_id == SOLID2:
        c = n.chunk(SOLID2)
        return bool(c is not None and c.values and c.values.get("shadedGeoms"))
    return True


def _prefab_meshes(node: Node) -> list[tuple[Node, tuple]]:
    """(CPlugSolid2Model node, its placement) for each entity of a prefab."""
    c = node.chunk(PREFAB)
    if c is None or c.values is None:
        raise GbxError("CPlugPrefab: no decoded 09145000 chunk")
    out = []
    for ent in c.values.get("ents") or ():
        model = ent.get("model")
        m = model.node if isinstance(model, NodeRef) else None
        if m is not None and m.class_id in (STATIC_OBJECT, DYNA_OBJECT):
            inner = m.chunk(m.class_id)
            ref = inner.values.get("mesh") if inner is not None and inner.values else None
            m = ref.node if isinstance(ref, NodeRef) else None
        if m is not None and m.class_id == SOLID2:
            out.append((m, from_quat(ent["rotation"], ent["position"])))
    return out


def lod_count(node: Node) -> int:
    if node.class_id == SOLID2:
        return len(lods(node))
    if node.class_id == SOLID:
        tree = solid_tree(node)
        return tree_lods(tree) if tree is not None else 1
    if node.class_id == PREFAB:
        return max([len(lods(m)) for m, _ in _prefab_meshes(node)] or [1])
    return 1


def build_mesh(node: Node, lod: int = 0) -> Mesh:
    """Level `lod` of the mesh node (GbxError when its data is missing, inconsistent
    or larger than the mesh limits)."""
    if not 0 <= lod < lod_count(node):
        raise GbxError(f"{node.class_name}: no level of detail {lod} (it has {lod_count(node)})")
    budget = Budget()
    if node.class_id == SOLID2:
        geoms = solid2_geoms(node, lod, budget)
    elif node.class_id == SOLID:
        tree = solid_tree(node)
        geoms = tree_geoms(tree, lod, budget) if tree is not None else []
    elif node.class_id == CRYSTAL:
        geoms = crystal_geoms(node, budget)
    elif node.class_id == PREFAB:
        geoms = []
        for i, (m, place) in enumerate(_prefab_meshes(node)):
            if lod < len(lods(m)):
                geoms += solid2_geoms(m, lod, budget, place, prefix=f"ent{i}_")
    else:
        raise GbxError(f"{node.class_name}: not a mesh-bearing class")
    for g in geoms:
        check_geom(g)
    return Mesh(node.class_name or f"{node.class_id:08X}", lod, geoms)
