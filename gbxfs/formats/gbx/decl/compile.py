"""Compiling linked declarations into closures `run(reader, frame)`: one interpreter
for every chunk. Decoding runs them against a reader and leaves the values in the
frame (a nested dict; lists of dicts for loops).
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, cast

from ..encoding import MAX_COUNT
from ..errors import GbxError
from ..expr import compile_expr, located_failure
from ..model import Labeled, NodeRef
from ..reader import GbxReader
from ..zinflate import inflate_exact
from . import ast as dsl
from .frame import ContinueItem, Frame
from .link import Linker, set_by_link
from .types import BY_NAME, META_NAMES, field_min_size, fixed_of, fusable

MAX_STRUCT_DEPTH = 64
MAX_INFLATE = 256 << 20

Run = Callable[[GbxReader, Frame], None]


class Compiler:
    """Compiles linked statement lists; `chunks` is the registry's table of compiled
    declarations (filled as they compile), which `read chunk` looks up at run time."""

    def __init__(self, linker: Linker, chunks: dict[tuple[int, bool], Any]):
        self.linker = linker
        self.chunks = chunks
        self._struct_cells: dict[str, list[Run]] = {}

    def block(self, stmts: list[dsl.Stmt], file: str) -> Run:
        runs: list[Run] = []
        i = 0
        while i < len(stmts):
            j = i
            while j < len(stmts) and fusable(stmts[j]):
                j += 1
            if j - i >= 2:
                runs.append(self.fused(cast("list[dsl.Field]", stmts[i:j]), file))   # fusable: Fields
                i = j
            else:
                runs.append(self.stmt(stmts[i], file))
                i += 1
        if len(runs) == 1:
            return runs[0]

        def run_all(r: GbxReader, f: Frame) -> None:
            for run in runs:
                run(r, f)
        return run_all

    def fused(self, fields: list[dsl.Field], file: str) -> Run:
        """Consecutive fixed-size numeric fields read with one struct call (binary
        files). Text files, and any short read (for a precise error), take the
        field-by-field path."""
        slow = [self.stmt(s, file) for s in fields]
        fmt = "<"
        # name, index, count, is_bool, byte offset, the field's own place (as its scalar read names it)
        layout: list[tuple[str, int, int, bool, int, str]] = []
        index = offset = 0
        for s in fields:
            code, n = fixed_of(s)
            fmt += code
            layout.append((set_by_link(s.name), index, n, s.type == "bool", offset, f"{file}:{s.line} {s.name or s.type}"))
            index += n
            offset += struct.calcsize("<" + code)
        unpack = struct.Struct(fmt).unpack_from
        size = struct.calcsize(fmt)

        def slow_path(r: GbxReader, f: Frame) -> None:
            for run in slow:
                run(r, f)

        def fused(r: GbxReader, f: Frame) -> None:
            if r.text:
                return slow_path(r, f)
            start = r.tell()
            data = r.fixed(size)
            if data is None:        # too few bytes: field by field, for an error naming the field
                return slow_path(r, f)
            vals = unpack(data)
            values = f.values
            for name, i, n, is_bool, off, where in layout:
                v: Any = vals[i] if n == 1 else vals[i:i + n]
                if is_bool:
                    if v > 1:
                        r.untake(size - off - 4)
                        e = GbxError(f"bool is {v:#x}, not 0 or 1", offset=r.offset_base + start + off)
                        e.decl = where
                        raise e
                    v = v == 1
                if name in values:
                    f.set(name, v)
                else:
                    values[name] = v
        return fused

    def expr(self, text: str, file: str, line: int) -> Callable[[GbxReader, Frame], Any]:
        fn, _ = compile_expr(text)
        fail = located_failure(text, f"{file}:{line}")

        def evaluate(r: GbxReader, f: Frame) -> Any:
            try:
                return fn(f, r)
            except (KeyError, ArithmeticError, TypeError, ValueError, IndexError) as e:
                raise fail(e, r) from None
        return evaluate

    def stmt(self, s: dsl.Stmt, file: str) -> Run:
        where = f"{file}:{s.line}"
        if isinstance(s, dsl.Field):
            return self.field(s, file)
        if isinstance(s, dsl.Marker):
            data = s.data

            def marker(r: GbxReader, f: Frame) -> None:
                r.marker(data)
            return marker
        if isinstance(s, dsl.If):
            # conditions are the hottest expressions: evaluated here without the
            # evaluate() wrapper, with the same error translation
            branches = [(compile_expr(c)[0], self.block(b, file), located_failure(c, f"{file}:{line}"))
                        for c, b, line in s.branches]
            orelse = self.block(s.orelse, file) if s.orelse else None

            def if_(r: GbxReader, f: Frame) -> None:
                for cond, body, fail in branches:
                    try:
                        ok = cond(f, r)
                    except (KeyError, ArithmeticError, TypeError, ValueError, IndexError) as e:
                        raise fail(e, r) from None
                    if ok:
                        body(r, f)
                        return
                if orelse is not None:
                    orelse(r, f)
            return if_
        if isinstance(s, dsl.Loop):
            return self.loop(s, file)
        if isinstance(s, dsl.ReadChunk):
            cid = s.chunk_id
            chunks = self.chunks
            target_def = self.linker.target(s)
            assert target_def is not None, "link.py checked every read chunk's target"

            def read_chunk(r: GbxReader, f: Frame) -> None:
                decl = chunks.get((cid, target_def.header))
                if decl is None:
                    raise GbxError(f"{where}: chunk {cid:08X} declaration unavailable")
                decl.run_into(r, f)         # into this chunk's frame
            return read_chunk
        if isinstance(s, dsl.Encapsulated):
            body = self.block(s.body, file)

            def encapsulated(r: GbxReader, f: Frame) -> None:
                with r.encapsulation():
                    body(r, f)
            return encapsulated
        if isinstance(s, dsl.Feed):
            value = self.expr(s.expr, file, s.line)

            def feed(r: GbxReader, f: Frame) -> None:
                data = value(r, f)
                if not isinstance(data, (bytes, bytearray)):
                    raise GbxError(f"{where}: feed needs bytes, got {type(data).__name__}")
                r.feed(bytes(data))
            return feed
        if isinstance(s, dsl.Let):
            value, name = self.expr(s.expr, file, s.line), s.name

            def let(r: GbxReader, f: Frame) -> None:
                f.set(name, value(r, f))
            return let
        if isinstance(s, dsl.Assert):
            cond, text = self.expr(s.expr, file, s.line), s.expr

            def assert_(r: GbxReader, f: Frame) -> None:
                if not cond(r, f):
                    raise GbxError(f"{where}: assertion failed: {text}", offset=r.offset_base + r.tell())
            return assert_
        if isinstance(s, dsl.Continue):
            uncounted = s.uncounted

            def continue_(r: GbxReader, f: Frame) -> None:
                raise ContinueItem(uncounted)
            return continue_
        if isinstance(s, dsl.InlineNode):
            class_id, name = s.class_id, s.name

            def inline_node(r: GbxReader, f: Frame) -> None:
                try:
                    f.set(name, NodeRef("direct", None, node=r.walker.read_node(r, class_id, None, hook=False)))
                except GbxError as e:
                    if e.decl is None:
                        e.decl = where
                    raise
            return inline_node
        if isinstance(s, (dsl.Inflate, dsl.Sized)):
            return self.inflate(s, file) if isinstance(s, dsl.Inflate) else self.sized(s, file)
        if isinstance(s, dsl.While):
            return self.while_(s, file)
        raise AssertionError(f"unhandled statement {s!r}")

    def field(self, s: dsl.Field, file: str) -> Run:
        name, where = s.name, f"{file}:{s.line} {s.name or s.type}"
        if s.count is None and not s.enum and s.type in BY_NAME and s.type != "meta":
            call, key = BY_NAME[s.type].read, set_by_link(name)

            def scalar(r: GbxReader, f: Frame) -> None:   # the hot path: one plain field
                try:
                    v = call(r)
                except GbxError as e:
                    if e.decl is None:
                        e.decl = where
                    raise
                values = f.values
                if key in values:
                    f.set(key, v)
                else:
                    values[key] = v
            return scalar
        read = self.reader_for(s, file)
        if s.count is not None:
            read = self.array(s, read, file)
        elif s.type == "meta" and (s.subnames or s.name):
            subnames = s.subnames or META_NAMES
            inner = read
            if name is None:   # unnamed meta with names: three fields in this scope
                def meta_flat(r: GbxReader, f: Frame) -> None:
                    try:
                        for k, v in zip(subnames, inner(r, f)):
                            f.set(k, v)
                    except GbxError as e:
                        e.decl = e.decl or where
                        raise
                return meta_flat
            read = lambda r, f: dict(zip(subnames, inner(r, f)))  # noqa: E731
        elif s.enum:
            inner, enum = read, s.enum

            def read(r: GbxReader, f: Frame) -> Any:  # noqa: F811
                v = inner(r, f)
                label = enum.get(v) if isinstance(v, int) else None
                return Labeled(v, label) if label is not None else v
        key = set_by_link(name)

        def field_(r: GbxReader, f: Frame) -> None:
            try:
                f.set(key, read(r, f))
            except GbxError as e:
                if e.decl is None:
                    e.decl = where
                raise
        return field_

    def reader_for(self, s: dsl.Field, file: str) -> Callable[[GbxReader, Frame], Any]:
        if s.type in BY_NAME:
            call = BY_NAME[s.type].read
            return lambda r, f: call(r)
        struct_name = s.type
        # compiled on first read (a struct may hold itself), lock-free: a race compiles two equal ones
        cell = self._struct_cells.setdefault(struct_name, [])

        def read_struct(r: GbxReader, f: Frame) -> dict[str, Any]:
            if f.depth >= MAX_STRUCT_DEPTH:
                raise GbxError(f"{file}:{s.line}: structs nested deeper than {MAX_STRUCT_DEPTH}")
            sub = Frame(f, f.chunk_id)
            if not cell:
                sd = self.linker.struct(struct_name)
                cell.append(self.block(sd.body, sd.file))
            cell[0](r, sub)
            return sub.values
        return read_struct

    def array(self, s: dsl.Field, read_one: Callable, file: str) -> Callable[[GbxReader, Frame], Any]:
        count = self.expr(set_by_link(s.count), file, s.line)
        ftype = s.type
        fmt = BY_NAME[ftype].array if ftype in BY_NAME else None
        min_size = field_min_size(ftype)
        where = f"{file}:{s.line}"

        def read_array(r: GbxReader, f: Frame) -> Any:
            n = count(r, f)
            if not isinstance(n, int) or isinstance(n, bool):
                raise GbxError(f"{where}: array count {s.count!r} is {n!r}, not an integer")
            if ftype == "uint8":
                return r.bytes(r.check_count(n, 1 if not r.text else 0))
            if fmt is not None and not r.text:
                return r.array(fmt, n)
            r.check_count(n, min_size if not r.text else 0)
            return [read_one(r, f) for _ in range(n)]
        return read_array

    def loop(self, s: dsl.Loop, file: str) -> Run:
        count = self.expr(set_by_link(s.count), file, s.line)
        body = self.block(s.body, file)
        name, where = s.name, f"{file}:{s.line}"

        def loop(r: GbxReader, f: Frame) -> None:
            n = count(r, f)
            if not isinstance(n, int) or isinstance(n, bool):
                raise GbxError(f"{where}: loop count {s.count!r} is {n!r}, not an integer")
            r.check_count(n, 0, f"{where} count {s.count}")
            items: list[dict[str, Any]] = []
            counted = 0
            while counted < n:
                if len(items) >= MAX_COUNT:
                    raise GbxError(f"{where}: more than {MAX_COUNT} loop items")
                sub = Frame(f, f.chunk_id)
                sub.index = len(items)
                start = r.tell()
                try:
                    body(r, sub)
                except ContinueItem as c:
                    items.append(sub.values)
                    if c.uncounted:
                        if r.tell() == start:
                            raise GbxError(f"{where}: uncounted item read no data (endless loop)") from None
                        continue
                else:
                    items.append(sub.values)
                counted += 1
            f.set(name, items)
        return loop

    def while_(self, s: dsl.While, file: str) -> Run:
        """Items while a condition holds (0304301F's trailing blocks: while the next u32
        looks like a lookback string, not a chunk id). Each item must read data."""
        cond = self.expr(s.cond, file, s.line)
        body = self.block(s.body, file)
        name, where = s.name, f"{file}:{s.line}"

        def while_(r: GbxReader, f: Frame) -> None:
            items: list[dict[str, Any]] = []
            while cond(r, f):
                if len(items) >= MAX_COUNT:
                    raise GbxError(f"{where}: more than {MAX_COUNT} loop items")
                sub = Frame(f, f.chunk_id)
                sub.index = len(items)
                start = r.tell()
                try:
                    body(r, sub)
                except ContinueItem:
                    pass
                items.append(sub.values)
                if r.tell() == start:
                    raise GbxError(f"{where}: while item read no data (endless loop)")
            f.set(name, items)
        return while_

    def inflate(self, s: dsl.Inflate, file: str) -> Run:
        data_fn = self.expr(s.data, file, s.line)
        size_fn = self.expr(s.size, file, s.line)
        body = self.block(s.body, file)
        where = f"{file}:{s.line}"

        def inflate(r: GbxReader, f: Frame) -> None:
            data, size = data_fn(r, f), size_fn(r, f)
            if not isinstance(data, (bytes, bytearray)) or not isinstance(size, int):
                raise GbxError(f"{where}: inflate needs bytes and an integer size")
            out = inflate_exact(data, size, where, MAX_INFLATE)
            sub = r.sub_reader(out)
            body(sub, f)
            if not sub.at_end():
                raise GbxError(f"{where}: {sub.remaining} inflated bytes left unread")
        return inflate

    def sized(self, s: dsl.Sized, file: str) -> Run:
        size_fn, body, where = self.expr(s.size, file, s.line), self.block(s.body, file), f"{file}:{s.line}"

        def sized(r: GbxReader, f: Frame) -> None:
            size = size_fn(r, f)
            if not isinstance(size, int) or isinstance(size, bool):
                raise r.error(f"{where}: sized needs an integer size")
            with r.limit(size) as end:
                body(r, f)
                if r.tell() != end:
                    raise r.error(f"{where}: {end - r.tell()} bytes of the sized block left unread")
        return sized
