"""One file of a ManiaPlanet/TM2020 pack (versions 6-18) in the tree: PakEntry's
state and rules (exact size up front, `proof` says what proves the bytes served)
over what formats/pak/entry6.py works out of these versions' bytes (clear public
files, the pack's own key, the IV chain of version 12+, LZ4 in version 18).
"""
from __future__ import annotations

from gbxfs.formats.pak import (
    GBX_MAGIC,
    LZ4_HEAD,
    LZ4_VERSION,
    PREFIX,
    Lz4Source,
    PakError,
    align8,
    decrypt_from_start,
    lz4_starts_gbx,
    lz4_whole,
    no_checksum,
    read_exact,
    static_error6,
)
from gbxfs.tree.pak.entry import PakEntry


class PackEntry(PakEntry):
    feed_search = False     # recover.py knows the version 3 cipher only
    one_read = False        # its kind and reads have rules of their own (version 6+ ciphers, LZ4)
    decrypt_ahead = False   # its _plain decrypts from the stream's start (pieces.py)

    def __init__(self, read_at, file_size: int, key, data_offset: int, rec, cache=None, decls=None,
                 verified_only: bool = False, group=None):
        self.lz4 = rec.version >= LZ4_VERSION and rec.compressed
        self._has_key = key is not None
        super().__init__(read_at, file_size, key, data_offset, rec, cache, decls, verified_only, group)

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
            data = decrypt_from_start(self._read_at, self._key, self.start, self.length, self._folds, align8(end))
        elif data is None:
            data = self._decrypted()
        return data[offset:end]

    def _plain_key(self) -> tuple:
        return (self._token, "plain", len(self._folds))   # the folds are known only after a GBX pass

    def _decrypted(self) -> bytes:
        """The whole entry decrypted, kept in the cache."""
        key = self._plain_key()
        data = self._cache.get(key)
        if data is None:
            data = decrypt_from_start(self._read_at, self._key, self.start, self.length, self._folds, self.length)
            self._cache.put(key, data, len(data))
        return data

    # -- LZ4 --------------------------------------------------------------------------------
    def _lz4_data(self) -> bytes:
        data = self._cache.get((self._token, "lz4"))
        if data is None:
            data = lz4_whole(self._plain(0, self.stored), self.size)
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
                    if lz4_starts_gbx(self._plain(0, min(self.stored, LZ4_HEAD)), self.size):
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
