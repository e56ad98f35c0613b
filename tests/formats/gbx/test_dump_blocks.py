"""A large dump is written block by block (dump.BLOCK_LINES lines at a time):
the same text as line by line, and never all its lines as objects at once."""
from __future__ import annotations

import random
import tracemalloc

from gbxfs.formats.gbx import dump
from gbxfs.formats.gbx.model import NodeRef

MiB = 1 << 20


def _values(n: int) -> dict:
    rnd = random.Random(5)
    return {
        "version": 3,
        "name": "caf\u00e9 \ud800 lone surrogate",            # replaced when encoded
        "items": [{"position": (rnd.random(), rnd.random(), rnd.random()), "flags": rnd.randrange(1 << 31),
                   "sub": [rnd.random() for _ in range(i % 20)], "ref": NodeRef("back", i % 7)}
                  for i in range(n)],
        "tail": [rnd.randrange(100) for _ in range(3 * dump.BLOCK_LINES)],
    }


def _line_by_line(values: dict) -> str:
    lines = dump.dump_lines(values)
    return "\n".join(lines) + "\n" if lines else ""


def test_blocks_give_the_same_text_as_lines():
    for n in (0, 1, dump.BLOCK_LINES // 8, 3 * dump.BLOCK_LINES):
        v = _values(n)
        text = _line_by_line(v)
        assert dump.dump_values(v) == text
        assert dump.dump_bytes(v) == text.encode("utf-8", "replace")
    assert dump.dump_values({}) == "" and dump.dump_bytes({}) == b""


def test_a_large_dump_holds_about_twice_its_text():
    """The blocks and their join: not the lines (five times the text, with the
    encoded copy, when every line was kept until the end)."""
    v = _values(10_000)
    dump.dump_bytes(v)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        data = dump.dump_bytes(v)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert len(data) > 2 * MiB
    assert peak < 2.5 * len(data), f"{peak / MiB:.1f} MiB for {len(data) / MiB:.1f} MiB of text"
