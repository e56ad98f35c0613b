"""Parser for chunk declaration files (`chunks/*.chunks`); see chunks/README.md.

Turns the text into the syntax tree of decl.ast. No decoding happens here: decl.link
checks the declarations (struct types, `read chunk` targets, implicit loop counts,
every name an expression uses) and decl.compile turns them into closures. Every
problem is a DeclarationError naming the file and line.
"""
from __future__ import annotations

import difflib
import re

from .. import expr as expr_mod
from .ast import (
    Assert,
    ChunkDef,
    Continue,
    DeclarationError,
    Encapsulated,
    Feed,
    If,
    Inflate,
    InlineNode,
    Let,
    Loop,
    Marker,
    ReadChunk,
    Sized,
    Stmt,
    StructDef,
    While,
)
from .lines import Line, close_bracket, logical_lines, parse_fields
from .types import TYPE_ALIASES

# `unverified`: the layout comes from a public source tested on real files, but no
# corpus file exercises it yet (gbxfs coverage counts these apart).
FLAGS = frozenset({"skippable", "header", "encapsulated", "unverified", "archive"})

_CHUNK_LINE = re.compile(r"^([0-9A-Fa-f]{7,8})\b(.*)$")


_FOR = re.compile(r"^for\s+each\s+([A-Za-z_]\w*)(?:\s+in\s+(.+?))?(?:\s+as\s+([A-Za-z_]\w*))?\s*:?$")
_LIST = re.compile(r"^list\s+([A-Za-z_]\w*)\s*\[(.+)\]\s*:?$")
_READ = re.compile(r"^(?:read\s+chunk\s+(?:0x)?([0-9A-Fa-f]{7,8})|ReadChunk\(\s*(?:0x)?([0-9A-Fa-f]{7,8})\s*\))(.*)$")
_INFLATE = re.compile(r"^inflate\s+(.+?)\s+size\s+(.+?)\s*:?$")
_SIZED = re.compile(r"^sized\s+(.+?)\s*:?$")


def _list_name(var: str) -> str:
    return var + "_list" if var.endswith("s") else var + "s"


class _Parser:
    def __init__(self, lines: list[Line], file: str):
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

    def sub(self, ln: Line, i: int, j: int, body_indent: int | None, what: str) -> list[Stmt]:
        if body_indent is None:
            raise self.err(ln.no, f"{what} needs an indented block below it")
        return self.block(i, j, body_indent)

    def no_block(self, ln: Line, body_indent: int | None) -> None:
        if body_indent is not None:
            raise self.err(ln.no + 1, "unexpected indented block (only if/elif/else, for each, list, "
                                      "encapsulated, inflate and sized take one)")

    def statement(self, ln: Line, i: int, j: int, body_indent: int | None, prev: list[Stmt]):
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
        if head == "sized":
            m = _SIZED.match(t)
            if not m:
                raise self.err(ln.no, f"expected 'sized <byte size>:', found {t!r}")
            self._check_expr(m.group(1), ln.no)
            return Sized(ln.no, m.group(1), self.sub(ln, i, j, body_indent, "sized"))
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


def _unknown_flag(file: str, line: int, word: str) -> DeclarationError:
    near = difflib.get_close_matches(word.lower(), FLAGS, 1, 0.75)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return DeclarationError(file, line, f"unknown chunk flag {word!r} ({hint}known: {', '.join(sorted(FLAGS))}, "
                                        "xml=<field>, \"name\", (comment))")


def _chunk_header(m: re.Match, ln: Line, file: str) -> tuple[int, str | None, set[str], str | None, str | None]:
    chunk_id = int(m.group(1), 16)
    rest = m.group(2).strip().rstrip(":")
    name = None
    flag_words: list[str] = []
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
            j = close_bracket(rest, i, file, ln.no)
            words = [w for w in re.split(r"[\s,]+", rest[i + 1:j]) if w]
            # a group naming a flag holds only flags, and a lone near-flag is a typo
            if any(w in FLAGS or w.startswith("xml=") for w in words) or (
                    len(words) == 1 and difflib.get_close_matches(words[0].lower(), FLAGS, 1, 0.75)):
                flag_words += words
            else:
                comment = rest[i + 1:j]
            i = j + 1
        else:
            word = re.match(r"[^\s(\"]+", rest[i:])
            assert word is not None     # rest[i] is no space, quote or bracket (above)
            w = word.group()
            flag_words.append(w)
            i += len(w)
    flags: set[str] = set()
    xml = None
    for w in flag_words:
        if w.startswith("xml="):
            xml = w[4:]
        elif w in FLAGS:
            flags.add(w)
        else:
            raise _unknown_flag(file, ln.no, w)
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


def _is_top(ln: Line) -> bool:
    """A line that starts a new top-level definition (chunk bodies may be unindented)."""
    if ln.indent != 0:
        return False
    t = ln.text
    return bool(_CHUNK_LINE.match(t)) or t.startswith("struct ") or t.startswith("class ")
