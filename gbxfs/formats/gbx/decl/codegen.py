"""Generated decoders: each chunk declaration (and struct) compiled, on first use, into
one specialised Python function whose source is written here and run by `exec`.

compile.py's closures stay the reference and the general path: text-format files and
pull sources (paks) run them, and so does any statement this module does not
translate (the generated code calls that statement's closure). The generated code
covers the hot part of binary in-memory decoding and must behave exactly like the
closures, errors included:
  - fields (genfields.py) read with `struct` straight from the reader's buffer, runs
    of fixed-size ones (the same runs compile.py fuses) with one call, strings and
    lookback back references inline, counted fields element by element; a short
    read calls the reader's own method, which raises the reader's error;
  - conditions, `let`, loops and `while` inline, with expressions written as Python
    (genexpr.py) inside the same try/except that compile.py's wrappers use;
  - structs written inline where they are read (a function of their own only for
    recursion or deep nesting), each loop item and struct a dict of its own, and its
    Frame (as the closures make it) only when something needs one: a closure,
    Frame.lookup, a repeated name. Names are read from the dicts directly where the
    scope analysis (scopes.py) shows that gives Frame.lookup's answer.
Why both: the generated decoders more than halve the full parse of the corpus GBX
files (benchmarks/gbx_parse.py: 3.5-3.9 s against 8.3-8.9 s with the closures alone,
278 files, three interleaved runs, load 6); test_codegen_synthetic.py (seeded chunks,
no corpus) and test_codegen_equivalence.py (the corpus) hold the two alike.
The source is generated once per declaration and process (declarations do not change
at run time); only the declarations a file uses are generated.

No lock: parses run in worker threads and may have decoders written at the same time.
Every name a generation binds in the namespace is new (one counter, whose next() is
atomic), and what generations share (`_consts`, `_structs`) is published only once
the names it stands for are bound: a generation never refers to a function another
one is still writing. Two threads writing the same decoder at once write two equal
ones; the last kept replaces the other, which only wasted the work.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any, cast

from ..encoding import MAX_COUNT
from ..expr import compile_expr, located_failure
from . import ast as dsl
from .compile import MAX_STRUCT_DEPTH, Compiler
from .genexpr import ExprSource
from .genfields import FieldWriter, gen_fusable
from .genruntime import BASE_NS
from .itemcost import ItemCost
from .link import set_by_link
from .scopes import counts, name_source

MAX_INLINE = 4      # structs inlined into each other at most (bounds the source's size)


class CodeGen:
    """Writes and compiles the functions; `compiler` gives the closures it falls back
    on. One namespace per registry: struct functions are shared by name in it."""

    def __init__(self, compiler: Compiler):
        self.compiler = compiler
        self.ns: dict[str, Any] = dict(BASE_NS)
        self._consts: dict[tuple[type, Any], str] = {}
        self._structs: dict[str, str] = {}     # struct name -> function name (defined)
        self._count = itertools.count(1)       # names in the namespace: K1, O2, chunk_3...
        self.cost = ItemCost(lambda name: compiler.linker.struct(name).body)

    def chunk_function(self, stmts: list[dsl.Stmt], file: str, fresh: bool) -> Callable:
        """The generated run(r, f) of a chunk's linked statements. fresh: for a frame
        that holds nothing yet (the walker's and `decode`'s), whose names the scope
        analysis then knows; else for a frame `read chunk` shares with another chunk.
        The closures (compile.py) that text files and pull sources run are made on
        their first use too (tens of thousands of closures and cells for every
        declaration would be compiled at load, and every full garbage collection
        would walk them)."""
        return self.function(stmts, file, functools.partial(self.compiler.block, stmts, file), fresh)

    # -- names in the namespace ---------------------------------------------------------
    def const(self, value: Any) -> str:
        key = (type(value), value) if isinstance(value, (int, float, str, bytes)) else (object, id(value))
        name = self._consts.get(key)
        if name is None:
            name = f"K{next(self._count)}"
            self.ns[name] = value
            self._consts[key] = name        # published once bound
        return name

    def on_first_use(self, make: Callable[[], Callable]) -> str:
        """A namespace name for the function make() returns, made on its first call."""
        name = self.obj(None)

        def first(*args: Any) -> Any:
            fn = self.ns[name]
            if fn is first:     # two threads here make two equal functions: either is kept
                fn = self.ns[name] = make()
            return fn(*args)
        self.ns[name] = first
        return name

    def obj(self, value: Any) -> str:
        """A namespace name for an object (closures, unpackers), never shared by value."""
        name = f"O{next(self._count)}"
        self.ns[name] = value
        return name

    # -- functions -----------------------------------------------------------------------
    def function(self, stmts: list[dsl.Stmt], file: str, slow: Callable, fresh: bool = False) -> Callable:
        name = f"chunk_{next(self._count)}"
        pending: dict[str, str] = {}        # the struct functions this generation writes
        em = _Emitter(self, file, False, pending)
        if fresh:               # the chunk's frame starts empty: its scope is analysed
            em.enter(0, stmts)
        em.line(0, f"def {name}(r, f):")
        em.line(1, "if r.text or r._buf is None:")
        em.line(2, f"return {self.on_first_use(slow)}(r, f)")
        em.prologue()
        at = len(em.lines)
        em.block(stmts, 0, 1)
        em.lines[at:at] = em.charge_local()
        fn = self._define(name, em)
        self._structs.update(pending)       # all defined now (one may call another)
        return fn

    def struct_function(self, struct_name: str, pending: dict[str, str]) -> str:
        """The name of a struct's function: one defined already, else one this
        generation writes (`pending`: also those it is still writing, for recursion)."""
        fname = self._structs.get(struct_name) or pending.get(struct_name)
        if fname is None:
            fname = pending[struct_name] = f"struct_{next(self._count)}"   # first: recursion
            sd = self.compiler.linker.struct(struct_name)
            em = _Emitter(self, sd.file, True, pending)
            em.inlining.append(struct_name)
            em.enter(0, sd.body)            # a struct's frame is its own
            em.line(0, f"def {fname}(r, f):")     # only called from generated code: binary, in memory
            em.prologue()
            at = len(em.lines)
            em.block(sd.body, 0, 1)
            em.lines[at:at] = [f"    {var} = _UNSET" for var in em.outer.values()] + em.charge_local()
            self._define(fname, em)
        return fname

    def _define(self, name: str, em: _Emitter) -> Callable:
        src = "\n".join(em.lines) + "\n"
        code = compile(src, f"<gbx declarations {em.file}: {name}>", "exec")
        exec(code, self.ns)   # noqa: S102 - source written above from checked declarations
        return self.ns[name]


class _Emitter(FieldWriter):
    """Source lines of one function. Depth d names the scope: frame f{d}, values v{d}."""

    def __init__(self, gen: CodeGen, file: str, struct: bool, pending: dict[str, str]):
        self.gen, self.file, self.struct = gen, file, struct
        self.pending = pending                # CodeGen.struct_function's
        self.lines: list[str] = []
        # per depth: how often each name may be set in that scope's frame, at most (None:
        # unknown, or a chunk's frame that `read chunk` shares with another chunk)
        self.scopes: list[dict[Any, int] | None] = [None]
        # per depth: names certainly set (once) at the point being written, read
        # without a check (scopes.name_source)
        self.sure: list[set[Any]] = [set()]
        self.outer: dict[str, str] = {}       # caller's names kept in locals (scopes.name_source)
        # depths above 0 (loop items, inlined structs) make their Frame only when
        # something needs it (a closure, Frame.lookup, a repeated name): per depth, the
        # source of the item index the Frame gets
        self.index: dict[int, str] = {}
        self.inlining: list[str] = []         # structs being written, innermost last
        self.charges = False                  # the function tells the walker's charge hook (itemcost.py)

    def frame(self, k: int) -> str:
        """Source for depth k's Frame, made (with its parents) on first use."""
        if k == 0:
            return "f0"
        return f"(f{k} if f{k} is not None else (f{k} := _child({self.frame(k - 1)}, v{k}, {self.index[k]})))"

    def no_latest(self, k: int) -> str:
        """Source: depth k's Frame has no repeated names (a Frame not made has none)."""
        return "not f0.latest" if k == 0 else f"(f{k} is None or not f{k}.latest)"

    def enter(self, d: int, stmts: list[dsl.Stmt]) -> None:
        del self.scopes[d:]
        self.scopes.append(counts(stmts))
        del self.sure[d:]
        self.sure.append(set())

    def charge_local(self) -> list[str]:
        """The prologue line a function with charges needs: the hook in a local (None
        without a budget: then a charge costs one test per loop or array, none per
        item but a `while` item, charged as it is built)."""
        return ["    ch = r.walker and r.walker.charge"] if self.charges else []

    def charge(self, ind: int, n: str, cost: tuple[int, int], extra: int = 0, built: bool = False) -> None:
        """Tell the hook that n elements of cost (bytes read, bytes held) each are about
        to be built: no more of them than the bytes left can hold (at a byte each at
        least: elements that read nothing are charged less, never more), so a wrong
        count, which then fails reading, charges no more than the data could give.
        built: the elements are already there (a `while` item), charged as they are."""
        size, held = cost
        if held <= 0:
            return
        self.charges = True
        many = n if built else f"min({n}, (end - r._pos) // {size})" if size > 1 else f"min({n}, end - r._pos)"
        self.line(ind, "if ch is not None:" if built else f"if ch is not None and {n}:")
        self.line(ind + 1, f"ch(r, {many} * {held}" + (f" + {extra})" if extra else ")"))

    def line(self, ind: int, text: str) -> None:
        self.lines.append("    " * ind + text)

    def prologue(self) -> None:
        self.line(1, "buf = r._buf")
        self.line(1, "end = r._end")
        self.line(1, "f0 = f")
        self.line(1, "v0 = f.values")

    def expr(self, text: str, d: int) -> str:
        src = ExprSource(lambda n: name_source(self.scopes, self.sure, n, d, self.outer, self.frame, self.no_latest,
                                               self.struct),
                         self.gen.const).source(text)
        if src is None:       # not translated: the reference closure
            return f"{self.gen.obj(compile_expr(text)[0])}({self.frame(d)}, r)"
        return src

    def guarded(self, ind: int, target: str, text: str, d: int, line: int) -> None:
        """target = expression, with compile.py's error translation."""
        self.line(ind, "try:")
        self.line(ind + 1, f"{target} = {self.expr(text, d)}")
        self.line(ind, "except _EXC as e:")
        self.line(ind + 1, f"raise {self.gen.obj(located_failure(text, f'{self.file}:{line}'))}(e, r) from None")

    def set(self, ind: int, d: int, name: Any, value: str = "x") -> None:
        n = repr(name)
        m = self.scopes[d] if d < len(self.scopes) else None
        if m is not None and m.get(name, 0) <= 1:     # set once at most: never a repeat
            self.line(ind, f"v{d}[{n}] = {value}")
            self.sure[d].add(name)
            return
        self.line(ind, f"if {n} in v{d}:")
        self.line(ind + 1, f"{self.frame(d)}.set({n}, {value})")
        self.line(ind, "else:")
        self.line(ind + 1, f"v{d}[{n}] = {value}")

    def closure(self, ind: int, s: dsl.Stmt, d: int) -> None:
        self.line(ind, f"{self.gen.obj(self.gen.compiler.stmt(s, self.file))}(r, {self.frame(d)})")

    def block(self, stmts: list[dsl.Stmt], d: int, ind: int) -> None:
        start = len(self.lines)
        i = 0
        while i < len(stmts):
            j = i
            while j < len(stmts) and gen_fusable(stmts[j]):
                j += 1
            if j - i >= 2:          # compile.py's runs, and enum ints (same errors)
                self.fused(cast("list[dsl.Field]", stmts[i:j]), d, ind)     # gen_fusable: Fields
                i = j
            else:
                self.stmt(stmts[i], d, ind)
                i += 1
        if len(self.lines) == start:
            self.line(ind, "pass")

    def stmt(self, s: dsl.Stmt, d: int, ind: int) -> None:
        if isinstance(s, dsl.Field):
            self.field(s, d, ind)
        elif isinstance(s, dsl.If):
            self.if_(s.branches, s.orelse, d, ind)
        elif isinstance(s, dsl.Loop):
            self.loop(s, d, ind)
        elif isinstance(s, dsl.While):
            self.while_(s, d, ind)
        elif isinstance(s, dsl.Let):
            self.guarded(ind, "x", s.expr, d, s.line)
            self.set(ind, d, s.name)
        else:                   # the rarer statements: their closure, same frame
            self.closure(ind, s, d)

    def struct_field(self, s: dsl.Field, d: int, ind: int, where: str) -> None:
        self.line(ind, "try:")
        self.struct_value(s, d, ind + 1)
        self.line(ind, "except GbxError as e:")
        self.line(ind + 1, f"raise _tag(e, {where})")
        self.set(ind, d, s.name)

    def struct_value(self, s: dsl.Field, d: int, ind: int) -> None:
        """x = a struct's values (a dict), read in depth d's scope: its body written
        inline at depth d + 1 (its Frame made only if needed), or, for a struct already
        being written here (recursion) or nested too deep in inlined ones, a call of
        its own function."""
        deep = self.gen.const(f"{self.file}:{s.line}: structs nested deeper than {MAX_STRUCT_DEPTH}")
        self.line(ind, f"if f0.depth >= {MAX_STRUCT_DEPTH - d}:")      # f{d}.depth >= MAX_STRUCT_DEPTH
        self.line(ind + 1, f"raise GbxError({deep})")
        if s.type in self.inlining or len(self.inlining) >= MAX_INLINE:
            fn = self.gen.struct_function(s.type, self.pending)
            self.line(ind, f"x = new_frame({self.frame(d)})")
            self.line(ind, f"{fn}(r, x)")
            self.line(ind, "x = x.values")
            return
        sd = self.gen.compiler.linker.struct(s.type)
        e, file = d + 1, self.file
        self.line(ind, f"f{e} = None")
        self.line(ind, f"v{e} = {{}}")
        self.index[e] = "None"
        self.file = sd.file
        self.inlining.append(s.type)
        self.enter(e, sd.body)
        self.block(sd.body, e, ind)
        self.inlining.pop()
        self.file = file
        self.line(ind, f"x = v{e}")

    def if_(self, branches: list, orelse: list | None, d: int, ind: int) -> None:
        if not branches:
            if orelse:
                self.block(orelse, d, ind)
            return
        cond, body, line = branches[0]
        self.guarded(ind, "c", cond, d, line)
        self.line(ind, "if c:")
        start = set(self.sure[d])
        self.block(body, d, ind + 1)
        after_body, self.sure[d] = self.sure[d], set(start)
        if len(branches) > 1 or orelse:
            self.line(ind, "else:")
            self.if_(branches[1:], orelse, d, ind + 1)
        self.sure[d] &= after_body          # certainly set: on every branch

    def item(self, d: int, ind: int, where: str) -> None:
        """A loop item's frame, as compile.py makes it."""
        e = d + 1
        self.line(ind, f"i{e} = len(items{d})")
        self.line(ind, f"if i{e} >= MAX_COUNT:")
        self.line(ind + 1, f"raise GbxError({self.gen.const(f'{where}: more than {MAX_COUNT} loop items')})")
        self.line(ind, f"f{e} = None")
        self.line(ind, f"v{e} = {{}}")
        self.index[e] = f"i{e}"
        self.line(ind, f"start{d} = r._pos")

    def loop(self, s: dsl.Loop, d: int, ind: int) -> None:
        where = f"{self.file}:{s.line}"
        self.guarded(ind, f"n{d}", set_by_link(s.count), d, s.line)
        self.line(ind, f"if not isinstance(n{d}, int) or isinstance(n{d}, bool):")
        self.line(ind + 1, f"raise GbxError({self.gen.const(f'{where}: loop count {s.count!r} is ')} + repr(n{d}) + "
                           f"', not an integer')")
        self.line(ind, f"r.check_count(n{d}, 0, {self.gen.const(f'{where} count {s.count}')})")
        self.charge(ind, f"n{d}", self.gen.cost.item(s.body))
        outer = ind
        if self.records(s.body, d, ind):     # all items there: read in one go; else item by item
            ind += 1
        self.line(ind, f"items{d} = []")
        self.line(ind, f"counted{d} = 0")
        self.line(ind, f"while counted{d} < n{d}:")
        self.item(d, ind + 1, where)
        self.line(ind + 1, "try:")
        self.enter(d + 1, s.body)
        self.block(s.body, d + 1, ind + 2)
        self.line(ind + 1, "except ContinueItem as ci:")
        self.line(ind + 2, f"items{d}.append(v{d + 1})")
        self.line(ind + 2, "if ci.uncounted:")
        self.line(ind + 3, f"if r._pos == start{d}:")
        self.line(ind + 4, f"raise GbxError({self.gen.const(f'{where}: uncounted item read no data (endless loop)')})"
                           " from None")
        self.line(ind + 3, "continue")
        self.line(ind + 1, "else:")
        self.line(ind + 2, f"items{d}.append(v{d + 1})")
        self.line(ind + 1, f"counted{d} += 1")
        self.set(outer, d, s.name, f"items{d}")

    def while_(self, s: dsl.While, d: int, ind: int) -> None:
        where = f"{self.file}:{s.line}"
        self.line(ind, f"items{d} = []")
        self.line(ind, "while True:")
        self.guarded(ind + 1, "c", s.cond, d, s.line)
        self.line(ind + 1, "if not c:")
        self.line(ind + 2, "break")
        self.item(d, ind + 1, where)
        self.line(ind + 1, "try:")
        self.enter(d + 1, s.body)
        self.block(s.body, d + 1, ind + 2)
        self.line(ind + 1, "except ContinueItem:")
        self.line(ind + 2, "pass")
        self.line(ind + 1, f"items{d}.append(v{d + 1})")
        self.charge(ind + 1, "1", self.gen.cost.item(s.body), built=True)
        self.line(ind + 1, f"if r._pos == start{d}:")
        self.line(ind + 2, f"raise GbxError({self.gen.const(f'{where}: while item read no data (endless loop)')})")
        self.set(ind, d, s.name, f"items{d}")
