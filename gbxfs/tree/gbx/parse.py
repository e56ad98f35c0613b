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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gbxfs.formats.gbx.body import BodyData, declared_size, read_body
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import GbxHeader, header_length, parse_header
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.tree.cache import CHEAP
from gbxfs.tree.context import TreeContext
from gbxfs.tree.gbx.cost import TooLarge, WalkBudget, scan_nodes
from gbxfs.tree.gbx.ghostfiles import all_nodes
from gbxfs.tree.source import ByteSource

# what a header is read with first: most maps' headers (thumbnail included) fit in
# 16 KiB (a map folder of 22,000 linked corpus files: 72%); a larger one is read
# again at the length its first bytes declare (header_length)
HEADER_PROBE = 16 * 1024
BODY_HEAD = 8                 # a compressed body's two sizes, at its offset
# read past a header's declared length: a short reference table and the body's first bytes
HEADER_SLACK = 256
MAX_GBX = 256 * 1024 * 1024   # a file larger than this is not parsed (shown raw only)


class BodyTooLarge(GbxError):
    """A body this mount's cache could not hold: not decompressed."""


@dataclass(eq=False)
class ParsedHeader:
    header: GbxHeader | None
    error: GbxError | None
    data_size: int                 # bytes of source data read for it
    # the first BODY_HEAD bytes at the body's offset when the header's read reached
    # them (body_size needs no read of its own), else None
    body_head: bytes | None = None


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

    __slots__ = ("source", "ctx", "header_bytes", "source_error")

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
        return self.ctx.cache.get_or_make(("gbx.header", self.source), self._make_kept_header)

    def header_once(self) -> ParsedHeader:
        """The header for a look made once (the folder's listing, an index row): the
        cached parse when there is one, else a parse that is not kept, so that a walk
        of thousands of GBX folders does not fill the cache with their headers."""
        ph = self.ctx.cache.get(("gbx.header", self.source))
        # not kept: its chunks are views of the bytes read, not copies (a thumbnail of 200 KB)
        return ph if ph is not None else self._make_header(views=True)[0]

    def _make_kept_header(self) -> tuple[ParsedHeader, int]:
        # kept in the cache: each chunk its own bytes, charged by their size, rather
        # than views holding all the bytes read (16 KiB for a replay's header of 1 KB)
        return self._make_header(views=False)

    def _make_header(self, views: bool) -> tuple[ParsedHeader, int]:
        meta = self._header_bytes() if self.source_error or self.source.size == 0 else None
        if meta is not None:
            data = meta
            refs = False                      # pak metadata records stop at numNodes
        elif self.source_error:
            return ParsedHeader(None, GbxError(f"file bytes unavailable: {self.source_error}"), 0), 256
        else:
            data = self.source.read_at(0, min(self.source.size, HEADER_PROBE))
            refs = True
            known = header_length(data)
            if known is not None and known > len(data) and self._may_read_more(data):
                data = self._read_more(data)      # not parsed first: that could only fail
        try:
            while True:
                try:
                    h = parse_header(data, refs=refs, views=views)
                    break
                except GbxError:
                    if refs is False or not self._may_read_more(data):
                        raise
                    data = self._read_more(data)
            # raw chunks, and room for their decoded values (header/ decodes them later)
            cost = sum(2 * len(c.raw) + HEADER_CHUNK_COST for c in h.chunks) + 4096
            end = None if h.body_offset is None else h.body_offset + BODY_HEAD
            head = bytes(data[h.body_offset:end]) if end is not None and end <= len(data) else None
            return ParsedHeader(h, None, len(data), head), cost
        except GbxError as e:
            return ParsedHeader(None, _bare(e), len(data)), 1024

    def _may_read_more(self, data: bytes) -> bool:
        return len(data) < self.source.size <= MAX_GBX

    def _read_more(self, data: bytes) -> bytes:
        """A header larger than `data` (a thumbnail): the length its first bytes
        declare (and the body's first bytes) when that is more, else four times
        more, not the whole file (a map of megabytes, a header of 200 KB)."""
        known = header_length(data)
        want = known + HEADER_SLACK if known is not None and known > len(data) else 4 * len(data)
        return self.source.read_at(0, min(self.source.size, want))

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
            out.status = "unavailable" if isinstance(e, BodyTooLarge) else "failed"
            out.errors.append(_bare(e.add_context(where="body")))
            return out, 1024
        if not b.data:
            return _with_body(out, b), 1024
        # room in the cache's bound for what the walk builds, made before it starts
        # (BODY_COST_RATIO) and grown as it counts its chunks; a walk past what the
        # cache could ever keep stops there (cost.py)
        cache = self.ctx.cache
        limit = cache.max_bytes
        room = min(BODY_COST_RATIO * len(b.data), limit)
        with cache.making(room) as grow:
            budget = WalkBudget(limit - len(b.data), room, grow)
            try:
                result = walk_body(b.data, class_id=h.raw_class_id, text=h.text, num_nodes=h.num_nodes,
                                   externals=h.refs.by_node_index() if h.refs else None,
                                   on_chunk=budget.on_chunk, charge=budget.charge)
            except TooLarge as e:
                return too_large(e.cost + len(b.data), limit, len(b.data), stopped=True), 1024
            pb, cost = parsed_body(b, result, limit, budget)
            cache.hold(pb, cost)     # until cached, or dropped if it cannot be kept
            return pb, cost

    def _read_body(self, h: GbxHeader) -> BodyData:
        data = self.data()
        if h.body_offset is None:      # header came from pak metadata: parse the real one
            h = parse_header(data)
        assert h.body_offset is not None    # parse_header read the reference table
        # A body larger than half the cache is never decompressed: it could not be
        # kept (every read of body.bin would decompress it again) and, with the
        # decompression buffer, would take the daemon past its memory bound.
        limit = self.ctx.cache.max_bytes
        head = bytes(data[h.body_offset:h.body_offset + 8])
        size = declared_size(head, h.body_offset, h.body_compression, len(data))
        if size > limit // 2:
            raise BodyTooLarge(f"the body is {size} bytes decompressed, more than half the cache "
                               f"({limit >> 20} MiB): not decompressed (mount option cache_mb raises the cache)",
                               where="body")
        return read_body(data, h.body_offset, h.body_compression)

    def body_bytes(self) -> bytes:
        """The decompressed body alone (body.bin, chunk .bin files): the parse's
        when it is cached, else read from the file again (milliseconds: no node
        walk), kept as a cheap cache value."""
        return self.ctx.cache.get_or_make(("gbx.bodybytes", self.source), self._make_body_bytes, rank=CHEAP)

    def body_size(self, h: GbxHeader | None = None, head: bytes | None = None) -> int:
        """The decompressed body's size as the file declares it (GbxError when the
        declared sizes do not fit the file): 8 bytes read at the body's offset, no
        decompression (listing body/ of thousands of files). A body whose data then
        does not decompress to it answers EIO when read, never other bytes.
        `h`: the header when the caller has it parsed already; `head`: its
        ParsedHeader's body_head (those 8 bytes, read with the header)."""
        if h is None:
            h = self.header_once().header
        if h is None:
            raise GbxError("header unreadable", where="body")
        if h.body_offset is None:       # a pak's metadata header: the entry's real one is needed
            data = self.ctx.cache.get(("gbx.bodybytes", self.source))
            return len(data if data is not None else self._make_body_bytes()[0])
        size = self.source.size
        if h.body_compression != "C" or h.body_offset >= size:
            head = b""
        elif head is None:
            head = self.source.read_at(h.body_offset, BODY_HEAD)
        return declared_size(head, h.body_offset, h.body_compression, size)

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


