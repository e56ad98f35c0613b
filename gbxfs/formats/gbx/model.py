"""Plain records produced by the GBX parsers (no behaviour beyond formatting)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import classdb


# Chunk and Node have __slots__: a map has thousands of each (no __dict__ per record)
@dataclass(eq=False, slots=True)
class Chunk:
    """One chunk of a node (or one header chunk).

    `raw` is the chunk's data (for skippable chunks without the "PIKS"+size prefix; for
    header chunks the bytes listed in the header table). `values` holds the decoded
    fields when a declaration exists and decoding succeeded; `error` says why not.
    """
    chunk_id: int
    offset: int                  # offset of the chunk data in the body (or file, for header chunks)
    size: int
    raw: bytes | memoryview      # a view of the file's bytes: header chunks read with views=True
    skippable: bool = False
    values: dict[str, Any] | None = None
    error: Any = None            # GbxError | None
    raw_id: int | None = None    # id as stored, when it was remapped
    heavy: bool = False          # header chunks only
    header: bool = False         # a header chunk (user data), not a body chunk
    # short name: from the declaration, else from the class tables (set by whoever
    # reads the chunk: decl.Registry.chunk_name)
    name: str | None = None


@dataclass(eq=False, slots=True)
class Node:
    """A class instance read by ReadNode. `index` is its slot in the node list
    (0 = main node; None for direct/encapsulated nodes that have no slot)."""
    index: int | None
    class_id: int
    chunks: list[Chunk] = field(default_factory=list)
    raw_class_id: int | None = None
    complete: bool = False       # the 0xFACADE01 end marker was reached
    error: Any = None

    @property
    def class_name(self) -> str | None:
        return classdb.class_name(self.class_id)

    def chunk(self, chunk_id: int) -> Chunk | None:
        for c in self.chunks:
            if c.chunk_id == chunk_id:
                return c
        return None


@dataclass(eq=False)
class ExternalRef:
    """An entry of the reference table: a node stored in another file."""
    flags: int
    file_name: str | None
    resource_index: int | None
    node_index: int
    use_file: bool | None
    folder_index: int | None
    path: str | None = None      # folder path + file name, when resolvable


@dataclass(frozen=True, slots=True)
class NodeRef:
    """Value of a `noderef` field: which node it points to and how it got there.
    kind: "new" (read right here), "back" (an earlier node), "external" (reference
    table), "direct" (a node without a slot: encapsulated chunks, `node` fields)."""
    kind: str
    index: int | None
    node: Node | None = None
    external: ExternalRef | None = None

    def __init__(self, kind: str, index: int | None, node: Node | None = None, external: ExternalRef | None = None):
        # the slots written through their descriptors: what the generated frozen
        # __init__ does (object.__setattr__ per field) at a fraction of the cost, and
        # no __dict__ per reference (one NodeRef per node reference: thousands per map)
        _set_kind(self, kind)
        _set_index(self, index)
        _set_node(self, node)
        _set_external(self, external)

    def __str__(self) -> str:
        if self.external is not None:
            e = self.external
            where = e.path or e.file_name or (f"resource {e.resource_index}" if e.resource_index is not None else "unnamed")
            return f"external #{self.index} {where}"
        name = self.node.class_name if self.node else None
        cid = f"{self.node.class_id:08X}" if self.node else "?"
        label = f"node #{self.index}" if self.index is not None else "node"
        return f"{label} {name or cid} ({self.kind})"


# the slots' descriptors from the class's namespace (as attributes of the class, the
# type checker sees the fields' values)
_set_kind, _set_index = vars(NodeRef)["kind"].__set__, vars(NodeRef)["index"].__set__
_set_node, _set_external = vars(NodeRef)["node"].__set__, vars(NodeRef)["external"].__set__


class Labeled(int):
    """An int that also carries its enum label from the declaration comment
    (`uint32 trackType (0: Race, 1: Platform)`); behaves exactly like the int."""
    label: str

    def __new__(cls, value: int, label: str):
        obj = super().__new__(cls, value)
        obj.label = label
        return obj

    def __repr__(self) -> str:
        return f"{int(self)} ({self.label})"
