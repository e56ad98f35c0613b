"""The ReadNode walker (docs: "Reading the body") and body results.

A node is a list of chunks ended by 0xFACADE01. A skippable chunk ("PIKS" + size) is
decoded when declared and kept raw either way; a failed or inexact decode of a
skippable chunk is recorded on the chunk and the walk goes on (its size is known).
A skippable chunk kept raw may hold lookback strings: the walker marks a gap in the
lookback state (lookback.IdState.gap), so a later back reference past it fails with a
precise error instead of resolving to a wrong string.
A non-skippable chunk must be declared, since nothing else tells where it ends: an
unknown one, or one whose decoding fails, ends the walk with a precise GbxError
(offset, chunk id, node).

The recursion lives here: a declaration field `noderef`/`node` (and `inline node`)
calls back into the NodeWalker that the reader carries (`reader.walker`), so the
declaration engine never imports this module.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import classdb
from .decl import Registry, registry
from .decl.frame import root_frame
from .encoding import SKIP_MARKER
from .encoding import unpack_i32 as _i32
from .encoding import unpack_u32 as _u32
from .errors import GbxError
from .lookback import may_define_strings
from .model import Chunk, ExternalRef, Node, NodeRef
from .reader import GbxReader
from .textreader import make_reader

END_MARKER = 0xFACADE01
MAX_CHUNKS_PER_NODE = 1 << 16
MAX_DEPTH = 32               # nested ReadNode calls (node refs inside node refs)
NULL_CLASS = 0xFFFFFFFF


def node_label(node: Node) -> str:
    name = node.class_name or f"{node.class_id:08X}"
    return f"#{node.index} {name}" if node.index is not None else name


class NodeWalker:
    """ReadNode and the node references that lead to it, with one set of declarations
    (`decls`; None: the shipped ones). Stateless: the reader holds the parse state."""

    __slots__ = ("decls", "_classes", "on_chunk", "charge")

    def __init__(self, decls: Registry | None = None, on_chunk: Callable[[Chunk], None] | None = None,
                 charge: Callable[[Any, int], None] | None = None):
        self.decls = decls if decls is not None else registry()
        self._classes = self.decls.class_cache      # class id as stored -> _class_info
        self.on_chunk = on_chunk     # each chunk read, but one that ends the walk (tree/gbx/cost.py)
        # charge(reader, nbytes): the generated decoders' word, before a loop or array
        # is built, of the least it will hold (decl/itemcost.py); None: not asked
        self.charge = charge

    def noderef(self, r: GbxReader) -> NodeRef | None:
        """A node reference: an index into the node list (the node follows when new)."""
        if r.encapsulated:
            return self.direct_node(r)
        p = r._pos
        at = p - r._base            # r.tell()
        buf = r._buf if not r.text else None        # in memory: the u32s read here
        if buf is not None and p + 4 <= r._end:  # type: ignore[operator]  # in memory the end is known
            index = _i32(buf, p)[0]
            r._pos = p + 4
        else:
            index = r.i32()
        if index == -1:
            return None
        if index < 0 or (r.num_nodes is not None and index >= r.num_nodes):
            raise r.error(f"node index {index} outside the node list (numNodes {r.num_nodes})", at)
        existing = r.nodes.get(index)
        if isinstance(existing, ExternalRef):
            return NodeRef("external", index, None, existing)
        if existing is not None:
            return NodeRef("back", index, existing)
        p = r._pos
        if buf is not None and p + 4 <= r._end:  # type: ignore[operator]  # in memory the end is known
            raw_class_id = _u32(buf, p)[0]
            r._pos = p + 4
        else:
            raw_class_id = r.hex32()
        return NodeRef("new", index, self.read_node(r, raw_class_id, index))

    def direct_node(self, r: GbxReader) -> NodeRef | None:
        """A node stored as class id + chunks, without a slot (0xFFFFFFFF/-1 = null)."""
        class_id = r.hex32()
        if class_id == NULL_CLASS:
            return None
        return NodeRef("direct", None, self.read_node(r, class_id, None))

    def read_node(self, r: GbxReader, raw_class_id: int, index: int | None, hook: bool = True) -> Node:
        """ReadNode: create the node (slot `index`), call on_node, walk its chunks.
        hook=False: a node whose class the layout implies (no class id stored, no
        ReadNode in the game): no on_node call."""
        if r.depth >= MAX_DEPTH:
            raise r.error(f"nodes nested deeper than {MAX_DEPTH}")
        info = self._classes.get(raw_class_id)
        if info is None:
            info = self._classes[raw_class_id] = self._class_info(raw_class_id)
        class_id, archive = info
        node = Node(index, class_id, [], raw_class_id if raw_class_id != class_id else None)
        if hook and r.on_node is not None:
            r.on_node(class_id)
        if index is not None:
            r.nodes[index] = node
        r.all_nodes.append(node)
        r.depth += 1
        try:
            if archive is None:
                if r._buf is not None and not r.text:
                    self._walk_in_memory(r, node)
                else:
                    self._walk_chunks(r, node)
            else:
                self._walk_archive(r, node, archive)
        finally:
            r.depth -= 1
        return node

    def _class_info(self, raw_class_id: int) -> tuple[int, Any]:
        """(current class id, its `archive` declaration or None) for a class id as stored."""
        class_id = classdb.remap(raw_class_id)
        archive = self.decls.get(class_id)
        return class_id, archive if archive is not None and "archive" in archive.flags else None

    def _walk_chunks(self, r: GbxReader, node: Node) -> None:
        """Read the chunks of `node` up to its end marker (text files, pull sources)."""
        reg = self.decls
        infos = reg.walk_cache
        base = r.offset_base
        while True:
            at = r.tell()
            try:
                raw_id = r.chunk_id()
            except GbxError as e:
                raise _walker_error(e.add_context(node=node_label(node), where="body")) from None
            if raw_id == END_MARKER:
                node.complete = True
                return
            if len(node.chunks) >= MAX_CHUNKS_PER_NODE:
                raise GbxError(f"more than {MAX_CHUNKS_PER_NODE} chunks in one node", offset=base + at,
                               node=node_label(node), where="body")
            info = infos.get(raw_id)
            if info is None:
                info = infos[raw_id] = _chunk_info(reg, raw_id)
            cid, stored_id, decl, name, _ = info
            if r.skip_marker():
                _skippable(r, node, cid, stored_id, decl, name)
            else:
                if decl is None:
                    _unknown_chunk(node, cid, base + at)
                _decode_chunk(r, node, decl, cid, stored_id, name)
            if self.on_chunk is not None:
                self.on_chunk(node.chunks[-1])

    def _walk_in_memory(self, r: GbxReader, node: Node) -> None:
        """_walk_chunks for binary data in memory: chunk ids and skip markers read
        straight from the buffer, and a non-skippable chunk decoded right here
        (_decode_chunk and ChunkDecl.decode without their calls), since a map has
        thousands of nodes of one or two chunks each."""
        infos = self.decls.walk_cache
        buf = r._buf
        assert buf is not None and r._end is not None       # in memory: the caller's test
        chunks = node.chunks
        on_chunk = self.on_chunk
        base = r.offset_base - r._base       # + a buffer position: the offset for errors/records
        while True:
            p = r._pos
            end = r._end
            if p + 4 > end:     # the reader's error for the missing chunk id
                try:
                    r.chunk_id()
                except GbxError as e:
                    raise _walker_error(e.add_context(node=node_label(node), where="body")) from None
            raw_id = _u32(buf, p)[0]
            p += 4
            if raw_id == END_MARKER:
                r._pos = p
                node.complete = True
                return
            if len(chunks) >= MAX_CHUNKS_PER_NODE:
                raise GbxError(f"more than {MAX_CHUNKS_PER_NODE} chunks in one node", offset=base + p - 4,
                               node=node_label(node), where="body")
            info = infos.get(raw_id)
            if info is None:
                info = infos[raw_id] = _chunk_info(self.decls, raw_id)
            cid, stored_id, decl, name, encapsulated = info
            if p + 4 <= end and _u32(buf, p)[0] == SKIP_MARKER:
                r._pos = p + 4
                _skippable(r, node, cid, stored_id, decl, name)
                if on_chunk is not None:
                    on_chunk(chunks[-1])
                continue
            r._pos = p
            if decl is None:
                _unknown_chunk(node, cid, base + p - 4)
            if encapsulated:
                _decode_chunk(r, node, decl, cid, stored_id, name)
                if on_chunk is not None:
                    on_chunk(chunks[-1])
                continue
            frame = root_frame(cid, node)
            try:
                decl.run(r, frame)
            except GbxError as e:
                q = r._pos
                chunks.append(Chunk(cid, base + p, q - p, bytes(buf[p:q]), False, None,
                                    e.add_context(chunk_id=cid, node=node_label(node), where="body"), stored_id,
                                    False, False, name))
                node.error = e
                raise
            q = r._pos
            # all fields given by position: a keyword costs more than the record's other work
            chunks.append(Chunk(cid, base + p, q - p, bytes(buf[p:q]), False, frame.values, None, stored_id,
                                False, False, name))
            if on_chunk is not None:
                on_chunk(chunks[-1])

    def _walk_archive(self, r: GbxReader, node: Node, decl: Any) -> None:
        """A class that archives itself (declared with the `archive` flag under its
        class id): one layout, no chunk ids, no end marker; kept as one chunk of that id."""
        _decode_chunk(r, node, decl, decl.chunk_id, None, getattr(decl, "name", None))
        node.complete = True
        if self.on_chunk is not None:
            self.on_chunk(node.chunks[-1])


def _decode_chunk(r: GbxReader, node: Node, decl: Any, cid: int, stored_id: int | None, name: str | None) -> None:
    """Decode a chunk that has no size (not skippable) with its declaration and append
    it to `node`; on a decoding error the chunk is kept with the error, which is
    then raised (the rest of the node cannot be found)."""
    base, start = r.offset_base, r._pos - r._base      # r.tell(), without the call
    try:
        values, error = decl.decode(r, cid, node), None
    except GbxError as e:
        values, error = None, e.add_context(chunk_id=cid, node=node_label(node), where="body")
        node.error = e
    end = r._pos - r._base
    node.chunks.append(Chunk(cid, base + start, end - start, r.raw(start, end), False, values, error, stored_id,
                             name=name))
    if error is not None:
        raise error


def _chunk_info(reg: Registry, raw_id: int) -> tuple[int, int | None, Any, str | None, bool]:
    """What the walker needs of a chunk id as stored: (current id, stored id when it
    was remapped, declaration, name, encapsulated). The same for every file: kept in
    the registry."""
    cid = classdb.remap_chunk(raw_id)
    decl = reg.get(cid)
    return (cid, raw_id if raw_id != cid else None, decl, reg.chunk_name(cid),
            decl is not None and "encapsulated" in decl.flags)


def _unknown_chunk(node: Node, cid: int, offset: int) -> None:
    err = GbxError(f"unknown chunk {cid:08X} is not skippable; the rest of the node cannot be read",
                   offset=offset, chunk_id=cid, node=node_label(node), where="body")
    node.error = err
    raise _walker_error(err)


def _walker_error(e: GbxError) -> GbxError:
    """Mark an error as the walker's own, so that the declaration field holding the
    node reference does not claim it (decl stays empty)."""
    if e.decl is None:
        e.decl = ""
    return e


def _skippable(r: GbxReader, node: Node, cid: int, stored_id: int | None, decl: Any, name: str | None) -> None:
    base = r.offset_base
    try:
        size = r.u32()
    except GbxError as e:
        raise _walker_error(e.add_context(chunk_id=cid, node=node_label(node), where="body")) from None
    start = r.tell()
    if r.remaining is not None and size > r.remaining:
        err = GbxError(f"skippable chunk size {size} exceeds the {r.remaining} bytes left",
                       offset=base + start - 4, chunk_id=cid, node=node_label(node), where="body")
        node.error = err
        raise _walker_error(err)
    values = error = None
    ids = r.ids
    if decl is not None:
        snap = ids.snapshot()
        try:
            with r.limit(size):
                values = decl.decode(r, cid, node)
            if r.tell() != start + size:
                raise GbxError(f"declaration read {r.tell() - start} of the chunk's {size} bytes",
                               offset=base + r.tell())
        except GbxError as e:
            values, error = None, e.add_context(chunk_id=cid, node=node_label(node), where="body")
            ids.restore(snap)      # strings read by the failed attempt are not trusted
        r.seek(start + size)
    else:
        r.skip(size)
    if values is None and may_define_strings(r.raw(start, start + size), r.text):
        ids.mark_gap(cid, base + start)
    node.chunks.append(Chunk(cid, base + start, size, r.raw(start, start + size), True, values, error, stored_id,
                             name=name))


@dataclass(eq=False)
class BodyResult:
    """Outcome of walking a body.

    status: "complete"  the main node's end marker was reached exactly at the end;
            "partial"   some chunks were read, then an error (or bytes left over);
            "failed"    nothing could be read (no body bytes, or the first chunk failed);
            "absent"    there is no body (not requested, or none present).
    """
    status: str
    nodes: list[Node] = field(default_factory=list)
    error: GbxError | None = None
    size: int = 0
    read: int = 0                      # bytes consumed by the walk

    @property
    def main(self) -> Node | None:
        return self.nodes[0] if self.nodes and self.nodes[0].index == 0 else None


def walk_body(source: Any, *, class_id: int, text: bool = False, num_nodes: int | None = None,
              externals: dict | None = None, on_node: Callable[[int], None] | None = None,
              feed: Callable[[bytes], None] | None = None, size: int | None = None,
              decls: Registry | None = None, on_chunk: Callable[[Chunk], None] | None = None,
              charge: Callable[[Any, int], None] | None = None) -> BodyResult:
    """Walk a body: ReadNode on the main node (slot 0) of class `class_id` (as stored).

    `source` is the body bytes or a pull source (pak entries; give `size` or a source
    with `remaining` so that the end can be checked). `on_chunk`, `charge`: see
    NodeWalker (what they raise leaves walk_body)."""
    walker = NodeWalker(decls, on_chunk, charge)
    r = make_reader(source, text=text, num_nodes=num_nodes, externals=externals, on_node=on_node, feed=feed,
                    walker=walker)
    total = r.remaining if r.remaining is not None else size
    result = BodyResult("complete", size=total or 0)
    try:
        walker.read_node(r, class_id, 0)
        if not r.at_end() and (r.remaining is not None or (size is not None and r.tell() < size)):
            left = r.remaining if r.remaining is not None else (size or 0) - r.tell()   # size is given here
            raise GbxError(f"{left} bytes after the main node's end marker", offset=r.tell(), where="body")
    except (GbxError, RecursionError) as e:
        if isinstance(e, RecursionError):
            # last-resort guard; MAX_DEPTH and the struct limit normally stop well before
            e = GbxError("data nested too deeply to read", offset=r.tell(), where="body")
        result.error = e
        read_any = any(n.chunks for n in r.all_nodes)
        result.status = "partial" if read_any else "failed"
    result.nodes = r.all_nodes
    result.read = r.tell()
    return result


def decode_header_chunk(chunk: Chunk, *, text: bool = False, decls: Registry | None = None) -> None:
    """Decode one header chunk in place (values or error), with fresh lookback state."""
    walker = NodeWalker(decls)
    decl = walker.decls.get(chunk.chunk_id, header=True)
    if decl is None:
        return
    # bytes (a view of a header read once is copied here): the reader's fast path, and
    # decoded values that keep no view of the header's buffer
    r = make_reader(bytes(chunk.raw), text=text, offset_base=chunk.offset, walker=walker)
    try:
        chunk.values = decl.decode(r, chunk.chunk_id)
        if not r.at_end():
            raise GbxError(f"declaration read {r.tell()} of the chunk's {chunk.size} bytes",
                           offset=chunk.offset + r.tell())
    except (GbxError, RecursionError) as e:
        if isinstance(e, RecursionError):
            e = GbxError("data nested too deeply to read", offset=chunk.offset + r.tell())
        chunk.values = None
        chunk.error = e.add_context(chunk_id=chunk.chunk_id, where="header")


def decode_bytes(decl: Any, data: bytes, *, text: bool = False, chunk_id: int | None = None,
                 decls: Registry | None = None, **reader_args: Any) -> dict[str, Any]:
    """Decode a chunk held in `data` with `decl` and fresh state; all bytes must be
    consumed (GbxError otherwise)."""
    r = make_reader(data, text=text, walker=NodeWalker(decls), **reader_args)
    values = decl.decode(r, chunk_id)
    if not r.at_end():
        raise GbxError(f"declaration read {r.tell()} of {len(data)} bytes", offset=r.tell(), chunk_id=decl.chunk_id)
    return values
