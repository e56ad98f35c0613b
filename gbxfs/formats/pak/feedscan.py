"""Where node reads happen in plain GBX body bytes the parser cannot follow.

When the walk of an embedded GBX stops (a chunk of a class the declarations do
not know), the rest of its node reads - hence its ivXor feeds - must be found
without a parse. A node read by reference is stored as

    i32 index   u32 class id   u32 first chunk id (or the end marker 0xFACADE01)

and the feed happens right after the class id. So a *hit* is an offset `at`
whose 4 bytes before are a class id with a feed id, whose 4 bytes from `at` are
a chunk id of that class or of one of its parents (or the end marker), and whose
index (8 bytes before) is a node slot not used yet. Measured over the corpus
bodies (benchmarks/pak_recover.py): such hits whose index also continues the
sequence of new indices (a little past the last one) are nearly always real
node reads; the others
are mostly class ids inside embedded data. `sequential` says which, so that a
search can try the likely choice first.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from gbxfs.formats.gbx import classdb

END_MARKER = 0xFACADE01
SEQUENCE_GAP = 4     # a new index up to this far past the last one continues the sequence
# a stored class id: its low 12 bits are zero and its engine byte is not (overlapping matches)
_CLASS_ID = re.compile(b"(?=\\x00[\\x00\\x10\\x20\\x30\\x40\\x50\\x60\\x70\\x80\\x90\\xa0\\xb0\\xc0\\xd0\\xe0\\xf0].[^\\x00])",
                       re.DOTALL)


@dataclass(frozen=True)
class Hit:
    at: int              # offset just after the class id: where the feed happens
    feed: bytes          # the 4 bytes fed
    index: int           # the node slot
    sequential: bool     # the index continues the sequence of new node indices


@dataclass
class NodeSlots:
    """Which node slots are taken, and the last new index, as the scan goes on."""
    num_nodes: int
    used: set[int] = field(default_factory=set)
    last: int = 0
    loose: frozenset[int] = frozenset()     # classes whose nodes hold no chunk ids (the `archive` flag)

    def copy(self) -> NodeSlots:
        return NodeSlots(self.num_nodes, set(self.used), self.last, self.loose)

    def take(self, index: int) -> None:
        self.used.add(index)
        self.last = max(self.last, index)


@functools.lru_cache(maxsize=4096)
def _class_info(raw: int) -> tuple[bytes, frozenset[int]] | None:
    """(feed bytes, the class and its parents) of a stored class id; None when it feeds nothing known."""
    cid = classdb.remap(raw)
    fid = classdb.feed_id(cid)
    if fid is None:
        return None
    chain: set[int] = set()
    c: int | None = cid
    while c is not None and c not in chain:
        chain.add(c)
        c = classdb.parent(c)
    return fid.to_bytes(4, "little"), frozenset(chain)


def _starts_node(first: int, chain: frozenset[int], loose: frozenset[int]) -> bool:
    """Can a node of a class with these parents begin with the u32 `first`?"""
    if first == END_MARKER or chain & loose:
        return True
    cid = classdb.remap_chunk(first)
    # a chunk of the class or a parent; old files also open with chunks filed under other classes
    return (cid & classdb.CLASS_MASK) in chain or classdb.chunk_info(cid) is not None


def _u32(buf, at: int) -> int:
    return int.from_bytes(buf[at:at + 4], "little")


def scan(buf, start: int, end: int, slots: NodeSlots) -> list[Hit]:
    """Hits with start < at <= end. When `buf` ends before a hit's chunk id, the
    hit is judged on its class and index alone. `slots` takes every sequential hit."""
    hits = []
    lo = max(start + 1, 8)
    hi = min(end, len(buf))
    for m in _CLASS_ID.finditer(buf, lo - 4, hi):
        at = m.start() + 4
        if at > hi:
            break
        info = _class_info(_u32(buf, at - 4))
        if info is None:
            continue
        nxt = _u32(buf, at) if at + 4 <= len(buf) else None
        if nxt is not None and not _starts_node(nxt, info[1], slots.loose):
            continue
        index = _u32(buf, at - 8)
        if 0 < index < slots.num_nodes and index not in slots.used:
            seq = slots.last < index <= slots.last + SEQUENCE_GAP
            if nxt is None and not seq:
                continue
            hits.append(Hit(at, info[0], index, seq))
            if seq:
                slots.take(index)
    return hits
