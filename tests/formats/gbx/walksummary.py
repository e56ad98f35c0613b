"""What a body walk gave, as one comparable list: status, error (class and text,
which holds the offset, chunk, node and declaration line), bytes read, and per node
and chunk their records, errors and decoded values (dump text and repr)."""
from __future__ import annotations

from gbxfs.formats.gbx.dump import dump_values


def _error(e) -> tuple[str, str] | None:
    return None if e is None else (type(e).__name__, str(e))


def summary(result) -> list:
    out = [result.status, _error(result.error), result.read]
    for n in result.nodes:
        out.append((n.index, n.class_id, n.complete, _error(n.error)))
        for c in n.chunks:
            out.append((c.chunk_id, c.offset, c.size, c.raw, _error(c.error),
                        None if c.values is None else dump_values(c.values), repr(c.values)))
    return out
