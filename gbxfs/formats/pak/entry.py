"""One file of a pak, worked out from its bytes: pure functions over an entry's
cipher stream (the pak's read_at, its key, where the stream's IV is and its
ciphertext length). The tree's PakEntry (tree/pak/entry.py) calls them and keeps
what they find (the verdict, the ivXor folds, the bytes in the cache).

Kinds:
- raw stored: CBC decrypts at any offset (the previous ciphertext block is
  the IV), no checksum exists, nothing can verify it;
- raw compressed: one verifying pass (zlib end + Adler-32 + size), then
  random access from checkpoints (seekinflate);
- embedded GBX (starts with "GBX", feeds not disabled): decrypted once while
  parsed (gbxentry), which records the ivXor folds (later reads decrypt in bulk
  with them) and proves nothing: a damaged float or string parses too.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from gbxfs.formats.pak.cipher import PakKey
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.gbxentry import GBX_MAGIC, GbxPass, GbxWalk, run_gbx_pass
from gbxfs.formats.pak.recover import recover
from gbxfs.formats.pak.seekinflate import CHUNK
from gbxfs.formats.pak.stream import EncryptedStream, ReadAt, plain_range

MAX_GBX_ENTRY = 256 << 20   # a GBX entry is parsed in memory: refuse absurd sizes
STORED_PIECE = 1 << 20
SMALL_ENTRY = CHUNK         # verified by its first read in whole-buffer calls (one seekinflate piece)


def kind_of(head: bytes, compressed: bool) -> str:
    """"gbx" when an entry's first plain bytes (`head`, up to its first page: no
    fold lands before a feed) start an embedded GBX, else "raw". Only for an entry
    whose record says it feeds and that may be read."""
    try:
        if compressed:
            head = zlib.decompressobj().decompress(head, len(GBX_MAGIC))
        if head[:3] == GBX_MAGIC:
            return "gbx"
    except zlib.error:
        pass  # the verifying pass will report it
    return "raw"


def inflate_whole(stored: bytes, size: int) -> bytes | None:
    """A compressed entry's `size` bytes inflated from its `stored` bytes with
    one call, when they verify (zlib's end with its Adler-32 reached, nothing
    beyond, the declared size); None otherwise."""
    try:
        z = zlib.decompressobj()
        data = z.decompress(stored, size + 1)
    except zlib.error:
        return None
    if not z.eof or len(data) != size:
        return None
    return data


def gbx_pass(read_at: ReadAt, key: PakKey, start: int, length: int, size: int, stored_size: int,
             compressed: bool, *, decls: Any = None, source_for: Callable[[Any], Any] | None = None,
             plain: bytes | None = None, feed_search: bool = False) -> tuple[GbxPass, bytes, GbxWalk | None]:
    """Decrypt an embedded GBX entry while parsing it: (the pass's report, the
    bytes it produced, the parse). The report says whether it verified (not:
    the bytes are not the entry's); its `folds` let later reads decrypt at
    random. `source_for(stream)`: a pull source other than the zlib/page ones
    (None: those); `plain`: the whole stream decrypted already, without folds;
    `feed_search`: search the feeds after a parse that stops early (recover.py,
    the version 3 cipher only)."""
    if size > MAX_GBX_ENTRY:
        raise PakError(f"GBX entry of {size} bytes exceeds the {MAX_GBX_ENTRY}-byte parse limit")
    stream = EncryptedStream(read_at, key, start, length, plain=plain)
    source = source_for(stream) if source_for is not None else None
    res = run_gbx_pass(stream, size, compressed and source is None, decls=decls, source=source)
    if not res.verified and res.trusted is not None and feed_search:
        _recover(res, plain_range(read_at, key, start, length, 0, stored_size), size)
    data, res.data = res.data, b""   # the report stays; the bytes are the caller's to keep
    walk, res.walk = res.walk, None
    return res, data, walk


def _recover(res: GbxPass, raw: bytes, size: int) -> None:
    """The parse stopped early: search the feeds after it (recover.py) in the
    entry's stored bytes decrypted without folds (`raw`). Only a path that zlib
    ends with a matching Adler-32 at the declared size is taken."""
    assert res.trusted is not None     # the caller's test
    known = [f for f in res.feed_log if f[0] <= res.trusted]
    rec = recover(raw, size, known, res.trusted, res.slots)
    res.recovery = rec
    if rec.data is None:
        res.error = f"{res.error}; feed search after byte {res.trusted} failed: {rec.reason}"
        return
    res.data, res.folds = rec.data, rec.folds
    res.verified, res.recovered, res.error, res.walk = True, True, None, None
