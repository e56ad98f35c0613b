"""A pak entry as a file of the tree: PakEntrySource (the entry as a ByteSource,
for plain files and GBX folder views) and PakEntryFile (a listed plain file,
its record and PakEntry made on first use). tree/pak/entries.py lists them."""
from __future__ import annotations

import errno
from collections.abc import Callable
from functools import partial

from gbxfs.formats.pak import CHUNK as LARGE
from gbxfs.formats.pak import PakError
from gbxfs.tree.model import SourceFile
from gbxfs.tree.pak.entry import PakEntry
from gbxfs.tree.pak.info import PROOF_XATTR
from gbxfs.tree.pak.names import CLASS_XATTR, STORED_NAME_XATTR


class PakEntrySource:
    """A pak entry as a ByteSource (for plain files and GBX folder views);
    unverifiable -> EIO. `archive`: the pak it comes from, given to a GBX folder's
    source so that the files its references name are found in the same pak
    (tree/gbx/nearby.py)."""

    __slots__ = ("entry", "size", "mtime_ns", "archive")
    access = None      # a pak entry shows its pak's access bits (inherited from the pak folder)

    def __init__(self, entry: PakEntry, mtime_ns: int, archive=None):
        self.entry = entry
        self.size = entry.size
        self.mtime_ns = mtime_ns
        self.archive = archive

    @property
    def proof(self) -> str | None:
        """What proves the entry's bytes (PakEntry.proof: `none: ...` for stored
        and LZ4 entries, known up front; Adler-32 once a compressed one is read)."""
        return self.entry.proof

    def read_at(self, offset: int, size: int) -> bytes:
        try:
            return self.entry.read(offset, size)
        except PakError as e:
            raise OSError(errno.EIO, f"pak entry cannot be verified: {e.reason}") from None

    def read_at_nowait(self, offset: int, size: int) -> bytes | None:
        """Bytes already verified and cached, without a worker thread (else None)."""
        return self.entry.read_cached(offset, size)

    def prefetch_offsets(self, offset: int) -> list[int]:
        return self.entry.prefetch_pieces(offset)

    def prefetch_at(self, offset: int) -> None:
        try:
            self.entry.prefetch(offset)
        except PakError as e:
            raise OSError(errno.EIO, f"pak entry cannot be read: {e.reason}") from None


class PakEntryFile(SourceFile):
    """A pak entry as a plain file: exact size up front (the file table's), verified
    on first read. Its record and PakEntry are made on first use, not when listed:
    `find` lists every file and reads none (a record and an entry cost about 20 us
    and 1 KB per file). `error` is what the entry knows so far (reading never
    happens to find it out); a file whose table fields are wrong already has its
    entry made when listed (tree/pak/listed.py), so that its folder shows error.txt.
    A folder's listing holds a row (name, size, table index) per file, and makes
    this object only when the file is asked for (tree/rows.py)."""

    __slots__ = ("_tree", "_index", "_size", "_src")
    mtime_ns: int                   # always given here
    _src: PakEntrySource | None

    def __init__(self, name: str, tree, index: int, size: int, *, mtime_ns: int):
        # tree: the PakTree of tree/pak/entries.py (its `arc`), which imports this module
        # one per file a pak folder lists: the slots are set here rather than through
        # the SourceFile/File/Entry initialisers, whose xattrs and error go to the
        # record's and the entry's properties anyway
        self.name = name
        self.mtime_ns = mtime_ns
        self.access = None
        self._tree, self._index, self._size, self._src = tree, index, size, None

    @property
    def source(self) -> PakEntrySource:
        """The entry as a ByteSource, made on first use from the file table (in
        memory while the folder's listing is: it is evicted after listings)."""
        src = self._src
        if src is None:
            arc = self._tree.arc
            src = self._src = PakEntrySource(arc.entry(arc.files[self._index]), self.mtime_ns)
        return src

    @property
    def entry(self) -> PakEntry:
        return self.source.entry

    @property
    def made(self) -> PakEntry | None:
        """The entry if made already (never makes it: for the event loop)."""
        src = self._src
        return None if src is None else src.entry

    def _exact_size(self) -> int:
        return self._size

    def _known_size(self) -> int | None:
        return self._size

    def _read_now(self, offset: int, size: int) -> bytes | None:
        src = self._src         # nothing is cached for an entry not made yet
        return None if src is None else src.read_at_nowait(offset, size)

    def prefetch(self, offset: int) -> list[Callable[[], None]]:
        if offset >= self._size:
            return []       # read to its end (every small file's one read): nothing follows
        src = self._src
        if src is None:
            # a large file's first read: its entry, made by _prepare in a worker, may want
            # its input decrypted on another core while the read's verifying pass inflates
            at = [0] if offset == 0 and self._size > LARGE else []
        else:
            at = src.prefetch_offsets(offset)
        return [partial(self._prepare, o) for o in at]

    def _prepare(self, offset: int) -> None:
        """Prepare the piece at `offset` for read(wait=False) (worker thread)."""
        self.source.prefetch_at(offset)

    # made from the record when asked: a dict per entry would cost ~250 bytes per file
    @property
    def xattrs(self):
        entry = self.entry
        xattrs = _record_xattrs(entry.rec, self.name)
        proof = entry.proof
        if proof is not None:
            xattrs[PROOF_XATTR] = proof.encode()
        return xattrs

    @xattrs.setter
    def xattrs(self, value) -> None:
        if value:
            raise AttributeError("a pak entry file's attributes are its record's")

    @property
    def error(self) -> str | None:
        e = self.made
        return None if e is None else e.error

    @error.setter
    def error(self, value: str | None) -> None:
        # File.__init__ clears it; afterwards only the entry decides
        if value is not None:
            raise AttributeError("a pak entry file's error is its entry's")


def _record_xattrs(rec, shown_name: str) -> dict[str, bytes]:
    xattrs = {"user.pak.index": str(rec.index).encode(), "user.pak.flags": f"{rec.flags:#x}".encode(),
              CLASS_XATTR: f"{rec.class_id:08X}".encode()}
    if shown_name != rec.parts[-1]:     # typed from the class, or made unique
        xattrs[STORED_NAME_XATTR] = rec.parts[-1].encode("utf-8", "replace")
    return xattrs
