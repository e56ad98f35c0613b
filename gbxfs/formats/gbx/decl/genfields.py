"""The field part of the generated decoders (codegen.py): reading values straight from
the reader's buffer, with the reader's own methods (and errors) wherever the bytes
run short or a value is not the common case.

`FieldWriter` is a mixin of codegen's emitter: it uses the emitter's `line`, `set`,
`closure`, `guarded`, `struct_value` and `gen` (names in the generated namespace).
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, cast

from ..model import Labeled
from . import ast as dsl
from .genruntime import INLINE, INT_TYPES
from .itemcost import EMPTY_BYTES, EMPTY_LIST, NUMBER, SLOT
from .link import set_by_link
from .types import BY_NAME, META_NAMES, field_min_size, fixed_of, fusable


def gen_fusable(s: dsl.Stmt) -> bool:
    """A field the generated code reads in a run of fixed-size fields: compile.py's
    (fusable) and also integers with an enum, labelled after the run is unpacked. A
    short run reads field by field with the closures, so the errors stay the same."""
    return fusable(s) or (isinstance(s, dsl.Field) and s.count is None and bool(s.enum)
                           and s.type in INT_TYPES and s.type != "bool" and BY_NAME[s.type].fixed is not None)


class FieldWriter:
    """Source for fields: one value, runs of fixed-size values, counted fields, meta."""

    gen: Any
    file: str
    charge: Any         # codegen's _Emitter.charge

    if TYPE_CHECKING:   # the emitter's own (codegen._Emitter), which this mixin is part of
        def line(self, ind: int, text: str) -> None: ...
        def set(self, ind: int, d: int, name: Any, value: str = "x") -> None: ...
        def closure(self, ind: int, s: dsl.Stmt, d: int) -> None: ...
        def guarded(self, ind: int, target: str, text: str, d: int, line: int) -> None: ...
        def struct_field(self, s: dsl.Field, d: int, ind: int, where: str) -> None: ...
        def struct_value(self, s: dsl.Field, d: int, ind: int) -> None: ...

    def fused(self, fields: list[dsl.Field], d: int, ind: int) -> None:
        fmt, layout, index, offset = "<", [], 0, 0
        for s in fields:
            code, n = fixed_of(s)
            fmt += code
            layout.append((s, index, n, offset))
            index += n
            offset += struct.calcsize("<" + code)
        size = struct.calcsize(fmt)
        self.line(ind, "p = r._pos")
        self.line(ind, f"if p + {size} <= end:")
        self.line(ind + 1, f"r._pos = p + {size}")
        self.line(ind + 1, f"t = {self.gen.obj(struct.Struct(fmt).unpack_from)}(buf, p)")
        for s, i, n, off in layout:
            self.line(ind + 1, f"x = t[{i}]" if n == 1 else f"x = t[{i}:{i + n}]")
            if s.type == "bool":
                self.line(ind + 1, "if x > 1:")
                at = self.gen.const(f"{self.file}:{s.line} {s.name or s.type}")     # the field's own place
                self.line(ind + 2, f"raise _fbool(r, x, p, {off}, {at})")
                self.line(ind + 1, "x = x == 1")
            elif s.enum:
                self.line(ind + 1, f"x = {self.labels(s)}.get(x, x)")
            self.set(ind + 1, d, s.name)
        self.line(ind, "else:")          # too few bytes: field by field, for the error
        for s in fields:
            self.closure(ind + 1, s, d)

    def records(self, body: list[dsl.Stmt], d: int, ind: int) -> bool:
        """A counted loop whose items are only fixed-size numbers (no bool, no enum, each
        name once): when all n{d} items are in the buffer, read them with one
        iter_unpack into the list items{d}, each item the dict the item-by-item loop
        makes. Writes `if <all there>: ... else:` and returns True (the caller writes
        the item-by-item loop under the else, which also gives the errors of a short
        read); False, nothing written, for other loops."""
        if not body or not all(fusable(s) and s.type != "bool" and isinstance(s.name, str) for s in body):
            return False
        fields = cast("list[dsl.Field]", body)      # checked just above
        names = [s.name for s in fields]
        if len(set(names)) != len(names):
            return False
        fmt, parts, index = "<", [], 0
        for s in fields:
            code, n = fixed_of(s)
            fmt += code
            parts.append(f"{s.name!r}: t[{index}]" if n == 1 else f"{s.name!r}: t[{index}:{index + n}]")
            index += n
        size = struct.calcsize(fmt)
        self.line(ind, "p = r._pos")
        self.line(ind, f"q = p + n{d} * {size}")
        self.line(ind, "if q <= end:")
        self.line(ind + 1, "r._pos = q")
        self.line(ind + 1, f"it = {self.gen.obj(struct.Struct(fmt).iter_unpack)}(buf[p:q])")
        self.line(ind + 1, f"items{d} = [{{{', '.join(parts)}}} for t in it]")
        self.line(ind, "else:")
        return True

    def field(self, s: dsl.Field, d: int, ind: int) -> None:
        where = self.gen.const(f"{self.file}:{s.line} {s.name or s.type}")
        if s.type == "meta" and s.count is None and (s.subnames or s.name):
            self.meta(s, d, ind, where)
            return
        if (s.count is None and s.type == "meta") or (s.type not in BY_NAME and s.enum):
            self.closure(ind, s, d)
            return
        if s.count is not None:
            self.array(s, d, ind, where)
            return
        if s.type not in BY_NAME:
            self.struct_field(s, d, ind, where)
            return
        self.value(s.type, ind, where)
        if s.enum and s.type in INT_TYPES:     # ints (or bools): one shared Labeled per value
            self.line(ind, f"x = {self.labels(s)}.get(x, x)")
        elif s.enum:
            enum = self.gen.obj(s.enum)
            self.line(ind, f"label = {enum}.get(x) if isinstance(x, int) else None")
            self.line(ind, "if label is not None:")
            self.line(ind + 1, "x = Labeled(x, label)")
        self.set(ind, d, s.name)

    def labels(self, s: dsl.Field) -> str:
        """Name of an integer field's value -> Labeled table (one shared Labeled per value)."""
        return self.gen.obj({v: Labeled(v, label) for v, label in (s.enum or {}).items()})

    def array(self, s: dsl.Field, d: int, ind: int, where: str) -> None:
        """`Type name[count]` as compile.py's read_array: bytes and numbers with one
        reader call, structs inline per element, other types one value at a time."""
        loc, t = f"{self.file}:{s.line}", s.type
        self.line(ind, "try:")
        self.guarded(ind + 1, f"an{d}", set_by_link(s.count), d, s.line)
        self.line(ind + 1, f"if not isinstance(an{d}, int) or isinstance(an{d}, bool):")
        self.line(ind + 2, f"raise GbxError({self.gen.const(f'{loc}: array count {s.count!r} is ')} + repr(an{d}) + "
                           "', not an integer')")
        if t == "uint8":
            self.line(ind + 1, f"r.check_count(an{d}, 1)")
            self.charge(ind + 1, f"an{d}", (1, 1), EMPTY_BYTES)
            self.line(ind + 1, f"x = r.bytes(an{d})")
        elif t in BY_NAME and (fmt := BY_NAME[t].array) is not None:
            self.charge(ind + 1, f"an{d}", (BY_NAME[t].min_size, NUMBER.get(fmt, SLOT)), EMPTY_LIST)
            self.line(ind + 1, f"x = r.array({fmt!r}, an{d})")
        else:
            self.line(ind + 1, f"r.check_count(an{d}, {field_min_size(t)})")
            self.charge(ind + 1, f"an{d}", self.gen.cost.element(t), EMPTY_LIST)
            self.line(ind + 1, f"a{d} = []")
            self.line(ind + 1, f"for _ in range(an{d}):")
            if t in BY_NAME:
                self.value(t, ind + 2, where)
            else:
                self.struct_value(s, d, ind + 2)
            self.line(ind + 2, f"a{d}.append(x)")
            self.line(ind + 1, f"x = a{d}")
        self.line(ind, "except GbxError as e:")
        self.line(ind + 1, f"raise _tag(e, {where})")
        self.set(ind, d, s.name)

    def value(self, t: str, ind: int, where: str) -> None:
        """x = one value of builtin type t, read inline where the type allows."""
        if t == "uint8":
            self.line(ind, "p = r._pos")
            self.line(ind, "if p < end:")
            self.line(ind + 1, "r._pos = p + 1")
            self.line(ind + 1, "x = buf[p]")
            self.line(ind, "else:")
            self.tagged_call(ind + 1, "r.u8()", where)
        elif t in INLINE:
            fmt, size, single = INLINE[t]
            self.line(ind, "p = r._pos")
            self.line(ind, f"if p + {size} <= end:")
            self.line(ind + 1, f"r._pos = p + {size}")
            unpack = self.gen.obj(struct.Struct(fmt).unpack_from)
            self.line(ind + 1, f"x = {unpack}(buf, p)" + ("[0]" if single else ""))
            if t == "bool":
                self.line(ind + 1, "if x > 1:")          # the reader's error, from the same place
                self.line(ind + 2, "r._pos = p")
                self.tagged_call(ind + 2, "r.bool()", where)
                self.line(ind + 1, "x = x == 1")
            self.line(ind, "else:")
            self.tagged_call(ind + 1, f"{self.gen.obj(BY_NAME[t].read)}(r)", where)
        elif t == "id":
            self.id_value(ind, "x")
            self.line(ind, "if x is None:")
            self.tagged_call(ind + 1, "read_id(r)", where)
        elif t == "string":      # in memory and whole: decoded here; else the reader's errors
            self.line(ind, "p = r._pos")
            self.line(ind, "x = None")
            self.line(ind, "if p + 4 <= end:")
            self.line(ind + 1, f"k = {self.gen.obj(struct.Struct('<I').unpack_from)}(buf, p)[0]")
            self.line(ind + 1, "if k <= MAX_STRING and p + 4 + k <= end:")
            self.line(ind + 2, "r._pos = p + 4 + k")
            # stored_text without its call: only a string that may start with a BOM takes it
            self.line(ind + 2, "x = _text(buf[p + 4:p + 4 + k]) if k > 2 and buf[p + 4] == 0xEF else "
                               "str(buf[p + 4:p + 4 + k], 'utf-8', 'replace') if k else ''")
            self.line(ind, "if x is None:")
            self.tagged_call(ind + 1, "r.string()", where)
        elif t == "noderef":     # what types.py's reader calls, without the call between
            self.tagged_call(ind, "r.walker.noderef(r)", where)
        else:
            self.tagged_call(ind, f"{self.gen.obj(BY_NAME[t].read)}(r)", where)

    def id_value(self, ind: int, target: str) -> None:
        """target = a lookback string's back reference read inline, else None (nothing
        read: lookback.read_id reads the rest, and raises the errors)."""
        self.line(ind, "st = r.ids")
        self.line(ind, "p = r._pos")
        self.line(ind, f"{target} = None")
        self.line(ind, "if st.version == 3 and st.gap is None and p + 4 <= end:")
        self.line(ind + 1, f"k = {self.gen.obj(struct.Struct('<I').unpack_from)}(buf, p)[0]")
        self.line(ind + 1, "if k & 0xC0000000 and k != 0xFFFFFFFF and 0 < (k & 0x3FFFFFFF) <= len(st.strings):")
        self.line(ind + 2, "r._pos = p + 4")
        self.line(ind + 2, f"{target} = st.strings[(k & 0x3FFFFFFF) - 1]")

    def meta(self, s: dsl.Field, d: int, ind: int, where: str) -> None:
        """Three ids: named, one dict; unnamed with names, three fields (as compile.py,
        whose flat form also claims errors the walker marked as its own)."""
        subnames = s.subnames or META_NAMES
        self.line(ind, "try:")
        for i in range(3):
            self.id_value(ind + 1, f"m{i}")
            self.line(ind + 1, f"if m{i} is None:")
            self.line(ind + 2, f"m{i} = read_id(r)")
        self.line(ind + 1, "x = (m0, m1, m2)")
        self.line(ind, "except GbxError as e:")
        if s.name is None:
            self.line(ind + 1, f"e.decl = e.decl or {where}")
            self.line(ind + 1, "raise")
            for i, k in enumerate(subnames[:3]):
                self.set(ind, d, k, f"x[{i}]")
            return
        self.line(ind + 1, f"raise _tag(e, {where})")
        self.line(ind, "x = {" + ", ".join(f"{k!r}: x[{i}]" for i, k in enumerate(subnames[:3])) + "}")
        self.set(ind, d, s.name)

    def tagged_call(self, ind: int, call: str, where: str) -> None:
        self.line(ind, "try:")
        self.line(ind + 1, f"x = {call}")
        self.line(ind, "except GbxError as e:")
        self.line(ind + 1, f"raise _tag(e, {where})")
