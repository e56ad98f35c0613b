"""A body's digest: what body/ serves, distilled from the parse so that the parse can go.

A parsed body keeps the decoded values of every chunk alive: 20 to 50 times
the body's bytes (a 2 MiB map body parses into 40-50 MiB of objects). A cache
that cannot hold two such parses used to make them again on every read of a
chunk file when two maps were read in turn. The files under body/nodes/ need
much less: the node and chunk names, offsets, sizes and errors (a few hundred
bytes per chunk), each chunk's .txt dump (about a tenth of the parse, and
zlib at its fastest level shrinks it another 5-10 times), and raw bytes that
are slices of the body (made again in milliseconds from the file: see
GbxParse.body_bytes).

So body/ and body/nodes/ are served from a BodyDigest, cached as a DURABLE
value (tree/cache.py: evicted after parses and rendered bytes), and so are
info.txt's body lines, error.txt's body problems and embedded/ (a replay's map
and a map's items.zip are byte ranges of the body; items.txt is kept). Listings
never need the parse once it exists. A chunk's .txt is rendered from the
parse when the parse is cached, and kept (compressed) in the digest. When it
is not cached, the parse is made again and then every chunk text not yet in
the digest is rendered at once: a parse made a second time is one the cache
could not keep, so a third is avoided while the digest stays. That bounds the
body parses of a file to two for as long as its digest is cached, whatever
order its files are read in.
"""
from __future__ import annotations

import errno
import threading
import zlib
from typing import Any

from gbxfs.formats.gbx.dump import F32Texts
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.model import Chunk, Node
from gbxfs.formats.gbx.nodes import node_label
from gbxfs.tree.cache import DURABLE
from gbxfs.tree.gbx.chunkfiles import render_chunk_txt, xml_bytes
from gbxfs.tree.gbx.embedded import items_record
from gbxfs.tree.gbx.info import body_pairs
from gbxfs.tree.gbx.parse import GbxParse, ParsedBody
from gbxfs.tree.model import File

TEXT_ZLIB_LEVEL = 1          # the fastest: a map's 22 MiB of dumps in 0.3 s, to 2.4 MiB
# Texts are compressed in blocks of this size, and a read decompresses only the
# blocks it covers: a whole text decompressed per read (a 13 MiB dump read in
# 128 KiB pieces by 16 readers at once, its copy evicted between pieces by the
# others) held a whole text per worker thread, outside the cache's count.
TEXT_BLOCK = 256 * 1024
BLOCK_COST = 40              # list slot and bytes header of one compressed block
# what one record costs in memory (object, slots, small ints, list slot), rounded up
CHUNK_INFO_COST = 200
NODE_INFO_COST = 300
TEXT_COST = 120              # dict slot, key tuple, (size, bytes) tuple, bytes header


class ChunkInfo:
    """What the files of one chunk need of it (reads like a Chunk for chunkfiles)."""
    __slots__ = ("chunk_id", "name", "offset", "raw_size", "raw", "error", "xml_size")

    def __init__(self, c: Any, body: memoryview):
        self.chunk_id, self.name, self.offset, self.error = c.chunk_id, c.name, c.offset, c.error
        self.raw_size = len(c.raw)
        # body chunks' raw bytes are body slices (every corpus file): kept only when not
        self.raw = None if body[c.offset:c.offset + len(c.raw)] == c.raw else bytes(c.raw)
        xml = xml_bytes(c)
        self.xml_size = len(xml) if xml else None


class NodeInfo:
    __slots__ = ("index", "class_id", "class_name", "error", "chunks")

    def __init__(self, n: Any, body: memoryview):
        self.index, self.class_id, self.class_name, self.error = n.index, n.class_id, n.class_name, n.error
        self.chunks = [ChunkInfo(c, body) for c in n.chunks]


