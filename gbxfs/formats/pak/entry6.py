"""One file of a ManiaPlanet/TM2020 pack (versions 6-18).

Same interface and rules as PakEntry (exact size up front, `proof` says what
proves the bytes served), with what these versions add:
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

from gbxfs.formats.pak.cipher import BLOCK, align8
from gbxfs.formats.pak.entry import PakEntry
from gbxfs.formats.pak.errors import PakError
from gbxfs.formats.pak.gbxentry import GBX_MAGIC
from gbxfs.formats.pak.lz4blocks import BLOCK_IN_MAX, Lz4Inflater, inflate
from gbxfs.formats.pak.pull import RefillingSource
from gbxfs.formats.pak.records import FORCE_NO_CRYPT_FLAG, PACK_COMPRESSED_FLAGS, PUBLIC_FILE_FLAG
from gbxfs.formats.pak.stream import EncryptedStream, read_exact
from gbxfs.formats.pak.verification import LZ4_VERSION, no_checksum

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


class PackEntry(PakEntry):
    feed_search = False     # recover.py knows the version 3 cipher only
    one_read = False        # its kind and reads have rules of their own (version 6+ ciphers, LZ4)
    decrypt_ahead = False   # its _plain decrypts from the stream's start (pieces.py)

    def __init__(self, read_at, file_size: int, key, data_offset: int, rec, cache=None, decls=None,
                 verified_only: bool = False):
        self.lz4 = rec.version >= LZ4_VERSION and rec.compressed
        self._has_key = key is not None
        super().__init__(read_at, file_size, key, data_offset, rec, cache, decls, verified_only)

    @property
    def unproven(self) -> str | None:
        """Stored entries and LZ4 ones (version 18) carry no checksum."""
        return no_checksum(self.rec.compressed, self.lz4)

    @property
    def stored(self) -> int:
        """Bytes of file data (after the IV when encrypted, before padding)."""
        return self.rec.stored_size if self.rec.compressed else self.rec.size

    def _static_error(self, file_size: int) -> str | None:
        rec = self.rec
        self.length = align8(self.stored) if rec.encrypted else self.stored
        return static_error6(file_size, self.start, rec.size, rec.stored_size, rec.flags, rec.version,
                             self._has_key)

    # -- plain (decrypted, still compressed) bytes ---------------------------------------
    def _plain(self, offset: int, size: int) -> bytes:
        end = min(offset + size, self.stored)
        if offset >= end:
            return b""
        if not self.rec.encrypted:
            return read_exact(self._read_at, self.start + offset, end - offset, "pack data")
        data = self._cache.get(self._plain_key())
        if data is None and end <= PREFIX:    # a peek at the start: decrypt only that far
            data = self._decrypt(align8(end))
        elif data is None:
            data = self._decrypted()
        return data[offset:end]

    def _plain_key(self) -> tuple:
        return (self._token, "plain", len(self._folds))   # the folds are known only after a GBX pass

    def _decrypt(self, end: int) -> bytes:
        """The first `end` bytes decrypted from the stream's start (the IV chain
        of version 12+ allows no other start), re-applying recorded folds."""
        stream = EncryptedStream(self._read_at, self._key, self.start, self.length)
        parts, at = [], 0
        for fold_at, value in self._folds:
            if fold_at >= end:
                break
            parts.append(stream.fetch(fold_at - at))
            stream._cipher.ivxor = value      # lands on the block at fold_at, a page start
            at = fold_at
        parts.append(stream.fetch(end - at))
        return b"".join(parts)

    def _decrypted(self) -> bytes:
        """The whole entry decrypted, kept in the cache."""
        key = self._plain_key()
        data = self._cache.get(key)
        if data is None:
            data = self._decrypt(self.length)
            self._cache.put(key, data, len(data))
        return data

    # -- LZ4 --------------------------------------------------------------------------------
    def _lz4_data(self) -> bytes:
        data = self._cache.get((self._token, "lz4"))
        if data is None:
            data = inflate(self._plain(0, self.stored), self.size)
            if len(data) != self.size:
                raise PakError(f"LZ4 data inflates to {len(data)} bytes, the file table says {self.size}")
            self._cache.put((self._token, "lz4"), data, len(data))
        return data

    @property
    def kind(self) -> str:
        if not self.lz4:
            return super().kind
        if self._kind is None:
            self._kind = "raw"
            if self.error is None and self.rec.feeds and self.size >= len(GBX_MAGIC):
                try:
                    head = self._plain(0, min(self.stored, 2 + BLOCK_IN_MAX))
                    if Lz4Inflater(_Pull(head), self.size).next_block()[:3] == GBX_MAGIC:
                        self._kind = "gbx"
                except PakError:
                    pass  # the verifying pass will report it
        return self._kind

    def _verify(self) -> None:
        if self.lz4 and self.kind != "gbx":
            self._lz4_data()
            return
        super()._verify()

    def _gbx_source(self, stream):
        return Lz4Source(stream, self.size) if self.lz4 else None

    def _lz4_verified(self) -> bytes:
        """The entry's bytes once proven (a GBX one by its parse, which also
        records the folds its later re-decryption needs)."""
        err = self.check()
        if err:
            raise PakError(err)
        data = self._cache.get((self._token, "gbx")) if self.kind == "gbx" else None
        return data if data is not None else self._lz4_data()

    def read(self, offset: int, size: int) -> bytes:
        if not self.lz4:
            return super().read(offset, size)
        return self._lz4_verified()[offset : offset + size]

    def pieces(self, piece_size: int = 1 << 20, index: bool = False):
        if not self.lz4:
            yield from super().pieces(piece_size, index)
            return
        try:
            data = self._lz4_verified()
        except PakError as e:
            self.error, self.checked = e.reason, True
            raise
        for i in range(0, len(data), piece_size):
            yield data[i : i + piece_size]


class _Pull:
    """pull(n) over bytes in memory (peeking at an entry's first LZ4 block)."""

    def __init__(self, data: bytes):
        self._data, self._pos = data, 0

    def __call__(self, n: int) -> bytes:
        if self._pos + n > len(self._data):
            raise PakError("LZ4 data ends early")
        self._pos += n
        return self._data[self._pos - n : self._pos]
