"""Test-side tools for the pak tests, independent of gbxfs.formats.pak:

- GbxBuilder: hand-made GBX files (gbxfs/formats/gbx/writer.py's header) whose
  node starts (feeds) sit at chosen offsets, read with a small test chunk
  registry (TEST_DECLS);
- reference models of *where* the game's ivXor folds land, written from the
  feed rule (docs/formats/pak.md) in terms of offsets (no parser): stored entries fetch page k
  when byte k*0x100 is needed; compressed entries refill a 0x400-byte buffer;
- a reference Nadeo CBC encryptor (per block, struct-based byte reversal).

The writer/reader run the real parser; comparing them with these models
checks the feed timing against the spec, not against itself.
"""
from __future__ import annotations

import random
import struct
import zlib

from Crypto.Cipher import Blowfish

from gbxfs.formats.gbx import classdb
from gbxfs.formats.gbx.decl import Registry
from gbxfs.formats.gbx.writer import END, build_gbx

CLIP = 0x03079000      # CGameCtnMediaClip: main node of the test files
TRACK = 0x03078000     # CGameCtnMediaTrack: child nodes
PAGE = 0x100

TEST_DECLS_TEXT = """
03079F01
    uint32 padSize
    byte pad[padSize]
    uint32 numChildren
    for each child in numChildren:
        noderef child
    uint32 tailSize
    byte tail[tailSize]

03078F01
    uint32 padSize
    byte pad[padSize]
    uint32 numChildren
    for each child in numChildren:
        noderef child

03078F02
    uint32 padSize
    byte pad[padSize]
    uint32 value
    feed u32le(value)
"""


def make_test_decls() -> Registry:
    reg = Registry.from_texts([("paktest.chunks", TEST_DECLS_TEXT)])
    assert not reg.errors, reg.errors
    return reg


def feed_bytes(class_id: int) -> bytes:
    return classdb.feed_id(class_id).to_bytes(4, "little")


class GbxBuilder:
    """A version 6 BUUR GBX; records (offset, bytes) of every feed the game
    makes, the offset being how many bytes the parser consumed by then."""

    def __init__(self, main_class: int = CLIP, header_pad: int = 0, num_nodes: int = 64):
        pad_chunk = [(0x03079FFE, bytes(header_pad), False)] if header_pad else []
        self.buf = bytearray(build_gbx(class_id=main_class, header_chunks=pad_chunk, num_nodes=num_nodes,
                                       empty_user_data=True))
        b = self.buf
        self.body_offset = len(b)
        self.feeds: list[tuple[int, bytes]] = [(len(b), feed_bytes(main_class))]
        self.node_feeds = 1   # ReadNode feeds among self.feeds (the rest are in-chunk feeds)

    def u32(self, v: int) -> "GbxBuilder":
        self.buf += struct.pack("<I", v)
        return self

    def pad(self, n: int) -> "GbxBuilder":
        self.buf += struct.pack("<I", n) + bytes((i * 7 + 3) & 0xFF for i in range(n))
        return self

    def pad_until(self, target: int, after: int = 0) -> "GbxBuilder":
        """A pad field such that `after` more bytes then end exactly at `target`."""
        n = target - len(self.buf) - 4 - after
        assert n >= 0, f"cannot reach {target:#x} from {len(self.buf):#x}"
        return self.pad(n)

    def chunk(self, cid: int) -> "GbxBuilder":
        return self.u32(cid)

    def new_node(self, index: int, class_id: int) -> "GbxBuilder":
        self.buf += struct.pack("<iI", index, class_id)
        self.feeds.append((len(self.buf), feed_bytes(class_id)))
        self.node_feeds += 1
        return self

    def back_ref(self, index: int) -> "GbxBuilder":
        self.buf += struct.pack("<i", index)
        return self

    def null_ref(self) -> "GbxBuilder":
        return self.back_ref(-1)

    def chunk_feed(self, value: int) -> "GbxBuilder":
        """Test chunk 03078F02's tail: u32 value, fed as 4 LE bytes."""
        self.u32(value)
        self.feeds.append((len(self.buf), struct.pack("<I", value)))
        return self

    def end(self) -> "GbxBuilder":
        return self.u32(END)

    def bytes(self) -> bytes:
        return bytes(self.buf)


def leaf_track(g: GbxBuilder, index: int, pad: int = 0) -> GbxBuilder:
    """A TRACK node with no children."""
    return g.new_node(index, TRACK).chunk(0x03078F01).pad(pad).u32(0).end()


