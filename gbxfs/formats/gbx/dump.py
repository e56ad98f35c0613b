"""Decoded chunk values -> `.txt` dumps: `name = value` lines, nested items indented
(docs/formats/mount.md, "Text files"), so `grep -r authorTime` finds answers."""
from __future__ import annotations

import math
import struct
from collections.abc import Callable
from json.encoder import encode_basestring  # what json.dumps(s, ensure_ascii=False) does to a str
from typing import Any

from .model import Labeled, NodeRef

INDENT = "  "
INLINE_LIST = 16        # lists of plain numbers up to this length stay on one line
BYTES_INLINE = 32       # byte strings up to this length are shown in full (hex)

_F32 = struct.Struct("<f")
_DIGITS = tuple(f".{d}g" for d in range(1, 10))
F32_TEXTS_MAX = 16384


def f32_repr(x: float) -> str:
    """Shortest text that reads back as the same float32 (1.1, not 1.100000023841858)."""
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    pack = _F32.pack
    packed = pack(x)
    for spec in _DIGITS:
        s = format(x, spec)
        try:
            if pack(float(s)) == packed:
                return s
        except OverflowError:   # rounded past the largest float32 (values near +-FLT_MAX)
            continue
    return repr(x)


class F32Texts(dict):
    """f32_repr with recent answers remembered, for one dump: a dump prints up to
    millions of floats, nine in ten of them seen before (positions, colours,
    0.5...). `texts[x]` is f32_repr(x). Bounded by count (a float and a short str,
    ~120 bytes each: 2 MB at most), emptied when full. Owned by whoever dumps: the
    tree keeps one per TreeContext, shared by its threads (each dict operation is
    atomic; two threads missing the same float both compute the same text)."""

    def __missing__(self, x: float) -> str:
        s = f32_repr(x)
        if x and not math.isnan(x):      # as keys 0.0 == -0.0 and NaN != NaN: neither is remembered
            if len(self) >= F32_TEXTS_MAX:
                self.clear()
            self[x] = s
        return s


def format_scalar(v: Any, f32: Callable[[float], str] = f32_repr) -> str:
    """One value's text; `f32`: how floats are written (an F32Texts' lookup in a dump)."""
    t = type(v)                 # the common exact types first; subclasses (bool, Labeled) below
    if t is float:
        return f32(v)
    if t is int:
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Labeled):
        return f"{int(v)} ({v.label})"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f32(v)
    if isinstance(v, str):
        return encode_basestring(v)
    if isinstance(v, (bytes, bytearray)):
        if len(v) <= BYTES_INLINE:
            return f"<{len(v)} bytes: {bytes(v).hex()}>" if v else "<0 bytes>"
        return f"<{len(v)} bytes: {bytes(v[:16]).hex()}...>"
    if isinstance(v, tuple):
        return "(" + ", ".join([format_scalar(x, f32) for x in v]) + ")"
    if isinstance(v, NodeRef):
        return str(v)
    if v is None:
        return "null"
    return str(v)


_NOT_INLINE = (dict, list, NodeRef)


# Lines of a dump joined into one block while it is written: a large chunk's
# dump (a crystal's geometry: 13 MiB of text, 300,000 lines) held every line as
# a str object until the end, five times the text in small objects at the peak.
BLOCK_LINES = 4096


def dump_lines(values: dict[str, Any], depth: int = 0, texts: F32Texts | None = None) -> list[str]:
    """The dump's lines; `texts`: the floats' texts remembered across calls (a fresh
    F32Texts when None)."""
    out: list[str] = []
    _dump_into(out, values, INDENT * depth, None, (texts if texts is not None else F32Texts()).__getitem__)
    return out


class _Blocks(list):
    """Finished blocks of a dump being written, each made by `done` from lines."""

    def __init__(self, done):
        super().__init__()
        self.done = done


def _dump_into(out: list[str], values: dict[str, Any], pad: str, blocks: _Blocks | None,
               f32: Callable[[float], str]) -> None:
    append = out.append
    for name, v in values.items():
        t = type(v)
        if t is float:              # most values: plain numbers
            append(f"{pad}{name} = {f32(v)}")
        elif t is int:
            append(f"{pad}{name} = {v}")
        elif isinstance(v, dict):
            append(f"{pad}{name}:")
            _dump_into(out, v, pad + INDENT, blocks, f32)
        elif isinstance(v, list):
            if len(v) <= INLINE_LIST and not any(isinstance(x, _NOT_INLINE) for x in v):
                append(f"{pad}{name} = [" + ", ".join([format_scalar(x, f32) for x in v]) + "]")
            else:
                append(f"{pad}{name}: {len(v)} item{'s' if len(v) != 1 else ''}")
                inner = pad + INDENT
                deeper = inner + INDENT
                for i, x in enumerate(v):
                    if isinstance(x, dict):
                        append(f"{inner}[{i}]")
                        _dump_into(out, x, deeper, blocks, f32)
                    else:
                        append(f"{inner}[{i}] = {format_scalar(x, f32)}")
                    if blocks is not None and len(out) > BLOCK_LINES:
                        blocks.append(blocks.done("\n".join(out)))
                        out.clear()
        else:
            append(f"{pad}{name} = {format_scalar(v, f32)}")


def dump_values(values: dict[str, Any], texts: F32Texts | None = None) -> str:
    """The `.txt` dump of one chunk's values (`texts`: as dump_lines)."""
    return _dump(values, str, "\n", texts)


def dump_bytes(values: dict[str, Any], texts: F32Texts | None = None) -> bytes:
    """dump_values encoded as UTF-8 (errors replaced), block by block: a large
    dump is never held as lines, text and bytes at once."""
    return _dump(values, lambda text: text.encode("utf-8", "replace"), b"\n", texts)


def _dump(values: dict[str, Any], done, newline, texts: F32Texts | None):
    out: list[str] = []
    blocks = _Blocks(done)
    _dump_into(out, values, "", blocks, (texts if texts is not None else F32Texts()).__getitem__)
    if out:
        blocks.append(done("\n".join(out)))
        out.clear()
    if blocks:
        blocks.append(newline[:0])      # the final newline, without a copy of the whole to add it
    return newline.join(blocks)


def to_json(v: Any) -> Any:
    """Values -> JSON-compatible data (bytes as hex, node refs as text)."""
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_json(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, NodeRef):
        return str(v)
    if isinstance(v, Labeled):
        return int(v)
    return v
