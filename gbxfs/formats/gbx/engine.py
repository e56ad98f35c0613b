"""The chunk engine: links the declarations of chunks/*.chunks and decodes chunks.

One interpreter for every chunk: each declaration is compiled once into closures
`run(reader, frame)`; decoding a chunk runs them against a GbxReader and returns the
decoded values as a nested dict (lists of dicts for loops). `dump.dump_values` turns
those values into the `.txt` form of SPEC §1.

    from gbxfs.formats.gbx.engine import registry
    decl = registry().get(0x03043002, header=True)
    values = decl.decode(reader)        # reads from the reader's current position

Declarations are keyed by (chunk id, header?) - ids as current ids (remapped).
"""
from __future__ import annotations

import functools
import logging
import struct
from dataclasses import dataclass, field
from importlib import resources
from operator import methodcaller
from typing import Any, Callable, Iterable

from . import dsl
from .dsl import DeclarationError
from .errors import GbxError
from .expr import compile_expr, names_in, parse as parse_expr
from .model import Labeled, NodeRef
from .zinflate import inflate_exact
from .reader import MAX_COUNT, BytesSource, GbxReader

log = logging.getLogger(__name__)

MAX_STRUCT_DEPTH = 64
MAX_INFLATE = 256 << 20
_MISSING = object()

# canonical type -> (reader call, numeric array format or None)
_READERS: dict[str, tuple[Callable[[GbxReader], Any], str | None]] = {
    "uint8": (methodcaller("u8"), "B"), "int8": (methodcaller("i8"), "b"),
    "uint16": (methodcaller("u16"), "H"), "int16": (methodcaller("i16"), "h"),
    "uint32": (methodcaller("u32"), "I"), "int32": (methodcaller("i32"), "i"),
    "uint64": (methodcaller("u64"), "Q"), "int64": (methodcaller("i64"), "q"),
    "uint128": (methodcaller("u128"), None), "float": (methodcaller("f32"), "f"),
    "bool": (methodcaller("bool"), None), "string": (methodcaller("string"), None),
    "id": (methodcaller("id"), None), "meta": (methodcaller("meta"), None),
    "fileref": (methodcaller("fileref"), None), "noderef": (methodcaller("noderef"), None),
    "node": (methodcaller("direct_node"), None),
    "vec2": (methodcaller("vec2"), None), "vec3": (methodcaller("vec3"), None),
    "vec4": (methodcaller("vec4"), None), "color": (methodcaller("vec3"), None),
    "int2": (methodcaller("ints", 2), None), "int3": (methodcaller("ints", 3), None),
    "iso4": (methodcaller("floats", 12), None), "mat3": (methodcaller("floats", 9), None),
    "box": (methodcaller("floats", 6), None),
}
META_NAMES = ("id", "collection", "author")

# fixed-size types that can be read together with one struct call: type -> (format, values)
_FIXED = {
    "uint8": ("B", 1), "int8": ("b", 1), "uint16": ("H", 1), "int16": ("h", 1), "uint32": ("I", 1),
    "int32": ("i", 1), "uint64": ("Q", 1), "int64": ("q", 1), "float": ("f", 1), "bool": ("I", 1),
    "vec2": ("2f", 2), "vec3": ("3f", 3), "vec4": ("4f", 4), "color": ("3f", 3), "int2": ("2i", 2),
    "int3": ("3i", 3), "iso4": ("12f", 12), "mat3": ("9f", 9), "box": ("6f", 6),
}


def _fusable(s: dsl.Stmt) -> bool:
    return isinstance(s, dsl.Field) and s.type in _FIXED and s.count is None and not s.enum


def _small_len(r: GbxReader) -> int:
    first = r.u8()
    return (first & 0x7F) | (r.u16() << 7) if first & 0x80 else first


def _small_string(r: GbxReader) -> str:
    return bytes(r.bytes(_small_len(r))).decode("utf-8", "replace")


_READERS["smalllen"] = (_small_len, None)
_READERS["smallstring"] = (_small_string, None)


class _Continue(Exception):
    def __init__(self, uncounted: bool):
        self.uncounted = uncounted