def parsed_body(b: BodyData, result: Any, limit: int, budget: WalkBudget | None = None) -> tuple[ParsedBody, int]:
    """The cached form of a body and the core's node walk over it (BodyResult),
    with its cost (counted by the walk's budget when there was one)."""
    out = _with_body(ParsedBody(), b)
    if not b.data:
        return out, 1024
    out.nodes = list(result.nodes)
    out.status = result.status
    if result.error is not None:
        out.errors.append(_bare(result.error.add_context(where="body")))
    nodes, cost = scan_nodes(out.nodes, budget)
    out._all = nodes
    cost += len(b.data) + 4096
    for n in out.all_nodes():
        _bare(n.error)
        for c in n.chunks:
            _bare(c.error)
    if cost > limit:
        # The cache would drop it at once, and every chunk file read would parse
        # the whole body again: say so once instead (bounded memory, no loop).
        return too_large(cost, limit, len(b.data)), 1024
    return out, cost


def too_large(cost: int, limit: int, size: int, stopped: bool = False) -> ParsedBody:
    out = ParsedBody(status="unavailable", body_size=size)
    out.errors.append(GbxError(
        f"the parsed body needs {'more than' if stopped else 'about'} {cost >> 20} MiB of memory, more than the "
        f"whole cache ({limit >> 20} MiB): not shown (mount option cache_mb raises the cache)", where="body"))
    return out


# what a parsed body costs per byte of body, roughly (corpus maps: 5-25): room made
# in the cache before a body walk, grown as the walk counts what it builds
BODY_COST_RATIO = 12
HEADER_CHUNK_COST = 2048


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
