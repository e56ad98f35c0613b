"""Declaration text at the level of lines and of one field line: comments, joined
lines, the items of a line (words, numbers, brackets), enum comments, and the fields
a line declares (`uint32 a, b`, `vec3 pos[n] (comment)`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .ast import DeclarationError, Field
from .types import NAME_CAPABLE, TYPE_ALIASES

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"-?(0[xX][0-9A-Fa-f]+|\d+(\.\d+)?)")
_ENUM_ITEM = re.compile(r"^\s*(-?\d+|0[xX][0-9A-Fa-f]+)\s*:\s*(.+?)\s*$")


@dataclass
class Line:
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


def logical_lines(text: str, file: str) -> list[Line]:
    """Non-empty lines without comments; lines with open parentheses are joined."""
    out: list[Line] = []
    pending: Line | None = None
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
        line = Line(no, len(s) - len(s.lstrip(" ")), s.strip())
        if _depth(line.text) > 0:
            pending = line
        else:
            out.append(line)
    if pending is not None:
        raise DeclarationError(file, pending.no, "unclosed parenthesis or bracket")
    return out


# ---- items within a line -------------------------------------------------------------------
def close_bracket(s: str, i: int, file: str, line: int) -> int:
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
    """Split a field line into ('w', word) ('n', number) ('(', text) ('[', text)."""
    items = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isspace():
            i += 1
        elif ch in "([":
            j = close_bracket(s, i, file, line)
            items.append((ch, s[i + 1:j]))
            i = j + 1
        elif m := _IDENT.match(s, i):
            items.append(("w", m.group()))
            i = m.end()
        elif m := _NUMBER.match(s, i):
            items.append(("n", m.group()))
            i = m.end()
        elif ch == "=":
            # `uint32 version = 10` once documented a usual value without checking it: a
            # claim the decoder ignored. Checks are explicit statements.
            raise DeclarationError(file, line, f"'= value' after a field is not part of the language; "
                                               f"check it with 'assert <name> == <value>' on the next line: {s!r}")
        else:
            raise DeclarationError(file, line, f"unexpected {ch!r} in {s!r}")
    return items


def _split_top(s: str) -> list[str]:
    parts, depth = [], 0
    cur: list[str] = []
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