def random_body(seed: int, children: int) -> GbxBuilder:
    """A GBX whose incompressible pads make a compressed entry span many pages,
    with `children` child nodes (feeds) spread over them."""
    rnd = random.Random(seed)
    g = GbxBuilder(header_pad=37)
    g.chunk(0x03079F01)
    g.buf += (700).to_bytes(4, "little") + rnd.randbytes(700)
    g.u32(children)
    for i in range(1, children + 1):
        g.new_node(i, TRACK).chunk(0x03078F01)
        n = rnd.choice([5, 100, 600, 1300])
        g.buf += n.to_bytes(4, "little") + rnd.randbytes(n)
        g.u32(0).end()
    return g.u32(0).end()


# -- reference models ------------------------------------------------------------------------
def calc_ivxor_seed(ivxor: int, data: bytes) -> int:
    """The ivXor fold of docs/formats/pak.md, written with lo/hi 32-bit halves."""
    for b in data:
        lo = ivxor & 0xFFFFFFFF
        hi = ivxor >> 32
        lo = ((b | 0xAA) ^ (((lo << 13) & 0xFFFFFFFF) | (hi >> 19))) & 0xFFFFFFFF
        hi = ((ivxor << 13) & 0xFFFFFFFFFFFFFFFF) >> 32
        ivxor = (hi << 32) | lo
    return ivxor


def model_folds_stored(size: int, feeds: list[tuple[int, bytes]]) -> dict[int, int]:
    """Stored entry: page k is fetched when byte k*0x100 is first needed, i.e.
    after every feed made at consumed offset <= k*0x100."""
    folds, ivx, i = {}, 0, 0
    feeds = sorted(feeds, key=lambda f: f[0])
    for start in range(0, size, PAGE):
        while i < len(feeds) and feeds[i][0] <= start:
            ivx = calc_ivxor_seed(ivx, feeds[i][1])
            i += 1
        if ivx:
            folds[start] = ivx
            ivx = 0
    return folds


def model_folds_compressed(comp: bytes, feeds: list[tuple[int, bytes]]):
    """Compressed entry: the parser empties a 0x400-byte buffer; a refill runs
    when byte `produced` is needed (after every feed made at consumed offset
    <= produced) and reads a page only when zlib's input is empty.
    Returns (folds, log) with log = [(produced_before, pages_fetched, pending_ivxor_before)]."""
    z = zlib.decompressobj()
    folds, log = {}, []
    ivx, i, produced, page, inp = 0, 0, 0, 0, b""
    feeds = sorted(feeds, key=lambda f: f[0])
    padded = comp + bytes(-len(comp) % 8)   # the ciphertext covers whole blocks
    n_pages = -(-len(padded) // PAGE)
    while not z.eof:
        while i < len(feeds) and feeds[i][0] <= produced:
            ivx = calc_ivxor_seed(ivx, feeds[i][1])
            i += 1
        before, pending, fetched = produced, ivx, 0
        space = 0x400
        while space and not z.eof:
            if not inp:
                if page >= n_pages:
                    break
                if ivx:
                    folds[page * PAGE] = ivx
                    ivx = 0
                inp = padded[page * PAGE:(page + 1) * PAGE]
                page += 1
                fetched += 1
            out = z.decompress(inp, space)
            inp = z.unconsumed_tail
            space -= len(out)
            produced += len(out)
        log.append((before, fetched, pending))
        if produced == before:
            break
    return folds, log


# -- reference cipher --------------------------------------------------------------------------
def _rev(data: bytes) -> bytes:
    """Byte-reverse each 4-byte group (struct-based: independent of cipher.swap32)."""
    n = len(data) // 4
    return struct.pack(f">{n}I", *struct.unpack(f"<{n}I", data))


def reference_encrypt(key: bytes, iv: bytes, plain: bytes, folds: dict[int, int]) -> bytes:
    """Nadeo CBC, one block at a time: C = E(P ^ prev ^ fold)."""
    ecb = Blowfish.new(_rev(key), Blowfish.MODE_ECB)
    prev = int.from_bytes(iv, "little")
    out = bytearray()
    plain = plain + bytes(-len(plain) % 8)
    for at in range(0, len(plain), 8):
        x = int.from_bytes(plain[at:at + 8], "little") ^ prev ^ folds.get(at, 0)
        c = _rev(ecb.encrypt(_rev(x.to_bytes(8, "little"))))
        out += c
        prev = int.from_bytes(c, "little")
    return bytes(out)
