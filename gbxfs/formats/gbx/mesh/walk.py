"""Nodes reachable from a body's node list through node references in decoded
values, in reading order (iterative: bodies nest deeply)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import Node, NodeRef


def refs_in(value: Any) -> Iterator[NodeRef]:
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is NodeRef:
            yield v
        elif t is dict:
            stack.extend(reversed(list(v.values())))
        elif t is list or t is tuple:
            if v and type(v[0]) in (int, float):
                continue            # number arrays: nothing inside
            stack.extend(reversed(v))


def reachable(nodes: list[Node]) -> list[Node]:
    """Every node of the list and every node a reference reaches, each once, depth first."""
    seen: set[int] = set()
    out: list[Node] = []
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        children = [r.node for c in n.chunks for r in refs_in(c.values) if r.node is not None]
        stack.extend(reversed(children))
    return out
