"""Scope analysis for the generated decoders (codegen.py): which names a scope's frame
may hold, and how often at most, so that a name can be read or written straight
in the frame's dict where that gives exactly what `Frame.set`/`Frame.lookup` would.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ast as dsl
from .frame import SPECIAL_NAMES


class _Unknown(Exception):
    pass


def _add(into: dict[Any, int], other: dict[Any, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _counts(stmts: list[dsl.Stmt]) -> dict[Any, int]:
    out: dict[Any, int] = {}
    for s in stmts:
        if isinstance(s, dsl.Field):
            if s.type == "meta" and s.name is None and s.subnames:
                _add(out, {k: 1 for k in s.subnames})
            else:
                _add(out, {s.name: 1})
        elif isinstance(s, (dsl.Let, dsl.Loop, dsl.While, dsl.InlineNode)):
            _add(out, {s.name: 1})
        elif isinstance(s, dsl.If):          # one branch runs: the most any branch sets
            merged: dict[Any, int] = {}
            for body in [b for _, b, _ in s.branches] + [s.orelse or []]:
                for k, v in _counts(body).items():
                    merged[k] = max(merged.get(k, 0), v)
            _add(out, merged)
        elif isinstance(s, (dsl.Encapsulated, dsl.Inflate, dsl.Sized)):
            _add(out, _counts(s.body))
        elif isinstance(s, dsl.ReadChunk):   # sets the target's names in this frame
            raise _Unknown
    return out


def counts(stmts: list[dsl.Stmt]) -> dict[Any, int] | None:
    """How often each name may be set, at most, by one run of `stmts` in one frame
    (None: not known, e.g. `read chunk`)."""
    try:
        return _counts(stmts)
    except _Unknown:
        return None


def name_source(scopes: list[dict[Any, int] | None], sure: list[set[Any]], n: str, e: int, outer: dict[str, str],
                frame: Callable[[int], str], no_latest: Callable[[int], str], struct: bool = True) -> str:
    """Source for name n at depth e, equal to Frame.lookup's answer: each scope
    that may hold n is checked inline; scopes that never set it are passed over;
    a scope where it may repeat (or unknown ones) ends in Frame.lookup.
    A name that no scope of a struct's function sets comes from the caller's frames,
    which nothing changes while the function runs: it is looked up once per call
    and kept in a local (named in `outer`, which the caller initialises to _UNSET).
    In a chunk's function (struct False) depth 0 is the chunk's own frame, which
    has no parent: a name no analysed scope holds is Frame.lookup's special names or
    its KeyError.
    `sure[k]`: the names certainly set in depth k's scope by now (read without a
    check). `frame(k)` is the source of depth k's Frame, `no_latest(k)` of "it has no
    repeated names"."""
    if n in SPECIAL_NAMES:
        return f"{frame(e)}.lookup({n!r}, r)"
    parts: list[str] = []
    tail = None
    for k in range(e, -1, -1):
        m = scopes[k] if k < len(scopes) else None
        if m is None or m.get(n, 0) > 1:
            tail = f"(v{k}[{n!r}] if {n!r} in v{k} and {no_latest(k)} else {frame(k)}.lookup({n!r}, r))"
            break
        if m.get(n, 0) == 1:
            if n in sure[k]:        # certainly set there by now: no check, no further scope
                tail = f"v{k}[{n!r}]"
                break
            parts.append(f"v{k}[{n!r}] if {n!r} in v{k} else ")
    if tail is None and not struct:     # a chunk's fresh frame: depth 0 was analysed
        tail = f"{frame(0)}.lookup({n!r}, r)"
    if tail is None:        # in a struct: from the caller's frames
        var = outer.setdefault(n, f"o{len(outer)}")
        tail = f"({var} if {var} is not _UNSET else ({var} := f0.parent.lookup({n!r}, r)))"
    return "(" + "".join(parts) + tail + ")" if parts else tail
