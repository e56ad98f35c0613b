"""What a loop item or array element certainly costs, known from its declaration
before a single one is read: the fewest bytes it reads, and the fewest bytes of
Python objects it leaves in the decoded values.

The generated decoders (codegen.py) tell the walker's `charge` hook, before a
loop or array of n elements is built, that about n times the second figure is
coming (never more elements than the bytes left can hold at the first figure
each), so a caller counting memory (tree/gbx/cost.py) can stop a walk before one
huge chunk is built rather than after.

Both figures are lower bounds, so a charge never exceeds what is then built:
only statements that certainly run count (those at the top of the body, up to
the first one that may `continue` the item; of a condition with an `else`, its
least branch; nested loops' items and enum labels count nothing), and an
object's size is its `sys.getsizeof`, as cost.values_cost counts it (a float
per float, a tuple per vector, a string per string even when shared).
tests/tree/test_gbx_charge.py checks the bound over the corpus.
"""
from __future__ import annotations

from collections.abc import Callable
from sys import getsizeof

from . import ast as dsl
from .types import BY_NAME

SLOT = 8                                    # the list's reference to an element
FLOAT = getsizeof(0.5)
EMPTY_LIST = getsizeof([])
EMPTY_BYTES = getsizeof(b"")

# an element of a numeric array (reader.array: a list of numbers), by struct char:
# ints may be the interpreter's shared small ones, floats never are
NUMBER = {"f": SLOT + FLOAT}


def _vector(n: int, floats: bool) -> int:
    return getsizeof((0.0,) * n) + (n * FLOAT if floats else 0)


# one value of a builtin type, at least (0: may be None, a shared small int or label)
VALUE: dict[str, int] = {
    "float": FLOAT, "string": getsizeof(""), "smallstring": getsizeof(""),
    "vec2": _vector(2, True), "vec3": _vector(3, True), "vec4": _vector(4, True), "color": _vector(3, True),
    "iso4": _vector(12, True), "mat3": _vector(9, True), "box": _vector(6, True),
    "int2": _vector(2, False), "int3": _vector(3, False),
}


def _dict_sizes(most: int = 64) -> list[int]:
    """getsizeof of a dict after k keys were set one by one, k = 0..most."""
    d: dict[str, None] = {}
    out = [getsizeof(d)]
    for k in range(most):
        d[f"k{k}"] = None
        out.append(getsizeof(d))
    return out


DICT = _dict_sizes()


def _continues(s: dsl.Stmt) -> bool:
    """May this statement end the item early (a `continue` in it, not in a nested loop)?"""
    if isinstance(s, dsl.Continue):
        return True
    if isinstance(s, dsl.If):
        return any(_continues_any(body) for _, body, _ in s.branches) or _continues_any(s.orelse or [])
    if isinstance(s, (dsl.Encapsulated, dsl.Inflate, dsl.Sized)):
        return _continues_any(s.body)
    return False


def _continues_any(stmts: list[dsl.Stmt]) -> bool:
    return any(_continues(s) for s in stmts)


class ItemCost:
    """The two lower bounds per statement list; `struct_body(name)` gives a struct's
    linked statements. Results per struct are kept (declarations do not change)."""

    def __init__(self, struct_body: Callable[[str], list[dsl.Stmt]]):
        self.struct_body = struct_body
        self._structs: dict[str, tuple[int, int]] = {}

    # No lock (decoders are written in worker threads, codegen.py): a struct is
    # counted as nothing more inside itself through `active` (the structs being
    # counted by this call), not through a mark other threads could see; two threads
    # counting the same struct keep the same result.
    def item(self, body: list[dsl.Stmt]) -> tuple[int, int]:
        """(bytes read, bytes held) of one loop item: a dict in the items list."""
        size, keys, held = self._body(body)
        return size, SLOT + DICT[min(keys, len(DICT) - 1)] + held

    def element(self, ftype: str) -> tuple[int, int]:
        """(bytes read, bytes held) of one element of an array `ftype name[count]`
        read element by element (structs and non-numeric builtins)."""
        t = BY_NAME.get(ftype)
        if t is not None:
            return t.min_size, SLOT + VALUE.get(ftype, 0)
        size, held = self.struct(ftype)
        return size, SLOT + held

    def struct(self, name: str, active: frozenset[str] = frozenset()) -> tuple[int, int]:
        known = self._structs.get(name)
        if known is None:
            if name in active:
                return 0, 0                     # a struct inside itself counts nothing more
            size, keys, held = self._body(self.struct_body(name), active | {name})
            known = self._structs[name] = (size, DICT[min(keys, len(DICT) - 1)] + held)
        return known

    def _body(self, body: list[dsl.Stmt], active: frozenset[str] = frozenset()) -> tuple[int, int, int]:
        """(bytes read, keys set, bytes held by the values) of the statements that certainly run."""
        size = keys = held = 0
        for s in body:
            if _continues(s):
                break
            if isinstance(s, dsl.Field):
                n, k, h = self._field(s, active)
                size, keys, held = size + n, keys + k, held + h
            elif isinstance(s, (dsl.Loop, dsl.While)):
                keys, held = keys + 1, held + EMPTY_LIST
            elif isinstance(s, (dsl.Let, dsl.InlineNode)):
                keys += 1
            elif isinstance(s, dsl.If) and s.orelse:      # one of the branches certainly runs
                n, k, h = map(min, zip(*(self._body(b, active)
                                         for b in [body for _, body, _ in s.branches] + [s.orelse])))
                size, keys, held = size + n, keys + k, held + h
        return size, keys, held

    def _field(self, s: dsl.Field, active: frozenset[str]) -> tuple[int, int, int]:
        t = BY_NAME.get(s.type)
        if s.type == "meta" and s.name is None:
            return BY_NAME["meta"].min_size, 3 if s.subnames else 0, 0
        keys = 1 if s.name is not None else 0
        if s.count is not None:                   # an array: maybe empty
            return 0, keys, EMPTY_BYTES if s.type == "uint8" else EMPTY_LIST
        if t is None:                             # a struct (with an enum: read by its closure)
            if s.enum:
                return 0, keys, 0
            size, held = self.struct(s.type, active)
            return size, keys, held
        if s.type == "meta":
            return t.min_size, keys, DICT[3]
        return t.min_size, keys, 0 if s.enum else VALUE.get(s.type, 0)
