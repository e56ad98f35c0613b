"""Which chunk declarations a parsed file proves.

A declaration is *met* by a file when one of the file's chunks was decoded with it,
and *proven* there when the decode is known to have read exactly the chunk's bytes:
- a header chunk or a skippable body chunk: the declaration consumed exactly the
  size the file states (the walker and the header decoder check this);
- a non-skippable body chunk: nothing states its size, so the node's end marker must
  follow the node's last chunk (node.complete), which only happens when every chunk
  of the node, this one included, ended where the next began.

A declaration reached only through `read chunk` from other declarations has no
chunk record of its own; it is met (proven) with the declarations that read it.
`ChunkProofs` adds files up and sorts the declarations for `gbxfs coverage --chunks`
and the corpus consistency test.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import classdb
from .decl import ChunkDecl, Registry, registry
from .decl import ast as dsl

Key = tuple[int, bool]          # (chunk id, header declaration?)


def decl_key(decl: ChunkDecl) -> Key:
    return (decl.chunk_id, decl.header)


def file_proofs(g: Any, decls: Registry | None = None) -> Iterator[tuple[ChunkDecl, bool]]:
    """(declaration, proven) for every chunk of a parsed file (gbx.Gbx) that was
    decoded with a declaration."""
    reg = decls if decls is not None else registry()
    for c in g.header.chunks:
        decl = reg.get(c.chunk_id, header=True)
        if decl is not None:
            yield decl, c.values is not None and c.error is None
    for node in g.body.nodes:
        for c in node.chunks:
            decl = reg.get(c.chunk_id)
            if decl is not None:
                ok = c.values is not None and c.error is None and (c.skippable or node.complete)
                yield decl, ok


def _read_targets(stmts: list[dsl.Stmt]) -> Iterator[int]:
    for s in stmts:
        if isinstance(s, dsl.ReadChunk):
            yield s.chunk_id
        for attr in ("body", "orelse"):
            sub = getattr(s, attr, None)
            if isinstance(sub, list):
                yield from _read_targets(sub)
        if isinstance(s, dsl.If):
            for _, body, _ in s.branches:
                yield from _read_targets(body)


@dataclass
class DeclState:
    decl: ChunkDecl
    met: list[str] = field(default_factory=list)        # files where it was used
    proven: list[str] = field(default_factory=list)     # files that prove it
    failed: list[tuple[str, str]] = field(default_factory=list)   # (file, why) of unproven uses
    via: str | None = None      # "read chunk" caller when it is only met through another one

    @property
    def class_id(self) -> int:
        return self.decl.chunk_id & classdb.CLASS_MASK


@dataclass
class ChunkProofs:
    """Per-declaration tallies over many files."""
    decls: Registry = field(default_factory=registry)
    states: dict[Key, DeclState] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key, decl in self.decls.chunks.items():
            self.states[key] = DeclState(decl)

    def add(self, g: Any, name: str) -> None:
        """Count one parsed file (gbx.Gbx) under `name`."""
        seen: dict[Key, bool] = {}
        for decl, ok in file_proofs(g, self.decls):
            key = decl_key(decl)
            seen[key] = seen.get(key, True) and ok
        for key, ok in seen.items():
            st = self.states[key]
            st.met.append(name)
            if ok:
                st.proven.append(name)
            else:
                st.failed.append((name, self._why(g, key)))

    def _why(self, g: Any, key: Key) -> str:
        for c in g.header.chunks if key[1] else ():
            if c.chunk_id == key[0] and c.error is not None:
                return str(c.error)
        for node in g.body.nodes:
            for c in node.chunks:
                if c.chunk_id == key[0] and self.decls.get(c.chunk_id) is self.states[key].decl:
                    if c.error is not None:
                        return str(c.error)
                    if not node.complete:
                        return f"node {node.class_name or hex(node.class_id)} has no end marker: " \
                               f"{node.error or g.body.error}"
        return "not proven"

    def finish(self) -> ChunkProofs:
        """Give declarations used only through `read chunk` their callers' status
        (repeated, so that chains of `read chunk` are followed)."""
        direct = {k for k, st in self.states.items() if st.met}
        changed = True
        while changed:
            changed = False
            for st in self.states.values():
                if not st.met:
                    continue
                for target in _read_targets(st.decl.definition.body):
                    tkey = next((k for k in ((target, False), (target, True)) if k in self.states), None)
                    if tkey is None or tkey in direct:
                        continue        # met on its own: its own records decide
                    t = self.states[tkey]
                    met, proven = set(t.met) | set(st.met), set(t.proven) | set(st.proven)
                    if met != set(t.met) or proven != set(t.proven):
                        t.met, t.proven, t.via = sorted(met), sorted(proven), f"{st.decl.chunk_id:08X}"
                        changed = True
        return self

    # -- summaries ---------------------------------------------------------------------------
    def by_class(self) -> dict[int, list[DeclState]]:
        out: dict[int, list[DeclState]] = {}
        for key in sorted(self.states):
            st = self.states[key]
            out.setdefault(st.class_id, []).append(st)
        return out

    def declared_ids(self) -> int:
        """Distinct chunk ids with a declaration (header and body of one id count once)."""
        return len({cid for cid, _ in self.states})

    def unverified(self) -> list[DeclState]:
        return [st for st in self.states.values() if st.decl.unverified]

    def problems(self) -> dict[str, list[DeclState]]:
        """The three ways a declaration's flag disagrees with the corpus."""
        sts = [self.states[k] for k in sorted(self.states)]
        return {
            "met but never proven": [s for s in sts if s.met and not s.proven],
            "marked unverified but proven (drop the flag)": [s for s in sts if s.decl.unverified and s.proven],
            "not marked unverified but met by no file": [s for s in sts if not s.decl.unverified and not s.met],
        }
