"""Names of the node folders under body/nodes/: `<NNN>.<Class>`, the number
zero-padded to 3 digits whatever the file (`000.CGameCtnChallenge`, `1234.X`
past 999), so a script names body/nodes/000.X without listing first; listed
in node order, every name unique."""
from __future__ import annotations

NODE_DIGITS = 3


def node_folder_name(label: int, class_name: str) -> str:
    """`007.CGameCtnChallenge`: the node's number, at least NODE_DIGITS wide, and its class."""
    return f"{label:0{NODE_DIGITS}d}.{class_name}"


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
