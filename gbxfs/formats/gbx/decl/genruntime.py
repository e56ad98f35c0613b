"""What the generated decoders (codegen.py) find in their namespace: the runtime names
they call, and the tables codegen writes inline reads from."""
from __future__ import annotations

from typing import Any

from ..encoding import MAX_COUNT, MAX_STRING, stored_text
from ..errors import GbxError
from ..lookback import read_id
from ..model import Labeled
from .compile import MAX_STRUCT_DEPTH
from .frame import ContinueItem, Frame, child_frame, new_frame
from .genexpr import HELPERS

# integer types (and bool, whose values are 0/1 keys too) for shared enum labels
INT_TYPES = frozenset({"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "bool"})
EXPR_ERRORS = (KeyError, ArithmeticError, TypeError, ValueError, IndexError)

# type -> (struct format, size, single value): read inline from the buffer
INLINE: dict[str, tuple[str, int, bool]] = {
    "int8": ("<b", 1, True), "uint16": ("<H", 2, True), "int16": ("<h", 2, True),
    "uint32": ("<I", 4, True), "int32": ("<i", 4, True), "uint64": ("<Q", 8, True),
    "int64": ("<q", 8, True), "float": ("<f", 4, True), "bool": ("<I", 4, True),
    "vec2": ("<2f", 8, False), "vec3": ("<3f", 12, False), "vec4": ("<4f", 16, False),
    "color": ("<3f", 12, False), "int2": ("<2i", 8, False), "int3": ("<3i", 12, False),
    "iso4": ("<12f", 48, False), "mat3": ("<9f", 36, False), "box": ("<6f", 24, False),
}


def _tag(e: GbxError, where: str) -> GbxError:
    if e.decl is None:
        e.decl = where
    return e


def _fused_bool_error(r: Any, v: int, p: int, off: int, where: str) -> GbxError:
    r._pos = p + off + 4        # the reader stops after the bad bool, as its own read (and compile.py's) would
    e = GbxError(f"bool is {v:#x}, not 0 or 1", offset=r.offset_base + p - r._base + off)
    e.decl = where
    return e


_UNSET = object()      # a local not looked up yet

BASE_NS: dict[str, Any] = {"_UNSET": _UNSET,
    "GbxError": GbxError, "Frame": Frame, "new_frame": new_frame, "_child": child_frame, "ContinueItem": ContinueItem, "Labeled": Labeled,
    "MAX_COUNT": MAX_COUNT, "MAX_STRING": MAX_STRING, "_text": stored_text, "MAX_STRUCT_DEPTH": MAX_STRUCT_DEPTH, "_EXC": EXPR_ERRORS,
    "read_id": read_id, "_tag": _tag, "_fbool": _fused_bool_error, **HELPERS,
}