class Frame:
    """Values of one scope (a chunk, a loop element, a struct) and its parent scope.
    A name read twice in one scope is kept as name, name_2, ...; expressions see the
    latest."""

    __slots__ = ("values", "latest", "parent", "chunk_id", "depth", "index", "node")

    def __init__(self, parent: "Frame | None", chunk_id: int, node: Any = None):
        self.values: dict[str, Any] = {}
        self.latest: dict[str, str] = {}
        self.parent = parent
        self.chunk_id = chunk_id
        self.depth = 0 if parent is None else parent.depth + 1
        self.index: int | None = None    # item number, in a loop item's frame
        # the node (model.Node) whose chunk this is; None outside a node walk
        self.node = parent.node if parent is not None else node

    def set(self, name: str, value: Any) -> None:
        values = self.values
        if name in values:
            n = 2
            while f"{name}_{n}" in values:
                n += 1
            key = f"{name}_{n}"
            values[key] = value
            self.latest[name] = key
        else:
            values[name] = value

    def lookup(self, name: str, r: GbxReader) -> Any:
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


Run = Callable[[GbxReader, Frame], None]


@dataclass
class ChunkDecl:
    """A linked, compiled chunk declaration."""
    chunk_id: int
    name: str | None
    flags: set[str]
    xml: str | None
    file: str
    line: int
    definition: dsl.ChunkDef
    run: Run | None = None

    @property
    def header(self) -> bool:
        return "header" in self.flags

    @property
    def skippable(self) -> bool:
        return "skippable" in self.flags

    @property
    def unverified(self) -> bool:
        """Declared from public facts, not yet proven on a corpus file."""
        return "unverified" in self.flags

    def decode(self, r: GbxReader, chunk_id: int | None = None, node: Any = None) -> dict[str, Any]:
        """Read this chunk's fields from `r`; returns the values (GbxError on bad data).
        `node`: the node being walked (its class is `node_class` in expressions, its
        earlier chunks' fields are `node.<field>`)."""
        frame = Frame(None, self.chunk_id if chunk_id is None else chunk_id, node)
        if "encapsulated" in self.flags:
            with r.encapsulation():
                self.run(r, frame)
        else:
            self.run(r, frame)
        return frame.values


@dataclass
class Registry:
    chunks: dict[tuple[int, bool], ChunkDecl] = field(default_factory=dict)
    structs: dict[str, dsl.StructDef] = field(default_factory=dict)
    errors: list[DeclarationError] = field(default_factory=list)

    def get(self, chunk_id: int, header: bool = False) -> ChunkDecl | None:
        """Declaration for a (remapped) chunk id; the other kind is the fallback
        (most chunks are declared once and may appear in header or body)."""
        return self.chunks.get((chunk_id, header)) or self.chunks.get((chunk_id, not header))

    def __len__(self) -> int:
        return len(self.chunks)

    @classmethod
    def from_texts(cls, texts: Iterable[tuple[str, str]]) -> "Registry":
        """Build from (file name, text) pairs. Bad declarations are collected in
        `errors` (and left out); everything else is usable."""
        reg = cls()
        defs: list[dsl.ChunkDef] = []
        for name, text in texts:
            try:
                chunks, structs = dsl.parse_file(text, name)
            except DeclarationError as e:
                reg.errors.append(e)
                continue
            for s in structs:
                if s.name in reg.structs:
                    other = reg.structs[s.name]
                    reg.errors.append(DeclarationError(s.file, s.line, f"struct {s.name} already defined at "
                                                                      f"{other.file}:{other.line}"))
                    continue
                reg.structs[s.name] = s
            defs += chunks
        seen: dict[tuple[int, bool], dsl.ChunkDef] = {}
        for d in defs:
            key = (d.chunk_id, d.header)
            if key in seen:
                o = seen[key]
                reg.errors.append(DeclarationError(d.file, d.line, f"chunk {d.chunk_id:08X} already declared at "
                                                                  f"{o.file}:{o.line}"))
                continue
            seen[key] = d
        linker = _Linker(reg, seen)
        for key, d in seen.items():
            try:
                reg.chunks[key] = linker.chunk(d)
            except DeclarationError as e:
                reg.errors.append(e)
        for e in reg.errors:
            log.warning("chunk declaration skipped: %s", e)
        return reg


def chunk_files() -> list[tuple[str, str]]:
    folder = resources.files("gbxfs.formats.gbx").joinpath("chunks")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".chunks"):
            out.append((f"chunks/{entry.name}", entry.read_text(encoding="utf-8")))
    return out