class BodyDigest:
    """The node and chunk records of a parsed body, its status and problems,
    and the chunk texts rendered so far (compressed)."""

    def __init__(self, pb: ParsedBody, problems: list):
        self.status = pb.status
        self.body_size = pb.body_size if pb.body is None else len(pb.body)
        body = memoryview(pb.body or b"")
        self.nodes = [NodeInfo(n, body) for n in pb.all_nodes()]
        self.problems = problems
        self.info = body_pairs(pb)          # info.txt's body lines
        try:                                 # embedded/items.zip: where, and items.txt
            self.items: tuple[int, int, bytes] | GbxError | None = items_record(pb.nodes[0]) if pb.nodes else None
        except GbxError as e:
            self.items = e
        self._texts: dict[tuple[int, int, str], tuple[int, list[bytes]]] = {}
        self._lock = threading.Lock()
        self.text_bytes = 0      # what the rendered texts kept here cost (add_text)
        self.cost = (4096 + (len(self.items[2]) if isinstance(self.items, tuple) else 0)
                     + NODE_INFO_COST * len(self.nodes) + sum(
            (CHUNK_INFO_COST + len(c.raw or b"")) for n in self.nodes for c in n.chunks))

    def text_size(self, i: int, j: int, kind: str) -> int | None:
        got = self._texts.get((i, j, kind))
        return None if got is None else got[0]

    def text(self, i: int, j: int, kind: str) -> bytes | None:
        got = self._texts.get((i, j, kind))
        return None if got is None else b"".join(map(zlib.decompress, got[1]))

    def text_range(self, i: int, j: int, kind: str, offset: int, size: int) -> tuple[int, bytes] | None:
        """(the text's size, its bytes from offset, at most size), decompressing only
        the blocks they lie in; None if the text was not rendered yet."""
        got = self._texts.get((i, j, kind))
        if got is None:
            return None
        n, blocks = got
        end = min(n, offset + max(size, 0))
        if offset >= end:
            return n, b""
        first = offset // TEXT_BLOCK
        data = b"".join(zlib.decompress(blocks[k]) for k in range(first, (end - 1) // TEXT_BLOCK + 1))
        at = first * TEXT_BLOCK
        return n, data[offset - at:end - at]

    def add_text(self, i: int, j: int, kind: str, data: bytes) -> int:
        """Keep a rendered text; the bytes that adds (0 if it was there)."""
        view = memoryview(data)
        blocks = [zlib.compress(view[k:k + TEXT_BLOCK], TEXT_ZLIB_LEVEL) for k in range(0, len(data), TEXT_BLOCK)]
        added = sum(map(len, blocks)) + BLOCK_COST * len(blocks) + TEXT_COST
        with self._lock:
            if (i, j, kind) in self._texts:
                return 0
            self._texts[(i, j, kind)] = (len(data), blocks)
            self.text_bytes += added
        return added


def body_problems(pb: ParsedBody) -> list[tuple[str, BaseException]]:
    """The body's errors for error.txt, found once per parse (a large map has
    thousands of chunks, and the folder asks on every listing)."""
    found = pb._problems
    if found is None:
        found = [("body", e) for e in pb.errors]
        for n in pb.nodes:
            if n.error is not None:
                found.append((f"node {node_label(n)}", n.error))
            for c in n.chunks:
                if c.error is not None:
                    found.append((f"chunk {c.chunk_id:08X} of node {node_label(n)}", c.error))
        pb._problems = found
    return found


def render(chunk: Any, kind: str, texts: F32Texts) -> bytes:
    return render_chunk_txt(chunk, texts) if kind == "txt" else xml_bytes(chunk)


class BodyFiles:
    """The body/ folder's data source for one GBX file: its digest, chunk texts
    and raw bytes, with the policy described in the module note."""

    __slots__ = ("p",)     # one per GBX folder a walk keeps: no dict of its own

    def __init__(self, p: GbxParse):
        self.p = p

    def _key(self) -> tuple:
        return ("gbx.digest", self.p.source)

    def digest(self) -> BodyDigest:
        return self.p.ctx.cache.get_or_make(self._key(), self._make, rank=DURABLE)

    def peek(self) -> BodyDigest | None:
        return self.p.ctx.cache.get(self._key())

    def _make(self) -> tuple[BodyDigest, int]:
        pb = self.p.body()
        d = BodyDigest(pb, body_problems(pb))
        return d, d.cost

    def text(self, i: int, j: int, kind: str) -> bytes:
        """The .txt (or .xml) of chunk j of node i."""
        d = self.digest()
        data = d.text(i, j, kind)
        if data is not None:
            return data
        cache = self.p.ctx.cache
        pb = cache.get(("gbx.body", self.p.source))
        if pb is not None:
            data = render(self._chunk(pb, d, i, j), kind, self.p.ctx.f32_texts)
            cache.grow(self._key(), d.add_text(i, j, kind, data))
            return data
        # the parse was made before and could not be kept: make it once more and
        # render everything not yet rendered, so that no read needs a third
        pb = self.p.body()
        added = 0
        for ni, n in enumerate(d.nodes):
            for cj, c in enumerate(n.chunks):
                for k in ("txt", "xml") if c.xml_size is not None else ("txt",):
                    if d.text_size(ni, cj, k) is None:
                        added += d.add_text(ni, cj, k, render(self._chunk(pb, d, ni, cj), k, self.p.ctx.f32_texts))
        if cache.peek(self._key()) is d:
            cache.grow(self._key(), added)
        else:
            # the walk's room evicted the digest itself: keep the one that now holds
            # every text, or the next read would walk the body again (and again)
            cache.put(self._key(), d, d.cost + d.text_bytes, rank=DURABLE)
        data = d.text(i, j, kind)
        assert data is not None
        return data

    def text_range(self, i: int, j: int, kind: str, offset: int, size: int) -> tuple[int, bytes]:
        """(the text's size, a range of it): from the digest's blocks once the text
        was rendered, never the whole text again (see TEXT_BLOCK)."""
        got = self.digest().text_range(i, j, kind, offset, size)
        if got is not None:
            return got
        data = self.text(i, j, kind)
        return len(data), data[offset:offset + max(size, 0)]

    def _chunk(self, pb: ParsedBody, d: BodyDigest, i: int, j: int) -> Any:
        nodes = pb.all_nodes()
        if len(nodes) != len(d.nodes) or j >= len(nodes[i].chunks):
            raise OSError(errno.EIO, f"{self.p.source}: body no longer parses the same")
        return nodes[i].chunks[j]

    def raw_node(self, i: int) -> Node:
        """Node i with its chunks' raw bytes and no decoded values (what a
        replay's embedded map needs), made without the parse."""
        n = self.digest().nodes[i]
        return Node(n.index, n.class_id, [Chunk(c.chunk_id, c.offset, c.raw_size, self.raw(i, j))
                                          for j, c in enumerate(n.chunks)])

    def raw(self, i: int, j: int) -> bytes:
        c = self.digest().nodes[i].chunks[j]
        return c.raw if c.raw is not None else self.body_slice(c.offset, c.raw_size)

    def raw_view(self, i: int, j: int) -> bytes | memoryview:
        """raw(), without copying a range of the body (a chunk .bin read in pieces
        copied the whole chunk per piece)."""
        c = self.digest().nodes[i].chunks[j]
        return c.raw if c.raw is not None else memoryview(self.p.body_bytes())[c.offset:c.offset + c.raw_size]

    def body_slice(self, offset: int, size: int) -> bytes:
        return bytes(memoryview(self.p.body_bytes())[offset:offset + size])


class ChunkText(File):
    """A chunk's .txt or .xml under body/nodes/: read by ranges from the body's
    digest (BodyFiles.text_range), not kept whole in the cache; its size is
    known from the listing once the text was rendered, else rendered once to find it."""

    __slots__ = ("_files", "_at", "_size")

    def __init__(self, name: str, files: BodyFiles, i: int, j: int, kind: str, size: int | None,
                 xattrs: dict | None = None):
        super().__init__(name)
        if xattrs is not None:
            self.xattrs = xattrs    # shared with the chunk's other files, as chunkfiles does
        self._files, self._at, self._size = files, (i, j, kind), size

    def _exact_size(self) -> int:
        if self._size is None:
            self._size = len(self._files.text(*self._at))
        return self._size

    def _known_size(self) -> int | None:
        return self._size

    def _read(self, offset: int, size: int) -> bytes:
        n, data = self._files.text_range(*self._at, offset, size)
        if self._size is None:
            self._size = n
        elif n != self._size:         # only if the body no longer rendered the same: never serve it
            raise OSError(errno.EIO, f"{self.name}: content made again has {n} bytes, "
                                     f"{self._size} were announced")
        return data
