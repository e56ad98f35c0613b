"""Material names as the models refer to them: an id, a material file (an
external node: its file name without the extension), or a CPlugMaterialUserInst
node (its name in the item editor, else the game material it links to)."""
from __future__ import annotations

from .. import classdb
from ..model import Node, NodeRef

MATERIAL_USER_INST = classdb.class_id("CPlugMaterialUserInst")


def _file_stem(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    for ext in (".Material.Gbx", ".Mat.Gbx", ".Gbx"):
        if base.lower().endswith(ext.lower()):
            return base[: -len(ext)]
    return base


def node_material_name(node: Node) -> str:
    c = node.chunk(MATERIAL_USER_INST)
    if c is not None and c.values:
        return c.values.get("materialName") or c.values.get("link") or ""
    return ""


def ref_material_name(ref: object) -> str:
    """The name a material reference carries ("" when none)."""
    if not isinstance(ref, NodeRef):
        return ""
    if ref.external is not None:
        return _file_stem(ref.external.path or ref.external.file_name or "")
    if ref.node is not None:
        return node_material_name(ref.node)
    return ""


def clean(name: str, fallback: str) -> str:
    """A name both writers can carry: printable, no whitespace (OBJ splits on it)."""
    out = "".join(ch if ch.isprintable() and not ch.isspace() else "_" for ch in name)
    return out or fallback
