"""Linking the declarations: auto names for unnamed fields, implicit loop counts,
`read chunk` targets, and a check that every name an expression uses was read
before it. Errors are DeclarationErrors naming the file and line.
"""
from __future__ import annotations

from ..expr import names_in
from ..expr import parse as parse_expr
from . import ast as dsl
from .ast import DeclarationError
from .frame import SPECIAL_NAMES
from .types import BY_NAME, TYPE_ALIASES


class Linker:
    """Links chunk bodies against the other declarations (`defs`) and the structs."""

    def __init__(self, structs: dict[str, dsl.StructDef], defs: dict[tuple[int, bool], dsl.ChunkDef]):
        self.structs = structs
        self.defs = defs
        self._struct_bodies: dict[str, list[dsl.Stmt]] = {}

    def err(self, file: str, line: int, msg: str) -> DeclarationError:
        return DeclarationError(file, line, msg)

    def chunk(self, d: dsl.ChunkDef) -> list[dsl.Stmt]:
        """The checked body of a chunk declaration (fields named, loop counts set)."""
        body = self.prepare(d.body, d.file, set(SPECIAL_NAMES), [0], {d.chunk_id})
        if d.xml is not None and d.xml not in self.declared(d.body, set()):
            raise self.err(d.file, d.line, f"xml={d.xml}: no field of that name in this chunk")
        return body

    def struct(self, name: str) -> dsl.StructDef:
        """A struct with its body prepared (names are checked where it is used: a struct
        may read its caller's fields)."""
        sd = self.structs[name]
        if name not in self._struct_bodies:
            self._struct_bodies[name] = self.prepare(sd.body, sd.file, set(), [0], set(), check_names=False)
        return sd

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
            elif isinstance(s, (dsl.Encapsulated, dsl.Inflate, dsl.Sized)):
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
                if s.type not in BY_NAME and s.type not in self.structs:
                    raise self.err(file, s.line, f"unknown type {s.type!r} (builtin types: "
                                                 f"{', '.join(sorted(TYPE_ALIASES))}; or a struct)")
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
            elif isinstance(s, dsl.Sized):
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


def set_by_link(text: str | None) -> str:
    """A name or count that linking sets: every field is named (but an unnamed meta
    split into its subnames, which never comes here), every loop has its count, and an
    array is compiled only for a field with a count."""
    assert text is not None, "set when linked (link.py)"
    return text
