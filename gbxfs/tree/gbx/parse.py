"""Parsing a GBX for its folder view, once, with results in the shared cache.

Two stages, so that listing a GBX folder costs only the header:
- `header()`: the header (and reference table), from the first bytes of the
  source, or from `header_bytes` handed over by a pak's metadata section
  (bytes, or a function fetching them: a pak's metadata section lives in the
  cache, so a folder asks for its header when it needs it rather than keep it);
- `body()`: the decompressed body and its node walk, on first access to
  anything that needs it (body/, ghost files, embedded/, info.txt's status).

Each stage is computed at most once per source while cached, however many
threads ask at the same time (ByteLRU.get_or_make waits for the one making
it): results live in
ctx.cache (a byte-bounded LRU) under a key holding the source object itself
(sources compare by identity, so two files never share an entry), with a cost
estimated from what the result keeps alive: bytes, and the Python objects of
the decoded values (which outweigh the body bytes of large maps several times).
Errors are kept without their tracebacks: a traceback keeps the frames of the
parse alive, and with them the whole file's bytes, at no cost to the cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gbxfs.formats.gbx.body import BodyData, read_body
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import parse_header
from gbxfs.formats.gbx.model import NodeRef
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.tree.cache import CHEAP
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.ghostfiles import all_nodes
from gbxfs.tree.source import ByteSource

HEADER_PROBE = 64 * 1024      # most headers (thumbnail included) fit in the first 64 KiB
MAX_GBX = 256 * 1024 * 1024   # a file larger than this is not parsed (shown raw only)


@dataclass(eq=False)
class ParsedHeader:
    header: GbxHeader | None
    error: GbxError | None
    data_size: int                 # bytes of source data read for it


@dataclass(eq=False)
class ParsedBody:
    body: bytes | None = None
    nodes: list[Any] = field(default_factory=list)   # gbxfs.formats.gbx.model.Node, main node first
    status: str = "absent"         # "complete", "partial", "failed", "absent", "unavailable"
    errors: list[GbxError] = field(default_factory=list)
    body_compressed: bool = False
    compressed_size: int | None = None
    # the decompressed body's size when the body is not kept with the parse (too
    # large for the cache): body.bin is still shown, read from the file again
    body_size: int | None = None
    _all: list[Any] | None = field(default=None, repr=False)
    _problems: list[Any] | None = field(default=None, repr=False)   # error.txt lines, see errors.py

    def all_nodes(self) -> list[Any]:
        """Every node, nested ones included, in reading order (computed once:
        node folders and chunk files look their node up here on every read)."""
        if self._all is None:
            self._all = all_nodes(self.nodes)
        return self._all


class GbxParse:
    """The parse state of one GBX source."""

    def __init__(self, source: ByteSource, ctx: TreeContext, *,
                 header_bytes: bytes | Callable[[], bytes | None] | None = None, source_error: str | None = None):
        self.source = source
        self.ctx = ctx
        self.header_bytes = header_bytes
        self.source_error = source_error      # the bytes cannot be verified (pak): body unavailable

    # -- raw bytes -------------------------------------------------------------------------
    def data(self) -> bytes:
        if self.source_error:
            raise GbxError(f"file bytes unavailable: {self.source_error}")
        if self.source.size > MAX_GBX:
            raise GbxError(f"file of {self.source.size} bytes is larger than the {MAX_GBX}-byte limit")
        return self.source.read_at(0, self.source.size)

    # -- header ----------------------------------------------------------------------------
    def _header_bytes(self) -> bytes | None:
        hb = self.header_bytes
        return hb() if callable(hb) else hb

    def header(self) -> ParsedHeader:
        return self.ctx.cache.get_or_make(("gbx.header", self.source), self._make_header)

    def _make_header(self) -> tuple[ParsedHeader, int]:
        meta = self._header_bytes() if self.source_error or self.source.size == 0 else None
        if meta is not None:
            data = meta
            refs = False                      # pak metadata records stop at numNodes
        elif self.source_error:
            return ParsedHeader(None, GbxError(f"file bytes unavailable: {self.source_error}"), 0), 256
        else:
            data = self.source.read_at(0, min(self.source.size, HEADER_PROBE))
            refs = True
        try:
            try:
                h = parse_header(data, refs=refs)
            except GbxError:
                if len(data) >= self.source.size or refs is False:
                    raise
                data = self.data()            # header larger than the probe: read it all
                h = parse_header(data, refs=refs)
            # raw chunks, and room for their decoded values (header/ decodes them later)
            cost = sum(2 * len(c.raw) + HEADER_CHUNK_COST for c in h.chunks) + 4096
            return ParsedHeader(h, None, len(data)), cost
        except GbxError as e:
            return ParsedHeader(None, _bare(e), len(data)), 1024

    # -- body ------------------------------------------------------------------------------
    def body(self) -> ParsedBody:
        return self.ctx.cache.get_or_make(("gbx.body", self.source), self._make_body)

    def _make_body(self) -> tuple[ParsedBody, int]:
        out = ParsedBody()
        ph = self.header()
        if ph.header is None or self.source_error:
            out.status = "unavailable"
            if self.source_error:
                out.errors.append(GbxError(f"body unavailable: {self.source_error}", where="body"))
            return out, 1024
        h = ph.header
        try:
            b = self._read_body(h)
        except GbxError as e:
            out.status = "failed"
            out.errors.append(_bare(e.add_context(where="body")))
            return out, 1024
        if not b.data:
            return _with_body(out, b), 1024
        # the walk builds about BODY_COST_RATIO times the body in objects: room for
        # them inside the cache's bound while it runs (ByteLRU.making)
        room = BODY_COST_RATIO * len(b.data)
        with self.ctx.cache.making(room):
            result = walk_body(b.data, class_id=h.raw_class_id, text=h.text, num_nodes=h.num_nodes,
                               externals=h.refs.by_node_index() if h.refs else None)
            pb, cost = parsed_body(b, result, self.ctx.cache.max_bytes)
            self.ctx.cache.hold(pb, cost)     # until cached, or dropped if it cannot be kept
            return pb, cost

    def _read_body(self, h: GbxHeader) -> BodyData:
        data = self.data()
        if h.body_offset is None:      # header came from pak metadata: parse the real one
            h = parse_header(data)
        return read_body(data, h.body_offset, h.body_compression)

    def body_bytes(self) -> bytes:
        """The decompressed body alone (body.bin, chunk .bin files): the parse's
        when it is cached, else read from the file again (milliseconds: no node
        walk), kept as a cheap cache value."""
        return self.ctx.cache.get_or_make(("gbx.bodybytes", self.source), self._make_body_bytes, rank=CHEAP)

    def _make_body_bytes(self) -> tuple[bytes, int]:
        pb = self.ctx.cache.get(("gbx.body", self.source))
        if pb is None or pb.body is None:
            h = self.header().header
            if h is None or self.source_error:      # listed from a body that was read: cannot happen
                raise GbxError("body no longer readable", where="body")
            data = self._read_body(h).data
        else:
            data = pb.body
        return data, len(data) + 1024

    def seed_body(self, b: BodyData, result: Any) -> None:
        """Take the body and its node walk from a parse done elsewhere (the pass
        that verified a pak entry walked it already), instead of walking it again."""
        self.ctx.cache.get_or_make(("gbx.body", self.source),
                                   lambda: parsed_body(b, result, self.ctx.cache.max_bytes))


def _with_body(out: ParsedBody, b: BodyData) -> ParsedBody:
    out.body, out.body_compressed, out.compressed_size = b.data, b.compressed, b.compressed_size
    if not b.data:
        out.status = "absent"
    return out


def parsed_body(b: BodyData, result: Any, limit: int) -> tuple[ParsedBody, int]:
    """The cached form of a body and the core's node walk over it (BodyResult),
    with its cost."""
    out = _with_body(ParsedBody(), b)
    if not b.data:
        return out, 1024
    out.nodes = list(result.nodes)
    out.status = result.status
    if result.error is not None:
        out.errors.append(_bare(result.error.add_context(where="body")))
    cost = body_cost(out)          # also lists every node (all_nodes)
    for n in out.all_nodes():
        _bare(n.error)
        for c in n.chunks:
            _bare(c.error)
    if cost > limit:
        # The cache would drop it at once, and every chunk file read would parse
        # the whole body again: say so once instead (bounded memory, no loop).
        return too_large(cost, limit, len(b.data)), 1024
    return out, cost


def too_large(cost: int, limit: int, size: int) -> ParsedBody:
    out = ParsedBody(status="unavailable", body_size=size)
    out.errors.append(GbxError(
        f"the parsed body needs about {cost >> 20} MiB of memory, more than the whole cache "
        f"({limit >> 20} MiB): not shown (mount option cache_mb raises the cache)", where="body"))
    return out


# Per-object costs for body_cost, from tracemalloc measurements over the corpus
# (tests/robustness/test_memory.py checks that the estimate is not below the truth).
NODE_COST = 300
# what a parsed body costs per byte of body, roughly (corpus maps: 7-33): room made in the
# cache before a body walk
BODY_COST_RATIO = 16
CHUNK_COST = 200
HEADER_CHUNK_COST = 2048
VALUE_COST = 64


def body_cost(pb: ParsedBody) -> int:
    """Bytes a parsed body keeps alive: the body, each chunk's raw copy, and the
    decoded values (containers, numbers, strings). Fills pb's node list on the way
    (one walk over the values finds both: see scan_nodes)."""
    nodes, cost = scan_nodes(pb.nodes)
    pb._all = nodes
    return len(pb.body or b"") + 4096 + cost


def scan_nodes(nodes: list[Any]) -> tuple[list[Any], int]:
    """Every node in reading order (as ghostfiles.all_nodes gives them: the listed
    ones and those reachable through node references) and what their chunks cost,
    in one walk over the decoded values: walking them twice was a third of the
    time of a large map's first listing."""
    seen: set[int] = set()
    out: list[Any] = []
    cost = 0

    def visit(n) -> None:
        nonlocal cost
        if id(n) in seen:
            return
        seen.add(id(n))
        out.append(n)
        cost += NODE_COST
        for c in n.chunks:
            cost += CHUNK_COST + len(c.raw)
            stack = [c.values] if c.values else []
            while stack:
                v = stack.pop()
                t = type(v)
                if t is int or t is float or t is bool or v is None:
                    continue
                if t is dict:
                    cost += VALUE_COST * (2 * len(v) + 1)
                    stack.extend(v.values())
                elif t is list or t is tuple:
                    cost += VALUE_COST * (len(v) + 1)
                    stack.extend(v)
                elif t is str or t is bytes or t is bytearray:
                    cost += len(v)
                elif isinstance(v, NodeRef):
                    if v.node is not None:
                        visit(v.node)
                elif isinstance(v, dict):
                    cost += VALUE_COST * (2 * len(v) + 1)
                    stack.extend(v.values())
                elif isinstance(v, (list, tuple)):
                    cost += VALUE_COST * (len(v) + 1)
                    stack.extend(v)
                elif isinstance(v, (bytes, bytearray, str)):
                    cost += len(v)

    for n in nodes:
        visit(n)
    return out, cost


def _bare(e: BaseException | None):
    """The exception without its traceback, nor those of the exceptions it was
    raised from (see the module note)."""
    seen = 0
    x = e
    while x is not None and seen < 16:
        x.__traceback__ = None
        x = x.__cause__ or x.__context__
        seen += 1
    return e
