"""Declaration expressions as Python source, for the generated decoders (codegen.py).

The closures of expr.py stay the reference: this module writes source that computes
the same values with the same exceptions, and declines (returns None) for anything
it does not translate, in which case codegen calls the closure instead. The two
guarded operations (`*` only on numbers, `<<` only by 0..64) call expr.py's rules
through helpers, so a hostile value fails the same way on both paths.

Names are written by the caller (codegen's scope analysis): inline reads of the scopes'
dicts where that gives exactly what `Frame.lookup` would return, else `Frame.lookup`.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..expr import FUNCTIONS, ExprError, parse

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.BitAnd: "&",
           ast.BitOr: "|", ast.BitXor: "^", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.In: "in", ast.NotIn: "not in"}
_UNOPS = {ast.Not: "not ", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}


def mul(x: Any, y: Any) -> Any:
    # no unbounded values from hostile counts: sequences are never multiplied (as expr.py)
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        raise TypeError("only numbers can be multiplied")
    return x * y


def shl(x: Any, y: Any) -> Any:
    if not 0 <= y <= 64:
        raise ValueError(f"shift by {y}")
    return x << y


HELPERS: dict[str, Any] = {"_mul": mul, "_shl": shl, **{f"_fn_{k}": v for k, v in FUNCTIONS.items()}}


class ExprSource:
    """Translates one expression; `name` writes a name's lookup, `const` stores values
    the source cannot spell (returns the global name to use)."""

    def __init__(self, name: Callable[[str], str], const: Callable[[Any], str]):
        self.name, self.const = name, const

    def source(self, text: str) -> str | None:
        try:
            tree = parse(text)
            return self.node(tree.body)
        except (ExprError, _Decline):
            return None

    def node(self, node: ast.AST) -> str:
        c = self.node
        if isinstance(node, ast.Constant):
            v = node.value
            if v is None or isinstance(v, bool) or type(v) is int:
                return repr(v)
            if isinstance(v, (float, str, bytes)):
                return self.const(v)
            raise _Decline
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                return node.id
            return self.name(node.id)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Mult):
                return f"_mul({c(node.left)}, {c(node.right)})"
            if isinstance(node.op, ast.LShift):
                return f"_shl({c(node.left)}, {c(node.right)})"
            if type(node.op) in _BINOPS:
                return f"({c(node.left)} {_BINOPS[type(node.op)]} {c(node.right)})"
            raise _Decline
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
            return f"({_UNOPS[type(node.op)]}{c(node.operand)})"
        if isinstance(node, ast.BoolOp):
            op = " and " if isinstance(node.op, ast.And) else " or "
            return "(" + op.join(c(v) for v in node.values) + ")"
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _CMPOPS:
                raise _Decline      # chains: the closure's result type differs in corner cases
            return f"({c(node.left)} {_CMPOPS[type(node.ops[0])]} {c(node.comparators[0])})"
        if isinstance(node, ast.IfExp):
            return f"({c(node.body)} if {c(node.test)} else {c(node.orelse)})"
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords \
                    or any(isinstance(a, ast.Starred) for a in node.args):
                raise _Decline
            return f"_fn_{node.func.id}(" + ", ".join(c(a) for a in node.args) + ")"
        if isinstance(node, ast.Tuple):
            return "(" + "".join(c(e) + ", " for e in node.elts) + ")"
        if isinstance(node, ast.Attribute):
            return f"{c(node.value)}[{node.attr!r}]"
        if isinstance(node, ast.Subscript):
            sl = node.slice
            if isinstance(sl, ast.Slice):
                if sl.step is not None:
                    raise _Decline
                lo = c(sl.lower) if sl.lower else "None"
                hi = c(sl.upper) if sl.upper else "None"
                return f"{c(node.value)}[{lo}:{hi}]"
            return f"{c(node.value)}[{c(sl)}]"
        raise _Decline


class _Decline(Exception):
    """Not translated: the caller uses the closure."""
