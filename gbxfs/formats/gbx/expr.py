"""Safe expressions for chunk declarations (`if version >= 3 && (flags & 4) != 0:`).

The text is rewritten from the wiki's C-like spelling to Python syntax, parsed with
`ast`, checked against a whitelist of node types, and compiled into plain closures
(no eval/exec). Names are resolved at run time through a lookup function.
"""
from __future__ import annotations

import ast
import operator
import re
import struct
import warnings
from collections.abc import Callable
from typing import Any

from .errors import GbxError

# A compiled expression is called as fn(scope, reader): names are looked up with
# scope.lookup(name, reader) (decl.frame.Frame), so no closure is built per evaluation.
Compiled = Callable[[Any, Any], Any]


class ExprError(ValueError):
    """A declaration's expression is not acceptable (syntax or forbidden construct)."""


def _wrap(bits: int, signed: bool) -> Callable[[Any], int]:
    mask = (1 << bits) - 1

    def cast(v: Any) -> int:
        v = int(v) & mask
        if signed and v >> (bits - 1):
            v -= 1 << bits
        return v
    return cast


def _f32le(v: Any) -> bytes:
    return struct.pack("<f", float(v))


def _u32le(v: Any) -> bytes:
    return struct.pack("<I", int(v) & 0xFFFFFFFF)


def _ascii(v: Any) -> bytes:
    return str(v).encode("ascii", "replace")


def _count(items: Any, name: str) -> int:
    """How many items (dicts of a list a loop read) have a true field `name`:
    count(handles, "isFree") in a CPlugCrystal element pool."""
    return sum(1 for item in items if item[name])


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "count": _count,
    "len": len, "min": min, "max": max, "abs": abs,
    "int8": _wrap(8, True), "int16": _wrap(16, True), "int32": _wrap(32, True),
    "uint8": _wrap(8, False), "uint16": _wrap(16, False), "uint32": _wrap(32, False),
    "f32le": _f32le, "u32le": _u32le, "ascii": _ascii,
}

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_UNOPS: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}

_CAST = re.compile(r"\(\s*(u?int(?:8|16|32))\s*\)\s*([A-Za-z_]\w*)")


def to_python(text: str) -> str:
    """Wiki spelling -> Python spelling: && || ! (int16)x true false."""
    s = _CAST.sub(r"\1(\2)", text)
    s = s.replace("&&", " and ").replace("||", " or ")
    s = re.sub(r"!(?!=)", " not ", s)
    s = re.sub(r"\btrue\b", "True", s)
    s = re.sub(r"\bfalse\b", "False", s)
    return s.strip()


def names_in(tree: ast.AST) -> set[str]:
    """Field names an expression refers to (function names excluded)."""
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in funcs}


def parse(text: str) -> ast.Expression:
    src = to_python(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # e.g. "invalid hexadecimal literal": an error follows
            tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise ExprError(f"bad expression {text!r}: {e.msg}") from None
    return tree


def compile_expr(text: str) -> tuple[Compiled, set[str]]:
    """Compile an expression; returns (function(scope, reader) -> value, names used)."""
    tree = parse(text)
    return _compile(tree.body, text), names_in(tree)


def _compile(node: ast.AST, text: str) -> Compiled:
    c = lambda n: _compile(n, text)  # noqa: E731
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, str, bytes, bool, type(None))):
            raise ExprError(f"constant {node.value!r} not allowed in {text!r}")
        value = node.value
        return lambda f, r: value
    if isinstance(node, ast.Name):
        name = node.id
        if name in ("True", "False", "None"):
            value = {"True": True, "False": False, "None": None}[name]
            return lambda f, r: value
        return lambda f, r: f.lookup(name, r)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        op, a, b = _BINOPS[type(node.op)], c(node.left), c(node.right)
        if isinstance(node.op, ast.LShift):
            def shift(f, r):
                x, y = a(f, r), b(f, r)
                if not 0 <= y <= 64:
                    raise ValueError(f"shift by {y}")
                return x << y
            return shift
        if isinstance(node.op, ast.Mult):
            # no unbounded values from hostile counts: sequences are never multiplied
            def mul(f, r):
                x, y = a(f, r), b(f, r)
                if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
                    raise TypeError("only numbers can be multiplied")
                return x * y
            return mul
        return lambda f, r: op(a(f, r), b(f, r))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
        unop, operand = _UNOPS[type(node.op)], c(node.operand)
        return lambda f, r: unop(operand(f, r))
    if isinstance(node, ast.BoolOp):
        parts = [c(v) for v in node.values]
        if isinstance(node.op, ast.And):
            def all_(f, r):
                v = True
                for p in parts:
                    v = p(f, r)
                    if not v:
                        return v
                return v
            return all_

        def any_(f, r):
            v = False
            for p in parts:
                v = p(f, r)
                if v:
                    return v
            return v
        return any_
    if isinstance(node, ast.Compare):
        if not all(type(o) in _CMPOPS for o in node.ops):
            raise ExprError(f"comparison not allowed in {text!r}")
        first = c(node.left)
        rest = [(_CMPOPS[type(o)], c(v)) for o, v in zip(node.ops, node.comparators)]
        if len(rest) == 1:          # the common case (`version >= 3`): one call less
            op, right = rest[0]
            if isinstance(node.left, ast.Name) and isinstance(node.comparators[0], ast.Constant) \
                    and node.left.id not in ("True", "False", "None"):
                name, const = node.left.id, node.comparators[0].value
                return lambda f, r: op(f.lookup(name, r), const)
            return lambda f, r: op(first(f, r), right(f, r))

        def compare(f, r):
            left = first(f, r)
            for op, right_fn in rest:
                right = right_fn(f, r)
                if not op(left, right):
                    return False
                left = right
            return True
        return compare
    if isinstance(node, ast.IfExp):
        t, a, b = c(node.test), c(node.body), c(node.orelse)
        return lambda f, r: a(f, r) if t(f, r) else b(f, r)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise ExprError(f"only the functions {', '.join(sorted(FUNCTIONS))} may be called in {text!r}")
        fn = FUNCTIONS[node.func.id]
        args = [c(a) for a in node.args]
        return lambda f, r: fn(*[a(f, r) for a in args])
    if isinstance(node, ast.Tuple):
        items = [c(e) for e in node.elts]
        return lambda f, r: tuple(i(f, r) for i in items)
    if isinstance(node, ast.Attribute):
        base, attr = c(node.value), node.attr
        return lambda f, r: base(f, r)[attr]
    if isinstance(node, ast.Subscript):
        base = c(node.value)
        sl = node.slice
        if isinstance(sl, ast.Slice):
            lo = c(sl.lower) if sl.lower else (lambda f, r: None)
            hi = c(sl.upper) if sl.upper else (lambda f, r: None)
            if sl.step is not None:
                raise ExprError(f"slice steps not allowed in {text!r}")
            return lambda f, r: base(f, r)[lo(f, r):hi(f, r)]
        idx = c(sl)
        return lambda f, r: base(f, r)[idx(f, r)]
    raise ExprError(f"{type(node).__name__} not allowed in expression {text!r}")


def located_failure(text: str, where: str) -> Callable[[Exception, Any], GbxError]:
    """Turns a Python error from evaluating `text` into a GbxError located at the
    reader's position."""
    def fail(e: Exception, r: Any) -> GbxError:
        if isinstance(e, KeyError):
            msg = f"{where}: {e.args[0]!r} was not read (condition not met?) in {text!r}"
        else:
            msg = f"{where}: cannot evaluate {text!r}: {e}"
        return GbxError(msg, offset=r.offset_base + r.tell())
    return fail
