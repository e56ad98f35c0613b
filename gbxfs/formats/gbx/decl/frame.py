"""The runtime scope of decoding: `Frame` holds the values of one chunk, loop item or
struct, and resolves the names expressions use, including the special names below.
"""
from __future__ import annotations

from typing import Any

from ..errors import GbxError

_MISSING = object()
# names an expression may use without reading them (resolved by Frame.lookup)
SPECIAL_NAMES = frozenset({"chunk_id", "node_class", "node_raw_class", "node", "remaining", "next_u32", "True", "False", "None",
                           "item_index"})


class ContinueItem(Exception):
    """`continue` in a loop body (raised by the statement, caught by the loop)."""

    def __init__(self, uncounted: bool):
        self.uncounted = uncounted


def new_frame(parent: Frame) -> Frame:
    """A child scope (loop item, struct) of `parent`."""
    return Frame(parent, parent.chunk_id)


def child_frame(parent: Frame, values: dict, index: int | None) -> Frame:
    """A child scope of `parent` around `values` (a dict the generated decoders have
    been filling already: they make a loop item's or a struct's Frame only when
    something needs it)."""
    f = Frame(parent, parent.chunk_id)
    f.values = values
    f.index = index
    return f


def root_frame(chunk_id: int, node: Any) -> Frame:
    """A chunk's own scope (one per decoded chunk)."""
    return Frame(None, chunk_id, node)


class Frame:
    """Values of one scope (a chunk, a loop element, a struct) and its parent scope.
    A name read twice in one scope is kept as name, name_2, ...; expressions see the
    latest."""

    __slots__ = ("values", "latest", "parent", "chunk_id", "depth", "index", "node")

    def __init__(self, parent: Frame | None, chunk_id: int, node: Any = None):
        self.values: dict[str, Any] = {}
        self.latest: dict[str, str] | None = None     # made when a name repeats
        self.parent = parent
        self.chunk_id = chunk_id
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.index: int | None = None    # item number, in a loop item's frame
        # the node (model.Node) whose chunk this is; None outside a node walk
        self.node: Any = parent.node if parent is not None else node

    def set(self, name: str, value: Any) -> None:
        values = self.values
        if name in values:
            n = 2
            while f"{name}_{n}" in values:
                n += 1
            key = f"{name}_{n}"
            values[key] = value
            if self.latest is None:
                self.latest = {}
            self.latest[name] = key
        else:
            values[name] = value

    def lookup(self, name: str, r: Any) -> Any:
        f: Frame | None = self
        while f is not None:
            key = f.latest.get(name, name) if f.latest else name
            v = f.values.get(key, _MISSING)
            if v is not _MISSING:
                return v
            f = f.parent
        if name == "chunk_id":
            return self.chunk_id
        if name == "remaining":
            return r.remaining
        if name == "node_class":    # the same chunk id can have a layout per class (03085000)
            if self.node is None:
                raise KeyError(name)
            return self.node.class_id
        if name == "node_raw_class":    # the class id as stored: an old class keeps layouts
            if self.node is None:       # of its own under remapped chunk ids (0A00F001)
                raise KeyError(name)
            return self.node.raw_class_id or self.node.class_id
        if name == "node":          # fields of this node's earlier chunks: node.count
            if self.node is None:
                raise KeyError(name)
            return NodeFields(self.node)
        if name == "item_index":    # number of the innermost loop item (0-based)
            f = self
            while f is not None and f.index is None:
                f = f.parent
            if f is None:
                raise KeyError(name)
            return f.index
        if name == "next_u32":      # a peek: the next u32, not consumed (None at the end)
            if r.text:
                raise GbxError("next_u32 cannot be peeked in text-format files")
            return r.peek_u32()
        raise KeyError(name)



class NodeFields:
    """`node.<field>` in expressions: a field of an earlier chunk of the node being
    walked, the latest chunk that has it (CPlugVisual3D's vertex count and flags come
    from CPlugVisual's chunk). Only decoded chunks count."""

    __slots__ = ("node",)

    def __init__(self, node: Any):
        self.node = node

    def __getitem__(self, name: str) -> Any:
        for c in reversed(self.node.chunks):
            values = c.values
            if values and name in values:
                return values[name]
        raise KeyError(f"node.{name}")
