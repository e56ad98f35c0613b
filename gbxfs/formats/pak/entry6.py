"""One file of a ManiaPlanet/TM2020 pack (versions 6-18), worked out from its
bytes: what its table fields alone say (static_error6), its decryption from the
stream's start, its LZ4 blocks. The tree's PackEntry (tree/pak/entry6.py) keeps
the state, with the same rules as a version 3 entry, and what these versions add:
- files flagged PublicFile or ForceNoCrypt are stored in clear: readable
  without any key, at random offsets when not compressed;
- other files are encrypted with the pack's own key; without it they are
  unreadable (error says so), never guessed. With it, they are decrypted
  whole (the version 12+ IV chain cannot be entered mid-way) into the cache;
- version 18 compresses with linked LZ4 blocks (lz4blocks), which carry no
  checksum: a raw LZ4 entry must inflate to exactly its declared size, a GBX
  one parse completely, and neither proves the bytes (`proof` says `none`,
  as for stored entries); earlier versions use zlib as in version 3 (Adler-32).

Encrypted GBX entries feed ivXor as in version 3. Where the feeds land is
assumed to follow the version 3 rule for stored and zlib entries (pages
and the game's 0x400-byte inflate buffer: no public fact says otherwise);
for LZ4 entries it follows the public LZ4 reader, which pulls 8-byte cipher
blocks only as its blocks need them (Lz4Source).
"""
from __future__ import annotations

from typing import Any

from gbxfs.formats.pak.cipher import BLOCK, align8
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.gbxentry import GBX_MAGIC
from gbxfs.formats.pak.lz4blocks import BLOCK_IN_MAX, Lz4Inflater, inflate
from gbxfs.formats.pak.pull import RefillingSource
from gbxfs.formats.pak.records import FORCE_NO_CRYPT_FLAG, PACK_COMPRESSED_FLAGS, PUBLIC_FILE_FLAG
from gbxfs.formats.pak.stream import EncryptedStream, ReadAt
from gbxfs.formats.pak.verification import LZ4_VERSION

MAX_WHOLE = 256 << 20   # entries read whole (encrypted, LZ4) must fit in memory
PREFIX = 64 << 10       # reads ending before this decrypt only up to their end (type peeks)
NO_KEY = ("encrypted with the pack's own key, which is not public: give it with --packlist "
          "(a packlist.dat or a key file), or read only the pack's public files")


def static_error6(file_size: int, start: int, size: int, stored_size: int, flags: int, version: int,
                  has_key: bool) -> str | None:
    """Why a pack entry cannot be read, from its file table fields alone (None:
    it may be), as tablecheck.static_error for version 3: the tree asks it of a
    listing's files without making an entry per file. `start`: where its data
    begins (data offset + the entry's offset)."""
    compressed = bool(flags & PACK_COMPRESSED_FLAGS)
    encrypted = not flags & (PUBLIC_FILE_FLAG | FORCE_NO_CRYPT_FLAG)
    stored = stored_size if compressed else size
    end = start + (BLOCK + align8(stored) if encrypted else stored)
    if end > file_size:
        return f"pack truncated: data ends at {end:#x}, the pack has {file_size:#x} bytes"
    if encrypted and not has_key:
        return NO_KEY
    if compressed and size and not stored_size:
        return "compressed entry has no data"
    if (encrypted or compressed and version >= LZ4_VERSION) and max(size, stored) > MAX_WHOLE:
        return f"entry of {size} bytes exceeds the {MAX_WHOLE}-byte limit for entries read whole"
    return None


class Lz4Source(RefillingSource):
    """Pull source of an LZ4 entry over a cipher stream, pulling whole 8-byte
    blocks only when a byte of them is needed (the game's reader decrypts
    block by block as its LZ4 stream asks), so ivXor feeds land where they
    land in the game."""

    _dry = "LZ4 data ends"

    def __init__(self, stream, size: int):
        super().__init__(size)
        self._stream = stream
        self._raw = b""
        self.taken = bytearray()
        self._inf = Lz4Inflater(self._pull, size)

    def _pull(self, n: int) -> bytes:
        while len(self._raw) < n:
            got = self._stream.fetch(align8(n - len(self._raw)))
            if not got:
                raise PakError(f"LZ4 data ends {n - len(self._raw)} bytes short")
            self._raw += got
        out, self._raw = self._raw[:n], self._raw[n:]
        return out

    def _refill(self) -> bytes:
        out = self._inf.next_block()
        self.taken += out
        return out

    @property
    def produced(self) -> int:
        return self._inf.produced


def decrypt_from_start(read_at: ReadAt, key: Any, start: int, length: int, folds: list[tuple[int, int]],
                       end: int) -> bytes:
    """The first `end` bytes of a pack entry's stream decrypted from its start (the
    IV chain of version 12+ allows no other start), re-applying recorded folds."""
    stream = EncryptedStream(read_at, key, start, length)
    parts, at = [], 0
    for fold_at, value in folds:
        if fold_at >= end:
            break
        parts.append(stream.fetch(fold_at - at))
        stream._cipher.ivxor = value      # lands on the block at fold_at, a page start
        at = fold_at
    parts.append(stream.fetch(end - at))
    return b"".join(parts)


def lz4_whole(stored: bytes, size: int) -> bytes:
    """An LZ4 entry's bytes from its stored ones: exactly `size` of them, else PakError."""
    data = inflate(stored, size)
    if len(data) != size:
        raise PakError(f"LZ4 data inflates to {len(data)} bytes, the file table says {size}")
    return data


def lz4_starts_gbx(head: bytes, size: int) -> bool:
    """Whether an LZ4 entry's first block (from `head`, its first stored bytes) starts a GBX."""
    return Lz4Inflater(_Pull(head), size).next_block()[:3] == GBX_MAGIC


LZ4_HEAD = 2 + BLOCK_IN_MAX     # stored bytes that hold an LZ4 entry's first block


class _Pull:
    """pull(n) over bytes in memory (peeking at an entry's first LZ4 block)."""

    def __init__(self, data: bytes):
        self._data, self._pos = data, 0

    def __call__(self, n: int) -> bytes:
        if self._pos + n > len(self._data):
            raise PakError("LZ4 data ends early")
        self._pos += n
        return self._data[self._pos - n : self._pos]
