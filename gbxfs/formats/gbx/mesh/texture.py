"""Where a mesh material's picture is: the links a material, a bitmap or a
reference names, one step at a time (sans-I/O: the tree follows the steps and
reads the files).

A material reaches its base colour picture through some of these:
- CPlugMaterialUserInst (an item's custom material, a .Mat.Gbx): `baseTexture`,
  a path without extension relative to the referring file's folder (a leading
  backslash: relative to the data folder the items live in), for material
  models whose name starts with TD (texture sets: Diffuse, Specular, Normal,
  ...): the diffuse picture is that path + "_D.dds";
- CPlugMaterial (.Material.Gbx): its custom material (09079007), a
  CPlugMaterialCustom whose texture slots (0903A006 / 0903A013) name bitmaps:
  the slot named like a diffuse map, else the first;
- CPlugBitmap (.Texture.Gbx): its image reference (09011014, 15, 18, 22, 30),
  usually an external .dds;
- an external reference: a file, its path from the reference table relative to
  the referring file's folder after going up `ancestor_level` folders.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import classdb
from ..model import ExternalRef, Node, NodeRef
from .crystal import CRYSTAL
from .names import clean, ref_material_name
from .solid2 import SOLID2
from .tree import PROPERTY_CHUNKS, SOLID, TREE, solid_tree
from .walk import reachable

MATERIAL = classdb.class_id("CPlugMaterial")
MATERIAL_CUSTOM = classdb.class_id("CPlugMaterialCustom")
MATERIAL_USER_INST = classdb.class_id("CPlugMaterialUserInst")
BITMAP = classdb.class_id("CPlugBitmap")
BITMAP_IMAGE_CHUNKS = tuple(BITMAP | i for i in (0x030, 0x022, 0x018, 0x015, 0x014))
CUSTOM_TEXTURE_CHUNKS = (MATERIAL_CUSTOM | 0x013, MATERIAL_CUSTOM | 0x006)
IMAGE_SUFFIXES = (".dds", ".png", ".jpg", ".jpeg", ".webp", ".tga", ".bmp")
DIFFUSE_SUFFIX = "_D.dds"     # texture-set materials: <baseTexture>_D.dds is the diffuse picture


@dataclass(frozen=True)
class FileLink:
    """A file the chain goes on in: `path` relative to the referring file's folder,
    '/'-separated ('..' goes up); `from_data_root`: relative to the data folder
    instead (the tree tries the referring file's folders, nearest first)."""
    path: str
    from_data_root: bool = False

    @property
    def is_image(self) -> bool:
        return self.path.lower().endswith(IMAGE_SUFFIXES)


Step = FileLink | Node | str      # where to go next, or why the chain ends


def external_link(ref: ExternalRef, ancestor_level: int) -> FileLink | str:
    """The file an external reference names, relative to the referring file's folder."""
    if ref.path is None:
        what = f"resource {ref.resource_index}" if ref.resource_index is not None else "no file name"
        return f"an external reference without a path ({what})"
    return FileLink("../" * ancestor_level + ref.path.replace("\\", "/"))


def follow_ref(ref: object, ancestor_level: int) -> Step:
    """Where a node reference leads: the node read in the same file, or a file."""
    if not isinstance(ref, NodeRef):
        return "no reference"
    if ref.external is not None:
        return external_link(ref.external, ancestor_level)
    if ref.node is not None:
        return ref.node
    return "a reference to a node that was not read"


def _values(node: Node, chunk_ids) -> dict | None:
    for cid in chunk_ids:
        c = node.chunk(cid)
        if c is not None and c.values is not None:
            return c.values
    return None


def _user_inst(node: Node) -> FileLink | str:
    v = _values(node, (MATERIAL_USER_INST,))
    if v is None:
        return "CPlugMaterialUserInst: no decoded 090FD000 chunk"
    base, model = str(v.get("baseTexture") or ""), str(v.get("model") or "")
    if not base:
        link = v.get("link")
        return f"a game material ({link}): its pictures are the game's" if link else "no base texture named"
    if not model.upper().startswith("TD"):
        return f"material model {model or '(none)'}: no diffuse picture in its texture set"
    path = base.replace("\\", "/")
    return FileLink(path.lstrip("/") + DIFFUSE_SUFFIX, from_data_root=path.startswith("/"))


def _custom_slot(node: Node, ancestor_level: int) -> Step:
    v = _values(node, CUSTOM_TEXTURE_CHUNKS)
    slots = [t for t in (v or {}).get("textures") or () if isinstance(t, dict)]
    if not slots:
        return "CPlugMaterialCustom: no texture slot decoded"
    diffuse = [t for t in slots if "diff" in str(t.get("name") or "").lower()]
    return follow_ref((diffuse or slots)[0].get("bitmap"), ancestor_level)


def next_step(node: Node, ancestor_level: int) -> Step:
    """One step from a material or bitmap node towards its picture."""
    cid = node.class_id
    if cid == MATERIAL_USER_INST:
        return _user_inst(node)
    if cid == MATERIAL:
        v = _values(node, (MATERIAL | 0x007,))
        if v is None or v.get("customMaterial") is None:
            return "CPlugMaterial without a custom material (its pictures come through its shader, not followed)"
        return follow_ref(v["customMaterial"], ancestor_level)
    if cid == MATERIAL_CUSTOM:
        return _custom_slot(node, ancestor_level)
    if cid == BITMAP:
        v = _values(node, BITMAP_IMAGE_CHUNKS)
        if v is None:
            return "CPlugBitmap: no decoded image chunk"
        return follow_ref(v.get("image"), ancestor_level)
    return f"{node.class_name or f'{cid:08X}'}: not a material or bitmap class"


def _solid2_refs(node: Node) -> list:
    c = node.chunk(SOLID2)
    v = c.values if c is not None and c.values else {}
    if v.get("materialIds"):
        return []
    if v.get("materials"):
        return list(v["materials"])
    if v.get("customMaterials"):
        return [m.get("materialUserInst") for m in v["customMaterials"]]
    return list(v.get("materialInsts") or ())


def _crystal_refs(node: Node) -> list:
    c = node.chunk(CRYSTAL | 0x003)
    return [m.get("materialUserInst") for m in (c.values.get("materials") or ())] if c is not None and c.values else []


def _tree_refs(node: Node) -> list:
    tree = solid_tree(node)
    if tree is None:
        return []
    out = []
    for n in reachable([tree]):
        if n.class_id == TREE:
            v = _values(n, PROPERTY_CHUNKS) or {}
            out.append(v.get("shader"))
    return out


def material_refs(nodes: list[Node]) -> dict[str, NodeRef]:
    """Material name (as the mesh's groups carry it) -> the reference it was read
    from, for the materials of every mesh-bearing node of a body."""
    out: dict[str, NodeRef] = {}
    for n in reachable(nodes):
        refs = (_solid2_refs(n) if n.class_id == SOLID2 else _crystal_refs(n) if n.class_id == CRYSTAL
                else _tree_refs(n) if n.class_id == SOLID else [])
        for r in refs:
            if isinstance(r, NodeRef):
                name = ref_material_name(r)
                if name:
                    out.setdefault(clean(name, ""), r)
    return out
