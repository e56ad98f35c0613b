"""What a parsed body keeps alive, counted chunk by chunk while it is walked.

A body walk builds the decoded values of every chunk, 5 to 25 times the body's
bytes in Python objects (a dict per block, a float object per coordinate),
and only then was its cost known: a map whose parse could never be kept in a
48 MiB cache (goth.Map.Gbx: 93 MiB of objects for a 4 MiB body) was walked to
the end, and thrown away, with the process far past the cache's bound.

So the tree walks a body with a WalkBudget as the walker's `on_chunk` hook:
each chunk is costed as soon as it is decoded; past the room made for the walk
in the cache the room grows (the cache evicts for it), and past the limit the
walk stops (TooLarge), freeing what it built. The costs are the objects' own
sizes (sys.getsizeof: the interpreter's allocations, which tracemalloc sees),
so the cache's count of a parse is close to its real memory, not a multiple of
it in either direction (tests/robustness/test_memory.py compares them).
"""
from __future__ import annotations

from collections.abc import Callable
from sys import getsizeof
from typing import Any

from gbxfs.formats.gbx.model import Chunk, Node, NodeRef

# a Node (six slots) with its chunks list, and the list slot holding it
NODE_COST = 8 + getsizeof(Node(0, 0)) + getsizeof([])
# a Chunk (eleven slots) and the list slot holding it, without its raw bytes
CHUNK_COST = 8 + getsizeof(Chunk(0, 0, 0, b""))
NODEREF_COST = 8 + getsizeof(NodeRef("new", 0))
FLOAT_COST = getsizeof(0.5)
INT_COST = getsizeof(1 << 40)            # ints past the interpreter's shared small ones


def values_cost(values: Any, refs: list) -> int:
    """Bytes the decoded values of one chunk hold (containers, numbers, strings),
    not following node references: the nodes they point to are appended to `refs`
    in the order the old single-pass walk visited them, and costed as chunks of their own."""
    cost = 0
    stack = [values]
    pop, push = stack.pop, stack.extend
    while stack:
        v = pop()
        t = type(v)
        if t is float:
            cost += FLOAT_COST
        elif t is int:
            if not -5 <= v <= 256:
                cost += INT_COST
        elif t is dict:
            cost += getsizeof(v)
            push(v.values())
        elif t is list or t is tuple:
            cost += getsizeof(v)
            push(v)
        elif t is bool or v is None:
            continue
        elif t is NodeRef:
            cost += NODEREF_COST
            if v.node is not None:
                refs.append(v.node)
        elif isinstance(v, dict):
            cost += getsizeof(v)
            push(v.values())
        elif isinstance(v, (list, tuple)):
            cost += getsizeof(v)
            push(v)
        else:                        # str, bytes, Labeled, other scalars
            cost += getsizeof(v)
    return cost


def chunk_cost(c: Any, refs: list) -> int:
    """A chunk's record, raw bytes and values, plus a sixteenth: the allocator
    rounds each block up (to 16 bytes for small objects), which getsizeof does not
    count (measured over the corpus: the estimate is then 1.0-1.3 times tracemalloc's count)."""
    cost = CHUNK_COST + getsizeof(c.raw)
    if c.values:
        cost += values_cost(c.values, refs)
    return cost + (cost >> 4)


class TooLarge(Exception):
    """A walk stopped by its budget: what it had built, in bytes (a lower bound of the whole)."""

    def __init__(self, cost: int):
        super().__init__(cost)
        self.cost = cost


class WalkBudget:
    """The walker's hooks for one body walk. `on_chunk` counts every chunk as it is
    decoded (and remembers the nodes each one references, for scan_nodes);
    `charge` counts, while a chunk is being decoded, what its loops and arrays are
    about to build (the generated decoders' lower bound: decl/itemcost.py), so
    that one huge chunk is stopped before it is built, not once it is. The count
    is `total` (chunks done) plus `pending` (charges of chunks in progress, each
    replaced by the chunk's real cost when it is done). Past the room the walk
    has in the cache the room grows through `grow(nbytes)`; past `limit` the walk
    stops (TooLarge)."""

    __slots__ = ("limit", "room", "grow", "total", "refs", "pending", "_at", "_nodes", "_charged")

    def __init__(self, limit: int, room: int = 0, grow: Callable[[int], None] | None = None):
        self.limit, self.room, self.grow = limit, room, grow
        self.total = 0
        self.refs: dict[int, list] = {}        # id(chunk) -> nodes its values reference
        self.pending = 0
        # the charges not yet replaced: where in the body each was first made
        # (rising: a walk reads forward), how many nodes the walk had begun then,
        # and how much. A chunk done replaces those made inside it (from its offset
        # on); a chunk still in progress around it (a node reference in its values)
        # keeps its own, made before. Charges with no node begun between them are
        # of one chunk: added up in one entry (a crystal's faces charge thousands of
        # small vertex loops)
        self._at: list[int] = []
        self._nodes: list[int] = []
        self._charged: list[int] = []

    def charge(self, r: Any, nbytes: int) -> None:
        begun = len(r.all_nodes)
        if self._nodes and self._nodes[-1] == begun:
            self._charged[-1] += nbytes
        else:
            self._at.append(r.offset_base + r.tell())
            self._nodes.append(begun)
            self._charged.append(nbytes)
        self.pending += nbytes
        if self.total + self.pending > self.room:
            self._over(self.total + self.pending)

    def on_chunk(self, c: Any) -> None:
        at = self._at
        while at and at[-1] >= c.offset:
            at.pop()
            self._nodes.pop()
            self.pending -= self._charged.pop()
        refs: list = []
        self.total += chunk_cost(c, refs)
        if refs:
            self.refs[id(c)] = refs
        if self.total + self.pending > self.room:
            self._over(self.total + self.pending)

    def _over(self, count: int) -> None:
        if count > self.limit:
            raise TooLarge(count)
        # grow by a quarter more than needed: the cache evicts once per step, not per chunk
        step = min(count - self.room + self.room // 4, self.limit - self.room)
        self.room += step
        if self.grow is not None:
            self.grow(step)


def scan_nodes(nodes: list[Any], budget: WalkBudget | None = None) -> tuple[list[Any], int]:
    """Every node in reading order (as ghostfiles.all_nodes gives them: the listed
    ones and those reachable through node references, depth first) and what they
    cost; with the budget of their walk, its counts and references (no second
    pass over the values), else counted here."""
    cost = 0 if budget is None else budget.total
    known = budget.refs if budget is not None else None

    def refs_of(n: Any) -> list:
        nonlocal cost
        cost += NODE_COST
        out: list = []
        for c in n.chunks:
            if known is None or (c.error is not None and not c.skippable):
                cost += chunk_cost(c, out)     # (a chunk that ended its walk was not counted in it)
            else:
                out += known.get(id(c), ())
        return out

    return depth_first(nodes, refs_of), cost


def depth_first(nodes: list[Any], refs_of: Callable[[Any], Any]) -> list[Any]:
    """`nodes` and the nodes they reference (refs_of(node): an iterable), each once,
    depth first in reading order. A loop, not a recursive inner function: such a
    function refers to itself through its closure, a reference cycle that kept
    every node of the parse alive after its last use until the cyclic collector ran
    (a full collection, for a parse old enough: tens of MiB past the cache's bound)."""
    seen: set[int] = set()
    out: list[Any] = []
    for root in nodes:
        stack = [iter((root,))]
        while stack:
            n = next(stack[-1], None)
            if n is None:
                stack.pop()
            elif id(n) not in seen:
                seen.add(id(n))
                out.append(n)
                stack.append(iter(refs_of(n)))
    return out
