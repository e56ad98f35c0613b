"""Names of the node folders under body/nodes/: `<NNN>.<Class>`, the number
zero-padded to the width of the largest one (at least 3 digits), so that
listings sort in node order, and every name unique."""
from __future__ import annotations


def node_labels(slots: list[int | None]) -> list[int]:
    """The number shown for each node: its slot in the node list; nodes without a
    slot (direct nodes) take the numbers after the largest slot, in reading order,
    so that no node shows another node's number."""
    nxt = max((s for s in slots if s is not None), default=-1) + 1
    out = []
    for s in slots:
        if s is None:
            s, nxt = nxt, nxt + 1
        out.append(s)
    return out


def unique_name(name: str, taken) -> str:
    """`name`, or `name~2`, `name~3`... when taken (a node of the same slot read
    twice; a ZIP member named like another, see zipdir.py)."""
    out, k = name, 2
    while out in taken:
        out, k = f"{name}~{k}", k + 1
    return out
