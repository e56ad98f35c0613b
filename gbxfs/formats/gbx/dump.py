"""Decoded chunk values -> `.txt` dumps: `name = value` lines, nested items indented
(docs/formats/mount.md, "Text files"), so `grep -r authorTime` finds answers."""
from __future__ import annotations

import json
import struct
from typing import Any

from .model import Labeled, NodeRef

INDENT = "  "
INLINE_LIST = 16        # lists of plain numbers up to this length stay on one line
BYTES_INLINE = 32       # byte strings up to this length are shown in full (hex)


def f32_repr(x: float) -> str:
    """Shortest text that reads back as the same float32 (1.1, not 1.100000023841858)."""
    if x != x or x in (float("inf"), float("-inf")):
        return repr(x)
    packed = struct.pack("<f", x)
    for digits in range(1, 10):
        s = f"{x:.{digits}g}"
        try:
            if struct.pack("<f", float(s)) == packed:
                return s
        except OverflowError:   # rounded past the largest float32 (values near +-FLT_MAX)
            continue
    return repr(x)


def format_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Labeled):
        return f"{int(v)} ({v.label})"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f32_repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (bytes, bytearray)):
        if len(v) <= BYTES_INLINE:
            return f"<{len(v)} bytes: {bytes(v).hex()}>" if v else "<0 bytes>"
        return f"<{len(v)} bytes: {bytes(v[:16]).hex()}...>"
    if isinstance(v, tuple):
        return "(" + ", ".join(format_scalar(x) for x in v) + ")"
    if isinstance(v, NodeRef):
        return str(v)
    if v is None:
        return "null"
    return str(v)


def _plain(v: Any) -> bool:
    return not isinstance(v, (dict, list))


def dump_lines(values: dict[str, Any], depth: int = 0) -> list[str]:
    out: list[str] = []
    pad = INDENT * depth
    for name, v in values.items():
        if isinstance(v, dict):
            out.append(f"{pad}{name}:")
            out += dump_lines(v, depth + 1)
        elif isinstance(v, list):
            if all(_plain(x) for x in v) and len(v) <= INLINE_LIST and not any(isinstance(x, NodeRef) for x in v):
                out.append(f"{pad}{name} = [" + ", ".join(format_scalar(x) for x in v) + "]")
            else:
                out.append(f"{pad}{name}: {len(v)} item{'s' if len(v) != 1 else ''}")
                for i, x in enumerate(v):
                    if isinstance(x, dict):
                        out.append(f"{pad}{INDENT}[{i}]")
                        out += dump_lines(x, depth + 2)
                    else:
                        out.append(f"{pad}{INDENT}[{i}] = {format_scalar(x)}")
        else:
            out.append(f"{pad}{name} = {format_scalar(v)}")
    return out


def dump_values(values: dict[str, Any]) -> str:
    """The `.txt` dump of one chunk's values."""
    lines = dump_lines(values)
    return "\n".join(lines) + "\n" if lines else ""


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
