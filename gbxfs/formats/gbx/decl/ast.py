"""The declaration language's syntax tree (what decl.parser makes of a .chunks
file) and its one error type. No behaviour: decl.link checks, decl.compile runs."""
from __future__ import annotations

from dataclasses import dataclass, field


class DeclarationError(ValueError):
    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message


# ---- AST -------------------------------------------------------------------------------
@dataclass
class Stmt:
    line: int


@dataclass
class Field(Stmt):
    type: str                       # canonical builtin name or a struct name
    name: str | None                # None: auto name (_u1, _u2, ...)
    count: str | None = None        # array count expression
    enum: dict[int, str] | None = None
    subnames: tuple[str, ...] | None = None   # meta (a, b, c)
    auto: bool = False


@dataclass
class Marker(Stmt):
    data: bytes


@dataclass
class If(Stmt):
    branches: list[tuple[str, list[Stmt], int]]   # (condition, body, line)
    orelse: list[Stmt] | None = None


@dataclass
class Loop(Stmt):
    var: str
    count: str | None               # None: implicit ("for each key:" after numKeys)
    name: str
    body: list[Stmt] = field(default_factory=list)


@dataclass
class ReadChunk(Stmt):
    chunk_id: int


@dataclass
class Encapsulated(Stmt):
    body: list[Stmt]


@dataclass
class Feed(Stmt):
    expr: str


@dataclass
class Let(Stmt):
    name: str
    expr: str


@dataclass
class Assert(Stmt):
    expr: str


@dataclass
class Continue(Stmt):
    uncounted: bool


@dataclass
class While(Stmt):
    cond: str                       # checked before each item (e.g. on next_u32, a peek)
    name: str
    body: list[Stmt] = field(default_factory=list)


@dataclass
class InlineNode(Stmt):
    class_id: int                   # the node's class, known from the layout (not stored)
    name: str


@dataclass
class Inflate(Stmt):
    data: str                       # expression giving the compressed bytes
    size: str                       # expression giving the uncompressed size
    body: list[Stmt] = field(default_factory=list)


@dataclass
class Sized(Stmt):
    size: str                       # expression giving the block's exact byte size
    body: list[Stmt] = field(default_factory=list)


@dataclass
class ChunkDef:
    chunk_id: int
    name: str | None
    flags: set[str]
    xml: str | None
    body: list[Stmt]
    file: str
    line: int
    comment: str | None = None

    @property
    def header(self) -> bool:
        return "header" in self.flags


@dataclass
class StructDef:
    name: str
    body: list[Stmt]
    file: str
    line: int
