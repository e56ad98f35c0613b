"""Parser for chunk declaration files (`chunks/*.chunks`); see chunks/README.md.

Turns the text into a small AST (dataclasses below). No decoding happens here: the
engine links the declarations (resolves struct types, `read chunk` targets, implicit
loop counts, checks every name an expression uses) and compiles them into closures.
Every problem is a DeclarationError naming the file and line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import expr as expr_mod

# builtin types: name -> canonical name (aliases accepted in declarations)
TYPE_ALIASES = {
    "byte": "uint8", "uint8": "uint8", "u8": "uint8", "char": "uint8",
    "int8": "int8", "sbyte": "int8",
    "uint16": "uint16", "u16": "uint16", "word": "uint16",
    "int16": "int16", "short": "int16",
    "uint32": "uint32", "u32": "uint32", "uint": "uint32", "nat32": "uint32",
    "int32": "int32", "i32": "int32", "int": "int32",
    "uint64": "uint64", "u64": "uint64", "int64": "int64",
    "uint128": "uint128", "u128": "uint128",
    "float": "float", "float32": "float", "f32": "float", "real": "float",
    "bool": "bool", "string": "string",
    "lookbackstring": "id", "id": "id", "lookback": "id",
    "meta": "meta", "fileref": "fileref", "packdesc": "fileref",
    "noderef": "noderef", "node": "node",
    "vec2": "vec2", "vec3": "vec3", "vec4": "vec4", "quat": "vec4",
    "color": "color", "int2": "int2", "int3": "int3",
    "iso4": "iso4", "mat3": "mat3", "box": "box",
    # ManiaPlanet 4.1 script values (seeds/000, 03043044): a length in 1 byte (< 128) or
    # 7 + 16 bits (first byte's top bit set); a string prefixed with such a length
    "smalllen": "smalllen", "smallstring": "smallstring",
}

# Aliases that also make good field names: right after a type they are the field's
# name (`vec3 color`, `noderef node`); elsewhere they are types. The seed's own type
# words (uint32, float, vec3, ...) are always types (`uint32 uint32 uint32`).
NAME_CAPABLE = {"color", "id", "node", "int", "uint", "char", "word", "short", "real", "quat", "box",
                "iso4", "mat3", "lookback", "packdesc", "nat32", "sbyte"}

# `unverified`: the layout comes from a public source tested on real files, but no
# corpus file exercises it yet (gbxfs coverage counts these apart).
FLAGS = {"skippable", "header", "encapsulated", "unverified"}
SPECIAL_NAMES = {"chunk_id", "node_class", "node_raw_class", "node", "remaining", "next_u32", "True", "False", "None"}

_CHUNK_LINE = re.compile(r"^([0-9A-Fa-f]{7,8})\b(.*)$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"-?(0[xX][0-9A-Fa-f]+|\d+(\.\d+)?)")
_ENUM_ITEM = re.compile(r"^\s*(-?\d+|0[xX][0-9A-Fa-f]+)\s*:\s*(.+?)\s*$")


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


# ---- lines -------------------------------------------------------------------------------
@dataclass
class _Line:
    no: int
    indent: int
    text: str


def _strip_comment(s: str) -> str:
    out = []
    quote = False
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == '"':
            quote = not quote
        elif not quote and (ch == "#" or s.startswith("//", i)):
            break
        out.append(ch)
        i += 1
    return "".join(out).rstrip()


def _depth(s: str) -> int:
    d = 0
    quote = False
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote:
            if ch in "([":
                d += 1
            elif ch in ")]":
                d -= 1
    return d


def logical_lines(text: str, file: str) -> list[_Line]:
    """Non-empty lines without comments; lines with open parentheses are joined."""
    out: list[_Line] = []
    pending: _Line | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        raw = raw.expandtabs(4)
        s = _strip_comment(raw)
        if pending is not None:
            pending.text += " " + s.strip()
            if _depth(pending.text) <= 0:
                out.append(pending)
                pending = None
            continue
        if not s.strip():
            continue
        line = _Line(no, len(s) - len(s.lstrip(" ")), s.strip())
        if _depth(line.text) > 0:
            pending = line
        else:
            out.append(line)
    if pending is not None:
        raise DeclarationError(file, pending.no, "unclosed parenthesis or bracket")
    return out


# ---- items within a line -------------------------------------------------------------------
def _close(s: str, i: int, file: str, line: int) -> int:
    """Index of the bracket closing the one at s[i]."""
    pairs = {"(": ")", "[": "]"}
    stack = [pairs[s[i]]]
    j = i + 1
    while j < len(s):
        ch = s[j]
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]":
            if ch != stack.pop():
                raise DeclarationError(file, line, f"mismatched {ch!r} in {s!r}")
            if not stack:
                return j
        j += 1
    raise DeclarationError(file, line, f"unclosed bracket in {s!r}")


def scan_items(s: str, file: str, line: int) -> list[tuple[str, str]]:
    """Split a field line into ('w', word) ('n', number) ('(', text) ('[', text) ('=', text)."""
    items = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isspace():
            i += 1
        elif ch in "([":
            j = _close(s, i, file, line)
            items.append((ch, s[i + 1:j]))
            i = j + 1
        elif m := _IDENT.match(s, i):
            items.append(("w", m.group()))
            i = m.end()
        elif m := _NUMBER.match(s, i):
            items.append(("n", m.group()))
            i = m.end()
        elif ch == "=":
            k = i + 1
            while k < len(s) and s[k].isspace():
                k += 1
            m = _NUMBER.match(s, k)
            if not m:
                raise DeclarationError(file, line, f"'=' must be followed by a number in {s!r}")
            items.append(("=", m.group()))
            i = m.end()
        else:
            raise DeclarationError(file, line, f"unexpected {ch!r} in {s!r}")
    return items


def _split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_enum(comment: str) -> dict[int, str] | None:
    """`0: Race, 1: Platform` -> {0: 'Race', 1: 'Platform'}; None if not that shape."""
    parts = _split_top(comment)
    if len(parts) < 2 and not _ENUM_ITEM.match(comment):
        return None
    out = {}
    for p in parts:
        m = _ENUM_ITEM.match(p)
        if not m:
            return None
        out[int(m.group(1), 0)] = m.group(2)
    return out


def parse_fields(s: str, file: str, line: int) -> list[Field]:
    items = scan_items(s, file, line)
    fields: list[Field] = []
    i = 0
    while i < len(items):
        kind, word = items[i]
        if kind != "w":
            raise DeclarationError(file, line, f"expected a type, found {word!r} in {s!r}")
        ftype = TYPE_ALIASES.get(word, word)
        f = Field(line, ftype, None)
        i += 1
        if i < len(items) and items[i][0] == "[":
            f.count = items[i][1]
            i += 1
        if i < len(items) and items[i][0] == "w" and (items[i][1] not in TYPE_ALIASES
                                                       or items[i][1] in NAME_CAPABLE):
            f.name = items[i][1]
            i += 1
        elif i < len(items) and items[i][0] == "n":
            i += 1                      # `bool 0`, `uint32 0`: an unnamed field (value noted)
        if i < len(items) and items[i][0] == "[":
            if f.count is not None:
                raise DeclarationError(file, line, f"two array counts for one field in {s!r}")
            f.count = items[i][1]
            i += 1
        if i < len(items) and items[i][0] == "=":
            i += 1                      # `uint32 version = 10`: documented value, not checked
        while i < len(items) and items[i][0] == "(":
            comment = items[i][1]
            i += 1
            names = [p.strip() for p in comment.split(",")]
            if ftype == "meta" and len(names) == 3 and all(_IDENT.fullmatch(n) for n in names):
                f.subnames = tuple(names)
            elif (enum := parse_enum(comment)) is not None:
                f.enum = enum
        if f.count is not None and not f.count.strip():
            raise DeclarationError(file, line, f"empty array count in {s!r}")
        fields.append(f)
    return fields


# ---- statements -----------------------------------------------------------------------------
_FOR = re.compile(r"^for\s+each\s+([A-Za-z_]\w*)(?:\s+in\s+(.+?))?(?:\s+as\s+([A-Za-z_]\w*))?\s*:?$")
_LIST = re.compile(r"^list\s+([A-Za-z_]\w*)\s*\[(.+)\]\s*:?$")
_READ = re.compile(r"^(?:read\s+chunk\s+(?:0x)?([0-9A-Fa-f]{7,8})|ReadChunk\(\s*(?:0x)?([0-9A-Fa-f]{7,8})\s*\))(.*)$")
_INFLATE = re.compile(r"^inflate\s+(.+?)\s+size\s+(.+?)\s*:?$")


def _list_name(var: str) -> str:
    return var + "_list" if var.endswith("s") else var + "s"


class _Parser:
    def __init__(self, lines: list[_Line], file: str):
        self.lines = lines
        self.file = file

    def err(self, line: int, msg: str) -> DeclarationError:
        return DeclarationError(self.file, line, msg)

    def block(self, i: int, end: int, indent: int) -> list[Stmt]:
        """Statements of lines[i:end], all at `indent` (deeper lines belong to blocks)."""
        out: list[Stmt] = []
        while i < end:
            ln = self.lines[i]
            if ln.indent != indent:
                raise self.err(ln.no, f"unexpected indentation (expected {indent} spaces, found {ln.indent})")
            j = i + 1
            while j < end and self.lines[j].indent > indent:
                j += 1
            body_indent = self.lines[i + 1].indent if j > i + 1 else None
            stmt = self.statement(ln, i + 1, j, body_indent, out)
            if stmt is not None:
                out.extend(stmt if isinstance(stmt, list) else [stmt])
            i = j
        return out

    def sub(self, ln: _Line, i: int, j: int, body_indent: int | None, what: str) -> list[Stmt]:
        if body_indent is None:
            raise self.err(ln.no, f"{what} needs an indented block below it")
        return self.block(i, j, body_indent)

    def no_block(self, ln: _Line, body_indent: int | None) -> None:
        if body_indent is not None:
            raise self.err(ln.no + 1, "unexpected indented block (only if/elif/else, for each, list, "
                                      "encapsulated and inflate take one)")

    def statement(self, ln: _Line, i: int, j: int, body_indent: int | None, prev: list[Stmt]):
        t = ln.text
        hm = re.match(r"[A-Za-z_]\w*", t)
        head = hm.group() if hm else t[:1]
        if head in ("if", "elif"):
            cond = t[len(head):].strip()
            cond = cond[:-1] if cond.endswith(":") else cond
            self._check_expr(cond, ln.no)
            body = self.sub(ln, i, j, body_indent, head)
            if head == "if":
                return If(ln.no, [(cond, body, ln.no)])
            if not prev or not isinstance(prev[-1], If) or prev[-1].orelse is not None:
                raise self.err(ln.no, "elif without a matching if")
            prev[-1].branches.append((cond, body, ln.no))
            return None
        if head == "else":
            if t.rstrip(":").strip() != "else":
                raise self.err(ln.no, f"'else' takes no condition: {t!r}")
            if not prev or not isinstance(prev[-1], If) or prev[-1].orelse is not None:
                raise self.err(ln.no, "else without a matching if")
            prev[-1].orelse = self.sub(ln, i, j, body_indent, "else")
            return None
        if head == "for":
            m = _FOR.match(t)
            if not m:
                raise self.err(ln.no, f"expected 'for each <item> [in <count>] [as <name>]:', found {t!r}")
            var, count, name = m.groups()
            if count:
                self._check_expr(count, ln.no)
            return Loop(ln.no, var, count, name or _list_name(var),
                        self.sub(ln, i, j, body_indent, "for each"))
        if head == "list":
            m = _LIST.match(t)
            if not m:
                raise self.err(ln.no, f"expected 'list <name>[<count>]:', found {t!r}")
            self._check_expr(m.group(2), ln.no)
            return Loop(ln.no, m.group(1), m.group(2), m.group(1), self.sub(ln, i, j, body_indent, "list"))
        if head == "encapsulated":
            if t.rstrip(":").strip() != "encapsulated":
                raise self.err(ln.no, f"expected 'encapsulated:', found {t!r}")
            return Encapsulated(ln.no, self.sub(ln, i, j, body_indent, "encapsulated"))
        if head == "while":
            m = re.match(r"^while\s+(.+?)\s+as\s+([A-Za-z_]\w*)\s*:?$", t)
            if not m:
                raise self.err(ln.no, f"expected 'while <condition> as <name>:', found {t!r}")
            self._check_expr(m.group(1), ln.no)
            return While(ln.no, m.group(1), m.group(2), self.sub(ln, i, j, body_indent, "while"))
        if head == "inflate":
            m = _INFLATE.match(t)
            if not m:
                raise self.err(ln.no, f"expected 'inflate <bytes> size <uncompressed size>:', found {t!r}")
            self._check_expr(m.group(1), ln.no)
            self._check_expr(m.group(2), ln.no)
            return Inflate(ln.no, m.group(1), m.group(2), self.sub(ln, i, j, body_indent, "inflate"))
        self.no_block(ln, body_indent)
        if head in ("read", "ReadChunk"):
            m = _READ.match(t)
            if not m:
                raise self.err(ln.no, f"expected 'read chunk <8 hex digits>', found {t!r}")
            stmts: list[Stmt] = [ReadChunk(ln.no, int(m.group(1) or m.group(2), 16))]
            if m.group(3).strip():
                stmts += parse_fields(m.group(3).strip(), self.file, ln.no)
            return stmts
        if head == "inline":
            m = re.match(r"^inline\s+node\s+(?:0x)?([0-9A-Fa-f]{8})\s+([A-Za-z_]\w*)\s*(\(.*\))?$", t)
            if not m:
                raise self.err(ln.no, f"expected 'inline node <8 hex digits class id> <name>', found {t!r}")
            return InlineNode(ln.no, int(m.group(1), 16), m.group(2))
        if head == "feed":
            e = t[4:].strip()
            self._check_expr(e, ln.no)
            return Feed(ln.no, e)
        if head == "let":
            m = re.match(r"^let\s+([A-Za-z_]\w*)\s*=\s*(.+)$", t)
            if not m:
                raise self.err(ln.no, f"expected 'let <name> = <expression>', found {t!r}")
            self._check_expr(m.group(2), ln.no)
            return Let(ln.no, m.group(1), m.group(2))
        if head == "assert":
            e = t[6:].strip()
            self._check_expr(e, ln.no)
            return Assert(ln.no, e)
        if head == "continue":
            rest = t[8:].strip()
            if rest not in ("", "uncounted"):
                raise self.err(ln.no, f"expected 'continue' or 'continue uncounted', found {t!r}")
            return Continue(ln.no, rest == "uncounted")
        if t.startswith('"'):
            if not (t.endswith('"') and len(t) >= 2 and '"' not in t[1:-1]):
                raise self.err(ln.no, f"a marker line is one quoted string, found {t!r}")
            return Marker(ln.no, t[1:-1].encode("latin-1"))
        if head not in TYPE_ALIASES and not head[:1].isupper():
            raise self.err(ln.no, f"unknown statement or type {head!r} in {t!r}")
        return parse_fields(t, self.file, ln.no)

    def _check_expr(self, text: str, line: int) -> None:
        try:
            expr_mod.compile_expr(text)
        except expr_mod.ExprError as e:
            raise self.err(line, str(e)) from None


def _chunk_header(m: re.Match, ln: _Line, file: str) -> tuple[int, str | None, set[str], str | None, str | None]:
    chunk_id = int(m.group(1), 16)
    rest = m.group(2).strip().rstrip(":")
    name = None
    flags: set[str] = set()
    xml = None
    comment = None
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch.isspace():
            i += 1
        elif ch == '"':
            j = rest.find('"', i + 1)
            if j < 0:
                raise DeclarationError(file, ln.no, "unclosed chunk name quote")
            name = rest[i + 1:j]
            i = j + 1
        elif ch == "(":
            j = _close(rest, i, file, ln.no)
            words = [w for w in re.split(r"[\s,]+", rest[i + 1:j]) if w]
            if words and all(w in FLAGS or w.startswith("xml=") for w in words):
                for w in words:
                    if w.startswith("xml="):
                        xml = w[4:]
                    else:
                        flags.add(w)
            else:
                comment = rest[i + 1:j]
            i = j + 1
        else:
            m2 = re.match(r"[^\s(\"]+", rest[i:])
            w = m2.group()
            if w.startswith("xml="):
                xml = w[4:]
            elif w in FLAGS:
                flags.add(w)
            else:
                raise DeclarationError(file, ln.no, f"unknown chunk flag {w!r} (known: {', '.join(sorted(FLAGS))}, "
                                                    "xml=<field>, \"name\", (comment))")
            i += len(w)
    return chunk_id, name, flags, xml, comment


def parse_file(text: str, file: str) -> tuple[list[ChunkDef], list[StructDef]]:
    """Parse one .chunks file into chunk and struct definitions (not yet linked)."""
    lines = logical_lines(text, file)
    parser = _Parser(lines, file)
    chunks: list[ChunkDef] = []
    structs: list[StructDef] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.indent != 0:
            raise DeclarationError(file, ln.no, "indented line outside a chunk or struct")
        j = i + 1
        while j < len(lines) and not _is_top(lines[j]):
            j += 1
        if m := _CHUNK_LINE.match(ln.text):
            cid, name, flags, xml, comment = _chunk_header(m, ln, file)
            body = parser.block(i + 1, j, lines[i + 1].indent) if j > i + 1 else []
            chunks.append(ChunkDef(cid, name, flags, xml, body, file, ln.no, comment))
        elif ln.text.startswith("struct "):
            sm = re.match(r"^struct\s+([A-Za-z_]\w*)\s*:?$", ln.text)
            if not sm:
                raise DeclarationError(file, ln.no, f"expected 'struct <Name>:', found {ln.text!r}")
            if j == i + 1:
                raise DeclarationError(file, ln.no, f"struct {sm.group(1)} has no fields")
            structs.append(StructDef(sm.group(1), parser.block(i + 1, j, lines[i + 1].indent), file, ln.no))
        elif ln.text.startswith("class "):
            if j > i + 1:
                raise DeclarationError(file, lines[i + 1].no, "a 'class' line is a heading; chunks start with their id")
        else:
            raise DeclarationError(file, ln.no, f"expected a chunk id (8 hex digits), 'struct' or 'class', "
                                                f"found {ln.text!r}")
        i = j
    return chunks, structs


def _is_top(ln: _Line) -> bool:
    """A line that starts a new top-level definition (chunk bodies may be unindented)."""
    if ln.indent != 0:
        return False
    t = ln.text
    return bool(_CHUNK_LINE.match(t)) or t.startswith("struct ") or t.startswith("class ")


def field_min_size(ftype: str) -> int:
    """Smallest number of bytes a value of this builtin type takes (for count checks)."""
    return _MIN_SIZE.get(ftype, 0)


_MIN_SIZE: dict[str, Any] = {
    "uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "uint32": 4, "int32": 4, "uint64": 8, "int64": 8,
    "uint128": 16, "float": 4, "bool": 4, "string": 4, "id": 4, "meta": 12, "fileref": 2,
    "noderef": 4, "node": 4, "vec2": 8, "vec3": 12, "vec4": 16, "color": 12, "int2": 8, "int3": 12,
    "iso4": 48, "mat3": 36, "box": 24, "smalllen": 1, "smallstring": 1,
}
