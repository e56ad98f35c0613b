"""The builtin field types of the declaration language: one table.

Each type has its canonical name, the other words accepted for it in declarations,
how to read one value from a reader, and what the engine needs to read many values
quickly: a struct format char for numeric arrays, a struct format for fixed-size
values read together ("fusing"), and the fewest bytes a value takes (count checks
before a loop allocates anything). chunks/README.md lists the types for authors.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import methodcaller
from typing import Any, TypeGuard

from ..lookback import read_id
from . import ast as dsl

Read = Callable[[Any], Any]      # reader -> value


def _small_len(r: Any) -> int:
    first = r.u8()
    return (first & 0x7F) | (r.u16() << 7) if first & 0x80 else first


def _small_string(r: Any) -> str:
    return bytes(r.bytes(_small_len(r))).decode("utf-8-sig", "replace")   # a leading BOM dropped


def _noderef(r: Any) -> Any:
    return r.walker.noderef(r)


def _direct_node(r: Any) -> Any:
    return r.walker.direct_node(r)


@dataclass(frozen=True)
class TypeInfo:
    name: str                           # canonical name
    read: Read
    min_size: int
    aliases: tuple[str, ...] = ()       # other words for this type
    # words of this type (name or alias) that also make good field names: right after
    # a type they are the field's name (`vec3 color`, `noderef node`)
    name_words: tuple[str, ...] = ()
    array: str | None = None            # struct char: numeric arrays read in one go
    fixed: tuple[str, int] | None = None    # struct format and value count (fusable)


def _m(name: str, *args: Any) -> Read:
    return methodcaller(name, *args)


TYPES: tuple[TypeInfo, ...] = (
    TypeInfo("uint8", _m("u8"), 1, ("byte", "u8", "char"), ("char",), "B", ("B", 1)),
    TypeInfo("int8", _m("i8"), 1, ("sbyte",), ("sbyte",), "b", ("b", 1)),
    TypeInfo("uint16", _m("u16"), 2, ("u16", "word"), ("word",), "H", ("H", 1)),
    TypeInfo("int16", _m("i16"), 2, ("short",), ("short",), "h", ("h", 1)),
    TypeInfo("uint32", _m("u32"), 4, ("u32", "uint", "nat32"), ("uint", "nat32"), "I", ("I", 1)),
    TypeInfo("int32", _m("i32"), 4, ("i32", "int"), ("int",), "i", ("i", 1)),
    TypeInfo("uint64", _m("u64"), 8, ("u64",), (), "Q", ("Q", 1)),
    TypeInfo("int64", _m("i64"), 8, (), (), "q", ("q", 1)),
    TypeInfo("uint128", _m("u128"), 16, ("u128",)),
    TypeInfo("float", _m("f32"), 4, ("float32", "f32", "real"), ("real",), "f", ("f", 1)),
    TypeInfo("bool", _m("bool"), 4, fixed=("I", 1)),     # fused reads check 0/1 themselves
    TypeInfo("string", _m("string"), 4),
    TypeInfo("id", read_id, 4, ("lookbackstring", "lookback"), ("id", "lookback")),
    TypeInfo("meta", _m("meta"), 12),
    TypeInfo("fileref", _m("fileref"), 2, ("packdesc",), ("packdesc",)),
    TypeInfo("noderef", _noderef, 4),
    TypeInfo("node", _direct_node, 4, (), ("node",)),
    TypeInfo("vec2", _m("vec2"), 8, fixed=("2f", 2)),
    TypeInfo("vec3", _m("vec3"), 12, fixed=("3f", 3)),
    TypeInfo("vec4", _m("vec4"), 16, ("quat",), ("quat",), fixed=("4f", 4)),
    TypeInfo("color", _m("vec3"), 12, (), ("color",), fixed=("3f", 3)),
    TypeInfo("int2", _m("ints", 2), 8, fixed=("2i", 2)),
    TypeInfo("int3", _m("ints", 3), 12, fixed=("3i", 3)),
    TypeInfo("iso4", _m("floats", 12), 48, (), ("iso4",), fixed=("12f", 12)),
    TypeInfo("mat3", _m("floats", 9), 36, (), ("mat3",), fixed=("9f", 9)),
    TypeInfo("box", _m("floats", 6), 24, (), ("box",), fixed=("6f", 6)),
    # ManiaPlanet 4.1 script values (03043044): a length in 1 byte (< 128) or 7 + 16 bits
    # (first byte's top bit set); a string prefixed with such a length
    TypeInfo("smalllen", _small_len, 1),
    TypeInfo("smallstring", _small_string, 1),
)

BY_NAME: dict[str, TypeInfo] = {t.name: t for t in TYPES}
# every word accepted as a type -> canonical name
TYPE_ALIASES: dict[str, str] = {w: t.name for t in TYPES for w in (t.name, *t.aliases)}
NAME_CAPABLE: frozenset[str] = frozenset(w for t in TYPES for w in t.name_words)
# the names of an unnamed `meta` field's three parts
META_NAMES = ("id", "collection", "author")


def field_min_size(ftype: str) -> int:
    """Smallest number of bytes a value of this type takes (0 for structs)."""
    t = BY_NAME.get(ftype)
    return t.min_size if t is not None else 0


def fusable(s: dsl.Stmt) -> TypeGuard[dsl.Field]:
    """A field read together with its fixed-size neighbours in one struct unpack."""
    return isinstance(s, dsl.Field) and s.count is None and not s.enum and s.type in BY_NAME \
        and BY_NAME[s.type].fixed is not None


def fixed_of(s: dsl.Field) -> tuple[str, int]:
    """A fusable field's struct format and value count."""
    fixed = BY_NAME[s.type].fixed
    assert fixed is not None, "only fusable fields (fusable) are read in runs"
    return fixed
