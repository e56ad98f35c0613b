"""info.txt, refs.txt and error.txt of a GBX folder."""
from __future__ import annotations

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.tree.gbx.parse import ParsedBody, ParsedHeader
from gbxfs.tree.gbx.summary import summary, summary_pairs


def human_value(v: object) -> str:
    """A value as a person reads it, never a Python repr: yes/no, none, a list as
    `a, b`, a mapping as `k: v, ...`."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple, set, frozenset)):
        return ", ".join(map(human_value, v))
    if isinstance(v, dict):
        return ", ".join(f"{k}: {human_value(x)}" for k, x in v.items())
    return str(v)


def _lines(pairs: list[tuple[str, object]]) -> bytes:
    return ("\n".join(f"{k} = {human_value(v)}" for k, v in pairs) + "\n").encode("utf-8", "replace")


def body_pairs(pb: ParsedBody) -> list[tuple[str, object]]:
    """info.txt's lines about the body (kept in the body's digest: see digest.py)."""
    pairs: list[tuple[str, object]] = []
    if pb.body is not None:
        pairs.append(("body_compression", "LZO" if pb.body_compressed else "none"))
        if pb.compressed_size is not None:
            pairs.append(("body_compressed_size", pb.compressed_size))
        pairs.append(("body_size", len(pb.body)))
    pairs.append(("body_status", pb.status))
    pairs.append(("body_nodes_read", len(pb.nodes)))
    chunks = [c for n in pb.nodes for c in n.chunks]
    pairs.append(("body_chunks", len(chunks)))
    pairs.append(("body_chunks_decoded", sum(1 for c in chunks if c.values is not None and c.error is None)))
    for e in pb.errors:
        pairs.append(("body_error", e))
    return pairs


def render_info(file_size: int, ph: ParsedHeader, body: list[tuple[str, object]] | None = None,
                ghost_facts: dict | None = None, proof: str | None = None, folders: tuple[str, ...] = (),
                status=None) -> bytes:
    """info.txt: the summary of a map, replay or ghost first (see summary.py), then
    the container facts; `body`: the body's (body_pairs). `ghost_facts`: the first
    ghost's, for what a header lacks.
    `proof`: what proves the bytes a container served (a pak entry: its
    formats/pak/verification.py label, `none: ...` when nothing can), shown as
    `verification`. `folders`: the folder's sub-folders found by name but not
    listed (view.py), one line each. `status`: the file's FileStatus (status.py),
    shown as `status` (and `status_reason`)."""
    h = ph.header
    pairs: list[tuple[str, object]] = [] if h is None else summary_pairs(summary(h, ghost_facts))
    if status is not None:
        pairs.append(("status", status.status))
        if status.reason:
            pairs.append(("status_reason", status.reason))
    pairs.append(("file_size", file_size))
    if proof is not None:
        pairs.append(("verification", proof))
    if h is None:
        pairs.append(("header_status", f"failed: {ph.error}"))
        return _lines(pairs)
    pairs += [("header_version", h.version), ("format", h.format_bytes),
              ("class_id", f"{h.class_id:08X}"), ("class_name", h.class_name or "unknown")]
    if h.raw_class_id != h.class_id:
        pairs.append(("stored_class_id", f"{h.raw_class_id:08X}"))
    if h.user_data_size is not None:
        pairs.append(("header_user_data_size", h.user_data_size))
    pairs += [("header_chunks", len(h.chunks)), ("num_nodes", h.num_nodes)]
    if h.refs is not None:
        pairs.append(("external_refs", len(h.refs.externals)))
    if h.body_offset is not None:
        pairs.append(("body_offset", h.body_offset))
    if body is not None:
        pairs += body
    pairs += [("not_listed", f"{f}/ (made from the body: open it by name)") for f in folders]
    return _lines(pairs)


def render_refs(ph: ParsedHeader) -> bytes:
    h = ph.header
    assert h is not None and h.refs is not None     # refs.txt is listed only for a header with them
    t = h.refs
    pairs: list[tuple[str, object]] = [("ancestor_level", t.ancestor_level), ("folders", len(t.folders))]
    pairs += [(f"folder[{i + 1}]", f) for i, f in enumerate(t.folders)]
    pairs.append(("externals", len(t.externals)))
    out = _lines(pairs)
    for e in t.externals:
        item = [("node_index", e.node_index), ("flags", f"{e.flags:#x}")]
        if e.file_name is not None:
            item.append(("file_name", e.file_name))
        if e.resource_index is not None:
            item.append(("resource_index", e.resource_index))
        if e.folder_index is not None:
            item.append(("folder_index", e.folder_index))
        if e.use_file is not None:
            item.append(("use_file", e.use_file))
        if e.path:
            item.append(("path", e.path))
        out += b"external:\n" + b"".join(f"  {k} = {human_value(v)}\n".encode("utf-8", "replace") for k, v in item)
    return out


def describe(what: str, e: BaseException) -> str:
    """One error.txt entry: what failed, where (offset, node, chunk id), why."""
    if isinstance(e, GbxError):
        where = e.context(("where", "offset", "node", "chunk"), chunk_name=classdb.chunk_name, offset_decimal=True)
        return (f"what: {what}\nwhere: {', '.join(where) or 'unknown'}\nwhy: {e.reason}\n")
    return f"what: {what}\nwhere: unknown\nwhy: {type(e).__name__}: {e}\n"
