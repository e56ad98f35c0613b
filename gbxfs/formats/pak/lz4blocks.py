"""LZ4 compression of version 18 packs (public facts: GBX.NET.PAK's reader).

A compressed file is a sequence of blocks, each a u16 (little-endian)
compressed length, at most 4128, then one LZ4 block that inflates to at most
4096 bytes. Blocks are linked: each may copy from everything inflated before
it, and the first ones from a fixed preset dictionary (gbxfs/data/
pack18_lz4_dictionary.hex), within LZ4's 64 KiB window. The stream ends
when the file's declared size has been produced.

The `lz4` package (the maintained binding of the reference LZ4 library)
does the block work; it is imported on first use so that every pack without
LZ4 data works without it.
"""
from __future__ import annotations

import functools
import struct
from importlib import resources

from gbxfs.formats.pak.errors import PakError

BLOCK_OUT = 4096
BLOCK_IN_MAX = 4128
WINDOW = 65536


@functools.cache
def preset_dictionary() -> bytes:
    text = resources.files("gbxfs").joinpath("data", "pack18_lz4_dictionary.hex").read_text(encoding="ascii")
    return bytes.fromhex("".join(ln for ln in text.splitlines() if not ln.startswith("#")))


def _block_module():
    try:
        import lz4.block
    except ImportError:
        raise PakError("LZ4-compressed entry (pack version 18): the 'lz4' package is not installed") from None
    return lz4.block


class Lz4Inflater:
    """Inflates one entry block by block; `pull(n)` returns the next n bytes
    of the compressed stream (raising PakError when short)."""

    def __init__(self, pull, size: int):
        self._pull = pull
        self.size = size
        self.produced = 0
        self._history = preset_dictionary()
        self._lz4 = _block_module()

    def next_block(self) -> bytes:
        """The next inflated block (b"" once `size` bytes were produced)."""
        if self.produced >= self.size:
            return b""
        (n,) = struct.unpack("<H", self._pull(2))
        if not n or n > BLOCK_IN_MAX:
            raise PakError(f"LZ4 block of {n} bytes after {self.produced} bytes (limit {BLOCK_IN_MAX})")
        data = self._pull(n)
        try:
            out = self._lz4.decompress(data, uncompressed_size=BLOCK_OUT, dict=self._history)
        except Exception as e:  # noqa: BLE001 - lz4.block.LZ4BlockError: corrupt data or a wrong key
            raise PakError(f"LZ4 data is corrupt after {self.produced} bytes: {e}") from None
        if not out:
            raise PakError(f"empty LZ4 block after {self.produced} bytes")
        self.produced += len(out)
        if self.produced > self.size:
            raise PakError(f"entry inflates beyond its declared {self.size} bytes")
        self._history = (self._history + out)[-WINDOW:]
        return out


def inflate(data: bytes, size: int) -> bytes:
    """A whole LZ4 entry (its stored bytes) inflated to exactly `size` bytes."""
    pos = 0

    def pull(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise PakError(f"LZ4 data ends {pos + n - len(data)} bytes short")
        pos += n
        return data[pos - n : pos]

    inf = Lz4Inflater(pull, size)
    parts = []
    while True:
        block = inf.next_block()
        if not block:
            break
        parts.append(block)
    return b"".join(parts)


def deflate(data: bytes) -> bytes:
    """The writer's side: 4096-byte blocks, each compressed against the
    preset dictionary plus everything before it (last 64 KiB)."""
    lz4 = _block_module()
    history = preset_dictionary()
    out = bytearray()
    for i in range(0, len(data), BLOCK_OUT):
        chunk = data[i : i + BLOCK_OUT]
        block = lz4.compress(chunk, mode="high_compression", store_size=False, dict=history)
        out += struct.pack("<H", len(block)) + block
        history = (history + chunk)[-WINDOW:]
    return bytes(out)
