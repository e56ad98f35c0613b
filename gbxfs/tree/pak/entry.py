"""One file of a pak: exact size up front, bytes on demand (checked where the format can).

PakEntry keeps what is known of one entry (its kind, whether it verified, the
ivXor folds, its error) and its bytes in the tree's byte-bounded cache, and
makes sure one thread verifies it however many ask at once (its lock). What
the bytes are is worked out by formats/pak/entry.py (the kinds, the verifying
GBX pass, one-call inflation) and seekinflate.py (random access into zlib).

An entry that cannot be read raises PakError from read()/pieces(), with the
reason in `error`; `proof` says what proves the bytes served; `verified_only`
makes the entries nothing can prove an error.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from gbxfs.formats.pak import (
    ADLER32,
    CHUNK,
    GBX_MAGIC,
    PAGE,
    RECOVERED,
    SMALL_ENTRY,
    STORED_PIECE,
    GbxPass,
    GbxWalk,
    PakError,
    PakFileRecord,
    PakKey,
    SeekableInflate,
    align8,
    gbx_pass,
    inflate_whole,
    kind_of,
    no_checksum,
    plain_range,
    refusal,
    static_error,
)
from gbxfs.tree.pak.group import EntryGroup
from gbxfs.tree.pak.pieces import DecryptAhead, NoCache, StoredPieces


class PakEntry(StoredPieces):
    feed_search = True      # search the feeds of a GBX entry whose parse stops early (v3 cipher only)

    def __init__(self, read_at, file_size: int, key: PakKey, data_offset: int, rec: PakFileRecord,
                 cache: Any = None, decls: Any = None, verified_only: bool = False,
                 group: EntryGroup | None = None):
        self.rec = rec
        self._group = group if group is not None else EntryGroup()
        self._error: str | None = None
        self._decls = decls               # chunk declarations (None: the shipped ones)
        self.size = rec.size
        self._read_at = read_at
        self._key = key
        self._cache = cache if cache is not None else NoCache()
        self._token = object()         # this entry's cache key prefix
        self._lock = threading.Lock()
        self.start = data_offset + rec.offset
        self.length = align8(rec.stored_size)
        self.gbx: GbxPass | None = None    # the GBX pass's report (its bytes live in the cache)
        self._folds: list[tuple[int, int]] = []
        self._inflate: SeekableInflate | None = None
        self._kind: str | None = None
        self.error = self._static_error(file_size) or (refusal(self.unproven) if verified_only and self.unproven
                                                       else None)
        self.checked = self.error is not None
        # set by a read-ahead batch (tree/pak/ahead.py): opening this entry starts the next batch
        self.ahead_mark = False
        # pieces of a large stored entry being decrypted in the background -> set when done
        self._pending: dict = {}
        self._ahead: DecryptAhead | None = None   # a compressed entry's pass input, decrypted ahead

    @property
    def error(self) -> str | None:
        """None while nothing is known to be wrong, else why the bytes cannot be
        served; setting one tells the entry's group (EntryGroup.any_error)."""
        return self._error

    @error.setter
    def error(self, value: str | None) -> None:
        if value is not None:
            self._group.any_error = True
        self._error = value

    def _static_error(self, file_size: int) -> str | None:
        rec = self.rec
        return static_error(file_size, self.start, rec.size, rec.stored_size, rec.compressed)

    # -- plain data ---------------------------------------------------------------
    def _plain(self, offset: int, size: int) -> bytes:
        ahead = self._ahead
        got = ahead.take(offset, size) if ahead is not None and not self._folds else None
        return got if got is not None else self._plain_range(offset, size)

    def _plain_range(self, offset: int, size: int) -> bytes:
        return plain_range(self._read_at, self._key, self.start, self.length, offset, size, self._folds)

    @property
    def kind(self) -> str:
        """"gbx" when the entry is an embedded GBX whose nodes feed ivXor, else "raw"."""
        if self._kind is None:
            head = b""
            if self.error is None and self.rec.feeds and self.size >= len(GBX_MAGIC):
                try:
                    head = self._plain(0, min(self.rec.stored_size, PAGE))
                except PakError:
                    pass  # the verifying pass will report it
            self._kind = self._kind_of(head)
        return self._kind

    def _kind_of(self, head: bytes) -> str:
        """The kind from the entry's first plain page (no fold lands before a feed)."""
        if self.error is None and self.rec.feeds and self.size >= len(GBX_MAGIC):
            return kind_of(head, self.rec.compressed)
        return "raw"

    # True: a first read decrypts the whole entry in one call and takes its kind from
    # that (a separate probe of the first page cost a read and a decryption more)
    one_read = True

    def whole_stream(self) -> tuple | None:
        """(read_at, key, IV offset, ciphertext length) when read_ahead() would decrypt
        the whole entry (a batch decrypts many at once: batch.py); else None."""
        if self.checked or self._kind is not None or not self.one_read or not 0 < self.size <= SMALL_ENTRY:
            return None
        return self._read_at, self._key, self.start, self.length

    def _whole(self, plain: bytes | None = None) -> bytes | None:
        """All the stored bytes decrypted in one call, without folds (None if they
        cannot be read: the general path says why); decides `kind`. `plain`: them
        decrypted already (a batch: whole_stream)."""
        if self._kind is not None or not self.one_read or self.error is not None:
            return None
        if plain is None or len(plain) != self.length:
            try:
                plain = self._plain(0, self.length)
            except PakError:
                return None
        self._kind = self._kind_of(plain[: min(self.rec.stored_size, PAGE)])
        return plain

    # -- verification -----------------------------------------------------------
    @property
    def unproven(self) -> str | None:
        """The label of an entry no checksum can prove (stored), from its table
        fields alone; None: zlib's Adler-32 proves it when read."""
        return no_checksum(self.rec.compressed)

    @property
    def proof(self) -> str | None:
        """What proves the bytes served (verification.py): `unproven`, or once a
        compressed entry is read, Adler-32. None: not read yet, or `error`."""
        if self.error is not None:
            return None
        if self.unproven is not None:
            return self.unproven
        if not self.checked:
            return None
        return RECOVERED if self.gbx is not None and self.gbx.recovered else ADLER32

    def check(self) -> str | None:
        """Verify once (may decrypt the whole entry); the reason when unverifiable."""
        return self.verify()[0]

    def verify(self) -> tuple[str | None, GbxWalk | None]:
        """check(), and for a GBX entry verified by this very call, the parse that
        verified it (so that a view need not parse it again). The entry never
        keeps that parse: it is the caller's to keep (in a bounded cache) or drop."""
        if self.checked:
            return self.error, None
        walk = None
        with self._lock:
            if not self.checked:
                try:
                    walk = self._verify()
                except PakError as e:
                    self.error = e.reason
                self.checked = True
        return self.error, walk

    def _verify(self) -> GbxWalk | None:
        if self.kind == "gbx":
            return self._gbx_pass()[1]
        if self.rec.compressed:
            try:
                for at, piece in self._inflater().verify_pass():
                    self._cache.put((self._token, at), piece, len(piece))
            finally:
                if self._ahead is not None:
                    self._ahead.stop()     # the pass is over: nothing more to decrypt ahead
        return None

    def _gbx_pass(self, keep: bool = True, plain: bytes | None = None) -> tuple[bytes, GbxWalk | None]:
        """Decrypt while parsing; the verified bytes (also put in the cache
        unless not `keep`) and the parse. `plain`: the whole stream decrypted
        already, without folds (_whole)."""
        res, data, walk = gbx_pass(self._read_at, self._key, self.start, self.length, self.size,
                                   self.rec.stored_size, self.rec.compressed, decls=self._decls,
                                   source_for=self._gbx_source, plain=plain, feed_search=self.feed_search)
        self.gbx = res
        if not res.verified:
            raise PakError(res.error or "unverifiable")
        self._folds = res.folds
        if keep:
            self._cache.put((self._token, "gbx"), data, len(data))
        return data, walk

    def _gbx_source(self, stream):
        """A pull source for the GBX pass other than the zlib/page ones (None: those)."""
        return None

    def _inflater(self) -> SeekableInflate:
        if self._inflate is None:
            # checkpoints go to the cache too (a NoCache would only waste their copies)
            cache = None if isinstance(self._cache, NoCache) else self._cache
            self._inflate = SeekableInflate(self._plain, self.rec.stored_size, self.size, cache, self._token)
        return self._inflate

    # -- reading -----------------------------------------------------------------
    def read(self, offset: int, size: int) -> bytes:
        end = min(self.size, offset + size)
        if not self.checked and offset < end and self.size <= SMALL_ENTRY:
            data = self._first_read(keep=offset > 0 or end < self.size, plain=self._whole())
            if data is not None:
                return data[offset:end]
        err = self.check()
        if err:
            raise PakError(err)
        if offset >= end:
            return b""
        if self.kind == "gbx":
            data = self._cache.get((self._token, "gbx"))
            if data is not None:
                return data[offset:end]
        if not self.rec.compressed:
            return self._read_stored(offset, end)
        return self._read_compressed(offset, end)

    def read_cached(self, offset: int, size: int) -> bytes | None:
        """read() when the bytes are verified and in the cache already (no
        decryption, no inflation, no waiting on a lock); None otherwise."""
        if not self.checked or self.error:
            return None
        end = min(self.size, offset + size)
        if offset >= end:
            return b""
        # a small entry's last bytes: read ahead for this read, not kept once served
        # (taken from the cache: one hold of its lock)
        cache = self._cache
        fetch = cache.take if end == self.size and self.size <= SMALL_ENTRY else cache.get
        if self._kind == "gbx":            # known once checked: no probe here
            data = fetch((self._token, "gbx"))
            if data is not None:
                return data[offset:end]
        if offset // CHUNK == (end - 1) // CHUNK:
            first = offset - offset % CHUNK
            piece = fetch((self._token, first))
            if piece is not None and len(piece) >= end - first:
                return piece[offset - first : end - first]
        return None

    def read_ahead(self, plain: bytes | None = None) -> int:
        """Verify a small entry nobody read yet and put all its bytes in the
        cache, for read_cached() (a folder reads its next entries ahead in one
        worker-thread visit). An unverifiable entry records its error. The
        bytes it cost (0: nothing to do). `plain`: its stored bytes decrypted
        already, without folds (batch.py; verified here like any others)."""
        if self.checked or not 0 < self.size <= SMALL_ENTRY:
            return 0
        plain = self._whole(plain)
        try:
            if self._first_read(keep=True, plain=plain) is not None:
                return self.size
        except PakError:
            return self.size
        if self.rec.compressed or self.kind == "gbx":
            if not self.checked:
                self.check()   # it did not verify in one go: the verifying pass records why
            return self.size
        # stored: nothing to verify, decrypted once (here or by _whole)
        data = plain[: self.size] if plain is not None else self._plain(0, self.size)
        self.checked = True
        self._cache.put((self._token, 0), data, len(data))
        return self.size

    def _first_read(self, keep: bool, plain: bytes | None = None) -> bytes | None:
        """A small entry's first read verifies it and hands out all its bytes
        (None: another thread verified it meanwhile, or it takes the general
        path). Only a partial first read (`keep`) leaves them in the cache: a
        whole one goes to the kernel's page cache, and caching it here too
        would only churn the cache and the daemon's memory. `plain`: the
        whole entry decrypted already (_whole), or None."""
        if not (self.rec.compressed or self.kind == "gbx"):
            return None                     # stored raw: nothing to verify, read as asked
        with self._lock:
            if self.checked:
                return None
            if self.kind == "gbx":
                try:
                    data: bytes | None = self._gbx_pass(keep, plain)[0]
                except PakError as e:
                    self.error, self.checked = e.reason, True
                    raise
                self.checked = True     # not on OSError: the folds are not known then
                return data
            data = self._inflate_whole(plain)
            if data is None:
                return None                 # the verifying pass will say what is wrong
            self._inflater().verified = True
            self.checked = True
        if keep:
            self._cache.put((self._token, 0), data, len(data))
        return data

    def _inflate_whole(self, plain: bytes | None = None) -> bytes | None:
        """The entry decrypted and inflated with one call each, when it
        verifies (zlib's end with its Adler-32 reached, nothing beyond, the
        declared size); None otherwise."""
        try:
            stored = plain[: self.rec.stored_size] if plain is not None else self._plain(0, self.rec.stored_size)
        except PakError:
            return None
        return inflate_whole(stored, self.size)

    def _read_compressed(self, offset: int, end: int) -> bytes:
        inf = self._inflater()
        if not inf.verified:
            with self._lock:  # a GBX entry proven by its parse: build checkpoints once
                if not inf.verified:
                    for _ in inf.verify_pass():
                        pass
        parts = []
        first = at = offset - offset % CHUNK
        while at < end:
            piece = self._cache.get((self._token, at))
            if piece is not None:
                parts.append(piece)
                at += len(piece)
                continue
            # a miss: inflate from the nearest checkpoint to `end`, caching every piece
            for p_at, p in inf.pieces(at, end):
                self._cache.put((self._token, p_at), p, len(p))
                if p_at >= at:
                    parts.append(p)
            break
        data = b"".join(parts)
        return data[offset - first : end - first]

    def pieces(self, piece_size: int = STORED_PIECE, index: bool = False) -> Iterator[bytes]:
        """The whole entry in order, with bounded memory (for extraction).
        Raises PakError as soon as the entry proves unverifiable; consumers
        must not keep what they got before that as a good file. `index`:
        keep seek checkpoints of a compressed entry for later reads."""
        if self.error:
            raise PakError(self.error)
        if self.kind == "gbx":
            data = self._cache.get((self._token, "gbx"))
            if data is None and not self.checked:
                with self._lock:
                    try:
                        data = self._gbx_pass()[0]
                    except PakError as e:
                        self.error, self.checked = e.reason, True
                        raise
                    self.checked = True
            if data is not None:
                for i in range(0, len(data), piece_size):
                    yield data[i : i + piece_size]
                return
            # verified earlier, bytes evicted: the recorded folds make it a plain stream
        if self.rec.compressed:
            inf = self._inflater()
            if self.checked and inf.verified:
                for _, p in inf.pieces(0, self.size):
                    yield p
                return
            try:
                for _, p in inf.verify_pass(index):
                    yield p
            except PakError as e:
                self.error, self.checked = e.reason, True
                raise
            self.checked = True
            return
        self.checked = True
        for i in range(0, self.size, piece_size):
            yield self._plain(i, min(piece_size, self.size - i))