@functools.cache
def registry() -> Registry:
    """All declarations shipped in gbxfs/formats/gbx/chunks (loaded once)."""
    return Registry.from_texts(chunk_files())


def _expr_failure(text: str, where: str) -> Callable[[Exception, GbxReader], GbxError]:
    """Turns a Python error from evaluating `text` into a located GbxError."""
    def fail(e: Exception, r: GbxReader) -> GbxError:
        if isinstance(e, KeyError):
            msg = f"{where}: {e.args[0]!r} was not read (condition not met?) in {text!r}"
        else:
            msg = f"{where}: cannot evaluate {text!r}: {e}"
        return GbxError(msg, offset=r.offset_base + r.tell())
    return fail


# ---- linking and compiling ------------------------------------------------------------------
class _Linker:
    def __init__(self, reg: Registry, defs: dict[tuple[int, bool], dsl.ChunkDef]):
        self.reg = reg
        self.defs = defs
        self.compiled_structs: dict[str, Run] = {}
        self._struct_cells: dict[str, list[Run]] = {}

    def err(self, file: str, line: int, msg: str) -> DeclarationError:
        return DeclarationError(file, line, msg)

    def chunk(self, d: dsl.ChunkDef) -> ChunkDecl:
        counter = [0]
        body = self.prepare(d.body, d.file, set(dsl.SPECIAL_NAMES) | {"item_index"}, counter, {d.chunk_id})
        if d.xml is not None and d.xml not in self.declared(d.body, set()):
            raise self.err(d.file, d.line, f"xml={d.xml}: no field of that name in this chunk")
        decl = ChunkDecl(d.chunk_id, d.name, d.flags, d.xml, d.file, d.line, d)
        decl.run = self.block(body, d.file)
        return decl

    # names declared at the top level of a statement list (for read chunk / xml checks)
    def declared(self, stmts: list[dsl.Stmt], visiting: set[int]) -> set[str]:
        out: set[str] = set()
        for s in stmts:
            if isinstance(s, dsl.Field):
                if s.name:
                    out.add(s.name)
                elif s.subnames and s.type == "meta":
                    out |= set(s.subnames)
            elif isinstance(s, dsl.Loop):
                out.add(s.name)
            elif isinstance(s, (dsl.Let, dsl.InlineNode)):
                out.add(s.name)
            elif isinstance(s, dsl.If):
                for _, b, _ in s.branches:
                    out |= self.declared(b, visiting)
                if s.orelse:
                    out |= self.declared(s.orelse, visiting)
            elif isinstance(s, (dsl.Encapsulated, dsl.Inflate)):
                out |= self.declared(s.body, visiting)
            elif isinstance(s, dsl.ReadChunk) and s.chunk_id not in visiting:
                target = self.target(s)
                if target is not None:
                    out |= self.declared(target.body, visiting | {s.chunk_id})
        return out

    def target(self, s: dsl.ReadChunk) -> dsl.ChunkDef | None:
        return self.defs.get((s.chunk_id, False)) or self.defs.get((s.chunk_id, True))

    def prepare(self, stmts: list[dsl.Stmt], file: str, known: set[str], counter: list[int],
                visiting: set[int], check_names: bool = True, in_loop: bool = False) -> list[dsl.Stmt]:
        """Give auto names, resolve implicit loop counts and check names, in order.
        `known` grows with the names declared so far (mutated in place)."""
        def need(text: str, line: int) -> None:
            if not check_names:
                return
            missing = names_in(parse_expr(text)) - known
            if missing:
                raise self.err(file, line, f"unknown name {', '.join(sorted(missing))!s} in {text!r} "
                                           f"(not read before this line)")

        for s in stmts:
            if isinstance(s, dsl.Field):
                if s.type not in _READERS and s.type not in self.reg.structs:
                    raise self.err(file, s.line, f"unknown type {s.type!r} (builtin types: "
                                                 f"{', '.join(sorted(dsl.TYPE_ALIASES))}; or a struct)")
                if s.count is not None:
                    need(s.count, s.line)
                if s.name is None:
                    if s.type == "meta" and s.subnames:
                        known |= set(s.subnames)
                        continue
                    counter[0] += 1
                    s.name = f"_u{counter[0]}"
                    s.auto = True
                known.add(s.name)
            elif isinstance(s, dsl.If):
                after: set[str] = set()
                for cond, body, line in s.branches:
                    need(cond, line)
                    inner = set(known)
                    self.prepare(body, file, inner, counter, visiting, check_names, in_loop)
                    after |= inner
                if s.orelse is not None:
                    inner = set(known)
                    self.prepare(s.orelse, file, inner, counter, visiting, check_names, in_loop)
                    after |= inner
                known |= after
            elif isinstance(s, dsl.Loop):
                if s.count is None:
                    s.count = self.implicit_count(s, known, file)
                need(s.count, s.line)
                inner = set(known)
                self.prepare(s.body, file, inner, counter, visiting, check_names, in_loop=True)
                known.add(s.name)
            elif isinstance(s, dsl.While):
                need(s.cond, s.line)
                inner = set(known)
                self.prepare(s.body, file, inner, counter, visiting, check_names, in_loop=True)
                known.add(s.name)
            elif isinstance(s, dsl.Encapsulated):
                self.prepare(s.body, file, known, counter, visiting, check_names, in_loop)
            elif isinstance(s, dsl.InlineNode):
                known.add(s.name)
            elif isinstance(s, dsl.Inflate):
                need(s.data, s.line)
                need(s.size, s.line)
                self.prepare(s.body, file, known, counter, visiting, check_names, in_loop)
            elif isinstance(s, dsl.ReadChunk):
                target = self.target(s)
                if target is None:
                    raise self.err(file, s.line, f"read chunk {s.chunk_id:08X}: no declaration for that chunk")
                if s.chunk_id in visiting:
                    raise self.err(file, s.line, f"read chunk {s.chunk_id:08X} reads itself")
                known |= self.declared(target.body, visiting | {s.chunk_id})
            elif isinstance(s, dsl.Continue):
                if not in_loop:
                    raise self.err(file, s.line, "continue outside a loop (for each / list / while)")
            elif isinstance(s, (dsl.Feed, dsl.Assert)):
                need(s.expr, s.line)
            elif isinstance(s, dsl.Let):
                need(s.expr, s.line)
                known.add(s.name)
        return stmts

    def implicit_count(self, s: dsl.Loop, known: set[str], file: str) -> str:
        v = s.var
        cap = v[:1].upper() + v[1:]
        candidates = [f"num{cap}s", f"num{cap}", f"num{cap}es", f"nb{cap}s", f"nb{cap}", f"{v}Count",
                      f"{v}s", v, f"{v}_count"]
        for c in candidates:
            if c in known:
                return c
        raise self.err(file, s.line, f"'for each {v}:' cannot tell how many: none of "
                                     f"{', '.join(candidates[:4])}... was read before; write "
                                     f"'for each {v} in <count>:'")

    # -- compile -------------------------------------------------------------------------------
    def block(self, stmts: list[dsl.Stmt], file: str) -> Run:
        runs: list[Run] = []
        i = 0
        while i < len(stmts):
            j = i
            while j < len(stmts) and _fusable(stmts[j]):
                j += 1
            if j - i >= 2:
                runs.append(self.fused(stmts[i:j], file))
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

    def fused(self, fields: list[dsl.Stmt], file: str) -> Run:
        """Consecutive fixed-size numeric fields read with one struct call (binary
        files). Text files, and any short read (for a precise error), take the
        field-by-field path."""
        slow = [self.stmt(s, file) for s in fields]
        fmt = "<"
        layout: list[tuple[str, int, int, bool, int]] = []   # name, index, count, is_bool, byte offset
        index = offset = 0
        for s in fields:
            code, n = _FIXED[s.type]
            fmt += code
            layout.append((s.name, index, n, s.type == "bool", offset))
            index += n
            offset += struct.calcsize("<" + code)
        unpack = struct.Struct(fmt).unpack_from
        size = struct.calcsize(fmt)
        where = f"{file}:{fields[0].line}"

        def slow_path(r: GbxReader, f: Frame) -> None:
            for run in slow:
                run(r, f)

        def fused(r: GbxReader, f: Frame) -> None:
            if r.text or (r._end is not None and r._pos + size > r._end):
                return slow_path(r, f)
            start = r.tell()
            vals = unpack(r._take(size))
            values = f.values
            for name, i, n, is_bool, off in layout:
                v = vals[i] if n == 1 else vals[i:i + n]
                if is_bool:
                    if v > 1:
                        e = GbxError(f"bool is {v:#x}, not 0 or 1", offset=r.offset_base + start + off)
                        e.decl = f"{where} {name}"
                        raise e
                    v = v == 1
                if name in values:
                    f.set(name, v)
                else:
                    values[name] = v
        return fused

    def expr(self, text: str, file: str, line: int) -> Callable[[GbxReader, Frame], Any]:
        fn, _ = compile_expr(text)
        fail = _expr_failure(text, f"{file}:{line}")

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
            branches = [(compile_expr(c)[0], self.block(b, file), _expr_failure(c, f"{file}:{line}"))
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
            reg = self.reg
            target_def = self.target(s)

            def read_chunk(r: GbxReader, f: Frame) -> None:
                decl = reg.chunks.get((cid, target_def.header))
                if decl is None or decl.run is None:
                    raise GbxError(f"{where}: chunk {cid:08X} declaration unavailable")
                decl.run(r, f)
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
                raise _Continue(uncounted)
            return continue_
        if isinstance(s, dsl.InlineNode):
            class_id, name = s.class_id, s.name

            def inline_node(r: GbxReader, f: Frame) -> None:
                try:
                    f.set(name, NodeRef("direct", None, node=r.read_node(class_id, None, hook=False)))
                except GbxError as e:
                    if e.decl is None:
                        e.decl = where
                    raise
            return inline_node
        if isinstance(s, dsl.Inflate):
            return self.inflate(s, file)
        if isinstance(s, dsl.While):
            return self.while_(s, file)
        raise AssertionError(f"unhandled statement {s!r}")

    def field(self, s: dsl.Field, file: str) -> Run:
        name, where = s.name, f"{file}:{s.line} {s.name or s.type}"
        if s.count is None and not s.enum and s.type in _READERS and s.type != "meta":
            call = _READERS[s.type][0]

            def scalar(r: GbxReader, f: Frame) -> None:   # the hot path: one plain field
                try:
                    v = call(r)
                except GbxError as e:
                    if e.decl is None:
                        e.decl = where
                    raise
                values = f.values
                if name in values:
                    f.set(name, v)
                else:
                    values[name] = v
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

        def field_(r: GbxReader, f: Frame) -> None:
            try:
                f.set(name, read(r, f))
            except GbxError as e:
                if e.decl is None:
                    e.decl = where
                raise
        return field_

    def reader_for(self, s: dsl.Field, file: str) -> Callable[[GbxReader, Frame], Any]:
        if s.type in _READERS:
            call = _READERS[s.type][0]
            return lambda r, f: call(r)
        struct_name = s.type
        cell = self._struct_cells.get(struct_name)
        if cell is None:    # compile each struct once; the cell allows recursion
            cell = self._struct_cells[struct_name] = []
            sd = self.reg.structs[struct_name]
            body = self.prepare(sd.body, sd.file, set(), [0], set(), check_names=False)
            cell.append(self.block(body, sd.file))

        def read_struct(r: GbxReader, f: Frame) -> dict[str, Any]:
            if f.depth >= MAX_STRUCT_DEPTH:
                raise GbxError(f"{file}:{s.line}: structs nested deeper than {MAX_STRUCT_DEPTH}")
            sub = Frame(f, f.chunk_id)
            cell[0](r, sub)
            return sub.values
        return read_struct

    def array(self, s: dsl.Field, read_one: Callable, file: str) -> Callable[[GbxReader, Frame], Any]:
        count = self.expr(s.count, file, s.line)
        ftype = s.type
        fmt = _READERS[ftype][1] if ftype in _READERS else None
        min_size = dsl.field_min_size(ftype)
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
        count = self.expr(s.count, file, s.line)
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
                except _Continue as c:
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
                except _Continue:
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


def decode_bytes(decl: ChunkDecl, data: bytes, *, text: bool = False, chunk_id: int | None = None,
                 **reader_args: Any) -> dict[str, Any]:
    """Decode a chunk held in `data` with fresh state; all bytes must be consumed."""
    from .reader import make_reader

    r = make_reader(BytesSource(data), text=text, **reader_args)
    values = decl.decode(r, chunk_id)
    if not r.at_end():
        raise GbxError(f"declaration read {r.tell()} of {len(data)} bytes", offset=r.tell(), chunk_id=decl.chunk_id)
    return values
