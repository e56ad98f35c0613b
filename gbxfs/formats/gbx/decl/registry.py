"""Loading the declarations: `Registry` (chunk id -> linked, compiled ChunkDecl) from
the texts of chunks/*.chunks, with every bad declaration collected (not raised), and
`registry()`, the shipped declarations loaded once.

    from gbxfs.formats.gbx.decl import registry
    decl = registry().get(0x03043002, header=True)
    values = decl.decode(reader)        # reads from the reader's current position

Declarations are keyed by (chunk id, header?) - ids as current ids (remapped).
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .. import classdb
from . import stored
from .ast import ChunkDef, DeclarationError, StructDef
from .codegen import CodeGen
from .compile import Compiler
from .frame import Frame
from .link import Linker
from .parser import parse_file

log = logging.getLogger(__name__)


@dataclass
class ChunkDecl:
    """A linked, compiled chunk declaration."""
    chunk_id: int
    name: str | None
    flags: set[str]
    xml: str | None
    file: str
    line: int
    definition: ChunkDef
    # the linked statements, from which `codegen` writes the decoder on first use
    stmts: list | None = field(default=None, repr=False, compare=False)
    codegen: Any = field(default=None, repr=False, compare=False)

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

    def run(self, r: Any, f: Frame) -> None:
        """Read the chunk's fields into frame `f`, a chunk's frame that holds nothing
        yet. The first call has the decoder written (codegen.py) and keeps it as this
        instance's `run`, which from then on is called instead of this method.
        Nothing per declaration until then (no closures, partials or bound methods):
        every full garbage collection walks what the registry holds."""
        fn = self.codegen.chunk_function(self.stmts, self.file, True)
        self.run = fn       # type: ignore[method-assign]  # the written decoder, from now on
        fn(r, f)

    def run_into(self, r: Any, f: Frame) -> None:
        """`run` into a frame that may hold values already (`read chunk`: another
        chunk's frame); written on first use like `run`."""
        fn = self.codegen.chunk_function(self.stmts, self.file, False)
        self.run_into = fn  # type: ignore[method-assign]  # the written decoder, from now on
        fn(r, f)

    def decode(self, r: Any, chunk_id: int | None = None, node: Any = None) -> dict[str, Any]:
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
    structs: dict[str, StructDef] = field(default_factory=dict)
    errors: list[DeclarationError] = field(default_factory=list)
    # the node walker's per-chunk-id answers (nodes._chunk_info), filled as ids are met
    walk_cache: dict[int, tuple] = field(default_factory=dict, repr=False, compare=False)
    # and its answers per class id as stored (nodes.NodeWalker._class_info)
    class_cache: dict[int, tuple] = field(default_factory=dict, repr=False, compare=False)

    def get(self, chunk_id: int, header: bool = False) -> ChunkDecl | None:
        """Declaration for a (remapped) chunk id; the other kind is the fallback
        (most chunks are declared once and may appear in header or body)."""
        return self.chunks.get((chunk_id, header)) or self.chunks.get((chunk_id, not header))

    def __len__(self) -> int:
        return len(self.chunks)

    def chunk_name(self, chunk_id: int, header: bool = False) -> str | None:
        """Short name of a chunk: its declaration's, else the class tables' (or None)."""
        decl = self.get(chunk_id, header)
        return (decl.name if decl and decl.name else None) or classdb.chunk_name(chunk_id, header)

    @classmethod
    def from_texts(cls, texts: Iterable[tuple[str, str]]) -> Registry:
        """Build from (file name, text) pairs. Bad declarations are collected in
        `errors` (and left out); everything else is usable."""
        return cls.from_linked(linked(texts))

    @classmethod
    def from_linked(cls, parts: Linked) -> Registry:
        """The registry of declarations parsed and linked by `linked` (possibly in
        another process: see stored.py)."""
        reg = cls(structs=parts.structs, errors=list(parts.errors))
        linker = Linker(reg.structs, parts.defs)
        linker._struct_bodies.update(parts.struct_bodies)
        codegen = CodeGen(Compiler(linker, reg.chunks))
        for key, (d, stmts) in parts.chunks.items():
            # the closures serve text files and pull sources; binary in-memory
            # data runs a generated function; both are made on first use
            reg.chunks[key] = ChunkDecl(d.chunk_id, d.name, d.flags, d.xml, d.file, d.line, d,
                                        stmts=stmts, codegen=codegen)
        for e in reg.errors:
            log.warning("chunk declaration skipped: %s", e)
        return reg


@dataclass
class Linked:
    """Declarations parsed and linked, before anything is compiled: plain data,
    kept between processes by stored.py."""
    structs: dict[str, StructDef]
    defs: dict[tuple[int, bool], ChunkDef]
    chunks: dict[tuple[int, bool], tuple[ChunkDef, list]]     # definition, linked statements
    struct_bodies: dict[str, list]
    errors: list[DeclarationError]


def linked(texts: Iterable[tuple[str, str]]) -> Linked:
    """Parse and link (file name, text) pairs; bad declarations are collected."""
    structs: dict[str, StructDef] = {}
    errors: list[DeclarationError] = []
    defs: list[ChunkDef] = []
    for name, text in texts:
        try:
            chunks, found = parse_file(text, name)
        except DeclarationError as e:
            errors.append(e)
            continue
        for s in found:
            if s.name in structs:
                other = structs[s.name]
                errors.append(DeclarationError(s.file, s.line, f"struct {s.name} already defined at "
                                                              f"{other.file}:{other.line}"))
                continue
            structs[s.name] = s
        defs += chunks
    seen: dict[tuple[int, bool], ChunkDef] = {}
    for d in defs:
        key = (d.chunk_id, d.header)
        if key in seen:
            o = seen[key]
            errors.append(DeclarationError(d.file, d.line, f"chunk {d.chunk_id:08X} already declared at "
                                                          f"{o.file}:{o.line}"))
            continue
        seen[key] = d
    linker = Linker(structs, seen)
    out: dict[tuple[int, bool], tuple[ChunkDef, list]] = {}
    for key, d in seen.items():
        try:
            out[key] = (d, linker.chunk(d))
        except DeclarationError as e:
            errors.append(e)
    return Linked(structs, seen, out, dict(linker._struct_bodies), errors)


def declaration_texts() -> list[tuple[str, str]]:
    """(name, text) of every shipped declaration file, chunks/*.chunks, by name."""
    folder = resources.files("gbxfs.formats.gbx").joinpath("chunks")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".chunks"):
            out.append((f"chunks/{entry.name}", entry.read_text(encoding="utf-8")))
    return out


@functools.cache
def registry() -> Registry:
    """All declarations shipped in gbxfs/formats/gbx/chunks (loaded once per
    process; parsed and linked once per version: stored.py)."""
    texts = declaration_texts()
    return Registry.from_linked(stored.load_or_make(texts, lambda: linked(texts)))
