"""Walking decoded chunk values (dicts, lists, tuples of numbers, strings,
bytes and node references), for finding node references and costing a
parse. Iterative, with exact type tests first: maps hold hundreds of
thousands of values."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def walk_values(value: Any) -> Iterator[Any]:
    """Every value inside `value` (and itself) except plain numbers and None:
    containers before their contents, in no particular order."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is int or t is float or t is bool or v is None:   # most values: nothing inside
            continue
        yield v
        if t is dict:
            stack.extend(v.values())
        elif t is list or t is tuple:
            stack.extend(v)
        elif isinstance(v, dict):            # subclasses: rare, take the slow path
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
