"""The leading 4 KiB block. GP2 never reads it: originals hold a leftover
F1GP bitmap; tracks saved by Paul Hoad's editor start with
`#GP2INFO|key|value|...|#` text, which is worth showing."""
from __future__ import annotations

MARKER = b"#GP2INFO|"
END = b"|#"


def gp2info(block: bytes) -> list[tuple[str, str]]:
    """The GP2INFO key/value pairs, or [] when the block has none."""
    if not block.startswith(MARKER):
        return []
    end = block.find(END, len(MARKER))
    if end < 0:
        return []
    items = block[len(MARKER) : end].decode("latin-1").split("|")
    return [(items[i], items[i + 1]) for i in range(0, len(items) - 1, 2)]
