"""`gbxfs coverage --chunks DIR`: the chunk declarations per class, and which of them
the files under DIR prove (gbxfs.formats.gbx.proof says what proven means).

Columns: declared (chunk declarations of the class), proven (proven by at least one
file), unverified (flagged `unverified`: from public facts, no file proves them yet).
`--list` adds every declaration with its state; `--json` gives the per-file detail.
"""
from __future__ import annotations

from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.proof import ChunkProofs, DeclState

Row = tuple[int, str, int, int, int]     # class id, name, declared, proven, unverified


def rows(proofs: ChunkProofs) -> list[Row]:
    out = []
    for class_id, states in sorted(proofs.by_class().items()):
        name = classdb.class_name(class_id) or f"{class_id:08X}"
        out.append((class_id, name, len(states), sum(bool(s.proven) for s in states),
                    sum(s.decl.unverified for s in states)))
    return out


def totals(proofs: ChunkProofs) -> tuple[int, int, int, int]:
    """(declarations, distinct chunk ids, proven declarations, unverified declarations)."""
    sts = proofs.states.values()
    return (len(proofs.states), proofs.declared_ids(), sum(bool(s.proven) for s in sts),
            sum(s.decl.unverified for s in sts))


def state(st: DeclState) -> str:
    if st.proven:
        return "proven" + (f" (through {st.via})" if st.via else "")
    if st.met:
        return "met, not proven"
    return "unverified" if st.decl.unverified else "not met"


def format_text(proofs: ChunkProofs, listing: bool = False) -> str:
    lines = [f"{'class':<8} {'name':<44} {'declared':>8} {'proven':>6} {'unverified':>10}"]
    by_class = proofs.by_class()
    for class_id, name, n, proven, unverified in rows(proofs):
        lines.append(f"{class_id:08X} {name:<44} {n:>8} {proven:>6} {unverified:>10}")
        if listing:
            for st in by_class[class_id]:
                d = st.decl
                kind = " header" if d.header else ""
                lines.append(f"    {d.chunk_id:08X}{kind:<7} {state(st):<28} {d.file}:{d.line}")
    decls, ids, proven, unverified = totals(proofs)
    lines.append(f"{'total':<53} {decls:>8} {proven:>6} {unverified:>10}")
    lines.append(f"declared chunk ids: {ids}; declarations: {decls}; proven: {proven}; unverified: {unverified}")
    return "\n".join(lines) + "\n"


def format_markdown(proofs: ChunkProofs) -> str:
    lines = ["| class | declared | proven | unverified |", "|---|---:|---:|---:|"]
    for class_id, name, n, proven, unverified in rows(proofs):
        lines.append(f"| {name} ({class_id:08X}) | {n} | {proven} | {unverified} |")
    decls, ids, proven, unverified = totals(proofs)
    lines.append(f"| **all** ({ids} chunk ids) | {decls} | {proven} | {unverified} |")
    return "\n".join(lines) + "\n"


def as_json(proofs: ChunkProofs) -> dict[str, Any]:
    decls, ids, proven, unverified = totals(proofs)
    return {
        "declared_chunk_ids": ids, "declarations": decls, "proven": proven, "unverified": unverified,
        "chunks": [{"chunk_id": f"{st.decl.chunk_id:08X}", "header": st.decl.header,
                    "class": classdb.class_name(st.class_id), "state": state(st),
                    "unverified": st.decl.unverified, "decl": f"{st.decl.file}:{st.decl.line}",
                    "met": st.met, "proven": st.proven, "failed": st.failed}
                   for _, sts in sorted(proofs.by_class().items()) for st in sts],
    }
