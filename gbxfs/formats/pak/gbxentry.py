"""Decrypting an embedded GBX while parsing it (docs/formats/pak.md).

Each ReadNode feeds feed_id(class) into ivXor, and two chunk declarations
feed in-chunk bytes; a feed only takes effect on the next page the
decrypter fetches, which the parse itself triggers (directly for stored
entries, through the game's zlib buffering for compressed ones). So the
only way to decrypt such an entry is to parse it while it decrypts.

Verification: a compressed entry is right only when zlib reaches the end of
its stream (Adler-32 checked by zlib). A stored one is accepted when the
parse consumed it exactly, which finds its feeds but proves nothing: a
damaged float or string parses as well (verification.py says so). The ivXor folds that were applied are recorded so the
entry can later be decrypted at random offsets without parsing again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.body import BodyData, read_body
from gbxfs.formats.gbx.decl import registry
from gbxfs.formats.gbx.errors import GbxError
from gbxfs.formats.gbx.header import read_header
from gbxfs.formats.gbx.nodes import walk_body
from gbxfs.formats.gbx.reader import GbxReader
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.feedscan import NodeSlots
from gbxfs.formats.pak.gameinflate import GameInflater
from gbxfs.formats.pak.stream import PageReader

GBX_MAGIC = b"GBX"


@dataclass
class GbxPass:
    data: bytes                          # every plain byte produced (the entry when verified)
    verified: bool                       # compressed: Adler-32 checked; stored: parsed exactly (no proof)
    error: str | None                    # why it is not verified
    folds: list[tuple[int, int]] = field(default_factory=list)
    node_feeds: int = 0                  # ReadNode feeds made
    chunk_feeds: int = 0                 # in-chunk feeds made
    parse_status: str = "failed"         # the body walk's status
    parse_error: str | None = None
    unknown_feed_classes: list[int] = field(default_factory=list)
    walk: GbxWalk | None = None          # the parse itself, when verified (PakEntry.verify hands it on)
    feed_log: list[tuple[int, bytes]] = field(default_factory=list)   # (plain offset, bytes) of every feed
    trusted: int | None = None           # plain offset up to which the parse's feeds are exact (None: the
                                         # feeds after it cannot be searched: see recover.py)
    slots: Any = None                    # feedscan.NodeSlots the parse used by `trusted`
    recovered: bool = False              # verified by a feed search and zlib's Adler-32, not by the parse
    recovery: Any = None                 # recover.Recovery, when a search ran


@dataclass
class GbxWalk:
    """The one parse of a verified GBX entry, for the view to use instead of
    parsing the same bytes again."""
    header: Any                          # gbxfs.formats.gbx.header.GbxHeader
    body: BodyData | None                # None until a verified pass gives a stored body its bytes
    result: Any                          # gbxfs.formats.gbx.nodes.BodyResult


def run_gbx_pass(stream: Any, size: int, compressed: bool, *, decls: Any = None, source: Any = None) -> GbxPass:
    """Parse the entry of `size` plain bytes from `stream` (fetch/feed),
    feeding as the game does. Works over EncryptedStream (reading) and
    EncryptingStream (writing). `source`: a pull source over `stream` other
    than the zlib/page ones (version 18 LZ4); it is judged like a stored
    entry (LZ4 has no checksum: only an exact, complete parse proves it)."""
    if source is not None:
        src = source
    else:
        src = GameInflater(stream, size) if compressed else PageReader(stream, size)
    res = GbxPass(b"", False, None)

    def on_node(class_id: int) -> None:
        fid = classdb.feed_id(class_id)
        if fid is None:
            res.unknown_feed_classes.append(class_id)
            return
        res.node_feeds += 1
        data = fid.to_bytes(4, "little")
        res.feed_log.append((src.consumed, data))
        stream.feed(data)

    def feed(data: bytes) -> None:
        res.chunk_feeds += 1
        res.feed_log.append((src.consumed, bytes(data)))
        stream.feed(data)

    try:
        _parse(src, size, on_node, feed, decls, res)
        if compressed:
            src.drain()
    except PakError as e:
        res.error = e.reason
    res.data = bytes(src.taken)
    res.folds = sorted(stream.folds.items())
    if res.error is None:
        res.verified, res.error = _judge(src, size, compressed, res)
    if not res.verified:
        if compressed and source is None:
            _mark_trusted(res, decls)
        res.walk = None
    elif res.walk is not None and res.walk.body is None:     # stored body: the bytes after the header
        body = res.data[res.walk.header.body_offset:]
        res.walk.body = BodyData(body, False, None, len(body))
    return res


def _mark_trusted(res: GbxPass, decls: Any) -> None:
    """Where the parse stopped knowing its feeds: the first chunk it could not read
    (a non-skippable one ends the walk; a skippable one it skipped or failed may
    hide node reads), and the node slots it used before that."""
    walk = res.walk
    if walk is None or walk.body is not None or res.unknown_feed_classes:
        return          # no header, an LZO body (read whole before any feed) or a feed nobody knows
    result = walk.result
    stops = [c.offset for n in result.nodes for c in n.chunks if c.skippable and c.values is None]
    if result.error is not None and result.error.offset is not None:
        stops.append(result.error.offset)
    if not stops:
        return
    trusted = walk.header.body_offset + min(stops)
    used = {i for i in (walk.header.refs.by_node_index() if walk.header.refs else {})}
    last = 0
    for n in result.nodes:       # in reading order
        if n.chunks and n.chunks[0].offset + walk.header.body_offset > trusted:
            break
        if n.index is not None:
            used.add(n.index)
            last = max(last, n.index)
    res.trusted = trusted
    reg = decls if decls is not None else registry()
    loose = frozenset(d.chunk_id for d in reg.chunks.values() if "archive" in d.flags)
    res.slots = NodeSlots(walk.header.num_nodes, used, last, loose)


def _parse(src, size: int, on_node, feed, decls, res: GbxPass) -> None:
    try:
        r = GbxReader(src)
        header = read_header(r)
        kw = dict(class_id=header.raw_class_id, text=header.text, num_nodes=header.num_nodes,
                  externals=header.refs.by_node_index() if header.refs else None,
                  on_node=on_node, feed=feed, decls=decls)
        if header.body_compression == "C":
            # An LZO body is read whole before ReadNode: its feeds only touch later pages.
            rest = src.read(src.remaining)
            body = read_body(rest, 0, "C")
            result = walk_body(body.data, **kw)
        else:
            body = None
            result = walk_body(src, **kw)
    except GbxError as e:
        res.parse_error = str(e)
        return
    res.walk = GbxWalk(header, body, result)
    res.parse_status = result.status
    res.parse_error = None if result.error is None else str(result.error)


def _judge(src, size: int, compressed: bool, res: GbxPass) -> tuple[bool, str | None]:
    if compressed:
        if not src.eof:
            return False, f"zlib stream ends early ({src.produced} of {size} bytes, no Adler-32 check)"
        if src.produced != size:
            return False, f"entry inflates to {src.produced} bytes, the file table says {size}"
        return True, None
    if res.unknown_feed_classes:
        names = ", ".join(f"{c:08X}" for c in res.unknown_feed_classes[:4])
        return False, f"no feed id known for class {names}: the rest cannot be decrypted"
    if res.parse_status != "complete":
        why = res.parse_error or res.parse_status
        return False, f"GBX parse stopped after {src.consumed} of {size} bytes: {why}"
    if src.consumed != size:
        return False, f"GBX parse consumed {src.consumed} of {size} bytes"
    return True, None
